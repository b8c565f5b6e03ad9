package positions_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/agentauth"
	"github.com/agent-trading/ats/api/idempotency"
	"github.com/agent-trading/ats/api/openapi/openapitest"
	apipositions "github.com/agent-trading/ats/api/positions"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/positions"
	"github.com/agent-trading/ats/models/positions/positionstest"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/workflows"
)

var condA, condB = positionstest.ConditionID("A"), positionstest.ConditionID("B")

type env struct {
	st     *store.Store
	prices *positionstest.Prices
	chain  *positionstest.Chain
	venue  *positionstest.Venue
	placer *positionstest.Placer
	srv    http.Handler
}

func newEnv(t *testing.T, st *store.Store) *env {
	e := &env{st: st, prices: positionstest.NewPrices(nil), chain: positionstest.NewChain(), venue: positionstest.NewVenue()}
	e.venue.AddMarket(condA, "Will A?", clob.Tick001, "101", "102")
	e.venue.AddMarket(condB, "Will B?", clob.Tick001, "201", "202")
	svc := &positions.Service{Store: st, Prices: e.prices, Resolutions: e.chain, Books: e.venue, Markets: e.venue}
	e.placer = &positionstest.Placer{Store: st, Venue: e.venue, Positions: svc}
	e.srv = api.New(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{Routes: []api.Routes{
		apipositions.Routes(apipositions.Deps{Positions: svc, Closer: &workflows.PositionDesk{Positions: svc, Orders: e.placer}}, idempotency.Middleware(st, idempotency.Options{}),
			agentauth.Middleware(st, nil)),
	}})
	return e
}

type agent struct {
	key string
	p   orders.Principal
}

func (e *env) newAgent(t *testing.T, scopes string) agent {
	t.Helper()
	ctx := context.Background()
	u := &models.User{Email: models.NewID("u") + "@example.com"}
	require.NoError(t, e.st.CreateUser(ctx, u))
	plain, hash, prefix := secret.NewAPIKey()
	a := &models.Agent{UserID: u.ID, Name: "bot", Scopes: scopes}
	require.NoError(t, e.st.CreateAgentWithKey(ctx, a, &models.APIKey{Hash: hash, DisplayPrefix: prefix}))
	return agent{key: plain, p: orders.Principal{AgentID: a.ID, UserID: u.ID}}
}

func (e *env) buy(t *testing.T, a agent, token, price, size string) string {
	t.Helper()
	_, err := e.placer.Place(context.Background(), a.p, orders.PlaceRequest{TokenID: token, Side: "BUY", Type: "LIMIT",
		Price: decimal.RequireFromString(price), Size: decimal.RequireFromString(size)})
	require.NoError(t, err)
	pos, err := e.st.PositionByToken(context.Background(), a.p.AgentID, token)
	require.NoError(t, err)
	return pos.ID
}

type response struct {
	status  int
	header  http.Header
	body    map[string]json.RawMessage
	rawBody string
}

func (e *env) do(t *testing.T, method, key, path, body string, headers ...string) response {
	t.Helper()
	var req *http.Request
	if body == "" {
		req = httptest.NewRequest(method, "/api/agent/v1"+path, nil)
	} else {
		req = httptest.NewRequest(method, "/api/agent/v1"+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	openapitest.Handler(t, e.srv).ServeHTTP(rec, req)
	var out map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out), rec.Body.String())
	return response{status: rec.Code, header: rec.Header(), body: out, rawBody: rec.Body.String()}
}

