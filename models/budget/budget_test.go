package budget_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/budget"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

// wallets is a fake WalletBalancer: balances per user, NotFound otherwise.
type wallets struct {
	mu  sync.Mutex
	bal map[string]int64
	err error
}

func (w *wallets) WalletBalance(_ context.Context, userID string) (int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	b, ok := w.bal[userID]
	if !ok {
		return 0, errs.E(errs.NotFound, "no wallet")
	}
	return b, nil
}

func (w *wallets) set(userID string, micro int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.bal[userID] = micro
}

// prices is a fake PriceSource over a fixed map.
type prices struct {
	p   map[string]int64
	err error
}

func (p prices) Prices(_ context.Context, ids []string) (map[string]int64, error) {
	if p.err != nil {
		return nil, p.err
	}
	out := map[string]int64{}
	for _, id := range ids {
		if v, ok := p.p[id]; ok {
			out[id] = v
		}
	}
	return out, nil
}

const usdc = models.MicroPerUnit

func ptr[T any](v T) *T { return &v }

type fixture struct {
	st    *store.Store
	w     *wallets
	svc   *budget.Service
	user  *models.User
	agent *models.Agent
}

func newFixture(t *testing.T, s *store.Store, px budget.PriceSource) *fixture {
	t.Helper()
	ctx := context.Background()
	u := &models.User{Email: models.NewID("u") + "@example.com"}
	require.NoError(t, s.CreateUser(ctx, u))
	w := &wallets{bal: map[string]int64{}}
	f := &fixture{st: s, w: w, svc: budget.New(s, w, px), user: u}
	f.agent = f.newAgent(t)
	return f
}

func (f *fixture) newAgent(t *testing.T) *models.Agent {
	t.Helper()
	a := &models.Agent{UserID: f.user.ID, Name: models.NewID("a"), Scopes: "read trade"}
	require.NoError(t, f.st.CreateAgentWithKey(context.Background(), a, &models.APIKey{Hash: models.NewID("h"), DisplayPrefix: "ll_x"}))
	return a
}

func (f *fixture) setLimits(t *testing.T, a *models.Agent, fixed *int64, bps *int32, maxPos *int64) {
	t.Helper()
	require.NoError(t, f.st.UpdateAgentBudget(context.Background(), a.UserID, a.ID, store.AgentSettings{
		BudgetLimitMicro: fixed, BudgetPercentBps: bps, MaxPositionValueMicro: maxPos,
	}))
}

