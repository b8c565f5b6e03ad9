package strategies_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/strategies/strategiestest"
	"github.com/agent-trading/ats/venue/micro"
)

const (
	alertConfig = `{"tokenId":"1001","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.35,"size":10}`
	limitAlert  = `{"tokenId":"1001","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.35,"size":10,"orderType":"LIMIT"}`
	buyConfig   = `{"tokenId":"1001","amountPerInterval":20,"interval":"1h"}`
	blshConfig  = `{"tokenId":"1001","buyBelow":0.4,"sellAbove":0.6,"sizePerTrade":10}`
	copyConfig  = `{"targetAddress":"` + copyTarget + `","sizingMode":"fixed","fixedAmount":5,"copySells":true}`
)

// openFx is a strategy run as the workflow of executions recorded at
// their decision runs it: DecideOpen, then the order's workflow places the
// order (Placer.Settle) and calls Settle.
type openFx struct {
	*strategiestest.Env
	svc    *strategiestest.Desk
	id     string
	mu     sync.Mutex
	events map[string]int // agent events appended, by type
}

func newOpen(t *testing.T, s *store.Store, typ, config, budget string) *openFx {
	t.Helper()
	fx := &openFx{Env: strategiestest.New(t, s, nil), events: map[string]int{}}
	s.OnEvent(func(_ context.Context, _ *store.Store, e *models.AgentEvent) error {
		fx.mu.Lock()
		defer fx.mu.Unlock()
		fx.events[e.Type]++
		return nil
	})
	fx.svc = &strategiestest.Desk{Runs: strategiestest.Direct{Engine: fx.Engine}, Service: &strategies.Service{Store: s, Resolver: strategiestest.Resolver{}}}
	st, err := fx.svc.Create(context.Background(), fx.Actor(), strategies.CreateRequest{Type: typ, Config: json.RawMessage(config),
		MaxBudget: strategies.D(decimal.RequireFromString(budget))})
	require.NoError(t, err)
	fx.id = st.ID
	return fx
}

func (f *openFx) count(typ string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.events[typ]
}

func (f *openFx) row(t *testing.T) *models.Strategy {
	t.Helper()
	st, err := f.Store.StrategyByID(context.Background(), f.id)
	require.NoError(t, err)
	return st
}

func (f *openFx) execution(t *testing.T, seq int) *models.StrategyExecution {
	t.Helper()
	rec, err := f.Store.StrategyExecutionBySeq(context.Background(), f.id, seq)
	require.NoError(t, err)
	return rec
}

func (f *openFx) decide(t *testing.T, seq int) strategies.Decision {
	t.Helper()
	d, err := f.Engine.DecideOpen(context.Background(), f.id, seq)
	require.NoError(t, err)
	return d
}

// place places the order as its workflow would (the venue's answer) and
// settles it.
func (f *openFx) place(t *testing.T, orderID string) strategies.Settled {
	t.Helper()
	_, err := f.Placer.Settle(context.Background(), orderID)
	require.NoError(t, err)
	s, err := f.Engine.Settle(context.Background(), orderID)
	require.NoError(t, err)
	return s
}

func (f *openFx) setFailures(t *testing.T, n int) {
	t.Helper()
	require.NoError(t, f.Store.UpdateStrategy(context.Background(), f.id, nil, store.StrategyUpdate{ConsecutiveFailures: &n}))
}

func conds(t *testing.T, st *models.Strategy) []strategies.Cond {
	t.Helper()
	if st.Triggers == "" {
		return nil
	}
	var out []strategies.Cond
	require.NoError(t, json.Unmarshal([]byte(st.Triggers), &out))
	return out
}

