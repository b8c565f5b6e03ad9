package ws

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/gorilla/websocket"
)

// Defaults (reference §0 and §4; the official Rust client's choices).
const (
	// DefaultURL is the live venue's WebSocket base; the channels are at
	// /ws/market and /ws/user under it.
	DefaultURL          = "wss://ws-subscriptions-clob.polymarket.com"
	DefaultPingInterval = 10 * time.Second
	DefaultPongTimeout  = 30 * time.Second
	DefaultMinBackoff   = time.Second
	DefaultMaxBackoff   = 60 * time.Second
	DefaultBuffer       = 4096
	// DefaultMaxIDsPerFrame keeps subscribe frames small: the venue closes
	// the socket on a frame with thousands of ids (§4).
	DefaultMaxIDsPerFrame = 100
	writeTimeout          = 10 * time.Second
	dialTimeout           = 15 * time.Second
)

// ErrClosed is returned by Run after Close.
var ErrClosed = errors.New("ws: stream closed")

// errResync ends a session whose consumer fell behind (see Options.Buffer).
var errResync = errors.New("ws: event buffer overflowed; resynchronising")

// Options are the settings both channels share. Zero values take the
// defaults above.
type Options struct {
	// URL is the WebSocket base (DefaultURL live, "{sandbox}/ws" for the
	// sandbox); the channel path is appended. http(s):// is accepted and
	// turned into ws(s)://.
	URL string
	// PingInterval is how often the text frame PING is sent.
	PingInterval time.Duration
	// PongTimeout is how long the socket may stay completely silent (not
	// even a PONG) before it is taken for dead and replaced.
	PongTimeout time.Duration
	// IdleTimeout, when set, replaces a socket that answers PONGs but has
	// delivered no event for this long: the venue's "silent freeze" (§4).
	// Off by default because a quiet market legitimately sends nothing.
	IdleTimeout time.Duration
	// MinBackoff and MaxBackoff bound the exponential reconnect delay
	// (doubling, with jitter: each wait is uniform in [d/2, d]).
	MinBackoff, MaxBackoff time.Duration
	// Buffer is the capacity of the Events channel.
	//
	// Overflow policy: the socket reader never blocks on the consumer
	// (a blocked reader would miss PONGs and make the venue drop us as a
	// slow consumer). When the buffer is full the event is discarded, the
	// stream stops delivering from that socket, reconnects at once and
	// runs the REST backfill, which re-establishes the state the lost
	// events described (a fresh book per asset; the orders and trades
	// that changed). Backfill events wait for room in the buffer instead,
	// so a slow consumer slows the resynchronisation rather than looping
	// it. Stats().Dropped counts discarded events.
	Buffer int
	// MaxIDsPerFrame splits subscription frames (DefaultMaxIDsPerFrame).
	MaxIDsPerFrame int
	// Dialer defaults to a gorilla dialer with a 15 s handshake timeout.
	Dialer *websocket.Dialer
	// Header is sent with the handshake.
	Header http.Header
	Logger *slog.Logger
	// OnState, when set, is called (from the stream's goroutine) whenever
	// the connection comes up or goes down.
	OnState func(State)
}

// State is a connection state change.
type State struct {
	Connected bool
	// Attempt counts consecutive failed connection attempts.
	Attempt int
	// Err is why the connection went down or could not be made.
	Err error
}

// Stats are a stream's counters since it was made.
type Stats struct {
	Connects   uint64 // successful connections (subscribed)
	Frames     uint64 // data frames read
	Events     uint64 // events delivered from the socket
	Backfilled uint64 // events delivered from the REST backfill
	Duplicates uint64 // events suppressed as already delivered (user channel)
	Dropped    uint64 // events discarded on overflow
	Unknown    uint64 // events of unknown type skipped
}

