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

func TestCopyWatermarkOnlyMovesForward(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		const target = "0x00000000000000000000000000000000000000A1"
		_, _, ok, err := s.CopyWatermark(ctx, target)
		require.NoError(t, err)
		assert.False(t, ok)
		for _, step := range []struct {
			block uint64
			index int64
			wantB uint64
			wantI int64
			why   string
		}{
			{10, 3, 10, 3, "first"},
			{10, 5, 10, 5, "a later log of the block"},
			{10, 4, 10, 5, "an earlier log does not move it back"},
			{10, -1, 10, -1, "the whole block"},
			{10, 7, 10, -1, "a log of a block already whole does not reopen it"},
			{9, -1, 10, -1, "an earlier block does not move it back"},
			{12, 0, 12, 0, "a later block"},
		} {
			require.NoError(t, s.SaveCopyWatermark(ctx, target, step.block, step.index))
			b, i, ok, err := s.CopyWatermark(ctx, target)
			require.NoError(t, err)
			require.True(t, ok)
			assert.Equal(t, [2]int64{int64(step.wantB), step.wantI}, [2]int64{int64(b), i}, step.why)
		}
	})
}

func TestCopyTradesAreClaimedOnce(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u := &models.User{Email: models.NewID("u") + "@example.com", PasswordHash: "x"}
		require.NoError(t, s.CreateUser(ctx, u))
		st := &models.Strategy{ID: models.NewID(models.PrefixStrategy), AgentID: "agt_1", UserID: u.ID, Type: "COPY_TRADE", Config: "{}",
			Status: "ACTIVE", MaxBudgetMicro: 1}
		require.NoError(t, s.CreateStrategy(ctx, st))
		require.NoError(t, s.CreateCopyFollow(ctx, &models.CopyFollow{StrategyID: st.ID, Target: "0xA1", FromBlock: 5}))
		ids, err := s.CopyFollowers(ctx, "0xA1", 4)
		require.NoError(t, err)
		assert.Empty(t, ids, "a block before the strategy")
		ids, err = s.CopyFollowers(ctx, "0xA1", 5)
		require.NoError(t, err)
		assert.Equal(t, []string{st.ID}, ids)
		fs, err := s.CopyFollows(ctx, "ACTIVE", "PAUSED", "ERROR")
		require.NoError(t, err)
		require.Len(t, fs, 1)
		assert.Equal(t, "0xA1", fs[0].Target)
		fs, err = s.CopyFollows(ctx, "CANCELLED")
		require.NoError(t, err)
		assert.Empty(t, fs)
		from, err := s.CopyTargetStart(ctx, "0xA1")
		require.NoError(t, err)
		assert.EqualValues(t, 5, from)

		row := func(tx string, idx int64) models.CopyTrade {
			return models.CopyTrade{StrategyID: st.ID, TxHash: tx, LogIndex: idx, Target: "0xA1", Block: 6, Kind: models.CopyKindTrade}
		}
		require.NoError(t, s.RecordCopyTrades(ctx, []models.CopyTrade{row("0xb", 1), row("0xa", 2)}))
		require.NoError(t, s.RecordCopyTrades(ctx, []models.CopyTrade{row("0xb", 1)}), "recording again is a no-op")
		pending, err := s.StrategiesWithPendingCopies(ctx)
		require.NoError(t, err)
		assert.Equal(t, []string{st.ID}, pending)

		first, err := s.ClaimCopyTrade(ctx, st.ID, 1)
		require.NoError(t, err)
		assert.Equal(t, "0xb", first.TxHash, "chain order: log 1 before log 2")
		again, err := s.ClaimCopyTrade(ctx, st.ID, 1)
		require.NoError(t, err)
		assert.Equal(t, first.ID, again.ID, "a retried execution gets its own claim")
		second, err := s.ClaimCopyTrade(ctx, st.ID, 2)
		require.NoError(t, err)
		assert.Equal(t, "0xa", second.TxHash)
		_, err = s.ClaimCopyTrade(ctx, st.ID, 3)
		assert.True(t, errs.Is(err, errs.NotFound), "nothing left: %v", err)
		more, err := s.CopyTradesPending(ctx, st.ID, 1)
		require.NoError(t, err)
		assert.True(t, more, "execution 2 has not been recorded yet")
		more, err = s.CopyTradesPending(ctx, st.ID, 2)
		require.NoError(t, err)
		assert.False(t, more)
	})
}
