package positions

import (
	"context"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/venue/micro"
)

// List filters (the API's status query).
const (
	FilterOpen       = "open"
	FilterSettled    = "settled"
	FilterRedeemable = "redeemable"
	FilterAll        = "all"
)

// DefaultResolutionTTL is the default of Service.ResolutionTTL.
const DefaultResolutionTTL = 5 * time.Second

// Item is one position as listed. Amounts are USDC, prices USDC per share,
// sizes shares; P&L percent is a percentage (12.5 = 12.5%).
type Item struct {
	ID          string
	TokenID     string
	ConditionID string
	Question    string
	Outcome     string
	Status      string
	Size        decimal.Decimal
	// AvgEntryPrice is the cost-weighted average price of the shares held.
	AvgEntryPrice decimal.Decimal
	// CurrentPrice is the midpoint, or the payout per share once the market
	// resolved. Without a price (the token has no book) it is the average
	// entry, so the position counts at cost.
	CurrentPrice      decimal.Decimal
	CurrentValue      decimal.Decimal
	Unrealized        decimal.Decimal
	UnrealizedPercent decimal.Decimal
	RealizedPnl       decimal.Decimal
	// Resolved is set when CurrentPrice is the resolved payout.
	Resolved bool
}

// Summary totals the listed positions.
type Summary struct {
	TotalPositions     int
	TotalUnrealizedPnl decimal.Decimal
	TotalValue         decimal.Decimal
}

// List is the answer of Service.List.
type List struct {
	Positions []Item
	Summary   Summary
}

// statusesFor maps a filter to stored statuses; "all" includes closed
// positions, as it promises everything the agent ever held.
func statusesFor(filter string) ([]string, error) {
	switch strings.ToLower(strings.TrimSpace(filter)) {
	case "", FilterOpen:
		return []string{models.PositionOpen}, nil
	case FilterSettled:
		return []string{models.PositionSettled}, nil
	case FilterRedeemable:
		return []string{models.PositionRedeemable}, nil
	case FilterAll:
		return nil, nil
	}
	return nil, errs.Ef(errs.Invalid, "status must be one of open, settled, redeemable, all").WithCode(errs.CodeInvalidStatus)
}

// List returns the agent's positions with status (open by default) valued
// at current prices. Open positions whose market resolved on chain are
// first moved to redeemable (the token pays out and shares are held) or
// settled. fresh bypasses the price and resolution caches.
func (s *Service) List(ctx context.Context, agentID, status string, fresh bool) (List, error) {
	statuses, err := statusesFor(status)
	if err != nil {
		return List{}, err
	}
	if s.Prices == nil || s.Resolutions == nil || s.Markets == nil {
		return List{}, errs.E(errs.Internal, "the positions service is not wired for listing (prices, resolutions, markets)")
	}
	// One read serves the resolution check (open positions) and the
	// listing; only when a resolution moved a position is it read again.
	read := statuses
	if len(read) > 0 && !slices.Contains(read, models.PositionOpen) {
		read = append(slices.Clone(read), models.PositionOpen)
	}
	reads := s.Reads
	if reads == nil || fresh {
		reads = s.Store
	}
	ps, err := reads.ListPositions(ctx, agentID, read...)
	if err != nil {
		return List{}, err
	}
	moved, err := s.refreshResolutions(ctx, ps, fresh)
	if err != nil {
		return List{}, err
	}
	if moved {
		if ps, err = s.Store.ListPositions(ctx, agentID, read...); err != nil {
			return List{}, err
		}
	}
	if len(statuses) > 0 {
		ps = slices.DeleteFunc(ps, func(p models.Position) bool { return !slices.Contains(statuses, p.Status) })
	}

	var priced []string
	for _, p := range ps {
		if p.Status == models.PositionOpen && p.SizeMicro > 0 {
			priced = append(priced, p.TokenID)
		}
	}
	prices := map[string]decimal.Decimal{}
	if len(priced) > 0 {
		if prices, err = s.Prices.Prices(ctx, priced, fresh); err != nil {
			return List{}, unavailable(err, "market prices are unavailable; retry later")
		}
	}

	out := List{Positions: make([]Item, 0, len(ps))}
	for _, p := range ps {
		it := Item{
			ID: p.ID, TokenID: p.TokenID, ConditionID: p.ConditionID, Question: p.Question, Outcome: p.Outcome,
			Status: p.Status, Size: micro.Decimal(p.SizeMicro), AvgEntryPrice: micro.Decimal(p.AvgEntryMicro),
			RealizedPnl: micro.Decimal(p.RealizedPnlMicro),
		}
		it.CurrentPrice = it.AvgEntryPrice
		switch p.Status {
		case models.PositionRedeemable, models.PositionSettled:
			pay, err := s.payoutPerShare(ctx, p.ConditionID, p.TokenID, fresh)
			if err != nil {
				return List{}, err
			}
			it.CurrentPrice, it.Resolved = pay, true
		case models.PositionOpen:
			if px, ok := prices[p.TokenID]; ok {
				it.CurrentPrice = px
			}
		}
		cost := it.Size.Mul(it.AvgEntryPrice)
		it.CurrentValue = it.Size.Mul(it.CurrentPrice).Round(6)
		it.Unrealized = it.CurrentValue.Sub(cost).Round(6)
		it.UnrealizedPercent = percent(it.Unrealized, cost)
		it.CurrentPrice = it.CurrentPrice.Round(6)
		out.Positions = append(out.Positions, it)
		out.Summary.TotalUnrealizedPnl = out.Summary.TotalUnrealizedPnl.Add(it.Unrealized)
		out.Summary.TotalValue = out.Summary.TotalValue.Add(it.CurrentValue)
	}
	out.Summary.TotalPositions = len(out.Positions)
	return out, nil
}

