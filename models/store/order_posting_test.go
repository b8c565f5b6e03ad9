package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

// The posting claim keeps a cancel of a PENDING order from racing its
// post: a live claim refuses the cancel, an expired or shortened one lets
// it through, and a cancelled order can no longer be claimed (posted).
func TestOrderPostingClaim(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		now := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
		s.SetClock(func() time.Time { return now })
		order := func(t *testing.T) *models.Order {
			t.Helper()
			o := &models.Order{AgentID: "agt_1", UserID: "usr_1", WalletID: "wal_1", TokenID: "1", Side: "BUY", Type: "GTC",
				PriceMicro: 500_000, SizeMicro: 1_000_000, ReservedMicro: 500_000}
			if err := s.CreateOrder(ctx, o); err != nil {
				t.Fatal(err)
			}
			return o
		}
		wantState := func(t *testing.T, err error, msg string) {
			t.Helper()
			if !errs.Is(err, errs.Conflict) || errs.CodeOf(err) != "order_state" || errs.PublicMessage(err) != msg {
				t.Fatalf("err %v, want order_state %q", err, msg)
			}
		}

		t.Run("a live claim refuses the cancel until it expires", func(t *testing.T) {
			o := order(t)
			if err := s.ClaimOrderPost(ctx, o.ID, 18*time.Second); err != nil {
				t.Fatal(err)
			}
			wantState(t, s.CancelPendingOrder(ctx, o.ID), "the order is being posted to the venue")
			now = now.Add(17 * time.Second)
			wantState(t, s.CancelPendingOrder(ctx, o.ID), "the order is being posted to the venue")
			now = now.Add(2 * time.Second)
			if err := s.CancelPendingOrder(ctx, o.ID); err != nil {
				t.Fatal(err)
			}
			got, err := s.OrderByID(ctx, o.ID)
			if err != nil || got.Status != models.OrderCancelled || got.ReservedMicro != 0 {
				t.Fatalf("%+v %v", got, err)
			}
			wantState(t, s.ClaimOrderPost(ctx, o.ID, 18*time.Second), "the order is CANCELLED")
		})

		t.Run("a released claim only waits out the settle time", func(t *testing.T) {
			o := order(t)
			if err := s.ClaimOrderPost(ctx, o.ID, 18*time.Second); err != nil {
				t.Fatal(err)
			}
			if err := s.ReleaseOrderPost(ctx, o.ID, 3*time.Second); err != nil {
				t.Fatal(err)
			}
			// Releasing never lengthens a claim.
			if err := s.ReleaseOrderPost(ctx, o.ID, time.Minute); err != nil {
				t.Fatal(err)
			}
			now = now.Add(2 * time.Second)
			wantState(t, s.CancelPendingOrder(ctx, o.ID), "the order is being posted to the venue")
			now = now.Add(2 * time.Second)
			if err := s.CancelPendingOrder(ctx, o.ID); err != nil {
				t.Fatal(err)
			}
		})

		t.Run("an order never claimed is cancelled; a placed one is not", func(t *testing.T) {
			o := order(t)
			if err := s.CancelPendingOrder(ctx, o.ID); err != nil {
				t.Fatal(err)
			}
			p := order(t)
			open := models.OrderOpen
			if err := s.UpdateOrder(ctx, p.ID, nil, store.OrderUpdate{Status: &open}); err != nil {
				t.Fatal(err)
			}
			wantState(t, s.CancelPendingOrder(ctx, p.ID), "the order is OPEN")
			if err := s.CancelPendingOrder(ctx, "ord_missing"); !errs.Is(err, errs.NotFound) {
				t.Fatalf("missing order: %v", err)
			}
		})
	})
}
