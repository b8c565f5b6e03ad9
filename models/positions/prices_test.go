package positions_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/positions"
	"github.com/agent-trading/ats/models/positions/positionstest"
)

func TestMidpointPrices(t *testing.T) {
	ctx := context.Background()
	now := t0
	src := &positionstest.Midpoints{Mid: map[string]decimal.Decimal{"1": decimal.RequireFromString("0.42"), "2": decimal.RequireFromString("0.9")}}
	mp := &positions.MidpointPrices{Source: src, Now: func() time.Time { return now }}

	got, err := mp.Prices(ctx, []string{"1", "2", "1", "404"}, false)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"1": "0.42", "2": "0.9"}, strs(got), "unknown tokens are left out")
	assert.Equal(t, 3, src.Calls, "duplicates looked up once")

	src.Mid["1"] = decimal.RequireFromString("0.5")
	got, err = mp.Prices(ctx, []string{"1", "404"}, false)
	require.NoError(t, err)
	assert.Equal(t, "0.42", got["1"].String(), "cached, the unknown token too")
	assert.Equal(t, 3, src.Calls)

	got, err = mp.Prices(ctx, []string{"1"}, true)
	require.NoError(t, err)
	assert.Equal(t, "0.5", got["1"].String(), "fresh bypasses the cache")
	assert.Equal(t, 4, src.Calls)

	src.Mid["2"] = decimal.RequireFromString("0.1")
	now = now.Add(positions.DefaultPriceTTL)
	got, err = mp.Prices(ctx, []string{"2"}, false)
	require.NoError(t, err)
	assert.Equal(t, "0.1", got["2"].String(), "expired")

	src.Mid["3"] = decimal.RequireFromString("1.5")
	_, err = mp.Prices(ctx, []string{"3"}, false)
	assert.Equal(t, errs.Transient, errs.KindOf(err), "an out-of-range price is refused")

	src.Err = errors.New("boom")
	_, err = mp.Prices(ctx, []string{"9"}, false)
	assert.EqualError(t, err, "boom", "other failures fail the lookup (and are not cached)")
	src.Err = nil
	_, err = mp.Prices(ctx, []string{"9"}, false)
	require.NoError(t, err)

	off := &positions.MidpointPrices{Source: src, TTL: -1}
	n := src.Calls
	_, err = off.Prices(ctx, []string{"1"}, false)
	require.NoError(t, err)
	_, err = off.Prices(ctx, []string{"1"}, false)
	require.NoError(t, err)
	assert.Equal(t, n+2, src.Calls, "a negative TTL disables the cache")
}

func strs(m map[string]decimal.Decimal) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v.String()
	}
	return out
}
