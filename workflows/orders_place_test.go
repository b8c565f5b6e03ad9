package workflows_test

import (
	"context"
	"errors"
	"math/big"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/budget"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/wallets"
	"github.com/agent-trading/ats/sandbox/markets"
	sbserver "github.com/agent-trading/ats/sandbox/server"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/network"
	"github.com/agent-trading/ats/workflows"
)

// walletAddr is the trading wallet of every test user.
func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

var walletAddr = common.HexToAddress("0x00000000000000000000000000000000000a11ce")

// fakeChain is the wallet's on-chain state: collateral balance and
// allowance, outcome-token balances and operator approvals.
type fakeChain struct {
	mu        sync.Mutex
	usdc      int64
	allowance int64
	shares    map[string]int64 // token id → micro-shares
	approved  map[common.Address]bool
}

// fund resets the wallet to 1000 USDC approved to every exchange and 100
// shares of each token, with the outcome tokens approved to every
// operator.
func (c *fakeChain) fund(n network.Network, tokens ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.usdc, c.allowance, c.shares, c.approved = 1000*models.MicroPerUnit, 1<<62, map[string]int64{}, map[common.Address]bool{}
	for _, t := range tokens {
		c.shares[t] = 100 * models.MicroPerUnit
	}
	for _, a := range []common.Address{n.Exchange, n.NegRiskExchange, n.NegRiskAdapter} {
		c.approved[a] = true
	}
}

func (c *fakeChain) CollateralBalance(_ context.Context, addr common.Address) (*big.Int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if addr != walletAddr {
		return new(big.Int), nil
	}
	return big.NewInt(c.usdc), nil
}

func (c *fakeChain) CollateralAllowance(_ context.Context, owner, _ common.Address) (*big.Int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if owner != walletAddr {
		return new(big.Int), nil
	}
	return big.NewInt(c.allowance), nil
}

func (c *fakeChain) OutcomeBalance(_ context.Context, addr common.Address, tokenID *big.Int) (*big.Int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if addr != walletAddr {
		return new(big.Int), nil
	}
	return big.NewInt(c.shares[tokenID.String()]), nil
}

func (c *fakeChain) IsApprovedForAll(_ context.Context, owner, operator common.Address) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return owner == walletAddr && c.approved[operator], nil
}

// WalletBalance implements budget.WalletBalancer from the same state.
func (c *fakeChain) WalletBalance(context.Context, string) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.usdc, nil
}

// fakeWallets gives every user the same wallet, or none.
type fakeWallets struct{ none bool }

func (w *fakeWallets) Get(_ context.Context, _ string) (wallets.Wallet, error) {
	if w.none {
		return wallets.Wallet{}, errs.E(errs.NotFound, "wallet not found")
	}
	return wallets.Wallet{ID: "wal_test", Kind: "eoa", Address: walletAddr.Hex(), EOAAddress: walletAddr.Hex()}, nil
}

func (*fakeWallets) Signer(context.Context, string) (*wallets.Signer, error) {
	return nil, errs.E(errs.Internal, "the test wallets do not sign")
}

func (*fakeWallets) Creds(context.Context, string) (clob.Creds, error) {
	return clob.Creds{}, errs.E(errs.Internal, "the test wallets have no venue credentials")
}

func (*fakeWallets) InvalidateCreds(context.Context, string) error { return nil }

// fakeRunner stands in for the order workflow (workflows.OrderDeskRuns): a
// placement opens the PENDING order in the store, unless hold is set (the
// worker is away and the placement never answers); Resume fails for the
// orders in resumeErr; Cancel answers cancelErr, counting the cancels.
type fakeRunner struct {
	st         *store.Store
	mu         sync.Mutex
	hold       bool
	placements []string
	resumed    []string
	resumeErr  map[string]error
	cancelErr  error
	cancels    int
}

