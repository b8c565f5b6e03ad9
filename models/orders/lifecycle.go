package orders

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/metrics"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/wallets"
	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/micro"
)

// storedOrder is the JSON of a signed order kept on the order row. It is
// public data: the order and its signature, never key material.
type storedOrder struct {
	Request clob.PostOrderRequest `json:"request"`
	Domain  clob.EIP712Domain     `json:"domain"`
	Price   decimal.Decimal       `json:"price"`
	NegRisk bool                  `json:"negRisk"`
}

func (so storedOrder) built() (*clob.Built, error) {
	h, err := clob.OrderHash(so.Request.Order, so.Domain)
	if err != nil {
		return nil, err
	}
	return &clob.Built{Request: so.Request, Domain: so.Domain, Hash: h, Price: so.Price, NegRisk: so.NegRisk}, nil
}

// trader is the venue trader of the user's wallet, with its API
// credentials.
func (s *Service) trader(ctx context.Context, userID string) (*clob.Trader, error) {
	w, signer, creds, err := s.tradingWallet(ctx, userID)
	if err != nil {
		return nil, err
	}
	return &clob.Trader{
		Client: s.CLOB.WithCreds(creds, signer.Address()), Network: s.Network, Signer: signer,
		SignatureType: clob.SignatureType(w.SignatureType), Funder: common.HexToAddress(w.Address),
	}, nil
}

// tradingWallet is the user's wallet, its signer and its venue API
// credentials, from one read of the wallet where Wallets can.
func (s *Service) tradingWallet(ctx context.Context, userID string) (wallets.Wallet, *wallets.Signer, clob.Creds, error) {
	if tw, ok := s.Wallets.(tradingWallets); ok {
		return tw.Trading(ctx, userID)
	}
	w, err := s.Wallets.Get(ctx, userID)
	if err != nil {
		return wallets.Wallet{}, nil, clob.Creds{}, err
	}
	signer, err := s.Wallets.Signer(ctx, userID)
	if err != nil {
		return wallets.Wallet{}, nil, clob.Creds{}, err
	}
	creds, err := s.Wallets.Creds(ctx, userID)
	if err != nil {
		return wallets.Wallet{}, nil, clob.Creds{}, err
	}
	return w, signer, creds, nil
}

// build signs the venue order for o as its request type says.
func (s *Service) build(ctx context.Context, t *clob.Trader, o *models.Order) (*clob.Built, error) {
	side, err := clob.ParseSide(o.Side)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, err, "stored order has an invalid side")
	}
	price, size := micro.Decimal(o.PriceMicro), micro.Decimal(o.SizeMicro)
	switch o.RequestType {
	case TypeMarket:
		// Priced from the book: the level at which the book covers the
		// size, bounded by the agent's worst price.
		book, err := t.Client.OrderBook(ctx, o.TokenID)
		if err != nil {
			return nil, err
		}
		level, err := levelFor(book, side, size, price)
		if err != nil {
			return nil, err
		}
		amount := size
		if side == clob.Buy {
			amount = size.Mul(level).RoundFloor(2)
		}
		return t.BuildMarketOrder(ctx, clob.MarketOrderArgs{TokenID: o.TokenID, Side: side, Amount: amount, OrderType: clob.FOK, LimitPrice: price})
	case TypeFOK, TypeFAK:
		return t.BuildMarketableAt(ctx, o.TokenID, side, price, size, venueType(o.RequestType))
	default:
		return t.BuildLimitOrder(ctx, clob.LimitOrderArgs{TokenID: o.TokenID, Side: side, Price: price, Size: size, OrderType: clob.GTC})
	}
}

