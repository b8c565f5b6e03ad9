package server

import (
	"crypto/sha1"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/sandbox/exchange"
	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/micro"
	"github.com/agent-trading/ats/venue/ws"
)

// The CLOB WebSocket channels, /ws/market and /ws/user, served from the
// matching engine's event hook frame for frame as the live venue serves
// them (reference polymarket-websocket.md §5): text PING answered with
// PONG; a book per new asset on subscribe (one array frame); a price_change
// per book mutation listing every level touched with the new total and the
// top of book after it; per match a last_trade_price, then the book of the
// token; tick_size_change; with custom_feature_enabled best_bid_ask,
// new_market and market_resolved; on the user channel the key's order
// PLACEMENT/UPDATE/CANCELLATION and trade MATCHED → MINED → CONFIRMED (or
// FAILED), sent to the taker's and every maker's key. Frames are written by
// venue/ws.Marshal, the definition the client parses with.

const (
	// streamReadTimeout closes a socket that sent nothing (not even PING)
	// for this long. The live limit is undocumented; the official TS
	// example pings every 50 s, so the sandbox allows more than that.
	streamReadTimeout = 90 * time.Second
	// streamSendBuffer frames may wait for a socket before the sandbox
	// closes it as a slow consumer, as the live venue does (1013).
	streamSendBuffer = 4096
	streamWriteWait  = 10 * time.Second
	streamMaxFrame   = 1 << 20
)

// streams is the hub between the engine's events and the sockets.
//
// Ordering: the engine publishes under its lock into one queue, and a
// socket's (un)subscriptions enter the same queue under the engine's lock
// too (Engine.Books / Engine.Locked), together with the book snapshots
// taken at that moment. One dispatcher goroutine applies the queue in
// order, so a socket gets exactly the events after its snapshot. The
// dispatcher runs only while sockets are open, and the engine skips all
// event work while none are (Active).
type streams struct {
	s   *Server
	upg websocket.Upgrader

	open    atomic.Int64
	refuseT atomic.Int64 // unix nanos until which new sockets are refused

	mu      sync.Mutex
	queue   []any // exchange.Event or *streamOp
	running bool
	conns   map[*streamConn]bool
	wake    chan struct{}

	// Dispatcher-owned routing state.
	byAsset map[string]map[*streamConn]bool
	byKey   map[string]map[*streamConn]bool
	custom  map[*streamConn]bool
	top     map[string][2]uint64 // token → best bid/ask last reported
}

type streamConn struct {
	c      *websocket.Conn
	out    chan []byte
	done   chan struct{}
	once   sync.Once
	user   bool
	key    string
	filter map[string]bool // user: condition ids (empty = all); dispatcher-owned
	assets map[string]bool // market: dispatcher-owned
}

type streamOp struct {
	conn    *streamConn
	sub     bool // false = unsubscribe
	assets  []string
	markets []string
	books   []exchange.Book
	custom  bool
	leave   bool // the socket closed
}

func newStreams(s *Server) *streams {
	h := &streams{s: s, conns: map[*streamConn]bool{}, wake: make(chan struct{}, 1),
		byAsset: map[string]map[*streamConn]bool{}, byKey: map[string]map[*streamConn]bool{},
		custom: map[*streamConn]bool{}, top: map[string][2]uint64{}}
	h.upg = websocket.Upgrader{
		HandshakeTimeout: 10 * time.Second,
		// The venue's channels are public endpoints for any origin; the
		// user channel authenticates in its first frame, not by cookie.
		CheckOrigin: func(*http.Request) bool { return true },
	}
	return h
}

// Active implements exchange.EventSink.
func (h *streams) Active() bool { return h.open.Load() > 0 }

// Publish implements exchange.EventSink (called under the engine's lock).
func (h *streams) Publish(evs []exchange.Event) {
	h.mu.Lock()
	for _, ev := range evs {
		h.queue = append(h.queue, ev)
	}
	h.mu.Unlock()
	h.signal()
}

func (h *streams) enqueue(op *streamOp) {
	h.mu.Lock()
	h.queue = append(h.queue, op)
	h.mu.Unlock()
	h.signal()
}

