package orders_test

import (
	"context"
	"math/big"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/budget"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/positions"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/wallets"
	"github.com/agent-trading/ats/sandbox/exchange"
	"github.com/agent-trading/ats/sandbox/markets"
	sbserver "github.com/agent-trading/ats/sandbox/server"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/micro"
	"github.com/agent-trading/ats/venue/network"
)

// noWallets is a user without a trading wallet: a paper agent needs none,
// and nothing here can sign or reach the venue's order endpoints.
type noWallets struct{}

func (noWallets) Get(context.Context, string) (wallets.Wallet, error) {
	return wallets.Wallet{}, errs.E(errs.NotFound, "wallet not found")
}
func (noWallets) Signer(context.Context, string) (*wallets.Signer, error) {
	return nil, errs.E(errs.Internal, "paper orders are never signed")
}
func (noWallets) Creds(context.Context, string) (clob.Creds, error) {
	return clob.Creds{}, errs.E(errs.Internal, "paper orders never use venue credentials")
}
func (noWallets) InvalidateCreds(context.Context, string) error { return nil }

// noChain fails every chain read: a paper order reads nothing of the chain.
type noChain struct{ t *testing.T }

func (c noChain) fail() error {
	c.t.Error("a paper order read the chain")
	return errs.E(errs.Internal, "no chain")
}
func (c noChain) CollateralBalance(context.Context, common.Address) (*big.Int, error) {
	return nil, c.fail()
}
func (c noChain) CollateralAllowance(context.Context, common.Address, common.Address) (*big.Int, error) {
	return nil, c.fail()
}
func (c noChain) OutcomeBalance(context.Context, common.Address, *big.Int) (*big.Int, error) {
	return nil, c.fail()
}
func (c noChain) IsApprovedForAll(context.Context, common.Address, common.Address) (bool, error) {
	return false, c.fail()
}
func (c noChain) WalletBalance(context.Context, string) (int64, error) { return 0, c.fail() }

type paperEnv struct {
	st     *store.Store
	svc    *orders.Service
	venue  *markets.Venue
	token  string
	client *clob.Client
}

