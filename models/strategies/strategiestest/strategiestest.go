// Package strategiestest holds real fakes for the strategy engine's
// venue-facing dependencies: an order placer that stores orders as the
// order service does (idempotent by key) and fills them at will, and a
// settable top of book. The store under them is real.
package strategiestest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/markets"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/micro"
)

// Token is the token the fakes trade.
const Token = "1001"

// Placer places orders into the store: FILLED in full at the request's
// price by default; Fail makes the next placements fail with an error.
type Placer struct {
	Store *store.Store
	mu    sync.Mutex
	// Fail, when set, is returned by Place (and counts in Calls).
	Fail error
	// Status, when set, is the status placed orders end in (FAILED,
	// OPEN...); FILLED otherwise. FailureCode is a FAILED order's code.
	Status      string
	FailureCode string
	// Block, when set, holds every placement until it is closed.
	Block chan struct{}
	// Fill, when set, says what a FILLED order filled: its size and
	// average price (a size below the request's is a partial fill of a
	// fill-and-kill order). Unset: all of it, a marketable order at the
	// top of Book when that is within its price (as the venue matches),
	// else at the request's price.
	Fill func(r orders.PlaceRequest) (size, price decimal.Decimal)
	// Book, when set, is the book marketable orders fill against.
	Book *Book
	// Calls counts Place calls; Placed the orders created.
	Calls, Placed int
	Requests      []orders.PlaceRequest
}

// Place implements orders.Placer: Accept, then Settle (the order's
// workflow placing it on the venue).
func (p *Placer) Place(ctx context.Context, pr orders.Principal, r orders.PlaceRequest) (orders.PlaceResult, error) {
	acc, err := p.Accept(ctx, pr, r)
	if err != nil || acc.Await == nil {
		return acc.Result, err
	}
	o, err := p.Settle(ctx, acc.Await.ID)
	if err != nil {
		return orders.PlaceResult{}, err
	}
	return orders.PlaceResult{Order: orders.Order{ID: o.ID, Status: o.Status}}, nil
}

// Accept implements strategies.Acceptor as the order service does: an
// order placed under the key is answered (to be awaited while PENDING),
// an inactive agent is refused, else the order is stored PENDING.
func (p *Placer) Accept(ctx context.Context, pr orders.Principal, r orders.PlaceRequest) (orders.Accepted, error) {
	p.mu.Lock()
	p.Calls++
	fail, block := p.Fail, p.Block
	p.mu.Unlock()
	if block != nil {
		<-block
	}
	if fail != nil {
		return orders.Accepted{}, fail
	}
	if prev, err := p.Store.OrderByIdempotencyKey(ctx, pr.AgentID, r.IdempotencyKey); err == nil {
		acc := orders.Accepted{Result: orders.PlaceResult{Order: orders.Order{ID: prev.ID, Status: prev.Status}}}
		if prev.Status == models.OrderPending {
			acc.Await = &orders.Ref{ID: prev.ID, UserID: prev.UserID, AgentID: prev.AgentID, TokenID: prev.TokenID}
		}
		return acc, nil
	}
	// The order service's check of the agent's status (orders.Accept).
	if a, err := p.Store.AgentByID(ctx, pr.AgentID); err != nil {
		return orders.Accepted{}, err
	} else if a.Status != models.AgentActive && !pr.ByUser {
		return orders.Accepted{}, errs.Ef(errs.Conflict, "the agent is %s", a.Status).WithCode(errs.CodeAgentInactive)
	}
	key := r.IdempotencyKey
	sid := r.StrategyID
	o := &models.Order{AgentID: pr.AgentID, UserID: pr.UserID, WalletID: "wal_1", TokenID: r.TokenID, Side: r.Side, Type: "FAK",
		RequestType: r.Type, PriceMicro: micro.Truncate(r.Price), SizeMicro: micro.Truncate(r.Size), Status: models.OrderPending,
		IdempotencyKey: &key, StrategyID: &sid}
	if err := p.Store.CreateOrder(ctx, o); err != nil {
		return orders.Accepted{}, err
	}
	p.mu.Lock()
	p.Placed++
	p.Requests = append(p.Requests, r)
	p.mu.Unlock()
	return orders.Accepted{Result: orders.PlaceResult{Order: orders.Order{ID: o.ID, Status: o.Status}},
		Await: &orders.Ref{ID: o.ID, UserID: o.UserID, AgentID: o.AgentID, TokenID: o.TokenID}}, nil
}

