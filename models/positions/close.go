package positions

import (
	"context"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/micro"
)

// DefaultSlippage is the slippage of a LIMIT close when none is given.
var DefaultSlippage = decimal.RequireFromString("0.02")

// CloseRequest says how to close a position.
type CloseRequest struct {
	// Type is MARKET (default), FOK or LIMIT.
	Type string
	// Slippage (0–1) is how far below the best bid a LIMIT close may sell;
	// nil means DefaultSlippage. A pointer, because 0 (sell at the best bid
	// exactly) is a valid choice.
	Slippage *decimal.Decimal
	DryRun   bool
	// IdempotencyKey is stored on the order, so a retried close returns
	// the first order instead of selling twice.
	IdempotencyKey string
}

// Execution is what a close realized: Proceeds = filled × average fill
// price; Pnl = Proceeds − filled × average entry; PnlPercent is Pnl over the
// cost of the shares sold, in percent.
type Execution struct {
	Proceeds   decimal.Decimal
	Pnl        decimal.Decimal
	PnlPercent decimal.Decimal
}

// CloseResult is the outcome of Close. For a dry run Preview is set and
// Order is zero.
type CloseResult struct {
	Order orders.Order
	// Pending is true when the placement result did not arrive in time;
	// poll the order.
	Pending    bool
	Preview    *orders.Preview
	PositionID string
	// IsClosed is set when no shares are left after the order.
	IsClosed  bool
	Execution Execution
}

// Validate normalises r (type upper case and defaulted) and checks it.
func (r *CloseRequest) Validate() error {
	r.Type = strings.ToUpper(strings.TrimSpace(r.Type))
	switch r.Type {
	case "":
		r.Type = orders.TypeMarket
	case orders.TypeMarket, orders.TypeFOK, orders.TypeLimit:
	default:
		return errs.E(errs.Invalid, "type must be MARKET, FOK or LIMIT").WithCode(errs.CodeInvalidClose)
	}
	if r.Slippage != nil && (r.Slippage.IsNegative() || r.Slippage.GreaterThan(decimal.NewFromInt(1))) {
		return errs.E(errs.Invalid, "slippage must be between 0 and 1").WithCode(errs.CodeInvalidClose)
	}
	return nil
}

// ClosePlan is how a position is closed: the sell order to place
// (Order), or, for a retry of a close that placed its order already, the
// answer (Done). The order desk places Order and hands the result to
// Service.Closed (workflows.OrderDesk.ClosePosition).
type ClosePlan struct {
	Order *orders.PlaceRequest
	Done  *CloseResult
	pos   *models.Position
}

