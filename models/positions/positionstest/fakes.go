// Package positionstest has in-memory stand-ins for the venue and the chain
// that positions.Service depends on, and a Placer that fills orders
// against an in-memory book and records them in the real store the way the
// order service does (order row, fills, position recompute). Tests of the
// positions service and its API use them; they are fakes with behaviour,
// not canned answers.
package positionstest

import (
	"context"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/positions"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/micro"
)

// Prices is a PriceSource over a settable map; it counts lookups and
// remembers whether the last one asked for fresh data.
type Prices struct {
	mu        sync.Mutex
	px        map[string]decimal.Decimal
	err       error
	calls     int
	lastFresh bool
}

// NewPrices returns prices of token ids given as decimal strings.
func NewPrices(px map[string]string) *Prices {
	p := &Prices{px: map[string]decimal.Decimal{}}
	for k, v := range px {
		p.px[k] = decimal.RequireFromString(v)
	}
	return p
}

// Set changes a token's price.
func (p *Prices) Set(tokenID, price string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.px[tokenID] = decimal.RequireFromString(price)
}

// Fail makes every lookup fail with err (nil restores).
func (p *Prices) Fail(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.err = err
}

// Calls returns how many lookups ran and whether the last was fresh.
func (p *Prices) Calls() (n int, lastFresh bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls, p.lastFresh
}

// Prices implements positions.PriceSource.
func (p *Prices) Prices(_ context.Context, ids []string, fresh bool) (map[string]decimal.Decimal, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	p.lastFresh = fresh
	if p.err != nil {
		return nil, p.err
	}
	out := map[string]decimal.Decimal{}
	for _, id := range ids {
		if v, ok := p.px[id]; ok {
			out[id] = v
		}
	}
	return out, nil
}

// Midpoints is a positions.Midpointer over a settable map (unknown tokens
// are NotFound, as the venue answers them); it counts calls.
type Midpoints struct {
	mu    sync.Mutex
	Mid   map[string]decimal.Decimal
	Err   error
	Calls int
}

// Midpoint implements positions.Midpointer.
func (m *Midpoints) Midpoint(_ context.Context, tokenID string) (decimal.Decimal, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	if m.Err != nil {
		return decimal.Zero, m.Err
	}
	v, ok := m.Mid[tokenID]
	if !ok {
		return decimal.Zero, errs.E(errs.NotFound, "no orderbook exists for the requested token id")
	}
	return v, nil
}

// Chain is the conditional-tokens contract's resolution state: payout
// vectors by condition, zero denominators until Resolve.
type Chain struct {
	mu    sync.Mutex
	res   map[common.Hash][]int64
	err   error
	calls int
}

// NewChain returns a chain where no condition is resolved.
func NewChain() *Chain { return &Chain{res: map[common.Hash][]int64{}} }

// Resolve reports payout numerators for a condition (the denominator is
// their sum, as the CTF computes it).
func (c *Chain) Resolve(conditionID string, numerators ...int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.res[common.HexToHash(conditionID)] = numerators
}

// Fail makes every read fail with err (nil restores).
func (c *Chain) Fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.err = err
}

// Calls returns how many payout reads ran.
func (c *Chain) Calls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}

// Payouts implements positions.Resolutions. An unresolved binary condition
// has two zero numerators and a zero denominator, as on chain.
func (c *Chain) Payouts(_ context.Context, conditionID common.Hash) ([]*big.Int, *big.Int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	if c.err != nil {
		return nil, nil, c.err
	}
	nums, ok := c.res[conditionID]
	if !ok {
		return []*big.Int{new(big.Int), new(big.Int)}, new(big.Int), nil
	}
	out, den := make([]*big.Int, len(nums)), new(big.Int)
	for i, n := range nums {
		out[i] = big.NewInt(n)
		den.Add(den, out[i])
	}
	return out, den, nil
}

