package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

// HeldPositionsOfUser lists the positions with shares of every agent of
// the user, oldest first, and no one else's; a redemption time keeps its
// microseconds (the redemption's idempotency marker).
func TestHeldPositionsOfUser(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		save := func(agent, user, token string, size int64) *models.Position {
			p := &models.Position{AgentID: agent, UserID: user, TokenID: token, ConditionID: "0xc0", SizeMicro: size}
			require.NoError(t, s.SavePosition(ctx, p))
			time.Sleep(2 * time.Millisecond) // distinct creation times
			return p
		}
		a1 := save("agt_a", "usr_1", "tok-1", 1_000_000)
		save("agt_a", "usr_1", "tok-2", 0)
		b1 := save("agt_b", "usr_1", "tok-1", 2_000_000)
		save("agt_c", "usr_2", "tok-1", 3_000_000)
		a3 := save("agt_a", "usr_1", "tok-3", 5)

		got, err := s.HeldPositionsOfUser(ctx, "usr_1")
		require.NoError(t, err)
		var ids []string
		for _, p := range got {
			ids = append(ids, p.ID)
		}
		assert.Equal(t, []string{a1.ID, b1.ID, a3.ID}, ids)
		none, err := s.HeldPositionsOfUser(ctx, "usr_nobody")
		require.NoError(t, err)
		assert.Empty(t, none)

		at := time.Date(2026, 5, 6, 7, 8, 9, 123_456_000, time.UTC)
		b1.RedeemedAt = &at
		require.NoError(t, s.SavePosition(ctx, b1))
		back, err := s.PositionForAgent(ctx, "agt_b", b1.ID)
		require.NoError(t, err)
		require.NotNil(t, back.RedeemedAt)
		assert.True(t, back.RedeemedAt.Equal(at), "got %v", back.RedeemedAt)
	})
}
