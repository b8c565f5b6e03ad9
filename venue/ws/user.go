package ws

import (
	"context"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/venue/clob"
)

// UserSource serves the user channel's REST seed and backfill: a
// *clob.Client holding the same API key as the stream.
type UserSource interface {
	GetOpenOrders(ctx context.Context, p clob.OpenOrderParams) ([]clob.OpenOrder, error)
	GetOrder(ctx context.Context, orderID string) (*clob.OpenOrder, error)
	GetTrades(ctx context.Context, p clob.TradeParams) ([]clob.Trade, error)
}

// UserConfig configures a UserStream.
type UserConfig struct {
	Options
	// Auth is the API key whose orders and trades the channel carries.
	Auth Auth
	// Markets are the condition ids subscribed from the start; empty means
	// every market.
	Markets []string
	// REST seeds the stream's memory of open orders on the first
	// connection and backfills after every reconnect. Without it, what
	// happens while the socket is down is lost.
	REST UserSource
	// Since, when set, makes the first connection deliver a backfill too:
	// every open order as a PLACEMENT and every trade matched since then.
	Since time.Time
	// Retention is how long closed orders and settled trades are
	// remembered to recognise late duplicates (default 10 minutes).
	Retention time.Duration
}

// UserStream is a client of the authenticated user channel: the API key's
// order events (PLACEMENT, UPDATE, CANCELLATION) and trade events (MATCHED →
// MINED → CONFIRMED, or RETRYING/FAILED).
//
// Delivery guarantees: a trade's statuses and an order's states are
// delivered in order and at most once each; events that would move one
// backwards or repeat one (a frame that was in flight while the backfill
// ran, or a venue retransmission) are suppressed. After a reconnect the
// backfill compares the REST view with what was delivered and emits, marked
// Backfill, a PLACEMENT for each new open order, an UPDATE for each order
// whose size_matched grew, an UPDATE (status MATCHED) or CANCELLATION for
// each order that left the book, and each trade at its current status.
// Statuses passed through entirely during the gap are not synthesised: a
// trade first seen CONFIRMED is delivered once, as CONFIRMED.
type UserStream struct {
	s *stream
	c *userChannel
}

// NewUserStream returns an unstarted stream.
func NewUserStream(cfg UserConfig) *UserStream {
	if cfg.Retention <= 0 {
		cfg.Retention = 10 * time.Minute
	}
	c := &userChannel{auth: cfg.Auth, markets: map[string]bool{}, rest: cfg.REST, since: cfg.Since,
		retention: cfg.Retention, orders: map[string]*orderMemo{}, trades: map[string]*tradeMemo{}}
	for _, m := range cfg.Markets {
		c.markets[strings.ToLower(m)] = true
	}
	s := newStream(cfg.Options, c)
	c.maxIDs, c.log = s.opt.MaxIDsPerFrame, s.opt.Logger
	c.snap = func() map[string]bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		out := make(map[string]bool, len(c.markets))
		for k := range c.markets {
			out[k] = true
		}
		return out
	}
	return &UserStream{s: s, c: c}
}

// Run connects and keeps the stream up until ctx ends (returning ctx's
// error) or Close is called (returning ErrClosed). Events is closed when
// Run returns. Call it once.
func (u *UserStream) Run(ctx context.Context) error { return u.s.run(ctx) }

// Close stops the stream and waits for Run to return.
func (u *UserStream) Close() error { return u.s.close() }

// Events delivers *OrderEvent and *TradeEvent values (see Options.Buffer for
// the overflow policy).
func (u *UserStream) Events() <-chan Event { return u.s.events }

// Stats returns the stream's counters.
func (u *UserStream) Stats() Stats { return u.s.stats() }

// Subscribe adds markets (condition ids).
func (u *UserStream) Subscribe(conditionIDs ...string) {
	u.s.mu.Lock()
	defer u.s.mu.Unlock()
	if added := u.c.update(conditionIDs, true); len(added) > 0 {
		u.s.sendLocked(u.c.frames(OpSubscribe, added))
	}
}

