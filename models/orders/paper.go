package orders

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/micro"
)

// The paper exchange (docs/paper-trading.md). A paper agent's order is the
// same order, stored the same way and run by the same workflow as a live
// one; only its lifecycle steps differ, here, where the live steps would
// reach the venue: Submit matches it against the venue's current book
// (read, never written), Sync re-applies its recorded fills, a cancel
// takes it off the paper book, and the PaperWatcher fills resting paper
// orders from the venue's trade stream. Nothing here signs, posts or
// cancels at the venue, or touches the chain.

// paperFill is one fill of the paper exchange, in micro-units.
type paperFill struct{ PriceMicro, SizeMicro int64 }

// level is a book level in micro-units.
type level struct{ price, size int64 }

// bookSide returns the levels of one side of b, best first (bids high to
// low, asks low to high). Levels that do not convert exactly are dropped:
// no venue price has more than six decimals.
func bookSide(b *clob.OrderBook, bids bool) []level {
	src := b.Asks
	if bids {
		src = b.Bids
	}
	out := make([]level, 0, len(src))
	for _, l := range src {
		p, err := micro.Round(l.Price)
		if err != nil {
			continue
		}
		sz := micro.Truncate(l.Size)
		if p <= 0 || sz <= 0 {
			continue
		}
		out = append(out, level{p, sz})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if bids {
			return out[i].price > out[j].price
		}
		return out[i].price < out[j].price
	})
	return out
}

// matchBook walks the side of b that side takes from (asks for a BUY,
// bids for a SELL), best first, taking at most sizeMu shares at prices no
// worse than limitMu, each level's price and no more than its size. It
// also returns the shares resting on the order's own side at its limit
// price: the queue a resting remainder joins behind.
func matchBook(b *clob.OrderBook, side clob.Side, limitMu, sizeMu int64) (fills []paperFill, queueMu int64) {
	buy := side == clob.Buy
	left := sizeMu
	for _, l := range bookSide(b, !buy) {
		if left <= 0 || buy && l.price > limitMu || !buy && l.price < limitMu {
			break
		}
		take := min(left, l.size)
		fills = append(fills, paperFill{PriceMicro: l.price, SizeMicro: take})
		left -= take
	}
	for _, l := range bookSide(b, buy) {
		if l.price == limitMu {
			queueMu += l.size
		}
	}
	return fills, queueMu
}

func sumSize(fs []paperFill) (n int64) {
	for _, f := range fs {
		n += f.SizeMicro
	}
	return n
}

// paperStatus is the status of a paper order of type reqType with
// filledMu of sizeMu shares filled: a LIMIT remainder rests; a FOK,
// FAK or MARKET order ends at once (FILLED with anything filled, as the
// venue reports a matched FAK).
func paperStatus(reqType string, filledMu, sizeMu int64) string {
	switch {
	case filledMu >= sizeMu:
		return models.OrderFilled
	case reqType != TypeLimit && filledMu > 0:
		return models.OrderFilled
	case reqType != TypeLimit:
		return models.OrderFailed
	case filledMu > 0:
		return models.OrderPartiallyFilled
	}
	return models.OrderOpen
}

func noMatch(o *models.Order) error {
	return errs.Ef(errs.VenueRejected, "the book cannot fill %s shares at %s or better right now",
		micro.Decimal(o.SizeMicro).String(), micro.Decimal(o.PriceMicro).String()).
		WithCode(errs.CodeNoMatch).WithHint("use a LIMIT order to rest on the book, or a FAK order to take what is there")
}