func TestListPositions(t *testing.T) {
	e := newEnv(t, storetest.NewSQLite(t))
	a := e.newAgent(t, "read trade")
	posA := e.buy(t, a, "101", "0.40", "10")
	posB := e.buy(t, a, "202", "0.25", "8")
	e.prices.Set("101", "0.55")
	e.prices.Set("202", "0.3")
	e.chain.Resolve(condB, 0, 1) // B resolves No: 202 pays 1
	noRead := e.newAgent(t, "trade")
	empty := e.newAgent(t, "read")

	itemA := `{"id":"` + posA + `","tokenId":"101","status":"open","mode":"live","market":{"question":"Will A?","outcome":"Yes"},
		"size":10,"avgEntryPrice":0.4,"currentPrice":0.55,"currentValue":5.5,"pnl":{"unrealized":1.5,"unrealizedPercent":37.5}}`
	itemB := `{"id":"` + posB + `","tokenId":"202","status":"redeemable","mode":"live","market":{"question":"Will B?","outcome":"No"},
		"size":8,"avgEntryPrice":0.25,"currentPrice":1,"currentValue":8,"pnl":{"unrealized":6,"unrealizedPercent":300}}`
	tests := []struct {
		name, key, query string
		status           int
		data             string
		code             string
	}{
		{name: "open by default", key: a.key, status: 200,
			data: `{"positions":[` + itemA + `],"summary":{"totalPositions":1,"totalUnrealizedPnl":1.5,"totalValue":5.5}}`},
		{name: "redeemable", key: a.key, query: "?status=redeemable", status: 200,
			data: `{"positions":[` + itemB + `],"summary":{"totalPositions":1,"totalUnrealizedPnl":6,"totalValue":8}}`},
		{name: "all from the clob", key: a.key, query: "?status=all&source=clob", status: 200,
			data: `{"positions":[` + itemA + `,` + itemB + `],"summary":{"totalPositions":2,"totalUnrealizedPnl":7.5,"totalValue":13.5}}`},
		{name: "settled is empty", key: a.key, query: "?status=settled", status: 200,
			data: `{"positions":[],"summary":{"totalPositions":0,"totalUnrealizedPnl":0,"totalValue":0}}`},
		{name: "no positions", key: empty.key, status: 200,
			data: `{"positions":[],"summary":{"totalPositions":0,"totalUnrealizedPnl":0,"totalValue":0}}`},
		{name: "bad status", key: a.key, query: "?status=closed", status: 400, code: "invalid_status"},
		{name: "bad source", key: a.key, query: "?source=gamma", status: 400, code: "invalid_query"},
		{name: "no read scope", key: noRead.key, status: 403, code: "insufficient_scope"},
		{name: "no key", status: 401, code: "missing_api_key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(t, http.MethodGet, tt.key, "/positions"+tt.query, "")
			require.Equal(t, tt.status, r.status, r.rawBody)
			if tt.status == 200 {
				assert.JSONEq(t, `true`, string(r.body["success"]))
				assert.JSONEq(t, tt.data, string(r.body["data"]))
				return
			}
			assert.JSONEq(t, `false`, string(r.body["success"]))
			assert.JSONEq(t, `"`+tt.code+`"`, string(r.body["code"]))
		})
	}
	e.do(t, http.MethodGet, a.key, "/positions", "")
	_, fresh := e.prices.Calls()
	assert.False(t, fresh, "a plain listing may use cached prices")
	e.do(t, http.MethodGet, a.key, "/positions?source=CLOB", "")
	_, fresh = e.prices.Calls()
	assert.True(t, fresh, "source=clob bypasses the price cache")
}

