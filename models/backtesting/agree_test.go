package backtesting_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/backtesting"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/strategies/strategiestest"
	"github.com/agent-trading/ats/venue/clob"
)

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// path is one price source for both runs: the backtest reads it as the
// venue's record, the live engine as the book at each instant.
type path struct{ pts []clob.PricePoint }

func (p path) PriceHistory(_ context.Context, _ string, from, to time.Time) ([]clob.PricePoint, error) {
	var out []clob.PricePoint
	for _, x := range p.pts {
		if !x.Time.Before(from) && !x.Time.After(to) {
			out = append(out, x)
		}
	}
	return out, nil
}

func (path) Market(_ context.Context, token string) (*backtesting.Market, error) {
	return &backtesting.Market{TokenID: token, ConditionID: "0xc" + token, Question: "Will market " + token + " resolve Yes?", Outcome: "Yes",
		Slug: "market-" + token, Tick: decimal.RequireFromString("0.01"), MinSize: decimal.NewFromInt(5), Spread: decimal.RequireFromString("0.02")}, nil
}

func (path) MarketTrades(_ context.Context, _ string, from, _ time.Time) ([]backtesting.Trade, time.Time, error) {
	return nil, from, nil
}

func (path) WalletTrades(context.Context, string, time.Time, time.Time) ([]backtesting.Trade, error) {
	return nil, errs.E(errs.Internal, "not a copy")
}

// TestBacktestAgreesWithTheEngine runs each config twice over the same
// price path: live, through the strategy engine (a real store, the
// order-service fake filling at the top of the book, executions run as
// the workflow runs them: when an armed condition is met or the interval
// is due), and as a backtest. Both make the same decisions: the same
// executions at the same instants, at the same prices and sizes, and end
// in the same state.
func TestBacktestAgreesWithTheEngine(t *testing.T) {
	t0 := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name, typ, config, budget string
		step                      time.Duration
		prices                    []string
		wantExecutions            int
	}{
		{"price alert", strategies.TypePriceAlert,
			`{"tokenId":"1001","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":"0.40","size":"10","orderType":"MARKET"}`, "50",
			time.Minute, []string{"0.50", "0.45", "0.40", "0.38", "0.42"}, 1},
		{"price alert beyond its bound", strategies.TypePriceAlert,
			`{"tokenId":"1001","side":"BUY","triggerCondition":"PRICE_GTE","triggerPrice":"0.60","size":"10","orderType":"MARKET"}`, "50",
			time.Minute, []string{"0.50", "0.70", "0.72", "0.61", "0.65"}, 2},
		{"recurring buy", strategies.TypeRecurringBuy, `{"tokenId":"1001","amountPerInterval":"5","interval":"1h"}`, "12",
			30 * time.Minute, []string{"0.50", "0.40", "0.30", "0.20", "0.25", "0.30"}, 3},
		{"recurring buy under a price limit", strategies.TypeRecurringBuy,
			`{"tokenId":"1001","amountPerInterval":"2","interval":"15m","priceLimit":"0.45"}`, "20",
			15 * time.Minute, []string{"0.50", "0.44", "0.40", "0.60", "0.30"}, 5},
		{"buy low sell high", strategies.TypeBuyLowSellHigh,
			`{"tokenId":"1001","buyBelow":"0.40","sellAbove":"0.60","sizePerTrade":"10"}`, "100",
			time.Minute, []string{"0.50", "0.38", "0.45", "0.62", "0.39", "0.55", "0.70"}, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			var pts []clob.PricePoint
			for i, p := range tc.prices {
				pts = append(pts, clob.PricePoint{Time: t0.Add(time.Duration(i) * tc.step), Price: decimal.RequireFromString(p)})
			}
			model := backtesting.Model{Tick: decimal.RequireFromString("0.01"), Spread: decimal.RequireFromString("0.02")}

			// Live.
			clk := &clock{now: t0}
			fx := strategiestest.New(t, storetest.NewSQLite(t), clk.Now)
			bid, ask := model.Quote(pts[0].Price)
			fx.Book.Set(strategiestest.Token, bid.String(), ask.String())
			svc := &strategiestest.Desk{Service: fx.Service(clk.Now), Runs: strategiestest.Direct{Engine: fx.Engine}}
			created, err := svc.Create(ctx, fx.Actor(), strategies.CreateRequest{Type: tc.typ, Config: json.RawMessage(tc.config),
				MaxBudget: strategies.D(decimal.RequireFromString(tc.budget))})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range pts {
				clk.Set(p.Time)
				bid, ask := model.Quote(p.Price)
				fx.Book.Set(strategiestest.Token, bid.String(), ask.String())
				st, err := fx.Store.StrategyByID(ctx, created.ID)
				if err != nil {
					t.Fatal(err)
				}
				if st.Status != strategies.StatusActive {
					continue
				}
				due := st.NextEvaluationAt != nil && !p.Time.Before(*st.NextEvaluationAt)
				var conds []strategies.Cond
				if st.Triggers != "" {
					if err := json.Unmarshal([]byte(st.Triggers), &conds); err != nil {
						t.Fatal(err)
					}
				}
				for _, c := range conds {
					due = due || c.Met(bid, ask)
				}
				if due {
					if _, err := fx.Engine.Execute(ctx, created.ID, st.Executions+1); err != nil {
						t.Fatal(err)
					}
				}
			}
			live, err := svc.Get(ctx, fx.Actor(), created.ID)
			if err != nil {
				t.Fatal(err)
			}
			slices.Reverse(live.Executions) // oldest first

			// Backtest.
			bt := &backtesting.Service{Source: path{pts}, Now: func() time.Time { return t0.Add(30 * 24 * time.Hour) }}
			res, err := bt.Run(ctx, backtesting.Request{Type: tc.typ, Config: json.RawMessage(tc.config),
				MaxBudget: strategies.D(decimal.RequireFromString(tc.budget)), From: t0, To: pts[len(pts)-1].Time,
				StartingBalance: decimal.NewFromInt(1000)})
			if err != nil {
				t.Fatal(err)
			}

			line := func(e strategies.Execution) string {
				return fmt.Sprintf("%s %s %s %s %s filled %s @ %s amount %s", e.Time.UTC().Format("15:04"), e.Kind, e.Action,
					e.Size.String(), e.Price.String(), e.FilledSize.String(), e.AvgFillPrice.String(), e.Amount.String())
			}
			var got, want []string
			for _, e := range live.Executions {
				want = append(want, line(e))
			}
			for _, e := range res.Executions {
				got = append(got, line(e))
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("backtest:\n%s\nlive:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if len(got) != tc.wantExecutions {
				t.Fatalf("%d executions, want %d:\n%s", len(got), tc.wantExecutions, strings.Join(got, "\n"))
			}
			for i := range res.Executions {
				if res.Executions[i].Reason != live.Executions[i].Reason {
					t.Errorf("execution %d: reason %q, live %q", i+1, res.Executions[i].Reason, live.Executions[i].Reason)
				}
			}
			if res.Status != live.Status || res.EndedReason != live.EndedReason || !res.BudgetUsed.Equal(live.BudgetUsed) {
				t.Errorf("backtest ends %s %s, budget used %s; live %s %s, %s", res.Status, res.EndedReason, res.BudgetUsed,
					live.Status, live.EndedReason, live.BudgetUsed)
			}
		})
	}
}
