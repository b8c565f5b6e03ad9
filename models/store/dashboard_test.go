package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

// TestOrderTransitionsRecorded: the database records every status an order
// enters, from its creation, whichever path moves it (a guarded update, a
// pending order ended), and nothing for an update that leaves the status
// as it was or a transaction rolled back.
func TestOrderTransitionsRecorded(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		st := func(v string) *string { return &v }
		n := func(v int64) *int64 { return &v }
		o := &models.Order{AgentID: "agt_1", UserID: "usr_1", WalletID: "wal_1", TokenID: "1", Side: "BUY", Type: "GTC",
			PriceMicro: 500_000, SizeMicro: 10_000_000}
		require.NoError(t, s.CreateOrder(ctx, o))
		live := []string{models.OrderPending, models.OrderOpen, models.OrderPartiallyFilled}
		require.NoError(t, s.UpdateOrder(ctx, o.ID, []string{models.OrderPending}, store.OrderUpdate{Status: st(models.OrderOpen)}))
		require.NoError(t, s.UpdateOrder(ctx, o.ID, live, store.OrderUpdate{Status: st(models.OrderOpen)}))
		require.NoError(t, s.UpdateOrder(ctx, o.ID, live, store.OrderUpdate{Status: st(models.OrderPartiallyFilled), FilledSizeMicro: n(1)}))
		require.NoError(t, s.UpdateOrder(ctx, o.ID, live, store.OrderUpdate{Status: st(models.OrderPartiallyFilled), FilledSizeMicro: n(2)}))
		err := s.Tx(ctx, func(tx *store.Store) error {
			require.NoError(t, tx.UpdateOrder(ctx, o.ID, live, store.OrderUpdate{Status: st(models.OrderCancelled)}))
			return errs.E(errs.Conflict, "roll back")
		})
		require.Error(t, err)
		require.NoError(t, s.UpdateOrder(ctx, o.ID, live, store.OrderUpdate{Status: st(models.OrderFilled), FilledSizeMicro: n(10_000_000)}))

		p := &models.Order{AgentID: "agt_1", UserID: "usr_1", WalletID: "wal_1", TokenID: "1", Side: "BUY", Type: "GTC",
			PriceMicro: 500_000, SizeMicro: 1_000_000}
		require.NoError(t, s.CreateOrder(ctx, p))
		require.NoError(t, s.FailPendingOrder(ctx, p.ID, "refused"))

		steps := func(id string) []string {
			ts, err := s.OrderTransitions(ctx, id)
			require.NoError(t, err)
			var out []string
			prev := time.Time{}
			for _, tr := range ts {
				out = append(out, tr.From+">"+tr.To)
				assert.False(t, tr.Time.Before(prev), "in time order")
				prev = tr.Time
			}
			return out
		}
		assert.Equal(t, []string{">PENDING", "PENDING>OPEN", "OPEN>PARTIALLY_FILLED", "PARTIALLY_FILLED>FILLED"}, steps(o.ID))
		assert.Equal(t, []string{">PENDING", "PENDING>FAILED"}, steps(p.ID))
		got, err := s.OrderTransitions(ctx, o.ID)
		require.NoError(t, err)
		created, _ := s.OrderByID(ctx, o.ID)
		assert.True(t, got[0].Time.Equal(created.CreatedAt), "the first entry is the creation")
	})
}

