package strategies_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/events"
	"github.com/agent-trading/ats/models/markets"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/strategies/strategiestest"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// clock is a settable clock for the engine and the service.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

type rig struct {
	*strategiestest.Env
	svc   *strategiestest.Desk
	clock *clock
}

func newRig(t *testing.T) *rig {
	t.Helper()
	clk := &clock{now: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	fx := strategiestest.New(t, storetest.NewSQLite(t), clk.Now)
	return &rig{Env: fx, svc: &strategiestest.Desk{Service: fx.Service(clk.Now), Runs: strategiestest.Direct{Engine: fx.Engine}}, clock: clk}
}

func (r *rig) create(t *testing.T, typ, config, budget string) (strategies.Strategy, error) {
	t.Helper()
	return r.svc.Create(context.Background(), r.Actor(), strategies.CreateRequest{Type: typ, Config: json.RawMessage(config),
		MaxBudget: strategies.D(dec(budget))})
}

func (r *rig) mustCreate(t *testing.T, typ, config, budget string) string {
	t.Helper()
	st, err := r.create(t, typ, config, budget)
	require.NoError(t, err)
	return st.ID
}

func (r *rig) get(t *testing.T, id string) strategies.Strategy {
	t.Helper()
	st, err := r.svc.Get(context.Background(), r.Actor(), id)
	require.NoError(t, err)
	return st
}

// A RECURRING_BUY larger than the top level walks the book up to its
// priceLimit (or the best ask + 0.02), fill-and-kill: its size is what
// the amount buys level by level, its worst price the bound.
func TestRecurringBuyWalksTheBook(t *testing.T) {
	for _, tc := range []struct {
		name, limit string
		worst, size string
	}{
		// $100: 100 at 0.50 ($50), then $50 / 0.51 = 98.03 at 0.51.
		{"within priceLimit", `,"priceLimit":0.52`, "0.52", "198.03"},
		// Without a limit: best ask 0.50 + 0.02.
		{"within the default slippage", ``, "0.52", "198.03"},
		// A limit below the second level: only the first is within it.
		{"a limit at the top", `,"priceLimit":0.505`, "0.5", "100"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t)
			r.Book.SetAsks(strategiestest.Token, "0.50", "100", "0.51", "100", "0.53", "1000")
			id := r.mustCreate(t, "RECURRING_BUY", `{"tokenId":"1001","amountPerInterval":100,"interval":"1h"`+tc.limit+`}`, "1000")
			out, err := r.Engine.Execute(context.Background(), id, 1)
			require.NoError(t, err)
			require.Equal(t, strategies.KindAction, out.Kind, "%+v", out)
			req := r.Placer.Requests[0]
			assert.Equal(t, orders.TypeFAK, req.Type)
			assert.Equal(t, tc.worst, req.Price.String())
			assert.Equal(t, tc.size, req.Size.String())
		})
	}
}

// The bound never lets the budget be exceeded: the size is capped at what
// the budget left pays at the worst price.
func TestRecurringBuyNeverExceedsTheBudgetAtTheBound(t *testing.T) {
	r := newRig(t)
	r.Book.SetAsks(strategiestest.Token, "0.40", "10", "0.50", "1000")
	id := r.mustCreate(t, "RECURRING_BUY", `{"tokenId":"1001","amountPerInterval":100,"interval":"1h","priceLimit":0.5}`, "10")
	_, err := r.Engine.Execute(context.Background(), id, 1)
	require.NoError(t, err)
	req := r.Placer.Requests[0]
	assert.True(t, req.Size.Mul(req.Price).LessThanOrEqual(dec("10")), "%s × %s", req.Size, req.Price)
	assert.Equal(t, "20", req.Size.String())
}

