package agents

import (
	"context"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/venue/micro"
)

// Names of the three spending controls, as UpdateBudget clears them and
// the budget engine reports them (GET /budget's limitedBy says
// "percent" and "position_limit" for the last two).
const (
	LimitFixed            = "fixed_limit"
	LimitBudgetPercent    = "budget_percent"
	LimitMaxPositionValue = "max_position_value"
)

// BudgetChange changes some of an agent's spending controls and leaves the
// others as they are: a non-nil field sets that limit, a name in Clear
// removes it.
type BudgetChange struct {
	FixedLimitMicro       *int64
	PercentBps            *int32
	MaxPositionValueMicro *int64
	Clear                 []string
}

// ParseUSDC reads a positive USDC amount written as a decimal ("25",
// "12.5"), exact to six decimals; name (the flag or field read) is named
// in the message.
func ParseUSDC(name, v string) (int64, error) {
	d, err := decimal.NewFromString(strings.TrimSpace(v))
	bad := errs.Ef(errs.Invalid, "%s must be a positive USDC amount with at most 6 decimals, such as 25 or 12.5", name).WithCode(errs.CodeInvalidBudget)
	if err != nil || !d.IsPositive() || !d.Equal(d.Round(6)) || d.GreaterThan(micro.Decimal(maxBudgetMicro)) {
		return 0, bad
	}
	return d.Shift(6).IntPart(), nil
}

// ParsePercent reads a share of the wallet balance in percent, more than 0
// and at most 100, with at most two decimals ("25", "12.5", "0.01"), as
// basis points.
func ParsePercent(name, v string) (int32, error) {
	d, err := decimal.NewFromString(strings.TrimSpace(v))
	if err != nil || !d.IsPositive() || d.GreaterThan(decimal.NewFromInt(100)) || !d.Equal(d.Round(2)) {
		return 0, errs.Ef(errs.Invalid, "%s must be a percentage above 0 and at most 100, with at most 2 decimals", name).WithCode(errs.CodeInvalidBudget)
	}
	return int32(d.Shift(2).IntPart()), nil
}

// UpdateBudget applies ch to the agent's spending controls (see
// BudgetChange) and audits the change with the limits before and after, in
// one transaction; the order path enforces the new limits from the next
// order on. Setting and clearing the same limit, an unknown name in Clear
// and a change that changes nothing are Invalid; values are checked as
// SetBudget checks them.
func (s *Service) UpdateBudget(ctx context.Context, userID, idOrName, clientAddr string, ch BudgetChange) (Agent, error) {
	set := map[string]bool{
		LimitFixed: ch.FixedLimitMicro != nil, LimitBudgetPercent: ch.PercentBps != nil, LimitMaxPositionValue: ch.MaxPositionValueMicro != nil,
	}
	for _, name := range ch.Clear {
		isSet, known := set[name]
		switch {
		case !known:
			return Agent{}, errs.Ef(errs.Invalid, "cannot clear %q: the limits are %s, %s and %s", name, LimitFixed, LimitBudgetPercent, LimitMaxPositionValue).
				WithCode(errs.CodeInvalidBudget)
		case isSet:
			return Agent{}, errs.Ef(errs.Invalid, "%s is both set and cleared", name).WithCode(errs.CodeInvalidBudget)
		}
	}
	if len(ch.Clear) == 0 && !slices.Contains([]bool{set[LimitFixed], set[LimitBudgetPercent], set[LimitMaxPositionValue]}, true) {
		return Agent{}, errs.E(errs.Invalid, "nothing to change: set a limit or clear one").WithCode(errs.CodeInvalidBudget)
	}
	next := Budget{FixedLimitMicro: ch.FixedLimitMicro, PercentBps: ch.PercentBps, MaxPositionValueMicro: ch.MaxPositionValueMicro}
	if err := next.validate(); err != nil {
		return Agent{}, err
	}
	return s.change(ctx, userID, idOrName, clientAddr, audit.ActionAgentUpdate, func(tx *store.Store, a *models.Agent) (map[string]any, error) {
		// Read again inside the transaction, so a concurrent change of
		// another limit is kept.
		cur, err := tx.AgentForUser(ctx, userID, a.ID)
		if err != nil {
			return nil, err
		}
		before := Budget{FixedLimitMicro: cur.BudgetLimitMicro, PercentBps: cur.BudgetPercentBps, MaxPositionValueMicro: cur.MaxPositionValueMicro}
		after := before
		if ch.FixedLimitMicro != nil {
			after.FixedLimitMicro = ch.FixedLimitMicro
		}
		if ch.PercentBps != nil {
			after.PercentBps = ch.PercentBps
		}
		if ch.MaxPositionValueMicro != nil {
			after.MaxPositionValueMicro = ch.MaxPositionValueMicro
		}
		for _, name := range ch.Clear {
			switch name {
			case LimitFixed:
				after.FixedLimitMicro = nil
			case LimitBudgetPercent:
				after.PercentBps = nil
			case LimitMaxPositionValue:
				after.MaxPositionValueMicro = nil
			}
		}
		detail := map[string]any{"setting": "budget", "from": before, "to": after}
		return detail, tx.UpdateAgentBudget(ctx, userID, a.ID, store.AgentSettings{
			BudgetLimitMicro: after.FixedLimitMicro, BudgetPercentBps: after.PercentBps, MaxPositionValueMicro: after.MaxPositionValueMicro,
		})
	})
}

// validate checks the limits that are set: amounts positive and at most
// 1e9 USDC, the percentage 1–10000 bps.
func (b Budget) validate() error {
	for _, v := range []*int64{b.FixedLimitMicro, b.MaxPositionValueMicro} {
		if v != nil && (*v <= 0 || *v > maxBudgetMicro) {
			return errs.E(errs.Invalid, "budget amounts must be positive and at most 1,000,000,000 USDC").WithCode(errs.CodeInvalidBudget)
		}
	}
	if b.PercentBps != nil && (*b.PercentBps <= 0 || *b.PercentBps > 10000) {
		return errs.E(errs.Invalid, "the budget percentage must be between 0.01% and 100%").WithCode(errs.CodeInvalidBudget)
	}
	return nil
}
