package wire

import (
	"encoding/json"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
)

func TestLooseTypes(t *testing.T) {
	var v struct {
		A, B, C, D LooseDecimal
		N, M       LooseInt64
		T, F       LooseBool
	}
	require.NoError(t, json.Unmarshal([]byte(`{"A":0.5,"B":"0.25","C":"","D":null,"N":"17","M":18,"T":"true","F":false}`), &v))
	require.True(t, v.A.Equal(decimal.RequireFromString("0.5")))
	require.True(t, v.B.Equal(decimal.RequireFromString("0.25")))
	require.True(t, v.C.IsZero() && v.D.IsZero())
	require.Equal(t, LooseInt64(17), v.N)
	require.Equal(t, LooseInt64(18), v.M)
	require.True(t, bool(v.T))
	require.False(t, bool(v.F))
	require.Error(t, json.Unmarshal([]byte(`{"A":"abc"}`), &v))
}