// A partial fill of an interval's buy is a buy: recorded as an action with
// what it filled, not an error; the rest is not bought.
func TestPartialRecurringBuyIsABuy(t *testing.T) {
	r := newRig(t)
	r.Book.SetAsks(strategiestest.Token, "0.50", "100", "0.51", "100")
	id := r.mustCreate(t, "RECURRING_BUY", `{"tokenId":"1001","amountPerInterval":100,"interval":"1h","priceLimit":0.55}`, "500")
	r.Placer.Set(func(p *strategiestest.Placer) {
		p.Fill = func(orders.PlaceRequest) (decimal.Decimal, decimal.Decimal) { return dec("120"), dec("0.502") }
	})
	out, err := r.Engine.Execute(context.Background(), id, 1)
	require.NoError(t, err)
	assert.Equal(t, strategies.KindAction, out.Kind)
	st := r.get(t, id)
	require.Len(t, st.Executions, 1)
	x := st.Executions[0]
	assert.Equal(t, "120", x.FilledSize.String())
	assert.Equal(t, "0.502", x.AvgFillPrice.String())
	assert.Contains(t, x.Reason, "partial fill: 120 of 198.03 shares")
	assert.Equal(t, "60.24", x.Amount.String(), "charged what it filled")
	assert.Zero(t, st.ConsecutiveErrors)
	assert.Equal(t, strategies.StatusActive, st.Status)
	assert.Equal(t, "60.24", st.BudgetUsed.String())
}

// A fill-and-kill buy the venue filled whole is no partial fill, though
// its marketable amounts (collateral floored to the cent, shares to 4
// decimals) leave the filled size under the size: 198.03 shares at 0.53
// are $104.95, which buys 198.0188 shares.
func TestWholeFillWithinAmountRoundingIsNotPartial(t *testing.T) {
	r := newRig(t)
	r.Book.SetAsks(strategiestest.Token, "0.50", "1000")
	id := r.mustCreate(t, "RECURRING_BUY", `{"tokenId":"1001","amountPerInterval":99.015,"interval":"1h","priceLimit":0.53}`, "500")
	r.Placer.Set(func(p *strategiestest.Placer) {
		p.Fill = func(req orders.PlaceRequest) (decimal.Decimal, decimal.Decimal) {
			// 198.03 shares at 0.53: $104.95 of collateral, 198.0188 shares.
			return dec("198.0188"), dec("0.505")
		}
	})
	out, err := r.Engine.Execute(context.Background(), id, 1)
	require.NoError(t, err)
	assert.Equal(t, strategies.KindAction, out.Kind)
	require.Equal(t, "198.03", r.Placer.Requests[0].Size.String())
	x := r.get(t, id).Executions[0]
	assert.NotContains(t, x.Reason, "partial fill")
	assert.Contains(t, x.Reason, "walking the book up to 0.53")
}

// An interval whose fill-and-kill order found nothing left within its
// bound (the book moved) is a skip, not a failure towards ERROR.
func TestRecurringBuyThatFindsNothingIsASkip(t *testing.T) {
	r := newRig(t)
	id := r.mustCreate(t, "RECURRING_BUY", `{"tokenId":"1001","amountPerInterval":5,"interval":"1h"}`, "50")
	r.Placer.Set(func(p *strategiestest.Placer) { p.Status, p.FailureCode = "FAILED", errs.CodeFAKNoMatch })
	for seq := 1; seq <= 3; seq++ {
		out, err := r.Engine.Execute(context.Background(), id, seq)
		require.NoError(t, err)
		assert.Equal(t, strategies.KindSkip, out.Kind)
		// The next interval: a skip moves the schedule like a buy does.
		r.clock.Add(time.Hour)
	}
	st := r.get(t, id)
	assert.Equal(t, strategies.StatusActive, st.Status)
	assert.Zero(t, st.ConsecutiveErrors)
	assert.Contains(t, st.Executions[0].Reason, "bought nothing")
}

// A book holding less than the amount within the bound: the interval buys
// what is there, recorded as a partial buy, not an error.
func TestThinBookIsAPartialBuy(t *testing.T) {
	r := newRig(t)
	r.Book.SetAsks(strategiestest.Token, "0.50", "10", "0.60", "1000")
	id := r.mustCreate(t, "RECURRING_BUY", `{"tokenId":"1001","amountPerInterval":20,"interval":"1h","priceLimit":0.55}`, "100")
	out, err := r.Engine.Execute(context.Background(), id, 1)
	require.NoError(t, err)
	assert.Equal(t, strategies.KindAction, out.Kind)
	assert.Equal(t, "10", r.Placer.Requests[0].Size.String())
	x := r.get(t, id).Executions[0]
	assert.Contains(t, x.Reason, "partial buy: the book offers only 10 shares ($5.00) at 0.55 or better, the rest of the $20.00 is not bought")
	assert.Equal(t, "10", x.FilledSize.String())
	assert.Equal(t, "5", x.Amount.String())
}