// PlanClose checks a close of the whole position and returns the sell
// order that makes it, less the shares the agent's open SELL orders in
// the token already offer. The price depends on the type: MARKET accepts
// down to the market's minimum tick (it takes whatever bids there are),
// FOK sells everything at the best bid or nothing, LIMIT rests at the best
// bid less slippage, rounded down to the tick and never below it. It
// places nothing: it is called and returns.
func (s *Service) PlanClose(ctx context.Context, p orders.Principal, positionID string, r CloseRequest) (ClosePlan, error) {
	if err := r.Validate(); err != nil {
		return ClosePlan{}, err
	}
	if s.Books == nil {
		return ClosePlan{}, errs.E(errs.Internal, "the positions service is not wired for closing (books)")
	}
	pos, err := s.positionFor(ctx, p.AgentID, positionID)
	if err != nil {
		return ClosePlan{}, err
	}
	if prior, err := s.priorClose(ctx, p.AgentID, pos.TokenID, r.IdempotencyKey); err != nil || prior != nil {
		if err != nil {
			return ClosePlan{}, err
		}
		// A retry of a close that already placed its order answers with
		// that order, even though the position may be closed by now.
		// One still PENDING is answered as pending, so that the retry is
		// not taken for a final answer either.
		done, err := s.closeResult(ctx, p.AgentID, pos, orderView(prior), prior.Status == models.OrderPending)
		if err != nil {
			return ClosePlan{}, err
		}
		return ClosePlan{Done: &done, pos: pos}, nil
	}
	switch {
	case pos.Status == models.PositionRedeemable || pos.Status == models.PositionSettled:
		return ClosePlan{}, errs.E(errs.Conflict, "the market has resolved; the position can no longer be sold").
			WithCode(errs.CodePositionResolved).WithHint("redeem it with POST /settlements/redeem")
	case pos.SizeMicro <= 0:
		return ClosePlan{}, errs.E(errs.Conflict, "position is already closed").WithCode(errs.CodePositionClosed)
	}
	// Shares the agent's open SELL orders already offer are not sold twice:
	// the close sells the rest (the order service checks it again, under
	// the user's lock, when it places the order).
	held, committed, err := s.Store.SellableShares(ctx, p.AgentID, pos.TokenID)
	if err != nil {
		return ClosePlan{}, err
	}
	size := min(pos.SizeMicro, held-committed)
	if size <= 0 {
		return ClosePlan{}, errs.Ef(errs.Conflict, "all %s shares of the position are already offered by open sell orders", micro.Decimal(pos.SizeMicro).String()).
			WithCode(errs.CodePositionInOrders).WithHint("cancel them (DELETE /orders/{id}) to close at once, or wait for them to fill")
	}
	price, err := s.closePrice(ctx, pos.TokenID, r)
	if err != nil {
		return ClosePlan{}, err
	}
	return ClosePlan{pos: pos, Order: &orders.PlaceRequest{
		TokenID: pos.TokenID, Side: orders.SideSell, Type: r.Type, Price: price, Size: micro.Decimal(size),
		DryRun: r.DryRun, IdempotencyKey: r.IdempotencyKey,
	}}, nil
}

// Closed answers a close whose plan's order was placed with res: what the
// order realized against the entry price, and whether the position is
// closed now (a dry run answers its preview).
func (s *Service) Closed(ctx context.Context, p orders.Principal, plan ClosePlan, res orders.PlaceResult) (CloseResult, error) {
	if plan.pos == nil || plan.Order == nil {
		return CloseResult{}, errs.E(errs.Internal, "a close answered without its plan")
	}
	if plan.Order.DryRun {
		return CloseResult{Preview: res.Preview, PositionID: plan.pos.ID}, nil
	}
	return s.closeResult(ctx, p.AgentID, plan.pos, res.Order, res.Pending)
}

// closeResult re-reads the position after the close order and computes
// what the order realized against the entry price before it.
func (s *Service) closeResult(ctx context.Context, agentID string, before *models.Position, o orders.Order, pending bool) (CloseResult, error) {
	// The order service recomputes after recording fills; doing it here
	// too (it is idempotent) makes isClosed reflect this order's fills
	// whichever path recorded them.
	if err := s.Recompute(ctx, agentID, before.UserID, before.TokenID); err != nil {
		return CloseResult{}, err
	}
	after, err := s.Store.PositionForAgent(ctx, agentID, before.ID)
	if err != nil {
		return CloseResult{}, err
	}
	return CloseResult{
		Order: o, Pending: pending, PositionID: before.ID, IsClosed: after.SizeMicro == 0,
		Execution: execution(o.FilledSize, o.AvgFillPrice, micro.Decimal(before.AvgEntryMicro)),
	}, nil
}

// priorClose finds the order an earlier attempt with the same idempotency
// key placed within store.IdempotencyRetention (nil when there is none;
// after it the key is free for a new close). A key used for a different
// order is a Conflict.
func (s *Service) priorClose(ctx context.Context, agentID, tokenID, key string) (*models.Order, error) {
	if key == "" {
		return nil, nil
	}
	o, err := s.Store.OrderByIdempotencyKey(ctx, agentID, key)
	switch {
	case errs.Is(err, errs.NotFound):
		return nil, nil
	case err != nil:
		return nil, err
	}
	if o.TokenID != tokenID || o.Side != orders.SideSell {
		return nil, errs.E(errs.Conflict, "the idempotency key was already used for another order").WithCode(errs.CodeIdempotencyKeyReused)
	}
	return o, nil
}