// Unsubscribe removes markets. Removing the last one leaves an empty set,
// which the venue reads as every market from the next connection on.
func (u *UserStream) Unsubscribe(conditionIDs ...string) {
	u.s.mu.Lock()
	defer u.s.mu.Unlock()
	if removed := u.c.update(conditionIDs, false); len(removed) > 0 {
		u.s.sendLocked(u.c.frames(OpUnsubscribe, removed))
	}
}

type orderClass int

const (
	classLive orderClass = iota
	classMatched
	classCanceled
)

type orderMemo struct {
	class   orderClass
	matched decimal.Decimal
	market  string
	seen    time.Time
}

type tradeMemo struct {
	rank  int
	match time.Time
	seen  time.Time
}

type userChannel struct {
	auth      Auth
	markets   map[string]bool // guarded by the stream's mu
	snap      func() map[string]bool
	rest      UserSource
	since     time.Time
	retention time.Duration
	maxIDs    int
	log       interface {
		Warn(msg string, args ...any)
	}

	mu        sync.Mutex // the memory below
	seeded    bool
	lastMatch time.Time
	orders    map[string]*orderMemo
	trades    map[string]*tradeMemo
}

func (c *userChannel) path() string { return UserPath }

// idle: the user channel always has something to follow (no markets means
// all of them).
func (c *userChannel) idle() bool { return false }

func (c *userChannel) update(ids []string, add bool) []string {
	var changed []string
	for _, id := range ids {
		id = strings.ToLower(id)
		if id == "" || c.markets[id] == add {
			continue
		}
		if add {
			c.markets[id] = true
		} else {
			delete(c.markets, id)
		}
		changed = append(changed, id)
	}
	return changed
}

func (c *userChannel) frames(op string, ids []string) [][]byte {
	var out [][]byte
	for _, part := range chunk(ids, c.maxIDs) {
		out = append(out, mustJSON(Subscription{Operation: op, Markets: part, AssetsIDs: []string{}}))
	}
	return out
}

func (c *userChannel) initialFrames() [][]byte {
	ms := make([]string, 0, len(c.markets))
	for m := range c.markets {
		ms = append(ms, m)
	}
	sort.Strings(ms)
	auth := c.auth
	dump := true
	first := Subscription{Auth: &auth, Type: "user", AssetsIDs: []string{}, InitialDump: &dump}
	parts := chunk(ms, c.maxIDs)
	if len(parts) > 0 {
		first.Markets = parts[0]
	}
	out := [][]byte{mustJSON(first)}
	for _, p := range parts[min(1, len(parts)):] {
		out = append(out, mustJSON(Subscription{Operation: OpSubscribe, Markets: p, AssetsIDs: []string{}}))
	}
	return out
}

func tradeRank(s TradeStatus) int {
	switch s {
	case TradeMatched:
		return 0
	case TradeRetrying:
		return 1
	case TradeMined:
		return 2
	case TradeConfirmed, TradeFailed:
		return 3
	}
	return -1
}

func classOf(e *OrderEvent) orderClass {
	switch {
	case e.Type == OrderCancellation || strings.HasPrefix(e.Status, "CANCELED"):
		return classCanceled
	case e.Status == "MATCHED" || (e.OriginalSize.IsPositive() && e.SizeMatched.GreaterThanOrEqual(e.OriginalSize)):
		return classMatched
	}
	return classLive
}

// advancesLocked reports whether ev moves what was delivered forward.
func (c *userChannel) advancesLocked(ev Event) bool {
	switch e := ev.(type) {
	case *TradeEvent:
		m, ok := c.trades[e.ID]
		return !ok || tradeRank(e.Status) > m.rank
	case *OrderEvent:
		m, ok := c.orders[e.ID]
		if !ok {
			return true
		}
		cl := classOf(e)
		if cl != m.class {
			return m.class == classLive // closed orders stay closed
		}
		return cl == classLive && e.SizeMatched.GreaterThan(m.matched)
	}
	return true
}