// DecideOpen records an execution that places an order at once, open: an
// action with its order PENDING and the order's most in the budget, the
// failure count untouched, no event and no completion; a retry returns
// the same order while it is PENDING; a PRICE_ALERT with its order open
// arms nothing and never places again; once the order is placed a retry
// returns no order, and Settle completes the alert, once.
func TestDecideOpenRecordsTheExecutionOpen(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		f := newOpen(t, s, "PRICE_ALERT", alertConfig, "20")
		f.setFailures(t, 2)
		f.Book.Set(strategiestest.Token, "0.30", "0.34")

		d := f.decide(t, 1)
		require.NotNil(t, d.Place, "%+v", d)
		assert.True(t, d.Outcome.Executed)
		assert.Equal(t, strategies.KindAction, d.Outcome.Kind)
		assert.Equal(t, d.Place.OrderID, d.Outcome.OrderID)
		assert.Equal(t, strategies.StatusActive, d.Outcome.State.Status)
		assert.Equal(t, strategies.EndFired, d.Place.Complete)
		o, err := s.OrderByID(ctx, d.Place.OrderID)
		require.NoError(t, err)
		require.Equal(t, models.OrderPending, o.Status)
		spent := micro.Ceil(micro.Decimal(o.SizeMicro).Mul(micro.Decimal(o.PriceMicro)))

		rec := f.execution(t, 1)
		assert.True(t, rec.Open)
		assert.Equal(t, strategies.KindAction, rec.Kind)
		assert.Equal(t, models.OrderPending, rec.OrderStatus)
		assert.Equal(t, o.ID, *rec.OrderID)
		assert.Equal(t, "BUY", rec.Side)
		assert.Equal(t, spent, rec.AmountMicro)
		st := f.row(t)
		assert.Equal(t, 1, st.Executions)
		assert.Equal(t, strategies.StatusActive, st.Status, "a PRICE_ALERT completes once its order is placed")
		assert.Equal(t, 2, st.ConsecutiveFailures, "the outcome is not known yet")
		assert.Equal(t, spent, st.BudgetUsedMicro, "a live BUY counts its most")
		assert.Empty(t, st.Triggers, "its order is being placed: nothing armed")
		assert.Zero(t, f.count(models.EventStrategyExecuted))

		// The local activity retried: the same order, not another.
		again := f.decide(t, 1)
		require.NotNil(t, again.Place)
		assert.Equal(t, d.Place.OrderID, again.Place.OrderID)
		assert.Equal(t, d.Place.Reason, again.Place.Reason)
		// The next execution while the order is open: nothing, never a
		// second order.
		next := f.decide(t, 2)
		assert.Nil(t, next.Place)
		assert.False(t, next.Outcome.Executed)
		assert.Empty(t, f.row(t).Triggers)
		_, placed := f.Placer.Counts()
		assert.Equal(t, 1, placed)

		// Placed and settled: completed there, once.
		_, err = f.Placer.Settle(ctx, d.Place.OrderID)
		require.NoError(t, err)
		late := f.decide(t, 1)
		assert.Nil(t, late.Place, "a placed order is not handed over again")
		assert.True(t, late.Outcome.Executed)
		got, err := f.Engine.Settle(ctx, d.Place.OrderID)
		require.NoError(t, err)
		assert.Equal(t, strategies.Settled{StrategyID: f.id, Changed: true, Status: strategies.StatusCompleted}, got)
		st = f.row(t)
		assert.Equal(t, strategies.StatusCompleted, st.Status)
		assert.Equal(t, strategies.EndFired, st.EndedReason)
		assert.Zero(t, st.ConsecutiveFailures)
		rec = f.execution(t, 1)
		assert.False(t, rec.Open)
		assert.Equal(t, models.OrderFilled, rec.OrderStatus)
		assert.Equal(t, o.SizeMicro, rec.FilledSizeMicro)
		assert.Equal(t, 1, f.count(models.EventStrategyExecuted))
		assert.Equal(t, 1, f.count(models.EventStrategyCompleted))

		twice, err := f.Engine.Settle(ctx, d.Place.OrderID)
		require.NoError(t, err)
		// Settled already: nothing moves, but the status is answered again
		// (a retried step whose first answer was lost tells the workflow).
		assert.Equal(t, strategies.Settled{StrategyID: f.id, Status: strategies.StatusCompleted}, twice, "settled already")
		assert.Equal(t, 1, f.count(models.EventStrategyExecuted))
		assert.Equal(t, 1, f.count(models.EventStrategyCompleted))
	})
}

