// Package portfolio assembles the dashboard's read views of a user's
// account from the domain services: the wallet and its balance, the
// agents with their spend and last heartbeat, open positions with P&L
// across agents, and the realized P&L over time. It only reads.
package portfolio

import (
	"context"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/budget"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/positions"
	"github.com/agent-trading/ats/models/stats"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/venue/micro"
)

// WalletReader reads the user's trading wallet and live balance
// (budget.ChainWallets).
type WalletReader interface {
	Wallet(ctx context.Context, userID string) (budget.WalletInfo, error)
}

// Service builds the views. Wallet, Positions and Stats may be nil (no
// venue configured): their parts are then left out.
type Service struct {
	Store     *store.Store
	Agents    *agents.Service
	Wallet    WalletReader
	Positions *positions.Service
	Stats     *stats.Service
	// Now is the clock of the chart's last point; nil means time.Now.
	Now func() time.Time
}

// AgentRow is an agent with what the lists show next to it.
type AgentRow struct {
	agents.Agent
	LastHeartbeat *time.Time
	// Spent is what the agent's filled buys cost, in USDC.
	Spent decimal.Decimal
	// Held is what its live orders hold against its budget.
	Held decimal.Decimal
}

// PositionRow is an open position and the agent holding it.
type PositionRow struct {
	AgentID, AgentName string
	// Mode is the agent's mode (models.ModePaper or ModeLive).
	Mode string
	positions.Item
}

// PaperTotals are the paper agents' figures on the overview. They are
// simulated money and are never added to the live figures beside them.
type PaperTotals struct {
	// Any is true when the user has (or had) a paper agent.
	Any bool
	// Agents counts the paper agents that are not revoked.
	Agents        int
	Positions     []PositionRow
	PositionValue decimal.Decimal
	Unrealized    decimal.Decimal
	Realized      decimal.Decimal
	// NowPnL (when HasNowPnL) is Realized with the open positions at
	// market.
	NowPnL    decimal.Decimal
	HasNowPnL bool
}

// SummaryByMode totals rows per mode: live positions and paper positions
// are never summed together.
func SummaryByMode(rows []PositionRow) (live, paper positions.Summary) {
	for _, r := range rows {
		sum := &live
		if r.Mode == models.ModePaper {
			sum = &paper
		}
		sum.TotalPositions++
		sum.TotalValue = sum.TotalValue.Add(r.CurrentValue)
		sum.TotalUnrealizedPnl = sum.TotalUnrealizedPnl.Add(r.Unrealized)
	}
	return live, paper
}

// Overview is the overview page's data. Unavailable lists the parts that
// could not be read (the chain or the venue not answering); the rest is
// still shown.
type Overview struct {
	HasWallet bool
	Wallet    budget.WalletInfo
	// The figures below are the live agents' (real money); Paper holds
	// the paper agents', apart.
	//
	// Value is the portfolio's value: the wallet's cash plus the open
	// positions at market. HasValue is false when the balance could not
	// be read (or there is no wallet).
	Value    decimal.Decimal
	HasValue bool
	Agents   []AgentRow
	// Linked counts the agents that are not revoked.
	Linked        int
	Positions     []PositionRow
	PositionValue decimal.Decimal
	Unrealized    decimal.Decimal
	Realized      decimal.Decimal
	// Now is when the overview was read; NowPnL (when HasNowPnL) the P&L
	// then with the open positions at market.
	Now       time.Time
	NowPnL    decimal.Decimal
	HasNowPnL bool
	// Series is the cumulative realized P&L over time, a point after each
	// fill of any agent.
	Series      []stats.Point
	Unavailable []string
	Paper       PaperTotals
}

// AgentRows lists the user's agents, newest state, with spend and the last
// heartbeat.
func (s *Service) AgentRows(ctx context.Context, userID string) ([]AgentRow, error) {
	list, err := s.Agents.List(ctx, userID)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(list))
	for i, a := range list {
		ids[i] = a.ID
	}
	beats, err := s.Store.LastHeartbeats(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]AgentRow, 0, len(list))
	for _, a := range list {
		r := AgentRow{Agent: a}
		if t, ok := beats[a.ID]; ok {
			r.LastHeartbeat = &t
		}
		tot, err := s.Store.BudgetTotals(ctx, userID, a.ID)
		if err != nil {
			return nil, err
		}
		r.Spent, r.Held = micro.Decimal(tot.AgentUsedMicro), micro.Decimal(tot.AgentHeldMicro)
		out = append(out, r)
	}
	return out, nil
}