func (h *streams) signal() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// Drop closes every socket without a close frame (the client sees 1006)
// and refuses new ones for refuse: the sandbox's fault injection for
// reconnect tests (POST /control/streams/drop).
func (h *streams) Drop(refuse time.Duration) int {
	h.refuseT.Store(time.Now().Add(refuse).UnixNano())
	h.mu.Lock()
	conns := make([]*streamConn, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	h.mu.Unlock()
	for _, c := range conns {
		_ = c.c.UnderlyingConn().Close()
	}
	return len(conns)
}

// Close closes every socket (the sandbox is stopping).
func (h *streams) Close() {
	h.mu.Lock()
	conns := make([]*streamConn, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	h.mu.Unlock()
	for _, c := range conns {
		c.close(websocket.CloseGoingAway, "server shutting down")
	}
}

func (c *streamConn) close(code int, reason string) {
	c.once.Do(func() {
		msg := websocket.FormatCloseMessage(code, reason)
		_ = c.c.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
		close(c.done)
		_ = c.c.Close()
	})
}

// send queues a frame without blocking the dispatcher; a socket that
// cannot keep up is closed as the live venue does.
func (c *streamConn) send(frame []byte) {
	select {
	case <-c.done:
	case c.out <- frame:
	default:
		go c.close(1013, "slow consumer: send buffer full")
	}
}

func (h *streams) serve(user bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if time.Now().UnixNano() < h.refuseT.Load() {
			writeError(w, venue.E(venue.Unavailable, "streams are unavailable"))
			return
		}
		conn, err := h.upg.Upgrade(w, r, nil)
		if err != nil {
			return // the upgrader answered the client
		}
		c := &streamConn{c: conn, out: make(chan []byte, streamSendBuffer), done: make(chan struct{}), user: user,
			filter: map[string]bool{}, assets: map[string]bool{}}
		h.join(c)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.writeLoop()
		}()
		h.readLoop(c)
		c.close(websocket.CloseNormalClosure, "")
		wg.Wait()
		h.leave(c)
	}
}

func (h *streams) join(c *streamConn) {
	h.mu.Lock()
	h.conns[c] = true
	h.open.Add(1)
	start := !h.running
	h.running = true
	h.mu.Unlock()
	if start {
		go h.dispatch()
	}
}

func (h *streams) leave(c *streamConn) {
	h.mu.Lock()
	delete(h.conns, c)
	h.mu.Unlock()
	h.open.Add(-1)
	h.enqueue(&streamOp{conn: c, leave: true})
}

func (c *streamConn) writeLoop() {
	for {
		select {
		case <-c.done:
			return
		case f := <-c.out:
			_ = c.c.SetWriteDeadline(time.Now().Add(streamWriteWait))
			if err := c.c.WriteMessage(websocket.TextMessage, f); err != nil {
				go c.close(websocket.CloseAbnormalClosure, "")
				return
			}
		}
	}
}

func (h *streams) readLoop(c *streamConn) {
	c.c.SetReadLimit(streamMaxFrame)
	subscribed := map[string]bool{} // market: assets this socket asked for
	authed := false
	for {
		_ = c.c.SetReadDeadline(time.Now().Add(streamReadTimeout))
		typ, data, err := c.c.ReadMessage()
		if err != nil {
			return
		}
		if typ != websocket.TextMessage {
			continue
		}
		text := strings.TrimSpace(string(data))
		if text == "PING" || text == "ping" {
			c.send([]byte("PONG"))
			continue
		}
		var sub ws.Subscription
		if err := json.Unmarshal(data, &sub); err != nil {
			c.close(websocket.CloseUnsupportedData, "invalid subscription")
			return
		}
		if c.user {
			if !authed || sub.Auth != nil {
				key, ok := h.authenticate(sub.Auth)
				if !ok || (authed && key != c.key) {
					c.close(websocket.ClosePolicyViolation, "Unauthorized/Invalid api key")
					return
				}
				c.key, authed = key, true
			}
			h.userSubscribe(c, sub)
			continue
		}
		h.marketSubscribe(c, sub, subscribed)
	}
}