// Settle classifies an open execution from its order exactly as record
// does for an order placed before the record.
func TestSettleClassifiesTheOrdersOutcome(t *testing.T) {
	type want struct {
		kind, status, says string
		failures           int
		changed, armed     bool
	}
	for _, tc := range []struct {
		name, typ, config, budget string
		failures                  int
		placer                    func(p *strategiestest.Placer)
		want                      want
	}{
		{name: "filled", typ: "PRICE_ALERT", config: alertConfig, budget: "20", failures: 2,
			want: want{kind: strategies.KindAction, status: strategies.StatusCompleted, changed: true}},
		{name: "resting LIMIT order", typ: "PRICE_ALERT", config: limitAlert, budget: "20", failures: 1,
			placer: func(p *strategiestest.Placer) { p.Status = models.OrderOpen },
			want:   want{kind: strategies.KindAction, status: strategies.StatusCompleted, changed: true}},
		{name: "partial fill-and-kill", typ: "RECURRING_BUY", config: buyConfig, budget: "100", failures: 1,
			placer: func(p *strategiestest.Placer) {
				p.Fill = func(orders.PlaceRequest) (decimal.Decimal, decimal.Decimal) { return dec("10"), dec("0.41") }
			},
			want: want{kind: strategies.KindAction, status: strategies.StatusActive, says: "partial fill: 10 of"}},
		{name: "failed", typ: "PRICE_ALERT", config: alertConfig, budget: "20", failures: 0,
			placer: func(p *strategiestest.Placer) { p.Status = models.OrderFailed },
			want: want{kind: strategies.KindError, status: strategies.StatusActive, failures: 1, armed: true,
				says: "the order failed: the venue refused the order"}},
		{name: "failed at the most failures", typ: "PRICE_ALERT", config: alertConfig, budget: "20", failures: strategies.MaxConsecutiveErrors - 1,
			placer: func(p *strategiestest.Placer) { p.Status = models.OrderFailed },
			want: want{kind: strategies.KindError, status: strategies.StatusError, failures: strategies.MaxConsecutiveErrors, changed: true,
				says: "the order failed"}},
		{name: "nothing to match, a type that skips", typ: "RECURRING_BUY", config: buyConfig, budget: "100", failures: 1,
			placer: func(p *strategiestest.Placer) { p.Status, p.FailureCode = models.OrderFailed, errs.CodeFAKNoMatch },
			want:   want{kind: strategies.KindSkip, status: strategies.StatusActive, failures: 1, says: "bought nothing"}},
		{name: "nothing filled, a type that does not skip", typ: "PRICE_ALERT", config: alertConfig, budget: "20", failures: 0,
			placer: func(p *strategiestest.Placer) { p.Status = models.OrderCancelled },
			want: want{kind: strategies.KindError, status: strategies.StatusActive, failures: 1, armed: true,
				says: "the order did not fill (CANCELLED)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			storetest.EachDB(t, func(t *testing.T, s *store.Store) {
				f := newOpen(t, s, tc.typ, tc.config, tc.budget)
				f.setFailures(t, tc.failures)
				f.Book.Set(strategiestest.Token, "0.30", "0.34")
				if tc.placer != nil {
					f.Placer.Set(tc.placer)
				}
				d := f.decide(t, 1)
				require.NotNil(t, d.Place, "%+v", d)
				assert.Equal(t, tc.failures, f.row(t).ConsecutiveFailures)

				got := f.place(t, d.Place.OrderID)
				assert.Equal(t, tc.want.changed, got.Changed)
				assert.Equal(t, f.id, got.StrategyID)
				rec := f.execution(t, 1)
				assert.False(t, rec.Open)
				assert.Equal(t, tc.want.kind, rec.Kind)
				assert.Contains(t, rec.Reason, tc.want.says)
				o, err := s.OrderByID(context.Background(), d.Place.OrderID)
				require.NoError(t, err)
				assert.Equal(t, o.Status, rec.OrderStatus)
				assert.Equal(t, o.FilledSizeMicro, rec.FilledSizeMicro)
				st := f.row(t)
				assert.Equal(t, tc.want.status, st.Status)
				assert.Equal(t, tc.want.failures, st.ConsecutiveFailures)
				if tc.want.kind == strategies.KindError {
					assert.Equal(t, rec.Reason, st.LastError)
				}
				if tc.want.armed {
					assert.NotEmpty(t, conds(t, st), "armed again")
				}
				if st.Status != strategies.StatusActive {
					assert.Empty(t, st.Triggers)
				}
				assert.Equal(t, map[bool]int{true: 1}[tc.want.kind == strategies.KindAction], f.count(models.EventStrategyExecuted))
				assert.Equal(t, map[bool]int{true: 1}[tc.want.status == strategies.StatusError], f.count(models.EventStrategyError))

				// Again: nothing moves.
				again, err := f.Engine.Settle(context.Background(), d.Place.OrderID)
				require.NoError(t, err)
				assert.False(t, again.Changed)
				assert.Equal(t, tc.want.failures, f.row(t).ConsecutiveFailures)
			})
		})
	}
}

