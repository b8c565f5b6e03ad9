package strategies_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/strategies/strategiestest"
)

// stoppingPlacer pauses the agent just before the order service sees the
// order: the pause that lands between an execution's check and its
// placement.
type stoppingPlacer struct {
	inner *strategiestest.Placer
	st    *store.Store
}

func (p stoppingPlacer) Place(ctx context.Context, pr orders.Principal, r orders.PlaceRequest) (orders.PlaceResult, error) {
	if err := p.st.UpdateAgentStatus(ctx, pr.UserID, pr.AgentID, models.AgentPaused); err != nil {
		return orders.PlaceResult{}, err
	}
	return p.inner.Place(ctx, pr, r)
}

// TestStrategiesFollowTheirAgent: a paused agent's ACTIVE strategies are
// parked (PAUSED, pausedBy agent_paused) — by the hint (Reconcile), by
// their next execution, by their load — and act no more: an execution
// whose condition is met places nothing and records nothing, a step that
// gave up counts no error, and a pause that lands between the
// execution's check and its order (the order service refuses it
// agent_inactive) parks it too, without an error. The user cannot resume
// a parked strategy while the agent is paused, but may pause it (then it
// stays paused). Resuming the agent resumes exactly the strategies parked
// with it; revoking it cancels every strategy that is not final
// (agent_revoked). Each change is audited as the user's.
func TestStrategiesFollowTheirAgent(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		fx := strategiestest.New(t, st, nil)
		svc := &strategiestest.Desk{Runs: strategiestest.Direct{Engine: fx.Engine}, Service: &strategies.Service{Store: st, Resolver: strategiestest.Resolver{}}}
		user := strategies.Actor{By: strategies.ByUser, UserID: fx.UserID}
		alert := func() string {
			t.Helper()
			s, err := svc.Create(ctx, fx.Actor(), strategies.CreateRequest{Type: "PRICE_ALERT",
				Config:    json.RawMessage(`{"tokenId":"1001","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.35,"size":10}`),
				MaxBudget: strategies.D(decimal.RequireFromString("20"))})
			if err != nil {
				t.Fatal(err)
			}
			return s.ID
		}
		get := func(id string) *models.Strategy {
			t.Helper()
			s, err := st.StrategyByID(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		setAgent := func(status string) {
			t.Helper()
			if err := st.UpdateAgentStatus(ctx, fx.UserID, fx.AgentID, status); err != nil {
				t.Fatal(err)
			}
		}
		want := func(id, status, pausedBy string) {
			t.Helper()
			if s := get(id); s.Status != status || s.PausedBy != pausedBy {
				t.Fatalf("strategy %s is %s (paused by %q), want %s (%q)", id, s.Status, s.PausedBy, status, pausedBy)
			}
		}
		hinted, executed, loaded, mine, userPaused := alert(), alert(), alert(), alert(), alert()
		if _, err := svc.Pause(ctx, user, userPaused); err != nil {
			t.Fatal(err)
		}

		setAgent(models.AgentPaused)
		if s, err := fx.Engine.Reconcile(ctx, hinted); err != nil || s.Status != strategies.StatusPaused || s.PausedBy != strategies.PausedWithAgent {
			t.Fatalf("reconcile: %+v %v", s, err)
		}
		// The condition is met: the execution parks the strategy instead.
		fx.Book.Set(strategiestest.Token, "0.30", "0.34")
		out, err := fx.Engine.Execute(ctx, executed, 1)
		if err != nil || out.Executed || out.State.Status != strategies.StatusPaused || out.State.PausedBy != strategies.PausedWithAgent {
			t.Fatalf("execute for a paused agent: %+v %v", out, err)
		}
		if s, err := fx.Engine.Load(ctx, loaded); err != nil || s.Status != strategies.StatusPaused {
			t.Fatalf("load: %+v %v", s, err)
		}
		// A step that gave up while the agent is paused counts nothing.
		if s, err := fx.Engine.RecordFailure(ctx, mine, 1, "the execution failed"); err != nil || s.ConsecutiveErrors != 0 || s.Status != strategies.StatusPaused {
			t.Fatalf("record failure: %+v %v", s, err)
		}
		want(userPaused, strategies.StatusPaused, strategies.ByUser)
		if calls, placed := fx.Placer.Counts(); calls != 0 || placed != 0 {
			t.Fatalf("%d placements (%d placed) for a paused agent", calls, placed)
		}
		for _, id := range []string{hinted, executed, loaded, mine} {
			if s := get(id); s.Executions != 0 || s.ConsecutiveFailures != 0 || s.Triggers != "" {
				t.Fatalf("parked strategy %s: executions %d, failures %d, triggers %q", id, s.Executions, s.ConsecutiveFailures, s.Triggers)
			}
		}

		// The user resumes nothing of a paused agent; a pause of their own
		// keeps the strategy paused when the agent resumes.
		if _, err := svc.Resume(ctx, user, hinted); errs.CodeOf(err) != errs.CodeAgentInactive {
			t.Fatalf("resume of a parked strategy: %v", err)
		}
		if _, err := fx.Engine.Apply(ctx, strategies.Change{StrategyID: hinted, Action: strategies.ActionResume, By: strategies.ByUser,
			Version: get(hinted).Version}); errs.CodeOf(err) != errs.CodeAgentInactive {
			t.Fatalf("the workflow's resume step for a paused agent: %v", err)
		}
		if _, err := svc.Pause(ctx, user, mine); err != nil {
			t.Fatalf("the user pauses a parked strategy: %v", err)
		}
		want(mine, strategies.StatusPaused, strategies.ByUser)

		setAgent(models.AgentActive)
		for _, id := range []string{hinted, executed, loaded, mine, userPaused} {
			if _, err := fx.Engine.Reconcile(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
		for _, id := range []string{hinted, executed, loaded} {
			want(id, strategies.StatusActive, "")
			if get(id).Triggers == "" {
				t.Fatalf("strategy %s resumed unarmed", id)
			}
		}
		want(mine, strategies.StatusPaused, strategies.ByUser)
		want(userPaused, strategies.StatusPaused, strategies.ByUser)

		// Paused between the execution's check and its order: the order
		// service refuses it, and the strategy is parked, with no error.
		fx.Engine.Orders = stoppingPlacer{inner: fx.Placer, st: st}
		out, err = fx.Engine.Execute(ctx, hinted, 1)
		if err != nil || out.Executed || out.State.Status != strategies.StatusPaused || out.State.PausedBy != strategies.PausedWithAgent {
			t.Fatalf("execute paused mid-way: %+v %v", out, err)
		}
		if s := get(hinted); s.ConsecutiveFailures != 0 || s.Executions != 0 || s.LastError != "" {
			t.Fatalf("after the refused order: %+v", s)
		}
		fx.Engine.Orders = fx.Placer

		setAgent(models.AgentRevoked)
		for _, id := range []string{hinted, executed, loaded, mine, userPaused} {
			if _, err := fx.Engine.Reconcile(ctx, id); err != nil {
				t.Fatal(err)
			}
			if s := get(id); s.Status != strategies.StatusCancelled || s.EndedReason != strategies.EndAgentRevoked {
				t.Fatalf("strategy %s of a revoked agent: %s (%s)", id, s.Status, s.EndedReason)
			}
		}
		if calls, _ := fx.Placer.Counts(); calls != 1 {
			t.Fatalf("%d placements, want only the one the pause refused", calls)
		}
		page, err := (&audit.Service{Store: st}).List(ctx, audit.Filter{AgentID: fx.AgentID, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		reasons := map[string]int{}
		for _, e := range page.Entries {
			var d struct{ By, Reason string }
			_ = json.Unmarshal(e.Detail, &d)
			if d.Reason != "" {
				if d.By != strategies.ByUser {
					t.Fatalf("audit %s %s by %q", e.Action, e.Target, d.By)
				}
				reasons[e.Action+" "+d.Reason]++
			}
		}
		wantReasons := map[string]int{"strategy.pause agent_paused": 4 + 1, "strategy.resume agent_resumed": 3, "strategy.cancel agent_revoked": 5}
		for k, n := range wantReasons {
			if reasons[k] != n {
				t.Fatalf("audit entries %v, want %v", reasons, wantReasons)
			}
		}
	})
}

// TestAllowedFor: a strategy paused with its agent can be paused by a
// person (it then stays paused), nothing else changes in the lifecycle.
func TestAllowedFor(t *testing.T) {
	for _, tc := range []struct {
		action, status, pausedBy string
		ok                       bool
	}{
		{strategies.ActionPause, strategies.StatusPaused, strategies.PausedWithAgent, true},
		{strategies.ActionPause, strategies.StatusPaused, strategies.ByUser, false},
		{strategies.ActionPause, strategies.StatusActive, "", true},
		{strategies.ActionResume, strategies.StatusPaused, strategies.PausedWithAgent, true},
		{strategies.ActionCancel, strategies.StatusPaused, strategies.PausedWithAgent, true},
		{strategies.ActionPause, strategies.StatusCancelled, "", false},
	} {
		if err := strategies.AllowedFor(tc.action, tc.status, tc.pausedBy); (err == nil) != tc.ok {
			t.Errorf("%s of %s (paused by %q): %v, want ok=%v", tc.action, tc.status, tc.pausedBy, err, tc.ok)
		}
	}
}