// Settle places a PENDING order as the venue would: FILLED in full at the
// request's price by default, or as Status, FailureCode and Fill say. An
// order past PENDING is returned as it stands.
func (p *Placer) Settle(ctx context.Context, orderID string) (*models.Order, error) {
	p.mu.Lock()
	status, code, fill, book := p.Status, p.FailureCode, p.Fill, p.Book
	p.mu.Unlock()
	o, err := p.Store.OrderByID(ctx, orderID)
	if err != nil || o.Status != models.OrderPending {
		return o, err
	}
	if status == "" {
		status = models.OrderFilled
	}
	r := orders.PlaceRequest{TokenID: o.TokenID, Side: o.Side, Type: o.RequestType, Price: micro.Decimal(o.PriceMicro), Size: micro.Decimal(o.SizeMicro)}
	o.Status = status
	if status == models.OrderFilled {
		o.FilledSizeMicro, o.AvgFillPriceMicro = o.SizeMicro, o.PriceMicro
		switch {
		case fill != nil:
			size, price := fill(r)
			o.FilledSizeMicro, o.AvgFillPriceMicro = micro.Truncate(size), micro.Truncate(price)
		case book != nil && r.Type != orders.TypeLimit:
			if top, ok := book.top1(r.TokenID); ok {
				if r.Side == "BUY" && top[1].Sign() > 0 && top[1].LessThanOrEqual(r.Price) {
					o.AvgFillPriceMicro = micro.Truncate(top[1])
				}
				if r.Side == "SELL" && top[0].GreaterThanOrEqual(r.Price) {
					o.AvgFillPriceMicro = micro.Truncate(top[0])
				}
			}
		}
	}
	if status == models.OrderFailed {
		o.FailureReason, o.FailureCode = "the venue refused the order", code
	}
	u := store.OrderUpdate{Status: &o.Status, FilledSizeMicro: &o.FilledSizeMicro, AvgFillPriceMicro: &o.AvgFillPriceMicro}
	if status == models.OrderFailed {
		u.FailureReason, u.FailureCode = &o.FailureReason, &o.FailureCode
	}
	if err := p.Store.UpdateOrder(ctx, o.ID, []string{models.OrderPending}, u); err != nil {
		return nil, err
	}
	return p.Store.OrderByID(ctx, o.ID)
}

// Set changes the placer's behaviour under its lock.
func (p *Placer) Set(fn func(p *Placer)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fn(p)
}

// Counts returns Calls and Placed.
func (p *Placer) Counts() (calls, placed int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.Calls, p.Placed
}

// Book is a settable top of book per token, with the depth behind it:
// by default each side is one level of DefaultDepth shares at the top;
// SetAsks gives a token's asks level by level.
type Book struct {
	mu   sync.Mutex
	top  map[string][2]decimal.Decimal
	asks map[string][]clob.PriceLevel
}

// top1 is token's best bid and ask.
func (b *Book) top1(token string) ([2]decimal.Decimal, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.top[token]
	return t, ok
}

// DefaultDepth is the size of the one level behind a top set with Set.
var DefaultDepth = decimal.NewFromInt(100_000)

// SetAsks sets token's asks, best first ("price", "size" pairs); the best
// ask becomes the first price.
func (b *Book) SetAsks(token string, levels ...string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.asks == nil {
		b.asks = map[string][]clob.PriceLevel{}
	}
	var ls []clob.PriceLevel
	for i := 0; i+1 < len(levels); i += 2 {
		ls = append(ls, clob.PriceLevel{Price: decimal.RequireFromString(levels[i]), Size: decimal.RequireFromString(levels[i+1])})
	}
	b.asks[token] = ls
	t := b.top[token]
	if len(ls) > 0 {
		t[1] = ls[0].Price
	}
	if b.top == nil {
		b.top = map[string][2]decimal.Decimal{}
	}
	b.top[token] = t
}

// Book implements strategies.Quoter: the asks set with SetAsks, else one
// level of DefaultDepth at each side's top.
func (b *Book) Book(_ context.Context, token string) (*clob.OrderBook, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.top[token]
	if !ok {
		return nil, errs.Ef(errs.NotFound, "no order book for token %s", token).WithCode(errs.CodeTokenNotFound)
	}
	out := &clob.OrderBook{AssetID: token, TickSize: "0.01"}
	if t[0].Sign() > 0 {
		out.Bids = []clob.PriceLevel{{Price: t[0], Size: DefaultDepth}}
	}
	if ls, ok := b.asks[token]; ok {
		out.Asks = append(out.Asks, ls...)
	} else if t[1].Sign() > 0 {
		out.Asks = []clob.PriceLevel{{Price: t[1], Size: DefaultDepth}}
	}
	return out, nil
}

