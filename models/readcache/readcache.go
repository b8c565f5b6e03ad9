// Package readcache serves the agent API's hottest reads — the API key and
// its agent on every request, and the per-agent data of GET /budget and
// GET /heartbeat (the budget reservations' totals, positions, live-order
// and active-strategy counts) — from memory, and drops an entry as soon
// as the database says it changed.
//
// The database says so itself: on PostgreSQL a trigger on each table
// notifies the channel store.ChangesChannel when a change commits
// (migration 00018), whoever made it — this API instance, another one, a
// worker, `ats admin`, an operator's UPDATE — and every instance listens
// (store.ListenChanges). A revoked key or a paused agent is therefore
// refused by every instance within the notification's delivery, a few
// milliseconds. Two bounds hold when the feed is in doubt:
//
//   - while the listening connection is down (not yet up, failed,
//     reconnecting), entries live at most FallbackTTL (1 s): the database
//     is read at least once a second per key and agent, so a change is
//     seen within a second even without its notification; when the feed
//     comes back everything cached is dropped, since what changed
//     meanwhile was never announced;
//   - while it is up, entries live at most TTL (5 min), in case a
//     notification was lost in a way the connection's checks missed.
//
// A read racing a change never caches the value from before it: a fill
// that started before an invalidation of its entry is not stored.
//
// Only reads that decide nothing go through here: the key check (a
// refusal is never served from memory stale by more than the bounds above)
// and the read endpoints. Placements, budget reservations and every write
// path read the database in their transactions, as before. On SQLite
// (one process, `ats dev`) Reads reads straight through.
package readcache

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/store"
)

// Defaults of Options.
const (
	DefaultTTL         = 5 * time.Minute
	DefaultFallbackTTL = time.Second
	// DefaultMaxEntries bounds the memory: about 1 KB an entry.
	DefaultMaxEntries = 200_000
)

