package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/positions"
	"github.com/agent-trading/ats/models/store"
)

// heldRecompute wraps the position service the order service recomputes
// positions through: once armed, the next recompute does its work and
// then holds (as a slow or dying worker would) until released, so a test
// can look at the store between an order's position update and what
// follows it.
type heldRecompute struct {
	inner *positions.Service

	mu      sync.Mutex
	armed   bool
	held    chan struct{} // closed when a recompute holds
	release chan struct{}
}

func (h *heldRecompute) arm() (held, release chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.armed, h.held, h.release = true, make(chan struct{}), make(chan struct{})
	return h.held, h.release
}

func (h *heldRecompute) hold() {
	h.mu.Lock()
	armed, held, release := h.armed, h.held, h.release
	h.armed = false
	h.mu.Unlock()
	if !armed {
		return
	}
	close(held)
	select {
	case <-release:
	case <-time.After(30 * time.Second):
	}
}

func (h *heldRecompute) RecomputeLocked(ctx context.Context, tx *store.Store, agentID, userID, tokenID string) error {
	err := h.inner.RecomputeLocked(ctx, tx, agentID, userID, tokenID)
	h.hold()
	return err
}

func (h *heldRecompute) Recompute(ctx context.Context, agentID, userID, tokenID string) error {
	err := h.inner.Recompute(ctx, agentID, userID, tokenID)
	h.hold()
	return err
}

// TestStrategiesOfOneAgentDoNotBlockEachOthersSells is the focused case of
// the bug TestWorkerKilledDuringStrategyExecutions found: two strategies
// of one agent hold 5 shares each (the agent's position is 10); strategy
// A's market SELL fills at the venue, and while the order's sync is
// between the position's update and the order's (held there, as a killed
// or slow worker leaves it), strategy B sells its own 5 shares. The
// agent's check must see one consistent state — the position and the
// sell's order row changed together — so B's sell is accepted, never
// refused insufficient_position because A's sold shares left the position
// while A's order still offered them. Each strategy is still capped by
// its own shares.
func TestStrategiesOfOneAgentDoNotBlockEachOthersSells(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the sandbox and Temporal")
	}
	e := newTradingEnv(t, tradingOpts{noWorker: true})
	gate := &heldRecompute{inner: e.svc.Positions}
	e.svc.Orders.Positions = gate
	e.startWorker(t)
	tr := e.newTrader(t, 0)
	m := e.newMarket(t, "Will two strategies sell their own shares", "0.5")
	yes := m.TokenIDs[0]
	ctx := context.Background()
	p := orders.Principal{AgentID: tr.agentID, UserID: tr.userID, ClientAddr: "test"}
	place := func(strategy, side, price string, size int64, key string) (orders.PlaceResult, error) {
		return e.svc.OrderDesk.Place(ctx, p, orders.PlaceRequest{TokenID: yes, Side: side, Type: orders.TypeMarket,
			Price: decimal.RequireFromString(price), Size: decimal.NewFromInt(size), IdempotencyKey: key, StrategyID: strategy,
			OwnSharesOnly: side == orders.SideSell})
	}
	// trade places a strategy's market order once the makers quote the
	// market afresh. They re-quote by cancelling and replacing their
	// quotes (after a trade, or when the fair price walks), and an order
	// arriving in between finds no match: such an order, ended FAILED
	// with nothing filled, is the book's answer, and the trade is placed
	// again (a refusal by the service's checks is returned at once).
	trade := func(strategy, side, price string, size int64, key string) (orders.PlaceResult, error) {
		for i := 0; ; i++ {
			e.setPrice(t, yes, "0.5")
			e.awaitQuoted(t, yes, decimal.RequireFromString("0.5"))
			res, err := place(strategy, side, price, size, fmt.Sprintf("%s#%d", key, i))
			if err != nil || res.Order.Status != models.OrderFailed || !res.Order.FilledSize.IsZero() || i == 4 {
				return res, err
			}
			t.Logf("%s %s found no match (%s); again", strategy, side, res.Order.FailureReason)
		}
	}
	const a, b = "str_sellcapa", "str_sellcapb"
	buyBoth := func(round string) {
		t.Helper()
		for _, s := range []string{a, b} {
			res, err := trade(s, orders.SideBuy, "0.7", 5, s+":buy"+round)
			if err != nil || res.Order.Status != models.OrderFilled {
				t.Fatalf("%s buy: %+v %v", s, res.Order, err)
			}
		}
		if pos, err := e.store.PositionByToken(ctx, tr.agentID, yes); err != nil || pos.SizeMicro != 10_000_000 {
			t.Fatalf("position after the buys: %+v %v", pos, err)
		}
	}
	buyBoth("1")

	// Armed, the next recompute — that of A's sell's fill — holds.
	held, release := gate.arm()
	sellA := make(chan error, 1)
	go func() {
		res, err := trade(a, orders.SideSell, "0.3", 5, a+":sell")
		if err == nil && res.Order.Status != models.OrderFilled {
			err = errs.Ef(errs.Internal, "A's sell ended %s", res.Order.Status)
		}
		sellA <- err
	}()
	select {
	case <-held:
	case err := <-sellA:
		t.Fatalf("A's sell ended without its fill being recorded: %v", err)
	case <-time.After(90 * time.Second):
		t.Fatal("A's sell was never synchronised")
	}
	sellB := make(chan orders.PlaceResult, 1)
	go func() {
		res, err := place(b, orders.SideSell, "0.3", 5, b+":sell")
		if err != nil {
			t.Errorf("strategy B's sell of its own shares was refused while A's sell was being recorded: %v (%s)", err, errs.CodeOf(err))
		}
		sellB <- res
	}()
	// B's check waits for the lock A's sync holds (or, without the fix,
	// answers at once); let it run into that before releasing A.
	time.Sleep(500 * time.Millisecond)
	close(release)
	resB := <-sellB
	if t.Failed() {
		t.FailNow()
	}
	if err := <-sellA; err != nil {
		t.Fatalf("A's sell: %v", err)
	}
	if resB.Order.Status == models.OrderFailed && resB.Order.FilledSize.IsZero() {
		// Accepted, then the book had no match (the makers re-quoting
		// after A's trade): B still holds its 5, and sells them now.
		if res, err := trade(b, orders.SideSell, "0.3", 5, b+":sell-again"); err != nil || res.Order.Status != models.OrderFilled {
			t.Fatalf("B's sell again: %+v %v", res.Order, err)
		}
	}
	if pos, err := e.store.PositionByToken(ctx, tr.agentID, yes); err != nil || pos.SizeMicro != 0 {
		t.Fatalf("position after both sells: %+v %v", pos, err)
	}

	// A strategy sells only its own shares, whatever the agent holds.
	buyBoth("2")
	if _, err := place(a, orders.SideSell, "0.3", 10, a+":oversell"); errs.CodeOf(err) != errs.CodeInsufficientPosition {
		t.Fatalf("strategy A selling the agent's 10 shares, 5 of them B's: %v, want %s", err, errs.CodeInsufficientPosition)
	}
	if res, err := trade(b, orders.SideSell, "0.3", 5, b+":sell2"); err != nil || res.Order.Status != models.OrderFilled {
		t.Fatalf("B's sell of its own 5: %+v %v", res.Order, err)
	}
}
