package main

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/workflows"
)

// crossingOrders makes a resting BUY of maker that a SELL of taker fills
// later: maker bids one tick above the book's best bid (inside the
// spread, so the taker's sell meets it first); taker buys the shares it
// will sell. It returns the maker's order id, and sell, which fills it.
func (e *tradingEnv) crossingOrders(t testing.TB, maker, taker trader, token string) (string, func()) {
	t.Helper()
	book, err := e.svc.orders.CLOB.OrderBook(context.Background(), token)
	if err != nil {
		t.Fatal(err)
	}
	bestBid, bestAsk := decimal.Zero, decimal.NewFromInt(1)
	for _, l := range book.Bids {
		bestBid = decimal.Max(bestBid, l.Price)
	}
	for _, l := range book.Asks {
		bestAsk = decimal.Min(bestAsk, l.Price)
	}
	price := bestBid.Add(decimal.RequireFromString("0.01"))
	if !price.LessThan(bestAsk) {
		t.Fatalf("no room inside the spread %s–%s", bestBid, bestAsk)
	}
	status, body := e.call(t, taker.key, "POST", "/orders", map[string]any{"tokenId": token, "side": "BUY", "price": 0.99, "size": 5, "type": "MARKET"})
	if status != http.StatusOK || dataOrder(t, body).Status != models.OrderFilled {
		t.Fatalf("the taker's buy: %d %s", status, body)
	}
	status, body = e.call(t, maker.key, "POST", "/orders", map[string]any{"tokenId": token, "side": "BUY", "price": price, "size": 5})
	if status != http.StatusOK || dataOrder(t, body).Status != models.OrderOpen {
		t.Fatalf("the maker's resting buy: %d %s", status, body)
	}
	id := dataOrder(t, body).ID
	return id, func() {
		status, body := e.call(t, taker.key, "POST", "/orders", map[string]any{"tokenId": token, "side": "SELL", "price": price, "size": 5})
		if status != http.StatusOK || dataOrder(t, body).Status != models.OrderFilled {
			t.Fatalf("the taker's sell: %d %s", status, body)
		}
	}
}

// historyLen and signals count a workflow's history events and the
// signals among them.
func (e *tradingEnv) historyEvents(t testing.TB, id string) (n, signals int) {
	t.Helper()
	it := e.tc.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		n++
		if ev.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED {
			signals++
		}
	}
	return n, signals
}

// TestRestingOrderFillReachesItsWorkflow: a resting order does nothing
// while it rests (its history does not grow), and when another trader's
// sell fills it on the sandbox, the user channel tells its workflow (a
// signal), which records the fill: GET /orders/{id} shows it FILLED long
// before the reconciliation sweep's first pass.
func TestRestingOrderFillReachesItsWorkflow(t *testing.T) {
	e, maker, m := newTradingTest(t, tradingOpts{}, "Will the fill be signalled")
	taker := e.newTrader(t, 0)
	id, sell := e.crossingOrders(t, maker, taker, m.TokenIDs[0])
	wid := workflows.WorkflowID(workflows.KindOrder, id)

	rest, _ := e.historyEvents(t, wid)
	time.Sleep(3 * time.Second) // past the first poll of the polling version
	if n, _ := e.historyEvents(t, wid); n != rest {
		t.Fatalf("the resting order's history grew from %d to %d events while nothing happened", rest, n)
	}

	sell()
	// The stored order (what lists, budgets and positions read; GET
	// /orders/{id} would ask the venue itself) is filled by the workflow.
	deadline := time.Now().Add(30 * time.Second) // the sweep's first pass is a minute away
	for {
		o, err := e.store.OrderByID(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if o.Status == models.OrderFilled {
			if o.FilledSizeMicro != 5_000_000 {
				t.Fatalf("filled order: %+v", o)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the fill never reached the order: %+v", o)
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.awaitWorkflowDone(t, wid)
	status, body := e.call(t, maker.key, "GET", "/orders/"+id, nil)
	if o := dataOrder(t, body); status != http.StatusOK || o.Status != models.OrderFilled || o.FilledSize.String() != "5" {
		t.Fatalf("GET /orders/%s: %d %s", id, status, body)
	}
	if _, signals := e.historyEvents(t, wid); signals == 0 {
		t.Fatal("the order was filled without a signal")
	}
	e.recordHistory(t, wid)
}