// levelFor walks the opposite side of the book, best first, and returns
// the price of the level at which size shares are covered, never beyond
// limit. A book that cannot cover the size within the limit is a
// VenueRejected no_match, as the venue would answer a FOK.
func levelFor(b *clob.OrderBook, side clob.Side, size, limit decimal.Decimal) (decimal.Decimal, error) {
	levels := b.Asks
	better := func(a, c decimal.Decimal) bool { return a.LessThan(c) }
	if side == clob.Sell {
		levels = b.Bids
		better = func(a, c decimal.Decimal) bool { return a.GreaterThan(c) }
	}
	sorted := append([]clob.PriceLevel(nil), levels...)
	for i := 1; i < len(sorted); i++ { // insertion sort: books are short and mostly sorted
		for j := i; j > 0 && better(sorted[j].Price, sorted[j-1].Price); j-- {
			sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
		}
	}
	sum := decimal.Zero
	for _, l := range sorted {
		if better(limit, l.Price) {
			break
		}
		sum = sum.Add(l.Size)
		if sum.GreaterThanOrEqual(size) {
			return l.Price, nil
		}
	}
	return decimal.Zero, errs.Ef(errs.VenueRejected, "the book cannot fill %s shares at %s or better right now", size.String(), limit.String()).
		WithCode(errs.CodeNoMatch).WithHint("use a LIMIT order to rest on the book, or a FAK order to take what is there")
}

// Submit places a PENDING order on the venue. It is the order workflow's
// placement activity and is safe to run any number of times:
//
//   - the signed order is stored before the first post, so every attempt
//     posts the identical order (same hash);
//   - each attempt first asks the venue for that hash and adopts what it
//     knows, so an order whose post timed out is never posted twice;
//   - a definitive rejection marks the order FAILED and releases its
//     budget; an unknown outcome or an unreachable venue is a Transient
//     error for the workflow to retry.
func (s *Service) Submit(ctx context.Context, orderID string) (o Order, err error) {
	t0 := time.Now()
	defer func() {
		s.log().DebugContext(ctx, "order submit", "order_id", orderID, "took", time.Since(t0), "err", err)
		at := Attempt{Status: o.Status, Err: err}
		if err == nil && o.exact {
			v := o
			v.exact = false
			at.Order = &v
		}
		s.Attempts.done(orderID, at)
	}()
	return s.submit(ctx, orderID)
}