// A PRICE_ALERT whose order failed waits for its trigger again and fires
// again: the next decision places a new order.
func TestPriceAlertFiresAgainAfterItsOrderFailed(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newOpen(t, s, "PRICE_ALERT", alertConfig, "20")
		f.Book.Set(strategiestest.Token, "0.30", "0.34")
		f.Placer.Set(func(p *strategiestest.Placer) { p.Status = models.OrderFailed })
		d := f.decide(t, 1)
		require.NotNil(t, d.Place)
		f.place(t, d.Place.OrderID)
		cs := conds(t, f.row(t))
		require.Len(t, cs, 1)
		assert.Equal(t, strategies.FieldBestAsk, cs[0].Field)

		f.Placer.Set(func(p *strategiestest.Placer) { p.Status = "" })
		d2 := f.decide(t, 2)
		require.NotNil(t, d2.Place)
		assert.NotEqual(t, d.Place.OrderID, d2.Place.OrderID)
		got := f.place(t, d2.Place.OrderID)
		assert.True(t, got.Changed)
		st := f.row(t)
		assert.Equal(t, strategies.StatusCompleted, st.Status)
		assert.Zero(t, st.ConsecutiveFailures)
		assert.Equal(t, 2, st.Executions)
	})
}

// BUY_LOW_SELL_HIGH: the buy's fill, settled, stores the sell's condition
// (what the order's "price" hint did before).
func TestSettleArmsTheSellOfAFilledBuy(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		f := newOpen(t, s, "BUY_LOW_SELL_HIGH", blshConfig, "20")
		f.Book.Set(strategiestest.Token, "0.30", "0.34")
		d := f.decide(t, 1)
		require.NotNil(t, d.Place)
		for _, c := range conds(t, f.row(t)) {
			assert.NotEqual(t, strategies.FieldBestBid, c.Field, "nothing to sell while the buy is open")
		}
		got := f.place(t, d.Place.OrderID)
		assert.False(t, got.Changed)
		st := f.row(t)
		assert.Equal(t, int64(10_000_000), st.OpenSizeMicro)
		var sell *strategies.Cond
		for _, c := range conds(t, st) {
			if c.Field == strategies.FieldBestBid {
				sell = &c
			}
		}
		require.NotNil(t, sell, "the sell is armed: %s", st.Triggers)
		assert.Equal(t, "0.6", sell.Threshold.String())
	})
}

// A strategy paused while its order was placed gets its execution amended
// only: no failure counted, no event, its status kept; but a PRICE_ALERT
// whose order was placed has fired, and completes (a resume would fire it
// again).
func TestSettleOfAPausedStrategy(t *testing.T) {
	for _, tc := range []struct {
		name, typ, config, status string
		kind, want                string
		changed                   bool
	}{
		{"a buy filled", "BUY_LOW_SELL_HIGH", blshConfig, "", strategies.KindAction, strategies.StatusPaused, false},
		{"an alert's order failed", "PRICE_ALERT", alertConfig, models.OrderFailed, strategies.KindError, strategies.StatusPaused, false},
		{"an alert's order filled", "PRICE_ALERT", alertConfig, "", strategies.KindAction, strategies.StatusCompleted, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			storetest.EachDB(t, func(t *testing.T, s *store.Store) {
				ctx := context.Background()
				f := newOpen(t, s, tc.typ, tc.config, "20")
				f.Book.Set(strategiestest.Token, "0.30", "0.34")
				f.Placer.Set(func(p *strategiestest.Placer) { p.Status = tc.status })
				d := f.decide(t, 1)
				require.NotNil(t, d.Place)
				_, err := f.svc.Pause(ctx, f.Actor(), f.id)
				require.NoError(t, err)
				got := f.place(t, d.Place.OrderID)
				assert.Equal(t, tc.changed, got.Changed)
				rec := f.execution(t, 1)
				assert.False(t, rec.Open)
				assert.Equal(t, tc.kind, rec.Kind)
				st := f.row(t)
				assert.Equal(t, tc.want, st.Status)
				assert.Zero(t, st.ConsecutiveFailures)
				assert.Empty(t, st.Triggers)
				o, err := s.OrderByID(ctx, d.Place.OrderID)
				require.NoError(t, err)
				assert.Equal(t, o.FilledSizeMicro, st.OpenSizeMicro, "the totals follow its orders")
				if tc.want == strategies.StatusCompleted {
					assert.Equal(t, strategies.EndFired, st.EndedReason)
					assert.Empty(t, st.PausedBy)
					assert.Equal(t, 1, f.count(models.EventStrategyCompleted))
					return
				}
				assert.Equal(t, strategies.ByAgent, st.PausedBy)
				assert.Zero(t, f.count(models.EventStrategyExecuted)+f.count(models.EventStrategyError)+f.count(models.EventStrategyCompleted))
			})
		})
	}
}

