package exchange

import (
	"sync/atomic"
	"time"

	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/micro"
)

// The engine's event hook: what the venue's WebSocket channels report,
// produced where the state changes so nothing is inferred after the fact.
//
// Cost when nobody listens: every hook point first asks the sink whether it
// is Active (one atomic load in the sandbox's hub) and does nothing more
// when it is not, so the matching path is unchanged without subscribers.

// Event is one engine event; the concrete types follow.
type Event interface{ engineEvent() }

// EventSink receives the engine's events in the order they happened, each
// batch from one locked section in one call. Publish runs with the engine's
// lock held: it must not block and must not call back into the engine.
type EventSink interface {
	Active() bool
	Publish(evs []Event)
}

// LevelChange is one aggregated level after a mutation: SizeMicro is the
// level's new total (0 = gone) and Best* the token's top of book after it.
type LevelChange struct {
	TokenID    string
	Side       Side
	PriceMicro uint64
	SizeMicro  uint64
	BestBid    uint64 // 0 when the bid side is empty
	BestAsk    uint64 // 0 when the ask side is empty
}

// LevelsChanged lists the levels of one market that a locked section touched.
type LevelsChanged struct {
	ConditionID string
	Changes     []LevelChange
	Time        time.Time
}

// BookSnapshot is a token's whole book, sent after each match.
type BookSnapshot struct{ Book Book }

// LastTrade is a settled match as the market channel reports it: the price
// of the level hit and the taker's size and side.
type LastTrade struct {
	ConditionID string
	TokenID     string
	PriceMicro  uint64
	SizeMicro   uint64
	Side        Side
	TxHash      string
	Time        time.Time
}

// OrderEventKind is the user channel's order sub-type.
type OrderEventKind string

// Order event kinds.
const (
	OrderPlaced    OrderEventKind = "PLACEMENT"
	OrderUpdated   OrderEventKind = "UPDATE"
	OrderCancelled OrderEventKind = "CANCELLATION"
)

// OrderChanged is a change of one order, for its owner's key. Status, when
// set, overrides the view's (an FOK kill reports the venue's message).
type OrderChanged struct {
	Kind   OrderEventKind
	Order  OrderView
	Status string
	Time   time.Time
}

// TradeChanged is a trade entering a status, for its taker's and makers' keys.
type TradeChanged struct {
	Trade Trade
	Time  time.Time
}

// TickChanged reports a market's new minimum tick.
type TickChanged struct {
	Market  Market
	OldTick uint64
	NewTick uint64
	Time    time.Time
}

// MarketListed reports a new market.
type MarketListed struct {
	Market Market
	Time   time.Time
}

// MarketResolved reports a resolution.
type MarketResolved struct {
	Market Market
	Winner int // index into Market.Tokens
	Time   time.Time
}

func (LevelsChanged) engineEvent()  {}
func (BookSnapshot) engineEvent()   {}
func (LastTrade) engineEvent()      {}
func (OrderChanged) engineEvent()   {}
func (TradeChanged) engineEvent()   {}
func (TickChanged) engineEvent()    {}
func (MarketListed) engineEvent()   {}
func (MarketResolved) engineEvent() {}

// sinkFlag lets the confirmation timers skip all work without the lock.
type sinkFlag = atomic.Bool

type touchKey struct {
	b     *book
	side  Side
	price uint64
}

// SetEventSink installs the hook (nil removes it).
func (e *Engine) SetEventSink(s EventSink) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.sink = s
	e.hasSink.Store(s != nil)
}

// observing reports whether events are wanted (caller holds mu).
func (e *Engine) observing() bool { return e.sink != nil && e.sink.Active() }

// touch notes a level whose aggregate may have changed.
func (e *Engine) touch(b *book, side Side, price uint64) {
	if e.observing() {
		e.touched = append(e.touched, touchKey{b, side, price})
	}
}

// emit queues an event for the end of the locked section.
func (e *Engine) emit(ev Event) {
	if e.observing() {
		e.queued = append(e.queued, ev)
	}
}

// unlock publishes what the locked section produced, then releases the
// lock: the sink sees the events of concurrent calls in lock order. It
// returns the journal sequence number of the section's last change (0 when
// it kept nothing), for durable.
func (e *Engine) unlock() uint64 {
	if len(e.touched) > 0 || len(e.queued) > 0 {
		e.flushLocked()
	}
	seq := e.journalLocked()
	e.mu.Unlock()
	return seq
}