// Venue is the CLOB: markets with their tokens in outcome order and a bid
// book per token. It implements positions.BookSource and MarketSource.
type Venue struct {
	mu      sync.Mutex
	markets map[string]*clob.Market
	bids    map[string][]clob.PriceLevel
	ticks   map[string]clob.TickSize
	err     error
}

// NewVenue returns an empty venue.
func NewVenue() *Venue {
	return &Venue{markets: map[string]*clob.Market{}, bids: map[string][]clob.PriceLevel{}, ticks: map[string]clob.TickSize{}}
}

// AddMarket lists a market whose tokens are outcomes "Yes" and "No" in
// that order, with a tick size.
func (v *Venue) AddMarket(conditionID, question string, tick clob.TickSize, yes, no string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.markets[conditionID] = &clob.Market{
		ConditionID: conditionID, Question: question,
		Tokens: []clob.MarketToken{{TokenID: yes, Outcome: "Yes"}, {TokenID: no, Outcome: "No"}},
	}
	v.ticks[yes], v.ticks[no] = tick, tick
}

// SetBids replaces a token's bids, given as price/size decimal strings.
func (v *Venue) SetBids(tokenID string, levels ...[2]string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.bids[tokenID] = v.bids[tokenID][:0]
	for _, l := range levels {
		v.bids[tokenID] = append(v.bids[tokenID], clob.PriceLevel{
			Price: decimal.RequireFromString(l[0]), Size: decimal.RequireFromString(l[1]),
		})
	}
}

// Fail makes every call fail with err (nil restores).
func (v *Venue) Fail(err error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.err = err
}

// OrderBook implements positions.BookSource. Bids are served ascending
// (best last), as the venue does.
func (v *Venue) OrderBook(_ context.Context, tokenID string) (*clob.OrderBook, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.err != nil {
		return nil, v.err
	}
	tick, ok := v.ticks[tokenID]
	if !ok {
		return nil, errs.E(errs.NotFound, "no orderbook exists for the requested token id")
	}
	bids := append([]clob.PriceLevel(nil), v.bids[tokenID]...)
	sort.Slice(bids, func(i, j int) bool { return bids[i].Price.LessThan(bids[j].Price) })
	return &clob.OrderBook{AssetID: tokenID, Bids: bids, TickSize: tick}, nil
}

// Market implements positions.MarketSource.
func (v *Venue) Market(_ context.Context, conditionID string) (*clob.Market, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.err != nil {
		return nil, v.err
	}
	m, ok := v.markets[conditionID]
	if !ok {
		return nil, errs.E(errs.NotFound, "market not found")
	}
	cp := *m
	return &cp, nil
}

// take sells up to size shares into bids at or above limit, best first,
// consuming the book; allOrNone takes nothing unless all of size fills.
func (v *Venue) take(tokenID string, limit, size decimal.Decimal, allOrNone bool) (fills []clob.PriceLevel) {
	v.mu.Lock()
	defer v.mu.Unlock()
	bids := v.bids[tokenID]
	sort.Slice(bids, func(i, j int) bool { return bids[i].Price.GreaterThan(bids[j].Price) })
	avail := decimal.Zero
	for _, b := range bids {
		if b.Price.GreaterThanOrEqual(limit) {
			avail = avail.Add(b.Size)
		}
	}
	if allOrNone && avail.LessThan(size) {
		return nil
	}
	left := size
	for i := range bids {
		if !left.IsPositive() || bids[i].Price.LessThan(limit) {
			break
		}
		n := decimal.Min(left, bids[i].Size)
		if n.IsPositive() {
			fills = append(fills, clob.PriceLevel{Price: bids[i].Price, Size: n})
			bids[i].Size = bids[i].Size.Sub(n)
			left = left.Sub(n)
		}
	}
	kept := bids[:0]
	for _, b := range bids {
		if b.Size.IsPositive() {
			kept = append(kept, b)
		}
	}
	v.bids[tokenID] = kept
	return fills
}

// Recomputer is what the placer calls after recording fills
// (positions.Service implements it).
type Recomputer interface {
	Recompute(ctx context.Context, agentID, userID, tokenID string) error
}