func (c *userChannel) recordLocked(ev Event, now time.Time) {
	switch e := ev.(type) {
	case *TradeEvent:
		c.trades[e.ID] = &tradeMemo{rank: tradeRank(e.Status), match: e.MatchTime, seen: now}
		if e.MatchTime.After(c.lastMatch) {
			c.lastMatch = e.MatchTime
		}
	case *OrderEvent:
		m := c.orders[e.ID]
		if m == nil {
			m = &orderMemo{}
			c.orders[e.ID] = m
		}
		m.class, m.matched, m.market, m.seen = classOf(e), e.SizeMatched, strings.ToLower(e.Market), now
	}
}

func (c *userChannel) accept(ev Event) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.advancesLocked(ev) {
		return false
	}
	c.recordLocked(ev, time.Now())
	return true
}

// tradeSlack widens the REST trade window: /data/trades filters on whole
// seconds.
const tradeSlack = 5 * time.Second

// staleTrade bounds how far back an unsettled trade holds the window open.
const staleTrade = time.Hour

// windowLocked is the start of the trade window the backfill asks for:
// the latest match delivered or the oldest trade still settling, whichever
// is earlier.
func (c *userChannel) windowLocked(now time.Time) time.Time {
	from := c.lastMatch
	for _, t := range c.trades {
		if t.rank < 3 && t.match.Before(from) && now.Sub(t.match) < staleTrade {
			from = t.match
		}
	}
	return from.Add(-tradeSlack)
}

// pruneLocked forgets what can no longer come back: settled trades before
// the window, and orders closed longer than the retention.
func (c *userChannel) pruneLocked(now, window time.Time) {
	for id, t := range c.trades {
		if (t.rank == 3 && t.match.Before(window) && now.Sub(t.seen) > c.retention) || now.Sub(t.match) > staleTrade+c.retention {
			delete(c.trades, id)
		}
	}
	for id, o := range c.orders {
		if o.class != classLive && now.Sub(o.seen) > c.retention {
			delete(c.orders, id)
		}
	}
}

func inMarkets(markets map[string]bool, m string) bool {
	return len(markets) == 0 || markets[strings.ToLower(m)]
}

// sync seeds the memory on the first connection (silently, unless Since is
// set) and backfills after a reconnect.
func (c *userChannel) sync(ctx context.Context, reconnect bool, emit func(Event) error) error {
	if c.rest == nil {
		return nil
	}
	now := time.Now()
	markets := c.snap()
	c.mu.Lock()
	first := !c.seeded
	if first {
		c.lastMatch = now
		if !c.since.IsZero() {
			c.lastMatch = c.since
		}
	}
	silent := first && c.since.IsZero()
	window := c.windowLocked(now)
	c.pruneLocked(now, window)
	c.mu.Unlock()

	trades, err := c.rest.GetTrades(ctx, clob.TradeParams{After: window.Unix()})
	if err != nil {
		return err
	}
	open, err := c.rest.GetOpenOrders(ctx, clob.OpenOrderParams{})
	if err != nil {
		return err
	}
	deliver := func(ev Event) error {
		c.mu.Lock()
		fresh := c.advancesLocked(ev)
		if fresh && silent {
			c.recordLocked(ev, now)
		}
		c.mu.Unlock()
		if !fresh || silent {
			return nil
		}
		return emit(ev) // emit records it through accept
	}

	sort.SliceStable(trades, func(i, j int) bool {
		return stamp(trades[i].MatchTime).time().Before(stamp(trades[j].MatchTime).time())
	})
	for i := range trades {
		if inMarkets(markets, trades[i].Market) {
			if err := deliver(TradeFromREST(&trades[i])); err != nil {
				return err
			}
		}
	}
	live := make(map[string]bool, len(open))
	for i := range open {
		o := &open[i]
		live[o.ID] = true
		if !inMarkets(markets, o.Market) {
			continue
		}
		typ := OrderPlacement
		c.mu.Lock()
		if _, known := c.orders[o.ID]; known {
			typ = OrderUpdate
		}
		c.mu.Unlock()
		if err := deliver(OrderFromREST(o, typ)); err != nil {
			return err
		}
	}
	// Orders delivered as live that are no longer open were filled or
	// cancelled while the socket was down.
	c.mu.Lock()
	var gone []string
	for id, m := range c.orders {
		if m.class == classLive && !live[id] && inMarkets(markets, m.market) {
			gone = append(gone, id)
		}
	}
	c.mu.Unlock()
	sort.Strings(gone)
	for _, id := range gone {
		o, err := c.rest.GetOrder(ctx, id)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			// Kept as live: the next backfill asks again.
			c.log.Warn("venue stream: could not read an order that left the book", "order", id, "err", err)
			continue
		}
		typ := OrderUpdate
		if strings.HasPrefix(strings.ToUpper(o.Status), "CANCELED") {
			typ = OrderCancellation
		}
		if err := deliver(OrderFromREST(o, typ)); err != nil {
			return err
		}
	}
	c.mu.Lock()
	c.seeded = true
	c.mu.Unlock()
	return nil
}

