package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/sandbox/exchange"
	"github.com/agent-trading/ats/sandbox/markets"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/network"
)

type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func newServer(t *testing.T) (*Server, *fakeClock) {
	t.Helper()
	clk := &fakeClock{now: time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC)}
	n := network.Sandbox("http://sandbox.test")
	v, err := markets.New(markets.Config{Chain: markets.NewMemChain(1), Network: n, Seed: 1, Ordinary: 3, DisableUpDown: true, Clock: clk.Now})
	require.NoError(t, err)
	require.NoError(t, v.Start(context.Background()))
	return New(Config{Venue: v, Network: n, Clock: clk.Now}), clk
}

func serve(s *Server, method, path string, h http.Header, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	for k, v := range h {
		req.Header[k] = v
	}
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, req)
	return w
}

func TestCursorPagination(t *testing.T) {
	items := make([]int, 250)
	for i := range items {
		items[i] = i
	}
	cursor := firstCursor
	var seen []int
	for cursor != endCursor {
		env, err := page(items, cursor, 100)
		require.NoError(t, err)
		seen = append(seen, env["data"].([]int)...)
		cursor = env["next_cursor"].(string)
	}
	assert.Equal(t, items, seen)
	env, err := page(items, endCursor, 100)
	require.NoError(t, err)
	assert.Empty(t, env["data"])
	_, err = page(items, "not base64!", 100)
	assert.Error(t, err)
}

func TestHeartbeatLapseCancelsOrders(t *testing.T) {
	s, clk := newServer(t)
	key, _ := crypto.GenerateKey()
	addr := crypto.PubkeyToAddress(key.PublicKey)
	h, err := clob.L1Headers(context.Background(), clob.NewKeySigner(key), s.cfg.Network.ChainID, clk.Now().Unix(), 0)
	require.NoError(t, err)
	w := serve(s, "POST", "/clob/auth/api-key", h, nil)
	require.Equal(t, 200, w.Code, w.Body.String())
	var c struct{ APIKey, Secret, Passphrase string }
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &c))
	creds := clob.Creds{Key: c.APIKey, Secret: c.Secret, Passphrase: c.Passphrase}
	l2 := func(method, path string, body []byte) *httptest.ResponseRecorder {
		h, err := clob.L2Headers(creds, addr, clk.Now().Unix(), method, path, body)
		require.NoError(t, err)
		return serve(s, method, "/clob"+path, h, body)
	}

	// Rest an order from a funded wallet (owned by this key).
	m := s.v.Markets()[0]
	ch := s.v.Chain().(*markets.MemChain)
	ch.Credit(addr, "", 1_000_000_000)
	ch.Approve(addr, 1<<62, true)
	o, err := s.v.SignedOrder(key, m, m.TokenIDs[0], 0, 20_000, 10_000_000, "GTC", creds.Key)
	require.NoError(t, err)
	body, err := json.Marshal(clob.PostOrderRequest{Order: o.Signed.(clob.Order), Owner: creds.Key, OrderType: clob.GTC})
	require.NoError(t, err)
	w = l2("POST", "/order", body)
	require.Equal(t, 200, w.Code, w.Body.String())

	w = l2("POST", "/v1/heartbeats", []byte(`{"heartbeat_id":""}`))
	require.Equal(t, 200, w.Code, w.Body.String())
	var hb map[string]string
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &hb))
	require.NotEmpty(t, hb["heartbeat_id"])
	w = l2("POST", "/v1/heartbeats", []byte(`{"heartbeat_id":"wrong"}`))
	assert.Equal(t, 400, w.Code)

	clk.Add(5 * time.Second)
	s.SweepHeartbeats()
	assert.Len(t, s.e.Orders(orderFilterLive(creds.Key)), 1, "still within the window")
	clk.Add(6 * time.Second)
	s.SweepHeartbeats()
	assert.Empty(t, s.e.Orders(orderFilterLive(creds.Key)), "lapsed heartbeat cancels")

	// Batch limit.
	var batch []json.RawMessage
	for range 16 {
		batch = append(batch, body)
	}
	bb, _ := json.Marshal(batch)
	w = l2("POST", "/orders", bb)
	assert.Equal(t, 400, w.Code)
	assert.JSONEq(t, `{"error":"Too many orders in payload: 16, max allowed: 15"}`, w.Body.String())
	// A batch reports per-order errors inside a 200.
	bb, _ = json.Marshal([]json.RawMessage{body})
	w = l2("POST", "/orders", bb)
	require.Equal(t, 200, w.Code)
	var res []clob.OrderResponse
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &res))
	require.Len(t, res, 1)
	assert.False(t, res[0].Success)
	assert.Contains(t, res[0].ErrorMsg, "Duplicated.")

	w = l2("GET", "/balance-allowance", nil)
	assert.Equal(t, 400, w.Code, "asset_type is required")
	h2, _ := clob.L2Headers(creds, addr, clk.Now().Unix(), "GET", "/balance-allowance", nil)
	w = serve(s, "GET", "/clob/balance-allowance?asset_type=COLLATERAL&signature_type=0", h2, nil)
	require.Equal(t, 200, w.Code, w.Body.String())
	var ba struct {
		Balance    string
		Allowances map[string]string
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &ba))
	assert.Equal(t, strconv.Itoa(1_000_000_000), ba.Balance)
	assert.Contains(t, ba.Allowances, s.cfg.Network.Exchange.Hex())
}

func TestRPCWithoutChainIsUnavailable(t *testing.T) {
	s, _ := newServer(t)
	w := serve(s, "POST", "/rpc", nil, []byte(`{}`))
	assert.Equal(t, 503, w.Code)
	w = serve(s, "GET", "/clob/nope", nil, nil)
	assert.Equal(t, 404, w.Code)
}

