package strategies

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/metrics"
	"github.com/agent-trading/ats/models/pricefeed"
	"github.com/agent-trading/ats/models/store"
)

// Cond is a price condition a strategy waits for, as stored in the
// strategy row (JSON) and registered with the price feed.
type Cond struct {
	TokenID   string          `json:"tokenId"`
	Field     string          `json:"field"` // FieldBestBid or FieldBestAsk
	Op        string          `json:"op"`    // OpAtOrAbove or OpAtOrBelow
	Threshold decimal.Decimal `json:"threshold"`
}

// Fields and comparators of a Cond.
const (
	FieldBestBid = "best_bid"
	FieldBestAsk = "best_ask"
	OpAtOrAbove  = ">="
	OpAtOrBelow  = "<="
)

func (c Cond) feed() pricefeed.Condition {
	pc := pricefeed.Condition{TokenID: c.TokenID, Field: pricefeed.BestAsk, Op: pricefeed.AtOrBelow, Threshold: c.Threshold, Once: true}
	if c.Field == FieldBestBid {
		pc.Field = pricefeed.BestBid
	}
	if c.Op == OpAtOrAbove {
		pc.Op = pricefeed.AtOrAbove
	}
	return pc
}

// Feed is what Triggers needs of the price feed; *pricefeed.Feed
// implements it.
type Feed interface {
	When(c pricefeed.Condition, fn func(pricefeed.Fire)) (*pricefeed.Trigger, error)
	Quote(tokenID string) (pricefeed.Quote, bool)
}

// Triggers holds the price conditions of the strategies this process
// serves, registered with its one price feed: the feed evaluates them on
// every price event (binary search per token, nothing per strategy while
// idle) and on its polling fallback for tokens without a live stream. A
// met condition disarms all of its strategy's conditions and signals only
// that strategy's workflow (Signal); the workflow's execution re-checks
// the price and re-arms. At most one signal per strategy is in flight.
type Triggers struct {
	Feed Feed
	// Signal hints the strategy's workflow that a condition was met.
	Signal func(ctx context.Context, strategyID string) error
	Logger *slog.Logger
	// Workers bounds concurrent signals (default 8).
	Workers int

	mu    sync.Mutex
	armed map[string][]*pricefeed.Trigger
	// spec is the stored form (encodeConds) of the conditions last armed
	// per strategy, kept after they fire: an announced change that stores
	// the same conditions re-arms only where they are not armed.
	spec map[string]string
	// pending: a signal of the strategy is queued or in flight; again: a
	// condition was met once more meanwhile (see fired).
	pending map[string]signalState
	queue   chan fire
	once    sync.Once
}

func (t *Triggers) init() {
	t.once.Do(func() {
		t.armed = map[string][]*pricefeed.Trigger{}
		t.spec = map[string]string{}
		t.pending = map[string]signalState{}
		t.queue = make(chan fire, 1<<16)
		n := t.Workers
		if n <= 0 {
			n = 8
		}
		for range n {
			go t.signaller()
		}
	})
}

func (t *Triggers) log() *slog.Logger {
	if t.Logger != nil {
		return t.Logger
	}
	return slog.Default()
}

// Arm replaces strategyID's conditions with conds (none: disarm).
func (t *Triggers) Arm(strategyID string, conds []Cond) {
	t.init()
	t.mu.Lock()
	old := t.armed[strategyID]
	delete(t.armed, strategyID)
	if len(conds) == 0 {
		delete(t.spec, strategyID)
	} else {
		t.spec[strategyID] = encodeConds(conds)
	}
	t.mu.Unlock()
	for _, tr := range old {
		tr.Stop()
	}
	if len(conds) == 0 {
		return
	}
	var regs []*pricefeed.Trigger
	for _, c := range conds {
		tr, err := t.Feed.When(c.feed(), func(pricefeed.Fire) { t.fired(strategyID) })
		if err != nil {
			t.log().Error("strategy condition not registered", "strategy_id", strategyID, "err", err)
			continue
		}
		regs = append(regs, tr)
	}
	t.mu.Lock()
	prev := t.armed[strategyID]
	t.armed[strategyID] = regs
	t.mu.Unlock()
	for _, tr := range prev { // a concurrent Arm lost the race
		tr.Stop()
	}
	// The feed fires on price events; a condition met already when it is
	// armed (a quote the feed holds) fires now instead of at the next
	// event, which may never come on a quiet market.
	for _, c := range conds {
		if q, ok := t.Feed.Quote(c.TokenID); ok && q.Ready && metBy(c, q) {
			t.fired(strategyID)
			return
		}
	}
}

