package store_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

// TestLiveOrders: the user's controls walk the orders that can still trade
// (PENDING, OPEN, PARTIALLY_FILLED) of one user — of one agent, when
// named — by id, a page after a cursor, so every live order is seen once;
// ended orders and another user's are never listed. A user finds their
// own order and position of any of their agents, never another user's.
func TestLiveOrders(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		order := func(user, agent, status string) string {
			t.Helper()
			o := &models.Order{AgentID: agent, UserID: user, WalletID: "wal_1", TokenID: "1", Side: "BUY", Type: "GTC",
				PriceMicro: 500_000, SizeMicro: 10_000_000, Status: status}
			require.NoError(t, s.CreateOrder(ctx, o))
			return o.ID
		}
		var live []string
		for _, st := range []string{models.OrderPending, models.OrderOpen, models.OrderPartiallyFilled, models.OrderOpen} {
			live = append(live, order("usr_a", "agt_1", st))
		}
		other := order("usr_a", "agt_2", models.OrderOpen)
		for _, st := range []string{models.OrderFilled, models.OrderCancelled, models.OrderFailed} {
			order("usr_a", "agt_1", st)
		}
		foreign := order("usr_b", "agt_3", models.OrderOpen)

		ids := func(os []models.Order) []string {
			out := make([]string, len(os))
			for i, o := range os {
				out[i] = o.ID
			}
			return out
		}
		var walked []string
		for after := ""; ; {
			page, err := s.LiveOrders(ctx, "usr_a", "agt_1", after, 3)
			require.NoError(t, err)
			walked = append(walked, ids(page)...)
			if len(page) < 3 {
				break
			}
			after = page[len(page)-1].ID
		}
		assert.ElementsMatch(t, live, walked)
		all, err := s.LiveOrders(ctx, "usr_a", "", "", 100)
		require.NoError(t, err)
		assert.ElementsMatch(t, append(append([]string{}, live...), other), ids(all))

		_, err = s.OrderForUser(ctx, "usr_a", foreign)
		assert.True(t, errs.Is(err, errs.NotFound), "another user's order: %v", err)
		o, err := s.OrderForUser(ctx, "usr_a", other)
		require.NoError(t, err)
		assert.Equal(t, "agt_2", o.AgentID)

		p := &models.Position{AgentID: "agt_3", UserID: "usr_b", TokenID: "1", SizeMicro: 1, Status: models.PositionOpen}
		require.NoError(t, s.SavePosition(ctx, p))
		_, err = s.PositionForUser(ctx, "usr_a", p.ID)
		assert.True(t, errs.Is(err, errs.NotFound), "another user's position: %v", err)
		got, err := s.PositionForUser(ctx, "usr_b", p.ID)
		require.NoError(t, err)
		assert.Equal(t, "agt_3", got.AgentID)
	})
}