func orderFilterLive(owner string) exchange.OrderFilter {
	return exchange.OrderFilter{Owner: owner, LiveOnly: true}
}

func TestPricesHistory(t *testing.T) {
	s, clk := newServer(t)
	m := s.v.Markets()[0]
	for range 5 {
		clk.Add(time.Minute)
		_, err := s.v.SetPrice(context.Background(), m.TokenIDs[0], 300_000)
		require.NoError(t, err)
		require.NoError(t, s.v.Tick(context.Background()))
	}
	w := serve(s, "GET", "/clob/prices-history?market="+m.TokenIDs[1]+"&interval=1d&fidelity=1", nil, nil)
	require.Equal(t, 200, w.Code, w.Body.String())
	var h struct {
		History []struct {
			T int64
			P float64
		}
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &h))
	require.Len(t, h.History, 6)
	assert.InDelta(t, 0.7, h.History[5].P, 0.0101, "the other outcome at 1 - p (give or take one walk step)")
	w = serve(s, "GET", "/clob/prices-history?market=42", nil, nil)
	assert.Equal(t, 400, w.Code)
}

// POST /control/markets/{tokenId}/history records a past price path that
// /prices-history then serves (one point per fidelity bucket, the first);
// the span is interval or both timestamps, as on the venue.
func TestControlHistory(t *testing.T) {
	s, clk := newServer(t)
	m := s.v.Markets()[0]
	start := clk.Now().Add(-10 * time.Minute).Truncate(time.Minute)
	body := `{"points":[`
	for i, p := range []string{"0.50", "0.45", "0.40", "0.38", "0.42"} {
		if i > 0 {
			body += ","
		}
		body += `{"time":"` + start.Add(time.Duration(i)*time.Minute).Format(time.RFC3339) + `","price":` + p + `}`
	}
	body += `]}`
	w := serve(s, "POST", "/control/markets/"+m.TokenIDs[0]+"/history", nil, []byte(body))
	require.Equal(t, 200, w.Code, w.Body.String())

	span := "&startTs=" + strconv.FormatInt(start.Unix(), 10) + "&endTs=" + strconv.FormatInt(start.Add(5*time.Minute).Unix(), 10)
	var h struct {
		History []struct {
			T int64
			P float64
		}
	}
	w = serve(s, "GET", "/clob/prices-history?market="+m.TokenIDs[0]+span+"&fidelity=1", nil, nil)
	require.Equal(t, 200, w.Code, w.Body.String())
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &h))
	require.Len(t, h.History, 5)
	assert.Equal(t, start.Add(3*time.Minute).Unix(), h.History[3].T)
	assert.Equal(t, 0.38, h.History[3].P)
	w = serve(s, "GET", "/clob/prices-history?market="+m.TokenIDs[1]+span+"&fidelity=2", nil, nil)
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &h))
	require.Len(t, h.History, 3, "one point per two-minute bucket")
	assert.InDelta(t, 0.60, h.History[1].P, 1e-9, "the other outcome at 1 - p")

	for _, bad := range []string{
		`{"points":[{"time":"` + clk.Now().Add(time.Hour).Format(time.RFC3339) + `","price":0.5}]}`,
		`{"points":[{"time":"` + start.Format(time.RFC3339) + `","price":1.2}]}`,
		`{"points":[]}`,
	} {
		w = serve(s, "POST", "/control/markets/"+m.TokenIDs[0]+"/history", nil, []byte(bad))
		assert.Equal(t, 400, w.Code, bad)
	}
	w = serve(s, "GET", "/clob/prices-history?market="+m.TokenIDs[0]+"&startTs=1", nil, nil)
	assert.Equal(t, 400, w.Code, "startTs without endTs")
}

// The Data API's /activity and /trades bound fills by start/end (unix
// seconds), and /activity sorts oldest first on sortDirection=ASC.
func TestDataWindow(t *testing.T) {
	s, clk := newServer(t)
	ctx := context.Background()
	m := s.v.Markets()[0]
	w := s.v.Chain().(*markets.MemChain).OutsideWallets()[0]
	var at []int64
	for range 3 {
		_, err := s.v.OutsideTrade(ctx, w, m.TokenIDs[0], exchange.Buy, 990_000, 5*exchange.One)
		require.NoError(t, err)
		at = append(at, clk.Now().Unix())
		clk.Add(time.Minute)
	}
	user := "user=" + crypto.PubkeyToAddress(w.PublicKey).Hex()
	var rows []struct {
		Timestamp int64 `json:"timestamp"`
	}
	get := func(path string) {
		t.Helper()
		r := serve(s, "GET", path, nil, nil)
		require.Equal(t, 200, r.Code, r.Body.String())
		rows = nil
		require.NoError(t, json.Unmarshal(r.Body.Bytes(), &rows))
	}
	get("/data-api/activity?" + user)
	require.Len(t, rows, 3)
	assert.Equal(t, at[2], rows[0].Timestamp, "newest first")
	get("/data-api/activity?" + user + "&start=" + strconv.FormatInt(at[1], 10) + "&sortDirection=ASC")
	require.Len(t, rows, 2)
	assert.Equal(t, at[1], rows[0].Timestamp)
	get("/data-api/trades?market=" + m.ConditionID + "&end=" + strconv.FormatInt(at[0], 10))
	require.Len(t, rows, 1)
	r := serve(s, "GET", "/data-api/activity?"+user+"&start=soon", nil, nil)
	assert.Equal(t, 400, r.Code)
}
