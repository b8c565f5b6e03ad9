package strategies_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/agentauth"
	strategyapi "github.com/agent-trading/ats/api/strategies"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/backtesting"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/venue/clob"
)

// history is a recorded price path of token 1001 (a real fake of the
// venue's records).
type history struct{ pts []clob.PricePoint }

func (h history) PriceHistory(_ context.Context, token string, from, to time.Time) ([]clob.PricePoint, error) {
	var out []clob.PricePoint
	for _, p := range h.pts {
		if token == "1001" && !p.Time.Before(from) && !p.Time.After(to) {
			out = append(out, p)
		}
	}
	return out, nil
}

func (history) Market(_ context.Context, token string) (*backtesting.Market, error) {
	if token != "1001" {
		return nil, errs.E(errs.NotFound, "no such token").WithCode(errs.CodeTokenNotFound)
	}
	return &backtesting.Market{TokenID: token, ConditionID: "0xc0", Question: "Will it?", Outcome: "Yes", Tick: decimal.RequireFromString("0.01"),
		Spread: decimal.RequireFromString("0.02")}, nil
}

func (history) MarketTrades(_ context.Context, _ string, from, _ time.Time) ([]backtesting.Trade, time.Time, error) {
	return nil, from, nil
}

func (history) WalletTrades(context.Context, string, time.Time, time.Time) ([]backtesting.Trade, error) {
	return nil, nil
}

// POST /strategies/backtest answers the simulated executions in the shape
// of a strategy's (checked against the OpenAPI document), with scope read,
// and refuses a window the venue has no history of.
func TestBacktestEndpoint(t *testing.T) {
	st := storetest.NewSQLite(t)
	ctx := context.Background()
	u := &models.User{Email: "bt@example.com"}
	if err := st.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	plain, hash, prefix := secret.NewAPIKey()
	if err := st.CreateAgentWithKey(ctx, &models.Agent{UserID: u.ID, Name: "reader", Scopes: "read"}, &models.APIKey{Hash: hash, DisplayPrefix: prefix}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	var pts []clob.PricePoint
	for i, p := range []string{"0.50", "0.45", "0.40", "0.38", "0.42"} {
		pts = append(pts, clob.PricePoint{Time: t0.Add(time.Duration(i) * time.Minute), Price: decimal.RequireFromString(p)})
	}
	svc := &backtesting.Service{Source: history{pts}}
	srv := api.NewServer(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{
		Routes: []api.Routes{strategyapi.BacktestRoutes(svc, []gin.HandlerFunc{agentauth.Middleware(st, nil)}...)},
	})
	f := &fixture{srv: srv}
	body := func(from, to time.Time) string {
		return `{"type":"PRICE_ALERT","config":{"tokenId":"1001","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.40,"size":10},` +
			`"maxBudget":50,"from":"` + from.Format(time.RFC3339) + `","to":"` + to.Format(time.RFC3339) + `","startingBalance":100}`
	}
	status, out := f.do(t, plain, "POST", "/strategies/backtest", body(t0, t0.Add(time.Hour)))
	if status != http.StatusOK {
		t.Fatalf("%d %s", status, out["error"])
	}
	var got struct {
		Backtest struct {
			Status     string `json:"status"`
			Executions []struct {
				ID, Kind, Side string
				Time           time.Time
				AvgFillPrice   json.Number `json:"avgFillPrice"`
			} `json:"executions"`
			FinalBalance json.Number `json:"finalBalance"`
			TradeCount   int         `json:"tradeCount"`
			Warnings     []string    `json:"warnings"`
		} `json:"backtest"`
	}
	if err := json.Unmarshal(out["data"], &got); err != nil {
		t.Fatal(err)
	}
	b := got.Backtest
	if b.Status != "COMPLETED" || len(b.Executions) != 1 || b.Executions[0].ID != "bt_1" || b.Executions[0].Side != "BUY" ||
		!b.Executions[0].Time.Equal(t0.Add(3*time.Minute)) || b.Executions[0].AvgFillPrice != "0.39" || b.FinalBalance != "96.1" || b.TradeCount != 1 {
		t.Fatalf("backtest: %+v", b)
	}
	if !strings.Contains(strings.Join(b.Warnings, " "), "fill model") {
		t.Errorf("no model warning: %q", b.Warnings)
	}

	status, out = f.do(t, plain, "POST", "/strategies/backtest", body(t0.Add(-48*time.Hour), t0.Add(-47*time.Hour)))
	if status != http.StatusNotFound || code(out) != errs.CodeNoPriceHistory {
		t.Fatalf("no history: %d %s", status, code(out))
	}
	status, out = f.do(t, plain, "POST", "/strategies/backtest", body(t0, t0.Add(31*24*time.Hour)))
	if status != http.StatusBadRequest || code(out) != errs.CodeInvalidBacktestWindow {
		t.Fatalf("long window: %d %s", status, code(out))
	}
}
