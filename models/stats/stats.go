// Package stats computes an agent's trading statistics from its own orders
// and fills.
//
// Definitions (amounts in USDC):
//
//   - totalOrders: every order the agent placed, whatever its status.
//   - filledOrders: orders with a filled size above zero (fully or
//     partially filled, including partially filled and then cancelled).
//   - totalVolume: Σ price × size over all fills, buys and sells.
//   - realizedPnL: the fills and redemptions replayed per token, oldest
//     first, at average cost: a sell realizes (sell price − average cost) ×
//     size; a redemption realizes its payout − the average cost of the
//     shares it burned; fees are subtracted when paid. Sold shares beyond
//     what the agent's own buys acquired have no known cost and realize
//     nothing (redeemed ones realize their payout, as the position does).
//   - unrealizedPnL: Σ size × (current price − average cost) over the
//     tokens the agent still holds; a token without a current price
//     counts as zero (valued at cost).
//   - winRate: percent (0–100, two decimals) of closed positions with a
//     positive realized P&L; a position closes when the replayed holding
//     of a token returns to zero, by sells or by redemption, and each such
//     round counts once. Zero when nothing closed.
//   - avgTradeSize: totalVolume / filledOrders (zero without fills).
//
// Redemptions are not trades: they count in realizedPnL and winRate, not in
// totalVolume.
package stats

import (
	"context"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/budget"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/venue/micro"
)

// Stats is an agent's statistics; see the package comment.
type Stats struct {
	TotalOrders   int64
	FilledOrders  int64
	TotalVolume   decimal.Decimal
	RealizedPnL   decimal.Decimal
	UnrealizedPnL decimal.Decimal
	WinRate       decimal.Decimal
	AvgTradeSize  decimal.Decimal
}

// Service computes statistics. It is safe for concurrent use.
type Service struct {
	st     *store.Store
	prices budget.PriceSource
}

// New returns a Service; prices may be nil (open holdings then count at
// cost, with zero unrealized P&L).
func New(st *store.Store, prices budget.PriceSource) *Service {
	return &Service{st: st, prices: prices}
}

// holding is the replayed state of one token.
type holding struct {
	size     decimal.Decimal // shares
	cost     decimal.Decimal // USDC paid for size, at average cost
	realized decimal.Decimal // P&L of the current round
}

// ForAgent computes agentID's statistics.
func (s *Service) ForAgent(ctx context.Context, agentID string) (Stats, error) {
	total, filled, err := s.st.OrderCounts(ctx, agentID)
	if err != nil {
		return Stats{}, err
	}
	fills, err := s.history(ctx, agentID)
	if err != nil {
		return Stats{}, err
	}
	out := Stats{TotalOrders: total, FilledOrders: filled}
	var wins, closed int64
	held, order := replay(fills, func(f store.AgentFill, notional, pnl decimal.Decimal, roundClosed bool, roundPnL decimal.Decimal) {
		out.TotalVolume = out.TotalVolume.Add(notional)
		out.RealizedPnL = out.RealizedPnL.Add(pnl)
		if roundClosed {
			closed++
			if roundPnL.IsPositive() {
				wins++
			}
		}
	})

	var open []string
	for _, id := range order {
		if held[id].size.IsPositive() {
			open = append(open, id)
		}
	}
	if len(open) > 0 && s.prices != nil {
		prices, err := s.prices.Prices(ctx, open)
		if err != nil {
			if _, ok := errs.As(err); !ok {
				err = errs.Wrap(errs.Transient, err, "market prices are unavailable; retry later")
			}
			return Stats{}, err
		}
		for _, id := range open {
			p, ok := prices[id]
			if !ok {
				continue
			}
			h := held[id]
			out.UnrealizedPnL = out.UnrealizedPnL.Add(micro.Decimal(p).Mul(h.size).Sub(h.cost))
		}
	}
	if closed > 0 {
		out.WinRate = decimal.NewFromInt(wins * 100).Div(decimal.NewFromInt(closed)).Round(2)
	}
	if filled > 0 {
		out.AvgTradeSize = out.TotalVolume.Div(decimal.NewFromInt(filled))
	}
	out.TotalVolume = out.TotalVolume.Round(6)
	out.RealizedPnL = out.RealizedPnL.Round(6)
	out.UnrealizedPnL = out.UnrealizedPnL.Round(6)
	out.AvgTradeSize = out.AvgTradeSize.Round(6)
	return out, nil
}