func TestSnapshotLimits(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		px := prices{p: map[string]int64{"tokA": 800_000}}
		tests := []struct {
			name      string
			wallet    *int64 // nil = no wallet
			fixed     *int64
			bps       *int32
			maxPos    *int64
			held      int64 // reserved, not filled
			used      int64 // reserved and filled
			positions [][2]int64
			want      string // available
			wantBy    string
			wantUsed  string
		}{
			{name: "no limits: the wallet", wallet: ptr(100 * usdc), want: "100", wantBy: "wallet", wantUsed: "0"},
			{name: "no wallet", want: "0", wantBy: "wallet", wantUsed: "0"},
			{name: "fixed limit binds", wallet: ptr(100 * usdc), fixed: ptr(40 * usdc), want: "40", wantBy: "fixed_limit", wantUsed: "0"},
			{name: "fixed limit minus used and held", wallet: ptr(100 * usdc), fixed: ptr(40 * usdc), held: 5 * usdc, used: 10 * usdc,
				want: "25", wantBy: "fixed_limit", wantUsed: "15"},
			{name: "wallet below fixed", wallet: ptr(30 * usdc), fixed: ptr(40 * usdc), want: "30", wantBy: "wallet", wantUsed: "0"},
			{name: "wallet minus held", wallet: ptr(30 * usdc), fixed: ptr(40 * usdc), held: 8 * usdc, want: "22", wantBy: "wallet", wantUsed: "8"},
			{name: "percent binds", wallet: ptr(100 * usdc), fixed: ptr(40 * usdc), bps: ptr(int32(2500)), want: "25", wantBy: "percent", wantUsed: "0"},
			{name: "percent minus used", wallet: ptr(100 * usdc), bps: ptr(int32(2550)), used: 500_000, want: "25", wantBy: "percent", wantUsed: "0.5"},
			{name: "tie prefers wallet", wallet: ptr(40 * usdc), fixed: ptr(40 * usdc), want: "40", wantBy: "wallet", wantUsed: "0"},
			{name: "exhausted clamps to zero", wallet: ptr(100 * usdc), fixed: ptr(10 * usdc), used: 12 * usdc, want: "0", wantBy: "fixed_limit", wantUsed: "12"},
			// 10 shares of tokA at 0.80 = 8; 5 shares of tokB (no price) at cost 0.30 = 1.5.
			{name: "position limit", wallet: ptr(100 * usdc), maxPos: ptr(20 * usdc), held: 2 * usdc,
				positions: [][2]int64{{10 * usdc, 500_000}, {5 * usdc, 300_000}}, want: "8.5", wantBy: "position_limit", wantUsed: "2"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				f := newFixture(t, s, px)
				if tc.wallet != nil {
					f.w.set(f.user.ID, *tc.wallet)
				}
				f.setLimits(t, f.agent, tc.fixed, tc.bps, tc.maxPos)
				for i, p := range tc.positions {
					tok := []string{"tokA", "tokB"}[i]
					require.NoError(t, s.SavePosition(ctx, &models.Position{AgentID: f.agent.ID, UserID: f.user.ID, TokenID: tok,
						SizeMicro: p[0], AvgEntryMicro: p[1]}))
				}
				if tc.held > 0 {
					require.NoError(t, s.CreateBudgetReservation(ctx, &models.BudgetReservation{Ref: models.NewID("o"), AgentID: f.agent.ID, UserID: f.user.ID, AmountMicro: tc.held}))
				}
				if tc.used > 0 {
					r := &models.BudgetReservation{Ref: models.NewID("o"), AgentID: f.agent.ID, UserID: f.user.ID, AmountMicro: tc.used}
					require.NoError(t, s.CreateBudgetReservation(ctx, r))
					_, err := s.SettleBudgetReservation(ctx, r.Ref, tc.used, true)
					require.NoError(t, err)
				}
				b, err := f.svc.Snapshot(ctx, f.agent.ID)
				require.NoError(t, err)
				assert.Equal(t, tc.want, b.Available.String())
				assert.Equal(t, tc.wantBy, b.LimitedBy)
				assert.Equal(t, tc.wantUsed, b.Config.Used.String())
				assert.Equal(t, tc.fixed != nil, b.Config.FixedLimit != nil)
				assert.Equal(t, tc.bps != nil, b.Config.BudgetPercent != nil)
				assert.Equal(t, tc.maxPos != nil, b.Config.MaxPositionValue != nil)
				if tc.bps != nil {
					assert.Equal(t, fmt.Sprint(float64(*tc.bps)/100), b.Config.BudgetPercent.String())
				}
			})
		}

		t.Run("unknown agent", func(t *testing.T) {
			f := newFixture(t, s, nil)
			_, err := f.svc.Snapshot(ctx, "agt_missing")
			assert.Equal(t, errs.NotFound, errs.KindOf(err))
		})
		t.Run("wallet outage", func(t *testing.T) {
			f := newFixture(t, s, nil)
			f.w.err = errs.E(errs.Transient, "chain down")
			_, err := f.svc.Snapshot(ctx, f.agent.ID)
			assert.Equal(t, errs.Transient, errs.KindOf(err))
		})
		t.Run("price outage with a position limit", func(t *testing.T) {
			f := newFixture(t, s, prices{err: errors.New("dial tcp: refused")})
			f.w.set(f.user.ID, 10*usdc)
			f.setLimits(t, f.agent, nil, nil, ptr(5*usdc))
			require.NoError(t, s.SavePosition(ctx, &models.Position{AgentID: f.agent.ID, UserID: f.user.ID, TokenID: "t", SizeMicro: 1}))
			_, err := f.svc.Snapshot(ctx, f.agent.ID)
			assert.Equal(t, errs.Transient, errs.KindOf(err))
		})
	})
}

