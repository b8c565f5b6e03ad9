package store

import (
	"context"
	"sync"
	"time"
)

// Heartbeat counting in batches (PostgreSQL).
//
// Nearly every heartbeat finds nothing new since the key's previous one,
// and then its only write is the count: beats + 1, last_at, the skill
// version (countHeartbeat). One commit per heartbeat capped the endpoint
// at about a thousand a second on two cores, so on PostgreSQL the counts
// are written by group commit: a heartbeat queues its count and waits;
// one caller at a time (the leader) writes everything queued in one
// statement, coalesced per key, and hands each waiter its answer; what
// queued during that statement is the next batch, written by one of its
// own callers. An idle server writes at once (a batch of one); a busy one
// writes once per statement time for everyone who arrived meanwhile.
//
// What the heartbeat reports stays exact. The cursor (event_seq) is not
// batched: the batched statement only counts a key whose cursor is at its
// agent's event head at the moment the statement runs, which is after
// every queued heartbeat arrived, so an event committed before a heartbeat
// arrived is never missed — such a key is left out of the batch and its
// heartbeat claims the events through ClaimHeartbeat's compare-and-set, as
// before, on whichever instance it reached. Nothing is answered before its
// write commits, so a crash loses only unanswered heartbeats (the agent
// retries them) and never a claimed event.

// beatBatchMax bounds the keys written by one statement.
const beatBatchMax = 2000

// beatFlushTimeout bounds one batch's statement: the waiters of a batch
// wait for it whatever their own contexts say, so it must end.
const beatFlushTimeout = 10 * time.Second

// countBeatsSQL counts each listed key's heartbeats (n of them) when the
// key's cursor exists and, for a consuming heartbeat, is at its agent's
// event head; it returns the counted keys with their new totals.
const countBeatsSQL = `UPDATE heartbeat_cursors c
	SET beats = c.beats + r.n, last_at = $1, skill_version = CASE WHEN r.has_skill THEN r.skill ELSE NULL END
	FROM unnest($2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bool[], $7::bool[])
		AS r(api_key_id, agent_id, n, skill, has_skill, consume)
	WHERE c.api_key_id = r.api_key_id
		AND (NOT r.consume OR c.event_seq >= COALESCE((SELECT h.last_seq FROM agent_event_heads h WHERE h.agent_id = r.agent_id), 0))
	RETURNING c.api_key_id, c.beats`

// beatBatcher queues heartbeat counts for group commit; shared by a store
// and its copies.
type beatBatcher struct {
	mu sync.Mutex
	// queue is the next batch, in arrival order; byKey finds a key's entry
	// in it to coalesce.
	queue []*beatEntry
	byKey map[string]*beatEntry
	// leading is true while a caller is writing batches.
	leading bool
}

// beatEntry is one key's queued heartbeats.
type beatEntry struct {
	apiKeyID, agentID string
	consume           bool
	// skill is the latest queued heartbeat's skill version.
	skill *int
	// waiters are the queued heartbeats, oldest first; each gets its
	// answer (or the lead) on its channel.
	waiters []chan beatResult
}

// beatResult is one heartbeat's answer: its count (counted false when the
// key was not counted and must take the claim path), or the lead.
type beatResult struct {
	beats   int64
	counted bool
	err     error
	lead    bool
}

// countHeartbeatBatched is countHeartbeat through the batcher.
func (s *Store) countHeartbeatBatched(ctx context.Context, apiKeyID, agentID string, consume bool, skillVersion *int) (int64, bool, error) {
	b := s.beats
	ch := make(chan beatResult, 1)
	b.mu.Lock()
	e := b.byKey[apiKeyID]
	if e != nil && e.consume != consume {
		// A sleeping and an awake heartbeat of one key in the same batch
		// (its active hours just began or ended): count this one alone.
		b.mu.Unlock()
		return s.countHeartbeat(ctx, apiKeyID, agentID, consume, skillVersion)
	}
	if e == nil {
		if b.byKey == nil {
			b.byKey = map[string]*beatEntry{}
		}
		e = &beatEntry{apiKeyID: apiKeyID, agentID: agentID, consume: consume}
		b.byKey[apiKeyID] = e
		b.queue = append(b.queue, e)
	}
	e.skill = skillVersion
	e.waiters = append(e.waiters, ch)
	lead := !b.leading
	b.leading = true
	b.mu.Unlock()
	if !lead {
		r := <-ch
		if !r.lead {
			return r.beats, r.counted, r.err
		}
	}
	// This caller writes batches until its own heartbeat is answered, then
	// hands the lead to a waiter of the next batch (or drops it).
	for {
		b.mu.Lock()
		batch := b.queue
		if len(batch) > beatBatchMax {
			batch = batch[:beatBatchMax]
		}
		b.queue = b.queue[len(batch):]
		for _, e := range batch {
			delete(b.byKey, e.apiKeyID)
		}
		b.mu.Unlock()
		s.flushBeats(batch)
		select {
		case r := <-ch:
			b.mu.Lock()
			if len(b.queue) == 0 {
				b.leading = false
			} else {
				next := b.queue[0].waiters[0]
				next <- beatResult{lead: true}
			}
			b.mu.Unlock()
			return r.beats, r.counted, r.err
		default:
			// Our heartbeat is in the queue still (the batch was full).
		}
	}
}

// flushBeats writes batch in one statement and answers its waiters.
func (s *Store) flushBeats(batch []*beatEntry) {
	if len(batch) == 0 {
		return
	}
	keys := make([]string, len(batch))
	agents := make([]string, len(batch))
	ns := make([]int64, len(batch))
	skills := make([]int64, len(batch))
	hasSkill := make([]bool, len(batch))
	consume := make([]bool, len(batch))
	for i, e := range batch {
		keys[i], agents[i], ns[i], consume[i] = e.apiKeyID, e.agentID, int64(len(e.waiters)), e.consume
		if e.skill != nil {
			skills[i], hasSkill[i] = int64(*e.skill), true
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), beatFlushTimeout)
	defer cancel()
	totals := make(map[string]int64, len(batch))
	err := func() error {
		rows, err := s.sqlDB.QueryContext(ctx, countBeatsSQL, s.now(), keys, agents, ns, skills, hasSkill, consume)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			var beats int64
			if err := rows.Scan(&k, &beats); err != nil {
				return err
			}
			totals[k] = beats
		}
		return rows.Err()
	}()
	err = mapErr(err, "heartbeat")
	for _, e := range batch {
		total, ok := totals[e.apiKeyID]
		for i, w := range e.waiters {
			switch {
			case err != nil:
				w <- beatResult{err: err}
			case !ok:
				w <- beatResult{}
			default:
				// The key's heartbeats of this batch are its last len(waiters) counts.
				w <- beatResult{beats: total - int64(len(e.waiters)-1-i), counted: true}
			}
		}
	}
}
