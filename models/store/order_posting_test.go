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

// SetSignedOrder answers the order as stored without reading it back when
// its update stored the signed order, and as read when another attempt's
// signed order (or a cancel) came first: either way the answer is what a
// read of the row gives.
func TestSetSignedOrder(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		now := time.Date(2026, 5, 6, 7, 8, 9, 123456000, time.UTC)
		s.SetClock(func() time.Time { return now })
		o := &models.Order{AgentID: "agt_1", UserID: "usr_1", WalletID: "wal_1", TokenID: "1", Side: "BUY", Type: "GTC",
			PriceMicro: 500_000, SizeMicro: 1_000_000, ReservedMicro: 500_000, Status: models.OrderPending}
		if err := s.CreateOrder(ctx, o); err != nil {
			t.Fatal(err)
		}
		read, err := s.OrderByID(ctx, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		same := func(t *testing.T, got *models.Order, signed, hash string) {
			t.Helper()
			stored, err := s.OrderByID(ctx, o.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.SignedOrder != signed || got.VenueOrderID != hash {
				t.Fatalf("answered %q %q, want %q %q", got.SignedOrder, got.VenueOrderID, signed, hash)
			}
			if got.SignedOrder != stored.SignedOrder || got.VenueOrderID != stored.VenueOrderID || got.Status != stored.Status ||
				!got.UpdatedAt.Equal(stored.UpdatedAt) || !got.CreatedAt.Equal(stored.CreatedAt) {
				t.Fatalf("answered %+v, stored %+v", got, stored)
			}
		}

		now = now.Add(time.Second)
		first, err := s.SetSignedOrder(ctx, read, `{"a":1}`, "0xaa")
		if err != nil {
			t.Fatal(err)
		}
		same(t, first, `{"a":1}`, "0xaa")
		if read.SignedOrder != "" {
			t.Fatal("the caller's order was changed")
		}

		// A second attempt that read the order before the first stored its
		// signed order gets the first one's.
		second, err := s.SetSignedOrder(ctx, read, `{"b":2}`, "0xbb")
		if err != nil {
			t.Fatal(err)
		}
		same(t, second, `{"a":1}`, "0xaa")

		// A cancelled order is answered as it stands, unsigned.
		c := *o
		c.ID, c.SignedOrder, c.VenueOrderID = "", "", ""
		if err := s.CreateOrder(ctx, &c); err != nil {
			t.Fatal(err)
		}
		if err := s.CancelPendingOrder(ctx, c.ID); err != nil {
			t.Fatal(err)
		}
		pending := c // as read before the cancel
		pending.Status = models.OrderPending
		got, err := s.SetSignedOrder(ctx, &pending, `{"c":3}`, "0xcc")
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != models.OrderCancelled || got.SignedOrder != "" {
			t.Fatalf("cancelled order answered %+v", got)
		}
	})
}