// refreshResolutions moves the open positions among ps whose market
// resolved to redeemable or settled, and reports whether it moved any.
func (s *Service) refreshResolutions(ctx context.Context, ps []models.Position, fresh bool) (bool, error) {
	checked := map[string]*resolution{}
	moved := false
	for _, p := range ps {
		if p.Status != models.PositionOpen || p.ConditionID == "" {
			continue
		}
		r, ok := checked[p.ConditionID]
		if !ok {
			res, err := s.resolution(ctx, p.ConditionID, fresh)
			if err != nil {
				return false, err
			}
			r, checked[p.ConditionID] = &res, &res
		}
		if !r.resolved() {
			continue
		}
		num, err := s.numerator(ctx, *r, p.ConditionID, p.TokenID)
		if err != nil {
			return false, err
		}
		if err := s.settle(ctx, p, num.Sign() > 0); err != nil {
			return false, err
		}
		moved = true
	}
	return moved, nil
}

// settle records the resolution of an open position under the user's
// lock (a concurrent Recompute must not overwrite it with stale state).
func (s *Service) settle(ctx context.Context, p models.Position, pays bool) error {
	return s.Store.WithBudgetLock(ctx, p.UserID, func(tx *store.Store) error {
		cur, err := tx.LockPositionByToken(ctx, p.AgentID, p.TokenID)
		if err != nil {
			return err
		}
		if cur.Status != models.PositionOpen {
			return nil
		}
		cur.Status = models.PositionSettled
		if pays && cur.SizeMicro > 0 {
			cur.Status = models.PositionRedeemable
		}
		return tx.SavePosition(ctx, cur)
	})
}

// resolution is a condition's payout vector; den is zero while unresolved.
type resolution struct {
	nums []*big.Int
	den  *big.Int
	exp  time.Time // when an unresolved answer must be asked again
}

func (r resolution) resolved() bool { return r.den != nil && r.den.Sign() > 0 }

