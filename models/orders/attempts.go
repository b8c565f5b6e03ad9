package orders

import "sync"

// Attempts tells callers in this process when a placement attempt
// (Service.Submit) of an order returned. Where the API and the worker
// share a process (`ats dev`), the API starts an order's workflow eagerly
// and answers as soon as the attempt that posted the order returned,
// instead of waiting for the workflow task that records it and for the
// placement update after it: the order's row, which the API answers
// with, is written by then, and the workflow goes on as before. Only a
// final answer ends the wait; an attempt that will be retried leaves the
// caller to the workflow. The zero value is ready to use.
type Attempts struct {
	mu      sync.Mutex
	waiters map[string][]chan Attempt
}

// Attempt is how one placement attempt of an order ended: the order's
// status after it, or the error the workflow retries on.
type Attempt struct {
	Status string
	Err    error
	// Order, when set, is the order as the attempt wrote it, exactly as
	// the database now holds it (the attempt left it resting with nothing
	// filled): the answer, with no read of the row.
	Order *Order
}

// Watch registers for the next attempt of order id; call it before the
// attempt can start. stop unregisters (always call it).
func (a *Attempts) Watch(id string) (next <-chan Attempt, stop func()) {
	ch := make(chan Attempt, 1)
	a.mu.Lock()
	if a.waiters == nil {
		a.waiters = make(map[string][]chan Attempt)
	}
	a.waiters[id] = append(a.waiters[id], ch)
	a.mu.Unlock()
	return ch, func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		ws := a.waiters[id]
		for i, w := range ws {
			if w == ch {
				ws = append(ws[:i], ws[i+1:]...)
				break
			}
		}
		if len(ws) == 0 {
			delete(a.waiters, id)
		} else {
			a.waiters[id] = ws
		}
	}
}

// done tells the watchers of order id how an attempt ended.
func (a *Attempts) done(id string, at Attempt) {
	if a == nil {
		return
	}
	a.mu.Lock()
	ws := a.waiters[id]
	delete(a.waiters, id)
	a.mu.Unlock()
	for _, w := range ws {
		w <- at // buffered, one send per registration
	}
}