func TestClosePosition(t *testing.T) {
	e := newEnv(t, storetest.NewSQLite(t))
	a := e.newAgent(t, "read trade")
	readOnly := e.newAgent(t, "read")

	t.Run("market close without a body", func(t *testing.T) {
		id := e.buy(t, a, "101", "0.40", "10")
		e.venue.SetBids("101", [2]string{"0.50", "10"}, [2]string{"0.55", "4"})
		r := e.do(t, http.MethodPost, a.key, "/positions/"+id+"/close", "")
		require.Equal(t, 200, r.status, r.rawBody)
		assert.JSONEq(t, `"Position closed"`, string(r.body["message"]))
		var data struct {
			Order struct {
				ID string `json:"id"`
			} `json:"order"`
		}
		require.NoError(t, json.Unmarshal(r.body["data"], &data))
		assert.JSONEq(t, `{"order":{"id":"`+data.Order.ID+`","status":"FILLED","side":"SELL","filledSize":10,"avgFillPrice":0.52},
			"position":{"id":"`+id+`","isClosed":true},"execution":{"proceeds":5.2,"pnl":1.2,"pnlPercent":30}}`, string(r.body["data"]))
		assert.True(t, models.HasPrefix(data.Order.ID, models.PrefixOrder))

		again := e.do(t, http.MethodPost, a.key, "/positions/"+id+"/close", "")
		assert.Equal(t, http.StatusConflict, again.status)
		assert.JSONEq(t, `"position_closed"`, string(again.body["code"]))
		assert.JSONEq(t, `"position is already closed"`, string(again.body["message"]))
	})

	t.Run("limit close with slippage, partly filled", func(t *testing.T) {
		id := e.buy(t, a, "102", "0.40", "10")
		e.venue.SetBids("102", [2]string{"0.50", "10"}, [2]string{"0.55", "4"})
		r := e.do(t, http.MethodPost, a.key, "/positions/"+id+"/close", `{"type":"LIMIT","slippage":0.05}`)
		require.Equal(t, 200, r.status, r.rawBody)
		reqs := e.placer.Requests()
		assert.Equal(t, "0.52", reqs[len(reqs)-1].Price.String(), "0.55 × 0.95 = 0.5225 → 0.52")
		var data apipositions.Close
		require.NoError(t, json.Unmarshal(r.body["data"], &data))
		assert.Equal(t, "PARTIALLY_FILLED", data.Order.Status)
		assert.Equal(t, json.Number("4"), data.Order.FilledSize)
		assert.False(t, data.Position.IsClosed)
		assert.Equal(t, json.Number("37.5"), data.Execution.PnlPercent)
		assert.Contains(t, string(r.body["message"]), "partially closed")
	})

	t.Run("dry run", func(t *testing.T) {
		id := e.buy(t, a, "201", "0.40", "10")
		e.venue.SetBids("201", [2]string{"0.60", "100"})
		r := e.do(t, http.MethodPost, a.key, "/positions/"+id+"/close", `{"type":"FOK","dryRun":true}`)
		require.Equal(t, 200, r.status, r.rawBody)
		assert.JSONEq(t, `{"dryRun":true,"position":{"id":"`+id+`","isClosed":false},"preview":{"tokenId":"201","side":"SELL",
			"type":"FOK","price":0.6,"size":10,"marketQuestion":"Will B?","outcome":"Yes","proceeds":6,"tickSize":"0.01",
			"minSize":0,"negRisk":false}}`, string(r.body["data"]))
		pos, err := e.st.PositionForAgent(context.Background(), a.p.AgentID, id)
		require.NoError(t, err)
		assert.Equal(t, int64(10_000_000), pos.SizeMicro, "nothing sold")
	})

	t.Run("idempotent retry replays the first answer", func(t *testing.T) {
		id := e.buy(t, a, "202", "0.40", "10")
		e.venue.SetBids("202", [2]string{"0.60", "100"})
		n := len(e.placer.Requests())
		first := e.do(t, http.MethodPost, a.key, "/positions/"+id+"/close", `{"type":"MARKET"}`, "Idempotency-Key", "close-202")
		require.Equal(t, 200, first.status, first.rawBody)
		again := e.do(t, http.MethodPost, a.key, "/positions/"+id+"/close", `{"type":"MARKET"}`, "Idempotency-Key", "close-202")
		require.Equal(t, 200, again.status, again.rawBody)
		assert.Equal(t, "true", again.header.Get(idempotency.HeaderReplayed))
		assert.JSONEq(t, string(first.body["data"]), string(again.body["data"]))
		assert.Len(t, e.placer.Requests(), n+1, "sold once")
		o, err := e.st.OrderByIdempotencyKey(context.Background(), a.p.AgentID, "close-202")
		require.NoError(t, err, "the key is stored on the order")
		assert.Equal(t, "SELL", o.Side)
	})

	t.Run("a pending close answers 202 and is not replayed as final", func(t *testing.T) {
		id := e.buy(t, a, "202", "0.40", "10")
		e.venue.SetBids("202", [2]string{"0.60", "100"})
		e.placer.Pending = true
		defer func() { e.placer.Pending = false }()
		n := len(e.placer.Requests())
		first := e.do(t, http.MethodPost, a.key, "/positions/"+id+"/close", "", "Idempotency-Key", "close-pending")
		require.Equal(t, http.StatusAccepted, first.status, first.rawBody)
		assert.Contains(t, first.rawBody, "pending")
		assert.Contains(t, string(first.body["data"]), `"status":"PENDING"`)
		again := e.do(t, http.MethodPost, a.key, "/positions/"+id+"/close", "", "Idempotency-Key", "close-pending")
		require.Equal(t, http.StatusAccepted, again.status, again.rawBody)
		assert.Empty(t, again.header.Get(idempotency.HeaderReplayed), "a pending answer is not final")
		assert.Len(t, e.placer.Requests(), n+1, "the retry found the keyed order instead of selling again")
	})

	t.Run("refusals", func(t *testing.T) {
		id := e.buy(t, a, "101", "0.40", "1")
		e.venue.SetBids("101")
		tests := []struct {
			name, key, path, body string
			status                int
			code                  string
		}{
			{"no bids", a.key, "/positions/" + id + "/close", "", 409, errs.CodeNoBids},
			{"unknown position", a.key, "/positions/pos_nope/close", "", 404, errs.CodePositionNotFound},
			{"no trade scope", readOnly.key, "/positions/" + id + "/close", "", 403, "insufficient_scope"},
			{"unknown field", a.key, "/positions/" + id + "/close", `{"kind":"MARKET"}`, 400, errs.CodeUnknownField},
			{"bad type", a.key, "/positions/" + id + "/close", `{"type":"GTD"}`, 400, errs.CodeInvalidClose},
			{"bad slippage", a.key, "/positions/" + id + "/close", `{"type":"LIMIT","slippage":2}`, 400, errs.CodeInvalidClose},
			{"slippage not a number", a.key, "/positions/" + id + "/close", `{"slippage":true}`, 400, errs.CodeInvalidField},
			{"no key", "", "/positions/" + id + "/close", "", 401, "missing_api_key"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := e.do(t, http.MethodPost, tt.key, tt.path, tt.body)
				require.Equal(t, tt.status, r.status, r.rawBody)
				assert.JSONEq(t, `"`+tt.code+`"`, string(r.body["code"]))
			})
		}
		other := e.newAgent(t, "read trade")
		r := e.do(t, http.MethodPost, other.key, "/positions/"+id+"/close", "")
		assert.Equal(t, 404, r.status, "another agent's position is not found")
	})
}
