package strategies_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/agentauth"
	"github.com/agent-trading/ats/api/openapi/openapitest"
	strategyapi "github.com/agent-trading/ats/api/strategies"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/strategies/strategiestest"
	"github.com/agent-trading/ats/workflows"
)

type fixture struct {
	srv        *api.Server
	key, other string
	fx         *strategiestest.Env
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	st := storetest.NewSQLite(t)
	fx := strategiestest.New(t, st, nil)
	ctx := context.Background()
	mkAgent := func(scopes string) (string, string) {
		plain, hash, prefix := secret.NewAPIKey()
		a := &models.Agent{UserID: fx.UserID, Name: "bot-" + scopes, Scopes: scopes}
		if err := st.CreateAgentWithKey(ctx, a, &models.APIKey{Hash: hash, DisplayPrefix: prefix}); err != nil {
			t.Fatal(err)
		}
		return a.ID, plain
	}
	var key string
	fx.AgentID, key = mkAgent("read trade cancel redeem")
	_, other := mkAgent("read")
	svc := &workflows.StrategyDesk{Runs: strategiestest.Direct{Engine: fx.Engine}, Strategies: &strategies.Service{Store: st, Resolver: strategiestest.Resolver{}}}
	srv := api.NewServer(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{
		Routes: []api.Routes{strategyapi.Routes(svc, nil, []gin.HandlerFunc{agentauth.Middleware(st, nil)}...)},
	})
	return &fixture{srv: srv, key: key, other: other, fx: fx}
}