// TestUserOrdersAndFills: a user's orders and fills across agents, with
// the filters of the dashboard's views, newest first, never another
// user's; an order of another user is not found.
func TestUserOrdersAndFills(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		s.SetClock(func() time.Time { return base })
		mk := func(user, agent, cond, status string, at time.Time) *models.Order {
			s.SetClock(func() time.Time { return at })
			o := &models.Order{AgentID: agent, UserID: user, WalletID: "wal_" + user, TokenID: "tok" + cond, ConditionID: cond,
				MarketQuestion: "Q " + cond, Side: "BUY", Type: "GTC", PriceMicro: 400_000, SizeMicro: 5_000_000, Status: status}
			require.NoError(t, s.CreateOrder(ctx, o))
			return o
		}
		a1 := mk("usr_a", "agt_1", "0xc1", models.OrderOpen, base)
		a2 := mk("usr_a", "agt_2", "0xc2", models.OrderFilled, base.Add(time.Hour))
		a3 := mk("usr_a", "agt_2", "0xc1", models.OrderCancelled, base.Add(48*time.Hour))
		b1 := mk("usr_b", "agt_9", "0xc1", models.OrderOpen, base.Add(2*time.Hour))

		ids := func(f store.UserOrderFilter) []string {
			rows, _, err := s.ListUserOrders(ctx, f)
			require.NoError(t, err)
			var out []string
			for _, o := range rows {
				out = append(out, o.ID)
			}
			return out
		}
		assert.Equal(t, []string{a3.ID, a2.ID, a1.ID}, ids(store.UserOrderFilter{UserID: "usr_a"}))
		assert.Equal(t, []string{a3.ID, a2.ID}, ids(store.UserOrderFilter{UserID: "usr_a", AgentID: "agt_2"}))
		assert.Equal(t, []string{a3.ID, a1.ID}, ids(store.UserOrderFilter{UserID: "usr_a", ConditionID: "0xc1"}))
		assert.Equal(t, []string{a1.ID}, ids(store.UserOrderFilter{UserID: "usr_a", Statuses: []string{models.OrderOpen, models.OrderPending}}))
		assert.Equal(t, []string{a2.ID, a1.ID}, ids(store.UserOrderFilter{UserID: "usr_a", From: base, To: base.Add(24 * time.Hour)}))
		rows, more, err := s.ListUserOrders(ctx, store.UserOrderFilter{UserID: "usr_a", Limit: 2})
		require.NoError(t, err)
		assert.Len(t, rows, 2)
		assert.True(t, more)

		_, err = s.OrderForUser(ctx, "usr_a", b1.ID)
		assert.True(t, errs.Is(err, errs.NotFound), "another user's order: %v", err)
		markets, err := s.UserMarkets(ctx, "usr_a")
		require.NoError(t, err)
		assert.Equal(t, []store.Market{{ConditionID: "0xc1", Question: "Q 0xc1"}, {ConditionID: "0xc2", Question: "Q 0xc2"}}, markets)

		for i, o := range []*models.Order{a1, a2, b1} {
			_, err := s.AddFill(ctx, &models.Fill{OrderID: o.ID, VenueTradeID: "t" + o.ID, PriceMicro: 400_000, SizeMicro: 1_000_000,
				FeeMicro: 1_000, TxHash: "0xabc", Time: base.Add(time.Duration(i) * time.Minute)})
			require.NoError(t, err)
		}
		fills, _, err := s.ListUserFills(ctx, store.UserFillFilter{UserID: "usr_a"})
		require.NoError(t, err)
		require.Len(t, fills, 2)
		assert.Equal(t, a2.ID, fills[0].OrderID, "newest first")
		assert.Equal(t, "agt_2", fills[0].AgentID)
		assert.Equal(t, "Q 0xc2", fills[0].Question)
		assert.Equal(t, "BUY", fills[0].Side)
		assert.Equal(t, int64(1_000), fills[0].FeeMicro)
		fills, _, err = s.ListUserFills(ctx, store.UserFillFilter{UserID: "usr_a", ConditionID: "0xc1"})
		require.NoError(t, err)
		require.Len(t, fills, 1)
		assert.Equal(t, a1.ID, fills[0].OrderID)
	})
}

// TestChangesReported: what a user may watch is reported once committed,
// with its user (or the row that names it), and nothing of a transaction
// rolled back.
func TestChangesReported(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		var got []store.Change
		s.OnChange(func(c store.Change) { got = append(got, c) })
		take := func() []store.Change { out := got; got = nil; return out }
		o := &models.Order{AgentID: "agt_1", UserID: "usr_1", WalletID: "wal_1", TokenID: "1", Side: "BUY", Type: "GTC",
			PriceMicro: 500_000, SizeMicro: 10_000_000}
		require.NoError(t, s.CreateOrder(ctx, o))
		assert.Equal(t, []store.Change{{UserID: "usr_1", Topic: store.TopicOrders}}, take())
		open := models.OrderOpen
		require.NoError(t, s.UpdateOrder(ctx, o.ID, []string{models.OrderPending}, store.OrderUpdate{Status: &open}))
		ch := take()
		require.Equal(t, []store.Change{{Topic: store.TopicOrders, OrderID: o.ID}}, ch)
		user, err := s.UserOf(ctx, ch[0])
		require.NoError(t, err)
		assert.Equal(t, "usr_1", user)
		_ = s.Tx(ctx, func(tx *store.Store) error {
			filled := models.OrderFilled
			require.NoError(t, tx.UpdateOrder(ctx, o.ID, nil, store.OrderUpdate{Status: &filled}))
			return errs.E(errs.Conflict, "roll back")
		})
		assert.Empty(t, take(), "a rolled-back change is not reported")
		_, err = s.AddFill(ctx, &models.Fill{OrderID: o.ID, VenueTradeID: "t1", PriceMicro: 1, SizeMicro: 1})
		require.NoError(t, err)
		assert.Contains(t, take(), store.Change{UserID: "usr_1", Topic: store.TopicFills})
		require.NoError(t, s.CreateNotification(ctx, &models.Notification{UserID: "usr_1", Kind: models.NotifyFill, Title: "x"}))
		assert.Equal(t, []store.Change{{UserID: "usr_1", Topic: store.TopicNotifications}}, take())
		// The wallet: imported, replaced and deleted; a delete that finds
		// nothing says nothing.
		u := &models.User{Email: "changes@example.com"}
		require.NoError(t, s.CreateUser(ctx, u))
		w := &models.Wallet{ID: models.NewID(models.PrefixWallet), UserID: u.ID, KeyCiphertext: []byte{1}, KeyNonce: []byte{2}}
		require.NoError(t, s.UpsertWallet(ctx, w))
		assert.Equal(t, []store.Change{{UserID: u.ID, Topic: store.TopicWallet}}, take())
		require.NoError(t, s.DeleteWallet(ctx, u.ID, w.ID))
		assert.Equal(t, []store.Change{{UserID: u.ID, Topic: store.TopicWallet}}, take())
		require.Error(t, s.DeleteWallet(ctx, u.ID, w.ID))
		assert.Empty(t, take())
	})
}
