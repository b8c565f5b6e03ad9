package workflows_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/intent/intenttest"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/strategies/strategiestest"
	"github.com/agent-trading/ats/worker/replaytest"
	"github.com/agent-trading/ats/workflows"
)

// TestOrderCancelDuringPlacementBackoffOnDevServer runs the order workflow
// on a real Temporal server, whose activity retries and cancellation the
// test environment only imitates: an order whose placement keeps failing
// is cancelled while the placement backs off. The cancel answers at once
// (previousStatus PENDING), the placement is stopped (no further attempt)
// and the workflow ends CANCELLED. An order without a workflow, and one
// whose workflow ended, answer errs.CodeOrderWorkflowNotFound, for the service to
// cancel them directly. With ATS_RECORD_HISTORY=<path> it writes the
// history for the replay tests:
//
//	ATS_RECORD_HISTORY=$PWD/workflows/testdata/order_cancel_backoff.json \
//	  go test -run TestOrderCancelDuringPlacementBackoffOnDevServer ./workflows/
func TestOrderCancelDuringPlacementBackoffOnDevServer(t *testing.T) {
	f := &fakeVenueOrder{status: "PENDING", submitStatus: "OPEN", size: 1_000_000, failSubmits: 1 << 30}
	ctx, c := onDevServer(t, &activities.Orders{Steps: f, Intents: intenttest.Keys(t)})

	oc := workflows.OrderDeskClient{Client: c, Intents: intenttest.Keys(t)}
	if _, _, err := oc.Cancel(ctx, "ord_none"); errs.CodeOf(err) != errs.CodeOrderWorkflowNotFound {
		t.Fatalf("cancel without a workflow: %v", err)
	}
	if err := oc.Resume(ctx, "ord_1", "usr_1", "agt_1", "123", "live"); err != nil {
		t.Fatal(err)
	}
	submits := func() int {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.submits
	}
	for submits() < 3 { // attempts at 0, 0.5 and 1.5 s: the next one is 2 s away
		if ctx.Err() != nil {
			t.Fatal("the placement was never attempted three times")
		}
		time.Sleep(50 * time.Millisecond)
	}
	t0 := time.Now()
	prev, status, err := oc.Cancel(ctx, "ord_1")
	if took := time.Since(t0); err != nil || prev != "PENDING" || status != "CANCELLED" || took > 5*time.Second {
		t.Fatalf("cancel during the backoff: %q %q %v after %v", prev, status, err, took)
	}
	id := workflows.WorkflowID(workflows.KindOrder, "ord_1")
	var res activities.OrderState
	if err := c.GetWorkflow(ctx, id, "").Get(ctx, &res); err != nil || res.Status != "CANCELLED" {
		t.Fatalf("workflow result %+v %v", res, err)
	}
	n := submits()
	time.Sleep(3 * time.Second) // past the next attempt the placement would have made
	if submits() != n || n > 4 {
		t.Fatalf("%d placement attempts by the cancel, %d after it", n, submits())
	}
	if _, _, err := oc.Cancel(ctx, "ord_1"); errs.CodeOf(err) != errs.CodeOrderWorkflowNotFound {
		t.Fatalf("cancel after the workflow ended: %v", err)
	}

	if p := os.Getenv("ATS_RECORD_HISTORY"); p != "" {
		replaytest.WriteHistory(t, p, replaytest.History(t, ctx, c, id, ""))
	}
}

