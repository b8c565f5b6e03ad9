package store_test

import (
	"context"
	"slices"
	"testing"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

// The order listener's queries: the users with a live (pending or
// resting) order, and a user's resting orders with a venue id.
func TestLiveAndRestingOrders(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		add := func(user, status, venueID string) *models.Order {
			o := &models.Order{AgentID: "agt_" + user, UserID: user, WalletID: "wal_" + user, TokenID: "1", Side: "BUY", Type: "GTC",
				PriceMicro: 500_000, SizeMicro: 1_000_000, Status: status, VenueOrderID: venueID}
			if err := s.CreateOrder(ctx, o); err != nil {
				t.Fatal(err)
			}
			return o
		}
		add("usr_a", models.OrderPending, "")
		open := add("usr_b", models.OrderOpen, "0x01")
		part := add("usr_b", models.OrderPartiallyFilled, "0x02")
		add("usr_b", models.OrderFilled, "0x03")
		add("usr_c", models.OrderCancelled, "0x04")
		add("usr_c", models.OrderFailed, "")

		users, err := s.UsersWithLiveOrders(ctx)
		if err != nil || !slices.Equal(users, []string{"usr_a", "usr_b"}) {
			t.Fatalf("users with live orders: %v %v", users, err)
		}
		rest, err := s.RestingOrders(ctx, "usr_b")
		if err != nil || len(rest) != 2 {
			t.Fatalf("resting orders of usr_b: %v %v", rest, err)
		}
		ids := []string{rest[0].ID, rest[1].ID}
		slices.Sort(ids)
		want := []string{open.ID, part.ID}
		slices.Sort(want)
		if !slices.Equal(ids, want) {
			t.Fatalf("resting orders %v, want %v", ids, want)
		}
		if rest, err := s.RestingOrders(ctx, "usr_a"); err != nil || len(rest) != 0 {
			t.Fatalf("a pending order is not resting: %v %v", rest, err)
		}
	})
}
