package orders

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/budget"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/wallets"
	"github.com/agent-trading/ats/venue/clob"
)

type noVenue struct{}

func (noVenue) Get(context.Context, string) (wallets.Wallet, error) {
	return wallets.Wallet{}, errs.E(errs.Internal, "the venue must not be reached")
}
func (noVenue) Signer(context.Context, string) (*wallets.Signer, error) {
	return nil, errs.E(errs.Internal, "the venue must not be reached")
}
func (noVenue) Creds(context.Context, string) (clob.Creds, error) {
	return clob.Creds{}, errs.E(errs.Internal, "the venue must not be reached")
}
func (noVenue) InvalidateCreds(context.Context, string) error { return nil }

type richWallet struct{}

func (richWallet) WalletBalance(context.Context, string) (int64, error) {
	return 1_000 * models.MicroPerUnit, nil
}

type cancelFixture struct {
	st  *store.Store
	svc *Service
	p   Principal
}

func newCancelFixture(t *testing.T, st *store.Store) *cancelFixture {
	t.Helper()
	ctx := context.Background()
	u := &models.User{Email: models.NewID("u") + "@example.com"}
	if err := st.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	a := &models.Agent{UserID: u.ID, Name: models.NewID("a"), Scopes: "read trade cancel"}
	if err := st.CreateAgentWithKey(ctx, a, &models.APIKey{Hash: models.NewID("h"), DisplayPrefix: "ll_x"}); err != nil {
		t.Fatal(err)
	}
	svc := &Service{
		Store: st, Budget: budget.New(st, richWallet{}, nil), Wallets: noVenue{}, Audit: &audit.Service{Store: st},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	return &cancelFixture{st: st, svc: svc, p: Principal{AgentID: a.ID, UserID: u.ID, ClientAddr: "192.0.2.1"}}
}

// pendingBuy stores a PENDING BUY of 5 shares at 0.20 with its 1 USDC
// reservation, as Place does.
func (f *cancelFixture) pendingBuy(t *testing.T) *models.Order {
	t.Helper()
	ctx := context.Background()
	o := &models.Order{ID: models.NewID(models.PrefixOrder), AgentID: f.p.AgentID, UserID: f.p.UserID, WalletID: "wal_1",
		TokenID: "123", Side: SideBuy, Type: "GTC", RequestType: TypeLimit, PriceMicro: 200_000, SizeMicro: 5_000_000,
		Status: models.OrderPending, ReservedMicro: 1_000_000}
	if _, err := f.svc.Budget.ReserveWith(ctx, f.p.AgentID, f.p.UserID, o.ReservedMicro, o.ID,
		func(tx *store.Store) error { return tx.CreateOrder(ctx, o) }); err != nil {
		t.Fatal(err)
	}
	return o
}

func (f *cancelFixture) held(t *testing.T) int64 {
	t.Helper()
	tot, err := f.st.BudgetTotals(context.Background(), f.p.UserID, f.p.AgentID)
	if err != nil {
		t.Fatal(err)
	}
	return tot.AgentHeldMicro
}

// A cancel that finds a post of the order in flight (its posting claim
// live) waits for the post's outcome: when the post failed, the order is
// cancelled as never posted; when it placed the order, the order is
// cancelled as placed; when it filled at once, the cancel is refused.
// Either way previousStatus is PENDING, and the cancel never lands while
// the claim is live.
func TestCancelPendingWaitsForAPostInFlight(t *testing.T) {
	tests := []struct {
		name     string
		outcome  string // status the post leaves; PENDING: the post failed
		wantErr  string
		wantHeld int64
	}{
		{"the post failed", models.OrderPending, "", 0},
		{"the post placed it", models.OrderOpen, "", 0},
		{"the post filled it", models.OrderFilled, "order_not_cancellable", 1_000_000},
	}
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				ctx := context.Background()
				f := newCancelFixture(t, st)
				o := f.pendingBuy(t)
				if err := st.ClaimOrderPost(ctx, o.ID, postTimeout+postSettle); err != nil {
					t.Fatal(err)
				}
				const postTook = 400 * time.Millisecond
				done := make(chan struct{})
				go func() {
					defer close(done)
					time.Sleep(postTook)
					if tc.outcome != models.OrderPending {
						s := tc.outcome
						if err := st.UpdateOrder(ctx, o.ID, []string{models.OrderPending}, store.OrderUpdate{Status: &s}); err != nil {
							t.Error(err)
						}
					}
					if err := st.ReleaseOrderPost(ctx, o.ID, 100*time.Millisecond); err != nil {
						t.Error(err)
					}
				}()
				t0 := time.Now()
				prev, v, err := f.svc.CancelPending(ctx, o.ID)
				took := time.Since(t0)
				<-done
				if took < postTook || took > 5*time.Second {
					t.Fatalf("the cancel took %v for a post of %v", took, postTook)
				}
				if tc.wantErr != "" {
					if errs.CodeOf(err) != tc.wantErr {
						t.Fatalf("err %v, want %s", err, tc.wantErr)
					}
				} else if err != nil || prev != models.OrderPending || v.Status != models.OrderCancelled {
					t.Fatalf("cancel answered %q %+v %v", prev, v, err)
				}
				if h := f.held(t); h != tc.wantHeld {
					t.Fatalf("held %d, want %d", h, tc.wantHeld)
				}
			})
		}
	})
}

