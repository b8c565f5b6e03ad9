// Package activitiestest provides in-memory implementations of the
// activities' storage interfaces for tests of workflows and workers.
package activitiestest

import (
	"context"
	"sync"
	"time"

	"github.com/agent-trading/ats/activities"
)

var _ activities.Housekeeper = (*MemHousekeeper)(nil)

// MemHousekeeper is an in-memory activities.Housekeeper: a table of
// idempotency records and one of device links, each with an expiry. It is
// safe for concurrent use.
type MemHousekeeper struct {
	mu          sync.Mutex
	idempotency map[string]time.Time // key -> expires at
	links       map[string]*link
	events      map[string]time.Time // event -> deletable from
	calls       []Call
	// Fail, when set, is consulted before each operation; a non-nil
	// result is returned as that operation's error (to test retries).
	Fail     func(op string, attempt int) error
	attempts map[string]int
}

type link struct {
	expiresAt time.Time
	expired   bool
}

// Call records one invocation.
type Call struct {
	Op  string
	Now time.Time
}

// Operation names used in Call.Op and Fail.
const (
	OpPurgeIdempotency  = "PurgeExpiredIdempotency"
	OpExpireDeviceLinks = "ExpireDeviceLinks"
	OpPurgeEvents       = "PurgeEvents"
)

// NewMemHousekeeper returns an empty store.
func NewMemHousekeeper() *MemHousekeeper {
	return &MemHousekeeper{
		idempotency: map[string]time.Time{},
		links:       map[string]*link{},
		events:      map[string]time.Time{},
		attempts:    map[string]int{},
	}
}

// PutIdempotency stores an idempotency record expiring at expiresAt.
func (m *MemHousekeeper) PutIdempotency(key string, expiresAt time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.idempotency[key] = expiresAt
}

// PutDeviceLink stores a pending device link expiring at expiresAt.
func (m *MemHousekeeper) PutDeviceLink(id string, expiresAt time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.links[id] = &link{expiresAt: expiresAt}
}

// HasIdempotency reports whether the record is still stored.
func (m *MemHousekeeper) HasIdempotency(key string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.idempotency[key]
	return ok
}

// DeviceLinkExpired reports whether the link was marked expired.
func (m *MemHousekeeper) DeviceLinkExpired(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	l, ok := m.links[id]
	return ok && l.expired
}

// Calls returns the successful and failed invocations so far, in order.
func (m *MemHousekeeper) Calls() []Call {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Call(nil), m.calls...)
}

func (m *MemHousekeeper) begin(op string, now time.Time) error {
	m.calls = append(m.calls, Call{Op: op, Now: now})
	m.attempts[op]++
	if m.Fail != nil {
		return m.Fail(op, m.attempts[op])
	}
	return nil
}

// PurgeExpiredIdempotency deletes records with expiry at or before now.
func (m *MemHousekeeper) PurgeExpiredIdempotency(ctx context.Context, now time.Time) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.begin(OpPurgeIdempotency, now); err != nil {
		return 0, err
	}
	var n int64
	for k, exp := range m.idempotency {
		if !exp.After(now) {
			delete(m.idempotency, k)
			n++
		}
	}
	return n, nil
}

// ExpireDeviceLinks marks pending links with expiry at or before now as
// expired; already expired links are not counted again.
func (m *MemHousekeeper) ExpireDeviceLinks(ctx context.Context, now time.Time) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.begin(OpExpireDeviceLinks, now); err != nil {
		return 0, err
	}
	var n int64
	for _, l := range m.links {
		if !l.expired && !l.expiresAt.After(now) {
			l.expired = true
			n++
		}
	}
	return n, nil
}

// PutEvent stores an agent event that housekeeping may delete from
// deletableAt on (the store derives that from the retention periods).
func (m *MemHousekeeper) PutEvent(id string, deletableAt time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.events[id] = deletableAt
}

// HasEvent reports whether the event is still stored.
func (m *MemHousekeeper) HasEvent(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.events[id]
	return ok
}

// PurgeEvents deletes events deletable at or before now.
func (m *MemHousekeeper) PurgeEvents(ctx context.Context, now time.Time) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.begin(OpPurgeEvents, now); err != nil {
		return 0, err
	}
	var n int64
	for id, at := range m.events {
		if !at.After(now) {
			delete(m.events, id)
			n++
		}
	}
	return n, nil
}
