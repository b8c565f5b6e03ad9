// Package pricefeed is the process's one price feed: a single market-channel
// subscription per token however many consumers watch it (strategy
// triggers, market-data reads, the heartbeat), fanned out in process, with
// a synchronous top-of-book snapshot per token and price conditions that
// fire callbacks. See docs/venue-streams.md.
//
// Lifecycle: New, then Run (blocking) next to the market stream's own Run.
// Consumers call Subscribe (reference-counted) and Close their
// Subscription; when a token's last consumer leaves, the feed waits Grace
// and then unsubscribes it from the venue and forgets its book, so a
// consumer that comes straight back (a workflow retry, a page reload) does
// not churn the venue subscription.
package pricefeed

import (
	"context"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/ws"
)

// Source is the market stream the feed drives; *ws.MarketStream
// implements it.
type Source interface {
	Subscribe(assetIDs ...string)
	Unsubscribe(assetIDs ...string)
	Events() <-chan ws.Event
}

// Poller reads books over REST for tokens whose stream is silent;
// *clob.Client implements it.
type Poller interface {
	OrderBooks(ctx context.Context, params []clob.BookParams) ([]clob.OrderBook, error)
}

// Defaults.
const (
	DefaultGrace = 15 * time.Second
	// MinPollInterval is the floor of the REST fallback: the live venue
	// throttles, and a price older than this is what the fallback is for.
	MinPollInterval = 10 * time.Second
	// pollBatch is the tokens per POST /books (the venue allows 500).
	pollBatch = 100
)

// Config configures a Feed.
type Config struct {
	// Source is the market stream; nil runs the feed on polling alone.
	Source Source
	// Poller, when set, refreshes every subscribed token that has had no
	// update for PollInterval (the stream is down, or there is none) with
	// one batched POST /books per 100 tokens.
	Poller       Poller
	PollInterval time.Duration // at least MinPollInterval (the default)
	// Grace is how long a token stays subscribed after its last consumer
	// left (DefaultGrace).
	Grace  time.Duration
	Logger *slog.Logger
	Now    func() time.Time
}

// Quote is a token's top of book. Absent values are not Valid.
type Quote struct {
	TokenID  string
	Market   string // condition id, once known
	BestBid  decimal.NullDecimal
	BestAsk  decimal.NullDecimal
	Mid      decimal.NullDecimal
	Last     decimal.NullDecimal
	TickSize decimal.Decimal
	// Updated is when the feed last changed this quote; Live tells whether
	// that came from the stream (false: the REST fallback).
	Updated time.Time
	Live    bool
	// Ready is false until a first book arrived: before that the quote
	// knows nothing.
	Ready bool
}

func (q *Quote) field(f Field) decimal.NullDecimal {
	switch f {
	case BestBid:
		return q.BestBid
	case BestAsk:
		return q.BestAsk
	case Mid:
		return q.Mid
	}
	return q.Last
}

// Book is a token's whole book as the feed holds it, best level first.
type Book struct {
	Quote
	Bids, Asks []ws.Level
	Hash       string
	Timestamp  time.Time
}

// Feed is the price feed.
type Feed struct {
	cfg Config
	log *slog.Logger

	mu     sync.Mutex
	tokens map[string]*tokenState
	nextID uint64
	wake   chan struct{} // a token was added: poll its book now
}

type tokenState struct {
	id      string
	refs    int
	grace   *time.Timer
	subs    map[*Subscription]bool
	conds   [numFields]condSet
	bids    ladder
	asks    ladder
	q       Quote
	hash    string
	stamp   time.Time
	lastMsg time.Time // last stream event for this token
}