// Set sets a token's best bid and ask ("" for an empty side).
func (b *Book) Set(token, bid, ask string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.top == nil {
		b.top = map[string][2]decimal.Decimal{}
	}
	var t [2]decimal.Decimal
	if bid != "" {
		t[0] = decimal.RequireFromString(bid)
	}
	if ask != "" {
		t[1] = decimal.RequireFromString(ask)
	}
	b.top[token] = t
	delete(b.asks, token)
}

// Markets is a settable venue of markets (strategies.MarketReader): a
// token not set is a market that trades, named after the token.
type Markets struct {
	mu sync.Mutex
	m  map[string]markets.TokenMarket
}

// Set sets the market of m.TokenID.
func (ms *Markets) Set(m markets.TokenMarket) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if ms.m == nil {
		ms.m = map[string]markets.TokenMarket{}
	}
	ms.m[m.TokenID] = m
}

// Close makes token's market closed (resolved): it takes no orders.
func (ms *Markets) Close(token string) {
	m, _ := ms.TokenMarket(context.Background(), token)
	m.Closed, m.AcceptingOrders = true, false
	ms.Set(*m)
}

// TokenMarket implements strategies.MarketReader.
func (ms *Markets) TokenMarket(_ context.Context, token string) (*markets.TokenMarket, error) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if m, ok := ms.m[token]; ok {
		return &m, nil
	}
	return &markets.TokenMarket{TokenID: token, ConditionID: "0xc" + token, Question: "Will market " + token + " resolve Yes?", Outcome: "Yes",
		Slug: "market-" + token, AcceptingOrders: true, TickSize: decimal.RequireFromString("0.01"), MinOrderSize: decimal.NewFromInt(5)}, nil
}

// Quotes implements strategies.Quoter.
func (b *Book) Quotes(_ context.Context, tokens []string) ([]markets.Quote, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]markets.Quote, len(tokens))
	for i, tok := range tokens {
		t, ok := b.top[tok]
		if !ok {
			return nil, errs.Ef(errs.NotFound, "no order book for token %s", tok).WithCode(errs.CodeTokenNotFound)
		}
		out[i] = markets.Quote{TokenID: tok, TickSize: "0.01"}
		if t[0].Sign() > 0 {
			out[i].BestBid = decimal.NullDecimal{Decimal: t[0], Valid: true}
		}
		if t[1].Sign() > 0 {
			out[i].BestAsk = decimal.NullDecimal{Decimal: t[1], Valid: true}
		}
	}
	return out, nil
}

// Resolver resolves every query to Token (or to Tokens[query]; Set
// changes it while strategies run).
type Resolver struct {
	Tokens map[string]string
	live   *liveTokens
}

type liveTokens struct {
	mu sync.Mutex
	m  map[string]string
}

// Set makes query resolve to token from now on (Live resolvers only).
func (r Resolver) Set(query, token string) {
	r.live.mu.Lock()
	defer r.live.mu.Unlock()
	r.live.m[query] = token
}

// Live returns a resolver whose answers Set changes.
func Live() Resolver { return Resolver{live: &liveTokens{m: map[string]string{}}} }

// Resolve implements strategies.Resolver.
func (r Resolver) Resolve(_ context.Context, query, _ string) (string, error) {
	if r.live != nil {
		r.live.mu.Lock()
		t, ok := r.live.m[query]
		r.live.mu.Unlock()
		if ok {
			return t, nil
		}
	}
	if t, ok := r.Tokens[query]; ok {
		return t, nil
	}
	return Token, nil
}

// Env is a store with one user and agent, the fakes and an engine and
// service over them.
type Env struct {
	Store    *store.Store
	Placer   *Placer
	Book     *Book
	Markets  *Markets
	Resolver Resolver
	Engine   *strategies.Engine
	UserID   string
	AgentID  string
}

