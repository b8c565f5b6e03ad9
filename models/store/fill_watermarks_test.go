package store_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

func TestFillWatermarks(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		s.SetClock(func() time.Time { return t0 })

		_, found, err := s.FillWatermark(ctx, "copy/str_a")
		require.NoError(t, err)
		assert.False(t, found, "nothing saved yet")
		w := s.FillWatermarks()
		b, err := w.Load(ctx, "copy/str_a")
		require.NoError(t, err)
		assert.Zero(t, b, "an unknown key loads as 0, the watcher's 'no watermark'")

		require.NoError(t, w.Save(ctx, "copy/str_a", 100))
		require.NoError(t, w.Save(ctx, "copy/str_b", 7))
		t1 := t0.Add(time.Minute)
		s.SetClock(func() time.Time { return t1 })
		require.NoError(t, w.Save(ctx, "copy/str_a", 250), "a second save replaces the first")

		for key, want := range map[string]uint64{"copy/str_a": 250, "copy/str_b": 7} {
			got, found, err := s.FillWatermark(ctx, key)
			require.NoError(t, err)
			assert.True(t, found, key)
			assert.Equal(t, want, got, key)
		}
		var row models.FillWatermark
		require.NoError(t, s.DB().Where("key = ?", "copy/str_a").Take(&row).Error)
		assert.True(t, row.UpdatedAt.Equal(t1), "updated_at %v, want %v", row.UpdatedAt, t1)

		// The largest block the column holds round-trips; anything larger
		// is refused rather than wrapped into a negative height.
		require.NoError(t, w.Save(ctx, "copy/max", math.MaxInt64))
		got, err := w.Load(ctx, "copy/max")
		require.NoError(t, err)
		assert.Equal(t, uint64(math.MaxInt64), got)
		err = w.Save(ctx, "copy/max", math.MaxInt64+1)
		assert.Equal(t, errs.Invalid, errs.KindOf(err), "err: %v", err)
		got, err = w.Load(ctx, "copy/max")
		require.NoError(t, err)
		assert.Equal(t, uint64(math.MaxInt64), got, "a refused save changes nothing")

		assert.Equal(t, errs.Invalid, errs.KindOf(w.Save(ctx, "", 1)))
		_, err = w.Load(ctx, "")
		assert.Equal(t, errs.Invalid, errs.KindOf(err))
	})
}