func metBy(c Cond, q pricefeed.Quote) bool {
	v := q.BestAsk
	if c.Field == FieldBestBid {
		v = q.BestBid
	}
	if !v.Valid {
		return false
	}
	if c.Op == OpAtOrAbove {
		return v.Decimal.GreaterThanOrEqual(c.Threshold)
	}
	return v.Decimal.LessThanOrEqual(c.Threshold)
}

// Armed reports how many strategies have conditions registered.
func (t *Triggers) Armed() int {
	t.init()
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.armed)
}

// IsArmed reports whether strategyID has conditions registered.
func (t *Triggers) IsArmed(strategyID string) bool {
	t.init()
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.armed[strategyID]) > 0
}

// fire is a met condition waiting to be signalled.
type fire struct {
	strategyID string
	at         time.Time
}

// signalState is where a strategy's signal stands (Triggers.pending).
type signalState uint8

const (
	// signalQueued: one signal is queued or in flight.
	signalQueued signalState = iota + 1
	// signalAgain: and a condition was met again since it was queued:
	// one more signal follows it.
	signalAgain
)

// fired runs on the feed's goroutine: it must be quick.
//
// A condition met while the strategy's signal is in flight is not
// dropped: the signal may have been delivered already (the RPC not yet
// returned), and the execution it started may have re-armed conditions
// that are met at once. Dropping that fire would leave the strategy
// disarmed here with nothing to re-arm it (no other change is coming), so
// one more signal follows the one in flight instead.
func (t *Triggers) fired(strategyID string) {
	t.mu.Lock()
	regs := t.armed[strategyID]
	delete(t.armed, strategyID)
	already := t.pending[strategyID] != 0
	if already {
		t.pending[strategyID] = signalAgain
	} else {
		t.pending[strategyID] = signalQueued
	}
	t.mu.Unlock()
	for _, tr := range regs {
		tr.Stop()
	}
	if !already {
		t.enqueue(strategyID, time.Now())
	}
}

// enqueue queues a signal of strategyID (pending already says so).
func (t *Triggers) enqueue(strategyID string, at time.Time) {
	select {
	case t.queue <- fire{strategyID, at}:
	default:
		t.mu.Lock()
		delete(t.pending, strategyID)
		t.mu.Unlock()
		t.log().Error("strategy signal queue full: the hint is dropped", "strategy_id", strategyID)
	}
}

func (t *Triggers) signaller() {
	for f := range t.queue {
		id := f.strategyID
		var err error
		for attempt := range 5 {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err = t.Signal(ctx, id)
			cancel()
			if err == nil {
				break
			}
			time.Sleep(time.Duration(200*(attempt+1)) * time.Millisecond)
		}
		if err != nil {
			t.log().Warn("strategy signal failed", "strategy_id", id, "err", err)
		} else {
			metrics.TriggerLatency(time.Since(f.at))
		}
		t.mu.Lock()
		again := t.pending[id] == signalAgain
		if again {
			t.pending[id] = signalQueued
		} else {
			delete(t.pending, id)
		}
		t.mu.Unlock()
		if again {
			t.enqueue(id, time.Now())
		}
	}
}

// Sync brings this process's conditions in line with the database: every
// ACTIVE strategy with stored conditions that is not armed here as stored
// (and has no signal in flight) is armed, and strategies armed here that
// are no longer ACTIVE are disarmed. Follow runs it whenever it may have
// missed announcements (when it starts listening, and after the listening
// failed), never on a timer: each worker then holds every strategy's
// conditions and a met condition is signalled by each, which is harmless
// (a signal is only a hint; the execution re-checks the price and is
// idempotent per number).
func (t *Triggers) Sync(ctx context.Context, s *store.Store) (armed, disarmed int, _ error) {
	t.init()
	t.mu.Lock()
	before := make(map[string]bool, len(t.armed))
	for id := range t.armed {
		before[id] = true
	}
	t.mu.Unlock()
	active := map[string]bool{}
	after := ""
	for {
		page, err := s.ArmedStrategies(ctx, StatusActive, after, 1000)
		if err != nil {
			return armed, disarmed, err
		}
		for _, st := range page {
			active[st.ID] = true
			t.mu.Lock()
			skip := len(t.armed[st.ID]) > 0 && t.spec[st.ID] == st.Triggers || t.pending[st.ID] != 0
			t.mu.Unlock()
			if skip {
				continue
			}
			var conds []Cond
			if err := json.Unmarshal([]byte(st.Triggers), &conds); err != nil {
				t.log().Error("stored strategy conditions are unreadable", "strategy_id", st.ID, "err", err)
				continue
			}
			t.Arm(st.ID, conds)
			armed++
		}
		if len(page) < 1000 {
			break
		}
		after = page[len(page)-1].ID
	}
	for id := range before {
		if !active[id] {
			t.Arm(id, nil)
			disarmed++
		}
	}
	return armed, disarmed, nil
}