// Copies in flight settle concurrently: every outcome counts (three
// failures put the strategy in ERROR, which exactly one Settle reports),
// every execution closes, and the totals are their orders'.
func TestConcurrentSettlesOfCopiesCountAll(t *testing.T) {
	const copies = 3
	for _, tc := range []struct {
		name     string
		status   string
		failures int
		final    string
		used     int64
	}{
		{"all failed", models.OrderFailed, copies, strategies.StatusError, 0},
		// Copies of $5 at the target's 0.40: 12.5 shares each, filled at
		// the best ask, 0.42.
		{"all filled", "", 0, strategies.StatusActive, copies * micro.Ceil(dec("12.5").Mul(dec("0.42")))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			storetest.EachDB(t, func(t *testing.T, s *store.Store) {
				ctx := context.Background()
				f := newOpen(t, s, "COPY_TRADE", copyConfig, "50")
				for i := 1; i <= copies; i++ {
					err := s.RecordCopyTrades(ctx, []models.CopyTrade{{StrategyID: f.id, TxHash: fmt.Sprintf("0x%064x", i), LogIndex: 3, Target: copyTarget,
						Block: int64(i), Kind: models.CopyKindTrade, TokenID: strategiestest.Token, Side: "BUY",
						SharesMicro: 20_000_000, PriceMicro: 400_000}})
					require.NoError(t, err)
				}
				f.Placer.Set(func(p *strategiestest.Placer) { p.Status = tc.status })
				var ids []string
				for seq := 1; seq <= copies; seq++ {
					d := f.decide(t, seq)
					require.NotNil(t, d.Place, "copy %d: %+v", seq, d)
					assert.Equal(t, seq < copies, d.Outcome.State.Pending, "copy %d", seq)
					ids = append(ids, d.Place.OrderID)
				}
				for _, id := range ids {
					_, err := f.Placer.Settle(ctx, id)
					require.NoError(t, err)
				}
				var wg sync.WaitGroup
				start := make(chan struct{})
				got := make(chan strategies.Settled, len(ids))
				errc := make(chan error, len(ids))
				for _, id := range ids {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						s, err := f.Engine.Settle(ctx, id)
						got <- s
						errc <- err
					}()
				}
				close(start)
				wg.Wait()
				close(errc)
				close(got)
				for err := range errc {
					require.NoError(t, err)
				}
				changed := 0
				for s := range got {
					if s.Changed {
						changed++
					}
				}
				assert.Equal(t, map[bool]int{true: 1}[tc.final != strategies.StatusActive], changed)
				st := f.row(t)
				assert.Equal(t, tc.failures, st.ConsecutiveFailures)
				assert.Equal(t, tc.used, st.BudgetUsedMicro)
				assert.Equal(t, tc.final, st.Status)
				for seq := 1; seq <= copies; seq++ {
					assert.False(t, f.execution(t, seq).Open, "copy %d", seq)
				}
				n, err := s.CountOpenStrategyExecutions(ctx, f.id)
				require.NoError(t, err)
				assert.Zero(t, n)
			})
		})
	}
}