// resolution reads a condition's payouts: a resolved one from cache
// (resolutions are final), an unresolved one from cache only within
// ResolutionTTL and when not fresh.
func (s *Service) resolution(ctx context.Context, conditionID string, fresh bool) (resolution, error) {
	s.mu.Lock()
	r, ok := s.resolved[conditionID]
	s.mu.Unlock()
	if ok && (r.resolved() || (!fresh && s.now().Before(r.exp))) {
		return r, nil
	}
	if !validConditionID(conditionID) {
		return resolution{}, errs.Ef(errs.Internal, "position has a malformed condition id %q", conditionID)
	}
	nums, den, err := s.Resolutions.Payouts(ctx, common.HexToHash(conditionID))
	if err != nil {
		return resolution{}, unavailable(err, "market resolutions are unavailable; retry later")
	}
	if den == nil {
		den = new(big.Int)
	}
	ttl := s.ResolutionTTL
	if ttl == 0 {
		ttl = DefaultResolutionTTL
	}
	r = resolution{nums: nums, den: den, exp: s.now().Add(ttl)}
	s.mu.Lock()
	if s.resolved == nil {
		s.resolved = map[string]resolution{}
	}
	s.resolved[conditionID] = r
	s.mu.Unlock()
	return r, nil
}

func validConditionID(id string) bool {
	h, ok := strings.CutPrefix(id, "0x")
	if !ok || len(h) != 64 {
		return false
	}
	for _, c := range h {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return false
		}
	}
	return true
}

// numerator is the payout numerator of tokenID in a resolved condition.
func (s *Service) numerator(ctx context.Context, r resolution, conditionID, tokenID string) (*big.Int, error) {
	idx, err := s.outcomeIndex(ctx, conditionID, tokenID)
	if err != nil {
		return nil, err
	}
	if idx >= len(r.nums) || r.nums[idx] == nil {
		return nil, errs.Ef(errs.Internal, "condition %s has %d payout numerators, outcome %d has none", conditionID, len(r.nums), idx)
	}
	return r.nums[idx], nil
}

// payoutPerShare is what one share of a resolved token pays (0–1 USDC).
func (s *Service) payoutPerShare(ctx context.Context, conditionID, tokenID string, fresh bool) (decimal.Decimal, error) {
	r, err := s.resolution(ctx, conditionID, fresh)
	if err != nil {
		return decimal.Zero, err
	}
	if !r.resolved() {
		return decimal.Zero, errs.Ef(errs.Internal, "position in condition %s is resolved but the chain says it is not", conditionID)
	}
	num, err := s.numerator(ctx, r, conditionID, tokenID)
	if err != nil {
		return decimal.Zero, err
	}
	return decimal.NewFromBigInt(num, 0).DivRound(decimal.NewFromBigInt(r.den, 0), 6), nil
}

// outcomeIndex finds tokenID's position in its market's token list, the
// index of its payout numerator. The order never changes, so it is cached.
func (s *Service) outcomeIndex(ctx context.Context, conditionID, tokenID string) (int, error) {
	s.mu.Lock()
	toks, ok := s.tokens[conditionID]
	s.mu.Unlock()
	if !ok {
		m, err := s.Markets.Market(ctx, conditionID)
		if err != nil {
			return 0, unavailable(err, "market data is unavailable; retry later")
		}
		toks = make([]string, len(m.Tokens))
		for i, t := range m.Tokens {
			toks[i] = t.TokenID
		}
		s.mu.Lock()
		if s.tokens == nil {
			s.tokens = map[string][]string{}
		}
		s.tokens[conditionID] = toks
		s.mu.Unlock()
	}
	for i, t := range toks {
		if t == tokenID {
			return i, nil
		}
	}
	return 0, errs.Ef(errs.Internal, "token %s is not an outcome of condition %s", tokenID, conditionID)
}

// unavailable keeps classified errors and makes the rest Transient with a
// client-safe message (dependency error text stays in the chain for logs).
func unavailable(err error, msg string) error {
	if _, ok := errs.As(err); ok {
		return err
	}
	return errs.Wrap(errs.Transient, err, msg)
}

// percent is part/whole × 100 to two decimals, zero when whole is zero.
func percent(part, whole decimal.Decimal) decimal.Decimal {
	if whole.IsZero() {
		return decimal.Zero
	}
	return part.Mul(decimal.NewFromInt(100)).DivRound(whole, 2)
}
