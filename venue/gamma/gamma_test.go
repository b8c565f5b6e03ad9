package gamma

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/venue"
)

func fixture(t *testing.T) []byte {
	b, err := os.ReadFile("testdata/market.json")
	require.NoError(t, err)
	return b
}

func TestMarketDecoding(t *testing.T) {
	var m Market
	require.NoError(t, json.Unmarshal(fixture(t), &m))
	require.Equal(t, "540816", m.ID)
	require.Equal(t, []string{"Up", "Down"}, m.Outcomes)
	require.Len(t, m.OutcomePrices, 2)
	require.True(t, m.OutcomePrices[0].Equal(decimal.RequireFromString("0.515")))
	require.Equal(t, "71321045679252212594626385532706912750332728571942532289631379312455583992563", m.ClobTokenIDs[0])
	require.True(t, m.Volume.Equal(decimal.RequireFromString("48211.093411")))
	require.True(t, m.Liquidity.Equal(decimal.RequireFromString("15234.5521")))
	require.True(t, m.TickSize.Equal(decimal.RequireFromString("0.01")))
	require.True(t, m.MinOrderSize.Equal(decimal.NewFromInt(5)))
	require.True(t, m.BestAsk.Equal(decimal.RequireFromString("0.52")))
	require.Equal(t, time.Date(2026, 5, 12, 11, 5, 0, 0, time.UTC), m.EndDate)
	require.Equal(t, time.Date(2026, 5, 12, 11, 0, 0, 0, time.UTC), m.EventStartTime)
	require.True(t, m.AcceptingOrders)
	require.True(t, m.Tradable())
	require.False(t, m.NegRisk)
	require.Equal(t, []Tag{{"21", "Crypto", "crypto"}, {"102127", "Up or Down", "up-or-down"}}, m.Tags)
	require.Equal(t, "btc-updown-5m-1778583600", m.Events[0].Slug)
	tok, ok := m.TokenFor("down")
	require.True(t, ok)
	require.Equal(t, m.ClobTokenIDs[1], tok)
	o, p, ok := m.OutcomeOf(tok)
	require.True(t, ok)
	require.Equal(t, "Down", o)
	require.True(t, p.Equal(decimal.RequireFromString("0.485")))
}

func TestMarketDecodingVariants(t *testing.T) {
	cases := map[string]struct {
		json     string
		outcomes []string
		vol      string
		err      bool
	}{
		"real arrays":      {`{"id":1,"outcomes":["Yes","No"],"outcomePrices":[0.3,"0.7"],"clobTokenIds":["1","2"],"volume":12.5}`, []string{"Yes", "No"}, "12.5", false},
		"empty strings":    {`{"id":"2","outcomes":"","outcomePrices":"","clobTokenIds":null,"volume":""}`, nil, "0", false},
		"volumeNum only":   {`{"id":"3","outcomes":"[\"A\"]","volumeNum":7}`, []string{"A"}, "7", false},
		"bad price":        {`{"id":"4","outcomes":"[\"A\"]","outcomePrices":"[\"x\"]"}`, nil, "", true},
		"bad outcome json": {`{"id":"5","outcomes":"[oops"}`, nil, "", true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var m Market
			err := json.Unmarshal([]byte(c.json), &m)
			if c.err {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.outcomes, m.Outcomes)
			require.True(t, m.Volume.Equal(decimal.RequireFromString(c.vol)), m.Volume.String())
		})
	}
}

func TestClient(t *testing.T) {
	var calls atomic.Int32
	var lastQuery atomic.Value
	fx := fixture(t)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /markets/slug/{slug}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("slug") != "btc-updown-5m-1778583600" {
			w.WriteHeader(404)
			_, _ = w.Write([]byte(`{"type":"not found error","error":"market not found"}`))
			return
		}
		_, _ = w.Write(fx)
	})
	mux.HandleFunc("GET /markets/{id}", func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(502) // retried
			return
		}
		_, _ = w.Write(fx)
	})
	mux.HandleFunc("GET /markets", func(w http.ResponseWriter, r *http.Request) {
		lastQuery.Store(r.URL.RawQuery)
		_, _ = w.Write([]byte("[" + string(fx) + "]"))
	})
	mux.HandleFunc("GET /events/slug/{slug}", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"id":"61234","slug":"` + r.PathValue("slug") + `","title":"T","liquidity":15234.55,"volume":48211.09,"active":true,"markets":[` + string(fx) + `]}`))
	})
	mux.HandleFunc("GET /public-search", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("q") != "bitcoin" {
			w.WriteHeader(400)
			return
		}
		_, _ = w.Write([]byte(`{"events":[{"id":1,"slug":"e","markets":[` + string(fx) + `]}],"tags":[{"id":21,"label":"Crypto","slug":"crypto"}],"pagination":{"hasMore":false}}`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := New(Config{BaseURL: srv.URL, Timeout: time.Second, Backoff: time.Millisecond})
	ctx := context.Background()

	m, err := c.MarketBySlug(ctx, "btc-updown-5m-1778583600")
	require.NoError(t, err)
	require.Equal(t, "540816", m.ID)
	_, err = c.MarketBySlug(ctx, "nope")
	require.Equal(t, venue.NotFound, venue.CategoryOf(err))

	m, err = c.MarketByID(ctx, "540816")
	require.NoError(t, err)
	require.Equal(t, "btc-updown-5m-1778583600", m.Slug)
	require.Equal(t, int32(2), calls.Load())

	closed, asc := false, false
	ms, err := c.Markets(ctx, MarketsParams{Limit: 10, Order: "volumeNum", Ascending: &asc, Closed: &closed, Slugs: []string{"a", "b"},
		VolumeNumMin: decimal.NewFromInt(100), EndDateMax: time.Date(2026, 5, 13, 0, 0, 0, 0, time.UTC)})
	require.NoError(t, err)
	require.Len(t, ms, 1)
	q := lastQuery.Load().(string)
	for _, want := range []string{"limit=10", "order=volumeNum", "ascending=false", "closed=false", "slug=a", "slug=b", "volume_num_min=100", "end_date_max=2026-05-13T00%3A00%3A00Z"} {
		require.True(t, strings.Contains(q, want), "%s missing in %s", want, q)
	}

	e, err := c.EventBySlug(ctx, "btc-updown-5m-1778583600")
	require.NoError(t, err)
	require.Len(t, e.Markets, 1)
	require.True(t, e.Liquidity.Equal(decimal.RequireFromString("15234.55")))

	res, err := c.Search(ctx, "bitcoin", SearchParams{Limit: 5})
	require.NoError(t, err)
	require.Len(t, res.Events, 1)
	require.Equal(t, "21", res.Tags[0].ID)
}
