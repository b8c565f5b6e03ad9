package orders_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/agentauth"
	"github.com/agent-trading/ats/api/openapi/openapitest"
	orderapi "github.com/agent-trading/ats/api/orders"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store/storetest"
)

// memOrders is an in-memory order book of one service: Place records the
// request, a dry run previews it, Cancel refuses terminal orders. It
// checks the principal it is called with.
type memOrders struct {
	mu      sync.Mutex
	agentID string
	orders  map[string]orders.Order
	last    orders.PlaceRequest
	pending bool
}

func (m *memOrders) Place(_ context.Context, p orders.Principal, r orders.PlaceRequest) (orders.PlaceResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p.AgentID != m.agentID {
		return orders.PlaceResult{}, errs.E(errs.Internal, "wrong principal")
	}
	m.last = r
	if r.DryRun {
		return orders.PlaceResult{Preview: &orders.Preview{TokenID: r.TokenID, Side: r.Side, Type: "LIMIT", Price: r.Price, Size: r.Size,
			Cost: r.Price.Mul(r.Size), TickSize: "0.01"}}, nil
	}
	o := orders.Order{ID: models.NewID(models.PrefixOrder), Status: "OPEN", Side: r.Side, Type: "LIMIT", TokenID: r.TokenID,
		Price: r.Price, Size: r.Size, PolyOrderID: "0xabc", MarketQuestion: "Q?", Outcome: "Yes"}
	if m.pending {
		o.Status, o.PolyOrderID = "PENDING", ""
	}
	m.orders[o.ID] = o
	return orders.PlaceResult{Order: o, Pending: m.pending}, nil
}

func (m *memOrders) Get(_ context.Context, agentID, id string) (orders.Order, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.orders[id]
	if !ok || agentID != m.agentID {
		return orders.Order{}, errs.E(errs.NotFound, "order not found")
	}
	return o, nil
}

func (m *memOrders) List(_ context.Context, _ string, r orders.ListRequest) (orders.ListResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []orders.Order
	for _, o := range m.orders {
		if r.Status == "" || o.Status == r.Status {
			out = append(out, o)
		}
	}
	return orders.ListResult{Orders: out, Synced: r.Sync, Updated: len(out)}, nil
}

func (m *memOrders) Cancel(_ context.Context, _ orders.Principal, id string) (orders.Order, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.orders[id]
	if !ok {
		return orders.Order{}, errs.E(errs.NotFound, "order not found")
	}
	if o.Terminal() {
		return orders.Order{}, orders.NotCancellable(o.Status)
	}
	prev := o.Status
	o.Status = "CANCELLED"
	m.orders[id] = o
	o.PreviousStatus = prev
	return o, nil
}

type fixture struct {
	srv *api.Server
	key string
	svc *memOrders
}

func newFixture(t *testing.T, scopes string) *fixture {
	t.Helper()
	st := storetest.NewSQLite(t)
	ctx := context.Background()
	u := &models.User{Email: "o@example.com", PasswordHash: "x"}
	if err := st.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	plain, hash, prefix := secret.NewAPIKey()
	a := &models.Agent{UserID: u.ID, Name: "bot", Scopes: scopes}
	if err := st.CreateAgentWithKey(ctx, a, &models.APIKey{Hash: hash, DisplayPrefix: prefix}); err != nil {
		t.Fatal(err)
	}
	svc := &memOrders{agentID: a.ID, orders: map[string]orders.Order{}}
	srv := api.NewServer(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{
		Routes: []api.Routes{orderapi.Routes(svc, svc, nil, []gin.HandlerFunc{agentauth.Middleware(st, nil)}...)},
	})
	return &fixture{srv: srv, key: plain, svc: svc}
}

func (f *fixture) do(t *testing.T, method, path, body string) (int, map[string]json.RawMessage) {
	t.Helper()
	var rd *strings.Reader
	if body != "" {
		rd = strings.NewReader(body)
	} else {
		rd = strings.NewReader("")
	}
	req := httptest.NewRequest(method, "/api/agent/v1"+path, rd)
	req.Header.Set("Authorization", "Bearer "+f.key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	openapitest.Handler(t, f.srv).ServeHTTP(rec, req)
	var out map[string]json.RawMessage
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
	}
	return rec.Code, out
}