// A book thinner than the venue's $1 minimum within the bound is a skip.
func TestRecurringBuyOnABookTooThinIsASkip(t *testing.T) {
	r := newRig(t)
	r.Book.SetAsks(strategiestest.Token, "0.50", "1", "0.90", "1000")
	id := r.mustCreate(t, "RECURRING_BUY", `{"tokenId":"1001","amountPerInterval":5,"interval":"1h","priceLimit":0.6}`, "50")
	out, err := r.Engine.Execute(context.Background(), id, 1)
	require.NoError(t, err)
	assert.Equal(t, strategies.KindSkip, out.Kind)
	assert.Zero(t, r.Placer.Calls)
	assert.Contains(t, r.get(t, id).Executions[0].Reason, "under the venue's $1 minimum")
}

// A PRICE_ALERT's market order walks the book up to priceLimit, else the
// trigger ± 0.02, fill-and-kill; FOK within the same bound; LIMIT at the
// trigger. A price already beyond the bound places nothing and waits for
// it to come back.
func TestPriceAlertBound(t *testing.T) {
	for _, tc := range []struct {
		name, config, bid, ask string
		typ, price             string // the order; "" for none
		waitOn                 string // the condition armed after a skip
	}{
		{"buy up to trigger + 0.02", `"side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.35,"size":10`, "0.30", "0.34", "FAK", "0.37", ""},
		{"buy up to priceLimit", `"side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.35,"size":10,"priceLimit":0.4`, "0.30", "0.34", "FAK", "0.4", ""},
		{"sell down to trigger − 0.02", `"side":"SELL","triggerCondition":"PRICE_GTE","triggerPrice":0.6,"size":10`, "0.62", "0.64", "FAK", "0.58", ""},
		{"fok", `"side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.35,"size":10,"orderType":"FOK"`, "0.30", "0.34", "FOK", "0.37", ""},
		{"limit", `"side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.35,"size":10,"orderType":"LIMIT"`, "0.30", "0.34", "LIMIT", "0.35", ""},
		{"breakout beyond the bound", `"side":"BUY","triggerCondition":"PRICE_GTE","triggerPrice":0.6,"size":10`, "0.68", "0.70", "", "", "best_ask <= 0.62"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t)
			id := r.mustCreate(t, "PRICE_ALERT", `{"tokenId":"1001",`+tc.config+`}`, "20")
			r.Book.Set(strategiestest.Token, tc.bid, tc.ask)
			out, err := r.Engine.Execute(context.Background(), id, 1)
			require.NoError(t, err)
			if tc.typ == "" {
				assert.Equal(t, strategies.KindSkip, out.Kind)
				assert.Zero(t, r.Placer.Calls)
				st, _ := r.Store.StrategyByID(context.Background(), id)
				var conds []strategies.Cond
				require.NoError(t, json.Unmarshal([]byte(st.Triggers), &conds))
				require.Len(t, conds, 1)
				assert.Equal(t, tc.waitOn, conds[0].Field+" "+conds[0].Op+" "+conds[0].Threshold.String())
				assert.Equal(t, strategies.StatusActive, st.Status)
				return
			}
			require.Equal(t, strategies.KindAction, out.Kind)
			req := r.Placer.Requests[0]
			assert.Equal(t, tc.typ, req.Type)
			assert.Equal(t, tc.price, req.Price.String())
			assert.Equal(t, strategies.StatusCompleted, out.State.Status)
		})
	}
}