// Options configure New; zero values take the defaults.
type Options struct {
	TTL, FallbackTTL time.Duration
	MaxEntries       int
	Logger           *slog.Logger
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Reads reads through the cache. Safe for concurrent use; the zero value is
// not usable, call New.
type Reads struct {
	store *store.Store
	o     Options

	mu sync.Mutex
	// live is set while the change feed listens.
	live bool
	// seq counts invalidations; a fill remembers it when it starts and is
	// not stored if its entry (or everything) was invalidated since.
	seq      uint64
	flushSeq uint64
	dropped  map[string]uint64 // invalidation key → seq of its last change
	entries  map[string]*entry // cache key → entry
	// byInval lists the cache keys each invalidation key drops.
	byInval map[string][]string
	// keys finds a cached API key's entry by the key's id (TouchAPIKey).
	keys map[string]string
}

type entry struct {
	value   any
	expires time.Time
	inval   string
}

// New returns reads through s. Run the change feed with Run; until it
// listens, entries live FallbackTTL.
func New(s *store.Store, o Options) *Reads {
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.FallbackTTL <= 0 {
		o.FallbackTTL = DefaultFallbackTTL
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Reads{store: s, o: o, dropped: map[string]uint64{}, entries: map[string]*entry{}, byInval: map[string][]string{},
		keys: map[string]string{}}
}

// Caching reports whether reads are cached at all (PostgreSQL).
func (r *Reads) Caching() bool { return r.store.CanListenChanges() }

// Run listens to the database's changes until ctx ends, reconnecting
// after a failure (while down, entries live FallbackTTL). It returns at
// once on SQLite, where nothing is cached.
func (r *Reads) Run(ctx context.Context) {
	if !r.Caching() {
		return
	}
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := r.store.ListenChanges(ctx, func() {
			// Whatever changed while nobody listened was not announced.
			r.flush(true)
			backoff = 100 * time.Millisecond
		}, r.invalidate)
		r.flush(false)
		if ctx.Err() != nil {
			return
		}
		r.o.Logger.Warn("read cache: listening for database changes failed; caching for at most "+r.o.FallbackTTL.String()+" until it is back",
			"error", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// Live reports whether the change feed is listening.
func (r *Reads) Live() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.live
}

// flush drops every entry and sets whether the feed is live.
func (r *Reads) flush(live bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.live = live
	r.seq++
	r.flushSeq = r.seq
	r.clear()
}

// clear drops every entry; r.mu is held.
func (r *Reads) clear() {
	clear(r.entries)
	clear(r.byInval)
	clear(r.dropped)
	clear(r.keys)
}

// invalidate drops the entries of one change (kind, id).
func (r *Reads) invalidate(kind, id string) {
	k := kind + ":" + id
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	r.dropped[k] = r.seq
	for _, ck := range r.byInval[k] {
		delete(r.entries, ck)
	}
	delete(r.byInval, k)
}

// current is the invalidation count now, for a read about to start.
func (r *Reads) current() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seq
}

// get returns the cached value of key, if fresh.
func (r *Reads) get(key string) (any, bool, uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.entries[key]
	if ok && r.o.Now().Before(e.expires) {
		return e.value, true, r.seq
	}
	return nil, false, r.seq
}

// put caches v under key (dropped with inval), unless inval changed (or
// everything was dropped) since the read began at seq.
func (r *Reads) put(key, inval string, v any, seq uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.flushSeq > seq || r.dropped[inval] > seq {
		return
	}
	if len(r.entries) >= r.o.MaxEntries {
		// Full: start over rather than track recency on every read.
		r.seq++
		r.flushSeq = r.seq
		r.clear()
		return
	}
	ttl := r.o.FallbackTTL
	if r.live {
		ttl = r.o.TTL
	}
	if _, had := r.entries[key]; !had {
		r.byInval[inval] = append(r.byInval[inval], key)
	}
	r.entries[key] = &entry{value: v, expires: r.o.Now().Add(ttl), inval: inval}
}

// read is the read-through: the cached value of key, else load's, cached
// unless the store is SQLite.
func read[T any](r *Reads, key, inval string, load func() (T, error)) (T, error) {
	if !r.Caching() {
		return load()
	}
	v, ok, seq := r.get(key)
	if ok {
		return v.(T), nil
	}
	t, err := load()
	if err != nil {
		return t, err
	}
	r.put(key, inval, t, seq)
	return t, nil
}

// keyAndAgent is one cached API key with its agent.
type keyAndAgent struct {
	key   models.APIKey
	agent models.Agent
}

// AgentKeyByHash is store.AgentKeyByHash through the cache (the key check
// of every agent request: api/agentauth). Unknown hashes are not cached.
// The caller gets copies it may keep.
func (r *Reads) AgentKeyByHash(ctx context.Context, hash string) (*models.APIKey, *models.Agent, error) {
	if !r.Caching() {
		return r.store.AgentKeyByHash(ctx, hash)
	}
	ck := "key:" + hash
	if v, ok, _ := r.get(ck); ok {
		ka := v.(keyAndAgent)
		return &ka.key, &ka.agent, nil
	}
	// The agent is unknown until the key is read: remember where the
	// invalidations stood before the read and check that agent's after.
	seq := r.current()
	k, a, err := r.store.AgentKeyByHash(ctx, hash)
	if err != nil {
		return nil, nil, err
	}
	r.put(ck, store.ChangeAgent+":"+a.ID, keyAndAgent{key: *k, agent: *a}, seq)
	r.mu.Lock()
	if _, ok := r.entries[ck]; ok {
		r.keys[k.ID] = ck
	}
	r.mu.Unlock()
	return k, a, nil
}

// TouchAPIKey is store.TouchAPIKey; the cached key remembers the time, so
// the next touch comes a minute later, not at every request.
func (r *Reads) TouchAPIKey(ctx context.Context, id string, now time.Time) error {
	if err := r.store.TouchAPIKey(ctx, id, now); err != nil {
		return err
	}
	if !r.Caching() {
		return nil
	}
	t := now.UTC()
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.entries[r.keys[id]]; ok {
		if ka, ok := e.value.(keyAndAgent); ok && ka.key.ID == id {
			ka.key.LastUsedAt = &t
			e.value = ka
		}
	}
	return nil
}

// AgentByID is store.AgentByID through the cache.
func (r *Reads) AgentByID(ctx context.Context, id string) (*models.Agent, error) {
	a, err := read(r, "agent:"+id, store.ChangeAgent+":"+id, func() (models.Agent, error) {
		a, err := r.store.AgentByID(ctx, id)
		if err != nil {
			return models.Agent{}, err
		}
		return *a, nil
	})
	if err != nil {
		return nil, err
	}
	return &a, nil
}

// BudgetTotals is store.BudgetTotals through the cache (dropped with any
// reservation of the user).
func (r *Reads) BudgetTotals(ctx context.Context, userID, agentID string) (store.BudgetTotals, error) {
	return read(r, "totals:"+userID+":"+agentID, store.ChangeBudget+":"+userID, func() (store.BudgetTotals, error) {
		return r.store.BudgetTotals(ctx, userID, agentID)
	})
}

// ListPositions is store.ListPositions through the cache (dropped with any
// change of the agent's positions). The slice is the caller's.
func (r *Reads) ListPositions(ctx context.Context, agentID string, statuses ...string) ([]models.Position, error) {
	sorted := slices.Clone(statuses)
	slices.Sort(sorted)
	ps, err := read(r, "positions:"+agentID+":"+strings.Join(sorted, ","), store.ChangePositions+":"+agentID,
		func() ([]models.Position, error) { return r.store.ListPositions(ctx, agentID, statuses...) })
	return slices.Clone(ps), err
}

// CountOrders is store.CountOrders through the cache for the one count
// the heartbeat asks (an agent's orders in some statuses); other filters
// read through.
func (r *Reads) CountOrders(ctx context.Context, f store.OrderFilter) (int64, error) {
	if f.AgentID == "" || f.TokenID != "" || f.StrategyID != "" {
		return r.store.CountOrders(ctx, f)
	}
	sorted := slices.Clone(f.Statuses)
	slices.Sort(sorted)
	return read(r, "orders:"+f.AgentID+":"+strings.Join(sorted, ","), store.ChangeOrders+":"+f.AgentID,
		func() (int64, error) { return r.store.CountOrders(ctx, f) })
}

// CountStrategies is store.CountStrategies through the cache.
func (r *Reads) CountStrategies(ctx context.Context, agentID string, statuses ...string) (int64, error) {
	sorted := slices.Clone(statuses)
	slices.Sort(sorted)
	return read(r, "strategies:"+agentID+":"+strings.Join(sorted, ","), store.ChangeStrategies+":"+agentID,
		func() (int64, error) { return r.store.CountStrategies(ctx, agentID, statuses...) })
}
