package e2e

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/workflows"
)

// crossingOrders makes a resting BUY of maker that a SELL of taker fills
// later: maker bids one tick above the book's best bid (inside the
// spread, so the taker's sell meets it first); taker buys the shares it
// will sell. It returns the maker's order id, and sell, which fills it.
func (e *tradingEnv) crossingOrders(t testing.TB, maker, taker trader, token string) (string, func()) {
	t.Helper()
	book, err := e.svc.Orders.CLOB.OrderBook(context.Background(), token)
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

// recordedHints records the hints a listener sends.
type recordedHints struct {
	mu  sync.Mutex
	ids []string
}

func (r *recordedHints) SignalOrder(_ context.Context, id string, h orders.EventHint) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ids = append(r.ids, id+":"+h.Kind)
	return nil
}

// TestSweepFindsAMissedFill: with no event reaching the workflows (the
// worker runs without its listener), a resting order that fills stays
// OPEN in the store; one sweep of the wallet — one REST call — finds it
// and hints its workflow, which records the fill. An order still resting
// untouched gets no hint.
func TestSweepFindsAMissedFill(t *testing.T) {
	e, maker, m := newTradingTest(t, tradingOpts{noEvents: true}, "Will the sweep find it")
	taker := e.newTrader(t, 0)
	id, sell := e.crossingOrders(t, maker, taker, m.TokenIDs[0])
	status, body := e.call(t, maker.key, "POST", "/orders", map[string]any{"tokenId": m.TokenIDs[0], "side": "BUY", "price": 0.01, "size": 5})
	if status != http.StatusOK {
		t.Fatalf("untouched order: %d %s", status, body)
	}
	untouched := dataOrder(t, body).ID
	sell()
	time.Sleep(time.Second)
	if o, err := e.store.OrderByID(context.Background(), id); err != nil || o.Status != models.OrderOpen {
		t.Fatalf("without events the order should still read OPEN: %+v %v", o, err)
	}

	rec := &recordedHints{}
	l := &orders.Listener{Store: e.store, Wallets: e.svc.Wallets, CLOB: e.vc.CLOB, StreamsURL: e.vc.Net.StreamsURL,
		Router: &orders.Router{Store: e.store, Signaler: rec}, Refresh: time.Hour, SweepEvery: time.Hour}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = l.Run(ctx) }()
	defer func() { cancel(); <-done }()
	for l.Listening() == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	l.Sweep(ctx)
	rec.mu.Lock()
	got := append([]string(nil), rec.ids...)
	rec.mu.Unlock()
	// The sweep's hint and, maybe, the new stream's replay of the trade.
	swept := false
	for _, h := range got {
		if strings.HasPrefix(h, untouched) {
			t.Fatalf("the untouched order was hinted: %v", got)
		}
		swept = swept || h == id+":"+orders.HintSweep
	}
	if !swept {
		t.Fatalf("hints %v, want a sweep hint for %s", got, id)
	}

	// Sent for real, the hint has the workflow record the fill.
	oc := workflows.OrderDeskClient{Client: e.tc, Intents: e.svc.Intents}
	if err := oc.SignalOrder(ctx, id, orders.EventHint{Kind: orders.HintSweep, Source: orders.SourceSweep}); err != nil {
		t.Fatal(err)
	}
	e.awaitWorkflowDone(t, workflows.WorkflowID(workflows.KindOrder, id))
	if o, err := e.store.OrderByID(context.Background(), id); err != nil || o.Status != models.OrderFilled {
		t.Fatalf("after the sweep: %+v %v", o, err)
	}
}