func (r *fakeRunner) StartAndAwaitPlacement(ctx context.Context, orderID, _, _, _, _ string) (string, error) {
	r.mu.Lock()
	r.placements = append(r.placements, orderID)
	hold := r.hold
	r.mu.Unlock()
	if hold {
		<-ctx.Done()
		return "", ctx.Err()
	}
	open := models.OrderOpen
	if err := r.st.UpdateOrder(ctx, orderID, []string{models.OrderPending}, store.OrderUpdate{Status: &open}); err != nil && !errs.Is(err, errs.Conflict) {
		return "", err
	}
	return open, nil
}

func (r *fakeRunner) Cancel(context.Context, string) (string, string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cancels++
	if r.cancelErr == nil {
		return "", "", errs.E(errs.Internal, "cancel is not part of this test")
	}
	return "", "", r.cancelErr
}

func (r *fakeRunner) Resume(_ context.Context, orderID, _, _, _, _ string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.resumeErr[orderID]; err != nil {
		return err
	}
	r.resumed = append(r.resumed, orderID)
	return nil
}

func (r *fakeRunner) setHold(hold bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hold = hold
}

func (r *fakeRunner) placed() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.placements...)
}

// placeEnv is the order service over a migrated store, the sandbox CLOB
// (in memory, served over HTTP to the real client) and the fakes above.
type placeEnv struct {
	st      *store.Store
	svc     *orders.Service
	desk    *workflows.OrderDesk
	chain   *fakeChain
	wallets *fakeWallets
	runner  *fakeRunner
	// market is a binary market (tick 0.01, minimum 5 shares); negRisk a
	// neg-risk one.
	market, negRisk markets.Info
}