// Settle of an order no open execution recorded: an order of no strategy
// answers nothing; an execution recorded when its order was placed (a
// run begun before) is not classified again; a resting order's later
// fill refreshes the totals only.
func TestSettleOfOrdersOfNoOpenExecution(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		f := newOpen(t, s, "BUY_LOW_SELL_HIGH", blshConfig, "20")
		f.Book.Set(strategiestest.Token, "0.30", "0.34")

		// An agent's own order.
		res, err := f.Placer.Place(ctx, orders.Principal{AgentID: f.AgentID, UserID: f.UserID}, orders.PlaceRequest{TokenID: strategiestest.Token,
			Side: "BUY", Type: orders.TypeLimit, Price: dec("0.3"), Size: dec("10"), IdempotencyKey: "own"})
		require.NoError(t, err)
		got, err := f.Engine.Settle(ctx, res.Order.ID)
		require.NoError(t, err)
		assert.Equal(t, strategies.Settled{}, got)

		// An execution of the earlier shape, recorded once placed: a
		// resting buy.
		f.Placer.Set(func(p *strategiestest.Placer) { p.Status = models.OrderOpen })
		out, err := f.Engine.Execute(ctx, f.id, 1)
		require.NoError(t, err)
		require.Equal(t, strategies.KindAction, out.Kind)
		before := f.execution(t, 1)
		st := f.row(t)
		got, err = f.Engine.Settle(ctx, out.OrderID)
		require.NoError(t, err)
		assert.Equal(t, strategies.Settled{StrategyID: f.id, Status: strategies.StatusActive}, got)
		assert.Equal(t, st.UpdatedAt, f.row(t).UpdatedAt, "nothing changed: nothing written")

		// It fills later: the totals follow, the sell is armed; the
		// execution is not classified again.
		filled := models.OrderFilled
		size := int64(10_000_000)
		require.NoError(t, s.UpdateOrder(ctx, out.OrderID, nil, store.OrderUpdate{Status: &filled, FilledSizeMicro: &size,
			AvgFillPriceMicro: ptr(int64(340_000))}))
		got, err = f.Engine.Settle(ctx, out.OrderID)
		require.NoError(t, err)
		assert.False(t, got.Changed)
		st = f.row(t)
		assert.Equal(t, size, st.OpenSizeMicro)
		assert.Equal(t, int64(3_400_000), st.BudgetUsedMicro)
		assert.True(t, strings.Contains(st.Triggers, strategies.FieldBestBid), st.Triggers)
		after := f.execution(t, 1)
		assert.Equal(t, before.Kind, after.Kind)
		assert.Equal(t, before.OrderStatus, after.OrderStatus, "a closed execution keeps what it recorded")
	})
}

// The end waits for the executions in flight: a copy that finds the
// budget taken by a live buy does not complete the strategy, since that
// buy may fill less (or nothing) when placed; once it failed the budget
// is whole again and the strategy goes on.
func TestTheEndWaitsForExecutionsInFlight(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		// A copier of buys only: one that sells waits for its live buys
		// anyway (EndOf), to sell what they buy.
		f := newOpen(t, s, "COPY_TRADE", strings.Replace(copyConfig, `"copySells":true`, `"copySells":false`, 1), "6")
		for i := 1; i <= 2; i++ {
			require.NoError(t, s.RecordCopyTrades(ctx, []models.CopyTrade{{StrategyID: f.id, TxHash: fmt.Sprintf("0x%064x", i), LogIndex: 3,
				Target: copyTarget, Block: int64(i), Kind: models.CopyKindTrade, TokenID: strategiestest.Token, Side: "BUY",
				SharesMicro: 20_000_000, PriceMicro: 400_000}}))
		}
		f.Placer.Set(func(p *strategiestest.Placer) { p.Status = models.OrderFailed })
		first := f.decide(t, 1)
		require.NotNil(t, first.Place)
		// $5.25 of $6 counted for the live buy: the next copy is below
		// the venue's minimum and would end the strategy.
		second := f.decide(t, 2)
		require.Nil(t, second.Place)
		assert.Equal(t, strategies.KindSkip, second.Outcome.Kind)
		assert.Equal(t, strategies.StatusActive, f.row(t).Status, "not while a buy is in flight")

		got := f.place(t, first.Place.OrderID)
		assert.False(t, got.Changed)
		st := f.row(t)
		assert.Equal(t, strategies.StatusActive, st.Status)
		assert.Zero(t, st.BudgetUsedMicro)
		assert.Equal(t, 1, st.ConsecutiveFailures)
	})
}

