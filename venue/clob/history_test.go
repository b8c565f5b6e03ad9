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

// PricesHistoryFinest asks for one-minute points and, while the venue
// refuses that fidelity for the span, the next coarser one; any other
// refusal is answered at once.
func TestPricesHistoryFinest(t *testing.T) {
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := r.URL.Query().Get("fidelity")
		asked = append(asked, f)
		if r.URL.Query().Get("market") == "9" {
			w.WriteHeader(400)
			_, _ = w.Write([]byte(`{"error":"Invalid market"}`))
			return
		}
		if f == "1" || f == "5" {
			w.WriteHeader(400)
			_, _ = w.Write([]byte(`{"error":"invalid filters: minimum 'fidelity' for '1m' range is 15"}`))
			return
		}
		_, _ = w.Write([]byte(`{"history":[{"t":1700000000,"p":0.415}]}`))
	}))
	defer srv.Close()
	c := NewClient(Config{BaseURL: srv.URL, ChainID: 80002, Retries: 1})
	from := time.Unix(1699999000, 0)
	pts, f, err := c.PricesHistoryFinest(context.Background(), "123", from, from.Add(30*24*time.Hour))
	require.NoError(t, err)
	assert.Equal(t, 15, f)
	assert.Len(t, pts, 1)
	assert.Equal(t, []string{"1", "5", "15"}, asked)
	asked = nil
	_, _, err = c.PricesHistoryFinest(context.Background(), "9", from, from.Add(time.Hour))
	require.Error(t, err)
	assert.Equal(t, []string{"1"}, asked)
}
