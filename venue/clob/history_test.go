package clob

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPricesHistory: the query the venue documents (market, startTs,
// endTs, fidelity) and its {"history": [{"t", "p"}]} answer, prices exact.
func TestPricesHistory(t *testing.T) {
	var got map[string]string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, "/prices-history", r.URL.Path)
		got = map[string]string{}
		for k := range r.URL.Query() {
			got[k] = r.URL.Query().Get(k)
		}
		_, _ = w.Write([]byte(`{"history":[{"t":1700000000,"p":0.415},{"t":1700000060,"p":"0.42"}]}`))
	}))
	defer srv.Close()
	c := NewClient(Config{BaseURL: srv.URL, ChainID: 80002})
	from := time.Unix(1699999000, 0)
	pts, err := c.PricesHistory(context.Background(), "123", from, from.Add(time.Hour), 0)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"market": "123", "startTs": "1699999000", "endTs": "1700002600", "fidelity": "1"}, got)
	require.Len(t, pts, 2)
	assert.Equal(t, time.Unix(1700000000, 0).UTC(), pts[0].Time)
	assert.Equal(t, "0.415", pts[0].Price.String())
	assert.Equal(t, "0.42", pts[1].Price.String())
}