// history is the agent's fills and redemptions, oldest first (a fill and
// a redemption at the same instant: the fill first, as the position fold
// applies redemptions last).
func (s *Service) history(ctx context.Context, agentID string) ([]store.AgentFill, error) {
	fills, err := s.st.AgentFills(ctx, agentID)
	if err != nil {
		return nil, err
	}
	reds, err := s.st.AgentRedemptions(ctx, agentID)
	if err != nil || len(reds) == 0 {
		return fills, err
	}
	all := append(fills, reds...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].Time.Before(all[j].Time) })
	return all, nil
}

// replay folds fills (oldest first) per token at average cost, calling
// each with the fill's notional, the P&L it realized (fees included) and,
// when it closed a round, that round's P&L. It returns the holdings left
// and the tokens in order of first appearance.
func replay(fills []store.AgentFill, each func(f store.AgentFill, notional, pnl decimal.Decimal, roundClosed bool, roundPnL decimal.Decimal)) (map[string]*holding, []string) {
	held := map[string]*holding{}
	var order []string // token order of first appearance, for determinism
	for _, f := range fills {
		price := micro.Decimal(f.PriceMicro)
		size := micro.Decimal(f.SizeMicro)
		fee := micro.Decimal(f.FeeMicro)
		notional := price.Mul(size)
		h := held[f.TokenID]
		if h == nil {
			h = &holding{}
			held[f.TokenID] = h
			order = append(order, f.TokenID)
		}
		h.realized = h.realized.Sub(fee)
		pnl := fee.Neg()
		if f.Side == store.SideRedeem {
			// Not a trade: no volume. The payout realizes against the
			// average cost of the shares burned.
			notional = decimal.Zero
			pnl = micro.Decimal(f.PayoutMicro)
			sold := decimal.Min(size, h.size)
			if sold.IsPositive() {
				pnl = pnl.Sub(h.cost.Div(h.size).Mul(sold))
			}
			h.realized = h.realized.Add(pnl)
			if sold.IsPositive() && sold.Equal(h.size) {
				round := h.realized
				*h = holding{}
				each(f, notional, pnl, true, round)
				continue
			}
			if sold.IsPositive() {
				h.cost = h.cost.Sub(h.cost.Div(h.size).Mul(sold))
				h.size = h.size.Sub(sold)
			}
			each(f, notional, pnl, false, decimal.Zero)
			continue
		}
		if f.Side == "BUY" {
			h.size = h.size.Add(size)
			h.cost = h.cost.Add(notional)
			each(f, notional, pnl, false, decimal.Zero)
			continue
		}
		if !h.size.IsPositive() {
			each(f, notional, pnl, false, decimal.Zero) // nothing bought by this agent: no known cost
			continue
		}
		sold := decimal.Min(size, h.size)
		avg := h.cost.Div(h.size)
		gain := price.Sub(avg).Mul(sold)
		h.realized = h.realized.Add(gain)
		pnl = pnl.Add(gain)
		if sold.Equal(h.size) {
			round := h.realized
			*h = holding{}
			each(f, notional, pnl, true, round)
			continue
		}
		h.cost = h.cost.Sub(avg.Mul(sold))
		h.size = h.size.Sub(sold)
		each(f, notional, pnl, false, decimal.Zero)
	}
	return held, order
}

// Point is the cumulative realized P&L (USDC) after a fill at Time.
type Point struct {
	Time     time.Time
	Realized decimal.Decimal
}

// RealizedSeries returns the agent's cumulative realized P&L after each of
// its fills, oldest first, by the same replay as ForAgent.
func (s *Service) RealizedSeries(ctx context.Context, agentID string) ([]Point, error) {
	fills, err := s.history(ctx, agentID)
	if err != nil {
		return nil, err
	}
	out := make([]Point, 0, len(fills))
	var cum decimal.Decimal
	replay(fills, func(f store.AgentFill, _, pnl decimal.Decimal, _ bool, _ decimal.Decimal) {
		cum = cum.Add(pnl)
		out = append(out, Point{Time: f.Time, Realized: cum})
	})
	return out, nil
}
