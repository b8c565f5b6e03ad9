package exchange

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/uuid"

	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/micro"
)

// The venue's exact messages (protocol reference §8.2); clients match on them.
const (
	MsgInvalidPayload    = "Invalid order payload"
	MsgNotEnoughBalance  = "not enough balance / allowance"
	MsgPostOnlyCrosses   = "invalid post-only order: order crosses book"
	MsgPostOnlyType      = "invalid post-only order: only GTC and GTD order types are allowed"
	MsgFOKNotFilled      = "order couldn't be fully filled. FOK orders are fully filled or killed."
	MsgFAKNoMatch        = "no orders found to match with FAK order. FAK orders are partially filled or killed if no match is found."
	MsgMarketNotReady    = "the market is not yet ready to process new orders"
	MsgInvalidExpiration = "invalid expiration"
	MsgMarketBuyAccuracy = "invalid amounts, the market buy orders maker amount supports a max accuracy of 2 decimals, taker amount a max of 4 decimals"
	MsgExecution         = "could not run the execution"
	MsgOrderNotFound     = "order not found"
	MsgAlreadyDone       = "order can't be found - already canceled or matched"
)

// gtdThreshold is the live venue's one-minute security threshold: a GTD
// order must expire at least this far in the future.
const gtdThreshold = 60 * time.Second

// Config wires an engine.
type Config struct {
	Ledger  Ledger
	Settler Settler
	// Clock defaults to time.Now.
	Clock Clock
	// ConfirmAfter is how long after mining a trade reports CONFIRMED.
	ConfirmAfter time.Duration
	// OnTrade, when set, is called for every settled trade after the
	// engine's lock is released (so it may call back into the engine).
	OnTrade func(Trade)
	Logger  *slog.Logger

	// Journal, when set, keeps the orders, trades and matches in flight
	// on disk (persist.go); every call that changes them returns once the
	// change is durable. Nil keeps everything in memory.
	Journal Journal
	// Ephemeral names owners whose orders are not kept (the synthetic
	// market makers, who quote afresh when the venue reopens).
	Ephemeral func(owner string) bool
	// DecodeSigned turns a kept order's signed wire order (the JSON of
	// Order.Signed) back into Order.Signed.
	DecodeSigned func(raw []byte) (any, error)
}

// Engine is the matching engine.
//
// Concurrency: one mutex guards every book, the order index and the
// reservations. A per-book lock would not be enough: an order's funds are
// reserved across all of its maker's books (a wallet's collateral backs bids
// in every market), so admission on one book reads state the others write.
// Settlement runs outside it (Place's second phase): under the lock a match
// takes its makers' quantities off the book and reserves the taker's funds,
// so no other order can trade what is being settled; the lock is released
// while the chain mines the settlement (a block interval), and taken again to
// make the fills final or, when settlement failed, to give the makers their
// quantities back at their original priority. Concurrent matches therefore
// share blocks instead of queueing one block each (see BenchmarkMatchSettle*).
type Engine struct {
	cfg Config
	log *slog.Logger

	mu       sync.Mutex
	markets  map[string]*marketState // by condition id
	tokens   map[string]*book        // by token id
	orders   map[string]*entry       // every order ever accepted, by id
	trades   []*Trade
	tradeIdx map[string]*Trade
	reserved map[common.Address]map[string]uint64 // maker → asset ("" = collateral) → micro
	inflight map[string]bool                      // order ids between admission and finish
	seq      uint64
	// jkeys and jvals are the locked section's changes for the journal
	// (persist.go), tradeSeq the number of the last kept trade.
	jkeys    []string
	jvals    []any
	tradeSeq uint64

	// The event hook (events.go): what a locked section touched and
	// queued, published when it unlocks.
	sink    EventSink
	hasSink sinkFlag
	touched []touchKey
	queued  []Event
}

type marketState struct {
	Market
	accepting bool
}

type book struct {
	market   *marketState
	tokenID  string
	outcome  string
	bids     []*level // best (highest) first
	asks     []*level // best (lowest) first
	last     uint64
	lastSide Side
	hasLast  bool
	// gtd counts resting GTD orders and nextExpiry is a lower bound of
	// their expirations, so the expiry scan runs only when one may be due.
	gtd        int
	nextExpiry int64
}

type level struct {
	price  uint64
	orders []*entry
}