// A copier's execution that would sell what its BUY still being placed
// buys waits for that BUY instead of deciding on holdings about to change:
// nothing is recorded, the BUY's settling wakes the strategy, and the
// execution run again sells what the BUY filled — or skips when it failed.
// A copy that sells nothing either way (copySells false) and a BUY are
// decided at once.
func TestACopySellWaitsForTheBuyBeingPlaced(t *testing.T) {
	noSells := `{"targetAddress":"` + copyTarget + `","sizingMode":"fixed","fixedAmount":5,"copySells":false}`
	for _, tc := range []struct {
		name      string
		config    string
		second    string // the target's second trade
		buyStatus string // the venue's answer to the BUY ("": filled)
		waits     bool
		then      string // the second execution: its order's side, or "skip"
	}{
		{"a sell waits and sells the fill", copyConfig, "SELL", "", true, "SELL"},
		{"a sell waits and skips a failed buy", copyConfig, "SELL", models.OrderFailed, true, "skip"},
		{"copySells false skips at once", noSells, "SELL", "", false, "skip"},
		{"a buy does not wait", copyConfig, "BUY", "", false, "BUY"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			storetest.EachDB(t, func(t *testing.T, s *store.Store) {
				ctx := context.Background()
				f := newOpen(t, s, "COPY_TRADE", tc.config, "50")
				for i, side := range []string{"BUY", tc.second} {
					require.NoError(t, s.RecordCopyTrades(ctx, []models.CopyTrade{{StrategyID: f.id, TxHash: fmt.Sprintf("0x%064x", i+1), LogIndex: 3,
						Target: copyTarget, Block: int64(i + 1), Kind: models.CopyKindTrade, TokenID: strategiestest.Token, Side: side,
						SharesMicro: 20_000_000, PriceMicro: 400_000}}))
				}
				buy := f.decide(t, 1)
				require.NotNil(t, buy.Place, "%+v", buy)

				d := f.decide(t, 2)
				if !tc.waits {
					if tc.then == "skip" {
						assert.Nil(t, d.Place)
						assert.Equal(t, strategies.KindSkip, f.execution(t, 2).Kind)
					} else {
						require.NotNil(t, d.Place, "%+v", d)
					}
					assert.Empty(t, d.Outcome.WaitsFor)
					assert.False(t, f.place(t, buy.Place.OrderID).Wake, "nothing waits for the BUY")
					return
				}
				assert.Equal(t, buy.Place.OrderID, d.Outcome.WaitsFor)
				assert.Nil(t, d.Place)
				assert.False(t, d.Outcome.Executed)
				assert.False(t, d.Outcome.State.Pending, "a waiting execution must not be run again at once")
				assert.Equal(t, 1, f.row(t).Executions)
				_, err := s.StrategyExecutionBySeq(ctx, f.id, 2)
				assert.True(t, errs.Is(err, errs.NotFound), "the waiting execution was recorded: %v", err)
				// Asked again before the BUY is placed (a wake by another
				// order), it still waits.
				assert.Equal(t, buy.Place.OrderID, f.decide(t, 2).Outcome.WaitsFor)

				f.Placer.Set(func(p *strategiestest.Placer) { p.Status = tc.buyStatus })
				settled := f.place(t, buy.Place.OrderID)
				assert.True(t, settled.Wake, "the BUY's settling must wake the waiting copy: %+v", settled)
				again, err := f.Engine.Settle(ctx, buy.Place.OrderID)
				require.NoError(t, err)
				assert.True(t, again.Wake, "a retried settle answers the wake again")

				f.Placer.Set(func(p *strategiestest.Placer) { p.Status = "" })
				d = f.decide(t, 2)
				assert.Empty(t, d.Outcome.WaitsFor)
				rec := f.execution(t, 2)
				if tc.then == "skip" {
					assert.Nil(t, d.Place)
					assert.Equal(t, strategies.KindSkip, rec.Kind, rec.Reason)
					assert.Contains(t, rec.Reason, "holds no shares")
					return
				}
				require.NotNil(t, d.Place, "%+v", d)
				sell, err := s.OrderByID(ctx, d.Place.OrderID)
				require.NoError(t, err)
				bought, err := s.OrderByID(ctx, buy.Place.OrderID)
				require.NoError(t, err)
				assert.Equal(t, "SELL", sell.Side)
				assert.Positive(t, sell.SizeMicro)
				assert.LessOrEqual(t, sell.SizeMicro, bought.FilledSizeMicro)
				assert.False(t, f.place(t, sell.ID).Wake, "nothing waits any more")
			})
		})
	}
}