// New returns a feed.
func New(cfg Config) *Feed {
	if cfg.Grace <= 0 {
		cfg.Grace = DefaultGrace
	}
	if cfg.PollInterval < MinPollInterval {
		cfg.PollInterval = MinPollInterval
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Feed{cfg: cfg, log: cfg.Logger, tokens: map[string]*tokenState{}, wake: make(chan struct{}, 1)}
}

// Subscription is one consumer's hold on a token's prices.
type Subscription struct {
	f     *Feed
	token string
	c     chan Quote
	once  sync.Once
}

// Updates delivers the token's quote after each change. It holds one
// value and conflates: a consumer that reads slowly gets the latest quote,
// never a backlog, and never slows the feed or other consumers.
func (s *Subscription) Updates() <-chan Quote { return s.c }

// Token is the subscribed token id.
func (s *Subscription) Token() string { return s.token }

// Quote returns the token's current quote.
func (s *Subscription) Quote() Quote {
	q, _ := s.f.Quote(s.token)
	return q
}

// Close releases the hold; the Updates channel is not closed (a consumer
// stops reading it). Close is idempotent.
func (s *Subscription) Close() { s.once.Do(func() { s.f.release(s) }) }

// Subscribe takes a hold on a token's prices, subscribing it on the venue
// stream when it is the first.
func (f *Feed) Subscribe(tokenID string) *Subscription { return f.hold(tokenID, true) }

// hold takes a reference on a token; with updates it is a consumer that
// gets quotes, without (a condition's hold) it only keeps the token
// subscribed, so conditions cost nothing per event until met.
func (f *Feed) hold(tokenID string, updates bool) *Subscription {
	s := &Subscription{f: f, token: tokenID}
	if updates {
		s.c = make(chan Quote, 1)
	}
	f.mu.Lock()
	ts := f.tokens[tokenID]
	fresh := ts == nil
	if fresh {
		ts = &tokenState{id: tokenID, subs: map[*Subscription]bool{}, bids: ladder{bids: true}}
		ts.q.TokenID = tokenID
		f.tokens[tokenID] = ts
	}
	ts.refs++
	if updates {
		ts.subs[s] = true
	}
	if ts.grace != nil {
		ts.grace.Stop()
		ts.grace = nil
	}
	f.mu.Unlock()
	if fresh {
		if f.cfg.Source != nil {
			f.cfg.Source.Subscribe(tokenID)
		}
		select {
		case f.wake <- struct{}{}:
		default:
		}
	}
	return s
}

func (f *Feed) release(s *Subscription) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ts := f.tokens[s.token]
	if ts == nil {
		return
	}
	if s.c != nil {
		if !ts.subs[s] {
			return
		}
		delete(ts.subs, s)
	}
	ts.refs--
	if ts.refs > 0 {
		return
	}
	ts.grace = time.AfterFunc(f.cfg.Grace, func() { f.expire(ts) })
}

// expire drops a token nobody came back for.
func (f *Feed) expire(ts *tokenState) {
	f.mu.Lock()
	if f.tokens[ts.id] != ts || ts.refs > 0 {
		f.mu.Unlock()
		return
	}
	delete(f.tokens, ts.id)
	f.mu.Unlock()
	if f.cfg.Source != nil {
		f.cfg.Source.Unsubscribe(ts.id)
	}
}

// Subscribed reports whether the feed holds a token (with consumers or in
// its grace period).
func (f *Feed) Subscribed(tokenID string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tokens[tokenID] != nil
}

