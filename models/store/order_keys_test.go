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

// TestOrderIdempotencyKeyRetention: an order holds its idempotency key for
// store.IdempotencyRetention (the unique index refuses a second order under
// it meanwhile); from then on the lookup no longer finds it, a new order
// takes the key over (clearing it from the old one in the same
// transaction), and the housekeeping purge clears the keys of old orders
// nobody reused.
func TestOrderIdempotencyKeyRetention(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		clock := t0
		s.SetClock(func() time.Time { return clock })
		mk := func(agent, key string) (*models.Order, error) {
			o := &models.Order{AgentID: agent, UserID: "usr_1", WalletID: "wal_1", TokenID: "123", Side: "BUY", Type: "GTC",
				PriceMicro: 500_000, SizeMicro: 10 * models.MicroPerUnit, IdempotencyKey: ptr(key)}
			return o, s.CreateOrder(ctx, o)
		}
		key := func(id string) *string {
			o, err := s.OrderByID(ctx, id)
			require.NoError(t, err)
			return o.IdempotencyKey
		}
		reused, err := mk("agt_1", "reused")
		require.NoError(t, err)
		idle, err := mk("agt_1", "idle")
		require.NoError(t, err)
		other, err := mk("agt_2", "reused")
		require.NoError(t, err)

		clock = t0.Add(store.IdempotencyRetention - time.Microsecond)
		_, err = mk("agt_1", "reused")
		assert.Equal(t, errs.Conflict, errs.KindOf(err), "within the retention: %v", err)
		got, err := s.OrderByIdempotencyKey(ctx, "agt_1", "reused")
		require.NoError(t, err)
		assert.Equal(t, reused.ID, got.ID)
		n, err := s.PurgeExpiredIdempotency(ctx, clock)
		require.NoError(t, err)
		assert.Zero(t, n, "nothing is old enough")

		clock = t0.Add(store.IdempotencyRetention)
		_, err = s.OrderByIdempotencyKey(ctx, "agt_1", "reused")
		assert.Equal(t, errs.NotFound, errs.KindOf(err), "an order past the retention holds no key")
		fresh, err := mk("agt_1", "reused")
		require.NoError(t, err, "the key is free again")
		assert.Nil(t, key(reused.ID), "the old order gave the key up")
		assert.Equal(t, "reused", *key(other.ID), "another agent's order is not touched")
		assert.Equal(t, "idle", *key(idle.ID), "nor a key nobody reused, until the purge")
		got, err = s.OrderByIdempotencyKey(ctx, "agt_1", "reused")
		require.NoError(t, err)
		assert.Equal(t, fresh.ID, got.ID)

		n, err = s.PurgeExpiredIdempotency(ctx, clock)
		require.NoError(t, err)
		assert.Equal(t, int64(2), n, "idle and agt_2's order")
		assert.Nil(t, key(idle.ID))
		assert.Nil(t, key(other.ID))
		assert.Equal(t, "reused", *key(fresh.ID), "the new order keeps its key")
		n, err = s.PurgeExpiredIdempotency(ctx, clock)
		require.NoError(t, err)
		assert.Zero(t, n)
	})
}