// authenticate checks the raw L2 credentials against the key store.
func (h *streams) authenticate(a *ws.Auth) (string, bool) {
	if a == nil || a.APIKey == "" {
		return "", false
	}
	k, ok := h.s.keys.lookup(a.APIKey)
	if !ok {
		return "", false
	}
	if subtle.ConstantTimeCompare([]byte(k.creds.Secret), []byte(a.Secret)) != 1 ||
		subtle.ConstantTimeCompare([]byte(k.creds.Passphrase), []byte(a.Passphrase)) != 1 {
		return "", false
	}
	return k.creds.Key, true
}

func (h *streams) marketSubscribe(c *streamConn, sub ws.Subscription, subscribed map[string]bool) {
	if sub.Operation == ws.OpUnsubscribe {
		var gone []string
		for _, a := range sub.AssetsIDs {
			if subscribed[a] {
				delete(subscribed, a)
				gone = append(gone, a)
			}
		}
		h.enqueue(&streamOp{conn: c, assets: gone})
		return
	}
	// An asset already subscribed on this socket gets no new snapshot (§4).
	var fresh []string
	for _, a := range sub.AssetsIDs {
		if a != "" && !subscribed[a] {
			subscribed[a] = true
			fresh = append(fresh, a)
		}
	}
	op := &streamOp{conn: c, sub: true, assets: fresh, custom: sub.CustomFeatureEnabled}
	if sub.InitialDump != nil && !*sub.InitialDump {
		h.s.e.Locked(func() { h.enqueue(op) })
		return
	}
	h.s.e.Books(fresh, func(bs []exchange.Book) {
		op.books = bs
		h.enqueue(op)
	})
}

func (h *streams) userSubscribe(c *streamConn, sub ws.Subscription) {
	ms := make([]string, 0, len(sub.Markets))
	for _, m := range sub.Markets {
		if m != "" {
			ms = append(ms, strings.ToLower(m))
		}
	}
	op := &streamOp{conn: c, sub: sub.Operation != ws.OpUnsubscribe, markets: ms}
	h.s.e.Locked(func() { h.enqueue(op) })
}

// dispatch applies the queue in order until no socket is open.
func (h *streams) dispatch() {
	for {
		h.mu.Lock()
		q := h.queue
		h.queue = nil
		if len(q) == 0 && len(h.conns) == 0 {
			h.running = false
			h.mu.Unlock()
			return
		}
		h.mu.Unlock()
		if len(q) == 0 {
			<-h.wake
			continue
		}
		for _, item := range q {
			switch it := item.(type) {
			case *streamOp:
				h.apply(it)
			case exchange.Event:
				h.route(it)
			}
		}
	}
}

func addTo(m map[string]map[*streamConn]bool, k string, c *streamConn) {
	if m[k] == nil {
		m[k] = map[*streamConn]bool{}
	}
	m[k][c] = true
}

func removeFrom(m map[string]map[*streamConn]bool, k string, c *streamConn) {
	delete(m[k], c)
	if len(m[k]) == 0 {
		delete(m, k)
	}
}

func (h *streams) apply(op *streamOp) {
	c := op.conn
	switch {
	case op.leave:
		for a := range c.assets {
			removeFrom(h.byAsset, a, c)
		}
		if c.key != "" {
			removeFrom(h.byKey, c.key, c)
		}
		delete(h.custom, c)
	case c.user:
		addTo(h.byKey, c.key, c)
		for _, m := range op.markets {
			if op.sub {
				c.filter[m] = true
			} else {
				delete(c.filter, m)
			}
		}
	case !op.sub:
		for _, a := range op.assets {
			delete(c.assets, a)
			removeFrom(h.byAsset, a, c)
		}
	default:
		if op.custom {
			h.custom[c] = true
		}
		for _, a := range op.assets {
			c.assets[a] = true
			addTo(h.byAsset, a, c)
		}
		if len(op.books) > 0 {
			evs := make([]ws.Event, len(op.books))
			for i, b := range op.books {
				evs[i] = h.bookEvent(b)
			}
			// The dump is one array frame per subscribe frame (§5.2).
			if f, err := ws.MarshalArray(evs...); err == nil {
				c.send(f)
			}
		}
	}
}

func (h *streams) sendTo(c *streamConn, evs ...ws.Event) {
	if len(evs) == 0 {
		return
	}
	f, err := ws.Marshal(evs...)
	if err != nil {
		h.s.log.Error("stream: could not encode events", "err", err)
		return
	}
	c.send(f)
}

