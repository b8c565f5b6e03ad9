package dataapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/venue"
)

const wallet = "0x365f0CA36Ae1f641E02fE3B7743673da42A13A70"

func TestClient(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /positions", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("user") != wallet || q.Get("redeemable") != "true" {
			w.WriteHeader(400)
			return
		}
		_, _ = w.Write([]byte(`[{"proxyWallet":"` + wallet + `","asset":"7132","conditionId":"0xabc","size":21.04,"avgPrice":0.56,"initialValue":11.7824,"currentValue":21.04,"cashPnl":9.2576,"percentPnl":78.57,"totalBought":21.04,"realizedPnl":0,"percentRealizedPnl":0,"curPrice":1,"redeemable":true,"mergeable":false,"title":"Bitcoin Up or Down","slug":"btc-updown-5m-1778583600","icon":"","eventId":"61234","eventSlug":"btc-updown-5m-1778583600","outcome":"Up","outcomeIndex":0,"oppositeOutcome":"Down","oppositeAsset":"4833","endDate":"2026-05-12","negativeRisk":false}]`))
	})
	mux.HandleFunc("GET /activity", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("type") != "TRADE,REDEEM" || r.URL.Query().Get("start") != "1778583600" {
			w.WriteHeader(400)
			return
		}
		_, _ = w.Write([]byte(`[{"proxyWallet":"` + wallet + `","timestamp":1778583650,"transactionHash":"0x1","type":"TRADE","conditionId":"0xabc","asset":"7132","side":"BUY","size":21.04,"usdcSize":11.7824,"price":0.56,"outcome":"Up","outcomeIndex":0,"title":"t","slug":"s","eventSlug":"e"},{"proxyWallet":"` + wallet + `","timestamp":1778583950,"type":"REDEEM","conditionId":"0xabc","asset":"","side":"","size":21.04,"usdcSize":21.04,"price":0,"outcome":"","outcomeIndex":999}]`))
	})
	mux.HandleFunc("GET /trades", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("takerOnly") != "false" {
			w.WriteHeader(400)
			return
		}
		_, _ = w.Write([]byte(`[{"proxyWallet":"` + wallet + `","side":"SELL","asset":"7132","conditionId":"0xabc","size":"5","price":"0.61","timestamp":1778583700,"outcome":"Up","outcomeIndex":0,"transactionHash":"0x2"}]`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := New(Config{BaseURL: srv.URL, Timeout: time.Second, Backoff: time.Millisecond})
	ctx := context.Background()
	user := common.HexToAddress(wallet)

	yes := true
	ps, err := c.Positions(ctx, user, PositionsParams{Redeemable: &yes})
	require.NoError(t, err)
	require.Len(t, ps, 1)
	require.True(t, ps[0].Redeemable)
	require.True(t, ps[0].Size.Equal(decimal.RequireFromString("21.04")))
	require.True(t, ps[0].CurPrice.Equal(decimal.NewFromInt(1)))

	as, err := c.Activity(ctx, user, ActivityParams{Types: []string{"TRADE", "REDEEM"}, Start: time.Unix(1778583600, 0)})
	require.NoError(t, err)
	require.Len(t, as, 2)
	require.Equal(t, 999, as[1].OutcomeIndex)
	require.True(t, as[0].UsdcSize.Equal(decimal.RequireFromString("11.7824")))

	ts, err := c.Trades(ctx, user, TradesParams{})
	require.NoError(t, err)
	require.True(t, ts[0].Price.Equal(decimal.RequireFromString("0.61")))

	_, err = c.Positions(ctx, common.Address{}, PositionsParams{})
	require.Equal(t, venue.Invalid, venue.CategoryOf(err))
}

func TestErrors(t *testing.T) {
	mux := http.NewServeMux()
	n := 0
	mux.HandleFunc("GET /positions", func(w http.ResponseWriter, r *http.Request) {
		n++
		w.WriteHeader(503)
	})
	mux.HandleFunc("GET /trades", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3")
		w.WriteHeader(429)
	})
	mux.HandleFunc("GET /activity", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(400)
		_, _ = w.Write([]byte(`{"error":"invalid user"}`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := New(Config{BaseURL: srv.URL, Timeout: time.Second, Retries: 2, Backoff: time.Millisecond})
	user := common.HexToAddress(wallet)
	_, err := c.Positions(context.Background(), user, PositionsParams{})
	require.Equal(t, venue.Unavailable, venue.CategoryOf(err))
	require.Equal(t, 3, n)
	_, err = c.Trades(context.Background(), user, TradesParams{})
	e, ok := venue.As(err)
	require.True(t, ok)
	require.Equal(t, venue.RateLimited, e.Category)
	require.Equal(t, 3, e.RetryAfterSeconds)
	_, err = c.Activity(context.Background(), user, ActivityParams{})
	require.Equal(t, venue.Invalid, venue.CategoryOf(err))
	require.Contains(t, venue.MessageOf(err), "invalid user")
}

// MarketTrades pages /trades back from the newest fill until one older
// than from; WalletTrades pages /activity oldest first until a short page.
func TestPagedTrades(t *testing.T) {
	const n = 1200 // fills, one a second from t0, newest first on /trades
	t0 := int64(1778583600)
	mux := http.NewServeMux()
	pages := 0
	mux.HandleFunc("GET /trades", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("market") != "0xabc" || q.Get("takerOnly") != "true" || q.Get("limit") != "500" {
			w.WriteHeader(400)
			return
		}
		pages++
		off, _ := strconv.Atoi(q.Get("offset"))
		var rows []string
		for i := off; i < min(off+500, n); i++ {
			rows = append(rows, `{"side":"BUY","asset":"7132","conditionId":"0xabc","size":"1","price":"0.5","timestamp":`+strconv.FormatInt(t0+int64(n-1-i), 10)+`}`)
		}
		_, _ = w.Write([]byte("[" + strings.Join(rows, ",") + "]"))
	})
	mux.HandleFunc("GET /activity", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("type") != "TRADE" || q.Get("sortDirection") != "ASC" || q.Get("start") != strconv.FormatInt(t0, 10) {
			w.WriteHeader(400)
			return
		}
		off, _ := strconv.Atoi(q.Get("offset"))
		var rows []string
		for i := off; i < min(off+500, 700); i++ {
			rows = append(rows, `{"type":"TRADE","asset":"7132","side":"SELL","size":2,"price":0.4,"timestamp":`+strconv.FormatInt(t0+int64(i), 10)+`}`)
		}
		_, _ = w.Write([]byte("[" + strings.Join(rows, ",") + "]"))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := New(Config{BaseURL: srv.URL, Timeout: time.Second, Backoff: time.Millisecond})
	ctx := context.Background()

	from, to := time.Unix(t0+300, 0), time.Unix(t0+1000, 0)
	ts, since, err := c.MarketTrades(ctx, "0xabc", from, to)
	require.NoError(t, err)
	require.Len(t, ts, 701, "fills from t0+300 to t0+1000")
	require.Equal(t, t0+1000, ts[0].Timestamp)
	require.True(t, since.Equal(from))
	require.Equal(t, 2, pages, "stops at the page that reaches before from")

	as, complete, err := c.WalletTrades(ctx, common.HexToAddress(wallet), time.Unix(t0, 0), time.Unix(t0+5000, 0))
	require.NoError(t, err)
	require.True(t, complete)
	require.Len(t, as, 700)
	require.Equal(t, t0, as[0].Timestamp)
}
