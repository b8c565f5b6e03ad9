package positions_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/positions"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

// TestCloseIdempotencyKeyExpires: a close's Idempotency-Key binds its
// order for store.IdempotencyRetention only. Within it the key used for
// another position is a Conflict; from then on it closes the other
// position (and binds the new order, so a retry does not sell twice).
func TestCloseIdempotencyKeyExpires(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		e := newEnv(t, st)
		st.SetClock(e.now) // fills are ordered by time: the clock moves between trades
		p := e.principal(t)
		e.buy(t, p, "101", "0.40", "10")
		e.buy(t, p, "201", "0.40", "10")
		e.advance(time.Second)
		e.venue.SetBids("101", [2]string{"0.50", "100"})
		e.venue.SetBids("201", [2]string{"0.50", "100"})
		first, err := e.close(ctx, p, e.position(t, p, "101").ID, positions.CloseRequest{IdempotencyKey: "k"})
		require.NoError(t, err)
		require.True(t, first.IsClosed)
		other := e.position(t, p, "201").ID

		e.advance(store.IdempotencyRetention / 2)
		_, err = e.close(ctx, p, other, positions.CloseRequest{IdempotencyKey: "k"})
		assert.Equal(t, errs.Conflict, errs.KindOf(err), "within 24 h: %v", err)
		assert.Equal(t, "idempotency_key_reused", errs.CodeOf(err))

		e.advance(store.IdempotencyRetention / 2)
		second, err := e.close(ctx, p, other, positions.CloseRequest{IdempotencyKey: "k"})
		require.NoError(t, err, "after 24 h the key is free")
		assert.NotEqual(t, first.Order.ID, second.Order.ID)
		assert.True(t, second.IsClosed)
		n := len(e.placer.Requests())
		again, err := e.close(ctx, p, other, positions.CloseRequest{IdempotencyKey: "k"})
		require.NoError(t, err)
		assert.Equal(t, second.Order.ID, again.Order.ID)
		assert.Len(t, e.placer.Requests(), n, "not sold twice")
	})
}