type entry struct {
	o        Order
	price    uint64 // limit price in micro (exact for resting orders)
	shares   uint64 // original size in shares
	filled   uint64 // shares filled, including fills being settled
	pending  uint64 // shares of filled whose settlement is in flight
	status   Status
	created  time.Time
	seq      uint64
	tradeIDs []string
	book     *book
}

// New returns an engine.
func New(cfg Config) *Engine {
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Engine{
		cfg:      cfg,
		log:      cfg.Logger,
		markets:  map[string]*marketState{},
		tokens:   map[string]*book{},
		orders:   map[string]*entry{},
		tradeIdx: map[string]*Trade{},
		reserved: map[common.Address]map[string]uint64{},
		inflight: map[string]bool{},
	}
}

// AddMarket lists a market; its books start empty and accept orders.
func (e *Engine) AddMarket(m Market) error {
	if m.TickMicro == 0 || One%m.TickMicro != 0 {
		return venue.Ef(venue.Invalid, "invalid tick size %s", micro.String(m.TickMicro))
	}
	if m.Tokens[0] == "" || m.Tokens[1] == "" || m.Tokens[0] == m.Tokens[1] {
		return venue.E(venue.Invalid, "a market needs two distinct token ids")
	}
	e.mu.Lock()
	defer e.unlock()
	if _, ok := e.markets[m.ConditionID]; ok {
		return venue.E(venue.Conflict, "market already listed")
	}
	ms := &marketState{Market: m, accepting: true}
	e.markets[m.ConditionID] = ms
	for i, t := range m.Tokens {
		e.tokens[t] = &book{market: ms, tokenID: t, outcome: m.Outcomes[i]}
	}
	return nil
}

// CloseMarket stops a market from accepting orders and cancels its open
// orders (used when a market resolves).
func (e *Engine) CloseMarket(conditionID string) []string {
	e.mu.Lock()
	defer e.unlockDurable()
	ms, ok := e.markets[conditionID]
	if !ok {
		return nil
	}
	ms.accepting = false
	var ids []string
	for _, t := range ms.Tokens {
		b := e.tokens[t]
		for _, side := range [][]*level{b.bids, b.asks} {
			for _, l := range side {
				for _, en := range l.orders {
					ids = append(ids, en.o.ID)
				}
			}
		}
	}
	for _, id := range ids {
		e.cancelLocked(e.orders[id])
	}
	return ids
}

// MarketFor returns the market a token belongs to.
func (e *Engine) MarketFor(tokenID string) (Market, bool) {
	e.mu.Lock()
	defer e.unlock()
	b, ok := e.tokens[tokenID]
	if !ok {
		return Market{}, false
	}
	return b.market.Market, true
}

// Market returns a listed market and whether it still accepts orders.
func (e *Engine) Market(conditionID string) (Market, bool, bool) {
	e.mu.Lock()
	defer e.unlock()
	ms, ok := e.markets[conditionID]
	if !ok {
		return Market{}, false, false
	}
	return ms.Market, ms.accepting, true
}

// Place admits, matches and (for GTC/GTD) rests an order.
//
// Matching is two-phase so that a slow settlement (a block interval on the
// chain) does not stall the venue: under the lock the order is admitted,
// the fills are planned and the maker quantities are taken off the book
// (tentatively filled, so nobody else can trade them) and the taker's funds
// are reserved; the lock is released while the Settler runs; then, under
// the lock again, the fills become final, or, when settlement failed, the
// maker orders get their quantities back at their original time priority.
func (e *Engine) Place(ctx context.Context, o Order) (Result, error) {
	e.mu.Lock()
	p, err := e.admitLocked(ctx, o)
	seq := e.unlock()
	// A match is on disk before its settlement is sent (the makers it
	// cancelled on the way too), so a restart can always tell what the
	// chain may have settled.
	derr := e.durable(seq)
	if err != nil {
		return Result{}, err
	}
	return e.settle(ctx, p, derr)
}

// settle is Place's second phase for an admitted order: its match goes to
// the Settler (unless it could not be recorded: derr), then, under the
// lock, the fills become final or are rolled back and the order rests or
// closes.
func (e *Engine) settle(ctx context.Context, p *pending, derr error) (Result, error) {
	var st Settlement
	var serr error
	switch {
	case p.match != nil && derr != nil:
		serr = derr // not recorded: never sent
	case p.match != nil && e.cfg.Settler != nil:
		st, serr = e.cfg.Settler.Settle(ctx, *p.match)
	}
	e.mu.Lock()
	res, trades, err := e.finishLocked(p, st, serr)
	seq := e.unlock()
	if derr := e.durable(seq); derr != nil && err == nil {
		res, err = Result{}, derr
	}
	e.scheduleConfirm(trades)
	if e.cfg.OnTrade != nil {
		for _, t := range trades {
			e.cfg.OnTrade(t)
		}
	}
	return res, err
}

