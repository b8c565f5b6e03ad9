package strategies_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/strategies/strategiestest"
)

// A PATCH that moves a BUY_LOW_SELL_HIGH or PRICE_ALERT to another token
// (a tokenId, or a marketQuery resolving elsewhere) is refused with 409
// strategy_token_in_use while the strategy holds shares of its token or
// has live orders of it: it would only ever sell the new token's shares.
// With nothing held it moves; other changes go through either way.
func TestPatchTokenWhileHolding(t *testing.T) {
	const other = "1002"
	blsh := `{"tokenId":"1001","buyBelow":0.4,"sellAbove":0.6,"sizePerTrade":5}`
	alert := `{"tokenId":"1001","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.35,"size":10,"orderType":"LIMIT"}`
	tests := []struct {
		name, typ, config string
		// setup brings the strategy to the state under test.
		setup func(t *testing.T, fx *strategiestest.Env, id string)
		patch string
		// refused: the PATCH is a 409 and the token stays.
		refused bool
	}{
		{name: "holding nothing", typ: "BUY_LOW_SELL_HIGH", config: blsh, patch: `{"tokenId":"1002"}`},
		{name: "holding nothing, by marketQuery", typ: "BUY_LOW_SELL_HIGH", config: blsh, patch: `{"marketQuery":"other","outcome":"Yes"}`},
		{name: "holding shares", typ: "BUY_LOW_SELL_HIGH", config: blsh, setup: buyLot(""), patch: `{"tokenId":"1002"}`, refused: true},
		{name: "holding shares, by marketQuery", typ: "BUY_LOW_SELL_HIGH", config: blsh, setup: buyLot(""),
			patch: `{"marketQuery":"other","outcome":"Yes"}`, refused: true},
		{name: "a live buy", typ: "BUY_LOW_SELL_HIGH", config: blsh, setup: buyLot("OPEN"), patch: `{"tokenId":"1002"}`, refused: true},
		{name: "holding shares, same token", typ: "BUY_LOW_SELL_HIGH", config: blsh, setup: buyLot(""), patch: `{"sellAbove":0.7}`},
		{name: "sold what it bought", typ: "BUY_LOW_SELL_HIGH", config: blsh, setup: func(t *testing.T, fx *strategiestest.Env, id string) {
			buyLot("")(t, fx, id)
			fx.Book.Set(strategiestest.Token, "0.65", "0.67")
			if out, err := fx.Engine.Execute(context.Background(), id, 2); err != nil || out.Kind != strategies.KindAction {
				t.Fatalf("sell: %+v %v", out, err)
			}
		}, patch: `{"tokenId":"1002"}`},
		{name: "only a failed buy", typ: "BUY_LOW_SELL_HIGH", config: blsh, setup: buyLot("FAILED"), patch: `{"tokenId":"1002"}`},
		{name: "PRICE_ALERT with a live order", typ: "PRICE_ALERT", config: alert, setup: func(t *testing.T, fx *strategiestest.Env, id string) {
			// An order placed whose execution was not recorded yet.
			fx.Placer.Set(func(p *strategiestest.Placer) { p.Status = "OPEN" })
			if _, err := fx.Placer.Place(context.Background(), orders.Principal{AgentID: fx.AgentID, UserID: fx.UserID}, orders.PlaceRequest{
				TokenID: strategiestest.Token, Side: "BUY", Type: "LIMIT", Price: decimal.RequireFromString("0.35"), Size: decimal.NewFromInt(10),
				IdempotencyKey: strategies.IdempotencyKey(id, 1), StrategyID: id}); err != nil {
				t.Fatal(err)
			}
		}, patch: `{"tokenId":"1002"}`, refused: true},
		{name: "PRICE_ALERT holding nothing", typ: "PRICE_ALERT", config: alert, patch: `{"tokenId":"1002"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			fx := strategiestest.New(t, storetest.NewSQLite(t), nil)
			svc := &strategiestest.Desk{Runs: strategiestest.Direct{Engine: fx.Engine}, Service: &strategies.Service{Store: fx.Store, Resolver: strategiestest.Resolver{Tokens: map[string]string{"other": other}}}}
			created, err := svc.Create(ctx, fx.Actor(), strategies.CreateRequest{Type: tt.typ, Config: json.RawMessage(tt.config),
				MaxBudget: strategies.D(decimal.RequireFromString("20"))})
			if err != nil {
				t.Fatal(err)
			}
			if tt.setup != nil {
				tt.setup(t, fx, created.ID)
			}
			got, err := svc.Patch(ctx, fx.Actor(), created.ID, strategies.PatchRequest{Config: json.RawMessage(tt.patch)})
			st, serr := fx.Store.StrategyByID(ctx, created.ID)
			if serr != nil {
				t.Fatal(serr)
			}
			if tt.refused {
				if !errs.Is(err, errs.Conflict) || errs.CodeOf(err) != errs.CodeStrategyTokenInUse {
					t.Fatalf("patch: %+v %v, want Conflict %s", got, err, errs.CodeStrategyTokenInUse)
				}
				if st.TokenID != strategiestest.Token || st.Config != string(created.Config) {
					t.Fatalf("a refused patch changed the strategy: token %s config %s", st.TokenID, st.Config)
				}
				return
			}
			if err != nil {
				t.Fatalf("patch: %v", err)
			}
			want := strategiestest.Token
			if tt.patch != `{"sellAbove":0.7}` {
				want = other
			}
			if st.TokenID != want || got.TokenID != want {
				t.Fatalf("token %s (answered %s), want %s", st.TokenID, got.TokenID, want)
			}
		})
	}
}

// buyLot returns a setup that has the strategy buy one lot, its order
// ending in status ("" = filled).
func buyLot(status string) func(t *testing.T, fx *strategiestest.Env, id string) {
	return func(t *testing.T, fx *strategiestest.Env, id string) {
		t.Helper()
		fx.Book.Set(strategiestest.Token, "0.30", "0.35")
		fx.Placer.Set(func(p *strategiestest.Placer) { p.Status = status })
		out, err := fx.Engine.Execute(context.Background(), id, 1)
		if err != nil || out.OrderID == "" {
			t.Fatalf("buy: %+v %v", out, err)
		}
		fx.Placer.Set(func(p *strategiestest.Placer) { p.Status = "" })
	}
}