// micro converts the engine's micro-units to the wire's decimal.

func opaqueHash(parts ...string) string {
	s := sha1.Sum([]byte(strings.Join(parts, "|")))
	return hex.EncodeToString(s[:])
}

func wireSide(s exchange.Side) ws.Side { return ws.Side(s.String()) }

func (h *streams) bookEvent(b exchange.Book) *ws.BookEvent {
	ev := &ws.BookEvent{AssetID: b.TokenID, Market: b.Market.ConditionID, Timestamp: b.Timestamp,
		Hash: h.s.summary(b).Hash, TickSize: micro.FromUint64(b.Market.TickMicro)}
	for _, l := range b.Bids {
		ev.Bids = append(ev.Bids, ws.Level{Price: micro.FromUint64(l.PriceMicro), Size: micro.FromUint64(l.SizeMicro)})
	}
	for _, l := range b.Asks {
		ev.Asks = append(ev.Asks, ws.Level{Price: micro.FromUint64(l.PriceMicro), Size: micro.FromUint64(l.SizeMicro)})
	}
	if last, err := decimal.NewFromString(lastPrice(b)); err == nil {
		ev.LastTradePrice = decimal.NewNullDecimal(last)
	}
	return ev
}

func (h *streams) route(ev exchange.Event) {
	switch e := ev.(type) {
	case exchange.LevelsChanged:
		h.routeLevels(e)
	case exchange.BookSnapshot:
		h.toAsset(e.Book.TokenID, h.bookEvent(e.Book))
	case exchange.LastTrade:
		h.toAsset(e.TokenID, &ws.LastTradePriceEvent{AssetID: e.TokenID, Market: e.ConditionID, Price: micro.FromUint64(e.PriceMicro),
			Size: micro.FromUint64(e.SizeMicro), Side: wireSide(e.Side), FeeRateBps: decimal.Zero, Timestamp: e.Time,
			TransactionHash: e.TxHash})
	case exchange.TickChanged:
		for _, t := range e.Market.Tokens {
			h.toAsset(t, &ws.TickSizeChangeEvent{AssetID: t, Market: e.Market.ConditionID,
				OldTickSize: micro.FromUint64(e.OldTick), NewTickSize: micro.FromUint64(e.NewTick), Timestamp: e.Time})
		}
	case exchange.MarketListed:
		h.routeListed(e)
	case exchange.MarketResolved:
		h.routeResolved(e)
	case exchange.OrderChanged:
		h.routeOrder(e)
	case exchange.TradeChanged:
		h.routeTrade(e)
	}
}

func (h *streams) toAsset(token string, ev ws.Event) {
	conns := h.byAsset[token]
	if len(conns) == 0 {
		return
	}
	f, err := ws.Marshal(ev)
	if err != nil {
		h.s.log.Error("stream: could not encode an event", "err", err)
		return
	}
	for c := range conns {
		c.send(f)
	}
}