// Overview builds the overview of userID's account.
func (s *Service) Overview(ctx context.Context, userID string) (Overview, error) {
	var out Overview
	rows, err := s.AgentRows(ctx, userID)
	if err != nil {
		return out, err
	}
	out.Agents = rows
	var live, paper []AgentRow
	for _, a := range rows {
		if a.Status != models.AgentRevoked {
			out.Linked++
			if a.Mode == models.ModePaper {
				out.Paper.Agents++
			}
		}
		if a.Mode == models.ModePaper {
			paper = append(paper, a)
			out.Paper.Any = true
		} else {
			live = append(live, a)
		}
	}
	if s.Wallet != nil {
		w, err := s.Wallet.Wallet(ctx, userID)
		switch {
		case err == nil:
			out.HasWallet, out.Wallet, out.HasValue = true, w, true
		case errs.Is(err, errs.NotFound):
		default:
			if !transient(err) {
				return out, err
			}
			out.HasWallet = true
			out.Unavailable = append(out.Unavailable, "wallet balance")
		}
	}
	if s.Positions != nil {
		for _, a := range rows {
			if a.Status == models.AgentRevoked && a.Spent.IsZero() {
				continue
			}
			list, err := s.Positions.List(ctx, a.ID, positions.FilterOpen, false)
			if err != nil {
				if !transient(err) {
					return out, err
				}
				out.Unavailable = append(out.Unavailable, "positions of "+a.Name)
				continue
			}
			if a.Mode == models.ModePaper {
				for _, it := range list.Positions {
					out.Paper.Positions = append(out.Paper.Positions, PositionRow{AgentID: a.ID, AgentName: a.Name, Mode: a.Mode, Item: it})
				}
				out.Paper.PositionValue = out.Paper.PositionValue.Add(list.Summary.TotalValue)
				out.Paper.Unrealized = out.Paper.Unrealized.Add(list.Summary.TotalUnrealizedPnl)
				continue
			}
			for _, it := range list.Positions {
				out.Positions = append(out.Positions, PositionRow{AgentID: a.ID, AgentName: a.Name, Mode: a.Mode, Item: it})
			}
			out.PositionValue = out.PositionValue.Add(list.Summary.TotalValue)
			out.Unrealized = out.Unrealized.Add(list.Summary.TotalUnrealizedPnl)
		}
	}
	if out.HasValue {
		out.Value = micro.Decimal(out.Wallet.CollateralMicro).Add(out.PositionValue)
	}
	if s.Stats != nil {
		series, err := s.series(ctx, live)
		if err != nil {
			return out, err
		}
		if len(series) > 0 {
			out.Realized = series[len(series)-1].Realized
		}
		paperSeries, err := s.series(ctx, paper)
		if err != nil {
			return out, err
		}
		if len(paperSeries) > 0 {
			out.Paper.Realized = paperSeries[len(paperSeries)-1].Realized
		}
		if len(paperSeries) > 0 || !out.Paper.Unrealized.IsZero() {
			out.Paper.HasNowPnL, out.Paper.NowPnL = true, out.Paper.Realized.Add(out.Paper.Unrealized)
		}
		now := time.Now().UTC()
		if s.Now != nil {
			now = s.Now().UTC()
		}
		// Now is a point of its own, not the series' last: realized P&L
		// holds until now, and "with open positions at market" is
		// another figure, which a line drawn to it would invent a
		// history for.
		out.Series, out.Now = series, now
		if len(series) > 0 || !out.Unrealized.IsZero() {
			out.HasNowPnL, out.NowPnL = true, out.Realized.Add(out.Unrealized)
		}
	}
	return out, nil
}

// series merges the agents' realized P&L steps into one cumulative series.
func (s *Service) series(ctx context.Context, rows []AgentRow) ([]stats.Point, error) {
	type step struct {
		t time.Time
		d decimal.Decimal
	}
	var steps []step
	for _, a := range rows {
		pts, err := s.Stats.RealizedSeries(ctx, a.ID)
		if err != nil {
			return nil, err
		}
		prev := decimal.Zero
		for _, p := range pts {
			steps = append(steps, step{p.Time, p.Realized.Sub(prev)})
			prev = p.Realized
		}
	}
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].t.Before(steps[j].t) })
	out := make([]stats.Point, 0, len(steps))
	cum := decimal.Zero
	for _, st := range steps {
		cum = cum.Add(st.d)
		out = append(out, stats.Point{Time: st.t, Realized: cum})
	}
	return out, nil
}

func transient(err error) bool {
	k := errs.KindOf(err)
	return k == errs.Transient || k == errs.VenueRejected
}