// submitPaper places a PENDING paper order on the paper exchange: it reads
// the venue's book for the token now and matches against it. Like Submit
// it is safe to repeat: the order leaves PENDING in the one transaction
// that records its fills, so a second attempt finds it placed.
func (s *Service) submitPaper(ctx context.Context, o *models.Order) (Order, error) {
	side, err := clob.ParseSide(o.Side)
	if err != nil {
		return Order{}, errs.Wrap(errs.Internal, err, "stored order has an invalid side")
	}
	book, err := s.CLOB.OrderBook(ctx, o.TokenID)
	if err != nil {
		return s.failOrRetry(ctx, o, err)
	}
	fills, queue := matchBook(book, side, o.PriceMicro, o.SizeMicro)
	if (o.RequestType == TypeFOK || o.RequestType == TypeMarket) && sumSize(fills) < o.SizeMicro {
		fills = nil // all or nothing
	}
	if o.RequestType != TypeLimit && len(fills) == 0 {
		err := noMatch(o)
		return s.fail(ctx, o, errs.KindOf(err).String(), errs.CodeOf(err), errs.PublicMessage(err))
	}
	now := time.Now().UTC()
	rows := make([]models.Fill, len(fills))
	for i, f := range fills {
		rows[i] = models.Fill{OrderID: o.ID, VenueTradeID: fmt.Sprintf("paper:%s:place:%d", o.ID, i),
			PriceMicro: f.PriceMicro, SizeMicro: f.SizeMicro, Time: now}
	}
	v, err := s.paperRecord(ctx, o.ID, []string{models.OrderPending}, rows, &queue)
	if err == nil && !v.Terminal() && s.PaperListen != nil {
		s.PaperListen.Watch()
	}
	if errs.Is(err, errs.Conflict) {
		cur, gerr := s.Store.OrderByID(ctx, o.ID) // cancelled before it was placed
		if gerr != nil {
			return Order{}, gerr
		}
		return view(cur), nil
	}
	return v, err
}

// paperRecord records fills (new ones; a fill already recorded is
// skipped) of paper order id, if it is still in one of the statuses from,
// and everything that follows from its fills, in one transaction under
// the user's lock: the order's status, filled size and average price,
// the paper balance (a BUY's fill costs its notional, a SELL's pays it),
// the budget reservation and the agent's position. queue, when set, is
// the order's new place in the paper queue. Another status is a Conflict.
func (s *Service) paperRecord(ctx context.Context, id string, from []string, fills []models.Fill, queue *int64) (Order, error) {
	var out *models.Order
	err := s.Store.WithBudgetLock(ctx, s.userOf(ctx, id), func(tx *store.Store) error {
		o, err := tx.OrderByID(ctx, id)
		if err != nil {
			return err
		}
		if !contains(from, o.Status) {
			return errs.Ef(errs.Conflict, "the order is %s", o.Status).WithCode(errs.CodeOrderState)
		}
		for i := range fills {
			created, err := tx.AddFill(ctx, &fills[i])
			if err != nil {
				return err
			}
			if !created {
				continue
			}
			notional := micro.Mul(fills[i].PriceMicro, fills[i].SizeMicro)
			if o.Side == SideBuy {
				notional = -notional
			}
			if err := tx.AddPaperBalance(ctx, o.UserID, notional); err != nil {
				return err
			}
		}
		out, err = s.paperApplyLocked(ctx, tx, o, from, queue)
		return err
	})
	if err != nil {
		return Order{}, err
	}
	return view(out), nil
}

