package chain

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"math/big"
	"slices"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/agent-trading/ats/venue"
)

// WatermarkStore persists the last block whose fills were all delivered.
// models/store.FillWatermarks is the database-backed implementation that
// survives restarts; MemoryWatermarks does not.
type WatermarkStore interface {
	// Load returns the saved block for key, or 0 with no error when none.
	Load(ctx context.Context, key string) (uint64, error)
	// Save records that every fill up to and including block was delivered.
	Save(ctx context.Context, key string, block uint64) error
}

// MemoryWatermarks is an in-process WatermarkStore (tests, the demo).
type MemoryWatermarks struct {
	mu sync.Mutex
	m  map[string]uint64
}

// Load implements WatermarkStore.
func (s *MemoryWatermarks) Load(_ context.Context, key string) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[key], nil
}

// Save implements WatermarkStore.
func (s *MemoryWatermarks) Save(_ context.Context, key string, block uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[string]uint64)
	}
	s.m[key] = block
	return nil
}

// WatchBackend is what the watcher needs from a node connection.
type WatchBackend interface {
	ethereum.LogFilterer
	ethereum.BlockNumberReader
}

// DialFunc opens a node connection for the watcher; close releases it. It is
// called at start and again after every disconnect.
type DialFunc func(ctx context.Context) (b WatchBackend, close func(), err error)

// DialURL dials a node by URL; a ws:// URL gives push notifications, an
// http:// one makes the watcher poll.
func DialURL(url string) DialFunc {
	return func(ctx context.Context) (WatchBackend, func(), error) {
		c, err := ethclient.DialContext(ctx, url)
		if err != nil {
			return nil, nil, err
		}
		return c, c.Close, nil
	}
}

// Static always hands out the same connection (an in-process client that
// cannot drop); it is never closed by the watcher.
func Static(b WatchBackend) DialFunc {
	return func(context.Context) (WatchBackend, func(), error) { return b, func() {}, nil }
}

// WatcherConfig configures a Watcher. Dial, Exchanges, Store, Key and Deliver
// are required.
type WatcherConfig struct {
	Dial DialFunc
	// Exchanges are the contracts whose OrderFilled logs are watched
	// (normally the network's Exchange and NegRiskExchange).
	Exchanges []common.Address
	// Makers are the funder addresses whose fills are wanted.
	Makers []common.Address
	Store  WatermarkStore
	// Key names this watcher's watermark in Store.
	Key string
	// StartBlock is where to begin when Store has no watermark; 0 means the
	// block that is current when the watcher starts.
	StartBlock uint64
	// Confirmations is how many blocks a log must be buried under before it
	// is delivered (0 for the sandbox, some tens for Polygon).
	Confirmations uint64
	// ChunkSize bounds the block range of one FilterLogs call (default 2000).
	ChunkSize uint64
	// PollInterval is the fallback poll period when there is no push
	// subscription, and the heartbeat that advances the watermark without
	// fills (default 2s).
	PollInterval time.Duration
	// MinBackoff and MaxBackoff bound the reconnect delay (default 100ms and 30s).
	MinBackoff, MaxBackoff time.Duration
	// SeenCapacity bounds the recently-delivered set (default 8192).
	SeenCapacity int
	// Deliver receives fills in chain order. An error stops the current
	// pass: the fill is retried on the next one, and fills already delivered
	// in that pass are not delivered again.
	Deliver func(ctx context.Context, f Fill) error
	// Queries, when set, replaces the OrderFilled-by-maker filter: the
	// watcher subscribes to, and fetches, the logs every query matches (its
	// block range is the watcher's). TargetQueries is the copy-trade one.
	Queries func(makers []common.Address) []ethereum.FilterQuery
	// DeliverLog, when set, receives every matching log (in chain order,
	// under Deliver's rules) instead of Deliver.
	DeliverLog func(ctx context.Context, l types.Log) error
	Logger     *slog.Logger
}

// Watcher streams the OrderFilled logs of a set of makers.
//
// It subscribes to the logs over the connection (a WebSocket in production)
// and treats every notification as a cue to fetch, with FilterLogs, the whole
// block range from the watermark to the confirmed head; a periodic poll
// covers nodes without subscriptions and lost notifications. After a
// disconnect it redials with exponential backoff and the first fetch
// backfills the gap.
//
// Guarantee: within one Watcher's lifetime every matching log in a confirmed
// block is delivered exactly once, in (block, log index) order — ranges never
// overlap, and a (tx hash, log index) set of recent deliveries absorbs the
// retry of a partly delivered range. Across restarts delivery is
// at-least-once: the watermark is saved only after its range was delivered,
// so a crash in between re-delivers that range; consumers keep
// (TxHash, LogIndex) unique. With Confirmations smaller than a reorg's
// depth, a fill from an orphaned block may have been delivered.
type Watcher struct {
	cfg WatcherConfig
	log *slog.Logger

	mu      sync.Mutex
	makers  []common.Address
	changed chan struct{}
	wm      uint64
	seen    *seenSet
}