// Placer places SELL and BUY orders of known markets against the Venue's
// bids (a SELL takes bids; a BUY is recorded as filled in full at its
// price, which is all the tests need of buys), and records them in the
// store as the order service does: the order row (with its idempotency
// key: a retry returns the first order), one fill per level taken, the
// order's filled size and average price and status, then a recompute of
// the position. MARKET and FAK fill what the book has and cancel the rest,
// FOK all or nothing, LIMIT rests the remainder (status OPEN or
// PARTIALLY_FILLED).
type Placer struct {
	Store     *store.Store
	Venue     *Venue
	Positions Recomputer
	// FailWith, when set, fails every placement (a venue outage).
	FailWith error
	// Pending, when set, stores each order PENDING and answers it as a
	// placement whose result did not arrive in time.
	Pending bool

	mu       sync.Mutex
	requests []orders.PlaceRequest
	trade    int
}

// Requests returns the requests placed so far (dry runs included).
func (p *Placer) Requests() []orders.PlaceRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]orders.PlaceRequest(nil), p.requests...)
}

func (p *Placer) market(tokenID string) (cond, question, outcome string, ok bool) {
	p.Venue.mu.Lock()
	defer p.Venue.mu.Unlock()
	for _, m := range p.Venue.markets {
		for _, t := range m.Tokens {
			if t.TokenID == tokenID {
				return m.ConditionID, m.Question, t.Outcome, true
			}
		}
	}
	return "", "", "", false
}

// Place implements orders.Placer.
func (p *Placer) Place(ctx context.Context, pr orders.Principal, r orders.PlaceRequest) (orders.PlaceResult, error) {
	p.mu.Lock()
	p.requests = append(p.requests, r)
	fail := p.FailWith
	p.mu.Unlock()
	if fail != nil {
		return orders.PlaceResult{}, fail
	}
	cond, question, outcome, ok := p.market(r.TokenID)
	if !ok {
		return orders.PlaceResult{}, errs.E(errs.NotFound, "market not found")
	}
	// The real order path's bounds, so a caller pricing outside them fails
	// here as it would in production.
	if !r.Size.IsPositive() || r.Price.LessThan(orders.MinPrice) || r.Price.GreaterThan(orders.MaxPrice) {
		return orders.PlaceResult{}, errs.E(errs.Invalid, "price must be 0.01 to 0.99 and size positive").WithCode(errs.CodeInvalidPrice)
	}
	if r.DryRun {
		pv := &orders.Preview{TokenID: r.TokenID, Side: r.Side, Type: r.Type, Price: r.Price, Size: r.Size,
			MarketQuestion: question, Outcome: outcome, TickSize: "0.01"}
		if r.Side == orders.SideSell {
			pv.Proceeds = r.Size.Mul(r.Price)
		} else {
			pv.Cost = r.Size.Mul(r.Price)
		}
		return orders.PlaceResult{Preview: pv}, nil
	}
	if r.IdempotencyKey != "" {
		if o, err := p.Store.OrderByIdempotencyKey(ctx, pr.AgentID, r.IdempotencyKey); err == nil {
			return orders.PlaceResult{Order: view(o)}, nil
		}
	}
	o := &models.Order{
		AgentID: pr.AgentID, UserID: pr.UserID, WalletID: "wal_fake", TokenID: r.TokenID,
		ConditionID: cond, MarketQuestion: question, Outcome: outcome, Side: r.Side, Type: "GTC", RequestType: r.Type,
		PriceMicro: micro.Nearest(r.Price), SizeMicro: micro.Nearest(r.Size), Status: models.OrderOpen,
	}
	if r.IdempotencyKey != "" {
		o.IdempotencyKey = &r.IdempotencyKey
	}
	p.mu.Lock()
	pending := p.Pending
	p.mu.Unlock()
	if pending {
		o.Status = models.OrderPending
	}
	if err := p.Store.CreateOrder(ctx, o); err != nil {
		return orders.PlaceResult{}, err
	}
	if pending {
		return orders.PlaceResult{Order: view(o), Pending: true}, nil
	}
	var fills []clob.PriceLevel
	if r.Side == orders.SideBuy {
		fills = []clob.PriceLevel{{Price: r.Price, Size: r.Size}}
	} else {
		fills = p.Venue.take(r.TokenID, r.Price, r.Size, r.Type == orders.TypeFOK)
	}
	filled, notional := decimal.Zero, decimal.Zero
	for _, f := range fills {
		p.mu.Lock()
		p.trade++
		id := fmt.Sprintf("trade-%d", p.trade)
		p.mu.Unlock()
		if _, err := p.Store.AddFill(ctx, &models.Fill{OrderID: o.ID, VenueTradeID: id,
			PriceMicro: micro.Nearest(f.Price), SizeMicro: micro.Nearest(f.Size)}); err != nil {
			return orders.PlaceResult{}, err
		}
		filled, notional = filled.Add(f.Size), notional.Add(f.Size.Mul(f.Price))
	}
	status := models.OrderOpen
	switch {
	case filled.Equal(r.Size):
		status = models.OrderFilled
	case r.Type != orders.TypeLimit:
		status = models.OrderCancelled // the unfilled rest is killed
	case filled.IsPositive():
		status = models.OrderPartiallyFilled
	}
	avg := decimal.Zero
	if filled.IsPositive() {
		avg = notional.Div(filled)
	}
	fm, am := micro.Nearest(filled), micro.Nearest(avg)
	now := time.Now()
	u := store.OrderUpdate{Status: &status, FilledSizeMicro: &fm, AvgFillPriceMicro: &am}
	if status == models.OrderFilled {
		u.FilledAt = &now
	}
	if err := p.Store.UpdateOrder(ctx, o.ID, nil, u); err != nil {
		return orders.PlaceResult{}, err
	}
	if len(fills) > 0 && p.Positions != nil {
		if err := p.Positions.Recompute(ctx, pr.AgentID, pr.UserID, r.TokenID); err != nil {
			return orders.PlaceResult{}, err
		}
	}
	stored, err := p.Store.OrderByID(ctx, o.ID)
	if err != nil {
		return orders.PlaceResult{}, err
	}
	return orders.PlaceResult{Order: view(stored)}, nil
}

