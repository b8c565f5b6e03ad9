package orders

import (
	"context"
	"sync"
	"time"

	"github.com/agent-trading/ats/models"
)

// StatusNotStored is what a placement attempt answers for an order whose
// workflow was started before its acceptance (an early start, see
// Accepts) when the acceptance refused it, or never committed: there is
// no order, nothing was signed or posted, and the workflow ends. It is
// not an order status — no order row ever holds it — only the workflow's
// last word (and its OrderStatus search attribute).
const StatusNotStored = "NOT_STORED"

// notStored is the answer of an attempt for order id that was never stored.
func notStored(id string) Order { return Order{ID: id, Status: StatusNotStored} }

// acceptGateTTL is how long a decided gate is kept for an attempt that
// has not asked yet: longer than an early start takes to hand over the
// workflow's first task, however loaded the server. An attempt that comes
// later finds no gate and reads the database, as any other attempt does.
const acceptGateTTL = time.Minute

// Accepts lets an order's workflow start while its acceptance runs (an
// early start): the API process that accepts the order also starts its
// workflow eagerly, so the server's start and the acceptance's checks,
// reservation and row overlap instead of following each other. The
// placement attempt, which in an eager start runs in this same process,
// waits here until the acceptance has decided: stored (the attempt reads
// the committed row, as always: persisted before signed) or not (the
// attempt answers StatusNotStored and posts nothing). An attempt in
// another process (the workflow task timed out after this process died)
// finds no gate; it reads the database, where an order that is not there
// is not placed (StatusNotStored): the dead process's transaction ended
// with its connection. The zero value is ready to use.
type Accepts struct {
	mu    sync.Mutex
	gates map[string]*acceptGate
}

type acceptGate struct {
	once    sync.Once
	decided chan struct{}
	stored  bool
	// row is the order as the acceptance stored it (nil when not
	// stored, or decided without it): the first attempt in this process
	// takes it instead of reading the row back (guarded by mu).
	row *models.Order
}

// Open registers order id's acceptance as running; call it before the
// order's workflow is started. Decide must follow, whatever happens.
func (a *Accepts) Open(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.gates == nil {
		a.gates = make(map[string]*acceptGate)
	}
	a.gates[id] = &acceptGate{decided: make(chan struct{})}
}

// Decide records whether order id was stored (its row committed) and
// releases the attempt waiting for it; only the first decision counts.
// The gate is forgotten after acceptGateTTL.
func (a *Accepts) Decide(id string, stored bool) { a.decide(id, stored, nil) }

// stored decides order o's gate with the row its acceptance committed.
func (a *Accepts) stored(o *models.Order) {
	row := *o
	a.decide(o.ID, true, &row)
}

func (a *Accepts) decide(id string, stored bool, row *models.Order) {
	if a == nil {
		return
	}
	a.mu.Lock()
	g := a.gates[id]
	a.mu.Unlock()
	if g == nil {
		return
	}
	g.once.Do(func() {
		g.stored, g.row = stored, row
		close(g.decided)
		time.AfterFunc(acceptGateTTL, func() {
			a.mu.Lock()
			defer a.mu.Unlock()
			if a.gates[id] == g {
				delete(a.gates, id)
			}
		})
	})
}

// Await waits until order id's acceptance in this process decided, if
// one runs or ran here: known is false when this process knows nothing of
// it (the attempt reads the database alone). The placement attempt
// (Service.Submit) calls it.
func (a *Accepts) Await(ctx context.Context, id string) (known, stored bool, err error) {
	known, stored, _, err = a.await(ctx, id)
	return known, stored, err
}

// await is Await with the row the acceptance stored, when it said.
func (a *Accepts) await(ctx context.Context, id string) (known, stored bool, row *models.Order, err error) {
	if a == nil {
		return false, false, nil, nil
	}
	a.mu.Lock()
	g := a.gates[id]
	a.mu.Unlock()
	if g == nil {
		return false, false, nil, nil
	}
	select {
	case <-g.decided:
		// The row is the first attempt's only: a later one reads what
		// the earlier ones did to the order.
		a.mu.Lock()
		row, g.row = g.row, nil
		a.mu.Unlock()
		return true, g.stored, row, nil
	case <-ctx.Done():
		return true, false, nil, ctx.Err()
	}
}