// New builds an Env over s (a migrated store). now, when set, is the
// engine's clock (a test environment's).
func New(t testing.TB, s *store.Store, now func() time.Time) *Env {
	t.Helper()
	u := &models.User{ID: models.NewID("usr"), Email: models.NewID("u") + "@example.com", PasswordHash: "x"}
	if err := s.CreateUser(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	a := &models.Agent{UserID: u.ID, Name: "strategist", Scopes: "read trade cancel redeem"}
	if err := s.CreateAgent(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	e := &Env{Store: s, Placer: &Placer{Store: s}, Book: &Book{}, Markets: &Markets{}, Resolver: Live(), UserID: u.ID, AgentID: a.ID}
	e.Book.Set(Token, "0.40", "0.42")
	e.Placer.Book = e.Book
	e.Engine = &strategies.Engine{Store: s, Orders: e.Placer, Desk: e.Placer, Quotes: e.Book, Resolver: e.Resolver, Markets: e.Markets, Now: now}
	return e
}

// Service is a strategy service over the env's store, resolver and
// markets.
func (e *Env) Service(now func() time.Time) *strategies.Service {
	return &strategies.Service{Store: e.Store, Resolver: e.Resolver, Markets: e.Markets, Now: now}
}

// Actor is the env's agent.
func (e *Env) Actor() strategies.Actor {
	return strategies.Actor{By: strategies.ByAgent, AgentID: e.AgentID, UserID: e.UserID}
}

// Runs starts strategies' workflows and sends them changes, as
// workflows.StrategyDeskRuns does (the same methods): Direct, or a test's
// own stand-in.
type Runs interface {
	Start(ctx context.Context, st strategies.State) error
	Change(ctx context.Context, ch strategies.Change) (strategies.State, error)
}

// Direct runs strategies without Temporal: Change applies a change with
// the engine in the caller's request, as the strategy's workflow would
// (the workflow itself is tested in workflows/); Start starts nothing.
type Direct struct{ Engine *strategies.Engine }

// Start implements Runs.
func (Direct) Start(context.Context, strategies.State) error { return nil }

// Change implements Runs.
func (d Direct) Change(ctx context.Context, ch strategies.Change) (strategies.State, error) {
	return d.Engine.Apply(ctx, ch)
}

// Desk is the walk of workflows.StrategyDesk for the tests of
// models/strategies, which cannot import workflows: the service checks
// and stores, then Runs starts or changes (one attempt; the desk's retry
// of a change that raced an execution is tested in workflows/). Reads go
// to the embedded service.
type Desk struct {
	*strategies.Service
	Runs Runs
}

// Create stores the strategy and starts it with Runs.
func (d *Desk) Create(ctx context.Context, a strategies.Actor, r strategies.CreateRequest) (strategies.Strategy, error) {
	st, err := d.Accept(ctx, a, r)
	if err != nil {
		return strategies.Strategy{}, err
	}
	if err := d.Runs.Start(ctx, st); err != nil {
		if werr := d.Withdraw(ctx, st.ID); werr != nil {
			return strategies.Strategy{}, werr
		}
		return strategies.Strategy{}, err
	}
	return d.Created(ctx, a, st.ID)
}

// Pause pauses the strategy.
func (d *Desk) Pause(ctx context.Context, a strategies.Actor, id string) (strategies.Strategy, error) {
	return d.change(ctx, a, id, strategies.Change{Action: strategies.ActionPause})
}

// Resume resumes the strategy.
func (d *Desk) Resume(ctx context.Context, a strategies.Actor, id string) (strategies.Strategy, error) {
	return d.change(ctx, a, id, strategies.Change{Action: strategies.ActionResume})
}

// Cancel cancels the strategy.
func (d *Desk) Cancel(ctx context.Context, a strategies.Actor, id string) (strategies.Strategy, error) {
	return d.change(ctx, a, id, strategies.Change{Action: strategies.ActionCancel})
}

// Extend moves the strategy's expiry to until.
func (d *Desk) Extend(ctx context.Context, a strategies.Actor, id string, until time.Time) (strategies.Strategy, error) {
	ch, err := d.ExtendChange(until)
	if err != nil {
		return strategies.Strategy{}, err
	}
	return d.change(ctx, a, id, ch)
}

// Patch applies r and returns the strategy after it.
func (d *Desk) Patch(ctx context.Context, a strategies.Actor, id string, r strategies.PatchRequest) (strategies.Strategy, error) {
	chs, err := d.PatchChanges(ctx, a, id, r)
	if err != nil {
		return strategies.Strategy{}, err
	}
	for _, ch := range chs {
		if _, err := d.change(ctx, a, id, ch); err != nil {
			return strategies.Strategy{}, err
		}
	}
	return d.Get(ctx, a, id)
}

func (d *Desk) change(ctx context.Context, a strategies.Actor, id string, base strategies.Change) (strategies.Strategy, error) {
	ch, err := d.PrepareChange(ctx, a, id, base)
	if err != nil {
		return strategies.Strategy{}, err
	}
	if _, err := d.Runs.Change(ctx, ch); err != nil {
		return strategies.Strategy{}, err
	}
	return d.Changed(ctx, ch.StrategyID)
}
