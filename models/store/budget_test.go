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

func mustAgent(t *testing.T, s *store.Store, userID, name string) *models.Agent {
	t.Helper()
	a := &models.Agent{UserID: userID, Name: name, Scopes: "read trade"}
	require.NoError(t, s.CreateAgentWithKey(context.Background(), a, &models.APIKey{Hash: models.NewID("h"), DisplayPrefix: "ll_x"}))
	return a
}

func TestBudgetReservations(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		s.SetClock(func() time.Time { return t0 })
		u := mustUser(t, s, "budget@example.com")
		a1 := mustAgent(t, s, u.ID, "one")
		a2 := mustAgent(t, s, u.ID, "two")
		other := mustUser(t, s, "other@example.com")
		a3 := mustAgent(t, s, other.ID, "three")

		create := func(a *models.Agent, ref string, amount int64) {
			t.Helper()
			r := &models.BudgetReservation{Ref: ref, AgentID: a.ID, UserID: a.UserID, AmountMicro: amount}
			require.NoError(t, s.CreateBudgetReservation(ctx, r))
			assert.Equal(t, amount, r.HeldMicro)
			assert.Equal(t, models.ReservationActive, r.Status)
			assert.True(t, models.HasPrefix(r.ID, models.PrefixBudgetReservation))
		}
		create(a1, "ord_a", 10_000_000)
		create(a1, "ord_b", 4_000_000)
		create(a2, "ord_c", 1_000_000)
		create(a3, "ord_d", 7_000_000)

		dup := &models.BudgetReservation{Ref: "ord_a", AgentID: a1.ID, UserID: u.ID, AmountMicro: 1}
		assert.Equal(t, errs.Conflict, errs.KindOf(s.CreateBudgetReservation(ctx, dup)))
		for _, bad := range []models.BudgetReservation{
			{AgentID: a1.ID, UserID: u.ID, AmountMicro: 1},
			{Ref: "x", AgentID: a1.ID, UserID: u.ID},
			{Ref: "x", AgentID: a1.ID, UserID: u.ID, AmountMicro: -5},
		} {
			assert.Equal(t, errs.Invalid, errs.KindOf(s.CreateBudgetReservation(ctx, &bad)), "%+v", bad)
		}

		totals := func(a *models.Agent) store.BudgetTotals {
			t.Helper()
			got, err := s.BudgetTotals(ctx, a.UserID, a.ID)
			require.NoError(t, err)
			return got
		}
		assert.Equal(t, store.BudgetTotals{AgentHeldMicro: 14_000_000, UserHeldMicro: 15_000_000}, totals(a1))

		steps := []struct {
			name          string
			ref           string
			filled        int64
			terminal      bool
			wantHeld      int64
			wantUsed      int64
			wantStatus    string
			wantA1Totals  store.BudgetTotals
			wantErrorKind errs.Kind
		}{
			{"partial fill", "ord_a", 3_000_000, false, 7_000_000, 3_000_000, models.ReservationActive,
				store.BudgetTotals{AgentUsedMicro: 3_000_000, AgentHeldMicro: 11_000_000, UserHeldMicro: 12_000_000}, 0},
			{"replayed older fill report", "ord_a", 1_000_000, false, 7_000_000, 3_000_000, models.ReservationActive,
				store.BudgetTotals{AgentUsedMicro: 3_000_000, AgentHeldMicro: 11_000_000, UserHeldMicro: 12_000_000}, 0},
			{"cancel releases the rest", "ord_a", 0, true, 0, 3_000_000, models.ReservationClosed,
				store.BudgetTotals{AgentUsedMicro: 3_000_000, AgentHeldMicro: 4_000_000, UserHeldMicro: 5_000_000}, 0},
			{"release again", "ord_a", 0, true, 0, 3_000_000, models.ReservationClosed,
				store.BudgetTotals{AgentUsedMicro: 3_000_000, AgentHeldMicro: 4_000_000, UserHeldMicro: 5_000_000}, 0},
			{"late fill after cancel", "ord_a", 5_000_000, false, 0, 5_000_000, models.ReservationClosed,
				store.BudgetTotals{AgentUsedMicro: 5_000_000, AgentHeldMicro: 4_000_000, UserHeldMicro: 5_000_000}, 0},
			{"full fill closes", "ord_b", 4_000_000, false, 0, 4_000_000, models.ReservationClosed,
				store.BudgetTotals{AgentUsedMicro: 9_000_000, AgentHeldMicro: 0, UserHeldMicro: 1_000_000}, 0},
			{"unknown ref", "ord_zz", 1, false, 0, 0, "", store.BudgetTotals{}, errs.NotFound},
			{"negative fill", "ord_b", -1, false, 0, 0, "", store.BudgetTotals{}, errs.Invalid},
		}
		for _, st := range steps {
			r, err := s.SettleBudgetReservation(ctx, st.ref, st.filled, st.terminal)
			if st.wantErrorKind != 0 {
				assert.Equal(t, st.wantErrorKind, errs.KindOf(err), st.name)
				continue
			}
			require.NoError(t, err, st.name)
			assert.Equal(t, []any{st.wantHeld, st.wantUsed, st.wantStatus}, []any{r.HeldMicro, r.UsedMicro, r.Status}, st.name)
			stored, err := s.BudgetReservationByRef(ctx, st.ref)
			require.NoError(t, err)
			assert.Equal(t, *r, *stored, st.name)
			assert.Equal(t, st.wantA1Totals, totals(a1), st.name)
		}
		assert.Equal(t, store.BudgetTotals{AgentHeldMicro: 7_000_000, UserHeldMicro: 7_000_000}, totals(a3))
	})
}