func (e *Engine) flushLocked() {
	touched, queued := e.touched, e.queued
	e.touched, e.queued = nil, nil
	if e.sink == nil {
		return
	}
	now := e.cfg.Clock()
	var out []Event
	byMarket := map[string]int{} // condition → index in out
	seen := map[touchKey]bool{}
	for _, t := range touched {
		if seen[t] {
			continue
		}
		seen[t] = true
		c := LevelChange{TokenID: t.b.tokenID, Side: t.side, PriceMicro: t.price, SizeMicro: levelSize(t.b, t.side, t.price)}
		if len(t.b.bids) > 0 {
			c.BestBid = t.b.bids[0].price
		}
		if len(t.b.asks) > 0 {
			c.BestAsk = t.b.asks[0].price
		}
		cond := t.b.market.ConditionID
		i, ok := byMarket[cond]
		if !ok {
			i = len(out)
			byMarket[cond] = i
			out = append(out, LevelsChanged{ConditionID: cond, Time: now})
		}
		lc := out[i].(LevelsChanged)
		lc.Changes = append(lc.Changes, c)
		out[i] = lc
	}
	for _, ev := range queued {
		if s, ok := ev.(BookSnapshot); ok {
			ev = BookSnapshot{Book: e.bookLocked(e.tokens[s.Book.TokenID], now)}
		}
		out = append(out, ev)
	}
	if len(out) > 0 {
		e.sink.Publish(out)
	}
}

func levelSize(b *book, side Side, price uint64) uint64 {
	ls := b.bids
	if side == Sell {
		ls = b.asks
	}
	for _, l := range ls {
		if l.price == price {
			var n uint64
			for _, en := range l.orders {
				n += en.shares - en.filled
			}
			return n
		}
	}
	return 0
}

// Books runs fn with snapshots of the given tokens' books (unknown tokens
// are left out) while holding the engine's lock, so no event can fall
// between the snapshots and whatever fn registers: the sandbox's market
// channel subscribes a socket this way and then sees every later change.
func (e *Engine) Books(tokenIDs []string, fn func([]Book)) {
	e.mu.Lock()
	defer e.unlock()
	now := e.cfg.Clock()
	out := make([]Book, 0, len(tokenIDs))
	for _, t := range tokenIDs {
		if b, ok := e.tokens[t]; ok {
			e.expireLocked(b, now)
			out = append(out, e.bookLocked(b, now))
		}
	}
	fn(out)
}

// Locked runs fn under the engine's lock, ordered with the events: the
// user channel registers a socket this way.
func (e *Engine) Locked(fn func()) {
	e.mu.Lock()
	defer e.unlock()
	fn()
}

// SetTick changes a market's minimum tick (the live venue narrows it when
// the price nears 0 or 1). Resting orders keep their prices; new orders
// must sit on the new tick.
func (e *Engine) SetTick(conditionID string, tickMicro uint64) (old uint64, err error) {
	if tickMicro == 0 || One%tickMicro != 0 {
		return 0, venue.Ef(venue.Invalid, "invalid tick size %s", micro.String(tickMicro))
	}
	e.mu.Lock()
	defer e.unlock()
	ms, ok := e.markets[conditionID]
	if !ok {
		return 0, venue.E(venue.NotFound, "market not found")
	}
	old = ms.TickMicro
	if old == tickMicro {
		return old, nil
	}
	ms.TickMicro = tickMicro
	e.emit(TickChanged{Market: ms.Market, OldTick: old, NewTick: tickMicro, Time: e.cfg.Clock()})
	return old, nil
}

// AnnounceListed reports a listed market once its catalogue entry exists
// (the market layer calls it after AddMarket and registering the market,
// so a new_market frame can carry the question and slug).
func (e *Engine) AnnounceListed(conditionID string) {
	e.mu.Lock()
	defer e.unlock()
	if ms, ok := e.markets[conditionID]; ok {
		e.emit(MarketListed{Market: ms.Market, Time: e.cfg.Clock()})
	}
}

// MarkResolved announces a market's resolution (its books are closed by
// CloseMarket; the outcome is decided on chain by the market layer).
func (e *Engine) MarkResolved(conditionID string, winner int) {
	e.mu.Lock()
	defer e.unlock()
	if ms, ok := e.markets[conditionID]; ok {
		e.emit(MarketResolved{Market: ms.Market, Winner: winner, Time: e.cfg.Clock()})
	}
}