// TestStrategyOrderHintsItsStrategyOnDevServer runs, on a real Temporal
// server, a BUY_LOW_SELL_HIGH strategy's workflow and the workflow of an
// order it placed (the venue is a fake that fills the order at each
// sync): at order-shape 3 (the order desk's starts) each step of the
// order amends the strategy side (Engine.Settle: the totals and the
// stored conditions follow the order), so the sell is armed once the
// shares are the strategy's, and the strategy's workflow hears nothing
// (it did not end). With ATS_RECORD_HISTORY=<path> it writes the order's
// history (order_settle.json: version 3 of "order-shape", given in the
// input; order_shape_sync.json is its version 2, which hinted the
// strategy at each change, order_shape.json its version 1,
// order_strategy_hint.json version 1 of "strategy-hint" and
// order_strategy_hint_v2.json its version 2, both before the bundle) for
// the replay tests:
//
//	ATS_RECORD_HISTORY=$PWD/workflows/testdata/order_settle.json \
//	  go test -run TestStrategyOrderHintsItsStrategyOnDevServer ./workflows/
func TestStrategyOrderHintsItsStrategyOnDevServer(t *testing.T) {
	keys := intenttest.Keys(t)
	fx := strategiestest.New(t, storetest.NewSQLite(t), nil)
	fx.Book.Set(strategiestest.Token, "0.45", "0.47") // neither condition met
	// The strategy's order, as the order service stores it: its shares
	// arrive at the order's syncs, after the strategy last looked.
	f := &fakeVenueOrder{status: "PENDING", submitStatus: "OPEN", size: 5_000_000, fillPerSync: 5_000_000}
	ctx, c := onDevServer(t, &activities.Orders{Steps: f, Intents: keys, Settler: fx.Engine}, &activities.Strategies{Engine: fx.Engine, Intents: keys})
	sc := workflows.StrategyDeskClient{Client: c, Intents: keys}
	svc := &workflows.StrategyDesk{Runs: sc, Strategies: &strategies.Service{Store: fx.Store, Resolver: strategiestest.Resolver{}}}
	st, err := svc.Create(ctx, fx.Actor(), strategies.CreateRequest{Type: "BUY_LOW_SELL_HIGH",
		Config:    json.RawMessage(`{"tokenId":"1001","buyBelow":0.40,"sellAbove":0.60,"sizePerTrade":5}`),
		MaxBudget: strategies.D(decimal.RequireFromString("20"))})
	if err != nil {
		t.Fatal(err)
	}
	sid := st.ID
	f.mu.Lock()
	f.strategy = sid
	f.mu.Unlock()
	o := &models.Order{ID: "ord_1", AgentID: fx.AgentID, UserID: fx.UserID, WalletID: "wal_1", TokenID: strategiestest.Token, Side: "BUY",
		Type: "FOK", RequestType: "MARKET", PriceMicro: 400_000, SizeMicro: 5_000_000, Status: models.OrderOpen, StrategyID: &sid}
	if err := fx.Store.CreateOrder(ctx, o); err != nil {
		t.Fatal(err)
	}
	armedSell := func() bool {
		cur, err := fx.Store.StrategyByID(ctx, sid)
		if err != nil {
			t.Fatal(err)
		}
		return cur.OpenSizeMicro == 5_000_000 && strings.Contains(cur.Triggers, strategies.FieldBestBid)
	}
	if armedSell() {
		t.Fatal("the sell is armed before the order filled")
	}

	oc := workflows.OrderDeskClient{Client: c, Intents: keys}
	if err := oc.Resume(ctx, "ord_1", fx.UserID, fx.AgentID, strategiestest.Token, "live"); err != nil {
		t.Fatal(err)
	}
	// The venue fills the order; the store learns it as the order
	// service's sync would, and the order's workflow hears of it.
	filled, avg, status := int64(5_000_000), int64(400_000), models.OrderFilled
	if err := fx.Store.UpdateOrder(ctx, "ord_1", nil, store.OrderUpdate{Status: &status, FilledSizeMicro: &filled, AvgFillPriceMicro: &avg}); err != nil {
		t.Fatal(err)
	}
	if err := oc.SignalOrder(ctx, "ord_1", orders.EventHint{Kind: orders.HintFill, Source: orders.SourceStream}); err != nil {
		t.Fatal(err)
	}
	id := workflows.WorkflowID(workflows.KindOrder, "ord_1")
	var res activities.OrderState
	if err := c.GetWorkflow(ctx, id, "").Get(ctx, &res); err != nil || res.Status != "FILLED" {
		t.Fatalf("order workflow result %+v %v", res, err)
	}
	for !armedSell() {
		if ctx.Err() != nil {
			t.Fatal("the strategy never armed the sell of the order's shares")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if calls, _ := fx.Placer.Counts(); calls != 0 {
		t.Fatalf("the hints placed %d orders", calls)
	}
	if p := os.Getenv("ATS_RECORD_HISTORY"); p != "" {
		replaytest.WriteHistory(t, p, replaytest.History(t, ctx, c, id, ""))
	}
}
