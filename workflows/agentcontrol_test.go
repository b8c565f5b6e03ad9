package workflows_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"go.temporal.io/sdk/workflow"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/intent/intenttest"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/strategies/strategiestest"
	"github.com/agent-trading/ats/worker/replaytest"
	"github.com/agent-trading/ats/workflows"
)

// TestAgentControlOnDevServer runs the user's pause, resume and revoke of
// an agent through workflows.Controls on a real Temporal server, with the
// agent's strategies running in their own workflows: the pause parks the
// ACTIVE ones (PAUSED, pausedBy agent_paused) and leaves the one the user
// paused; the resume resumes exactly the parked ones; the revoke cancels
// every strategy (agent_revoked, their workflows end) and the agent's
// live orders (audited as the user's, reason agent_revoked). Each change
// is applied by the agent's control workflow (agent-control/<agent id>),
// each strategy's by its own workflow. With ATS_RECORD_HISTORY=<dir> it
// writes the histories for the replay tests:
//
//	ATS_RECORD_HISTORY=$PWD/workflows/testdata go test -run TestAgentControlOnDevServer ./workflows/
//
// (agent_control.json, the revoke's run, and strategy_agent.json, a
// strategy parked, resumed and cancelled with its agent).
func TestAgentControlOnDevServer(t *testing.T) {
	keys := intenttest.Keys(t)
	fx := strategiestest.New(t, storetest.NewSQLite(t), nil)
	ag := &agents.Service{Store: fx.Store}
	osvc := &orders.Service{Store: fx.Store, Audit: &audit.Service{Store: fx.Store}}
	ctx, c := onDevServer(t, &activities.Strategies{Engine: fx.Engine, Intents: keys},
		&activities.AgentControls{Steps: ag, Orders: osvc})

	sc := workflows.StrategyDeskClient{Client: c, Intents: keys}
	svc := &workflows.StrategyDesk{Runs: sc, Strategies: &strategies.Service{Store: fx.Store, Resolver: strategiestest.Resolver{}}}
	user := strategies.Actor{By: strategies.ByUser, UserID: fx.UserID}
	create := func() string {
		t.Helper()
		st, err := svc.Create(ctx, fx.Actor(), strategies.CreateRequest{Type: "PRICE_ALERT", Config: json.RawMessage(alertBuy),
			MaxBudget: strategies.D(decimal.RequireFromString("20"))})
		if err != nil {
			t.Fatal(err)
		}
		return st.ID
	}
	a, b, mine := create(), create(), create()
	if _, err := svc.Pause(ctx, user, mine); err != nil {
		t.Fatal(err)
	}
	// Two of the agent's orders are still being placed (no workflow here:
	// the hint to them finds none, which is no error).
	var live []string
	for range 2 {
		o := &models.Order{AgentID: fx.AgentID, UserID: fx.UserID, WalletID: "wal_1", TokenID: strategiestest.Token, Side: "SELL",
			Type: "GTC", RequestType: "LIMIT", PriceMicro: 600_000, SizeMicro: 5_000_000, Status: models.OrderPending}
		if err := fx.Store.CreateOrder(ctx, o); err != nil {
			t.Fatal(err)
		}
		live = append(live, o.ID)
	}

	ctl := &workflows.Controls{Agents: ag, Runs: workflows.AgentControlClient{Client: c}}
	controlled := func(change func(context.Context, string, string, string) (agents.Agent, error)) workflows.AgentControlResult {
		t.Helper()
		if _, err := change(ctx, fx.UserID, fx.AgentID, "test"); err != nil {
			t.Fatal(err)
		}
		var res workflows.AgentControlResult
		if err := c.GetWorkflow(ctx, workflows.WorkflowID(workflows.KindAgentControl, fx.AgentID), "").Get(ctx, &res); err != nil {
			t.Fatal(err)
		}
		return res
	}
	await := func(id, status, pausedBy string) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			st, err := fx.Store.StrategyByID(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if st.Status == status && st.PausedBy == pausedBy {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("strategy %s is %s (paused by %q), want %s (%q)", id, st.Status, st.PausedBy, status, pausedBy)
			}
		}
	}

	if res := controlled(ctl.PauseAgent); res.Status != models.AgentPaused || res.Strategies != 3 || res.Cancelled != 0 {
		t.Fatalf("pause: %+v", res)
	}
	await(a, strategies.StatusPaused, strategies.PausedWithAgent)
	await(b, strategies.StatusPaused, strategies.PausedWithAgent)
	await(mine, strategies.StatusPaused, strategies.ByUser)

	controlled(ctl.ResumeAgent)
	await(a, strategies.StatusActive, "")
	await(b, strategies.StatusActive, "")
	await(mine, strategies.StatusPaused, strategies.ByUser)

	res := controlled(ctl.RevokeAgent)
	if res.Status != models.AgentRevoked || res.Cancelled != 2 || len(res.Failed) != 0 {
		t.Fatalf("revoke: %+v", res)
	}
	for _, id := range []string{a, b, mine} {
		var end strategies.State
		if err := c.GetWorkflow(ctx, id, "").Get(ctx, &end); err != nil || end.Status != strategies.StatusCancelled || end.EndedReason != strategies.EndAgentRevoked {
			t.Fatalf("strategy %s ended %+v %v", id, end, err)
		}
	}
	for _, id := range live {
		o, err := fx.Store.OrderByID(ctx, id)
		if err != nil || o.Status != models.OrderCancelled {
			t.Fatalf("the revoked agent's order %s: %+v %v", id, o, err)
		}
	}
	page, err := (&audit.Service{Store: fx.Store}).List(ctx, audit.Filter{AgentID: fx.AgentID, Action: audit.ActionOrderCancel})
	if err != nil || len(page.Entries) != 2 {
		t.Fatalf("order cancels audited: %+v %v", page.Entries, err)
	}
	if p := os.Getenv("ATS_RECORD_HISTORY"); p != "" {
		replaytest.WriteHistory(t, filepath.Join(p, "agent_control.json"),
			replaytest.History(t, ctx, c, workflows.WorkflowID(workflows.KindAgentControl, fx.AgentID), ""))
		replaytest.WriteHistory(t, filepath.Join(p, "strategy_agent.json"), replaytest.History(t, ctx, c, a, ""))
	}
}

// agentControlHistory and strategyAgentHistory were recorded by
// TestAgentControlOnDevServer (see there).
const (
	agentControlHistory  = "testdata/agent_control.json"
	strategyAgentHistory = "testdata/strategy_agent.json"
)

func TestAgentControlReplays(t *testing.T) {
	replaytest.ReplayFileWithOptions(t, agentControlHistory, replayOptions(t), workflows.All()...)
	replaytest.ReplayFileWithOptions(t, strategyAgentHistory, replayOptions(t), workflows.All()...)
}

// The replay can fail: a control workflow that cancels before it plans
// issues other commands than the recorded run.
func TestAgentControlReplayDetectsChanges(t *testing.T) {
	other := func(ctx workflow.Context, in workflows.AgentControlInput) (workflows.AgentControlResult, error) {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
		var a *activities.AgentControls
		var st activities.OrderState
		err := workflow.ExecuteActivity(ctx, a.CancelRevokedAgentOrder, in.AgentID).Get(ctx, &st)
		return workflows.AgentControlResult{}, err
	}
	if err := replaytest.Replay(agentControlHistory, replayOptions(t), replaytest.Named{Name: "AgentControl", Func: other}); err == nil {
		t.Fatal("replay of a changed control workflow succeeded")
	}
}