// NewWatcher validates cfg and builds a Watcher; Run starts it.
func NewWatcher(cfg WatcherConfig) (*Watcher, error) {
	if cfg.Dial == nil || cfg.Store == nil || (cfg.Deliver == nil && cfg.DeliverLog == nil) || cfg.Key == "" || len(cfg.Exchanges) == 0 {
		return nil, venue.E(venue.Internal, "watcher: Dial, Exchanges, Store, Key and Deliver are required")
	}
	if cfg.ChunkSize == 0 {
		cfg.ChunkSize = 2000
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 2 * time.Second
	}
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = 100 * time.Millisecond
	}
	if cfg.MaxBackoff < cfg.MinBackoff {
		cfg.MaxBackoff = 30 * time.Second
	}
	if cfg.SeenCapacity <= 0 {
		cfg.SeenCapacity = 8192
	}
	lg := cfg.Logger
	if lg == nil {
		lg = slog.Default()
	}
	return &Watcher{
		cfg:     cfg,
		log:     lg.With("component", "fill_watcher", "key", cfg.Key),
		makers:  slices.Clone(cfg.Makers),
		changed: make(chan struct{}, 1),
		seen:    newSeenSet(cfg.SeenCapacity),
	}, nil
}

// SetMakers replaces the watched makers. Fills of a new maker are delivered
// from the current watermark on, not from its history.
func (w *Watcher) SetMakers(makers []common.Address) {
	w.mu.Lock()
	w.makers = slices.Clone(makers)
	w.mu.Unlock()
	select {
	case w.changed <- struct{}{}:
	default:
	}
}

// Watermark is the last block whose fills were all delivered.
func (w *Watcher) Watermark() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.wm
}

func (w *Watcher) snapshotMakers() []common.Address {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.makers)
}

// errMakersChanged ends a session so the next one subscribes with the new set.
var errMakersChanged = errors.New("watched makers changed")