func (s *Service) submit(ctx context.Context, orderID string) (Order, error) {
	// An order whose workflow this process started early is read once its
	// acceptance decided: committed, or refused (nothing to place).
	known, stored, o, err := s.Accepts.await(ctx, orderID)
	if known {
		if err != nil {
			return Order{}, errs.Wrap(errs.Transient, err, "the order's acceptance has not decided yet")
		}
		if !stored {
			return notStored(orderID), nil
		}
	}
	if o == nil {
		// Every attempt but the first in the accepting process reads the
		// order (what an earlier attempt or a cancel did to it is in the
		// row); the first takes the row its acceptance just committed.
		// Whatever changed since, the guarded writes below see.
		o, err = s.Store.OrderByID(ctx, orderID)
	}
	if errs.Is(err, errs.NotFound) {
		// No order, and no acceptance of it here: a start naming no order
		// (forged), or an early start whose accepting API died before its
		// acceptance decided. The task reaches another worker only after
		// the dead one's task timed out, and the dead process's
		// transaction ended with its connection, so the order will not
		// appear: nothing to place, and the run ends.
		return notStored(orderID), nil
	}
	if err != nil {
		return Order{}, err
	}
	if o.Status != models.OrderPending {
		return view(o), nil
	}
	if o.Mode == models.ModePaper {
		return s.submitPaper(ctx, o)
	}
	t, err := s.trader(ctx, o.UserID)
	if err != nil {
		if errs.Is(err, errs.NotFound) {
			return s.fail(ctx, o, "wallet_removed", "", "the trading wallet was removed before the order was placed")
		}
		return Order{}, err
	}
	// fresh: this attempt signed the order, so no post of its hash can
	// have reached the venue before (every post reads the stored order);
	// only an attempt that found a signed order stored needs to ask.
	fresh := false
	if o.SignedOrder == "" {
		b, err := s.build(ctx, t, o)
		if err != nil {
			return s.failOrRetry(ctx, o, err)
		}
		raw, err := json.Marshal(storedOrder{Request: b.Request, Domain: b.Domain, Price: b.Price, NegRisk: b.NegRisk})
		if err != nil {
			return Order{}, errs.Wrap(errs.Internal, err, "encode the signed order")
		}
		if o, err = s.Store.SetSignedOrder(ctx, o, string(raw), b.Hash.Hex()); err != nil {
			return Order{}, err
		}
		if o.Status != models.OrderPending {
			return view(o), nil
		}
		fresh = o.SignedOrder == string(raw)
	}
	var so storedOrder
	if err := json.Unmarshal([]byte(o.SignedOrder), &so); err != nil {
		return Order{}, errs.Wrap(errs.Internal, err, "stored signed order is unreadable")
	}
	b, err := so.built()
	if err != nil {
		return Order{}, err
	}
	// Reconcile before reposting: the venue may hold the order from an
	// attempt whose answer was lost. (Two attempts posting at once are
	// told apart by the venue, which refuses the second post of a hash.)
	if !fresh {
		if _, err := t.Client.GetOrder(ctx, b.Hash.Hex()); err == nil {
			s.log().InfoContext(ctx, "order found on the venue before posting; adopting it", "order_id", o.ID, "hash", b.Hash.Hex())
			return s.syncWith(ctx, t, o)
		} else if !errs.Is(err, errs.NotFound) {
			return Order{}, s.venueErr(ctx, o.UserID, err)
		}
	}
	if s.Listen != nil {
		s.Listen.Watch()
	}
	// Wait for the wallet's turn to post (the venue throttles posts per
	// signer): before the claim, so a cancel of the PENDING order is not
	// held up by the queue.
	if err := pace(ctx, s.Pacer, t, o); err != nil {
		return Order{}, err
	}
	// Claim the post in the same guarded update that checks the order is
	// still PENDING: a cancel of the PENDING order either came first (the
	// claim fails and nothing is posted) or waits for this post's outcome.
	if err := s.Store.ClaimOrderPost(ctx, o.ID, postTimeout+postSettle); err != nil {
		if !errs.Is(err, errs.Conflict) {
			return Order{}, err
		}
		cur, err := s.Store.OrderByID(ctx, o.ID)
		if err != nil {
			return Order{}, err
		}
		s.log().InfoContext(ctx, "order no longer pending; not posting it", "order_id", o.ID, "status", cur.Status)
		return view(cur), nil
	}
	released := false
	defer func() {
		if released {
			return
		}
		if err := s.Store.ReleaseOrderPost(context.WithoutCancel(ctx), o.ID, postSettle); err != nil {
			s.log().WarnContext(ctx, "cannot release the posting claim; it expires by itself", "order_id", o.ID, "err", err)
		}
	}()
	// Once claimed, the post and its record run to their end even when
	// the attempt is stopped (a pending cancel stops a local activity by
	// cancelling its context): a post cut off mid-flight has an unknown
	// outcome, which the cancel would have to wait out.
	ctx, cancelRest := context.WithTimeout(context.WithoutCancel(ctx), postTimeout+postSettle)
	defer cancelRest()
	pctx, cancelPost := context.WithTimeout(ctx, postTimeout)
	placed, err := t.Post(pctx, b)
	cancelPost()
	switch {
	case err == nil:
		metrics.OrderPlaced(o.Side, o.Type)
		if placed.Response != nil && placed.Response.Status == "live" && len(placed.Response.TradeIDs) == 0 {
			// Resting without a match: known without another round
			// trip to the venue. Fills from here on arrive as events.
			at := s.Store.Now().Truncate(time.Microsecond)
			err := s.Store.UpdateOrder(ctx, o.ID, []string{models.OrderPending}, store.OrderUpdate{Status: ptr(models.OrderOpen), At: at})
			switch {
			case err == nil:
				// No longer PENDING: the claim guards nothing now.
				released = true
				o.Status, o.UpdatedAt = models.OrderOpen, at
				v := view(o)
				v.exact = true
				return v, nil
			case !errs.Is(err, errs.Conflict):
				return Order{}, err
			}
			cur, err := s.Store.OrderByID(ctx, o.ID) // changed meanwhile
			if err != nil {
				return Order{}, err
			}
			return view(cur), nil
		}
		return s.syncWith(ctx, t, o)
	case clob.Duplicate(err):
		return s.syncWith(ctx, t, o)
	case clob.MarketChanged(err):
		// Definitively rejected for stale market parameters: sign anew
		// on the next attempt.
		s.CLOB.InvalidateMarketInfo(o.TokenID)
		if cerr := s.Store.ClearSignedOrder(ctx, o.ID, b.Hash.Hex()); cerr != nil {
			return Order{}, cerr
		}
		return Order{}, errs.Wrap(errs.Transient, err, "the market's parameters changed; re-signing the order")
	}
	return s.failOrRetry(ctx, o, s.venueErr(ctx, o.UserID, err))
}

