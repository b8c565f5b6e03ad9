package orders_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/venue/chain"
	"github.com/agent-trading/ats/venue/ws"
)

// ordersByHash is an order store of a few orders, by venue id.
type ordersByHash struct {
	byHash map[string]*models.Order
	fills  map[string][]models.Fill
}

func (s ordersByHash) OrderByVenueID(_ context.Context, h string) (*models.Order, error) {
	if o, ok := s.byHash[h]; ok {
		return o, nil
	}
	return nil, errs.E(errs.NotFound, "order not found")
}

func (s ordersByHash) ListFills(_ context.Context, id string) ([]models.Fill, error) {
	return s.fills[id], nil
}

// signals records the hints sent, per order.
type signals struct {
	mu  sync.Mutex
	got []string
}

func (s *signals) SignalOrder(_ context.Context, id string, h orders.EventHint) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, id+":"+h.Kind+":"+h.Source)
	return nil
}

func TestEventHintWorth(t *testing.T) {
	tests := []struct {
		name   string
		hint   orders.EventHint
		status string
		filled int64
		want   bool
	}{
		{"fill beyond what is known", orders.EventHint{Kind: orders.HintFill, FilledMicro: 5}, "OPEN", 3, true},
		{"fill already known", orders.EventHint{Kind: orders.HintFill, FilledMicro: 3}, "PARTIALLY_FILLED", 3, false},
		{"fill of unknown size", orders.EventHint{Kind: orders.HintFill}, "PARTIALLY_FILLED", 3, true},
		{"ended", orders.EventHint{Kind: orders.HintEnded}, "OPEN", 0, true},
		{"sweep", orders.EventHint{Kind: orders.HintSweep}, "OPEN", 0, true},
		{"anything for a final order", orders.EventHint{Kind: orders.HintSweep}, "CANCELLED", 0, false},
		{"an unknown kind", orders.EventHint{Kind: "grant-access"}, "OPEN", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.hint.Worth(tc.status, tc.filled); got != tc.want {
				t.Fatalf("Worth = %v", got)
			}
		})
	}
}

