package ws

import (
	"context"
	"encoding/json"
	"sort"
	"sync"

	"github.com/agent-trading/ats/venue/clob"
)

// Channel paths under the WebSocket base.
const (
	MarketPath = "/ws/market"
	UserPath   = "/ws/user"
)

// Auth is the user channel's credentials: the raw L2 API key, secret and
// passphrase (nothing is signed on the socket).
type Auth struct {
	APIKey     string `json:"apiKey"`
	Secret     string `json:"secret"`
	Passphrase string `json:"passphrase"`
}

// Subscription is a client frame of either channel: the initial
// subscription (Type "market" or "user") or a dynamic update (Operation
// "subscribe" or "unsubscribe"). The sandbox decodes the same struct.
type Subscription struct {
	Auth      *Auth    `json:"auth,omitempty"`
	Type      string   `json:"type,omitempty"`
	Operation string   `json:"operation,omitempty"`
	AssetsIDs []string `json:"assets_ids"`
	// Markets are condition ids (user channel); empty means all markets.
	Markets              []string `json:"markets,omitempty"`
	InitialDump          *bool    `json:"initial_dump,omitempty"`
	Level                int      `json:"level,omitempty"`
	CustomFeatureEnabled bool     `json:"custom_feature_enabled,omitempty"`
}

// Subscription operations.
const (
	OpSubscribe   = "subscribe"
	OpUnsubscribe = "unsubscribe"
)

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // plain strings, bools and ints cannot fail
	}
	return b
}

// BookSource serves the market channel's REST backfill; *clob.Client
// implements it.
type BookSource interface {
	OrderBooks(ctx context.Context, params []clob.BookParams) ([]clob.OrderBook, error)
	OrderBook(ctx context.Context, tokenID string) (*clob.OrderBook, error)
}

// MarketConfig configures a MarketStream.
type MarketConfig struct {
	Options
	// Assets are the token ids subscribed from the start.
	Assets []string
	// CustomFeatures asks for best_bid_ask, new_market and market_resolved.
	CustomFeatures bool
	// Books serves the backfill after a reconnect; nil leaves the resync to
	// the venue's initial dump alone.
	Books BookSource
}

// MarketStream is a client of the public market channel: books, price
// changes, last trades and tick-size changes of the subscribed tokens.
//
// Lifecycle: NewMarketStream, then Run (blocking; it reconnects until ctx
// ends or Close is called) with Events read by the consumer until it is
// closed. Subscribe and Unsubscribe may be called at any time from any
// goroutine; they take effect on the open socket at once and are replayed
// on every reconnect.
type MarketStream struct {
	s *stream
	c *marketChannel
}

// NewMarketStream returns an unstarted stream.
func NewMarketStream(cfg MarketConfig) *MarketStream {
	c := &marketChannel{assets: map[string]bool{}, custom: cfg.CustomFeatures, books: cfg.Books}
	for _, a := range cfg.Assets {
		c.assets[a] = true
	}
	s := newStream(cfg.Options, c)
	c.maxIDs, c.log = s.opt.MaxIDsPerFrame, s.opt.Logger
	c.snap = func() []string {
		s.mu.Lock()
		defer s.mu.Unlock()
		return c.list()
	}
	return &MarketStream{s: s, c: c}
}

// Run connects and keeps the stream up until ctx ends (returning ctx's
// error) or Close is called (returning ErrClosed). Events is closed when
// Run returns. Call it once. While no asset is subscribed it waits without
// a socket.
func (m *MarketStream) Run(ctx context.Context) error { return m.s.run(ctx) }

// Close stops the stream and waits for Run to return.
func (m *MarketStream) Close() error { return m.s.close() }

// Events delivers the typed events (see Options.Buffer for the overflow
// policy). After a reconnect the backfill's BookEvents (Backfill set) come
// first, one per subscribed asset.
func (m *MarketStream) Events() <-chan Event { return m.s.events }

// Stats returns the stream's counters.
func (m *MarketStream) Stats() Stats { return m.s.stats() }

// Subscribe adds tokens; the venue answers each new one with a book.
func (m *MarketStream) Subscribe(assetIDs ...string) {
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	if added := m.c.update(assetIDs, true); len(added) > 0 {
		m.s.sendLocked(m.c.frames(OpSubscribe, added))
		m.s.poke()
	}
}

// Unsubscribe removes tokens.
func (m *MarketStream) Unsubscribe(assetIDs ...string) {
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	if removed := m.c.update(assetIDs, false); len(removed) > 0 {
		m.s.sendLocked(m.c.frames(OpUnsubscribe, removed))
	}
}

// Assets lists the subscribed tokens, sorted.
func (m *MarketStream) Assets() []string {
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	return m.c.list()
}