func newPlaceEnv(t *testing.T, st *store.Store) *placeEnv {
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
	e := &placeEnv{st: st, wallets: &fakeWallets{}, runner: &fakeRunner{st: st}}
	if e.market, err = v.Create(ctx, markets.Seed{Question: "Will the order checks hold", End: time.Now().Add(48 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if e.negRisk, err = v.Create(ctx, markets.Seed{Question: "Will neg risk need its own approval", NegRisk: true, End: time.Now().Add(48 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sbserver.New(sbserver.Config{Venue: v, Network: n}).Handler())
	t.Cleanup(srv.Close)
	e.chain = &fakeChain{}
	e.chain.fund(n, append(e.market.TokenIDs[:], e.negRisk.TokenIDs[:]...)...)
	e.svc = &orders.Service{
		Store: st, Budget: budget.New(st, e.chain, nil), Wallets: e.wallets, Chain: e.chain, Network: n,
		CLOB: clob.NewClient(clob.Config{BaseURL: srv.URL + "/clob", ChainID: n.ChainID, Retries: 1}),
	}
	e.desk = &workflows.OrderDesk{Orders: e.svc, Runs: e.runner, PlaceTimeout: 200 * time.Millisecond}
	return e
}

// agent creates a user and an active agent of it; fixedLimit (USDC, 0 =
// none) caps its budget.
func (e *placeEnv) agent(t *testing.T, fixedLimit int64) orders.Principal {
	t.Helper()
	ctx := context.Background()
	u := &models.User{Email: models.NewID("u") + "@example.com", PasswordHash: "x"}
	if err := e.st.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	a := &models.Agent{UserID: u.ID, Name: "orders test", Scopes: "read trade cancel"}
	if fixedLimit > 0 {
		v := fixedLimit * models.MicroPerUnit
		a.BudgetLimitMicro = &v
	}
	if err := e.st.CreateAgent(ctx, a); err != nil {
		t.Fatal(err)
	}
	return orders.Principal{AgentID: a.ID, UserID: u.ID}
}

// assertNothingHeld fails unless p has no order and no budget reservation.
func (e *placeEnv) assertNothingHeld(t *testing.T, p orders.Principal) {
	t.Helper()
	ctx := context.Background()
	n, err := e.st.CountOrders(ctx, store.OrderFilter{AgentID: p.AgentID})
	if err != nil || n != 0 {
		t.Errorf("the agent has %d orders (%v), want none", n, err)
	}
	tot, err := e.st.BudgetTotals(ctx, p.UserID, p.AgentID)
	if err != nil || tot != (store.BudgetTotals{}) {
		t.Errorf("budget totals %+v (%v), want none", tot, err)
	}
}

func hintOf(err error) string {
	if e, ok := errs.As(err); ok {
		return e.Hint
	}
	return ""
}

// TestPlaceChecks runs Place against the sandbox CLOB's market data and a
// wallet whose chain state each case sets: every refused order is refused
// with its kind, code and (where the agent can act on it) hint, and leaves
// no order, no reservation and no workflow behind; a dry run that passes
// answers a preview and also leaves nothing.
func TestPlaceChecks(t *testing.T) {
	e := newPlaceEnv(t, storetest.NewSQLite(t))
	yes, nrYes := e.market.TokenIDs[0], e.negRisk.TokenIDs[0]
	buy := func(price, size string) orders.PlaceRequest {
		return orders.PlaceRequest{TokenID: yes, Side: orders.SideBuy, Price: d(price), Size: d(size)}
	}
	sell := func(token, price, size string) orders.PlaceRequest {
		return orders.PlaceRequest{TokenID: token, Side: orders.SideSell, Price: d(price), Size: d(size)}
	}
	dry := func(r orders.PlaceRequest) orders.PlaceRequest { r.DryRun = true; return r }
	typed := func(r orders.PlaceRequest, typ string) orders.PlaceRequest { r.Type = typ; return r }
	tests := []struct {
		name       string
		fixedLimit int64
		holds      int64 // the agent's own open position in yes (micro-shares)
		setup      func(c *fakeChain, w *fakeWallets)
		req        orders.PlaceRequest
		kind       errs.Kind
		code       string
		hint       string // substring of the hint ("" = not checked)
	}{
		{name: "price off the tick", req: buy("0.555", "10"), kind: errs.Invalid, code: "invalid_tick_size"},
		{name: "price below 0.01", req: buy("0.005", "10"), kind: errs.Invalid, code: "invalid_price"},
		{name: "price above 0.99", req: buy("0.995", "10"), kind: errs.Invalid, code: "invalid_price"},
		{name: "limit below the market's minimum size", req: buy("0.5", "4.99"), kind: errs.Invalid, code: "below_min_size"},
		{name: "marketable buy under $1", req: typed(buy("0.5", "1.98"), orders.TypeFAK), kind: errs.Invalid, code: "below_min_size"},
		{name: "unknown token", req: orders.PlaceRequest{TokenID: "12345", Side: orders.SideBuy, Price: d("0.5"), Size: d("10")},
			kind: errs.NotFound, code: "unknown_token", hint: "GET /markets"},
		{name: "no trading wallet", setup: func(_ *fakeChain, w *fakeWallets) { w.none = true }, req: buy("0.5", "10"),
			kind: errs.Conflict, code: "no_wallet"},
		{name: "buy without the collateral", setup: func(c *fakeChain, _ *fakeWallets) { c.usdc = 4_999_999 }, req: buy("0.5", "10"),
			kind: errs.Conflict, code: "insufficient_balance"},
		{name: "buy without the USDC allowance", setup: func(c *fakeChain, _ *fakeWallets) { c.allowance = 4_999_999 }, req: buy("0.5", "10"),
			kind: errs.Conflict, code: "allowance_error", hint: `POST /wallet/approve {"token":"USDC"}`},
		{name: "sell without enough shares", setup: func(c *fakeChain, _ *fakeWallets) { c.shares[yes] = 9_990_000 }, req: sell(yes, "0.5", "10"),
			kind: errs.Conflict, code: "insufficient_balance"},
		{name: "sell beyond the agent's own position", holds: 9_990_000, req: sell(yes, "0.5", "10"),
			kind: errs.Conflict, code: errs.CodeInsufficientPosition, hint: "GET /positions"},
		{name: "sell without the CTF approval", setup: func(c *fakeChain, _ *fakeWallets) { c.approved[network.Sandbox("").Exchange] = false },
			req: sell(yes, "0.5", "10"), kind: errs.Conflict, code: "allowance_error", hint: `POST /wallet/approve {"token":"CTF"}`},
		{name: "neg-risk sell without the adapter's approval", setup: func(c *fakeChain, _ *fakeWallets) { c.approved[network.Sandbox("").NegRiskAdapter] = false },
			req: sell(nrYes, "0.5", "10"), kind: errs.Conflict, code: "allowance_error", hint: `POST /wallet/approve {"token":"NEG_RISK"}`},
		{name: "budget exceeded", fixedLimit: 4, req: buy("0.5", "10"), kind: errs.Conflict, code: "budget_exceeded", hint: "GET /budget"},
		{name: "budget exceeded, dry run", fixedLimit: 4, req: dry(buy("0.5", "10")), kind: errs.Conflict, code: "budget_exceeded", hint: "GET /budget"},
		{name: "dry run reports a buy", req: dry(buy("0.5", "10"))},
		{name: "dry run reports a sell", holds: 10_000_000, req: dry(sell(yes, "0.5", "10"))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e.chain.fund(e.svc.Network, yes, e.market.TokenIDs[1], nrYes, e.negRisk.TokenIDs[1])
			*e.wallets = fakeWallets{}
			if tc.setup != nil {
				tc.setup(e.chain, e.wallets)
			}
			p := e.agent(t, tc.fixedLimit)
			if tc.holds > 0 {
				e.holds(t, p, yes, tc.holds)
			}
			before := len(e.runner.placed())
			res, err := e.desk.Place(context.Background(), p, tc.req)
			switch {
			case tc.code == "":
				if err != nil {
					t.Fatalf("Place: %v", err)
				}
				pv := res.Preview
				if pv == nil || res.Order.ID != "" || pv.MarketQuestion != e.market.Question || pv.Outcome != "Yes" ||
					pv.TickSize != "0.01" || !pv.MinSize.Equal(d("5")) {
					t.Fatalf("dry run answered %+v (preview %+v)", res, pv)
				}
				if tc.req.Side == orders.SideBuy && (!pv.Cost.Equal(d("5")) || !pv.BudgetAvailable.Equal(d("1000"))) ||
					tc.req.Side == orders.SideSell && !pv.Proceeds.Equal(d("5")) {
					t.Fatalf("dry run preview %+v", pv)
				}
			case err == nil:
				t.Fatalf("Place accepted the order: %+v", res)
			default:
				if errs.KindOf(err) != tc.kind || errs.CodeOf(err) != tc.code {
					t.Fatalf("err %v: kind %s code %q, want %s %q", err, errs.KindOf(err), errs.CodeOf(err), tc.kind, tc.code)
				}
				if hint := hintOf(err); tc.hint != "" && !strings.Contains(hint, tc.hint) {
					t.Fatalf("hint %q, want it to contain %q", hint, tc.hint)
				}
			}
			e.assertNothingHeld(t, p)
			if n := len(e.runner.placed()) - before; n != 0 {
				t.Fatalf("%d workflows started", n)
			}
		})
	}
}

// TestPlaceIdempotencyKey: a key binds the agent's order for 24 hours
// (store.IdempotencyRetention): a retry answers that order as it stands
// without placing again, and a different order under the key is refused;
// from 24 hours on the key places a new order, and the old one gives the
// key up. A PENDING order's retry waits for its placement again.
func TestPlaceIdempotencyKey(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		var mu sync.Mutex
		now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
		st.SetClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
		advance := func(dt time.Duration) { mu.Lock(); now = now.Add(dt); mu.Unlock() }
		e := newPlaceEnv(t, st)
		ctx := context.Background()
		p := e.agent(t, 0)
		req := orders.PlaceRequest{TokenID: e.market.TokenIDs[0], Side: orders.SideBuy, Price: d("0.4"), Size: d("10"), IdempotencyKey: "k-1"}
		orders := func() int64 {
			n, err := st.CountOrders(ctx, store.OrderFilter{AgentID: p.AgentID})
			if err != nil {
				t.Fatal(err)
			}
			return n
		}

		first, err := e.desk.Place(ctx, p, req)
		if err != nil || first.Order.Status != models.OrderOpen || first.Pending {
			t.Fatalf("first: %+v %v", first, err)
		}
		retry := req
		retry.Side = " buy " // normalised like the first
		again, err := e.desk.Place(ctx, p, retry)
		if err != nil || again.Order.ID != first.Order.ID || again.Order.Status != models.OrderOpen || orders() != 1 || len(e.runner.placed()) != 1 {
			t.Fatalf("retry: %+v %v (%d orders, %d placements)", again, err, orders(), len(e.runner.placed()))
		}
		other := req
		other.Price = d("0.41")
		for _, at := range []time.Duration{0, store.IdempotencyRetention - time.Second} {
			advance(at)
			if _, err := e.desk.Place(ctx, p, other); !errs.Is(err, errs.Conflict) || errs.CodeOf(err) != "idempotency_key_reused" {
				t.Fatalf("another order under the key after %s: %v", at, err)
			}
		}
		if orders() != 1 {
			t.Fatalf("%d orders", orders())
		}

		advance(time.Second) // 24 h after the first order: the key is free
		fresh, err := e.desk.Place(ctx, p, other)
		if err != nil || fresh.Order.ID == first.Order.ID || !fresh.Order.Price.Equal(d("0.41")) || orders() != 2 {
			t.Fatalf("after 24 h: %+v %v (%d orders)", fresh, err, orders())
		}
		old, err := st.OrderByID(ctx, first.Order.ID)
		if err != nil || old.IdempotencyKey != nil {
			t.Fatalf("the old order still holds its key: %+v %v", old, err)
		}
		if got, err := e.desk.Place(ctx, p, other); err != nil || got.Order.ID != fresh.Order.ID {
			t.Fatalf("retry of the new order: %+v %v", got, err)
		}

		// A placement that does not answer in time is PENDING (202); its
		// retry waits for the placement again and answers what it became.
		e.runner.setHold(true)
		slow := req
		slow.IdempotencyKey, slow.Price = "k-slow", d("0.3")
		pending, err := e.desk.Place(ctx, p, slow)
		if err != nil || !pending.Pending || pending.Order.Status != models.OrderPending {
			t.Fatalf("slow placement: %+v %v", pending, err)
		}
		if res, err := e.desk.Place(ctx, p, slow); err != nil || !res.Pending || res.Order.ID != pending.Order.ID {
			t.Fatalf("retry while still pending: %+v %v", res, err)
		}
		e.runner.setHold(false)
		placements := len(e.runner.placed())
		res, err := e.desk.Place(ctx, p, slow)
		if err != nil || res.Pending || res.Order.ID != pending.Order.ID || res.Order.Status != models.OrderOpen ||
			len(e.runner.placed()) != placements+1 || orders() != 3 {
			t.Fatalf("retry once placed: %+v %v (%d orders)", res, err, orders())
		}
	})
}

// TestResumeStale: one order whose workflow cannot be started does not
// stop the sweep; the others are resumed and the failures come back
// joined, naming their orders. Fresh PENDING orders are left alone.
func TestResumeStale(t *testing.T) {
	st := storetest.NewSQLite(t)
	var mu sync.Mutex
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	st.SetClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
	ctx := context.Background()
	runner := &fakeRunner{st: st, resumeErr: map[string]error{}}
	desk := &workflows.OrderDesk{Orders: &orders.Service{Store: st}, Runs: runner}
	var ids []string
	for range 4 {
		o := &models.Order{AgentID: "agt_1", UserID: "usr_1", WalletID: "wal_1", TokenID: "1", Side: orders.SideBuy, Type: "GTC",
			RequestType: orders.TypeLimit, PriceMicro: 500_000, SizeMicro: 10_000_000}
		if err := st.CreateOrder(ctx, o); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, o.ID)
		mu.Lock()
		now = now.Add(time.Second)
		mu.Unlock()
	}
	down := errs.E(errs.Transient, "temporal is unavailable")
	runner.resumeErr[ids[0]], runner.resumeErr[ids[2]] = down, down
	// ids[3] was created a second ago: not stale yet.
	n, err := desk.ResumeStale(ctx, now, 1500*time.Millisecond)
	if n != 1 || !errors.Is(err, down) {
		t.Fatalf("ResumeStale = %d, %v; want 1 and the resume errors", n, err)
	}
	for _, id := range []string{ids[0], ids[2]} {
		if !strings.Contains(err.Error(), id) {
			t.Errorf("the error %q does not name order %s", err, id)
		}
	}
	if strings.Contains(err.Error(), ids[1]) {
		t.Errorf("the error %q names the resumed order", err)
	}
	if len(runner.resumed) != 1 || runner.resumed[0] != ids[1] {
		t.Fatalf("resumed %v, want [%s]", runner.resumed, ids[1])
	}
}

// An order stored PENDING whose workflow never started (the API died in
// between): DELETE answers at once with CANCELLED and previousStatus
// PENDING instead of 404, releases the reservation and audits the cancel;
// the placement step, when the stale-order sweep starts it later, finds it
// cancelled and posts nothing; a second cancel is refused.
func TestCancelPendingOrderWithoutWorkflow(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		e := newPlaceEnv(t, st)
		e.svc.Audit = &audit.Service{Store: st}
		e.runner.cancelErr = errs.E(errs.NotFound, "not found").WithCode(errs.CodeOrderWorkflowNotFound)
		// The worker is away: the BUY of 5 shares at 0.20 stays PENDING
		// with its 1 USDC reservation.
		e.runner.setHold(true)
		p := e.agent(t, 0)
		p.ClientAddr = "192.0.2.1"
		res, err := e.desk.Place(ctx, p, orders.PlaceRequest{TokenID: e.market.TokenIDs[0], Side: orders.SideBuy, Price: d("0.2"), Size: d("5")})
		if err != nil || !res.Pending {
			t.Fatalf("place: %+v %v", res, err)
		}
		o := res.Order
		held := func() int64 {
			t.Helper()
			tot, err := st.BudgetTotals(ctx, p.UserID, p.AgentID)
			if err != nil {
				t.Fatal(err)
			}
			return tot.AgentHeldMicro
		}
		if h := held(); h != 1_000_000 {
			t.Fatalf("held %d before the cancel", h)
		}

		t0 := time.Now()
		v, err := e.desk.Cancel(ctx, p, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		if took := time.Since(t0); took > 2*time.Second {
			t.Fatalf("the cancel took %v", took)
		}
		if v.Status != models.OrderCancelled || v.PreviousStatus != models.OrderPending || v.ID != o.ID || e.runner.cancels != 1 {
			t.Fatalf("cancel answered %+v after %d workflow cancels", v, e.runner.cancels)
		}
		if h := held(); h != 0 {
			t.Fatalf("held %d after the cancel", h)
		}
		page, err := e.svc.Audit.List(ctx, audit.Filter{AgentID: p.AgentID, Action: "order.cancel"})
		if err != nil || len(page.Entries) != 1 || page.Entries[0].Target != o.ID || page.Entries[0].Result != audit.Success ||
			!strings.Contains(string(page.Entries[0].Detail), `"previousStatus":"PENDING"`) {
			t.Fatalf("audit %+v %v", page.Entries, err)
		}

		// The workflow starts late: its placement step reaches no venue.
		sub, err := e.svc.Submit(ctx, o.ID)
		if err != nil || sub.Status != models.OrderCancelled {
			t.Fatalf("submit after the cancel: %+v %v", sub, err)
		}
		if _, err := e.desk.Cancel(ctx, p, o.ID); errs.CodeOf(err) != "order_not_cancellable" {
			t.Fatalf("second cancel: %v", err)
		}
	})
}
