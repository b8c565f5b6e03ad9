package workflows_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/workflows"
)

// earlyRunner is fakeRunner that also starts workflows early
// (OrderDeskClient where the first workflow task runs in the accepting
// process): each early start runs, at once and concurrently with the
// acceptance, what the order's first placement attempt does there — it
// waits for the acceptance's decision (orders.Accepts) and opens the
// stored order, or learns it was never stored.
type earlyRunner struct {
	*fakeRunner
	accepts *orders.Accepts
	mu      sync.Mutex
	started []string
	// outcome of each early start's attempt: the order's status, or
	// orders.StatusNotStored.
	outcome map[string]string
}

func (r *earlyRunner) StartsEarly() bool { return true }

func (r *earlyRunner) StartEarly(ctx context.Context, orderID, _, _, _, _ string) workflows.EarlyStart {
	r.mu.Lock()
	r.started = append(r.started, orderID)
	r.mu.Unlock()
	done := make(chan string, 1)
	go func() {
		status := orders.StatusNotStored
		if _, stored, err := r.accepts.Await(context.WithoutCancel(ctx), orderID); err == nil && stored {
			status = models.OrderOpen
			if err := r.st.UpdateOrder(context.Background(), orderID, []string{models.OrderPending}, store.OrderUpdate{Status: &status}); err != nil {
				status = "error: " + err.Error()
			}
		}
		r.mu.Lock()
		r.outcome[orderID] = status
		r.mu.Unlock()
		done <- status
	}()
	return earlyAttempt(done)
}

func (r *earlyRunner) startedIDs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.started...)
}

func (r *earlyRunner) outcomeOf(id string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.outcome[id]
}

type earlyAttempt chan string

func (a earlyAttempt) Await(ctx context.Context) (string, *orders.Order, error) {
	select {
	case s := <-a:
		return s, nil, nil
	case <-ctx.Done():
		return "", nil, ctx.Err()
	}
}

func (earlyAttempt) Stop() {}

// TestPlaceEarly: an agent's order (its principal names the agent's mode)
// has its workflow started while it is accepted, under the id it is then
// stored with; the placement waits for the stored order. A refused order's
// early workflow learns it was never stored and places nothing, and no
// order or reservation is left. A retry of a used key starts nothing; a
// request without the mode (a position close, a strategy) is placed as
// before.
func TestPlaceEarly(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		e := newPlaceEnv(t, st)
		ctx := context.Background()
		e.svc.Accepts = &orders.Accepts{}
		r := &earlyRunner{fakeRunner: e.runner, accepts: e.svc.Accepts, outcome: map[string]string{}}
		e.desk.Runs = r
		p := e.agent(t, 0)
		p.Mode = models.ModeLive
		req := orders.PlaceRequest{TokenID: e.market.TokenIDs[0], Side: orders.SideBuy, Price: d("0.4"), Size: d("10"), IdempotencyKey: "k-early"}

		res, err := e.desk.Place(ctx, p, req)
		if err != nil || res.Order.Status != models.OrderOpen || res.Pending {
			t.Fatalf("early placement: %+v %v", res, err)
		}
		if ids := r.startedIDs(); len(ids) != 1 || ids[0] != res.Order.ID || r.outcomeOf(res.Order.ID) != models.OrderOpen {
			t.Fatalf("started %v for order %s (outcome %q)", ids, res.Order.ID, r.outcomeOf(res.Order.ID))
		}
		if len(e.runner.placed()) != 0 {
			t.Fatalf("the usual placement ran too: %v", e.runner.placed())
		}

		// A retry of the key answers the order, starting nothing.
		if again, err := e.desk.Place(ctx, p, req); err != nil || again.Order.ID != res.Order.ID || len(r.startedIDs()) != 1 {
			t.Fatalf("retry: %+v %v, %d early starts", again, err, len(r.startedIDs()))
		}

		// Refused by its checks (off tick) and by its funds: each early
		// workflow learns the order was never stored.
		q := e.agent(t, 0)
		q.Mode = models.ModeLive
		for _, bad := range []orders.PlaceRequest{
			{TokenID: e.market.TokenIDs[0], Side: orders.SideBuy, Price: d("0.405"), Size: d("10")},
			{TokenID: e.market.TokenIDs[0], Side: orders.SideBuy, Price: d("0.5"), Size: d("1000000000")},
		} {
			n := len(r.startedIDs())
			if _, err := e.desk.Place(ctx, q, bad); err == nil || !errs.Is(err, errs.Invalid) && !errs.Is(err, errs.Conflict) {
				t.Fatalf("refused order: %v", err)
			}
			ids := r.startedIDs()
			if len(ids) != n+1 {
				t.Fatalf("%d early starts, want %d", len(ids), n+1)
			}
			id := ids[n]
			// The attempt records its outcome right after the decision.
			for deadline := time.Now().Add(5 * time.Second); r.outcomeOf(id) == "" && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
			if got := r.outcomeOf(id); got != orders.StatusNotStored {
				t.Fatalf("the refused order's workflow answered %q", got)
			}
			if _, err := st.OrderByID(ctx, id); !errs.Is(err, errs.NotFound) {
				t.Fatalf("refused order %s stored: %v", id, err)
			}
		}
		e.assertNothingHeld(t, q)

		// Without the agent's mode (not the agent API): the usual path.
		p.Mode = ""
		other := orders.PlaceRequest{TokenID: e.market.TokenIDs[0], Side: orders.SideBuy, Price: d("0.3"), Size: d("10")}
		if res, err := e.desk.Place(ctx, p, other); err != nil || res.Order.Status != models.OrderOpen || len(e.runner.placed()) != 1 || len(r.startedIDs()) != 3 {
			t.Fatalf("placed without a mode: %+v %v (%d placements, %d early)", res, err, len(e.runner.placed()), len(r.startedIDs()))
		}
	})
}