type marketChannel struct {
	// assets is guarded by the stream's mu.
	assets map[string]bool
	custom bool
	books  BookSource
	maxIDs int
	log    interface {
		Warn(msg string, args ...any)
	}
	// snap lists the assets under the stream's lock (sync runs outside it).
	snap   func() []string
	syncMu sync.Mutex
}

func (c *marketChannel) path() string { return MarketPath }

func (c *marketChannel) list() []string {
	out := make([]string, 0, len(c.assets))
	for a := range c.assets {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// update adds or removes ids and returns those that changed the set.
func (c *marketChannel) update(ids []string, add bool) []string {
	var changed []string
	for _, id := range ids {
		if id == "" || c.assets[id] == add {
			continue
		}
		if add {
			c.assets[id] = true
		} else {
			delete(c.assets, id)
		}
		changed = append(changed, id)
	}
	return changed
}

func (c *marketChannel) frames(op string, ids []string) [][]byte {
	var out [][]byte
	for _, part := range chunk(ids, c.maxIDs) {
		f := Subscription{Operation: op, AssetsIDs: part, CustomFeatureEnabled: c.custom && op == OpSubscribe}
		out = append(out, mustJSON(f))
	}
	return out
}

func (c *marketChannel) initialFrames() [][]byte {
	ids := c.list()
	dump := true
	first := Subscription{Type: "market", AssetsIDs: []string{}, InitialDump: &dump, CustomFeatureEnabled: c.custom}
	parts := chunk(ids, c.maxIDs)
	if len(parts) > 0 {
		first.AssetsIDs = parts[0]
	}
	out := [][]byte{mustJSON(first)}
	for _, p := range parts[min(1, len(parts)):] {
		out = append(out, mustJSON(Subscription{Operation: OpSubscribe, AssetsIDs: p, CustomFeatureEnabled: c.custom}))
	}
	return out
}

func (c *marketChannel) accept(Event) bool { return true }

// idle: a market stream without assets does not connect (the venue may
// close a socket that subscribes to nothing, and it would cost a socket).
func (c *marketChannel) idle() bool { return len(c.assets) == 0 }

// sync, after a reconnect, fetches every subscribed book over REST and
// emits it: whatever changed while the socket was down is in it. The
// venue's initial dump on the new socket follows and is equally complete;
// the REST pass is what covers a dump the venue drops (seen above a few
// hundred assets per socket, §4).
func (c *marketChannel) sync(ctx context.Context, reconnect bool, emit func(Event) error) error {
	if !reconnect || c.books == nil {
		return nil
	}
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	ids := c.snap()
	for _, part := range chunk(ids, DefaultMaxIDsPerFrame) {
		books, err := c.fetch(ctx, part)
		if err != nil {
			return err
		}
		for i := range books {
			if err := emit(BookFromREST(&books[i])); err != nil {
				return err
			}
		}
	}
	return nil
}

// fetch reads a batch of books, falling back to one call per token when
// the batch fails (one token gone — a resolved market — fails the batch).
func (c *marketChannel) fetch(ctx context.Context, ids []string) ([]clob.OrderBook, error) {
	params := make([]clob.BookParams, len(ids))
	for i, id := range ids {
		params[i] = clob.BookParams{TokenID: id}
	}
	books, err := c.books.OrderBooks(ctx, params)
	if err == nil {
		return books, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	books = books[:0]
	var lastErr error
	for _, id := range ids {
		b, err := c.books.OrderBook(ctx, id)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			c.log.Warn("venue stream: no book to backfill", "asset", id, "err", err)
			lastErr = err
			continue
		}
		books = append(books, *b)
	}
	if len(books) == 0 && lastErr != nil {
		return nil, lastErr
	}
	return books, nil
}

// BookFromREST turns a REST /book answer into a BookEvent marked Backfill,
// the same shape the socket's book event has.
func BookFromREST(b *clob.OrderBook) *BookEvent {
	ev := &BookEvent{AssetID: b.AssetID, Market: b.Market, Hash: b.Hash, Backfill: true,
		Timestamp: stamp(b.Timestamp).time(), TickSize: b.TickSize.Decimal()}
	if !b.LastTradePrice.IsZero() {
		ev.LastTradePrice.Decimal, ev.LastTradePrice.Valid = b.LastTradePrice.Decimal, true
	}
	for _, l := range b.Bids {
		ev.Bids = append(ev.Bids, Level{Price: l.Price, Size: l.Size})
	}
	for _, l := range b.Asks {
		ev.Asks = append(ev.Asks, Level{Price: l.Price, Size: l.Size})
	}
	sortBook(ev.Bids, ev.Asks)
	return ev
}
