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

func TestTokenFills(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		order := func(agent, token, side string, negRisk bool) *models.Order {
			o := &models.Order{
				AgentID: agent, UserID: "usr_1", WalletID: "wal_1", TokenID: token, Side: side, Type: "GTC",
				ConditionID: "0xc0nd" + token, MarketQuestion: "Q " + token, Outcome: "Yes", NegRisk: negRisk,
				PriceMicro: 500_000, SizeMicro: 10 * models.MicroPerUnit,
			}
			require.NoError(t, s.CreateOrder(ctx, o))
			return o
		}
		fill := func(o *models.Order, trade string, at time.Time, price, size, fee int64) *models.Fill {
			f := &models.Fill{OrderID: o.ID, VenueTradeID: trade, PriceMicro: price, SizeMicro: size, FeeMicro: fee, Time: at}
			created, err := s.AddFill(ctx, f)
			require.NoError(t, err)
			require.True(t, created)
			return f
		}
		buy := order("agt_1", "111", "BUY", true)
		sell := order("agt_1", "111", "SELL", true)
		other := order("agt_1", "222", "BUY", false)
		foreign := order("agt_2", "111", "BUY", false)

		// Inserted out of time order; two fills share a timestamp.
		f3 := fill(sell, "t3", t0.Add(2*time.Minute), 600_000, 4_000_000, 10_000)
		f1 := fill(buy, "t1", t0, 400_000, 5_000_000, 0)
		f2a := fill(buy, "t2a", t0.Add(time.Minute), 450_000, 1_000_000, 0)
		f2b := fill(buy, "t2b", t0.Add(time.Minute), 460_000, 2_000_000, 0)
		fill(other, "t4", t0, 300_000, 1_000_000, 0)
		fill(foreign, "t5", t0, 300_000, 1_000_000, 0)

		got, err := s.TokenFills(ctx, "agt_1", "111")
		require.NoError(t, err)
		same := []*models.Fill{f2a, f2b}
		if f2b.ID < f2a.ID {
			same = []*models.Fill{f2b, f2a}
		}
		want := []*models.Fill{f1, same[0], same[1], f3}
		require.Len(t, got, len(want))
		for i, w := range want {
			assert.Equal(t, w.ID, got[i].ID, "position %d", i)
			assert.Equal(t, w.PriceMicro, got[i].PriceMicro)
			assert.Equal(t, w.SizeMicro, got[i].SizeMicro)
			assert.Equal(t, w.FeeMicro, got[i].FeeMicro)
			assert.True(t, w.Time.Equal(got[i].Time), "time %v != %v", w.Time, got[i].Time)
			assert.Equal(t, time.UTC, got[i].Time.Location())
			assert.Equal(t, "0xc0nd111", got[i].ConditionID)
			assert.Equal(t, "Q 111", got[i].Question)
			assert.Equal(t, "Yes", got[i].Outcome)
			assert.True(t, got[i].NegRisk)
		}
		assert.Equal(t, "SELL", got[3].Side)
		assert.Equal(t, sell.ID, got[3].OrderID)
		assert.Equal(t, "t3", got[3].VenueTradeID)
		assert.Equal(t, "BUY", got[0].Side)

		none, err := s.TokenFills(ctx, "agt_1", "999")
		require.NoError(t, err)
		assert.Empty(t, none)

		tokens, err := s.FilledTokens(ctx, "agt_1")
		require.NoError(t, err)
		assert.Equal(t, []string{"111", "222"}, tokens)
		order("agt_3", "333", "BUY", false) // an order without fills holds no position
		tokens, err = s.FilledTokens(ctx, "agt_3")
		require.NoError(t, err)
		assert.Empty(t, tokens)
	})
}

func TestLockPositionByToken(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		_, err := s.LockPositionByToken(ctx, "agt_1", "111")
		assert.Equal(t, errs.NotFound, errs.KindOf(err))
		p := &models.Position{AgentID: "agt_1", UserID: "usr_1", TokenID: "111", SizeMicro: 5}
		require.NoError(t, s.SavePosition(ctx, p))

		got, err := s.LockPositionByToken(ctx, "agt_1", "111")
		require.NoError(t, err)
		assert.Equal(t, p.ID, got.ID)
		if s.Dialect() != store.Postgres {
			return // SQLite runs one writer at a time anyway
		}
		// A writer outside the lock waits for the locking transaction.
		locked, release := make(chan struct{}), make(chan struct{})
		txErr := make(chan error, 1)
		go func() {
			txErr <- s.Tx(ctx, func(tx *store.Store) error {
				if _, err := tx.LockPositionByToken(ctx, "agt_1", "111"); err != nil {
					close(locked)
					return err
				}
				close(locked)
				<-release
				return nil
			})
		}()
		<-locked
		written := make(chan error, 1)
		go func() {
			q := *got
			q.SizeMicro = 7
			written <- s.SavePosition(ctx, &q)
		}()
		select {
		case err := <-written:
			t.Fatalf("write went through a locked position: %v", err)
		case <-time.After(300 * time.Millisecond):
		}
		close(release)
		require.NoError(t, <-txErr)
		require.NoError(t, <-written)
		after, err := s.PositionByToken(ctx, "agt_1", "111")
		require.NoError(t, err)
		assert.Equal(t, int64(7), after.SizeMicro)
	})
}
