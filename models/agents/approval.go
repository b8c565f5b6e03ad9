package agents

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/intent"
	"github.com/agent-trading/ats/venue/micro"
)

// DefaultApprovalFixedLimitMicro is the fixed limit a newly approved
// agent gets unless the approval sets another (the /link page offers it
// prefilled; `ats admin device approve` applies it without a budget
// flag): 25 USDC, enough for a few trades, little enough that an agent
// that misbehaves before its user looks costs little. An agent is never
// silently unlimited: no limit is an explicit choice, recorded in the
// audit log.
const DefaultApprovalFixedLimitMicro = 25 * 1_000_000

// ApprovalBudget is the spending control an approval gives the new agent:
// a fixed limit, or — chosen explicitly — none. The zero value is the
// default (DefaultApprovalFixedLimitMicro).
type ApprovalBudget struct {
	// FixedLimitMicro is the agent's fixed limit in micro-USDC; 0 is the
	// default's.
	FixedLimitMicro int64
	// NoLimit is the explicit choice of no limit.
	NoLimit bool
	// Mode is the agent's mode, models.ModePaper or models.ModeLive; ""
	// is the default, paper (see DefaultApprovalMode).
	Mode string
}

// DefaultApprovalMode is the mode of an approval that names none: paper.
// A newly linked agent is code its user has not yet watched trade; a
// careful service lets it show what it does with the real markets' prices
// before it can move real money, and makes real money an explicit choice
// (the /link page's "Live" option, `--mode live`), recorded in the audit
// log. A paper agent never becomes live: going live is a new approval.
const DefaultApprovalMode = models.ModePaper

// ParseMode reads a mode as a form or flag gives it ("" is the default).
func ParseMode(s string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return DefaultApprovalMode, nil
	case models.ModePaper:
		return models.ModePaper, nil
	case models.ModeLive:
		return models.ModeLive, nil
	}
	return "", errs.Ef(errs.Invalid, "the mode must be paper or live, not %q", s).WithCode(errs.CodeInvalidMode)
}

// DefaultApprovalBudget is the budget of an approval that names none.
func DefaultApprovalBudget() ApprovalBudget {
	return ApprovalBudget{FixedLimitMicro: DefaultApprovalFixedLimitMicro}
}

// Resolved is b with the default filled in.
func (b ApprovalBudget) Resolved() ApprovalBudget {
	mode := b.Mode
	if mode != models.ModeLive {
		mode = DefaultApprovalMode
	}
	if b.NoLimit {
		return ApprovalBudget{NoLimit: true, Mode: mode}
	}
	if b.FixedLimitMicro <= 0 {
		d := DefaultApprovalBudget()
		d.Mode = mode
		return d
	}
	b.Mode = mode
	return b
}

// Check refuses a fixed limit outside what budgets allow (SetBudget's
// bounds).
func (b ApprovalBudget) Check() error {
	if b.NoLimit || b.FixedLimitMicro == 0 {
		return nil
	}
	if b.FixedLimitMicro < 0 || b.FixedLimitMicro > maxBudgetMicro {
		return errs.E(errs.Invalid, "the spending limit must be a positive USDC amount of at most 1,000,000,000").WithCode(errs.CodeInvalidBudget)
	}
	return nil
}

// String says the budget in words ("a fixed limit of 25 USDC", "no limit")
// and the mode ("…, trading paper money").
func (b ApprovalBudget) String() string {
	r := b.Resolved()
	s := "a fixed limit of " + micro.Decimal(r.FixedLimitMicro).String() + " USDC"
	if r.NoLimit {
		s = "no limit"
	}
	if r.Mode == models.ModePaper {
		return s + ", trading paper money"
	}
	return s + ", trading real money"
}

// Field is the budget and mode as a decision carries them and its proof
// covers: "<mode>;fixed:<micro-USDC>" or "<mode>;none" (the defaults
// resolved first).
func (b ApprovalBudget) Field() string {
	r := b.Resolved()
	if r.NoLimit {
		return r.Mode + ";none"
	}
	return fmt.Sprintf("%s;fixed:%d", r.Mode, r.FixedLimitMicro)
}

// audit is the budget as the approval's audit entries record it.
func (b ApprovalBudget) audit() map[string]any {
	r := b.Resolved()
	if r.NoLimit {
		return map[string]any{"no_limit": true}
	}
	return map[string]any{"fixed_limit": micro.Decimal(r.FixedLimitMicro).String()}
}

// ParseApprovalField reads Field's form; "" (a decision made before
// approvals carried a budget) is the default budget. A field without a
// mode is a decision made before agents had modes, when every agent
// traded real money: live.
func ParseApprovalField(s string) (ApprovalBudget, error) {
	mode := models.ModeLive
	if m, rest, ok := strings.Cut(s, ";"); ok {
		if m != models.ModePaper && m != models.ModeLive {
			return ApprovalBudget{}, errs.Ef(errs.Invalid, "unknown approval mode %q", m)
		}
		mode, s = m, rest
	}
	b, err := parseBudgetField(s)
	b.Mode = mode
	return b, err
}

func parseBudgetField(s string) (ApprovalBudget, error) {
	switch {
	case s == "":
		return DefaultApprovalBudget(), nil
	case s == "none":
		return ApprovalBudget{NoLimit: true}, nil
	case strings.HasPrefix(s, "fixed:"):
		v, err := strconv.ParseInt(strings.TrimPrefix(s, "fixed:"), 10, 64)
		b := ApprovalBudget{FixedLimitMicro: v}
		if err != nil || v <= 0 || b.Check() != nil {
			break
		}
		return b, nil
	}
	return ApprovalBudget{}, errs.Ef(errs.Invalid, "unknown approval budget %q", s)
}

// ApprovalProof is the proof of an approval of linkID by userID from
// clientAddr giving the agent budget (its Field): the budget is part of
// what the user decided, so a decision with another budget is refused.
// An empty budget is the proof of a decision made before approvals
// carried one (DecisionProof).
func ApprovalProof(k *intent.Keys, linkID, userID, clientAddr, budget string) string {
	if budget == "" {
		return DecisionProof(k, intent.DeviceApprove, linkID, userID, clientAddr)
	}
	return k.Sign(intent.DeviceApprove, linkID, userID, clientAddr, budget)
}

// ApprovalBudgetForm reads the budget fields of the /link page: noLimit
// is its "No limit" box, fixedLimit its prefilled amount (thousands
// separators allowed) and sent whether the form had the field at all. A
// form without it (a page rendered before approvals had a budget) gets
// the default; an emptied field without the box is refused, so no agent
// becomes unlimited by a slip.
func ApprovalBudgetForm(fixedLimit string, sent, noLimit bool) (ApprovalBudget, error) {
	if noLimit {
		return ApprovalBudget{NoLimit: true}, nil
	}
	v := strings.TrimSpace(strings.ReplaceAll(fixedLimit, ",", ""))
	if !sent {
		return DefaultApprovalBudget(), nil
	}
	if v == "" {
		return ApprovalBudget{}, errs.E(errs.Invalid, "Enter a spending limit, or tick No limit to let the agent spend the whole wallet.").
			WithCode(errs.CodeInvalidBudget)
	}
	m, err := ParseUSDC("The spending limit", v)
	if err != nil {
		return ApprovalBudget{}, err
	}
	return ApprovalBudget{FixedLimitMicro: m}, nil
}

// DefaultApprovalFixedLimit is DefaultApprovalFixedLimitMicro in USDC, as
// the /link page prefills it.
func DefaultApprovalFixedLimit() string {
	return micro.Decimal(DefaultApprovalFixedLimitMicro).String()
}