func (h *streams) routeLevels(e exchange.LevelsChanged) {
	ts := strconv.FormatInt(e.Time.UnixMilli(), 10)
	changes := make([]ws.PriceChange, len(e.Changes))
	for i, lc := range e.Changes {
		bid, ask := micro.FromUint64(lc.BestBid), decimal.NewFromInt(1) // an empty ask side reads "1" (§7.5)
		if lc.BestAsk > 0 {
			ask = micro.FromUint64(lc.BestAsk)
		}
		changes[i] = ws.PriceChange{AssetID: lc.TokenID, Price: micro.FromUint64(lc.PriceMicro), Size: micro.FromUint64(lc.SizeMicro),
			Side: wireSide(lc.Side), Hash: opaqueHash(lc.TokenID, lc.Side.String(), micro.FromUint64(lc.PriceMicro).String(), micro.FromUint64(lc.SizeMicro).String(), ts),
			BestBid: decimal.NewNullDecimal(bid), BestAsk: decimal.NewNullDecimal(ask)}
	}
	// One frame per market, holding the entries of the tokens each socket
	// subscribed to; sockets asking for the same tokens share the encoding.
	tokens := map[string]bool{}
	for _, c := range changes {
		tokens[c.AssetID] = true
	}
	frames := map[string][]byte{}
	sent := map[*streamConn]bool{}
	for t := range tokens {
		for c := range h.byAsset[t] {
			if sent[c] {
				continue
			}
			sent[c] = true
			var keep []ws.PriceChange
			var key strings.Builder
			for _, pc := range changes {
				if c.assets[pc.AssetID] {
					keep = append(keep, pc)
					key.WriteString(pc.AssetID + ",")
				}
			}
			f, ok := frames[key.String()]
			if !ok {
				var err error
				if f, err = ws.Marshal(&ws.PriceChangeEvent{Market: e.ConditionID, Changes: keep, Timestamp: e.Time}); err != nil {
					continue
				}
				frames[key.String()] = f
			}
			c.send(f)
		}
	}
	// best_bid_ask, for sockets that asked for the custom feature.
	last := map[string]exchange.LevelChange{}
	for _, lc := range e.Changes {
		last[lc.TokenID] = lc
	}
	ids := make([]string, 0, len(last))
	for t := range last {
		ids = append(ids, t)
	}
	sort.Strings(ids)
	for _, t := range ids {
		lc := last[t]
		now := [2]uint64{lc.BestBid, lc.BestAsk}
		if h.top[t] == now {
			continue
		}
		h.top[t] = now
		var f []byte
		for c := range h.byAsset[t] {
			if !h.custom[c] {
				continue
			}
			if f == nil {
				bid, ask := micro.FromUint64(lc.BestBid), micro.FromUint64(lc.BestAsk)
				if lc.BestAsk == 0 {
					ask = decimal.NewFromInt(1)
				}
				var err error
				if f, err = ws.Marshal(&ws.BestBidAskEvent{AssetID: t, Market: e.ConditionID, BestBid: bid, BestAsk: ask,
					Spread: ask.Sub(bid), Timestamp: e.Time}); err != nil {
					break
				}
			}
			c.send(f)
		}
	}
}

func (h *streams) routeListed(e exchange.MarketListed) {
	if len(h.custom) == 0 {
		return
	}
	ev := &ws.NewMarketEvent{Market: e.Market.ConditionID, AssetIDs: e.Market.Tokens[:], Outcomes: e.Market.Outcomes[:],
		Active: true, OrderPriceMinTickSize: micro.FromUint64(e.Market.TickMicro), Timestamp: e.Time}
	if m, ok := h.s.v.ByCondition(e.Market.ConditionID); ok {
		ev.ID, ev.Question, ev.Slug, ev.Description, ev.Tags = strconv.Itoa(m.ID), m.Question, m.Slug, m.Description, m.Tags
		ev.EventMessage = &ws.EventMessage{ID: strconv.Itoa(m.EventID), Ticker: m.EventSlug, Slug: m.EventSlug, Title: m.EventTitle}
	}
	// new_market goes to every custom-feature socket, subscribed or not (§1.2).
	for c := range h.custom {
		h.sendTo(c, ev)
	}
}

func (h *streams) routeResolved(e exchange.MarketResolved) {
	ev := &ws.MarketResolvedEvent{Market: e.Market.ConditionID, AssetIDs: e.Market.Tokens[:],
		WinningAssetID: e.Market.Tokens[e.Winner], WinningOutcome: e.Market.Outcomes[e.Winner], Timestamp: e.Time}
	if m, ok := h.s.v.ByCondition(e.Market.ConditionID); ok {
		ev.ID, ev.Tags = strconv.Itoa(m.ID), m.Tags
	}
	sent := map[*streamConn]bool{}
	for _, t := range e.Market.Tokens {
		for c := range h.byAsset[t] {
			if h.custom[c] && !sent[c] {
				sent[c] = true
				h.sendTo(c, ev)
			}
		}
	}
}

// toKey sends to the user sockets of key whose market filter admits cond.
func (h *streams) toKey(key, cond string, ev ws.Event) {
	var f []byte
	for c := range h.byKey[key] {
		if len(c.filter) > 0 && !c.filter[strings.ToLower(cond)] {
			continue
		}
		if f == nil {
			var err error
			if f, err = ws.Marshal(ev); err != nil {
				h.s.log.Error("stream: could not encode an event", "err", err)
				return
			}
		}
		c.send(f)
	}
}