// Rebuild registers the stored conditions of every ACTIVE strategy: the
// worker runs it at start, so conditions survive a restart of the process
// that held them.
func (t *Triggers) Rebuild(ctx context.Context, s *store.Store) (int, error) {
	n, after := 0, ""
	for {
		page, err := s.ArmedStrategies(ctx, StatusActive, after, 1000)
		if err != nil {
			return n, err
		}
		for _, st := range page {
			var conds []Cond
			if err := json.Unmarshal([]byte(st.Triggers), &conds); err != nil {
				t.log().Error("stored strategy conditions are unreadable", "strategy_id", st.ID, "err", err)
				continue
			}
			t.Arm(st.ID, conds)
			n++
		}
		if len(page) < 1000 {
			return n, nil
		}
		after = page[len(page)-1].ID
	}
}

// Refresh arms strategyID here as the database stores it now: its stored
// conditions while ACTIVE, none otherwise (or when it no longer exists).
// Conditions armed here exactly as stored are left alone, so announcing a
// change to the worker that made it (and armed it already) costs one read.
func (t *Triggers) Refresh(ctx context.Context, s *store.Store, strategyID string) error {
	t.init()
	want := ""
	st, err := s.StrategyByID(ctx, strategyID)
	switch {
	case errs.Is(err, errs.NotFound):
	case err != nil:
		return err
	case st.Status == StatusActive:
		want = st.Triggers
	}
	t.mu.Lock()
	same := t.spec[strategyID] == want && (want == "" || len(t.armed[strategyID]) > 0)
	t.mu.Unlock()
	if same {
		return nil
	}
	var conds []Cond
	if want != "" {
		if err := json.Unmarshal([]byte(want), &conds); err != nil {
			t.log().Error("stored strategy conditions are unreadable", "strategy_id", strategyID, "err", err)
			return nil
		}
	}
	t.Arm(strategyID, conds)
	return nil
}

// followBuffer bounds the announced strategies waiting to be re-read; past
// it the announcements are dropped and one Sync catches up.
const followBuffer = 4096

// Follow keeps this process's conditions in line with the database by
// events until ctx ends: a strategy created, changed (status, conditions,
// an execution) or deleted anywhere is announced to every worker, which
// re-reads that one strategy (Refresh). With PostgreSQL the database
// announces it to every process (store.ChangeStrategy on ats_changes,
// migration 00021); with SQLite, one process, the store's own after-commit
// changes do. Nothing is scanned periodically: Sync runs once when the
// listening starts (whatever committed before is armed) and again only
// after announcements may have been missed (a failed connection, an
// overflow). ready, when set, is called once the first Sync is done.
// Follow returns once ctx ended and its work stopped.
func (t *Triggers) Follow(ctx context.Context, s *store.Store, ready func()) {
	t.init()
	ids := make(chan string, followBuffer)
	var lost atomic.Bool
	announce := func(id string) {
		select {
		case ids <- id:
		default:
			lost.Store(true)
		}
	}
	resync := make(chan struct{}, 1)
	var once sync.Once
	var wg sync.WaitGroup
	defer wg.Wait() // nothing of it runs once Follow returns
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case <-resync:
				lost.Store(false)
				if armed, disarmed, err := t.Sync(ctx, s); err != nil && ctx.Err() == nil {
					t.log().Warn("syncing strategy triggers failed; trying again", "err", err)
					lost.Store(true)
					select {
					case <-ctx.Done():
						return
					case <-time.After(time.Second):
					}
				} else if armed+disarmed > 0 {
					t.log().Info("strategy triggers synced", "armed", armed, "disarmed", disarmed)
				}
				if ready != nil {
					once.Do(ready)
				}
			case id := <-ids:
				if err := t.Refresh(ctx, s, id); err != nil && ctx.Err() == nil {
					t.log().Warn("re-reading an announced strategy failed", "strategy_id", id, "err", err)
					lost.Store(true)
				}
			}
			if lost.Load() {
				select {
				case resync <- struct{}{}:
				default:
				}
			}
		}
	}()
	catchUp := func() {
		select {
		case resync <- struct{}{}:
		default:
		}
	}
	if !s.CanListenChanges() {
		s.OnChange(func(c store.Change) {
			if c.Topic == store.TopicStrategies && c.StrategyID != "" && ctx.Err() == nil {
				announce(c.StrategyID)
			}
		})
		catchUp()
		<-ctx.Done()
		return
	}
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := s.ListenChanges(ctx, func() {
			catchUp() // whatever committed while nobody listened
			backoff = 100 * time.Millisecond
		}, func(kind, id string) {
			if kind == store.ChangeStrategy {
				announce(id)
			}
		})
		if ctx.Err() != nil {
			return
		}
		t.log().Warn("strategy triggers: listening for database changes failed; listening again", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}
