package exchange

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agent-trading/ats/venue"
)

// Journal is where the engine keeps what must survive a restart
// (sandbox/persist.Store): orders that rest or have traded, trades, and
// matches whose settlement is in flight. Apply is called with the engine's
// lock held, once per locked section, with the section's changes in the
// order they happened (keys[i] gets values[i], or is deleted when it is
// nil): it queues them as one, to reach the disk together or not at all,
// after everything queued before, and returns the last one's sequence
// number without waiting for the disk (the values are encoded later and
// are not changed after the call). Wait returns once every change up to
// seq is durable; the engine waits after releasing its lock and before it
// answers. Scan reads what was kept (Restore).
type Journal interface {
	Apply(keys []string, values []any) uint64
	Wait(seq uint64) error
	Scan(prefix string, fn func(key string, value []byte) error) error
}

// ScanJournal calls fn with every value the journal keeps under prefix, in
// key order, decoded.
func ScanJournal[T any](j Journal, prefix string, fn func(key string, v T) error) error {
	return j.Scan(prefix, func(k string, raw []byte) error {
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		return fn(k, v)
	})
}

// SettlementFinder looks for a match's settlement on chain after a
// restart: the match was recorded before its settlement was sent, and the
// process stopped before the outcome was recorded.
type SettlementFinder interface {
	FindSettlement(ctx context.Context, negRisk bool, takerOrderID string, since time.Time) (Settlement, bool, error)
}

// Journal keys. Trades are keyed by their place in the engine's history so
// a scan returns them in order.
const (
	keyOrder = "x/o/"
	keyTrade = "x/t/"
	keyMatch = "x/m/"
)

// savedOrder is an order as kept: Filled counts settled shares only (a
// match in flight is kept apart, as a savedMatch).
type savedOrder struct {
	ID          string         `json:"id"`
	Owner       string         `json:"owner"`
	Maker       common.Address `json:"maker"`
	Signer      common.Address `json:"signer"`
	TokenID     string         `json:"tokenId"`
	Side        Side           `json:"side"`
	MakerAmount uint64         `json:"makerAmount"`
	TakerAmount uint64         `json:"takerAmount"`
	Type        OrderType      `json:"type"`
	Expiration  int64          `json:"expiration,omitempty"`
	PostOnly    bool           `json:"postOnly,omitempty"`
	Signed      signedJSON     `json:"signed"`
	Price       uint64         `json:"price"`
	Shares      uint64         `json:"shares"`
	Filled      uint64         `json:"filled"`
	Status      Status         `json:"status"`
	Created     time.Time      `json:"created"`
	Seq         uint64         `json:"seq"`
	TradeIDs    []string       `json:"tradeIds,omitempty"`
}

// signedJSON carries Order.Signed: encoded from the value (the venue's wire
// order marshals itself), decoded to raw JSON for Config.DecodeSigned.
type signedJSON struct {
	v   any
	raw json.RawMessage
}

func (s signedJSON) MarshalJSON() ([]byte, error) {
	if s.v == nil {
		return []byte("null"), nil
	}
	return json.Marshal(s.v)
}

func (s *signedJSON) UnmarshalJSON(b []byte) error {
	s.raw = append(json.RawMessage(nil), b...)
	return nil
}

// savedMatch is a match whose settlement was sent: enough to finish it
// (or forget it) when the engine reopens.
type savedMatch struct {
	NegRisk bool       `json:"negRisk"`
	Taker   savedOrder `json:"taker"`
	// Trade is the match as its MATCHED trade (maker orders, amounts).
	Trade  Trade        `json:"trade"`
	Makers []savedShare `json:"makers"`
}

type savedShare struct {
	OrderID string `json:"orderId"`
	Shares  uint64 `json:"shares"`
}

func (e *Engine) keeps(owner string) bool {
	return e.cfg.Journal != nil && (e.cfg.Ephemeral == nil || !e.cfg.Ephemeral(owner))
}

func (en *entry) saved() savedOrder {
	o := en.o
	return savedOrder{
		ID: o.ID, Owner: o.Owner, Maker: o.Maker, Signer: o.Signer, TokenID: o.TokenID, Side: o.Side,
		MakerAmount: o.MakerAmount, TakerAmount: o.TakerAmount, Type: o.Type, Expiration: o.Expiration,
		PostOnly: o.PostOnly, Signed: signedJSON{v: o.Signed}, Price: en.price, Shares: en.shares,
		Filled: en.filled - en.pending, Status: en.status, Created: en.created, Seq: en.seq,
		TradeIDs: append([]string(nil), en.tradeIDs...),
	}
}

// keepLocked adds a change to the locked section's journal entry (value
// nil deletes the key); unlock hands the entry to the journal.
func (e *Engine) keepLocked(key string, value any) {
	e.jkeys = append(e.jkeys, key)
	e.jvals = append(e.jvals, value)
}