// userOf is the user of order id, for its lock ("" when it cannot be
// read: the lock then fails as NotFound).
func (s *Service) userOf(ctx context.Context, id string) string {
	o, err := s.Store.OrderByID(ctx, id)
	if err != nil {
		return ""
	}
	return o.UserID
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// paperApplyLocked brings paper order o's row, budget and position in line
// with its recorded fills, inside tx (holding the user's lock).
func (s *Service) paperApplyLocked(ctx context.Context, tx *store.Store, o *models.Order, from []string, queue *int64) (*models.Order, error) {
	fills, err := tx.ListFills(ctx, o.ID)
	if err != nil {
		return nil, err
	}
	var filled, notional int64
	var last time.Time
	for _, f := range fills {
		filled += f.SizeMicro
		notional += micro.Mul(f.PriceMicro, f.SizeMicro)
		if f.Time.After(last) {
			last = f.Time
		}
	}
	status := o.Status
	if status == models.OrderPending || status == models.OrderOpen || status == models.OrderPartiallyFilled {
		status = paperStatus(o.RequestType, filled, o.SizeMicro)
	}
	avg := int64(0)
	if filled > 0 {
		avg = micro.Div(notional, filled)
	}
	u := store.OrderUpdate{Status: &status, FilledSizeMicro: &filled, AvgFillPriceMicro: &avg, PaperQueueMicro: queue}
	if filled > 0 {
		u.FilledAt = &last
	}
	if status == models.OrderFailed {
		reason, code := errs.PublicMessage(noMatch(o)), errs.CodeNoMatch
		u.FailureReason, u.FailureCode = &reason, &code
	}
	terminal := TerminalStatus(status)
	if terminal {
		zero := int64(0)
		u.ReservedMicro = &zero
	}
	if err := tx.UpdateOrder(ctx, o.ID, from, u); err != nil {
		return nil, err
	}
	if o.Side == SideBuy {
		if _, err := tx.SettleBudgetReservation(ctx, o.ID, notional, terminal); err != nil && !errs.Is(err, errs.NotFound) {
			return nil, err
		}
	}
	if filled > 0 && s.Positions != nil {
		if err := s.Positions.RecomputeLocked(ctx, tx, o.AgentID, o.UserID, o.TokenID); err != nil {
			return nil, err
		}
	}
	return tx.OrderByID(ctx, o.ID)
}

// syncPaper is Sync for a paper order: its recorded fills are the truth
// (there is no venue order to ask); it re-applies them, which changes
// nothing unless an earlier step died half-way.
func (s *Service) syncPaper(ctx context.Context, o *models.Order) (Order, error) {
	if o.Status == models.OrderPending || TerminalStatus(o.Status) {
		return view(o), nil
	}
	v, err := s.paperRecord(ctx, o.ID, []string{models.OrderOpen, models.OrderPartiallyFilled}, nil, nil)
	if errs.Is(err, errs.Conflict) {
		cur, gerr := s.Store.OrderByID(ctx, o.ID)
		if gerr != nil {
			return Order{}, gerr
		}
		return view(cur), nil
	}
	return v, err
}

// cancelPaper takes a resting paper order off the paper book: CANCELLED
// with what it filled, the rest of its budget released, in the same
// transaction that a fill from the trade stream would take, so a fill and
// a cancel never both win. A filled order is not cancellable.
func (s *Service) cancelPaper(ctx context.Context, o *models.Order) (previous string, _ Order, _ error) {
	var cur *models.Order
	err := s.Store.WithBudgetLock(ctx, o.UserID, func(tx *store.Store) error {
		row, err := tx.OrderByID(ctx, o.ID)
		if err != nil {
			return err
		}
		previous = row.Status
		switch {
		case row.Status == models.OrderCancelled:
			cur = row
			return nil
		case TerminalStatus(row.Status):
			return notCancellable(row.Status)
		}
		st, zero := models.OrderCancelled, int64(0)
		if err := tx.UpdateOrder(ctx, o.ID, []string{models.OrderOpen, models.OrderPartiallyFilled},
			store.OrderUpdate{Status: &st, ReservedMicro: &zero}); err != nil {
			return err
		}
		if row.Side == SideBuy {
			spent := micro.Mul(row.AvgFillPriceMicro, row.FilledSizeMicro)
			if _, err := tx.SettleBudgetReservation(ctx, o.ID, spent, true); err != nil && !errs.Is(err, errs.NotFound) {
				return err
			}
		}
		cur, err = tx.OrderByID(ctx, o.ID)
		return err
	})
	if err != nil {
		return "", Order{}, err
	}
	return previous, view(cur), nil
}

// PaperTrade is one trade of the venue's trade stream, as the paper
// exchange's queue model reads it.
type PaperTrade struct {
	TokenID    string
	PriceMicro int64
	SizeMicro  int64
	// ID names the trade (its transaction hash, or the stream's time):
	// a trade seen twice fills nothing twice.
	ID   string
	Time time.Time
}

// PaperFilled names a paper order the trade filled and what it has filled
// now.
type PaperFilled struct {
	OrderID     string
	FilledMicro int64
}

// ApplyPaperTrade runs the queue model over the paper orders resting in
// the trade's token (docs/paper-trading.md): a trade at or through a
// resting order's price (at or below a BUY's, at or above a SELL's) first
// draws down the shares that were ahead of the order at its price when
// it was placed, and what is left of the trade fills the order. The
// trade's size is shared by the paper orders in price-time priority, so
// all paper fills from one trade together never exceed its size. It
// returns the orders that filled.
func (s *Service) ApplyPaperTrade(ctx context.Context, t PaperTrade) ([]PaperFilled, error) {
	rows, err := s.Store.RestingPaperOrders(ctx, t.TokenID)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	// Price priority (better prices first, per side), then time (rows
	// come oldest first).
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.Side != b.Side {
			return a.Side < b.Side
		}
		if a.Side == SideBuy {
			return a.PriceMicro > b.PriceMicro
		}
		return a.PriceMicro < b.PriceMicro
	})
	left := map[string]int64{SideBuy: t.SizeMicro, SideSell: t.SizeMicro}
	var out []PaperFilled
	for i := range rows {
		o := &rows[i]
		reaches := o.Side == SideBuy && t.PriceMicro <= o.PriceMicro || o.Side == SideSell && t.PriceMicro >= o.PriceMicro
		if !reaches || left[o.Side] <= 0 {
			continue
		}
		vol := left[o.Side]
		queue := max(o.PaperQueueMicro-vol, 0)
		avail := max(vol-o.PaperQueueMicro, 0)
		take := min(avail, o.SizeMicro-o.FilledSizeMicro)
		left[o.Side] = vol - take
		var fills []models.Fill
		if take > 0 {
			// The resting order's price: a paper maker is filled at its
			// own limit, as a venue maker is.
			fills = []models.Fill{{OrderID: o.ID, VenueTradeID: "paper:" + o.ID + ":" + t.ID,
				PriceMicro: o.PriceMicro, SizeMicro: take, Time: t.Time}}
		}
		v, err := s.paperRecord(ctx, o.ID, []string{models.OrderOpen, models.OrderPartiallyFilled}, fills, &queue)
		if errs.Is(err, errs.Conflict) {
			continue // cancelled meanwhile
		}
		if err != nil {
			return out, err
		}
		if take > 0 {
			out = append(out, PaperFilled{OrderID: o.ID, FilledMicro: micro.Truncate(v.FilledSize)})
		}
	}
	return out, nil
}