// pending is an order between the two phases of Place.
type pending struct {
	en    *entry
	b     *book
	plan  []plannedFill
	match *Match
	now   time.Time
	// takerHold is the taker's funds held while the match settles.
	takerHold uint64
	// tradeID is the match's trade id, known from the MATCHED event on.
	tradeID string
}

func invalid(msg string) error { return venue.E(venue.Invalid, msg) }

func orderShares(o *Order) uint64 {
	if o.Side == Buy {
		return o.TakerAmount
	}
	return o.MakerAmount
}

// remainingMaker is what an order still reserves, in its makerAmount units.
func (en *entry) remainingMaker() uint64 {
	rem := en.shares - en.filled
	if en.o.Side == Sell {
		return rem
	}
	return mulDiv(rem, en.o.MakerAmount, en.o.TakerAmount)
}

func assetOf(o *Order) string {
	if o.Side == Buy {
		return ""
	}
	return o.TokenID
}

// validate applies the venue's admission rules that need no funds.
func (e *Engine) validate(o *Order, b *book, now time.Time) (price uint64, err error) {
	if o.ID == "" || o.MakerAmount == 0 || o.TakerAmount == 0 || (o.Side != Buy && o.Side != Sell) {
		return 0, invalid(MsgInvalidPayload)
	}
	switch o.Type {
	case GTC, GTD, FOK, FAK:
	default:
		return 0, invalid(MsgInvalidPayload)
	}
	if _, dup := e.orders[o.ID]; dup {
		return 0, invalid(fmt.Sprintf("order %s is invalid. Duplicated.", o.ID))
	}
	if !b.market.accepting {
		return 0, invalid(MsgMarketNotReady)
	}
	if o.PostOnly && !o.Type.Resting() {
		return 0, invalid(MsgPostOnlyType)
	}
	if o.Type == GTD {
		if o.Expiration <= 0 || time.Unix(o.Expiration, 0).Before(now.Add(gtdThreshold)) {
			return 0, invalid(MsgInvalidExpiration)
		}
	} else if o.Expiration != 0 {
		return 0, invalid(MsgInvalidExpiration)
	}
	tick := b.market.TickMicro
	num, den := o.MakerAmount, o.TakerAmount // BUY price = maker/taker
	if o.Side == Sell {
		num, den = o.TakerAmount, o.MakerAmount
	}
	if o.Type.Resting() {
		p, exact := mulDivExact(num, One, den)
		if !exact || p%tick != 0 || p < tick || p > One-tick {
			return 0, invalid(fmt.Sprintf("order %s is invalid. Price (%s) breaks minimum tick size rule: %s",
				o.ID, priceString(num, den), micro.String(tick)))
		}
		if sh := orderShares(o); sh < b.market.MinSizeMicro {
			return 0, invalid(fmt.Sprintf("order %s is invalid. Size (%s) lower than the minimum: %s",
				o.ID, micro.String(sh), micro.String(b.market.MinSizeMicro)))
		}
		return p, nil
	}
	// Market orders carry an implied price that need not sit on the tick
	// (the SDK derives the share amount by division); the venue instead
	// bounds the precision of a market buy's amounts.
	if o.Side == Buy && (o.MakerAmount%10_000 != 0 || o.TakerAmount%100 != 0) {
		return 0, invalid(MsgMarketBuyAccuracy)
	}
	if num >= den {
		return 0, invalid(fmt.Sprintf("order %s is invalid. Price (%s) breaks minimum tick size rule: %s",
			o.ID, priceString(num, den), micro.String(tick)))
	}
	return mulDiv(num, One, den), nil
}

func priceString(num, den uint64) string {
	p, exact := mulDivExact(num, One, den)
	if exact {
		return micro.String(p)
	}
	return micro.String(p) + "…"
}