// journalLocked queues the locked section's changes as one and returns the
// sequence number to wait for (0: none).
func (e *Engine) journalLocked() uint64 {
	if len(e.jkeys) == 0 {
		return 0
	}
	seq := e.cfg.Journal.Apply(e.jkeys, e.jvals)
	clear(e.jvals) // Apply copied them
	e.jkeys, e.jvals = e.jkeys[:0], e.jvals[:0]
	return seq
}

// saveOrderLocked keeps an order's current state.
func (e *Engine) saveOrderLocked(en *entry) {
	if e.keeps(en.o.Owner) {
		e.keepLocked(keyOrder+en.o.ID, en.saved())
	}
}

// saveMatchLocked keeps a match before its settlement is sent.
func (e *Engine) saveMatchLocked(p *pending) {
	if e.cfg.Journal == nil {
		return
	}
	sm := savedMatch{NegRisk: p.b.market.NegRisk, Taker: p.en.saved(), Trade: e.tradeOf(p, TradeMatched, Settlement{})}
	for _, f := range p.plan {
		sm.Makers = append(sm.Makers, savedShare{OrderID: f.en.o.ID, Shares: f.shares})
	}
	e.keepLocked(keyMatch+p.en.o.ID, sm)
}

func (e *Engine) dropMatchLocked(takerID string) {
	if e.cfg.Journal != nil {
		e.keepLocked(keyMatch+takerID, nil)
	}
}

// saveTradeLocked keeps a settled trade, after the ones before it.
func (e *Engine) saveTradeLocked(t *Trade) {
	if e.cfg.Journal == nil {
		return
	}
	e.tradeSeq++
	e.keepLocked(fmt.Sprintf("%s%016x", keyTrade, e.tradeSeq), *t)
}

// durable waits until the changes of a locked section are on disk.
func (e *Engine) durable(seq uint64) error { return WaitDurable(e.cfg.Journal, seq) }

// WaitDurable waits until the journal's changes up to seq are on disk
// (nothing to wait for when seq is 0 or there is no journal).
func WaitDurable(j Journal, seq uint64) error {
	if seq == 0 || j == nil {
		return nil
	}
	if err := j.Wait(seq); err != nil {
		return venue.Wrap(venue.Internal, err, "the venue could not record the change")
	}
	return nil
}

// Restore rebuilds the engine from its journal when the venue reopens:
// orders (resting ones go back on their books at their time priority,
// with their funds reserved), trades (and each book's last trade), and
// matches whose settlement was in flight, looked up on chain with finder
// and finished as they settled, or dropped when they did not. The markets
// must be listed first (AddMarket, and CloseMarket for closed ones); call
// Restore before the engine serves.
func (e *Engine) Restore(ctx context.Context, finder SettlementFinder) error {
	if e.cfg.Journal == nil {
		return nil
	}
	var orders []savedOrder
	if err := ScanJournal(e.cfg.Journal, keyOrder, func(_ string, so savedOrder) error {
		orders = append(orders, so)
		return nil
	}); err != nil {
		return venue.Wrap(venue.Internal, err, "read the venue's orders")
	}
	var trades []*Trade
	if err := ScanJournal(e.cfg.Journal, keyTrade, func(k string, t Trade) error {
		var seq uint64
		if _, err := fmt.Sscanf(strings.TrimPrefix(k, keyTrade), "%x", &seq); err != nil {
			return err
		}
		e.tradeSeq = max(e.tradeSeq, seq)
		trades = append(trades, &t)
		return nil
	}); err != nil {
		return venue.Wrap(venue.Internal, err, "read the venue's trades")
	}
	var matches []savedMatch
	if err := ScanJournal(e.cfg.Journal, keyMatch, func(_ string, sm savedMatch) error {
		matches = append(matches, sm)
		return nil
	}); err != nil {
		return venue.Wrap(venue.Internal, err, "read the venue's matches in flight")
	}
	// Settlements are looked up before taking the lock: they read the chain.
	settled := make([]*Settlement, len(matches))
	for i, sm := range matches {
		if finder == nil {
			return venue.E(venue.Internal, "the venue has a match in flight and no way to look up its settlement")
		}
		st, found, err := finder.FindSettlement(ctx, sm.NegRisk, sm.Taker.ID, sm.Trade.MatchTime.Add(-time.Minute))
		if err != nil {
			return venue.Wrap(venue.Unavailable, err, "look up a settlement that was in flight")
		}
		if found {
			settled[i] = &st
		}
	}

	e.mu.Lock()
	sort.Slice(orders, func(i, j int) bool { return orders[i].Seq < orders[j].Seq })
	for _, so := range orders {
		if _, err := e.restoreOrderLocked(so); err != nil {
			e.unlock()
			return err
		}
	}
	for _, t := range trades {
		e.restoreTradeLocked(t)
	}
	for i, sm := range matches {
		if settled[i] != nil {
			if err := e.finishSavedMatchLocked(sm, *settled[i]); err != nil {
				e.unlock()
				return err
			}
			e.log.Info("a match in flight at the last stop had settled; recorded", "taker", sm.Taker.ID, "tx", settled[i].TxHash)
		} else {
			e.log.Info("a match in flight at the last stop never settled; dropped", "taker", sm.Taker.ID)
		}
		e.dropMatchLocked(sm.Taker.ID)
	}
	seq := e.unlock()
	return e.durable(seq)
}