func (f *fixture) do(t *testing.T, key, method, path, body string) (int, map[string]json.RawMessage) {
	t.Helper()
	req := httptest.NewRequest(method, "/api/agent/v1"+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
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

func code(b map[string]json.RawMessage) string { return strings.Trim(string(b["code"]), `"`) }

type strategyBody struct {
	Strategy struct {
		ID                string          `json:"id"`
		Status            string          `json:"status"`
		Config            json.RawMessage `json:"config"`
		MaxBudget         json.Number     `json:"maxBudget"`
		BudgetUsed        json.Number     `json:"budgetUsed"`
		ExpiresAt         *time.Time      `json:"expiresAt"`
		PausedBy          *string         `json:"pausedBy"`
		ConsecutiveErrors int             `json:"consecutiveErrors"`
		Executions        []struct {
			Kind string `json:"kind"`
		} `json:"executions"`
	} `json:"strategy"`
}

func decode(t *testing.T, b map[string]json.RawMessage) strategyBody {
	t.Helper()
	var s strategyBody
	if err := json.Unmarshal(b["data"], &s); err != nil {
		t.Fatal(err)
	}
	return s
}

const alert = `{"type":"PRICE_ALERT","config":{"tokenId":"1001","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.35,"size":10},"maxBudget":20}`

const (
	ownEOA      = "0x00000000000000000000000000000000000000E0"
	ownProxy    = "0x00000000000000000000000000000000000000F0"
	otherWallet = "0x00000000000000000000000000000000000000A1"
)

func copyOf(target string) string {
	return `{"type":"COPY_TRADE","config":{"targetAddress":"` + target + `","sizingMode":"fixed","fixedAmount":5,"copySells":true},"maxBudget":5}`
}

func TestCreateValidates(t *testing.T) {
	f := newFixture(t)
	if err := f.fx.Store.UpsertWallet(context.Background(), &models.Wallet{ID: "wal_own", UserID: f.fx.UserID, Kind: "proxy",
		EOAAddress: ownEOA, FunderAddress: ownProxy, SignatureType: 1, KeyCiphertext: []byte{1}, KeyNonce: []byte{1}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, body string
		status     int
		code       string
	}{
		{"no budget", `{"type":"PRICE_ALERT","config":{"tokenId":"1001","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.35,"size":10}}`, 400, "invalid_max_budget"},
		{"zero budget", strings.Replace(alert, `"maxBudget":20`, `"maxBudget":0`, 1), 400, "invalid_max_budget"},
		{"no type", `{"config":{},"maxBudget":5}`, 400, "invalid_strategy_type"},
		{"copy trade without target", `{"type":"COPY_TRADE","config":{"sizingMode":"fixed","fixedAmount":5,"copySells":true},"maxBudget":5}`, 400, "invalid_target_address"},
		{"copy trade of the own EOA", copyOf(ownEOA), 400, "copy_target_own_wallet"},
		{"copy trade of the own proxy", copyOf(ownProxy), 400, "copy_target_own_wallet"},
		{"copy trade without copySells", `{"type":"COPY_TRADE","config":{"targetAddress":"` + otherWallet + `","sizingMode":"fixed","fixedAmount":5},"maxBudget":5}`, 400, "invalid_copy_sells"},
		{"copy trade pct 0", `{"type":"COPY_TRADE","config":{"targetAddress":"` + otherWallet + `","sizingMode":"proportional","proportionPct":0,"copySells":true},"maxBudget":5}`, 400, "invalid_proportion_pct"},
		{"copy trade created", copyOf(otherWallet), 200, ""},
		{"trigger out of range", strings.Replace(alert, "0.35", "1.5", 1), 400, "invalid_trigger_price"},
		{"interval too short", `{"type":"RECURRING_BUY","config":{"tokenId":"1","amountPerInterval":5,"intervalMs":1000},"maxBudget":5}`, 400, "invalid_interval"},
		{"band inverted", `{"type":"BUY_LOW_SELL_HIGH","config":{"tokenId":"1","buyBelow":0.6,"sellAbove":0.4,"sizePerTrade":5},"maxBudget":5}`, 400, "invalid_price_band"},
		{"unknown body field", `{"type":"PRICE_ALERT","config":{},"maxBudget":5,"extra":1}`, 400, "unknown_field"},
		{"created", alert, 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, b := f.do(t, f.key, "POST", "/strategies", tc.body)
			if status != tc.status || code(b) != tc.code {
				t.Fatalf("%d %s, want %d %s", status, b["code"], tc.status, tc.code)
			}
		})
	}
}

func TestLifecycleOverHTTP(t *testing.T) {
	f := newFixture(t)
	status, b := f.do(t, f.key, "POST", "/strategies", alert)
	if status != 200 {
		t.Fatal(status, b)
	}
	s := decode(t, b).Strategy
	if s.Status != "ACTIVE" || s.ExpiresAt == nil || time.Until(*s.ExpiresAt) < 23*time.Hour || string(s.MaxBudget) != "20" || string(s.BudgetUsed) != "0" {
		t.Fatalf("created %+v", s)
	}
	id := s.ID
	// Another agent of the same user: 404, and a read-only key cannot
	// change anything.
	if status, b := f.do(t, f.other, "GET", "/strategies/"+id, ""); status != 404 || code(b) != "strategy_not_found" {
		t.Fatalf("another agent's strategy: %d %s", status, b)
	}
	if status, _ := f.do(t, f.other, "POST", "/strategies", alert); status != 403 {
		t.Fatalf("read scope created a strategy: %d", status)
	}
	steps := []struct {
		method, path, body string
		status             int
		code, want         string
	}{
		{"POST", "/pause", "", 200, "", "PAUSED"},
		{"POST", "/pause", "", 409, "strategy_state", ""},
		{"POST", "/resume", "", 200, "", "ACTIVE"},
		{"PATCH", "", `{"type":"RECURRING_BUY"}`, 400, "strategy_type_immutable", ""},
		{"PATCH", "", `{"config":{"triggerPrice":0.3},"maxBudget":"25.5"}`, 200, "", "ACTIVE"},
		{"PATCH", "", `{"expiresAt":"` + time.Now().Add(40*24*time.Hour).UTC().Format(time.RFC3339) + `"}`, 400, "invalid_expiry", ""},
		{"PATCH", "", `{"expiresAt":"` + time.Now().Add(48*time.Hour).UTC().Format(time.RFC3339) + `"}`, 200, "", "ACTIVE"},
		{"DELETE", "", "", 200, "", "CANCELLED"},
		{"POST", "/resume", "", 409, "strategy_final", ""},
		{"DELETE", "", "", 409, "strategy_final", ""},
	}
	for _, st := range steps {
		status, b := f.do(t, f.key, st.method, "/strategies/"+id+st.path, st.body)
		if status != st.status || code(b) != st.code {
			t.Fatalf("%s %s %s: %d %s", st.method, st.path, st.body, status, b)
		}
		if st.want != "" {
			if got := decode(t, b).Strategy; got.Status != st.want {
				t.Fatalf("%s %s: status %s, want %s", st.method, st.path, got.Status, st.want)
			}
		}
	}
	_, b = f.do(t, f.key, "GET", "/strategies/"+id, "")
	got := decode(t, b).Strategy
	if string(got.MaxBudget) != "25.5" || !strings.Contains(string(got.Config), `"triggerPrice":0.3`) || got.Executions == nil {
		t.Fatalf("after the patch: %+v", got)
	}
	if got.ExpiresAt == nil || time.Until(*got.ExpiresAt) < 47*time.Hour {
		t.Fatalf("not extended: %v", got.ExpiresAt)
	}
	status, b = f.do(t, f.key, "GET", "/strategies?status=CANCELLED&type=PRICE_ALERT", "")
	var list []json.RawMessage
	_ = json.Unmarshal(b["data"], &list)
	if status != 200 || len(list) != 1 {
		t.Fatalf("list: %d %d", status, len(list))
	}
	if status, b := f.do(t, f.key, "GET", "/strategies?status=RUNNING", ""); status != 400 || code(b) != "invalid_query" {
		t.Fatalf("bad filter: %d %s", status, b)
	}
}

func TestAtMostTenNonFinalStrategies(t *testing.T) {
	f := newFixture(t)
	var ids []string
	for i := range 10 {
		status, b := f.do(t, f.key, "POST", "/strategies", alert)
		if status != 200 {
			t.Fatalf("strategy %d: %d %s", i, status, b)
		}
		ids = append(ids, decode(t, b).Strategy.ID)
	}
	// A paused one still counts.
	if status, _ := f.do(t, f.key, "POST", "/strategies/"+ids[0]+"/pause", ""); status != 200 {
		t.Fatal(status)
	}
	if status, b := f.do(t, f.key, "POST", "/strategies", alert); status != 409 || code(b) != "strategy_limit_reached" {
		t.Fatalf("11th: %d %s", status, b)
	}
	// A cancelled one does not.
	if status, _ := f.do(t, f.key, "DELETE", "/strategies/"+ids[1], ""); status != 200 {
		t.Fatal(status)
	}
	if status, b := f.do(t, f.key, "POST", "/strategies", alert); status != 200 {
		t.Fatalf("after a cancel: %d %s", status, b)
	}
	_ = fmt.Sprint()
}

// TestPatchTokenWhileHoldingIsAConflict: a PATCH moving a
// BUY_LOW_SELL_HIGH that holds shares to another token is 409
// strategy_token_in_use, with a message and hint telling the agent what to
// do; once nothing is held the same PATCH goes through.
func TestPatchTokenWhileHoldingIsAConflict(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	status, b := f.do(t, f.key, "POST", "/strategies",
		`{"type":"BUY_LOW_SELL_HIGH","config":{"tokenId":"1001","buyBelow":0.4,"sellAbove":0.6,"sizePerTrade":5},"maxBudget":20}`)
	if status != 200 {
		t.Fatal(status, b)
	}
	id := decode(t, b).Strategy.ID
	f.fx.Book.Set(strategiestest.Token, "0.30", "0.35")
	if out, err := f.fx.Engine.Execute(ctx, id, 1); err != nil || out.Kind != strategies.KindAction {
		t.Fatalf("buy: %+v %v", out, err)
	}
	const move = `{"config":{"tokenId":"1002"}}`
	status, b = f.do(t, f.key, "PATCH", "/strategies/"+id, move)
	if status != http.StatusConflict || code(b) != "strategy_token_in_use" {
		t.Fatalf("patch while holding: %d %s", status, b)
	}
	if msg, hint := string(b["message"]), string(b["hint"]); !strings.Contains(msg, "holds 5 shares of token 1001") ||
		!strings.Contains(hint, "sell") || !strings.Contains(hint, "new strategy") {
		t.Fatalf("message %s hint %s", msg, hint)
	}
	// Sold: the strategy holds nothing, and the token may change.
	f.fx.Book.Set(strategiestest.Token, "0.65", "0.67")
	if out, err := f.fx.Engine.Execute(ctx, id, 2); err != nil || out.Kind != strategies.KindAction {
		t.Fatalf("sell: %+v %v", out, err)
	}
	status, b = f.do(t, f.key, "PATCH", "/strategies/"+id, move)
	if status != 200 || !strings.Contains(string(decode(t, b).Strategy.Config), `"tokenId":"1002"`) {
		t.Fatalf("patch holding nothing: %d %s", status, b)
	}
}