// available is what a maker may still commit of an asset: min(balance,
// allowance) minus what its open orders reserve.
func (e *Engine) available(ctx context.Context, maker common.Address, asset string, negRisk bool) (uint64, error) {
	if e.cfg.Ledger == nil {
		return math.MaxUint64, nil
	}
	bal, allow, err := e.cfg.Ledger.Funds(ctx, maker, asset, negRisk)
	if err != nil {
		return 0, venue.Wrap(venue.Unavailable, err, "could not read balance and allowance")
	}
	have := min(satUint64(bal), satUint64(allow))
	res := e.reserved[maker][asset]
	if res >= have {
		return 0, nil
	}
	return have - res, nil
}

func (e *Engine) reserve(maker common.Address, asset string, delta int64) {
	m := e.reserved[maker]
	if m == nil {
		m = map[string]uint64{}
		e.reserved[maker] = m
	}
	if delta >= 0 {
		m[asset] += uint64(delta)
		return
	}
	d := uint64(-delta)
	if m[asset] <= d {
		delete(m, asset)
		if len(m) == 0 {
			delete(e.reserved, maker)
		}
		return
	}
	m[asset] -= d
}

// crosses reports whether a resting price on the opposite side is acceptable
// to the incoming order.
func crosses(o *Order, restingPrice uint64) bool {
	if o.Side == Buy { // resting ask ≤ maker/taker
		return cmpProducts(restingPrice, o.TakerAmount, o.MakerAmount, One) <= 0
	}
	// resting bid ≥ taker/maker
	return cmpProducts(restingPrice, o.MakerAmount, o.TakerAmount, One) >= 0
}

type plannedFill struct {
	en     *entry
	shares uint64
}

func (e *Engine) admitLocked(ctx context.Context, o Order) (*pending, error) {
	now := e.cfg.Clock()
	b, ok := e.tokens[o.TokenID]
	if !ok {
		return nil, invalid("Invalid token id")
	}
	e.expireLocked(b, now)
	if e.inflight[o.ID] {
		return nil, invalid(fmt.Sprintf("order %s is invalid. Duplicated.", o.ID))
	}
	price, err := e.validate(&o, b, now)
	if err != nil {
		return nil, err
	}
	avail, err := e.available(ctx, o.Maker, assetOf(&o), b.market.NegRisk)
	if err != nil {
		return nil, err
	}
	if o.MakerAmount > avail {
		return nil, invalid(MsgNotEnoughBalance)
	}
	opp := b.asks
	if o.Side == Sell {
		opp = b.bids
	}
	if o.PostOnly && len(opp) > 0 && crosses(&o, opp[0].price) {
		return nil, invalid(MsgPostOnlyCrosses)
	}

	e.seq++
	en := &entry{o: o, price: price, shares: orderShares(&o), status: StatusLive, created: now, seq: e.seq, book: b}
	plan, err := e.planLocked(ctx, en, b)
	if err != nil {
		return nil, err
	}
	var planned uint64
	for _, f := range plan {
		planned += f.shares
	}
	switch {
	case o.Type == FOK && planned < en.shares:
		e.emitFOKKill(o)
		return nil, invalid(MsgFOKNotFilled)
	case o.Type == FAK && planned == 0:
		return nil, invalid(MsgFAKNoMatch)
	}
	p := &pending{en: en, b: b, plan: plan, now: now}
	e.inflight[o.ID] = true
	if len(plan) > 0 {
		m := buildMatch(en, b, plan)
		p.match = &m
		p.tradeID = uuid.NewString()
		p.takerHold = o.MakerAmount
		e.reserve(o.Maker, assetOf(&o), int64(p.takerHold))
		for _, f := range plan {
			mk := f.en
			before := mk.remainingMaker()
			mk.filled += f.shares
			mk.pending += f.shares
			e.reserve(mk.o.Maker, assetOf(&mk.o), -int64(before-mk.remainingMaker()))
			e.touch(b, mk.o.Side, mk.price)
			if mk.filled == mk.shares {
				e.removeLocked(mk)
			}
		}
		if e.observing() {
			e.emit(TradeChanged{Trade: e.tradeOf(p, TradeMatched, Settlement{}), Time: now})
		}
		e.saveMatchLocked(p)
	}
	return p, nil
}