func TestReserveConvertRelease(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		f := newFixture(t, s, nil)
		f.w.set(f.user.ID, 100*usdc)
		f.setLimits(t, f.agent, ptr(10*usdc), nil, nil)
		a := f.agent

		avail := func() string {
			t.Helper()
			b, err := f.svc.Snapshot(ctx, a.ID)
			require.NoError(t, err)
			return b.Available.String() + " used " + b.Config.Used.String()
		}

		r, err := f.svc.Reserve(ctx, a.ID, f.user.ID, 6*usdc, "ord_1")
		require.NoError(t, err)
		assert.Equal(t, []any{int64(6 * usdc), int64(6 * usdc), models.ReservationActive}, []any{r.AmountMicro, r.HeldMicro, r.Status})
		assert.Equal(t, "4 used 6", avail())

		again, err := f.svc.Reserve(ctx, a.ID, f.user.ID, 9*usdc, "ord_1")
		require.NoError(t, err, "same ref is idempotent")
		assert.Equal(t, r.ID, again.ID)
		assert.Equal(t, "4 used 6", avail())

		_, err = f.svc.Reserve(ctx, a.ID, f.user.ID, 4_000_001, "ord_2")
		require.Error(t, err)
		e, _ := errs.As(err)
		require.NotNil(t, e)
		assert.Equal(t, errs.Conflict, e.Kind)
		assert.Equal(t, "budget_exceeded", e.Code)
		assert.Contains(t, e.Message, "budget exceeded")
		assert.Contains(t, e.Message, "fixed_limit")

		_, err = f.svc.Reserve(ctx, a.ID, f.user.ID, 4*usdc, "ord_2")
		require.NoError(t, err, "exactly what is available fits")
		assert.Equal(t, "0 used 10", avail())

		// ord_1 fills 2 USDC, then is cancelled: 4 return to the budget.
		r, err = f.svc.Convert(ctx, "ord_1", 2*usdc)
		require.NoError(t, err)
		assert.Equal(t, []int64{4 * usdc, 2 * usdc}, []int64{r.HeldMicro, r.UsedMicro})
		assert.Equal(t, "0 used 10", avail())
		r, err = f.svc.Release(ctx, "ord_1")
		require.NoError(t, err)
		assert.Equal(t, models.ReservationClosed, r.Status)
		assert.Equal(t, "4 used 6", avail())
		_, err = f.svc.Release(ctx, "ord_1")
		require.NoError(t, err, "release is idempotent")
		assert.Equal(t, "4 used 6", avail())

		// ord_2 finishes fully filled at a better price.
		r, err = f.svc.Finish(ctx, "ord_2", 3*usdc)
		require.NoError(t, err)
		assert.Equal(t, []int64{0, 3 * usdc}, []int64{r.HeldMicro, r.UsedMicro})
		assert.Equal(t, "5 used 5", avail())

		errCases := []struct {
			name string
			op   func() error
			kind errs.Kind
			code string
		}{
			{"zero amount", func() error { _, err := f.svc.Reserve(ctx, a.ID, f.user.ID, 0, "x"); return err }, errs.Invalid, ""},
			{"no ref", func() error { _, err := f.svc.Reserve(ctx, a.ID, f.user.ID, 1, ""); return err }, errs.Invalid, ""},
			{"other user's agent", func() error { _, err := f.svc.Reserve(ctx, a.ID, "usr_other", 1, "x"); return err }, errs.NotFound, ""},
			{"ref of another agent", func() error {
				b := f.newAgent(t)
				_, err := f.svc.Reserve(ctx, b.ID, f.user.ID, 1, "ord_1")
				return err
			}, errs.Conflict, "reservation_ref"},
			{"release unknown", func() error { _, err := f.svc.Release(ctx, "nope"); return err }, errs.NotFound, ""},
			{"convert unknown", func() error { _, err := f.svc.Convert(ctx, "nope", 1); return err }, errs.NotFound, ""},
			{"paused agent", func() error {
				require.NoError(t, s.UpdateAgentStatus(ctx, f.user.ID, a.ID, models.AgentPaused))
				_, err := f.svc.Reserve(ctx, a.ID, f.user.ID, 1, "ord_p")
				return err
			}, errs.Conflict, "agent_inactive"},
		}
		for _, c := range errCases {
			err := c.op()
			assert.Equal(t, c.kind, errs.KindOf(err), c.name)
			if c.code != "" {
				e, _ := errs.As(err)
				require.NotNil(t, e, c.name)
				assert.Equal(t, c.code, e.Code, c.name)
			}
		}
	})
}