func view(o *models.Order) orders.Order {
	return orders.Order{
		ID: o.ID, PolyOrderID: o.VenueOrderID, Status: o.Status, Side: o.Side, Type: o.RequestType,
		TokenID: o.TokenID, ConditionID: o.ConditionID, Price: micro.Decimal(o.PriceMicro),
		Size: micro.Decimal(o.SizeMicro), FilledSize: micro.Decimal(o.FilledSizeMicro),
		AvgFillPrice: micro.Decimal(o.AvgFillPriceMicro), MarketQuestion: o.MarketQuestion, Outcome: o.Outcome,
		CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt, FilledAt: o.FilledAt,
	}
}

// ConditionID returns a valid (0x + 64 hex) condition id derived from a
// short label, for readable tests.
func ConditionID(label string) string {
	return common.BytesToHash([]byte(strings.ToLower(label))).Hex()
}

// Close is workflows.PositionDesk.Close for the tests of models/positions,
// which cannot import workflows: the service plans the close, placer
// places its order, the service answers.
func Close(ctx context.Context, svc *positions.Service, placer orders.Placer, p orders.Principal, positionID string, r positions.CloseRequest) (positions.CloseResult, error) {
	plan, err := svc.PlanClose(ctx, p, positionID, r)
	if err != nil || plan.Done != nil {
		if plan.Done != nil {
			return *plan.Done, err
		}
		return positions.CloseResult{}, err
	}
	res, err := placer.Place(ctx, p, *plan.Order)
	if err != nil {
		return positions.CloseResult{}, err
	}
	return svc.Closed(ctx, p, plan, res)
}