// finishLocked makes a pending order's fills final (or rolls them back when
// settlement failed) and rests or closes the order.
func (e *Engine) finishLocked(p *pending, st Settlement, serr error) (Result, []Trade, error) {
	en, o := p.en, &p.en.o
	delete(e.inflight, o.ID)
	if p.takerHold > 0 {
		e.reserve(o.Maker, assetOf(o), -int64(p.takerHold))
	}
	if serr != nil {
		for _, f := range p.plan {
			mk := f.en
			mk.filled -= f.shares
			mk.pending -= f.shares
			if mk.status != StatusLive {
				continue // cancelled meanwhile: the restored part stays off the book
			}
			if mk.filled+f.shares == mk.shares {
				e.insertLocked(mk.book, mk) // it had left the book; seq keeps its priority
			}
			e.touch(mk.book, mk.o.Side, mk.price)
			e.reserve(mk.o.Maker, assetOf(&mk.o), int64(restoredReserve(mk, f.shares)))
		}
		if p.match != nil && e.observing() {
			e.emit(TradeChanged{Trade: e.tradeOf(p, TradeFailed, Settlement{}), Time: e.cfg.Clock()})
		}
		if p.match != nil {
			e.dropMatchLocked(o.ID)
		}
		e.log.Warn("settlement failed; match discarded", "taker", o.ID, "err", serr)
		return Result{}, nil, venue.Wrap(venue.Rejected, serr, MsgExecution)
	}

	res := Result{OrderID: o.ID, Status: "live"}
	var trades []Trade
	if p.match != nil {
		t := e.recordLocked(p, st)
		trades = append(trades, t)
		e.emitSettledLocked(p, t)
		res.Status = "matched"
		res.TradeIDs = []string{t.ID}
		res.TxHashes = []common.Hash{t.TxHash}
		if o.Side == Buy {
			res.MakingMicro, res.TakingMicro = p.match.TakerFillAmount, t.SizeMicro
		} else {
			res.MakingMicro, res.TakingMicro = t.SizeMicro, p.match.TakerReceives
		}
	}
	e.orders[o.ID] = en
	switch {
	case en.filled == en.shares:
		en.status = StatusMatched
	case o.Type.Resting():
		e.reserve(o.Maker, assetOf(o), int64(en.remainingMaker()))
		e.insertLocked(p.b, en)
		e.emit(OrderChanged{Kind: OrderPlaced, Order: en.view(), Time: p.now})
	default: // FAK remainder is killed
		en.status = StatusCanceled
		e.emit(OrderChanged{Kind: OrderCancelled, Order: en.view(), Time: p.now})
	}
	e.saveOrderLocked(en)
	if p.match != nil {
		for _, f := range p.plan {
			e.saveOrderLocked(f.en)
		}
		e.dropMatchLocked(o.ID)
	}
	return res, trades, nil
}

// restoredReserve is how much more a maker order reserves now that shares
// have returned to it (its filled count already lowered).
func restoredReserve(en *entry, shares uint64) uint64 {
	if en.o.Side == Sell {
		return shares
	}
	after := en.remainingMaker()
	en.filled += shares
	before := en.remainingMaker()
	en.filled -= shares
	return after - before
}

// planLocked walks the opposite side in price-time order and returns the
// fills the incoming order would get. Maker orders whose funds no longer
// cover their fill (the maker moved them on chain) are cancelled on the way,
// as the live venue does.
func (e *Engine) planLocked(ctx context.Context, taker *entry, b *book) ([]plannedFill, error) {
	levels := b.asks
	if taker.o.Side == Sell {
		levels = b.bids
	}
	need := taker.shares
	var plan []plannedFill
	used := map[common.Address]uint64{} // per maker, in maker-asset units
	var stale []*entry
	for _, l := range levels {
		if need == 0 || !crosses(&taker.o, l.price) {
			break
		}
		for _, m := range l.orders {
			if need == 0 {
				break
			}
			if m.o.Maker == taker.o.Maker {
				// Self-trade prevention: the exchange contract refuses a
				// match whose maker is the taker's own wallet, so the older
				// resting order is cancelled and the walk continues.
				stale = append(stale, m)
				continue
			}
			q := min(need, m.shares-m.filled)
			give := q
			if m.o.Side == Buy {
				give = mulDiv(q, m.o.MakerAmount, m.o.TakerAmount)
			}
			if e.cfg.Ledger != nil {
				bal, allow, err := e.cfg.Ledger.Funds(ctx, m.o.Maker, assetOf(&m.o), b.market.NegRisk)
				if err != nil {
					return nil, venue.Wrap(venue.Unavailable, err, "could not read balance and allowance")
				}
				if min(satUint64(bal), satUint64(allow)) < used[m.o.Maker]+give {
					stale = append(stale, m)
					continue
				}
			}
			used[m.o.Maker] += give
			plan = append(plan, plannedFill{en: m, shares: q})
			need -= q
		}
	}
	for _, m := range stale {
		e.log.Info("cancelling maker order (self-trade or no longer backed by funds)", "order", m.o.ID, "maker", m.o.Maker)
		e.cancelLocked(m)
	}
	return plan, nil
}