// Tokens lists the held tokens, sorted.
func (f *Feed) Tokens() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(f.tokens))
	for t := range f.tokens {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Quote returns a token's current quote; ok is false when the feed does
// not hold the token or has no book for it yet.
func (f *Feed) Quote(tokenID string) (Quote, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ts := f.tokens[tokenID]
	if ts == nil {
		return Quote{TokenID: tokenID}, false
	}
	return ts.q, ts.q.Ready
}

// Book returns a token's book; ok as for Quote.
func (f *Feed) Book(tokenID string) (Book, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ts := f.tokens[tokenID]
	if ts == nil || !ts.q.Ready {
		return Book{}, false
	}
	return Book{Quote: ts.q, Bids: ts.bids.copyLevels(), Asks: ts.asks.copyLevels(), Hash: ts.hash, Timestamp: ts.stamp}, true
}

// When registers a condition: fn is called once for each event that
// updates the watched price (a trade, for Last) and leaves it meeting the
// threshold. The registration holds the token's subscription until Stop.
//
// fn runs on the feed's goroutine, after the feed's lock is released: it
// must be quick (signal a workflow, send on a buffered channel) and may
// call Stop or register other conditions.
func (f *Feed) When(c Condition, fn func(Fire)) (*Trigger, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	sub := f.hold(c.TokenID, false)
	f.mu.Lock()
	f.nextID++
	t := &Trigger{f: f, cond: c, fn: fn, sub: sub, id: f.nextID}
	f.tokens[c.TokenID].conds[c.Field].add(t)
	f.mu.Unlock()
	return t, nil
}

// Run applies the source's events (and polls) until ctx ends or the
// source's events close.
func (f *Feed) Run(ctx context.Context) error {
	var events <-chan ws.Event
	if f.cfg.Source != nil {
		events = f.cfg.Source.Events()
	}
	var poll <-chan time.Time
	if f.cfg.Poller != nil {
		t := time.NewTicker(f.cfg.PollInterval / 2)
		defer t.Stop()
		poll = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-events:
			if !ok {
				return nil
			}
			f.Apply(ev)
		case <-poll:
			f.pollStale(ctx)
		case <-f.wake:
			if f.cfg.Poller != nil && f.cfg.Source == nil {
				f.pollStale(ctx)
			}
		}
	}
}

// pollStale refreshes the tokens the stream has not updated for a poll
// interval, in batches.
func (f *Feed) pollStale(ctx context.Context) {
	now := f.cfg.Now()
	f.mu.Lock()
	var stale []string
	for id, ts := range f.tokens {
		if now.Sub(ts.lastMsg) >= f.cfg.PollInterval && now.Sub(ts.q.Updated) >= f.cfg.PollInterval {
			stale = append(stale, id)
		}
	}
	f.mu.Unlock()
	sort.Strings(stale)
	for len(stale) > 0 {
		n := min(len(stale), pollBatch)
		part := stale[:n]
		stale = stale[n:]
		params := make([]clob.BookParams, len(part))
		for i, id := range part {
			params[i] = clob.BookParams{TokenID: id}
		}
		books, err := f.cfg.Poller.OrderBooks(ctx, params)
		if err != nil {
			f.log.Warn("price feed: polling books failed", "tokens", len(part), "err", err)
			continue
		}
		for i := range books {
			f.apply(ws.BookFromREST(&books[i]), false)
		}
	}
}

// Apply feeds one market event (Run calls it for the source's events;
// tests and other sources may call it directly).
func (f *Feed) Apply(ev ws.Event) { f.apply(ev, true) }

type fired struct {
	t        *Trigger
	v        decimal.Decimal
	q        int // index into the event's quotes (-1: none)
	resolved bool
}

// delivery is a quote for the consumers of one token.
type delivery struct {
	subs []*Subscription
	q    int
}

