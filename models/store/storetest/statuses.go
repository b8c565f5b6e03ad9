package storetest

import (
	"sync"

	"github.com/agent-trading/ats/models/store"
)

// StatusChanges counts the order status changes a store reports
// (store.Store.OnOrderStatus), by the status entered.
type StatusChanges struct {
	mu sync.Mutex
	n  map[string]int
}

// CountStatusChanges has s report its order status changes to the
// returned counter (in place of any listener it had).
func CountStatusChanges(s *store.Store) *StatusChanges {
	c := &StatusChanges{n: map[string]int{}}
	s.OnOrderStatus(func(status string) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.n[status]++
	})
	return c
}

// Take returns the changes counted since the last Take, and starts again.
func (c *StatusChanges) Take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.n
	c.n = map[string]int{}
	return out
}
