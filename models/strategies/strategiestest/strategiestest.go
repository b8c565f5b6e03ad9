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
	// Calls counts Place calls; Placed the orders created.
	Calls, Placed int
	Requests      []orders.PlaceRequest
}

// Place implements orders.Placer.
func (p *Placer) Place(ctx context.Context, pr orders.Principal, r orders.PlaceRequest) (orders.PlaceResult, error) {
	p.mu.Lock()
	p.Calls++
	fail, status, code, block := p.Fail, p.Status, p.FailureCode, p.Block
	p.mu.Unlock()
	if block != nil {
		<-block
	}
	if fail != nil {
		return orders.PlaceResult{}, fail
	}
	if prev, err := p.Store.OrderByIdempotencyKey(ctx, pr.AgentID, r.IdempotencyKey); err == nil {
		return orders.PlaceResult{Order: orders.Order{ID: prev.ID, Status: prev.Status}}, nil
	}
	// The order service's check of the agent's status (orders.Accept).
	if a, err := p.Store.AgentByID(ctx, pr.AgentID); err != nil {
		return orders.PlaceResult{}, err
	} else if a.Status != models.AgentActive && !pr.ByUser {
		return orders.PlaceResult{}, errs.Ef(errs.Conflict, "the agent is %s", a.Status).WithCode(errs.CodeAgentInactive)
	}
	if status == "" {
		status = models.OrderFilled
	}
	key := r.IdempotencyKey
	sid := r.StrategyID
	o := &models.Order{AgentID: pr.AgentID, UserID: pr.UserID, WalletID: "wal_1", TokenID: r.TokenID, Side: r.Side, Type: "FAK",
		RequestType: r.Type, PriceMicro: micro.Truncate(r.Price), SizeMicro: micro.Truncate(r.Size), Status: status,
		IdempotencyKey: &key, StrategyID: &sid}
	if status == models.OrderFilled {
		o.FilledSizeMicro, o.AvgFillPriceMicro = o.SizeMicro, o.PriceMicro
	}
	if status == models.OrderFailed {
		o.FailureReason, o.FailureCode = "the venue refused the order", code
	}
	if err := p.Store.CreateOrder(ctx, o); err != nil {
		return orders.PlaceResult{}, err
	}
	p.mu.Lock()
	p.Placed++
	p.Requests = append(p.Requests, r)
	p.mu.Unlock()
	return orders.PlaceResult{Order: orders.Order{ID: o.ID, Status: o.Status}}, nil
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

// Book is a settable top of book per token.
type Book struct {
	mu  sync.Mutex
	top map[string][2]decimal.Decimal
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

// Resolver resolves every query to Token (or to Tokens[query]).
type Resolver struct{ Tokens map[string]string }

// Resolve implements strategies.Resolver.
func (r Resolver) Resolve(_ context.Context, query, _ string) (string, error) {
	if t, ok := r.Tokens[query]; ok {
		return t, nil
	}
	return Token, nil
}

// Env is a store with one user and agent, the fakes and an engine and
// service over them.
type Env struct {
	Store   *store.Store
	Placer  *Placer
	Book    *Book
	Engine  *strategies.Engine
	UserID  string
	AgentID string
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
	e := &Env{Store: s, Placer: &Placer{Store: s}, Book: &Book{}, UserID: u.ID, AgentID: a.ID}
	e.Book.Set(Token, "0.40", "0.42")
	e.Engine = &strategies.Engine{Store: s, Orders: e.Placer, Quotes: e.Book, Resolver: Resolver{}, Now: now}
	return e
}

// Actor is the env's agent.
func (e *Env) Actor() strategies.Actor {
	return strategies.Actor{By: strategies.ByAgent, AgentID: e.AgentID, UserID: e.UserID}
}

// Direct runs strategies without Temporal: Change applies a change with
// the engine in the caller's request, as the strategy's workflow would
// (the workflow itself is tested in workflows/); Start starts nothing.
type Direct struct{ Engine *strategies.Engine }

// Start implements strategies.Runner.
func (Direct) Start(context.Context, strategies.State) error { return nil }

// Change implements strategies.Runner.
func (d Direct) Change(ctx context.Context, ch strategies.Change) (strategies.State, error) {
	return d.Engine.Apply(ctx, ch)
}