func (f *Feed) apply(ev ws.Event, live bool) {
	var fires []fired
	var deliveries []delivery
	var quotes []Quote // one per token the event changed
	f.mu.Lock()
	now := f.cfg.Now()
	firstBook := false // the first book: every consumer learns the quote
	touch := func(ts *tokenState, lastTrade bool) {
		before := ts.q
		ts.q.BestBid, ts.q.BestAsk = ts.bids.best(), ts.asks.best()
		ts.q.Mid = decimal.NullDecimal{}
		if ts.q.BestBid.Valid && ts.q.BestAsk.Valid {
			ts.q.Mid = decimal.NewNullDecimal(ts.q.BestBid.Decimal.Add(ts.q.BestAsk.Decimal).Div(decimal.NewFromInt(2)))
		}
		ts.q.Updated, ts.q.Live = now, live
		if live {
			ts.lastMsg = now
		}
		if !ts.q.Ready {
			return
		}
		qi := len(quotes)
		quotes = append(quotes, ts.q)
		changed := false
		for fl := Field(0); fl < numFields; fl++ {
			was, is := before.field(fl), ts.q.field(fl)
			moved := was.Valid != is.Valid || (is.Valid && !was.Decimal.Equal(is.Decimal)) || (fl == Last && lastTrade)
			if !moved {
				continue
			}
			changed = true
			if !is.Valid || ts.conds[fl].len() == 0 {
				continue
			}
			for _, t := range ts.conds[fl].met(is.Decimal, nil) {
				fires = append(fires, fired{t: t, v: is.Decimal, q: qi})
			}
		}
		if changed || firstBook {
			d := delivery{subs: make([]*Subscription, 0, len(ts.subs)), q: qi}
			for s := range ts.subs {
				d.subs = append(d.subs, s)
			}
			deliveries = append(deliveries, d)
		}
	}
	switch e := ev.(type) {
	case *ws.BookEvent:
		if ts := f.tokens[e.AssetID]; ts != nil {
			ts.bids.replace(e.Bids)
			ts.asks.replace(e.Asks)
			ts.q.Market, ts.hash, ts.stamp = e.Market, e.Hash, e.Timestamp
			if !e.TickSize.IsZero() {
				ts.q.TickSize = e.TickSize
			}
			if e.LastTradePrice.Valid && !ts.q.Last.Valid {
				ts.q.Last = e.LastTradePrice
			}
			firstBook = !ts.q.Ready
			ts.q.Ready = true
			touch(ts, false)
		}
	case *ws.PriceChangeEvent:
		byToken := map[*tokenState]bool{}
		for _, c := range e.Changes {
			ts := f.tokens[c.AssetID]
			if ts == nil || !ts.q.Ready {
				continue // deltas before a snapshot mean nothing
			}
			if c.Side == ws.Buy {
				ts.bids.set(c.Price, c.Size)
			} else {
				ts.asks.set(c.Price, c.Size)
			}
			ts.stamp = e.Timestamp
			byToken[ts] = true
		}
		for ts := range byToken {
			touch(ts, false)
		}
	case *ws.LastTradePriceEvent:
		if ts := f.tokens[e.AssetID]; ts != nil && ts.q.Ready {
			ts.q.Last = decimal.NewNullDecimal(e.Price)
			touch(ts, true)
		}
	case *ws.TickSizeChangeEvent:
		if ts := f.tokens[e.AssetID]; ts != nil {
			ts.q.TickSize = e.NewTickSize
		}
	case *ws.MarketResolvedEvent:
		// A resolved market trades no more and its books empty: no price
		// will ever meet a condition on its tokens again. Every condition
		// on them fires (Resolved), so whoever waits on one (a strategy)
		// looks at the market and moves on.
		for _, id := range e.AssetIDs {
			ts := f.tokens[id]
			if ts == nil {
				continue
			}
			for fl := Field(0); fl < numFields; fl++ {
				for _, t := range append(append([]*Trigger(nil), ts.conds[fl].up...), ts.conds[fl].down...) {
					fires = append(fires, fired{t: t, q: -1, resolved: true})
				}
			}
		}
	}
	var stop []*Trigger
	for _, fr := range fires {
		if fr.t.cond.Once {
			fr.t.dead = true
			f.tokens[fr.t.cond.TokenID].conds[fr.t.cond.Field].remove(fr.t)
			stop = append(stop, fr.t)
		}
	}
	f.mu.Unlock()

	for _, d := range deliveries {
		for _, s := range d.subs {
			offer(s.c, quotes[d.q])
		}
	}
	for _, fr := range fires {
		fire := Fire{Condition: fr.t.cond, Value: fr.v, Resolved: fr.resolved}
		if fr.q >= 0 {
			fire.Quote = quotes[fr.q]
		}
		fr.t.fn(fire)
	}
	for _, t := range stop {
		t.sub.Close()
	}
}

// offer puts q in a one-slot channel, replacing an unread older quote.
func offer(c chan Quote, q Quote) {
	for {
		select {
		case c <- q:
			return
		default:
		}
		select {
		case <-c:
		default:
		}
	}
}