// MaxPaperBalanceMicro bounds a paper balance a user sets: 1,000,000,000
// USDC, the bound of budgets.
const MaxPaperBalanceMicro = 1_000_000_000 * models.MicroPerUnit

// PaperBalance is userID's paper balance in micro-USDC.
func (s *Service) PaperBalance(ctx context.Context, userID string) (int64, error) {
	return s.Store.PaperBalance(ctx, userID)
}

// SetPaperBalance sets userID's paper balance (the dashboard's "set" and
// "reset"), under the user's lock so no paper fill moves it in between,
// and audits the change.
func (s *Service) SetPaperBalance(ctx context.Context, userID string, balanceMicro int64, clientAddr string) error {
	if balanceMicro < 0 || balanceMicro > MaxPaperBalanceMicro {
		return errs.E(errs.Invalid, "the paper balance must be between 0 and 1,000,000,000 USDC").WithCode(errs.CodeInvalidBudget)
	}
	var before int64
	err := s.Store.WithBudgetLock(ctx, userID, func(tx *store.Store) error {
		var err error
		if before, err = tx.PaperBalance(ctx, userID); err != nil {
			return err
		}
		return tx.SetPaperBalance(ctx, userID, balanceMicro)
	})
	if err != nil {
		return err
	}
	if s.Audit != nil {
		if err := s.Audit.Record(ctx, audit.Entry{UserID: userID, Action: "paper.balance_set", Target: userID, Result: audit.Success,
			ClientAddr: clientAddr, Detail: map[string]any{"from": micro.Decimal(before).String(), "to": micro.Decimal(balanceMicro).String()}}); err != nil {
			s.log().WarnContext(ctx, "audit of a paper balance change failed", "user_id", userID, "err", err)
		}
	}
	return nil
}