// buildMatch turns planned fills into the settlement message.
func buildMatch(taker *entry, b *book, plan []plannedFill) Match {
	m := Match{Market: b.market.Market, TokenID: b.tokenID, Taker: &taker.o}
	var shares, coll uint64
	for _, f := range plan {
		fill := Fill{Order: &f.en.o, Shares: f.shares, MakerFillAmount: f.shares}
		if f.en.o.Side == Buy {
			fill.Collateral = mulDiv(f.shares, f.en.o.MakerAmount, f.en.o.TakerAmount)
			fill.MakerFillAmount = fill.Collateral
		} else {
			fill.Collateral = mulDiv(f.shares, f.en.o.TakerAmount, f.en.o.MakerAmount)
		}
		m.Makers = append(m.Makers, fill)
		shares += f.shares
		coll += fill.Collateral
	}
	if taker.o.Side == Buy {
		m.TakerFillAmount, m.TakerReceives = coll, shares
	} else {
		m.TakerFillAmount, m.TakerReceives = shares, coll
	}
	return m
}

// recordLocked finalises a settled match: maker statuses, the taker's fill,
// the last trade price and the trade record.
func (e *Engine) recordLocked(p *pending, st Settlement) Trade {
	taker, b := p.en, p.b
	t := e.tradeOf(p, TradeMined, st)
	shares := t.SizeMicro
	for _, f := range p.plan {
		mk := f.en
		mk.pending -= f.shares
		mk.tradeIDs = append(mk.tradeIDs, t.ID)
		if mk.filled == mk.shares && mk.status == StatusLive {
			mk.status = StatusMatched
		}
	}
	taker.filled += shares
	taker.tradeIDs = append(taker.tradeIDs, t.ID)
	b.last, b.lastSide, b.hasLast = p.plan[len(p.plan)-1].en.price, taker.o.Side, true
	stored := t
	stored.MakerOrders = append([]MakerOrderView(nil), t.MakerOrders...)
	e.trades = append(e.trades, &stored)
	e.tradeIdx[t.ID] = &stored
	e.saveTradeLocked(&stored)
	return t
}

func (e *Engine) insertLocked(b *book, en *entry) {
	e.touch(b, en.o.Side, en.price)
	if en.o.Type == GTD {
		if b.gtd == 0 || en.o.Expiration < b.nextExpiry {
			b.nextExpiry = en.o.Expiration
		}
		b.gtd++
	}
	levels := &b.bids
	better := func(a, c uint64) bool { return a > c }
	if en.o.Side == Sell {
		levels = &b.asks
		better = func(a, c uint64) bool { return a < c }
	}
	ls := *levels
	i := sort.Search(len(ls), func(i int) bool { return !better(ls[i].price, en.price) })
	if i < len(ls) && ls[i].price == en.price {
		// Time priority is admission order (seq); a fill rolled back after a
		// failed settlement returns to its original place in the queue.
		os := ls[i].orders
		j := sort.Search(len(os), func(j int) bool { return os[j].seq > en.seq })
		os = append(os, nil)
		copy(os[j+1:], os[j:])
		os[j] = en
		ls[i].orders = os
		return
	}
	ls = append(ls, nil)
	copy(ls[i+1:], ls[i:])
	ls[i] = &level{price: en.price, orders: []*entry{en}}
	*levels = ls
}

func (e *Engine) removeLocked(en *entry) {
	b := en.book
	e.touch(b, en.o.Side, en.price)
	if en.o.Type == GTD {
		b.gtd--
	}
	levels := &b.bids
	if en.o.Side == Sell {
		levels = &b.asks
	}
	ls := *levels
	for i, l := range ls {
		if l.price != en.price {
			continue
		}
		for j, x := range l.orders {
			if x == en {
				l.orders = append(l.orders[:j], l.orders[j+1:]...)
				break
			}
		}
		if len(l.orders) == 0 {
			*levels = append(ls[:i], ls[i+1:]...)
		}
		return
	}
}