// pace waits, at most paceWait, for the turn of o's agent in p's queue of
// the wallet t signs for (nil p: no wait).
func pace(ctx context.Context, p Pacer, t *clob.Trader, o *models.Order) error {
	if p == nil {
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, paceWait)
	defer cancel()
	return p.Wait(wctx, t.Signer.Address().Hex(), o.AgentID)
}

// venueErr handles credentials the venue no longer accepts: they are
// forgotten so the next attempt derives them again.
func (s *Service) venueErr(ctx context.Context, userID string, err error) error {
	if venue.Is(err, venue.Unauthorized) {
		if ierr := s.Wallets.InvalidateCreds(ctx, userID); ierr != nil {
			s.log().WarnContext(ctx, "cannot invalidate venue credentials", "user_id", userID, "err", ierr)
		}
		return errs.Wrap(errs.Transient, err, "the venue refused the API credentials; deriving them again")
	}
	return err
}

// failOrRetry ends the order as FAILED when err is a definitive answer
// (the order is invalid or the venue rejected it) and passes transient
// errors on for the workflow to retry.
func (s *Service) failOrRetry(ctx context.Context, o *models.Order, err error) (Order, error) {
	if refused(err) {
		return s.fail(ctx, o, errs.KindOf(err).String(), errs.CodeOf(err), errs.PublicMessage(err))
	}
	return Order{}, err
}

// refused reports whether err is a definitive answer to the order: the
// request, the account's state or the venue refused it, and trying again
// unchanged would be refused again.
func refused(err error) bool {
	switch errs.KindOf(err) {
	case errs.Invalid, errs.VenueRejected, errs.Conflict, errs.NotFound, errs.Forbidden:
		return true
	case errs.VenueDenied:
		// Access refused (region, banned or close-only address) stays
		// refused; refused credentials are derived again (venueErr).
		return venue.Is(err, venue.Forbidden)
	}
	return false
}

// fail marks a PENDING order FAILED, with the refusal's catalogue code
// (or "") and client-safe reason, and releases its budget. kind (an error
// kind) labels the failure in the metrics.
func (s *Service) fail(ctx context.Context, o *models.Order, kind, code, reason string) (Order, error) {
	st, zero := models.OrderFailed, int64(0)
	err := s.Store.UpdateOrder(ctx, o.ID, []string{models.OrderPending}, store.OrderUpdate{Status: &st, FailureReason: &reason, FailureCode: &code, ReservedMicro: &zero})
	if err != nil && !errs.Is(err, errs.Conflict) {
		return Order{}, err
	}
	if err == nil {
		// Counted by the attempt whose guarded update ended the order
		// (the store counts the status change itself).
		metrics.OrderFailed(kind)
	}
	if err := s.releaseBudget(ctx, o, 0); err != nil {
		return Order{}, err
	}
	cur, err := s.Store.OrderByID(ctx, o.ID)
	if err != nil {
		return Order{}, err
	}
	return view(cur), nil
}

// Abandon ends an order whose placement kept failing for longer than the
// workflow waits: if the venue knows it after all, it is adopted;
// otherwise it is FAILED (venue unavailable) and its budget released. While
// a placement attempt holds the posting claim its post may still reach the
// venue, so Abandon answers a transient error and is asked again once the
// claim has run out.
func (s *Service) Abandon(ctx context.Context, orderID string) (Order, error) {
	o, err := s.Store.OrderByID(ctx, orderID)
	if errs.Is(err, errs.NotFound) {
		// Never stored (see submit): there is nothing to end.
		return notStored(orderID), nil
	}
	if err != nil {
		return Order{}, err
	}
	if o.Status != models.OrderPending {
		return view(o), nil
	}
	if postInFlight(o) {
		return Order{}, errPostInFlight()
	}
	if o.VenueOrderID != "" {
		t, err := s.trader(ctx, o.UserID)
		if err != nil {
			return Order{}, err
		}
		if _, err := t.Client.GetOrder(ctx, o.VenueOrderID); err == nil {
			return s.syncWith(ctx, t, o)
		} else if !errs.Is(err, errs.NotFound) {
			return Order{}, err // cannot tell: keep asking
		}
	}
	err = s.Store.FailPendingOrder(ctx, o.ID, "the venue could not be reached to place the order")
	if errs.Is(err, errs.Conflict) {
		cur, gerr := s.Store.OrderByID(ctx, o.ID)
		if gerr != nil {
			return Order{}, gerr
		}
		if cur.Status == models.OrderPending {
			return Order{}, errPostInFlight() // claimed since it was read
		}
		return view(cur), nil // ended by a cancel or a sync meanwhile
	}
	if err != nil {
		return Order{}, err
	}
	if err := s.releaseBudget(ctx, o, 0); err != nil {
		return Order{}, err
	}
	cur, err := s.Store.OrderByID(ctx, o.ID)
	if err != nil {
		return Order{}, err
	}
	return view(cur), nil
}