// TestConcurrentReservations fires 200 reservations at once against one
// budget: the successful ones never add up to more than the budget, and
// exactly as many succeed as fit.
func TestConcurrentReservations(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		tests := []struct {
			name   string
			wallet int64
			fixed  *int64
			agents int
			amount int64
			limit  int64
		}{
			{"fixed limit, one agent", 1000 * usdc, ptr(50 * usdc), 1, 750_000, 50 * usdc},
			{"shared wallet, two agents", 30 * usdc, nil, 2, 1 * usdc, 30 * usdc},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				ctx := context.Background()
				f := newFixture(t, s, nil)
				f.w.set(f.user.ID, tc.wallet)
				agents := []*models.Agent{f.agent}
				for len(agents) < tc.agents {
					agents = append(agents, f.newAgent(t))
				}
				for _, a := range agents {
					f.setLimits(t, a, tc.fixed, nil, nil)
				}
				const n = 200
				var ok, exceeded atomic.Int64
				var wg sync.WaitGroup
				errCh := make(chan error, n)
				start := make(chan struct{})
				for i := range n {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						a := agents[i%len(agents)]
						_, err := f.svc.Reserve(ctx, a.ID, f.user.ID, tc.amount, fmt.Sprintf("ord_%s_%d", f.user.ID, i))
						switch e, _ := errs.As(err); {
						case err == nil:
							ok.Add(1)
						case e != nil && e.Code == "budget_exceeded":
							exceeded.Add(1)
						default:
							errCh <- err
						}
					}()
				}
				close(start)
				wg.Wait()
				close(errCh)
				for err := range errCh {
					t.Errorf("unexpected error: %v", err)
				}
				want := tc.limit / tc.amount
				assert.Equal(t, want, ok.Load(), "reservations that fit")
				assert.Equal(t, n-want, exceeded.Load())
				var held int64
				for _, a := range agents {
					tot, err := s.BudgetTotals(ctx, f.user.ID, a.ID)
					require.NoError(t, err)
					held += tot.AgentHeldMicro
				}
				assert.LessOrEqual(t, held, tc.limit)
				assert.Equal(t, want*tc.amount, held)
			})
		}
	})
}