// Configs that could never trade are refused at create and at PATCH,
// naming the numbers.
func TestInfeasibleConfigsAreRefused(t *testing.T) {
	r := newRig(t)
	for _, tc := range []struct {
		typ, config, budget, says string
	}{
		{"PRICE_ALERT", `{"tokenId":"1001","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.35,"size":100}`, "20",
			"size 100 × 0.37 (the most the alert pays: triggerPrice 0.35 + slippage 0.02) = $37.00 is more than maxBudget $20"},
		{"PRICE_ALERT", `{"tokenId":"1001","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.05,"size":5}`, "20",
			"below the venue's $1 minimum"},
		{"PRICE_ALERT", `{"tokenId":"1001","side":"SELL","triggerCondition":"PRICE_GTE","triggerPrice":0.6,"size":2}`, "20",
			"below the market's minimum order size of 5 shares"},
		{"BUY_LOW_SELL_HIGH", `{"tokenId":"1001","buyBelow":0.4,"sellAbove":0.6,"sizePerTrade":100}`, "20",
			"sizePerTrade 100 × buyBelow 0.4 = $40.00 is more than maxBudget $20: raise maxBudget to at least 40, or lower sizePerTrade to at most 50"},
		{"BUY_LOW_SELL_HIGH", `{"tokenId":"1001","buyBelow":0.4,"sellAbove":0.6,"sizePerTrade":2}`, "20", "below the venue's $1 minimum"},
		{"BUY_LOW_SELL_HIGH", `{"tokenId":"1001","buyBelow":0.4,"sellAbove":0.6,"sizePerTrade":3}`, "20", "below the market's minimum order size of 5 shares"},
		{"RECURRING_BUY", `{"tokenId":"1001","amountPerInterval":0.5,"interval":"1h"}`, "20", "amountPerInterval $0.5 is below the venue's $1 minimum"},
		{"RECURRING_BUY", `{"tokenId":"1001","amountPerInterval":5,"interval":"1h"}`, "0.8", "maxBudget $0.8 is below"},
		{"COPY_TRADE", `{"targetAddress":"0x00000000000000000000000000000000000000a1","sizingMode":"fixed","fixedAmount":0.5,"copySells":true}`, "20", "fixedAmount $0.5"},
	} {
		_, err := r.create(t, tc.typ, tc.config, tc.budget)
		assert.Equal(t, errs.CodeStrategyInfeasible, errs.CodeOf(err), "%s %s: %v", tc.typ, tc.config, err)
		assert.Contains(t, errs.PublicMessage(err), tc.says)
	}
	// PATCH: a lower budget, or a bigger lot, that cannot fit is refused;
	// the strategy is unchanged.
	id := r.mustCreate(t, "BUY_LOW_SELL_HIGH", `{"tokenId":"1001","buyBelow":0.3,"sellAbove":0.6,"sizePerTrade":10}`, "20")
	_, err := r.svc.Patch(context.Background(), r.Actor(), id, strategies.PatchRequest{MaxBudget: strategies.D(dec("2"))})
	assert.Equal(t, errs.CodeStrategyInfeasible, errs.CodeOf(err), "%v", err)
	_, err = r.svc.Patch(context.Background(), r.Actor(), id, strategies.PatchRequest{Config: json.RawMessage(`{"sizePerTrade":100}`)})
	assert.Equal(t, errs.CodeStrategyInfeasible, errs.CodeOf(err), "%v", err)
	assert.Equal(t, "20", r.get(t, id).MaxBudget.String())

	// A token whose market closed: nothing to create there.
	r.Markets.Close("2002")
	_, err = r.create(t, "BUY_LOW_SELL_HIGH", `{"tokenId":"2002","buyBelow":0.3,"sellAbove":0.6,"sizePerTrade":10}`, "20")
	assert.Equal(t, errs.CodeStrategyMarketClosed, errs.CodeOf(err), "%v", err)
}

// A strategy never ends budget_exhausted having spent nothing: a budget
// that cannot afford the minimum at this price is a skip, and it waits.
func TestNeverBudgetExhaustedWithNothingSpent(t *testing.T) {
	r := newRig(t)
	r.Book.SetAsks(strategiestest.Token, "0.99", "1000")
	id := r.mustCreate(t, "RECURRING_BUY", `{"tokenId":"1001","amountPerInterval":1,"interval":"1h"}`, "1")
	out, err := r.Engine.Execute(context.Background(), id, 1)
	require.NoError(t, err)
	assert.Equal(t, strategies.KindSkip, out.Kind)
	st := r.get(t, id)
	assert.Equal(t, strategies.StatusActive, st.Status, "ended %s with %s spent", st.EndedReason, st.BudgetUsed)
	assert.Zero(t, r.Placer.Calls)
}