// postInFlight reports whether a placement attempt's posting claim on the
// order is still live.
func postInFlight(o *models.Order) bool {
	return o.PostingUntil != nil && time.Now().Before(*o.PostingUntil)
}

func errPostInFlight() error {
	return errs.E(errs.Transient, "a post of the order may still reach the venue; it is ended once that is settled").
		WithCode(errs.CodePostInFlight)
}

// Sync brings an order up to date with the venue: its status, its fills
// (recorded once each), the agent's budget and position. Idempotent.
func (s *Service) Sync(ctx context.Context, orderID string) (Order, error) {
	o, err := s.Store.OrderByID(ctx, orderID)
	if err != nil {
		return Order{}, err
	}
	if o.Mode == models.ModePaper {
		return s.syncPaper(ctx, o)
	}
	if o.VenueOrderID == "" || TerminalStatus(o.Status) {
		return view(o), nil
	}
	t, err := s.trader(ctx, o.UserID)
	if err != nil {
		return Order{}, err
	}
	return s.syncWith(ctx, t, o)
}

func (s *Service) syncWith(ctx context.Context, t *clob.Trader, o *models.Order) (Order, error) {
	vo, err := t.Client.GetOrder(ctx, o.VenueOrderID)
	if errs.Is(err, errs.NotFound) {
		if o.Status == models.OrderPending {
			return view(o), nil
		}
		// A marketable order the venue killed without a match is not
		// kept by the venue.
		vo = &clob.OpenOrder{ID: o.VenueOrderID, Status: "CANCELED"}
	} else if err != nil {
		return Order{}, s.venueErr(ctx, o.UserID, err)
	}
	if err := s.recordFills(ctx, t, o, vo.AssociateTrades); err != nil {
		return Order{}, err
	}
	fills, err := s.Store.ListFills(ctx, o.ID)
	if err != nil {
		return Order{}, err
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
	status := venueStatus(vo.Status, o, filled)
	avg := int64(0)
	if filled > 0 {
		avg = micro.Div(notional, filled)
	}
	u := store.OrderUpdate{Status: &status, FilledSizeMicro: &filled, AvgFillPriceMicro: &avg}
	if filled > 0 {
		u.FilledAt = &last
	}
	if TerminalStatus(status) {
		zero := int64(0)
		u.ReservedMicro = &zero
	}
	changed := status != o.Status || filled != o.FilledSizeMicro || avg != o.AvgFillPriceMicro
	if !changed {
		// The common case of a resting order's poll: nothing to write.
		return view(o), nil
	}
	// Budget first, then position and order row: if this step dies in
	// between, the next sync still sees a change and redoes the
	// (idempotent) budget update.
	if o.Side == SideBuy {
		if TerminalStatus(status) {
			err = s.releaseBudget(ctx, o, notional)
		} else if notional > 0 {
			_, err = s.Budget.Convert(ctx, o.ID, notional)
		}
		if err != nil && !errs.Is(err, errs.NotFound) {
			return Order{}, err
		}
	}
	// The position and the order row change together under the user's
	// lock, the lock a sell's check (checkOwnShares) holds: a SELL's fill
	// leaves the agent's position in the same commit that stops the order
	// offering those shares, so no check sees the shares gone twice (the
	// position smaller while the order still offers them refused the
	// agent's other sells) or not at all.
	from := []string{models.OrderPending, models.OrderOpen, models.OrderPartiallyFilled}
	err = s.Store.WithBudgetLock(ctx, o.UserID, func(tx *store.Store) error {
		if filled > 0 && s.Positions != nil {
			if err := s.Positions.RecomputeLocked(ctx, tx, o.AgentID, o.UserID, o.TokenID); err != nil {
				return err
			}
		}
		if err := tx.UpdateOrder(ctx, o.ID, from, u); err != nil && !errs.Is(err, errs.Conflict) {
			return err
		}
		return nil
	})
	if err != nil {
		return Order{}, err
	}
	cur, err := s.Store.OrderByID(ctx, o.ID)
	if err != nil {
		return Order{}, err
	}
	return view(cur), nil
}

// recordFills stores the order's share of each venue trade it took part
// in (as taker or maker). Trades already recorded are absorbed.
func (s *Service) recordFills(ctx context.Context, t *clob.Trader, o *models.Order, tradeIDs []string) error {
	hash := strings.ToLower(o.VenueOrderID)
	for _, id := range tradeIDs {
		trades, err := t.Client.GetTrades(ctx, clob.TradeParams{ID: id})
		if err != nil {
			return s.venueErr(ctx, o.UserID, err)
		}
		for _, tr := range trades {
			if tr.ID != id {
				continue
			}
			f := models.Fill{OrderID: o.ID, VenueTradeID: tr.ID, TxHash: tr.TransactionHash}
			var err error
			if strings.ToLower(tr.TakerOrderID) == hash {
				f.PriceMicro, f.SizeMicro, err = fillMicro(tr.Price.Decimal, tr.Size.Decimal)
			} else {
				for _, m := range tr.MakerOrders {
					if strings.ToLower(m.OrderID) == hash {
						f.PriceMicro, f.SizeMicro, err = fillMicro(m.Price.Decimal, m.MatchedAmount.Decimal)
					}
				}
			}
			if err != nil {
				return err
			}
			if f.SizeMicro <= 0 {
				continue
			}
			if ts, err := time.Parse(time.RFC3339, tr.MatchTime); err == nil {
				f.Time = ts
			} else if sec, err := decimal.NewFromString(tr.MatchTime); err == nil {
				f.Time = time.Unix(sec.IntPart(), 0)
			}
			if _, err := s.Store.AddFill(ctx, &f); err != nil {
				return err
			}
		}
	}
	return nil
}

// venueStatus maps the venue's order status and the recorded fills to
// the service's status.
func venueStatus(venue string, o *models.Order, filled int64) string {
	switch strings.ToUpper(venue) {
	case "LIVE", "DELAYED", "UNMATCHED":
		if filled > 0 {
			return models.OrderPartiallyFilled
		}
		return models.OrderOpen
	case "MATCHED":
		if filled >= o.SizeMicro || o.RequestType != TypeLimit && filled > 0 {
			return models.OrderFilled
		}
		if filled > 0 {
			return models.OrderPartiallyFilled
		}
		return models.OrderOpen // trades not visible yet
	default: // CANCELED, CANCELED_MARKET_RESOLVED, INVALID, expired
		if filled >= o.SizeMicro {
			return models.OrderFilled
		}
		if filled == 0 && o.Status == models.OrderPending && o.RequestType != TypeLimit {
			return models.OrderFailed // a FOK/FAK the venue killed unfilled
		}
		return models.OrderCancelled
	}
}

// CancelAtVenue cancels a placed order on the venue and records the
// outcome; it is the order workflow's cancel activity. It answers the
// status before the cancel. The order is recorded CANCELLED only once the
// venue no longer has it live: an order that filled meanwhile is a
// Conflict (order_not_cancellable, its fills recorded), and one the venue
// still shows open after the cancel is a Transient error
// (cancel_unconfirmed) that leaves it OPEN and followed, so a later fill
// is never lost. A PENDING order is cancelled as CancelPending does.
func (s *Service) CancelAtVenue(ctx context.Context, orderID string) (previous string, _ Order, _ error) {
	o, err := s.Store.OrderByID(ctx, orderID)
	if err != nil {
		return "", Order{}, err
	}
	switch {
	case o.Status == models.OrderCancelled:
		return o.Status, view(o), nil // a retried activity: done already
	case TerminalStatus(o.Status):
		return "", Order{}, notCancellable(o.Status)
	case o.Status == models.OrderPending:
		return s.CancelPending(ctx, orderID)
	case o.Mode == models.ModePaper:
		return s.cancelPaper(ctx, o)
	case o.VenueOrderID == "":
		// Placed orders have a venue id; without one nothing can be live
		// on the venue, so the cancel is only recorded.
		st, zero := models.OrderCancelled, int64(0)
		if err := s.Store.UpdateOrder(ctx, o.ID, []string{models.OrderOpen, models.OrderPartiallyFilled},
			store.OrderUpdate{Status: &st, ReservedMicro: &zero}); err != nil {
			return "", Order{}, err
		}
		cur, err := s.Store.OrderByID(ctx, o.ID)
		if err != nil {
			return "", Order{}, err
		}
		if err := s.releaseBudget(ctx, o, micro.Mul(cur.AvgFillPriceMicro, cur.FilledSizeMicro)); err != nil {
			return "", Order{}, err
		}
		return o.Status, view(cur), nil
	}
	t, err := s.trader(ctx, o.UserID)
	if err != nil {
		return "", Order{}, err
	}
	v, err := s.cancelWith(ctx, t, o)
	if err != nil {
		return "", Order{}, err
	}
	return o.Status, v, nil
}

// cancelWith cancels o's venue order and records what the venue says
// afterwards (fills included): the order is CANCELLED only when the venue
// confirms it is no longer live.
func (s *Service) cancelWith(ctx context.Context, t *clob.Trader, o *models.Order) (Order, error) {
	// Queued, never dropped: a wait that runs out is a Transient error
	// the cancel activity retries.
	if err := pace(ctx, s.CancelPacer, t, o); err != nil {
		return Order{}, err
	}
	res, err := t.Client.CancelOrder(ctx, o.VenueOrderID)
	if err != nil && !errs.Is(err, errs.NotFound) {
		return Order{}, s.venueErr(ctx, o.UserID, err)
	}
	v, err := s.syncWith(ctx, t, o)
	if err != nil {
		return Order{}, err
	}
	err = cancelOutcome(v.Status)
	if errs.Is(err, errs.Transient) {
		reason := ""
		if res != nil {
			reason = res.NotCanceled[o.VenueOrderID]
		}
		s.log().WarnContext(ctx, "the venue has not confirmed the cancel", "order_id", o.ID, "status", v.Status, "venue_reason", reason)
	}
	if err != nil {
		return Order{}, err
	}
	return v, nil
}

// cancelOutcome judges an order's status as recorded after a venue
// cancel: nil when it is CANCELLED, order_not_cancellable when it ended
// otherwise (filled or failed meanwhile), and a Transient
// cancel_unconfirmed error while the venue still has it live: recording
// CANCELLED then would stop following an order that can still fill.
func cancelOutcome(status string) error {
	switch {
	case status == models.OrderCancelled:
		return nil
	case TerminalStatus(status):
		return notCancellable(status)
	}
	return errs.E(errs.Transient, "the venue has not confirmed the cancel: the order is still open there and is still followed").
		WithCode(errs.CodeCancelUnconfirmed).WithHint("send DELETE /orders/{id} again; GET /orders/{id} shows the order's status")
}

// releaseBudget ends a BUY order's reservation with spentMicro used.
func (s *Service) releaseBudget(ctx context.Context, o *models.Order, spentMicro int64) error {
	if o.Side != SideBuy || s.Budget == nil {
		return nil
	}
	_, err := s.Budget.Finish(ctx, o.ID, spentMicro)
	if errs.Is(err, errs.NotFound) {
		return nil
	}
	return err
}

// fillMicro converts a venue fill's price and size to micro-units.
func fillMicro(price, size decimal.Decimal) (priceMicro, sizeMicro int64, err error) {
	if priceMicro, err = micro.Round(price); err != nil {
		return 0, 0, err
	}
	if sizeMicro, err = micro.Round(size); err != nil {
		return 0, 0, err
	}
	return priceMicro, sizeMicro, nil
}

func ptr[T any](v T) *T { return &v }