func TestRouterSignalsTheOrdersConcerned(t *testing.T) {
	const (
		maker  = "0x00000000000000000000000000000000000000000000000000000000000000aa"
		taker  = "0x00000000000000000000000000000000000000000000000000000000000000bb"
		done   = "0x00000000000000000000000000000000000000000000000000000000000000cc"
		stored = "0x00000000000000000000000000000000000000000000000000000000000000dd"
	)
	store := ordersByHash{
		byHash: map[string]*models.Order{
			maker:  {ID: "ord_maker", Status: "PARTIALLY_FILLED", FilledSizeMicro: 3_000_000},
			taker:  {ID: "ord_taker", Status: "OPEN"},
			done:   {ID: "ord_done", Status: "FILLED", FilledSizeMicro: 5_000_000},
			stored: {ID: "ord_stored", Status: "PARTIALLY_FILLED", FilledSizeMicro: 1_000_000},
		},
		fills: map[string][]models.Fill{"ord_stored": {{VenueTradeID: "trade-2"}}},
	}
	trade := func(id string, status ws.TradeStatus, makers ...string) *ws.TradeEvent {
		e := &ws.TradeEvent{ID: id, Status: status, TakerOrderID: taker}
		for _, m := range makers {
			e.MakerOrders = append(e.MakerOrders, ws.MakerOrder{OrderID: m})
		}
		return e
	}
	tests := []struct {
		name   string
		events []ws.Event
		chain  []chain.Fill
		want   []string
	}{
		{"an update beyond the recorded fill", []ws.Event{&ws.OrderEvent{Type: ws.OrderUpdate, ID: maker, SizeMatched: decimal.RequireFromString("4")}},
			nil, []string{"ord_maker:fill:user_stream"}},
		{"an update the order recorded already", []ws.Event{&ws.OrderEvent{Type: ws.OrderUpdate, ID: maker, SizeMatched: decimal.RequireFromString("3")}},
			nil, nil},
		{"a cancellation", []ws.Event{&ws.OrderEvent{Type: ws.OrderCancellation, ID: taker}}, nil, []string{"ord_taker:ended:user_stream"}},
		{"a placement changes nothing", []ws.Event{&ws.OrderEvent{Type: ws.OrderPlacement, ID: taker}}, nil, nil},
		{"an ended order", []ws.Event{&ws.OrderEvent{Type: ws.OrderCancellation, ID: done}}, nil, nil},
		{"someone else's order", []ws.Event{&ws.OrderEvent{Type: ws.OrderCancellation, ID: "0xEE"}}, nil, nil},
		{"a trade tells the taker and each maker once, whatever its later statuses",
			[]ws.Event{trade("trade-1", ws.TradeMatched, maker, done), trade("trade-1", ws.TradeMined, maker, done), trade("trade-1", ws.TradeConfirmed, maker, done)},
			nil, []string{"ord_taker:fill:user_stream", "ord_maker:fill:user_stream"}},
		{"a trade the order recorded already", []ws.Event{&ws.TradeEvent{ID: "trade-2", Status: ws.TradeMatched, TakerOrderID: stored}}, nil, nil},
		{"a failed trade is left to the sweep", []ws.Event{trade("trade-3", ws.TradeFailed, maker)}, nil, nil},
		{"an OrderFilled log", nil, []chain.Fill{{OrderHash: common.HexToHash(maker)}}, []string{"ord_maker:fill:chain"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sig := &signals{}
			r := &orders.Router{Store: store, Signaler: sig}
			for _, ev := range tc.events {
				if err := r.StreamEvent(context.Background(), ev); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range tc.chain {
				if err := r.ChainFill(context.Background(), f); err != nil {
					t.Fatal(err)
				}
			}
			if len(sig.got) != len(tc.want) {
				t.Fatalf("signals %v, want %v", sig.got, tc.want)
			}
			for i := range tc.want {
				if sig.got[i] != tc.want[i] {
					t.Fatalf("signals %v, want %v", sig.got, tc.want)
				}
			}
		})
	}
}

// pendingStore is one order whose status the test moves while the router
// holds an event of it.
type pendingStore struct {
	mu sync.Mutex
	o  models.Order
}

func (s *pendingStore) OrderByVenueID(_ context.Context, h string) (*models.Order, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h != s.o.VenueOrderID {
		return nil, errs.E(errs.NotFound, "order not found")
	}
	o := s.o
	return &o, nil
}

func (s *pendingStore) ListFills(context.Context, string) ([]models.Fill, error) { return nil, nil }

func (s *pendingStore) set(status string, filled int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.o.Status, s.o.FilledSizeMicro = status, filled
}

// An event of an order still PENDING (the match of the post in flight) is
// not signalled at once, where it would reach the order's workflow during
// the placement's workflow task: it is routed again once the delay
// passed, and then only if it may tell something the placement did not
// record.
func TestRouterPutsOffEventsOfAPendingOrder(t *testing.T) {
	const hash = "0x00000000000000000000000000000000000000000000000000000000000000ab"
	tests := []struct {
		name string
		// then is what the placement recorded by the time the event is
		// routed again (empty: still PENDING, every time).
		then   string
		filled int64
		want   int
	}{
		{"the placement recorded the fill", "FILLED", 10_000_000, 0},
		{"the order rests, the trade is not recorded", "OPEN", 0, 1},
		{"the order stays PENDING: routed as it stands at last", "", 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &pendingStore{o: models.Order{ID: "ord_1", VenueOrderID: hash, Status: models.OrderPending, SizeMicro: 10_000_000}}
			sig := &signals{}
			r := &orders.Router{Store: s, Signaler: sig, PendingDelay: 5 * time.Millisecond}
			if err := r.StreamEvent(context.Background(), &ws.TradeEvent{ID: "trade-1", Status: ws.TradeMatched, TakerOrderID: hash}); err != nil {
				t.Fatal(err)
			}
			sig.mu.Lock()
			at0 := len(sig.got)
			sig.mu.Unlock()
			if at0 != 0 {
				t.Fatalf("signalled at once: %v", sig.got)
			}
			if tc.then != "" {
				s.set(tc.then, tc.filled)
			}
			// Long enough for every deferral (5 × 5 ms) and more.
			deadline := time.Now().Add(5 * time.Second)
			for {
				sig.mu.Lock()
				n := len(sig.got)
				sig.mu.Unlock()
				if n > tc.want {
					t.Fatalf("signals %v, want %d", sig.got, tc.want)
				}
				if n == tc.want && (tc.want > 0 || time.Now().After(deadline.Add(-4800*time.Millisecond))) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("signals %v, want %d", sig.got, tc.want)
				}
				time.Sleep(time.Millisecond)
			}
		})
	}
}

// A closed router (its process stopping) routes none of the events it put
// off, and puts off no more: they are left to the sweep.
func TestClosedRouterRoutesNothingPutOff(t *testing.T) {
	const hash = "0x00000000000000000000000000000000000000000000000000000000000000ab"
	s := &pendingStore{o: models.Order{ID: "ord_1", VenueOrderID: hash, Status: models.OrderPending, SizeMicro: 10_000_000}}
	sig := &signals{}
	r := &orders.Router{Store: s, Signaler: sig, PendingDelay: 20 * time.Millisecond}
	ev := &ws.TradeEvent{ID: "trade-1", Status: ws.TradeMatched, TakerOrderID: hash}
	if err := r.StreamEvent(context.Background(), ev); err != nil {
		t.Fatal(err)
	}
	s.set("OPEN", 0) // routed again, it would be signalled
	r.Close()
	if err := r.StreamEvent(context.Background(), &ws.TradeEvent{ID: "trade-2", Status: ws.TradeMatched, TakerOrderID: hash}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	sig.mu.Lock()
	defer sig.mu.Unlock()
	if len(sig.got) != 1 {
		// trade-2 finds the order OPEN and is routed at once; trade-1,
		// put off before the close, must not follow.
		t.Fatalf("signals %v, want trade-2's only", sig.got)
	}
}