// The decision that fixes lost orders: a venue cancel is recorded only
// when the order is no longer live there.
func TestCancelOutcome(t *testing.T) {
	tests := []struct {
		status   string
		wantKind errs.Kind
		wantCode string
	}{
		{models.OrderCancelled, 0, ""},
		{models.OrderFilled, errs.Conflict, "order_not_cancellable"},
		{models.OrderFailed, errs.Conflict, "order_not_cancellable"},
		{models.OrderOpen, errs.Transient, "cancel_unconfirmed"},
		{models.OrderPartiallyFilled, errs.Transient, "cancel_unconfirmed"},
		{models.OrderPending, errs.Transient, "cancel_unconfirmed"},
	}
	for _, tc := range tests {
		t.Run(tc.status, func(t *testing.T) {
			err := cancelOutcome(tc.status)
			if tc.wantCode == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if errs.KindOf(err) != tc.wantKind || errs.CodeOf(err) != tc.wantCode {
				t.Fatalf("%v (code %q)", err, errs.CodeOf(err))
			}
		})
	}
}

// Abandon (placement gave up after its span) must not fail an order while
// a placement attempt still holds the posting claim: that attempt's post
// may reach the venue after all. It is asked again once the claim runs out.
func TestAbandonWaitsForThePostingClaim(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		tests := []struct {
			name  string
			claim bool
		}{
			{"no claim: failed at once", false},
			{"live claim: refused, then failed once it ran out", true},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				f := newCancelFixture(t, st)
				o := f.pendingBuy(t)
				if tc.claim {
					if err := st.ClaimOrderPost(ctx, o.ID, time.Minute); err != nil {
						t.Fatal(err)
					}
					_, err := f.svc.Abandon(ctx, o.ID)
					if errs.KindOf(err) != errs.Transient || errs.CodeOf(err) != "post_in_flight" {
						t.Fatalf("abandon during a post: %v", err)
					}
					cur, err := st.OrderByID(ctx, o.ID)
					if err != nil || cur.Status != models.OrderPending || f.held(t) != o.ReservedMicro {
						t.Fatalf("order %+v held %d err %v: must stay PENDING and reserved", cur, f.held(t), err)
					}
					if err := st.ReleaseOrderPost(ctx, o.ID, 0); err != nil {
						t.Fatal(err)
					}
				}
				v, err := f.svc.Abandon(ctx, o.ID)
				if err != nil || v.Status != models.OrderFailed || v.FailureReason == "" {
					t.Fatalf("abandon answered %+v %v", v, err)
				}
				if h := f.held(t); h != 0 {
					t.Fatalf("held %d after abandon", h)
				}
				// A placement attempt arriving afterwards finds it ended.
				if err := st.ClaimOrderPost(ctx, o.ID, time.Minute); errs.CodeOf(err) != "order_state" {
					t.Fatalf("claim after abandon: %v", err)
				}
			})
		}
	})
}
