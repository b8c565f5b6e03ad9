package strategies_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/strategies/strategiestest"
	"github.com/agent-trading/ats/venue/micro"
)

// TestNoStrategyLegActsForAStoppedAgent performs, for every leg a
// strategy places in its agent's name — a PRICE_ALERT's SELL, both legs
// of a BUY_LOW_SELL_HIGH, a COPY_TRADE's copied BUY and copied SELL —
// the step of issue 24 item 1: the leg's condition is met after the
// agent was paused or revoked (or the pause lands between the
// execution's check and its order, which the order service refuses
// agent_inactive). Nothing is placed, nothing is recorded and no error
// is counted; the strategy is PAUSED with its agent (agent_paused) or
// CANCELLED with it (agent_revoked). A paused agent's strategy resumes
// with the agent and then places the leg that was due.
func TestNoStrategyLegActsForAStoppedAgent(t *testing.T) {
	const copyCfg = `{"targetAddress":"` + copyTarget + `","sizingMode":"fixed","fixedAmount":5,"copySells":true}`
	copied := 0
	copyTrade := func(t *testing.T, fx *strategiestest.Env, id, side, shares, price string) {
		t.Helper()
		copied++
		err := fx.Store.RecordCopyTrades(context.Background(), []models.CopyTrade{{StrategyID: id, TxHash: fmt.Sprintf("0x%064x", copied),
			LogIndex: 3, Target: copyTarget, Block: int64(copied), Kind: models.CopyKindTrade, TokenID: "11", Side: side,
			SharesMicro: micro.Truncate(decimal.RequireFromString(shares)), PriceMicro: micro.Truncate(decimal.RequireFromString(price))}})
		if err != nil {
			t.Fatal(err)
		}
	}
	legs := []struct {
		name, typ, config, side string
		// held runs what the strategy does with its agent active before
		// the leg (a buy whose shares the leg sells); due makes the leg's
		// condition met.
		held func(t *testing.T, fx *strategiestest.Env, id string)
		due  func(t *testing.T, fx *strategiestest.Env, id string)
	}{
		{name: "PRICE_ALERT sell", typ: "PRICE_ALERT", side: "SELL",
			config: `{"tokenId":"1001","side":"SELL","triggerCondition":"PRICE_GTE","triggerPrice":0.6,"size":10}`,
			due: func(_ *testing.T, fx *strategiestest.Env, _ string) {
				fx.Book.Set(strategiestest.Token, "0.65", "0.67")
			}},
		{name: "BUY_LOW_SELL_HIGH buy leg", typ: "BUY_LOW_SELL_HIGH", side: "BUY",
			config: `{"tokenId":"1001","buyBelow":0.4,"sellAbove":0.6,"sizePerTrade":5}`,
			due: func(_ *testing.T, fx *strategiestest.Env, _ string) {
				fx.Book.Set(strategiestest.Token, "0.30", "0.35")
			}},
		{name: "BUY_LOW_SELL_HIGH sell leg", typ: "BUY_LOW_SELL_HIGH", side: "SELL",
			config: `{"tokenId":"1001","buyBelow":0.4,"sellAbove":0.6,"sizePerTrade":5}`,
			held: func(t *testing.T, fx *strategiestest.Env, id string) {
				fx.Book.Set(strategiestest.Token, "0.30", "0.35")
				if out, err := fx.Engine.Execute(context.Background(), id, 1); err != nil || out.OrderID == "" {
					t.Fatalf("the buy leg with the agent active: %+v %v", out, err)
				}
			},
			due: func(_ *testing.T, fx *strategiestest.Env, _ string) {
				fx.Book.Set(strategiestest.Token, "0.65", "0.67")
			}},
		{name: "COPY_TRADE copied buy", typ: "COPY_TRADE", side: "BUY", config: copyCfg,
			due: func(t *testing.T, fx *strategiestest.Env, id string) { copyTrade(t, fx, id, "BUY", "10", "0.5") }},
		{name: "COPY_TRADE copied sell", typ: "COPY_TRADE", side: "SELL", config: copyCfg,
			held: func(t *testing.T, fx *strategiestest.Env, id string) {
				copyTrade(t, fx, id, "BUY", "10", "0.5")
				if out, err := fx.Engine.Execute(context.Background(), id, 1); err != nil || out.OrderID == "" {
					t.Fatalf("the copied buy with the agent active: %+v %v", out, err)
				}
			},
			due: func(t *testing.T, fx *strategiestest.Env, id string) { copyTrade(t, fx, id, "SELL", "100", "0.6") }},
	}
	stops := []struct {
		name, agentStatus string
		// midway: the agent is stopped by the order's own placement, after
		// the execution's check passed.
		midway                   bool
		wantStatus, wantPausedBy string
		wantEndedReason          string
		resumes                  bool
	}{
		{name: "paused", agentStatus: models.AgentPaused, wantStatus: strategies.StatusPaused, wantPausedBy: strategies.PausedWithAgent, resumes: true},
		{name: "paused between check and order", agentStatus: models.AgentPaused, midway: true,
			wantStatus: strategies.StatusPaused, wantPausedBy: strategies.PausedWithAgent, resumes: true},
		{name: "revoked", agentStatus: models.AgentRevoked, wantStatus: strategies.StatusCancelled, wantEndedReason: strategies.EndAgentRevoked},
	}
	for _, leg := range legs {
		for _, stop := range stops {
			t.Run(leg.name+"/"+stop.name, func(t *testing.T) {
				ctx := context.Background()
				fx := strategiestest.New(t, storetest.NewSQLite(t), nil)
				svc := &strategiestest.Desk{Runs: noRunner{}, Service: &strategies.Service{Store: fx.Store, Resolver: strategiestest.Resolver{}}}
				created, err := svc.Create(ctx, fx.Actor(), strategies.CreateRequest{Type: leg.typ, Config: json.RawMessage(leg.config),
					MaxBudget: strategies.D(decimal.RequireFromString("100"))})
				if err != nil {
					t.Fatal(err)
				}
				id := created.ID
				if leg.held != nil {
					leg.held(t, fx, id)
				}
				get := func() *models.Strategy {
					t.Helper()
					s, err := fx.Store.StrategyByID(ctx, id)
					if err != nil {
						t.Fatal(err)
					}
					return s
				}
				before := get()
				_, placedBefore := fx.Placer.Counts()

				leg.due(t, fx, id)
				if stop.midway {
					fx.Engine.Orders = stoppingPlacer{inner: fx.Placer, st: fx.Store}
				} else if err := fx.Store.UpdateAgentStatus(ctx, fx.UserID, fx.AgentID, stop.agentStatus); err != nil {
					t.Fatal(err)
				}
				out, err := fx.Engine.Execute(ctx, id, before.Executions+1)
				if err != nil || out.Executed || out.OrderID != "" {
					t.Fatalf("the due %s for a %s agent: %+v %v", leg.side, stop.name, out, err)
				}
				if _, placed := fx.Placer.Counts(); placed != placedBefore {
					t.Fatalf("%d order(s) placed for a %s agent", placed-placedBefore, stop.name)
				}
				s := get()
				if s.Status != stop.wantStatus || s.PausedBy != stop.wantPausedBy || s.EndedReason != stop.wantEndedReason {
					t.Fatalf("strategy is %s (paused by %q, ended %q), want %s (%q, %q)", s.Status, s.PausedBy, s.EndedReason,
						stop.wantStatus, stop.wantPausedBy, stop.wantEndedReason)
				}
				if s.Executions != before.Executions || s.ConsecutiveFailures != 0 || s.LastError != "" {
					t.Fatalf("after the stopped leg: executions %d (was %d), failures %d, last error %q",
						s.Executions, before.Executions, s.ConsecutiveFailures, s.LastError)
				}
				if !stop.resumes {
					return
				}

				// The agent resumes: so does the strategy, and the leg still
				// due is placed.
				fx.Engine.Orders = fx.Placer
				if err := fx.Store.UpdateAgentStatus(ctx, fx.UserID, fx.AgentID, models.AgentActive); err != nil {
					t.Fatal(err)
				}
				if st, err := fx.Engine.Reconcile(ctx, id); err != nil || st.Status != strategies.StatusActive {
					t.Fatalf("reconcile after the agent resumed: %+v %v", st, err)
				}
				out, err = fx.Engine.Execute(ctx, id, before.Executions+1)
				if err != nil || !out.Executed || out.OrderID == "" {
					t.Fatalf("the due %s after the agent resumed: %+v %v", leg.side, out, err)
				}
				o, err := fx.Store.OrderByID(ctx, out.OrderID)
				if err != nil || o.Side != leg.side {
					t.Fatalf("the order placed after the resume: %+v %v", o, err)
				}
			})
		}
	}
}