// Pause then resume keeps RECURRING_BUY's interval: the next buy is at the
// later of now and the last buy + the interval.
func TestResumeKeepsTheInterval(t *testing.T) {
	r := newRig(t)
	start := r.clock.Now()
	id := r.mustCreate(t, "RECURRING_BUY", `{"tokenId":"1001","amountPerInterval":5,"interval":"1h"}`, "50")
	out, err := r.Engine.Execute(context.Background(), id, 1)
	require.NoError(t, err)
	require.Equal(t, strategies.KindAction, out.Kind)
	ctx := context.Background()
	r.clock.Add(10 * time.Minute)
	_, err = r.svc.Pause(ctx, r.Actor(), id)
	require.NoError(t, err)
	r.clock.Add(5 * time.Minute)
	st, err := r.svc.Resume(ctx, r.Actor(), id)
	require.NoError(t, err)
	require.NotNil(t, st.NextEvaluationAt)
	assert.Equal(t, start.Add(time.Hour), st.NextEvaluationAt.UTC(), "the last buy + the interval")

	// Resumed after more than an interval: at once.
	_, err = r.svc.Pause(ctx, r.Actor(), id)
	require.NoError(t, err)
	r.clock.Add(2 * time.Hour)
	st, err = r.svc.Resume(ctx, r.Actor(), id)
	require.NoError(t, err)
	assert.Equal(t, r.clock.Now(), st.NextEvaluationAt.UTC())
}

// A PRICE_ALERT on a marketQuery whose market closes moves to the market
// the query names now (the next window): an execution says so, with both
// markets, and its conditions wait on the new token.
func TestMarketQueryMovesToTheNextWindow(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	end := r.clock.Now().Add(15 * time.Minute)
	r.Markets.Set(markets.TokenMarket{TokenID: "1001", Question: "Bitcoin Up or Down 12:00-12:15", Outcome: "Up", Slug: "btc-updown-15m-1",
		EndDate: &end, AcceptingOrders: true, MinOrderSize: dec("5")})
	next := end.Add(15 * time.Minute)
	r.Markets.Set(markets.TokenMarket{TokenID: "3003", Question: "Bitcoin Up or Down 12:15-12:30", Outcome: "Up", Slug: "btc-updown-15m-2",
		EndDate: &next, AcceptingOrders: true, MinOrderSize: dec("5")})
	r.Book.Set("3003", "0.45", "0.47")
	id := r.mustCreate(t, "PRICE_ALERT", `{"marketQuery":"btc 15m up","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.3,"size":10}`, "20")
	st := r.get(t, id)
	require.NotNil(t, st.Market)
	assert.Equal(t, "Bitcoin Up or Down 12:00-12:15", st.Market.Question)
	stored, _ := r.Store.StrategyByID(ctx, id)
	require.NotNil(t, stored.MarketCheckAt)
	assert.Equal(t, end, stored.MarketCheckAt.UTC(), "the workflow looks at the market at its end")

	// The window ends: the query names the next one.
	r.clock.Add(15 * time.Minute)
	r.Markets.Close("1001")
	r.Resolver.Set("btc 15m up", "3003")
	out, err := r.Engine.Execute(ctx, id, 1)
	require.NoError(t, err)
	assert.Equal(t, strategies.KindSkip, out.Kind)
	st = r.get(t, id)
	assert.Equal(t, strategies.StatusActive, st.Status)
	assert.Equal(t, "3003", st.TokenID)
	assert.Equal(t, "Bitcoin Up or Down 12:15-12:30", st.Market.Question)
	x := st.Executions[0]
	assert.Contains(t, x.Reason, `moved there from "Bitcoin Up or Down 12:00-12:15" (Up)`)
	assert.Equal(t, "Bitcoin Up or Down 12:15-12:30", x.Market.Question)
	stored, _ = r.Store.StrategyByID(ctx, id)
	assert.Contains(t, stored.Triggers, `"tokenId":"3003"`)
	assert.Equal(t, next, stored.MarketCheckAt.UTC())

	// It trades there: the alert fires in the new window, and the
	// execution names it.
	r.Book.Set("3003", "0.25", "0.28")
	out, err = r.Engine.Execute(ctx, id, 2)
	require.NoError(t, err)
	require.Equal(t, strategies.KindAction, out.Kind)
	assert.Equal(t, "3003", r.Placer.Requests[0].TokenID)
	assert.Equal(t, "Bitcoin Up or Down 12:15-12:30", r.get(t, id).Executions[0].Market.Question)
}