func (o *Options) defaults() {
	if o.URL == "" {
		o.URL = DefaultURL
	}
	if o.PingInterval <= 0 {
		o.PingInterval = DefaultPingInterval
	}
	if o.PongTimeout <= 0 {
		o.PongTimeout = DefaultPongTimeout
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = DefaultMinBackoff
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(DefaultMaxBackoff, o.MinBackoff)
	}
	if o.Buffer <= 0 {
		o.Buffer = DefaultBuffer
	}
	if o.MaxIDsPerFrame <= 0 {
		o.MaxIDsPerFrame = DefaultMaxIDsPerFrame
	}
	if o.Dialer == nil {
		o.Dialer = &websocket.Dialer{HandshakeTimeout: dialTimeout, Proxy: http.ProxyFromEnvironment}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// channelURL joins the base and the channel path. The base may stop at the
// host (the live venue's documented form, channels under /ws/) or include
// the /ws segment ("{sandbox}/ws", the operator surface's form).
func channelURL(base, path string) string {
	base = strings.TrimRight(base, "/")
	switch {
	case strings.HasPrefix(base, "https://"):
		base = "wss://" + strings.TrimPrefix(base, "https://")
	case strings.HasPrefix(base, "http://"):
		base = "ws://" + strings.TrimPrefix(base, "http://")
	}
	switch {
	case strings.HasSuffix(base, path):
		return base
	case strings.HasSuffix(base, "/ws"):
		return base + strings.TrimPrefix(path, "/ws")
	}
	return base + path
}

// channel is what differs between the market and user channels.
type channel interface {
	path() string
	// initialFrames are sent right after connecting (called under the
	// stream's lock, so they list exactly the subscriptions of the moment).
	initialFrames() [][]byte
	// sync runs after the subscription and before the socket is read:
	// seeding (first connection) or the REST backfill (reconnects).
	sync(ctx context.Context, reconnect bool, emit func(Event) error) error
	// accept records an event from the socket and reports whether it is
	// new (false suppresses a duplicate of what the backfill delivered).
	accept(ev Event) bool
	// idle reports that there is nothing to subscribe (caller holds the
	// stream's lock): the stream does not connect until there is.
	idle() bool
}

// stream is the connection machinery both channels share: dial, subscribe,
// keepalive, read, reconnect with backoff, backfill.
type stream struct {
	opt    Options
	ch     channel
	events chan Event

	mu      sync.Mutex // guards conn and the channel's subscription set
	conn    *websocket.Conn
	writeMu sync.Mutex // one writer at a time on conn (gorilla's rule)

	kick     chan struct{} // a subscription was added
	resync   atomic.Bool
	lastData atomic.Int64 // unix nanos of the last event frame

	runMu   sync.Mutex
	started bool
	cancel  context.CancelFunc
	done    chan struct{}
	closed  bool

	connects, frames, delivered, backfilled, duplicates, dropped, unknown atomic.Uint64
}

func newStream(opt Options, ch channel) *stream {
	opt.defaults()
	return &stream{opt: opt, ch: ch, events: make(chan Event, opt.Buffer), done: make(chan struct{}),
		kick: make(chan struct{}, 1)}
}

func (s *stream) stats() Stats {
	return Stats{Connects: s.connects.Load(), Frames: s.frames.Load(), Events: s.delivered.Load(),
		Backfilled: s.backfilled.Load(), Duplicates: s.duplicates.Load(), Dropped: s.dropped.Load(),
		Unknown: s.unknown.Load()}
}

// run connects and keeps the stream up until ctx ends or close is called.
// It closes the events channel when it returns.
func (s *stream) run(ctx context.Context) error {
	s.runMu.Lock()
	if s.started || s.closed {
		s.runMu.Unlock()
		if s.closed {
			return ErrClosed
		}
		return errors.New("ws: Run called twice")
	}
	s.started = true
	ctx, s.cancel = context.WithCancel(ctx)
	s.runMu.Unlock()
	defer func() {
		s.cancel()
		close(s.events)
		close(s.done)
	}()

	log := s.opt.Logger.With("channel", s.ch.path())
	attempt := 0
	reconnect := false
	wait := s.newBackoff()
	for {
		if !s.waitForWork(ctx) {
			return s.endErr(ctx)
		}
		conn, resp, err := s.opt.Dialer.DialContext(ctx, channelURL(s.opt.URL, s.ch.path()), s.opt.Header)
		if resp != nil && resp.Body != nil {
			_ = resp.Body.Close()
		}
		if err != nil {
			if ctx.Err() != nil {
				return s.endErr(ctx)
			}
			attempt++
			s.state(State{Attempt: attempt, Err: err})
			log.Warn("venue stream: connect failed", "attempt", attempt, "err", err)
			if !s.sleep(ctx, wait.NextBackOff()) {
				return s.endErr(ctx)
			}
			continue
		}
		healthy, err := s.session(ctx, conn, reconnect)
		if healthy {
			attempt = 0
			reconnect = true
			wait.Reset()
		}
		if ctx.Err() != nil {
			return s.endErr(ctx)
		}
		s.state(State{Err: err})
		if errors.Is(err, errResync) {
			log.Warn("venue stream: consumer fell behind; resynchronising", "dropped", s.dropped.Load())
			continue // a local cause: reconnect at once
		}
		attempt++
		log.Warn("venue stream: disconnected", "err", err, "attempt", attempt)
		if !s.sleep(ctx, wait.NextBackOff()) {
			return s.endErr(ctx)
		}
	}
}

// waitForWork holds off connecting while there is nothing to subscribe,
// so an idle feed costs no socket. It reports false when ctx ended.
func (s *stream) waitForWork(ctx context.Context) bool {
	for {
		if ctx.Err() != nil {
			return false
		}
		s.mu.Lock()
		idle := s.ch.idle()
		s.mu.Unlock()
		if !idle {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-s.kick:
		}
	}
}

// poke wakes a stream waiting for its first subscription.
func (s *stream) poke() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

func (s *stream) endErr(ctx context.Context) error {
	s.runMu.Lock()
	closed := s.closed
	s.runMu.Unlock()
	if closed {
		return ErrClosed
	}
	return ctx.Err()
}

func (s *stream) state(st State) {
	if s.opt.OnState != nil {
		s.opt.OnState(st)
	}
}

// newBackoff gives the reconnect waits: before attempt n (1-based)
// d = MinBackoff·2^(n-1) capped at MaxBackoff, drawn uniformly from its
// upper half [d/2, d] — cenkalti/backoff's ¾·d ± ⅓ — so reconnecting
// clients spread out. Reset after a healthy session starts over.
func (s *stream) newBackoff() *backoff.ExponentialBackOff {
	b := &backoff.ExponentialBackOff{
		InitialInterval:     s.opt.MinBackoff * 3 / 4,
		RandomizationFactor: 1.0 / 3,
		Multiplier:          2,
		MaxInterval:         s.opt.MaxBackoff * 3 / 4,
	}
	b.Reset()
	return b
}

func (s *stream) sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// close stops the stream and waits for run to return.
func (s *stream) close() error {
	s.runMu.Lock()
	s.closed = true
	started := s.started
	cancel := s.cancel
	s.runMu.Unlock()
	if !started {
		return nil
	}
	cancel()
	<-s.done
	return nil
}

// session runs one connection: subscribe, sync, then read until it fails.
// healthy reports that the subscription and the sync succeeded, which
// resets the backoff.
func (s *stream) session(ctx context.Context, conn *websocket.Conn, reconnect bool) (healthy bool, err error) {
	sctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		s.mu.Lock()
		s.conn = nil
		s.mu.Unlock()
		cancel()
		_ = conn.Close()
		wg.Wait()
	}()
	// Closing the socket is what unblocks a read when the session ends.
	wg.Add(1)
	go func() {
		defer wg.Done()
		<-sctx.Done()
		_ = conn.Close()
	}()

	s.resync.Store(false)
	s.mu.Lock()
	frames := s.ch.initialFrames()
	for _, f := range frames {
		if err = s.write(conn, f); err != nil {
			break
		}
	}
	if err == nil {
		s.conn = conn
	}
	s.mu.Unlock()
	if err != nil {
		return false, fmt.Errorf("ws: subscribe: %w", err)
	}
	s.lastData.Store(time.Now().UnixNano())
	var ended atomic.Pointer[error] // why keepalive ended the session
	wg.Add(1)
	go func() {
		defer wg.Done()
		if why := s.keepalive(sctx, conn); why != nil {
			ended.Store(&why)
			cancel()
		}
	}()
	// Backfill events wait for room in the buffer (see Options.Buffer).
	emitBackfill := func(ev Event) error {
		s.ch.accept(ev)
		select {
		case s.events <- ev:
			s.backfilled.Add(1)
			return nil
		case <-sctx.Done():
			return sctx.Err()
		}
	}
	if err := s.ch.sync(sctx, reconnect, emitBackfill); err != nil {
		return false, fmt.Errorf("ws: backfill: %w", err)
	}
	s.connects.Add(1)
	s.state(State{Connected: true})
	for {
		_ = conn.SetReadDeadline(time.Now().Add(s.opt.PongTimeout))
		typ, data, err := conn.ReadMessage()
		if err != nil {
			if why := ended.Load(); why != nil && ctx.Err() == nil {
				err = *why
			}
			return true, err
		}
		if typ != websocket.TextMessage {
			continue
		}
		evs, perr := Parse(data)
		if len(evs) == 0 && perr == nil {
			continue // PONG or an empty frame
		}
		s.frames.Add(1)
		s.lastData.Store(time.Now().UnixNano())
		if perr != nil {
			if errors.Is(perr, ErrUnknownEvent) {
				s.unknown.Add(1)
			} else {
				s.opt.Logger.Warn("venue stream: unreadable frame", "channel", s.ch.path(), "err", perr)
			}
		}
		for _, ev := range evs {
			s.emit(ev)
		}
		if s.resync.Load() {
			return true, errResync
		}
	}
}

// keepalive sends PING every PingInterval and returns why the session
// must end: a failed write, or (with an IdleTimeout) no event for that long.
// It returns nil when ctx ends.
func (s *stream) keepalive(ctx context.Context, conn *websocket.Conn) error {
	t := time.NewTicker(s.opt.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if err := s.write(conn, []byte(pingFrame)); err != nil {
			return fmt.Errorf("ws: ping: %w", err)
		}
		if s.opt.IdleTimeout > 0 && time.Since(time.Unix(0, s.lastData.Load())) > s.opt.IdleTimeout {
			return fmt.Errorf("ws: no event for %s (silent freeze)", s.opt.IdleTimeout)
		}
	}
}

func (s *stream) write(conn *websocket.Conn, frame []byte) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	_ = conn.SetWriteDeadline(time.Now().Add(writeTimeout))
	return conn.WriteMessage(websocket.TextMessage, frame)
}

// send writes frames on the current connection, if any (caller holds mu).
// A failed write is left to the reader, which sees the broken socket and
// reconnects with the whole subscription set.
func (s *stream) sendLocked(frames [][]byte) {
	if s.conn == nil {
		return
	}
	for _, f := range frames {
		if err := s.write(s.conn, f); err != nil {
			s.opt.Logger.Warn("venue stream: subscription update failed; the reconnect will resend it", "err", err)
			_ = s.conn.Close()
			return
		}
	}
}

// emit delivers a socket event without ever blocking the reader.
func (s *stream) emit(ev Event) {
	if s.resync.Load() {
		s.dropped.Add(1)
		return
	}
	if !s.ch.accept(ev) {
		s.duplicates.Add(1)
		return
	}
	select {
	case s.events <- ev:
		s.delivered.Add(1)
	default:
		s.dropped.Add(1)
		s.resync.Store(true)
	}
}

// chunk splits ids into frames of at most n.
func chunk(ids []string, n int) [][]string {
	var out [][]string
	for len(ids) > n {
		out = append(out, ids[:n])
		ids = ids[n:]
	}
	if len(ids) > 0 {
		out = append(out, ids)
	}
	return out
}