func TestPlaceValidatesPresenceAndDecodesNumbers(t *testing.T) {
	f := newFixture(t, "read trade cancel")
	tests := []struct {
		name   string
		body   string
		status int
		code   string
	}{
		{"missing token", `{"side":"BUY","price":0.5,"size":10}`, 400, "invalid_token_id"},
		{"missing side", `{"tokenId":"1","price":0.5,"size":10}`, 400, "invalid_side"},
		{"missing price", `{"tokenId":"1","side":"BUY","size":10}`, 400, "invalid_price"},
		{"missing size", `{"tokenId":"1","side":"BUY","price":0.5}`, 400, "invalid_size"},
		{"price as a string is accepted", `{"tokenId":"1","side":"BUY","price":"0.5","size":10}`, 200, ""},
		{"exact decimals", `{"tokenId":"1","side":"BUY","price":0.57,"size":12.34}`, 200, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body := f.do(t, "POST", "/orders", tc.body)
			if status != tc.status {
				t.Fatalf("%d %s", status, body)
			}
			if tc.code != "" && strings.Trim(string(body["code"]), `"`) != tc.code {
				t.Fatalf("code %s, want %s", body["code"], tc.code)
			}
		})
	}
	if !f.svc.last.Price.Equal(decimal.RequireFromString("0.57")) || !f.svc.last.Size.Equal(decimal.RequireFromString("12.34")) {
		t.Fatalf("decoded %+v", f.svc.last)
	}
}

func TestOrderEndpointsShapes(t *testing.T) {
	f := newFixture(t, "read trade cancel")
	status, body := f.do(t, "POST", "/orders", `{"tokenId":"1","side":"BUY","price":0.5,"size":10}`)
	if status != http.StatusOK {
		t.Fatalf("%d %s", status, body)
	}
	var placed struct {
		Order map[string]any `json:"order"`
	}
	if err := json.Unmarshal(body["data"], &placed); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"id", "polyOrderId", "status", "side", "price", "size", "filledSize", "avgFillPrice", "marketQuestion", "outcome"} {
		if _, ok := placed.Order[k]; !ok {
			t.Errorf("data.order lacks %q: %s", k, body["data"])
		}
	}
	if _, isNum := placed.Order["price"].(float64); !isNum {
		t.Errorf("price is not a JSON number: %s", body["data"])
	}
	id := placed.Order["id"].(string)

	status, body = f.do(t, "POST", "/orders", `{"tokenId":"1","side":"BUY","price":0.5,"size":10,"dryRun":true}`)
	if status != http.StatusOK || !strings.Contains(string(body["data"]), `"dryRun":true`) || !strings.Contains(string(body["data"]), `"cost":5`) {
		t.Fatalf("dry run: %d %s", status, body)
	}

	status, body = f.do(t, "GET", "/orders?status=OPEN&limit=10", "")
	if status != http.StatusOK || string(body["sync"]) != `{"enabled":true,"updated":1}` {
		t.Fatalf("list: %d %s", status, body)
	}
	if status, body = f.do(t, "GET", "/orders?limit=101", ""); status != http.StatusBadRequest {
		t.Fatalf("limit 101: %d %s", status, body)
	}
	if status, body = f.do(t, "GET", "/orders?sync=false", ""); status != http.StatusOK || string(body["sync"]) != `{"enabled":false,"updated":1}` {
		t.Fatalf("sync=false: %d %s", status, body)
	}

	status, body = f.do(t, "DELETE", "/orders/"+id, "")
	if status != http.StatusOK || string(body["message"]) == "" ||
		string(body["data"]) != `{"order":{"id":"`+id+`","status":"CANCELLED","previousStatus":"OPEN"}}` {
		t.Fatalf("cancel: %d %s", status, body)
	}
	status, body = f.do(t, "DELETE", "/orders/"+id, "")
	if status != http.StatusConflict || string(body["success"]) != "false" || strings.Trim(string(body["code"]), `"`) != "order_not_cancellable" {
		t.Fatalf("second cancel: %d %s", status, body)
	}
	if status, _ = f.do(t, "GET", "/orders/ord_nope", ""); status != http.StatusNotFound {
		t.Fatalf("unknown order: %d", status)
	}

	f.svc.pending = true
	status, body = f.do(t, "POST", "/orders", `{"tokenId":"1","side":"BUY","price":0.5,"size":10}`)
	if status != http.StatusAccepted || !strings.Contains(string(body["data"]), `"status":"PENDING"`) || string(body["message"]) == "" {
		t.Fatalf("pending placement: %d %s", status, body)
	}
}

func TestOrderScopes(t *testing.T) {
	f := newFixture(t, "read")
	if status, _ := f.do(t, "POST", "/orders", `{"tokenId":"1","side":"BUY","price":0.5,"size":10}`); status != http.StatusForbidden {
		t.Fatalf("POST without trade scope: %d", status)
	}
	if status, _ := f.do(t, "DELETE", "/orders/ord_x", ""); status != http.StatusForbidden {
		t.Fatalf("DELETE without cancel scope: %d", status)
	}
	if status, _ := f.do(t, "GET", "/orders", ""); status != http.StatusOK {
		t.Fatalf("GET with read scope: %d", status)
	}
}