func (e *Engine) cancelLocked(en *entry) {
	// An order whose whole size is being settled has nothing to cancel; if
	// the settlement fails it returns to the book.
	if en == nil || en.status != StatusLive || en.filled == en.shares {
		return
	}
	e.reserve(en.o.Maker, assetOf(&en.o), -int64(en.remainingMaker()))
	en.status = StatusCanceled
	e.removeLocked(en)
	e.emit(OrderChanged{Kind: OrderCancelled, Order: en.view(), Time: e.cfg.Clock()})
	e.saveOrderLocked(en)
}

// expireLocked cancels the book's GTD orders whose expiration has passed.
func (e *Engine) expireLocked(b *book, now time.Time) {
	if b.gtd == 0 || now.Unix() < b.nextExpiry {
		return
	}
	var dead []*entry
	next := int64(math.MaxInt64)
	for _, side := range [][]*level{b.bids, b.asks} {
		for _, l := range side {
			for _, en := range l.orders {
				if en.o.Type != GTD {
					continue
				}
				if !now.Before(time.Unix(en.o.Expiration, 0)) {
					dead = append(dead, en)
				} else {
					next = min(next, en.o.Expiration)
				}
			}
		}
	}
	b.nextExpiry = next
	for _, en := range dead {
		e.cancelLocked(en)
	}
}

// Sweep expires GTD orders on every book; the sandbox calls it periodically
// so expired orders leave the book even when nobody trades.
func (e *Engine) Sweep() {
	e.mu.Lock()
	defer e.unlockDurable()
	now := e.cfg.Clock()
	for _, b := range e.tokens {
		e.expireLocked(b, now)
	}
}

// Cancel cancels one of owner's orders. An empty owner cancels any order
// (the control API and the market makers' housekeeping).
func (e *Engine) Cancel(id, owner string) error {
	e.mu.Lock()
	en, ok := e.orders[id]
	if !ok || (owner != "" && en.o.Owner != owner) {
		e.unlock()
		return venue.E(venue.NotFound, MsgOrderNotFound)
	}
	e.expireLocked(en.book, e.cfg.Clock())
	if en.status != StatusLive || en.filled == en.shares {
		return cmp.Or(e.durable(e.unlock()), error(venue.E(venue.Conflict, MsgAlreadyDone)))
	}
	e.cancelLocked(en)
	return e.durable(e.unlock())
}

// CancelWhere cancels owner's live orders, optionally limited to a market
// and/or a token, and returns their ids.
func (e *Engine) CancelWhere(owner, conditionID, tokenID string) []string {
	e.mu.Lock()
	defer e.unlockDurable()
	return e.cancelWhereLocked(owner, conditionID, tokenID)
}

func (e *Engine) cancelWhereLocked(owner, conditionID, tokenID string) []string {
	var hit []*entry
	for _, en := range e.orders {
		if en.status != StatusLive || en.o.Owner != owner || en.filled == en.shares {
			continue
		}
		if conditionID != "" && en.book.market.ConditionID != conditionID {
			continue
		}
		if tokenID != "" && en.book.tokenID != tokenID {
			continue
		}
		hit = append(hit, en)
	}
	sort.Slice(hit, func(i, j int) bool { return hit[i].seq < hit[j].seq })
	ids := make([]string, len(hit))
	for i, en := range hit {
		e.cancelLocked(en)
		ids[i] = en.o.ID
	}
	return ids
}

func (en *entry) view() OrderView {
	return OrderView{
		Order:        en.o,
		ConditionID:  en.book.market.ConditionID,
		Outcome:      en.book.outcome,
		Status:       en.status,
		PriceMicro:   en.price,
		SizeMicro:    en.shares,
		MatchedMicro: en.filled,
		CreatedAt:    en.created,
		TradeIDs:     append([]string(nil), en.tradeIDs...),
	}
}

// Order returns one order.
func (e *Engine) Order(id string) (OrderView, bool) {
	e.mu.Lock()
	defer e.unlock()
	en, ok := e.orders[id]
	if !ok {
		return OrderView{}, false
	}
	e.expireLocked(en.book, e.cfg.Clock())
	return en.view(), true
}