// restoreOrderLocked puts a kept order back (resting it when it is live).
func (e *Engine) restoreOrderLocked(so savedOrder) (*entry, error) {
	b, ok := e.tokens[so.TokenID]
	if !ok {
		return nil, venue.Ef(venue.Internal, "the venue kept order %s of token %s, which no listed market has", so.ID, so.TokenID)
	}
	o := Order{
		ID: so.ID, Owner: so.Owner, Maker: so.Maker, Signer: so.Signer, TokenID: so.TokenID, Side: so.Side,
		MakerAmount: so.MakerAmount, TakerAmount: so.TakerAmount, Type: so.Type, Expiration: so.Expiration,
		PostOnly: so.PostOnly,
	}
	if raw := so.Signed.raw; len(raw) > 0 && string(raw) != "null" && e.cfg.DecodeSigned != nil {
		s, err := e.cfg.DecodeSigned(raw)
		if err != nil {
			return nil, venue.Ef(venue.Internal, "the venue's order %s is unreadable", so.ID).WithCause(err)
		}
		o.Signed = s
	}
	en := &entry{o: o, price: so.Price, shares: so.Shares, filled: so.Filled, status: so.Status,
		created: so.Created, seq: so.Seq, tradeIDs: so.TradeIDs, book: b}
	e.orders[o.ID] = en
	e.seq = max(e.seq, en.seq)
	e.restLocked(en)
	return en, nil
}

// restLocked puts a live order with shares left on its book; one whose
// market has closed meanwhile is cancelled, as CloseMarket would have.
func (e *Engine) restLocked(en *entry) {
	if en.status != StatusLive {
		return
	}
	if en.filled >= en.shares {
		en.status = StatusMatched
		e.saveOrderLocked(en)
		return
	}
	if !en.book.market.accepting || !en.o.Type.Resting() {
		en.status = StatusCanceled
		e.saveOrderLocked(en)
		return
	}
	e.reserve(en.o.Maker, assetOf(&en.o), int64(en.remainingMaker()))
	e.insertLocked(en.book, en)
}

func (e *Engine) restoreTradeLocked(t *Trade) {
	e.trades = append(e.trades, t)
	e.tradeIdx[t.ID] = t
	if b, ok := e.tokens[t.TokenID]; ok && len(t.MakerOrders) > 0 {
		b.last, b.lastSide, b.hasLast = t.MakerOrders[len(t.MakerOrders)-1].PriceMicro, t.Side, true
	}
}

// finishSavedMatchLocked records a match that settled while the venue was
// stopping: the maker orders' fills, the taker order (resting what is left
// of a GTC/GTD order), and the trade.
func (e *Engine) finishSavedMatchLocked(sm savedMatch, st Settlement) error {
	t := sm.Trade
	if _, done := e.tradeIdx[t.ID]; done {
		return nil // recorded already: only the match's record was left
	}
	t.Status, t.TxHash, t.LastUpdate = TradeMined, st.TxHash, t.MatchTime
	for _, ms := range sm.Makers {
		mk, ok := e.orders[ms.OrderID]
		if !ok {
			continue // a market maker's quote: not kept, nothing to fill
		}
		resting := mk.status == StatusLive && mk.filled < mk.shares
		before := mk.remainingMaker()
		mk.filled = min(mk.shares, mk.filled+ms.Shares)
		mk.tradeIDs = append(mk.tradeIDs, t.ID)
		if resting {
			e.reserve(mk.o.Maker, assetOf(&mk.o), -int64(before-mk.remainingMaker()))
			if mk.filled == mk.shares {
				e.removeLocked(mk)
			}
		}
		if mk.filled == mk.shares && mk.status == StatusLive {
			mk.status = StatusMatched
		}
		e.saveOrderLocked(mk)
	}
	if _, dup := e.orders[sm.Taker.ID]; !dup && e.keeps(sm.Taker.Owner) {
		sm.Taker.Filled = t.SizeMicro
		sm.Taker.TradeIDs = []string{t.ID}
		en, err := e.restoreOrderLocked(sm.Taker) // rests a GTC/GTD remainder, cancels an FAK's
		if err != nil {
			return err
		}
		e.saveOrderLocked(en)
	}
	stored := t
	e.restoreTradeLocked(&stored)
	e.saveTradeLocked(&stored)
	return nil
}

// unlockDurable is unlock followed by durable, for calls that answer
// nothing the caller could act on if the disk failed: the failure is
// logged (and the journal refuses every later change, so the venue's
// next answer is an error).
func (e *Engine) unlockDurable() {
	if err := e.durable(e.unlock()); err != nil {
		e.log.Error("the venue could not record a change", "err", err)
	}
}