func (h *streams) routeOrder(e exchange.OrderChanged) {
	v := e.Order
	if len(h.byKey[v.Owner]) == 0 {
		return
	}
	status := e.Status
	if status == "" {
		status = string(v.Status)
	}
	ev := &ws.OrderEvent{Type: ws.OrderEventType(e.Kind), ID: v.ID, Owner: v.Owner, OrderOwner: v.Owner,
		Market: v.ConditionID, AssetID: v.TokenID, Side: wireSide(v.Side), Outcome: v.Outcome,
		OriginalSize: micro.FromUint64(v.SizeMicro), SizeMatched: micro.FromUint64(v.MatchedMicro), Price: micro.FromUint64(v.PriceMicro),
		AssociateTrades: v.TradeIDs, CreatedAt: v.CreatedAt, OrderType: string(v.Type), Status: status,
		MakerAddress: v.Maker.Hex(), Timestamp: e.Time}
	if v.Expiration > 0 {
		ev.Expiration = time.Unix(v.Expiration, 0)
	}
	h.toKey(v.Owner, v.ConditionID, ev)
}

func (h *streams) routeTrade(e exchange.TradeChanged) {
	t := e.Trade
	recipients := []string{t.Owner}
	for _, m := range t.MakerOrders {
		recipients = append(recipients, m.Owner)
	}
	seen := map[string]bool{}
	for i, key := range recipients {
		if seen[key] || len(h.byKey[key]) == 0 {
			continue
		}
		seen[key] = true
		side := "MAKER"
		if i == 0 {
			side = "TAKER"
		}
		ev := &ws.TradeEvent{ID: t.ID, TakerOrderID: t.TakerOrderID, Market: t.ConditionID, AssetID: t.TokenID,
			Side: wireSide(t.Side), Size: micro.FromUint64(t.SizeMicro), Price: micro.FromUint64(t.PriceMicro), FeeRateBps: decimal.Zero,
			Status: ws.TradeStatus(t.Status), MatchTime: t.MatchTime, LastUpdate: t.LastUpdate, Outcome: t.Outcome,
			Owner: t.Owner, TradeOwner: t.Owner, MakerAddress: t.Maker.Hex(), TraderSide: side, Timestamp: e.Time}
		if t.Status != exchange.TradeMatched && t.Status != exchange.TradeFailed {
			ev.TransactionHash = t.TxHash.Hex()
		}
		for _, m := range t.MakerOrders {
			ev.MakerOrders = append(ev.MakerOrders, ws.MakerOrder{OrderID: m.OrderID, Owner: m.Owner,
				MakerAddress: m.Maker.Hex(), MatchedAmount: micro.FromUint64(m.MatchedShares), Price: micro.FromUint64(m.PriceMicro),
				FeeRateBps: decimal.Zero, AssetID: m.TokenID, Outcome: m.Outcome, Side: wireSide(m.Side)})
		}
		h.toKey(key, t.ConditionID, ev)
	}
}

// controlStreamsDrop is POST /control/streams/drop {"refuse_ms": N}.
func (s *Server) controlStreamsDrop(w http.ResponseWriter, r *http.Request) {
	var body struct {
		RefuseMS int64 `json:"refuse_ms"`
	}
	if r.ContentLength != 0 {
		if err := decodeBody(r, &body); err != nil {
			writeError(w, err)
			return
		}
	}
	if body.RefuseMS < 0 || body.RefuseMS > 600_000 {
		writeError(w, invalid("refuse_ms must be between 0 and 600000"))
		return
	}
	n := s.streams.Drop(time.Duration(body.RefuseMS) * time.Millisecond)
	writeJSON(w, http.StatusOK, map[string]any{"dropped": n})
}

// controlTick is POST /control/markets/{condition id}/tick {"tick": "0.001"}: the
// live venue narrows a market's tick near 0 and 1; this triggers it.
func (s *Server) controlTick(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Tick string `json:"tick"`
	}
	if err := decodeBody(r, &body); err != nil {
		writeError(w, err)
		return
	}
	tick, ok := micro.ParseExact(body.Tick)
	if !ok || tick == 0 {
		writeError(w, invalid(fmt.Sprintf("invalid tick %q", body.Tick)))
		return
	}
	info, err := s.v.SetTick(r.PathValue("id"), tick)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, s.controlMarket(info))
}
