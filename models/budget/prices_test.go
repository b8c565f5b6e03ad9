package budget_test

import (
	"context"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"

	"github.com/agent-trading/ats/models/budget"
	"github.com/agent-trading/ats/models/errs"
)

// mids is a fake Midpointer counting calls.
type mids struct {
	m     map[string]string
	err   map[string]error
	calls map[string]int
}

func (f *mids) Midpoint(_ context.Context, id string) (decimal.Decimal, error) {
	f.calls[id]++
	if err := f.err[id]; err != nil {
		return decimal.Zero, err
	}
	return decimal.RequireFromString(f.m[id]), nil
}

func TestMidpointPrices(t *testing.T) {
	tests := []struct {
		name     string
		m        map[string]string
		err      map[string]error
		ids      []string
		want     map[string]int64
		wantKind errs.Kind
	}{
		{"prices", map[string]string{"a": "0.555", "b": "0.0000019"}, nil, []string{"a", "b", "a"}, map[string]int64{"a": 555_000, "b": 1}, 0},
		{"unknown token left out", map[string]string{"a": "0.5"}, map[string]error{"gone": errs.E(errs.NotFound, "no book")},
			[]string{"a", "gone"}, map[string]int64{"a": 500_000}, 0},
		{"venue down", nil, map[string]error{"a": errs.E(errs.Transient, "venue down")}, []string{"a"}, nil, errs.Transient},
		{"bogus price", map[string]string{"a": "1.5"}, nil, []string{"a"}, nil, errs.Transient},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &mids{m: tc.m, err: tc.err, calls: map[string]int{}}
			got, err := budget.MidpointPrices{Source: f}.Prices(context.Background(), tc.ids)
			if tc.wantKind != 0 {
				assert.Equal(t, tc.wantKind, errs.KindOf(err))
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tc.want, got)
			for id, n := range f.calls {
				assert.Equal(t, 1, n, "token %s looked up once", id)
			}
		})
	}
}