// OrderFromREST turns a REST order into an OrderEvent of the given type,
// marked Backfill.
func OrderFromREST(o *clob.OpenOrder, typ OrderEventType) *OrderEvent {
	ev := &OrderEvent{
		Type: typ, ID: o.ID, Owner: o.Owner, OrderOwner: o.Owner, Market: o.Market, AssetID: o.AssetID,
		Side: Side(strings.ToUpper(o.Side)), Outcome: o.Outcome, OriginalSize: o.OriginalSize.Decimal,
		SizeMatched: o.SizeMatched.Decimal, Price: o.Price.Decimal, AssociateTrades: o.AssociateTrades,
		CreatedAt: stamp(itoa(int64(o.CreatedAt))).time(), OrderType: o.OrderType, Status: strings.ToUpper(o.Status),
		MakerAddress: o.MakerAddress, Timestamp: time.Now(), Backfill: true,
	}
	if o.Expiration > 0 {
		ev.Expiration = time.Unix(int64(o.Expiration), 0)
	}
	return ev
}

// TradeFromREST turns a REST trade into a TradeEvent, marked Backfill.
func TradeFromREST(t *clob.Trade) *TradeEvent {
	ev := &TradeEvent{
		ID: t.ID, TakerOrderID: t.TakerOrderID, Market: t.Market, AssetID: t.AssetID, Side: Side(strings.ToUpper(t.Side)),
		Size: t.Size.Decimal, Price: t.Price.Decimal, FeeRateBps: t.FeeRateBps.Decimal,
		Status: TradeStatus(strings.ToUpper(t.Status)), MatchTime: stamp(t.MatchTime).time(),
		LastUpdate: stamp(t.LastUpdate).time(), Outcome: t.Outcome, Owner: t.Owner, MakerAddress: t.MakerAddress,
		TransactionHash: t.TransactionHash, BucketIndex: t.BucketIndex, TraderSide: t.TraderSide,
		Timestamp: time.Now(), Backfill: true,
	}
	for _, m := range t.MakerOrders {
		ev.MakerOrders = append(ev.MakerOrders, MakerOrder{OrderID: m.OrderID, Owner: m.Owner, MakerAddress: m.MakerAddress,
			MatchedAmount: m.MatchedAmount.Decimal, Price: m.Price.Decimal, FeeRateBps: m.FeeRateBps.Decimal,
			AssetID: m.AssetID, Outcome: m.Outcome, Side: Side(strings.ToUpper(m.Side))})
	}
	return ev
}

func itoa(n int64) string {
	if n <= 0 {
		return ""
	}
	return decimal.NewFromInt(n).String()
}