// TestReserveKnown: what the caller read in the same request (the agent,
// the wallet's balance) is not read again, and changes nothing of what
// decides: the agent's status and limits are re-read under the lock, the
// owner is checked, a ref is idempotent, and a paper agent's balance is
// its paper balance whatever wallet balance is passed.
func TestReserveKnown(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		f := newFixture(t, s, nil)
		a := f.agent
		// The balancer fails: every answer below comes from Known.
		f.w.err = errors.New("the wallet balance must not be read again")
		known := func(bal int64) budget.Known {
			cur, err := s.AgentByID(ctx, a.ID)
			require.NoError(t, err)
			return budget.Known{Agent: cur, Wallet: big.NewInt(bal)}
		}

		b, err := f.svc.SnapshotKnown(ctx, a.ID, known(50*usdc))
		require.NoError(t, err)
		assert.Equal(t, "50", b.Available.String())
		assert.Equal(t, budget.LimitedByWallet, b.LimitedBy)

		created := 0
		then := func(*store.Store) error { created++; return nil }
		r, err := f.svc.ReserveKnown(ctx, a.ID, f.user.ID, 30*usdc, "ord_k1", known(50*usdc), then)
		require.NoError(t, err)
		assert.Equal(t, int64(30*usdc), r.HeldMicro)
		again, err := f.svc.ReserveKnown(ctx, a.ID, f.user.ID, 30*usdc, "ord_k1", known(50*usdc), then)
		require.NoError(t, err, "the same ref is idempotent")
		assert.Equal(t, r.ID, again.ID)
		assert.Equal(t, 1, created, "then runs once")

		// A ref said to be new is not looked up, and still held once.
		fresh := known(50 * usdc)
		fresh.NewRef = true
		_, err = f.svc.ReserveKnown(ctx, a.ID, f.user.ID, 1*usdc, "ord_k1", fresh, then)
		assert.Equal(t, errs.Conflict, errs.KindOf(err), "the ref's unique index refuses a second reservation")
		assert.Equal(t, 1, created, "then does not run")

		_, err = f.svc.ReserveKnown(ctx, a.ID, f.user.ID, 21*usdc, "ord_k2", known(50*usdc), nil)
		assert.Equal(t, "budget_exceeded", errs.CodeOf(err), "the known balance less what is held bounds it")

		// A limit lowered and a pause after the caller read the agent
		// still apply: both are re-read under the lock.
		stale := known(100 * usdc)
		f.setLimits(t, a, ptr(35*usdc), nil, nil)
		_, err = f.svc.ReserveKnown(ctx, a.ID, f.user.ID, 6*usdc, "ord_k3", stale, nil)
		assert.Equal(t, "budget_exceeded", errs.CodeOf(err), "the fixed limit set after the read applies")
		require.NoError(t, s.UpdateAgentStatus(ctx, f.user.ID, a.ID, models.AgentPaused))
		_, err = f.svc.ReserveKnown(ctx, a.ID, f.user.ID, 1*usdc, "ord_k4", stale, nil)
		assert.Equal(t, "agent_inactive", errs.CodeOf(err), "a pause after the read applies")

		_, err = f.svc.ReserveKnown(ctx, a.ID, "usr_other", 1, "ord_k5", stale, nil)
		assert.Equal(t, errs.NotFound, errs.KindOf(err), "another user's agent")

		// A paper agent spends its paper balance, never the wallet's.
		pa := &models.Agent{UserID: f.user.ID, Name: models.NewID("a"), Scopes: "read trade", Mode: models.ModePaper}
		require.NoError(t, s.CreateAgentWithKey(ctx, pa, &models.APIKey{Hash: models.NewID("h"), DisplayPrefix: "ll_x"}))
		require.NoError(t, s.SetPaperBalance(ctx, f.user.ID, 20*usdc))
		ps, err := f.svc.SnapshotKnown(ctx, pa.ID, budget.Known{Agent: pa, Wallet: big.NewInt(500 * usdc)})
		require.NoError(t, err)
		assert.Equal(t, "20", ps.Available.String())

		// Known of another agent is not taken for this one.
		b2 := f.newAgent(t)
		f.w.err = nil
		f.w.set(f.user.ID, 70*usdc)
		snap, err := f.svc.SnapshotKnown(ctx, b2.ID, budget.Known{Agent: stale.Agent})
		require.NoError(t, err)
		assert.Equal(t, "40", snap.Available.String(), "b2's own budget: the wallet less what a holds")
	})
}