func TestWithBudgetLock(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u := mustUser(t, s, "lock@example.com")
		a := mustAgent(t, s, u.ID, "a")
		assert.Equal(t, errs.NotFound, errs.KindOf(s.WithBudgetLock(ctx, "usr_missing", func(*store.Store) error { return nil })))

		// A failing callback rolls its writes back.
		boom := errs.E(errs.Conflict, "boom")
		err := s.WithBudgetLock(ctx, u.ID, func(tx *store.Store) error {
			require.NoError(t, tx.CreateBudgetReservation(ctx, &models.BudgetReservation{Ref: "r1", AgentID: a.ID, UserID: u.ID, AmountMicro: 5}))
			return boom
		})
		assert.Equal(t, boom, err)
		_, err = s.BudgetReservationByRef(ctx, "r1")
		assert.Equal(t, errs.NotFound, errs.KindOf(err))
	})
}

func TestAgentTradeQueries(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		clock := t0
		s.SetClock(func() time.Time { return clock })
		mk := func(agent, side string, filled int64) *models.Order {
			o := &models.Order{AgentID: agent, UserID: "usr_1", WalletID: "wal_1", TokenID: "tok-" + side, Side: side, Type: "GTC",
				PriceMicro: 500_000, SizeMicro: 10_000_000, FilledSizeMicro: filled}
			require.NoError(t, s.CreateOrder(ctx, o))
			return o
		}
		buy := mk("agt_1", "BUY", 10_000_000)
		sell := mk("agt_1", "SELL", 2_000_000)
		mk("agt_1", "BUY", 0)
		other := mk("agt_2", "BUY", 1_000_000)

		total, filled, err := s.OrderCounts(ctx, "agt_1")
		require.NoError(t, err)
		assert.Equal(t, []int64{3, 2}, []int64{total, filled})
		total, filled, err = s.OrderCounts(ctx, "agt_none")
		require.NoError(t, err)
		assert.Equal(t, []int64{0, 0}, []int64{total, filled})

		add := func(o *models.Order, trade string, at time.Time, price, size, fee int64) {
			_, err := s.AddFill(ctx, &models.Fill{OrderID: o.ID, VenueTradeID: trade, PriceMicro: price, SizeMicro: size, FeeMicro: fee, Time: at})
			require.NoError(t, err)
		}
		add(sell, "t3", t0.Add(3*time.Second), 600_000, 2_000_000, 0)
		add(buy, "t1", t0.Add(time.Second), 500_000, 6_000_000, 10)
		add(buy, "t2", t0.Add(2*time.Second), 450_000, 4_000_000, 0)
		add(other, "t9", t0, 500_000, 1_000_000, 0)

		fills, err := s.AgentFills(ctx, "agt_1")
		require.NoError(t, err)
		require.Len(t, fills, 3)
		var trades []string
		for _, f := range fills {
			trades = append(trades, f.VenueTradeID)
		}
		assert.Equal(t, []string{"t1", "t2", "t3"}, trades)
		assert.Equal(t, store.AgentFill{OrderID: buy.ID, TokenID: "tok-BUY", Side: "BUY", PriceMicro: 500_000, SizeMicro: 6_000_000,
			FeeMicro: 10, Time: t0.Add(time.Second), VenueTradeID: "t1"}, fills[0])
		assert.Equal(t, "SELL", fills[2].Side)
	})
}