// OrderFilter selects orders; zero fields match everything.
type OrderFilter struct {
	Owner       string
	Maker       common.Address
	ID          string
	ConditionID string
	TokenID     string
	LiveOnly    bool
}

// Orders returns the orders matching f, oldest first.
func (e *Engine) Orders(f OrderFilter) []OrderView {
	e.mu.Lock()
	defer e.unlock()
	now := e.cfg.Clock()
	for _, b := range e.tokens {
		e.expireLocked(b, now)
	}
	var out []*entry
	for _, en := range e.orders {
		switch {
		case f.Owner != "" && en.o.Owner != f.Owner,
			f.Maker != (common.Address{}) && en.o.Maker != f.Maker,
			f.ID != "" && en.o.ID != f.ID,
			f.ConditionID != "" && en.book.market.ConditionID != f.ConditionID,
			f.TokenID != "" && en.book.tokenID != f.TokenID,
			f.LiveOnly && en.status != StatusLive:
			continue
		}
		out = append(out, en)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	views := make([]OrderView, len(out))
	for i, en := range out {
		views[i] = en.view()
	}
	return views
}

// TradeFilter selects trades; zero fields match everything. Owner and Maker
// match a trade when the owner/maker is its taker or one of its makers.
type TradeFilter struct {
	Owner       string
	Maker       common.Address
	ID          string
	ConditionID string
	TokenID     string
	After       time.Time
	Before      time.Time
}

func (t *Trade) involves(owner string, maker common.Address) bool {
	if (owner == "" || t.Owner == owner) && (maker == (common.Address{}) || t.Maker == maker) {
		return true
	}
	for _, m := range t.MakerOrders {
		if (owner == "" || m.Owner == owner) && (maker == (common.Address{}) || m.Maker == maker) {
			return true
		}
	}
	return false
}

func (e *Engine) statusOf(t *Trade, now time.Time) TradeStatus {
	if t.Status == TradeMined && !now.Before(t.MatchTime.Add(e.cfg.ConfirmAfter)) {
		return TradeConfirmed
	}
	return t.Status
}

// Trades returns the trades matching f, oldest first.
func (e *Engine) Trades(f TradeFilter) []Trade {
	e.mu.Lock()
	defer e.unlock()
	now := e.cfg.Clock()
	var out []Trade
	for _, t := range e.trades {
		switch {
		case (f.Owner != "" || f.Maker != (common.Address{})) && !t.involves(f.Owner, f.Maker),
			f.ID != "" && t.ID != f.ID,
			f.ConditionID != "" && t.ConditionID != f.ConditionID,
			f.TokenID != "" && t.TokenID != f.TokenID,
			!f.After.IsZero() && t.MatchTime.Before(f.After),
			!f.Before.IsZero() && !t.MatchTime.Before(f.Before):
			continue
		}
		c := *t
		c.MakerOrders = append([]MakerOrderView(nil), t.MakerOrders...)
		if st := e.statusOf(t, now); st != c.Status {
			c.Status = st
			c.LastUpdate = t.MatchTime.Add(e.cfg.ConfirmAfter)
		}
		out = append(out, c)
	}
	return out
}

// Book returns a snapshot of a token's book.
func (e *Engine) Book(tokenID string) (Book, bool) {
	e.mu.Lock()
	defer e.unlock()
	b, ok := e.tokens[tokenID]
	if !ok {
		return Book{}, false
	}
	now := e.cfg.Clock()
	e.expireLocked(b, now)
	return e.bookLocked(b, now), true
}

// bookLocked aggregates a book's levels.
func (e *Engine) bookLocked(b *book, now time.Time) Book {
	agg := func(ls []*level) []Level {
		out := make([]Level, len(ls))
		for i, l := range ls {
			out[i].PriceMicro = l.price
			for _, en := range l.orders {
				out[i].SizeMicro += en.shares - en.filled
			}
		}
		return out
	}
	return Book{
		Market: b.market.Market, TokenID: b.tokenID,
		Bids: agg(b.bids), Asks: agg(b.asks),
		LastTradeMicro: b.last, LastTradeSide: b.lastSide, HasLastTrade: b.hasLast,
		Timestamp: now, AcceptingOrders: b.market.accepting,
	}
}

// Reserved returns what a maker's open orders reserve of an asset ("" =
// collateral).
func (e *Engine) Reserved(maker common.Address, asset string) uint64 {
	e.mu.Lock()
	defer e.unlock()
	return e.reserved[maker][asset]
}
