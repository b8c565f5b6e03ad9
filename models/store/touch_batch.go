package store

import (
	"context"
	"sync"
	"time"
)

// API keys' last use, in batches (PostgreSQL).
//
// Every agent request whose key was last touched a minute ago or more
// writes last_used_at (api/agentauth), so with agents polling about once a
// minute nearly every heartbeat carried that write too. On PostgreSQL the
// touches go by group commit, as the heartbeat counts do
// (heartbeat_batch.go): a touch queues and waits; one caller at a time
// writes every touch queued (the latest time per key) in one statement and
// answers the others; what queued meanwhile is the next batch, written by
// one of its own callers. The column only moves forward, as before.

// touchAPIKeysSQL moves each listed key's last use forward to its time.
const touchAPIKeysSQL = `UPDATE api_keys k SET last_used_at = r.t
	FROM unnest($1::text[], $2::timestamptz[]) AS r(id, t)
	WHERE k.id = r.id AND (k.last_used_at IS NULL OR k.last_used_at < r.t)`

// touchBatcher queues key touches for group commit; shared by a store and
// its copies.
type touchBatcher struct {
	mu sync.Mutex
	// queue is the next batch: each key's latest time.
	queue map[string]time.Time
	// waiters are the queued touches' callers, in arrival order.
	waiters []chan touchResult
	leading bool
}

// touchResult is a touch's answer, or the lead.
type touchResult struct {
	err  error
	lead bool
}

// touchAPIKeyBatched is TouchAPIKey through the batcher.
func (s *Store) touchAPIKeyBatched(id string, t time.Time) error {
	b := s.touches
	ch := make(chan touchResult, 1)
	b.mu.Lock()
	if b.queue == nil {
		b.queue = map[string]time.Time{}
	}
	if old, ok := b.queue[id]; !ok || t.After(old) {
		b.queue[id] = t
	}
	b.waiters = append(b.waiters, ch)
	lead := !b.leading
	b.leading = true
	b.mu.Unlock()
	if !lead {
		if r := <-ch; !r.lead {
			return r.err
		}
	}
	b.mu.Lock()
	batch, waiters := b.queue, b.waiters
	b.queue, b.waiters = nil, nil
	b.mu.Unlock()
	err := s.flushTouches(batch)
	for _, w := range waiters {
		if w != ch {
			w <- touchResult{err: err}
		}
	}
	b.mu.Lock()
	if len(b.waiters) == 0 {
		b.leading = false
	} else {
		b.waiters[0] <- touchResult{lead: true}
	}
	b.mu.Unlock()
	return err
}

// flushTouches writes batch in one statement. Its waiters wait for it
// whatever their own contexts say, so it is bounded by its own timeout.
func (s *Store) flushTouches(batch map[string]time.Time) error {
	if len(batch) == 0 {
		return nil
	}
	ids := make([]string, 0, len(batch))
	times := make([]time.Time, 0, len(batch))
	for id, t := range batch {
		ids, times = append(ids, id), append(times, t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), beatFlushTimeout)
	defer cancel()
	_, err := s.sqlDB.ExecContext(ctx, touchAPIKeysSQL, ids, times)
	return mapErr(err, "API key")
}