// tradeOf is the trade a pending match makes, in the given status.
func (e *Engine) tradeOf(p *pending, status TradeStatus, st Settlement) Trade {
	taker, b, m := p.en, p.b, p.match
	shares, coll := m.TakerReceives, m.TakerFillAmount
	if taker.o.Side == Sell {
		shares, coll = m.TakerFillAmount, m.TakerReceives
	}
	t := Trade{
		ID:           p.tradeID,
		TakerOrderID: taker.o.ID,
		ConditionID:  b.market.ConditionID,
		TokenID:      b.tokenID,
		Outcome:      b.outcome,
		Side:         taker.o.Side,
		SizeMicro:    shares,
		PriceMicro:   mulDiv(coll, One, shares),
		Owner:        taker.o.Owner,
		Maker:        taker.o.Maker,
		Status:       status,
		TxHash:       st.TxHash,
		MatchTime:    p.now,
		LastUpdate:   p.now,
	}
	for _, f := range p.plan {
		mk := f.en
		t.MakerOrders = append(t.MakerOrders, MakerOrderView{
			OrderID: mk.o.ID, Owner: mk.o.Owner, Maker: mk.o.Maker, MatchedShares: f.shares,
			PriceMicro: mk.price, TokenID: b.tokenID, Outcome: b.outcome, Side: mk.o.Side,
		})
	}
	return t
}

// emitSettledLocked reports a settled match: the trade MINED, the market's
// last trade and fresh book, and each maker order's new fill.
func (e *Engine) emitSettledLocked(p *pending, t Trade) {
	if !e.observing() {
		return
	}
	now := e.cfg.Clock()
	mined := t
	mined.MakerOrders = append([]MakerOrderView(nil), t.MakerOrders...)
	mined.LastUpdate = now
	e.emit(TradeChanged{Trade: mined, Time: now})
	e.emit(LastTrade{ConditionID: t.ConditionID, TokenID: t.TokenID, PriceMicro: p.b.last, SizeMicro: t.SizeMicro,
		Side: t.Side, TxHash: t.TxHash.Hex(), Time: now})
	e.emit(BookSnapshot{Book: Book{TokenID: t.TokenID}})
	for _, f := range p.plan {
		e.emit(OrderChanged{Kind: OrderUpdated, Order: f.en.view(), Time: now})
	}
}

// emitFOKKill reports an FOK order that could not be filled, as the live
// venue does: a CANCELLATION carrying its message (reference §5.6).
func (e *Engine) emitFOKKill(o Order) {
	b, ok := e.tokens[o.TokenID]
	if !ok || !e.observing() || o.MakerAmount == 0 || o.TakerAmount == 0 {
		return
	}
	num, den := o.MakerAmount, o.TakerAmount
	if o.Side == Sell {
		num, den = o.TakerAmount, o.MakerAmount
	}
	now := e.cfg.Clock()
	v := OrderView{Order: o, ConditionID: b.market.ConditionID, Outcome: b.outcome, Status: StatusCanceled,
		PriceMicro: mulDiv(num, One, den), SizeMicro: orderShares(&o), CreatedAt: now}
	e.emit(OrderChanged{Kind: OrderCancelled, Order: v, Status: string(StatusCanceled) + "_" + MsgFOKNotFilled, Time: now})
}

// scheduleConfirm reports each mined trade CONFIRMED once ConfirmAfter has
// passed, when REST starts reporting it so. Only with a sink installed.
func (e *Engine) scheduleConfirm(trades []Trade) {
	if !e.hasSink.Load() {
		return
	}
	for _, t := range trades {
		wait := t.MatchTime.Add(e.cfg.ConfirmAfter).Sub(e.cfg.Clock())
		time.AfterFunc(max(wait, 0), func() {
			e.mu.Lock()
			defer e.unlock()
			stored, ok := e.tradeIdx[t.ID]
			if !ok || !e.observing() {
				return
			}
			c := *stored
			c.MakerOrders = append([]MakerOrderView(nil), stored.MakerOrders...)
			c.Status = TradeConfirmed
			c.LastUpdate = stored.MatchTime.Add(e.cfg.ConfirmAfter)
			e.emit(TradeChanged{Trade: c, Time: e.cfg.Clock()})
		})
	}
}