func newPaperEnv(t *testing.T, st *store.Store) *paperEnv {
	t.Helper()
	ctx := context.Background()
	n := network.Sandbox("http://sandbox.test")
	v, err := markets.New(markets.Config{Chain: markets.NewMemChain(1), Network: n, Seed: 1, Ordinary: 1, DisableUpDown: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Start(ctx); err != nil {
		t.Fatal(err)
	}
	m, err := v.Create(ctx, markets.Seed{Question: "Will paper fill against the real book", End: time.Now().Add(48 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sbserver.New(sbserver.Config{Venue: v, Network: n}).Handler())
	t.Cleanup(srv.Close)
	cl := clob.NewClient(clob.Config{BaseURL: srv.URL + "/clob", ChainID: n.ChainID, Retries: 1})
	svc := &orders.Service{
		Store: st, Budget: budget.New(st, noChain{t}, nil), Wallets: noWallets{}, Chain: noChain{t}, Network: n,
		CLOB: cl, Positions: &positions.Service{Store: st},
	}
	return &paperEnv{st: st, svc: svc, venue: v, token: m.TokenIDs[0], client: cl}
}

func (e *paperEnv) agent(t *testing.T, userID, mode string) orders.Principal {
	t.Helper()
	ctx := context.Background()
	if userID == "" {
		u := &models.User{Email: models.NewID("u") + "@example.com", PasswordHash: "x"}
		if err := e.st.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		userID = u.ID
	}
	a := &models.Agent{UserID: userID, Name: "paper test " + mode, Scopes: "read trade cancel", Mode: mode}
	if err := e.st.CreateAgent(ctx, a); err != nil {
		t.Fatal(err)
	}
	return orders.Principal{AgentID: a.ID, UserID: userID}
}

// place accepts and submits an order as the order workflow would.
func (e *paperEnv) place(t *testing.T, p orders.Principal, r orders.PlaceRequest) orders.Order {
	t.Helper()
	ctx := context.Background()
	acc, err := e.svc.Accept(ctx, p, r)
	if err != nil {
		t.Fatalf("accept %+v: %v", r, err)
	}
	o, err := e.svc.Submit(ctx, acc.Await.ID)
	if err != nil {
		t.Fatalf("submit: %v", err)
	}
	return o
}

func (e *paperEnv) balance(t *testing.T, userID string) int64 {
	t.Helper()
	b, err := e.st.PaperBalance(context.Background(), userID)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// walk is what a marketable BUY of size shares up to limit takes from the
// book as read now: its cost in micro-USDC and shares.
func walk(b *clob.OrderBook, limit, size decimal.Decimal) (costMu, sharesMu int64) {
	asks := append([]clob.PriceLevel(nil), b.Asks...)
	for i := 1; i < len(asks); i++ {
		for j := i; j > 0 && asks[j].Price.LessThan(asks[j-1].Price); j-- {
			asks[j], asks[j-1] = asks[j-1], asks[j]
		}
	}
	left := micro.Truncate(size)
	for _, l := range asks {
		if l.Price.GreaterThan(limit) || left == 0 {
			break
		}
		take := min(left, micro.Truncate(l.Size))
		costMu += micro.Mul(micro.Truncate(l.Price), take)
		sharesMu += take
		left -= take
	}
	return costMu, sharesMu
}

// TestPaperOrders places a paper agent's orders of every type against the
// sandbox's book: a marketable BUY fills at the levels the book held when
// it was read, costing the paper balance exactly that; the venue's book
// and order list are unchanged (the paper agent has no wallet to sign
// with and the chain is never read); a FOK that the book cannot fill
// fails with no_match and holds nothing; a resting LIMIT waits behind the
// queue at its price and fills from trades only once the queue ahead is
// gone; a SELL of the paper position credits the balance; a cancel takes
// what is left off the paper book. A live agent of the same user keeps
// its budget whole: paper orders hold paper money.
func TestPaperOrders(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		e := newPaperEnv(t, st)
		p := e.agent(t, "", models.ModePaper)
		before, err := e.client.OrderBook(ctx, e.token)
		if err != nil {
			t.Fatal(err)
		}
		if len(before.Asks) == 0 || len(before.Bids) == 0 {
			t.Fatalf("the sandbox market has no quotes: %+v", before)
		}
		venueOrders := len(e.venue.Engine().Orders(exchange.OrderFilter{TokenID: e.token}))

		// A marketable BUY, through the first level.
		best := before.Asks[0].Price
		for _, a := range before.Asks {
			best = decimal.Min(best, a.Price)
		}
		limit := best.Add(decimal.RequireFromString("0.02"))
		size := decimal.RequireFromString("20")
		wantCost, wantShares := walk(before, limit, size)
		o := e.place(t, p, orders.PlaceRequest{TokenID: e.token, Side: orders.SideBuy, Type: orders.TypeFAK, Price: limit, Size: size})
		if o.Status != models.OrderFilled || o.Mode != models.ModePaper || o.PolyOrderID != "" {
			t.Fatalf("marketable paper buy: %+v", o)
		}
		if got := micro.Truncate(o.FilledSize); got != wantShares {
			t.Fatalf("filled %d micro-shares, the book held %d up to %s", got, wantShares, limit)
		}
		if got := e.balance(t, p.UserID); got != models.DefaultPaperBalanceMicro-wantCost {
			t.Fatalf("paper balance %d, want %d - %d", got, models.DefaultPaperBalanceMicro, wantCost)
		}
		pos, err := st.ListPositions(ctx, p.AgentID, models.PositionOpen)
		if err != nil || len(pos) != 1 || pos[0].SizeMicro != wantShares {
			t.Fatalf("paper position %+v (%v), want %d shares", pos, err, wantShares)
		}
		after, err := e.client.OrderBook(ctx, e.token)
		if err != nil {
			t.Fatal(err)
		}
		if !sameLevels(after.Asks, before.Asks) || !sameLevels(after.Bids, before.Bids) || len(e.venue.Engine().Orders(exchange.OrderFilter{TokenID: e.token})) != venueOrders {
			t.Fatal("a paper order changed the venue's book or orders")
		}

		// A FOK priced under the best ask fails and holds nothing.
		o = e.place(t, p, orders.PlaceRequest{TokenID: e.token, Side: orders.SideBuy, Type: orders.TypeFOK, Price: best.Sub(d("0.01")),
			Size: d("10")})
		if o.Status != models.OrderFailed {
			t.Fatalf("unfillable FOK: %+v", o)
		}
		tot, err := st.BudgetTotals(ctx, p.UserID, p.AgentID)
		if err != nil || tot.AgentHeldMicro != 0 {
			t.Fatalf("budget after a failed FOK: %+v %v", tot, err)
		}

		// A resting LIMIT BUY at the best bid joins the queue behind it.
		bestBid := before.Bids[0]
		for _, b := range before.Bids {
			if b.Price.GreaterThan(bestBid.Price) {
				bestBid = b
			}
		}
		rest := e.place(t, p, orders.PlaceRequest{TokenID: e.token, Side: orders.SideBuy, Price: bestBid.Price, Size: decimal.RequireFromString("10")})
		if rest.Status != models.OrderOpen {
			t.Fatalf("resting paper limit: %+v", rest)
		}
		row, err := st.OrderByID(ctx, rest.ID)
		if err != nil || row.PaperQueueMicro != micro.Truncate(bestBid.Size) {
			t.Fatalf("queue ahead %d (%v), want the bid's %s", row.PaperQueueMicro, err, bestBid.Size)
		}
		// The live agent of the same user: paper holds no wallet money.
		live := e.agent(t, p.UserID, models.ModeLive)
		lt, err := st.BudgetTotals(ctx, live.UserID, live.AgentID)
		if err != nil || lt.UserHeldMicro != 0 {
			t.Fatalf("the live agent's budget counts paper orders: %+v %v", lt, err)
		}
		pt, err := st.BudgetTotals(ctx, p.UserID, p.AgentID)
		if err != nil || pt.UserHeldMicro != micro.Truncate(bestBid.Price)*10 {
			t.Fatalf("the paper agent's held %+v %v", pt, err)
		}

		queue := row.PaperQueueMicro
		price := micro.Truncate(bestBid.Price)
		trade := func(id string, priceMu, sizeMu int64) []orders.PaperFilled {
			t.Helper()
			f, err := e.svc.ApplyPaperTrade(ctx, orders.PaperTrade{TokenID: e.token, PriceMicro: priceMu, SizeMicro: sizeMu, ID: id, Time: time.Now()})
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
		// A trade above its price does not reach it; one at its price
		// draws the queue down first.
		if f := trade("above", price+10_000, 1_000*models.MicroPerUnit); len(f) != 0 {
			t.Fatalf("a trade above a paper bid filled it: %+v", f)
		}
		if f := trade("q1", price, queue); len(f) != 0 {
			t.Fatalf("a trade the size of the queue ahead filled the order: %+v", f)
		}
		if f := trade("q2", price, 4*models.MicroPerUnit); len(f) != 1 || f[0].FilledMicro != 4*models.MicroPerUnit {
			t.Fatalf("the first trade past the queue: %+v", f)
		}
		trade("q2", price, 4*models.MicroPerUnit) // the same trade again fills nothing more
		got, err := e.svc.Sync(ctx, rest.ID)
		if err != nil || got.Status != models.OrderPartiallyFilled || micro.Truncate(got.FilledSize) != 4*models.MicroPerUnit {
			t.Fatalf("after 4 of 10: %+v %v", got, err)
		}

		// Cancel the rest: 4 shares bought, the remainder released.
		prev, c, err := e.svc.CancelAtVenue(ctx, rest.ID)
		if err != nil || prev != models.OrderPartiallyFilled || c.Status != models.OrderCancelled {
			t.Fatalf("cancel: %s %+v %v", prev, c, err)
		}
		if f := trade("late", price-10_000, 100*models.MicroPerUnit); len(f) != 0 {
			t.Fatalf("a cancelled paper order filled: %+v", f)
		}
		pt, _ = st.BudgetTotals(ctx, p.UserID, p.AgentID)
		if pt.AgentHeldMicro != 0 {
			t.Fatalf("held after the cancel: %+v", pt)
		}

		// SELL the whole paper position into the bids: proceeds credit the
		// balance.
		bal := e.balance(t, p.UserID)
		pos, _ = st.ListPositions(ctx, p.AgentID, models.PositionOpen)
		held := micro.Decimal(pos[0].SizeMicro)
		s := e.place(t, p, orders.PlaceRequest{TokenID: e.token, Side: orders.SideSell, Type: orders.TypeFAK, Price: decimal.RequireFromString("0.01"), Size: held})
		if s.Status != models.OrderFilled {
			t.Fatalf("paper sell: %+v", s)
		}
		proceeds := micro.Mul(micro.Truncate(s.AvgFillPrice), micro.Truncate(s.FilledSize))
		if got := e.balance(t, p.UserID); got < bal+proceeds-100 || got > bal+proceeds+100 {
			t.Fatalf("paper balance %d after selling for %d from %d", got, proceeds, bal)
		}
		// Selling more than the paper position holds is refused.
		_, err = e.svc.Accept(ctx, p, orders.PlaceRequest{TokenID: e.token, Side: orders.SideSell, Price: d("0.5"), Size: d("1000")})
		if errs.CodeOf(err) != errs.CodeInsufficientPosition {
			t.Fatalf("oversell: %v", err)
		}
	})
}

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func sameLevels(a, b []clob.PriceLevel) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Price.Equal(b[i].Price) || !a[i].Size.Equal(b[i].Size) {
			return false
		}
	}
	return true
}

// TestSetPaperBalance sets and resets a user's paper balance: the default
// until set, bounded, and what the paper agent's budget spends from.
func TestSetPaperBalance(t *testing.T) {
	st := storetest.NewSQLite(t)
	ctx := context.Background()
	e := newPaperEnv(t, st)
	p := e.agent(t, "", models.ModePaper)
	if got := e.balance(t, p.UserID); got != models.DefaultPaperBalanceMicro {
		t.Fatalf("default paper balance %d", got)
	}
	if err := e.svc.SetPaperBalance(ctx, p.UserID, 50*models.MicroPerUnit, "test"); err != nil {
		t.Fatal(err)
	}
	b, err := e.svc.Budget.Snapshot(ctx, p.AgentID)
	if err != nil || b.AvailableMicro != 50*models.MicroPerUnit {
		t.Fatalf("the paper agent's budget after setting 50: %+v %v", b, err)
	}
	for _, bad := range []int64{-1, orders.MaxPaperBalanceMicro + 1} {
		if err := e.svc.SetPaperBalance(ctx, p.UserID, bad, "test"); errs.KindOf(err) != errs.Invalid {
			t.Fatalf("paper balance %d: %v", bad, err)
		}
	}
	if got := e.balance(t, p.UserID); got != 50*models.MicroPerUnit {
		t.Fatalf("a refused change moved the balance to %d", got)
	}
}
