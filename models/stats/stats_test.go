package stats_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/stats"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

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

// fill is price and size in micro-units.
type fill struct{ price, size, fee int64 }

type order struct {
	token, side string
	status      string
	fills       []fill
}

func seed(t *testing.T, s *store.Store, agentID string, orders []order) {
	t.Helper()
	ctx := context.Background()
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for i, o := range orders {
		var filled int64
		for _, f := range o.fills {
			filled += f.size
		}
		rec := &models.Order{AgentID: agentID, UserID: "usr_1", WalletID: "wal_1", TokenID: o.token, Side: o.side, Type: "GTC",
			PriceMicro: 500_000, SizeMicro: 100_000_000, FilledSizeMicro: filled, Status: o.status}
		require.NoError(t, s.CreateOrder(ctx, rec))
		for j, f := range o.fills {
			at = at.Add(time.Second)
			_, err := s.AddFill(ctx, &models.Fill{OrderID: rec.ID, VenueTradeID: models.NewID("tr"), PriceMicro: f.price,
				SizeMicro: f.size, FeeMicro: f.fee, Time: at})
			require.NoError(t, err, "order %d fill %d", i, j)
		}
	}
}

func TestForAgent(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		const M = models.MicroPerUnit
		tests := []struct {
			name   string
			orders []order
			prices prices
			want   [5]string // volume, realized, unrealized, winRate, avgTradeSize
			counts [2]int64
		}{
			{name: "no orders", want: [5]string{"0", "0", "0", "0", "0"}},
			{name: "unfilled orders only", orders: []order{{"A", "BUY", models.OrderOpen, nil}, {"A", "BUY", models.OrderFailed, nil}},
				want: [5]string{"0", "0", "0", "0", "0"}, counts: [2]int64{2, 0}},
			{
				// Buy 10 @0.40 and 10 @0.60 (avg 0.50), sell 20 @0.70: +4, win.
				// Buy 10 B @0.50, sell 10 @0.30: -2, loss. Buy 4 C @0.25, price 0.75: unrealized +2.
				name: "round trips and an open holding",
				orders: []order{
					{"A", "BUY", models.OrderFilled, []fill{{400_000, 10 * M, 0}, {600_000, 10 * M, 0}}},
					{"A", "SELL", models.OrderFilled, []fill{{700_000, 20 * M, 0}}},
					{"B", "BUY", models.OrderFilled, []fill{{500_000, 10 * M, 0}}},
					{"B", "SELL", models.OrderFilled, []fill{{300_000, 10 * M, 0}}},
					{"C", "BUY", models.OrderPartiallyFilled, []fill{{250_000, 4 * M, 0}}},
					{"C", "BUY", models.OrderCancelled, nil},
				},
				prices: prices{p: map[string]int64{"C": 750_000}},
				// volume 4+6+14+5+3+1 = 33 over 5 filled orders.
				want:   [5]string{"33", "2", "2", "50", "6.6"},
				counts: [2]int64{6, 5},
			},
			{
				// Partial sell: buy 10 @0.50, sell 4 @0.80 (+1.2), fee 0.1; 6 left, no price: unrealized 0.
				name: "partial sell with fee and no price",
				orders: []order{
					{"A", "BUY", models.OrderFilled, []fill{{500_000, 10 * M, 100_000}}},
					{"A", "SELL", models.OrderFilled, []fill{{800_000, 4 * M, 0}}},
				},
				want:   [5]string{"8.2", "1.1", "0", "0", "4.1"},
				counts: [2]int64{2, 2},
			},
			{
				// Selling shares the agent never bought realizes nothing.
				name:   "sell without basis",
				orders: []order{{"Z", "SELL", models.OrderFilled, []fill{{500_000, 2 * M, 0}}}},
				want:   [5]string{"1", "0", "0", "0", "1"},
				counts: [2]int64{1, 1},
			},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				agent := models.NewID(models.PrefixAgent)
				seed(t, s, agent, tc.orders)
				seed(t, s, "agt_noise", []order{{"A", "BUY", models.OrderFilled, []fill{{900_000, 50 * M, 0}}}})
				got, err := stats.New(s, tc.prices).ForAgent(context.Background(), agent)
				require.NoError(t, err)
				assert.Equal(t, tc.want, [5]string{got.TotalVolume.String(), got.RealizedPnL.String(), got.UnrealizedPnL.String(),
					got.WinRate.String(), got.AvgTradeSize.String()})
				assert.Equal(t, tc.counts, [2]int64{got.TotalOrders, got.FilledOrders})
			})
		}

		t.Run("price outage", func(t *testing.T) {
			agent := models.NewID(models.PrefixAgent)
			seed(t, s, agent, []order{{"A", "BUY", models.OrderFilled, []fill{{500_000, M, 0}}}})
			_, err := stats.New(s, prices{err: errors.New("connection refused")}).ForAgent(context.Background(), agent)
			assert.Equal(t, errs.Transient, errs.KindOf(err))
		})
	})
}

// TestRedemptionsCount: positions that ended by redemption count in
// realizedPnL and winRate (a winner redeemed at 1, a loser at 0), not in
// volume, and the realized series has a point for each.
func TestRedemptionsCount(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		const M = models.MicroPerUnit
		seed(t, s, "agt_1", []order{
			{"WIN", "BUY", models.OrderFilled, []fill{{400_000, 10 * M, 0}}},
			{"LOSE", "BUY", models.OrderFilled, []fill{{300_000, 5 * M, 0}}},
			{"HALF", "BUY", models.OrderFilled, []fill{{500_000, 4 * M, 0}}},
		})
		redeemedAt := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
		for _, p := range []struct {
			token          string
			shares, payout int64
		}{{"WIN", 10 * M, 10 * M}, {"LOSE", 5 * M, 0}, {"HALF", 2 * M, 2 * M}} {
			at := redeemedAt
			require.NoError(t, s.SavePosition(ctx, &models.Position{AgentID: "agt_1", UserID: "usr_1", TokenID: p.token,
				Status: models.PositionSettled, RedeemedSizeMicro: p.shares, PayoutMicro: p.payout, RedeemedAt: &at}))
		}
		got, err := stats.New(s, nil).ForAgent(ctx, "agt_1")
		require.NoError(t, err)
		// WIN: 10 − 4 = 6; LOSE: 0 − 1.5; HALF: 2 of 4 shares at 0.5 pay 2: +1, still open.
		assert.Equal(t, "5.5", got.RealizedPnL.String())
		assert.Equal(t, "50", got.WinRate.String(), "one of the two closed rounds won")
		assert.Equal(t, "7.5", got.TotalVolume.String(), "redemptions are not volume")
		series, err := stats.New(s, nil).RealizedSeries(ctx, "agt_1")
		require.NoError(t, err)
		require.Len(t, series, 6)
		assert.Equal(t, "5.5", series[5].Realized.String())
		assert.Equal(t, redeemedAt, series[5].Time)
	})
}
