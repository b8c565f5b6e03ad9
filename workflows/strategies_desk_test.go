package workflows_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/strategies/strategiestest"
	"github.com/agent-trading/ats/workflows"
)

// racingRuns stands in for the strategy workflow (StrategyDeskRuns): it
// applies changes with the engine, except that the first change of an
// action in raceOn meets an execution that moved the strategy on first
// (its version changes, the change is refused as made for another
// state), as a workflow that ran an execution between the desk's read
// and its update would.
type racingRuns struct {
	fx        *strategiestest.Env
	raceOn    string
	calls     int
	started   int
	failStart error
}

func (r *racingRuns) Start(context.Context, strategies.State) error {
	r.started++
	return r.failStart
}

func (r *racingRuns) Change(ctx context.Context, ch strategies.Change) (strategies.State, error) {
	r.calls++
	if ch.Action == r.raceOn && r.calls == 1 {
		until := time.Now().Add(48 * time.Hour).UTC()
		if _, err := r.fx.Engine.Apply(ctx, strategies.Change{StrategyID: ch.StrategyID, Action: strategies.ActionExtend,
			ExpiresAt: &until, By: strategies.ByAgent, Version: ch.Version}); err != nil {
			return strategies.State{}, err
		}
		return strategies.State{}, errs.E(errs.Conflict, "made for another version").WithCode(errs.CodeStrategyState)
	}
	return r.fx.Engine.Apply(ctx, ch)
}

func newDeskEnv(t *testing.T) (*strategiestest.Env, *racingRuns, *workflows.StrategyDesk) {
	t.Helper()
	fx := strategiestest.New(t, storetest.NewSQLite(t), nil)
	runs := &racingRuns{fx: fx}
	return fx, runs, &workflows.StrategyDesk{Strategies: fx.Service(nil), Runs: runs}
}

func createAlert(t *testing.T, fx *strategiestest.Env, d *workflows.StrategyDesk) (strategies.Strategy, error) {
	t.Helper()
	return d.Create(context.Background(), fx.Actor(), strategies.CreateRequest{Type: strategies.TypePriceAlert,
		Config:    json.RawMessage(`{"tokenId":"` + strategiestest.Token + `","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.35,"size":10}`),
		MaxBudget: strategies.D(decimal.RequireFromString("20"))})
}

// TestStrategyDeskRetriesAChangeThatRacedAnExecution: a pause refused
// because the strategy moved on meanwhile is prepared again for the
// version it has now and goes through; a patch, computed from the terms
// it read, is not sent again over other terms.
func TestStrategyDeskRetriesAChangeThatRacedAnExecution(t *testing.T) {
	ctx := context.Background()
	t.Run("pause", func(t *testing.T) {
		fx, runs, d := newDeskEnv(t)
		st, err := createAlert(t, fx, d)
		if err != nil {
			t.Fatal(err)
		}
		runs.raceOn = strategies.ActionPause
		got, err := d.Pause(ctx, fx.Actor(), st.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != strategies.StatusPaused || runs.calls != 2 {
			t.Fatalf("status %s after %d change calls, want PAUSED after 2", got.Status, runs.calls)
		}
	})
	t.Run("patch", func(t *testing.T) {
		fx, runs, d := newDeskEnv(t)
		st, err := createAlert(t, fx, d)
		if err != nil {
			t.Fatal(err)
		}
		runs.raceOn = strategies.ActionPatch
		_, err = d.Patch(ctx, fx.Actor(), st.ID, strategies.PatchRequest{Config: json.RawMessage(`{"triggerPrice":0.3}`)})
		if errs.CodeOf(err) != errs.CodeStrategyState || runs.calls != 1 {
			t.Fatalf("patch: %v after %d change calls, want %s after 1", err, runs.calls, errs.CodeStrategyState)
		}
	})
}

// TestStrategyDeskCreate: a strategy whose workflow does not start is
// withdrawn, and a desk without Temporal refuses before storing anything.
func TestStrategyDeskCreate(t *testing.T) {
	ctx := context.Background()
	fx, runs, d := newDeskEnv(t)
	runs.failStart = errs.E(errs.Transient, "temporal is down")
	if _, err := createAlert(t, fx, d); !errors.Is(err, runs.failStart) {
		t.Fatalf("create with a failing start: %v", err)
	}
	if list, err := d.List(ctx, fx.Actor(), strategies.ListFilter{}); err != nil || len(list) != 0 {
		t.Fatalf("after a failed start the agent has %d strategies (%v), want none", len(list), err)
	}
	d.Runs = nil
	if _, err := createAlert(t, fx, d); errs.KindOf(err) != errs.Internal {
		t.Fatalf("create without Temporal: %v", err)
	}
	if list, _ := d.List(ctx, fx.Actor(), strategies.ListFilter{}); len(list) != 0 || runs.started != 1 {
		t.Fatalf("%d strategies stored and %d starts, want 0 and 1", len(list), runs.started)
	}
	runs.failStart = nil
	d.Runs = runs
	st, err := createAlert(t, fx, d)
	if err != nil || st.Status != strategies.StatusActive {
		t.Fatalf("create: %+v %v", st, err)
	}
}
