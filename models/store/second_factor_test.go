package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

// TestSecondFactorTurns: attempts are counted before they are checked;
// the Free-th locks at once, a locked account counts nothing more, a
// refund takes back exactly its attempt and lock, the window and the lock
// run out on the store's clock, and a clear forgets everything. Twenty
// concurrent takers get exactly Free turns.
func TestSecondFactorTurns(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
		var mu sync.Mutex
		s.SetClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
		advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
		u := &models.User{Email: "turns@example.com", PasswordHash: "h"}
		require.NoError(t, s.CreateUser(ctx, u))
		p := store.SecondFactorPolicy{Window: time.Hour, Free: 3, Lock: func(n int64) time.Duration { return time.Duration(n) * time.Minute }}

		for i := int64(1); i <= 2; i++ {
			turn, err := s.TakeSecondFactorTurn(ctx, u.ID, p)
			require.NoError(t, err)
			require.True(t, turn.Allowed())
			assert.Equal(t, i, turn.N)
		}
		third, err := s.TakeSecondFactorTurn(ctx, u.ID, p)
		require.NoError(t, err)
		require.True(t, third.Allowed(), "the third is checked, and locks before it is")
		refused, err := s.TakeSecondFactorTurn(ctx, u.ID, p)
		require.NoError(t, err)
		assert.False(t, refused.Allowed())
		assert.Equal(t, 3*time.Minute, refused.Wait)

		require.NoError(t, s.RefundSecondFactorTurn(ctx, third))
		row, err := s.SecondFactorFailures(ctx, u.ID)
		require.NoError(t, err)
		assert.Equal(t, int64(2), row.Failures)
		assert.Nil(t, row.LockedUntil, "the refunded attempt's lock is gone")
		require.NoError(t, s.RefundSecondFactorTurn(ctx, refused), "a refused turn has nothing to refund")

		third, err = s.TakeSecondFactorTurn(ctx, u.ID, p)
		require.NoError(t, err)
		require.True(t, third.Allowed())
		advance(3 * time.Minute)
		fourth, err := s.TakeSecondFactorTurn(ctx, u.ID, p)
		require.NoError(t, err)
		require.True(t, fourth.Allowed(), "the lock ran out")
		assert.Equal(t, int64(4), fourth.N)
		// A refund of an older turn leaves the newer lock alone.
		require.NoError(t, s.RefundSecondFactorTurn(ctx, third))
		row, err = s.SecondFactorFailures(ctx, u.ID)
		require.NoError(t, err)
		require.NotNil(t, row.LockedUntil)
		assert.True(t, row.LockedUntil.Equal(now.Add(4*time.Minute)), "locked until %v", row.LockedUntil)

		advance(time.Hour)
		turn, err := s.TakeSecondFactorTurn(ctx, u.ID, p)
		require.NoError(t, err)
		assert.Equal(t, int64(1), turn.N, "a new window")
		require.NoError(t, s.ClearSecondFactorFailures(ctx, u.ID))
		row, err = s.SecondFactorFailures(ctx, u.ID)
		require.NoError(t, err)
		assert.Zero(t, row.Failures)

		var (
			wg      sync.WaitGroup
			allowed int
		)
		for range 20 {
			wg.Go(func() {
				turn, err := s.TakeSecondFactorTurn(ctx, u.ID, p)
				assert.NoError(t, err)
				if turn.Allowed() {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		assert.Equal(t, 3, allowed, "concurrent takers never overshoot")
	})
}