// A BUY_LOW_SELL_HIGH holding shares of a window that closes moves on
// holding nothing of the new one: the old shares stay the agent's (to
// redeem), and its openSize counts the new token's only.
func TestBuyLowSellHighMovesOnWithTheOldSharesLeftToRedeem(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	id := r.mustCreate(t, "BUY_LOW_SELL_HIGH", `{"marketQuery":"btc 15m up","buyBelow":0.4,"sellAbove":0.6,"sizePerTrade":10}`, "50")
	r.Book.Set(strategiestest.Token, "0.30", "0.35")
	out, err := r.Engine.Execute(ctx, id, 1)
	require.NoError(t, err)
	require.Equal(t, strategies.KindAction, out.Kind)
	assert.Equal(t, "10", r.get(t, id).OpenSize.String())

	r.Markets.Close(strategiestest.Token)
	r.Resolver.Set("btc 15m up", "3003")
	r.Book.Set("3003", "0.50", "0.52")
	out, err = r.Engine.Execute(ctx, id, 2)
	require.NoError(t, err)
	st := r.get(t, id)
	assert.Equal(t, "3003", st.TokenID)
	assert.Equal(t, "0", st.OpenSize.String(), "it holds nothing of the new window")
	assert.Equal(t, "3.5", st.BudgetUsed.String(), "what it spent stays spent")
	assert.Contains(t, st.Executions[0].Reason, "the 10 shares bought there stay in the agent's positions")
	// Its conditions: a buy on the new token, no sell (it holds none).
	stored, _ := r.Store.StrategyByID(ctx, id)
	assert.Contains(t, stored.Triggers, `"tokenId":"3003"`)
	assert.NotContains(t, stored.Triggers, strategies.FieldBestBid)
}

// A strategy on a fixed tokenId whose market closes ends CANCELLED with
// market_closed, and the agent's event log (its heartbeat) says so.
func TestTokenStrategyEndsWhenItsMarketCloses(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	id := r.mustCreate(t, "PRICE_ALERT", `{"tokenId":"1001","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.3,"size":10}`, "20")
	r.Markets.Close(strategiestest.Token)
	out, err := r.Engine.Execute(ctx, id, 1)
	require.NoError(t, err)
	assert.Equal(t, strategies.StatusCancelled, out.State.Status)
	assert.Equal(t, strategies.EndMarketClosed, out.State.EndedReason)
	st := r.get(t, id)
	assert.Contains(t, st.Executions[0].Reason, `the market "Will market 1001 resolve Yes?" (Yes) closed: the strategy ends`)
	var recs []models.AgentEvent
	require.NoError(t, r.Store.DB().Where("agent_id = ?", r.AgentID).Order("seq").Find(&recs).Error)
	var found bool
	for _, rec := range recs {
		e := events.FromRecord(rec)
		if e.Type == events.StrategyCancelled && e.StrategyID == id {
			found = true
			assert.Equal(t, events.BySystem, e.By)
			assert.Equal(t, strategies.EndMarketClosed, e.Details["reason"])
		}
	}
	assert.True(t, found, "no STRATEGY_CANCELLED event")
	assert.Zero(t, r.Placer.Calls)
}

// Every strategy answer and execution entry names its market.
func TestAnswersNameTheMarket(t *testing.T) {
	r := newRig(t)
	id := r.mustCreate(t, "RECURRING_BUY", `{"tokenId":"1001","amountPerInterval":5,"interval":"1h"}`, "50")
	_, err := r.Engine.Execute(context.Background(), id, 1)
	require.NoError(t, err)
	for _, st := range []strategies.Strategy{r.get(t, id)} {
		require.NotNil(t, st.Market)
		assert.Equal(t, "Will market 1001 resolve Yes?", st.Market.Question)
		assert.Equal(t, "Yes", st.Market.Outcome)
		assert.Equal(t, "market-1001", st.Market.Slug)
		require.Len(t, st.Executions, 1)
		require.NotNil(t, st.Executions[0].Market)
		assert.Equal(t, "Will market 1001 resolve Yes?", st.Executions[0].Market.Question)
	}
	list, err := r.svc.List(context.Background(), r.Actor(), strategies.ListFilter{})
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.NotNil(t, list[0].Market)
	assert.True(t, strings.HasPrefix(list[0].Market.Question, "Will market"))
}