// Run watches until ctx ends; it returns ctx's error, or an error from the
// watermark store at start.
func (w *Watcher) Run(ctx context.Context) error {
	wm, err := w.cfg.Store.Load(ctx, w.cfg.Key)
	if err != nil {
		return venue.Wrap(venue.Unavailable, err, "load the fill watermark")
	}
	started := wm != 0 || w.cfg.StartBlock != 0
	if wm == 0 && w.cfg.StartBlock != 0 {
		wm = w.cfg.StartBlock - 1
	}
	w.mu.Lock()
	w.wm = wm
	w.mu.Unlock()

	// Reconnects wait twice as long each time, up to MaxBackoff; a session
	// that lasted longer than that starts the doubling again.
	reconnect := &backoff.ExponentialBackOff{InitialInterval: w.cfg.MinBackoff, Multiplier: 2, MaxInterval: w.cfg.MaxBackoff}
	reconnect.Reset()
	for {
		be, closeFn, err := w.cfg.Dial(ctx)
		if err == nil {
			if !started {
				// No history wanted: begin at the current confirmed head.
				var head uint64
				if head, err = be.BlockNumber(ctx); err == nil {
					w.setWatermark(sub0(head, w.cfg.Confirmations))
					started = true
				}
			}
			if err == nil {
				begun := time.Now()
				err = w.session(ctx, be)
				if time.Since(begun) > w.cfg.MaxBackoff {
					reconnect.Reset()
				}
			}
			closeFn()
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, errMakersChanged) {
			continue
		}
		wait := reconnect.NextBackOff()
		w.log.Warn("fill watcher disconnected; reconnecting", "err", err, "backoff", wait)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

func sub0(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}

func (w *Watcher) setWatermark(b uint64) {
	w.mu.Lock()
	w.wm = b
	w.mu.Unlock()
}

func makerTopics(makers []common.Address) []common.Hash {
	out := make([]common.Hash, len(makers))
	for i, m := range makers {
		out[i] = common.BytesToHash(m.Bytes())
	}
	return out
}

// queries are the log filters of makers (no block range).
func (w *Watcher) queries(makers []common.Address) []ethereum.FilterQuery {
	if len(makers) == 0 {
		return nil
	}
	if w.cfg.Queries != nil {
		return w.cfg.Queries(makers)
	}
	return []ethereum.FilterQuery{{
		Addresses: w.cfg.Exchanges,
		Topics:    [][]common.Hash{{OrderFilledTopic}, nil, makerTopics(makers)},
	}}
}

// session runs one connection: subscribe, backfill, then fetch on every
// notification or poll tick until the subscription fails.
func (w *Watcher) session(ctx context.Context, be WatchBackend) error {
	makers := w.snapshotMakers()
	qs := w.queries(makers)
	// Every subscription reports its end here (nil when it just closed);
	// the buffer lets the reporters finish after the session returned.
	subErr := make(chan error, len(qs))
	notify := make(chan types.Log, 256)
	for _, q := range qs {
		sub, err := be.SubscribeFilterLogs(ctx, q, notify)
		switch {
		case err == nil:
			defer sub.Unsubscribe()
			go func() { subErr <- <-sub.Err() }()
		case errors.Is(err, rpc.ErrNotificationsUnsupported):
			// HTTP node: polling alone.
		default:
			return err
		}
	}
	if err := w.poll(ctx, be); err != nil {
		return err
	}
	tick := time.NewTicker(w.cfg.PollInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-subErr:
			if err == nil {
				err = errors.New("subscription closed")
			}
			return err
		case <-w.changed:
			return errMakersChanged
		case <-notify:
			// Several logs usually arrive together; one fetch covers them.
			for len(notify) > 0 {
				<-notify
			}
		case <-tick.C:
		}
		if err := w.poll(ctx, be); err != nil {
			return err
		}
	}
}

// poll delivers every fill from the watermark to the confirmed head as it is
// at the start of the poll, chunk by chunk, saving the watermark after each
// chunk was delivered. It filters on the current makers, so SetMakers takes
// effect at once even before the subscription is renewed.
func (w *Watcher) poll(ctx context.Context, be WatchBackend) error {
	makers := w.snapshotMakers()
	head, err := be.BlockNumber(ctx)
	if err != nil {
		return err
	}
	target := sub0(head, w.cfg.Confirmations)
	from := w.Watermark() + 1
	if target < from {
		return nil
	}
	queries := w.queries(makers)
	for from <= target {
		to := min(from+w.cfg.ChunkSize-1, target)
		if len(queries) > 0 {
			var logs []types.Log
			for _, q := range queries {
				q.FromBlock, q.ToBlock = new(big.Int).SetUint64(from), new(big.Int).SetUint64(to)
				ls, err := be.FilterLogs(ctx, q)
				if err != nil {
					return err
				}
				logs = append(logs, ls...)
			}
			slices.SortFunc(logs, func(a, b types.Log) int {
				if c := cmp.Compare(a.BlockNumber, b.BlockNumber); c != 0 {
					return c
				}
				return cmp.Compare(a.Index, b.Index)
			})
			for _, l := range logs {
				if err := w.deliver(ctx, l); err != nil {
					return err
				}
			}
		}
		w.setWatermark(to)
		if err := w.cfg.Store.Save(ctx, w.cfg.Key, to); err != nil {
			// Delivery happened; a lost save only means re-delivery after
			// a restart, which the guarantee allows.
			w.log.Error("save fill watermark", "block", to, "err", err)
		}
		from = to + 1
	}
	return nil
}

func (w *Watcher) deliver(ctx context.Context, l types.Log) error {
	if l.Removed {
		return nil
	}
	key := FillKey{TxHash: l.TxHash, LogIndex: l.Index}
	if w.seen.has(key) {
		return nil
	}
	if w.cfg.DeliverLog != nil {
		if err := w.cfg.DeliverLog(ctx, l); err != nil {
			return err
		}
		w.seen.add(key)
		return nil
	}
	f, err := DecodeFill(l)
	if err != nil {
		// A log that matches the topics but not the layout cannot become
		// decodable later; skip it rather than stall the stream.
		w.log.Error("skip undecodable OrderFilled", "tx", l.TxHash.Hex(), "index", l.Index, "err", err)
		w.seen.add(key)
		return nil
	}
	if err := w.cfg.Deliver(ctx, f); err != nil {
		return err
	}
	w.seen.add(key)
	return nil
}

// seenSet is a bounded FIFO set of recently delivered log keys.
type seenSet struct {
	mu   sync.Mutex
	m    map[FillKey]struct{}
	ring []FillKey
	next int
}

func newSeenSet(n int) *seenSet {
	return &seenSet{m: make(map[FillKey]struct{}, n), ring: make([]FillKey, 0, n)}
}

func (s *seenSet) has(k FillKey) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.m[k]
	return ok
}

func (s *seenSet) add(k FillKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[k]; ok {
		return
	}
	if len(s.ring) < cap(s.ring) {
		s.ring = append(s.ring, k)
	} else {
		delete(s.m, s.ring[s.next])
		s.ring[s.next] = k
		s.next = (s.next + 1) % len(s.ring)
	}
	s.m[k] = struct{}{}
}