// orderView is the service view of a stored order, for the replay path
// (the fields a close result shows).
func orderView(o *models.Order) orders.Order {
	typ := o.RequestType
	if typ == "" {
		typ = o.Type
	}
	return orders.Order{
		ID: o.ID, PolyOrderID: o.VenueOrderID, Status: o.Status, Side: o.Side, Type: typ,
		TokenID: o.TokenID, ConditionID: o.ConditionID,
		Price: micro.Decimal(o.PriceMicro), Size: micro.Decimal(o.SizeMicro),
		FilledSize: micro.Decimal(o.FilledSizeMicro), AvgFillPrice: micro.Decimal(o.AvgFillPriceMicro),
		MarketQuestion: o.MarketQuestion, Outcome: o.Outcome, FailureReason: o.FailureReason,
		CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt, FilledAt: o.FilledAt,
	}
}

// closePrice prices a sell of the position per the close type.
func (s *Service) closePrice(ctx context.Context, tokenID string, r CloseRequest) (decimal.Decimal, error) {
	book, err := s.Books.OrderBook(ctx, tokenID)
	if err != nil {
		return decimal.Zero, unavailable(err, "the order book is unavailable; retry later")
	}
	tick := book.TickSize.Decimal()
	if !book.TickSize.Valid() || !tick.IsPositive() {
		return decimal.Zero, errs.Ef(errs.Transient, "the venue returned no valid tick size for token %s", tokenID)
	}
	bid, ok := bestBid(book)
	if !ok {
		return decimal.Zero, errs.E(errs.Conflict, "the market has no bids to sell into").WithCode(errs.CodeNoBids).
			WithHint("retry later, or close with type LIMIT once there are bids")
	}
	// The API's price floor (0.01) is above the tick on 0.001-tick markets,
	// which is where prices sit near 0 or 1 and agents most want out.
	floor := decimal.Max(tick, orders.MinPrice)
	switch r.Type {
	case orders.TypeMarket:
		return floor, nil
	case orders.TypeFOK:
		return bid, nil
	}
	slip := DefaultSlippage
	if r.Slippage != nil {
		slip = *r.Slippage
	}
	limit := bid.Mul(decimal.NewFromInt(1).Sub(slip)).Div(tick).Floor().Mul(tick)
	return decimal.Max(limit, floor), nil
}

// bestBid is the highest bid with size (the venue sorts bids ascending,
// but the maximum does not depend on that).
func bestBid(b *clob.OrderBook) (decimal.Decimal, bool) {
	best, ok := decimal.Zero, false
	for _, l := range b.Bids {
		if l.Size.IsPositive() && l.Price.IsPositive() && (!ok || l.Price.GreaterThan(best)) {
			best, ok = l.Price, true
		}
	}
	return best, ok
}

func execution(filled, avgFill, avgEntry decimal.Decimal) Execution {
	proceeds := filled.Mul(avgFill)
	cost := filled.Mul(avgEntry)
	pnl := proceeds.Sub(cost)
	return Execution{Proceeds: proceeds.Round(6), Pnl: pnl.Round(6), PnlPercent: percent(pnl, cost)}
}

// ForUser returns the Principal a user's close of their position id acts
// as: the position's agent (the close is attributed to it), the user, and
// ByUser. Another user's position is NotFound.
func (s *Service) ForUser(ctx context.Context, userID, id, clientAddr string) (orders.Principal, error) {
	if !models.HasPrefix(id, models.PrefixPosition) {
		return orders.Principal{}, errs.E(errs.NotFound, "position not found").WithCode(errs.CodePositionNotFound)
	}
	p, err := s.Store.PositionForUser(ctx, userID, id)
	if errs.Is(err, errs.NotFound) {
		return orders.Principal{}, errs.E(errs.NotFound, "position not found").WithCode(errs.CodePositionNotFound)
	}
	if err != nil {
		return orders.Principal{}, err
	}
	return orders.Principal{AgentID: p.AgentID, UserID: p.UserID, ClientAddr: clientAddr, ByUser: true}, nil
}
