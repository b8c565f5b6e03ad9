package workflows_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/errs/temporalerr"
	"github.com/agent-trading/ats/models/intent"
	"github.com/agent-trading/ats/models/intent/intenttest"
	"github.com/agent-trading/ats/models/markets"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/strategies/strategiestest"
	"github.com/agent-trading/ats/workflows"
)

// noStart is a StrategyDeskRuns for creating strategies that the test then runs in
// the test environment itself.
type noStart struct{}

func (noStart) Start(context.Context, strategies.State) error { return nil }
func (noStart) Change(context.Context, strategies.Change) (strategies.State, error) {
	return strategies.State{}, errs.E(errs.Internal, "not in this test")
}

type strategyRig struct {
	t    *testing.T
	env  *testsuite.TestWorkflowEnvironment
	fx   *strategiestest.Env
	svc  *workflows.StrategyDesk
	keys *intent.Keys
	id   string
	// shape is the run's StrategyInput.Shape: the current shape
	// (workflows.StrategyShapeCurrent) unless a test of an older one sets
	// it to 0 before run.
	shape int
	// venue starts the orders of runs at the current shape; it holds
	// them PENDING while venue.hold.on.
	venue venueStarter
}

func newStrategyRig(t *testing.T, typ, config, budget string) *strategyRig {
	t.Helper()
	var ts testsuite.WorkflowTestSuite
	env := ts.NewTestWorkflowEnvironment()
	// The environment panics when no activity answers for its test timeout
	// (3 s by default): on a loaded machine under -race one SQLite write
	// can take that long, and the 200-execution run met it.
	env.SetTestTimeout(time.Minute)
	fx := strategiestest.New(t, storetest.NewSQLite(t), env.Now)
	r := &strategyRig{t: t, env: env, fx: fx, keys: intenttest.Keys(t), shape: workflows.StrategyShapeCurrent}
	r.svc = &workflows.StrategyDesk{Runs: noStart{}, Strategies: &strategies.Service{Store: fx.Store, Resolver: strategiestest.Resolver{}, Now: env.Now}}
	env.RegisterWorkflow(workflows.Strategy)
	env.RegisterActivity(&activities.Strategies{Engine: fx.Engine, Intents: r.keys})
	r.venue = venueStarter{env: env, fx: fx, hold: &heldPlacements{}}
	env.RegisterActivity(&workflows.StrategyPlacer{Engine: fx.Engine, Orders: r.venue})
	registerVenueOrders(env, fx)
	b := &strategies.Dec{}
	if err := b.UnmarshalJSON([]byte(budget)); err != nil {
		t.Fatal(err)
	}
	st, err := r.svc.Create(context.Background(), fx.Actor(), strategies.CreateRequest{Type: typ, Config: json.RawMessage(config), MaxBudget: b})
	if err != nil {
		t.Fatal(err)
	}
	r.id = st.ID
	return r
}

// at runs fn at workflow time d after the start.
func (r *strategyRig) at(d time.Duration, fn func()) { r.env.RegisterDelayedCallback(fn, d) }

func (r *strategyRig) hint() {
	r.env.SignalWorkflow(workflows.StrategySignalPrice, nil)
}

type updateResult struct {
	done     bool
	rejected error
	err      error
	state    strategies.State
}

// change sends a vouched change as the user or agent would: for the
// strategy's version as stored now.
func (r *strategyRig) change(action, by string, ch strategies.Change) *updateResult {
	ch.StrategyID, ch.Action, ch.By, ch.Version = r.id, action, by, r.stored().Version
	return r.send(ch)
}

// send sends ch with a valid proof of exactly its fields.
func (r *strategyRig) send(ch strategies.Change) *updateResult {
	kind, _ := activities.ProofKind(ch.Action)
	ch.Proof = r.keys.Sign(kind, ch.ProofFields()...)
	res := &updateResult{}
	r.env.UpdateWorkflow(ch.Action, fmt.Sprintf("%s-%d", ch.Action, time.Now().UnixNano()), &testsuite.TestUpdateCallback{
		OnAccept: func() {},
		OnReject: func(err error) { res.done, res.rejected = true, err },
		OnComplete: func(v any, err error) {
			res.done, res.err = true, err
			if s, ok := v.(strategies.State); ok {
				res.state = s
			}
		},
	}, ch)
	return res
}

func (r *strategyRig) run() strategies.State {
	r.t.Helper()
	r.env.ExecuteWorkflow(workflows.Strategy, workflows.StrategyInput{StrategyID: r.id, Shape: r.shape})
	if !r.env.IsWorkflowCompleted() {
		r.t.Fatal("the workflow did not complete")
	}
	if err := r.env.GetWorkflowError(); err != nil {
		r.t.Fatal(err)
	}
	var st strategies.State
	if err := r.env.GetWorkflowResult(&st); err != nil {
		r.t.Fatal(err)
	}
	return st
}

func (r *strategyRig) stored() *models.Strategy {
	st, err := r.fx.Store.StrategyByID(context.Background(), r.id)
	if err != nil {
		r.t.Fatal(err)
	}
	return st
}

func (r *strategyRig) executions() []models.StrategyExecution {
	ex, err := r.fx.Store.ListStrategyExecutions(context.Background(), r.id, 100)
	if err != nil {
		r.t.Fatal(err)
	}
	return ex
}

// events returns the agent's strategy events as "TYPE/actor", oldest first.
func (r *strategyRig) events() []string {
	c, err := r.fx.Store.ClaimHeartbeat(context.Background(), "key_"+r.id, r.fx.AgentID, true, nil, 100)
	if err != nil {
		r.t.Fatal(err)
	}
	var out []string
	for _, e := range c.Events {
		if e.StrategyID != r.id {
			r.t.Fatalf("event of another strategy: %+v", e)
		}
		out = append(out, e.Type+"/"+e.Actor)
	}
	return out
}

func sameList(a []string, b ...string) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

const alertBuy = `{"tokenId":"1001","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.35,"size":10}`

func TestPriceAlertFiresOnceAndCompletes(t *testing.T) {
	r := newStrategyRig(t, "PRICE_ALERT", alertBuy, "20")
	// A hint the re-check does not confirm (ask 0.42 > 0.35) places nothing.
	r.at(time.Minute, r.hint)
	r.at(2*time.Minute, func() {
		if _, placed := r.fx.Placer.Counts(); placed != 0 {
			t.Errorf("an unconfirmed hint placed %d orders", placed)
		}
		if st := r.stored(); st.Status != strategies.StatusActive || st.Triggers == "" {
			t.Errorf("after an unconfirmed hint: %s, triggers %q", st.Status, st.Triggers)
		}
		r.fx.Book.Set(strategiestest.Token, "0.30", "0.34")
		r.hint()
	})
	st := r.run()
	if st.Status != strategies.StatusCompleted || st.EndedReason != strategies.EndFired {
		t.Fatalf("ended %s (%s)", st.Status, st.EndedReason)
	}
	calls, placed := r.fx.Placer.Counts()
	if calls != 1 || placed != 1 {
		t.Fatalf("place calls %d, placed %d", calls, placed)
	}
	req := r.fx.Placer.Requests[0]
	// A market order walks the book up to triggerPrice + 0.02, fill-and-kill.
	if req.Side != "BUY" || req.Type != "FAK" || req.Price.String() != "0.37" || req.Size.String() != "10" ||
		req.IdempotencyKey != strategies.IdempotencyKey(r.id, 1) || req.StrategyID != r.id {
		t.Fatalf("placed %+v", req)
	}
	row := r.stored()
	if row.BudgetUsedMicro != 3_400_000 || row.Triggers != "" || row.Executions != 1 {
		t.Fatalf("stored budget %d, triggers %q, executions %d", row.BudgetUsedMicro, row.Triggers, row.Executions)
	}
	ex := r.executions()
	if len(ex) != 1 || ex[0].Kind != strategies.KindAction || ex[0].OrderID == nil || ex[0].AmountMicro != 3_400_000 {
		t.Fatalf("executions %+v", ex)
	}
	if ev := r.events(); !sameList(ev, "STRATEGY_EXECUTED/system", "STRATEGY_COMPLETED/system") {
		t.Fatalf("events %v", ev)
	}
}

func TestRecurringBuyBuysEachIntervalSkipsAboveLimitAndCompletesOnBudget(t *testing.T) {
	r := newStrategyRig(t, "RECURRING_BUY", `{"tokenId":"1001","amountPerInterval":5,"intervalMs":60000,"priceLimit":0.5}`, "12")
	// First buy at once (ask 0.42); the second interval finds the ask
	// above the limit and skips; then two more buys spend the budget.
	r.at(30*time.Second, func() { r.fx.Book.Set(strategiestest.Token, "0.50", "0.55") })
	r.at(90*time.Second, func() { r.fx.Book.Set(strategiestest.Token, "0.40", "0.42") })
	st := r.run()
	if st.Status != strategies.StatusCompleted || st.EndedReason != strategies.EndBudget {
		t.Fatalf("ended %s (%s)", st.Status, st.EndedReason)
	}
	ex := r.executions()
	kinds := ""
	var spent int64
	for i := len(ex) - 1; i >= 0; i-- {
		kinds += ex[i].Kind[:1]
		spent += ex[i].AmountMicro
	}
	// action, skip, action, action (the last one buys what the budget has left).
	if kinds != "asaa" {
		t.Fatalf("execution kinds %q: %+v", kinds, ex)
	}
	if ex[len(ex)-2].Reason == "" || ex[2].Kind != strategies.KindSkip {
		t.Fatalf("skip not explained: %+v", ex[2])
	}
	row := r.stored()
	if row.BudgetUsedMicro != spent || row.BudgetUsedMicro > row.MaxBudgetMicro {
		t.Fatalf("budget used %d, executions add up to %d, max %d", row.BudgetUsedMicro, spent, row.MaxBudgetMicro)
	}
	// 5/0.42 → 11.90 shares = 4.998; twice; then what the 2.004 left pays
	// at the bound (priceLimit 0.5), 4 shares, filled at 0.42 = 1.68.
	if want := int64(4_998_000 + 4_998_000 + 1_680_000); spent != want {
		t.Fatalf("spent %d, want %d", spent, want)
	}
}

func TestRecurringBuyStopsAtMaxTotalAmount(t *testing.T) {
	r := newStrategyRig(t, "RECURRING_BUY", `{"tokenId":"1001","amountPerInterval":2.1,"interval":"1h","maxTotalAmount":4.2}`, "100")
	st := r.run()
	if st.Status != strategies.StatusCompleted || st.EndedReason != strategies.EndTotal {
		t.Fatalf("ended %s (%s)", st.Status, st.EndedReason)
	}
	if _, placed := r.fx.Placer.Counts(); placed != 2 {
		t.Fatalf("placed %d, want 2", placed)
	}
	// 2.1 buys 5 shares at 0.42; then the 2.1 left pays 4.77 shares at
	// the bound (0.44): 2.0034 at 0.42, which leaves less than the $1
	// minimum of maxTotalAmount.
	if used := r.stored().BudgetUsedMicro; used != 4_103_400 {
		t.Fatalf("used %d", used)
	}
}

func TestBuyLowSellHighCycles(t *testing.T) {
	r := newStrategyRig(t, "BUY_LOW_SELL_HIGH", `{"tokenId":"1001","buyBelow":0.40,"sellAbove":0.60,"sizePerTrade":10}`, "100")
	r.at(time.Minute, func() { r.fx.Book.Set(strategiestest.Token, "0.37", "0.39"); r.hint() })
	r.at(2*time.Minute, func() {
		row := r.stored()
		if row.OpenSizeMicro != 10_000_000 {
			t.Errorf("after the buy: open %d", row.OpenSizeMicro)
		}
		var conds []strategies.Cond
		_ = json.Unmarshal([]byte(row.Triggers), &conds)
		if len(conds) != 1 || conds[0].Field != strategies.FieldBestBid || conds[0].Op != ">=" {
			t.Errorf("after the buy the strategy waits for %+v (maxOpenSize reached: only the sell)", conds)
		}
		// A second hint at a low price buys nothing more: no room.
		r.hint()
	})
	r.at(3*time.Minute, func() { r.fx.Book.Set(strategiestest.Token, "0.61", "0.63"); r.hint() })
	r.at(4*time.Minute, func() { r.fx.Book.Set(strategiestest.Token, "0.38", "0.39"); r.hint() })
	r.at(5*time.Minute, func() { r.change(strategies.ActionCancel, strategies.ByAgent, strategies.Change{}) })
	st := r.run()
	if st.Status != strategies.StatusCancelled {
		t.Fatalf("ended %s", st.Status)
	}
	var sides string
	for _, q := range r.fx.Placer.Requests {
		sides += q.Side[:1]
	}
	if sides != "BSB" {
		t.Fatalf("orders %q, want buy, sell, buy", sides)
	}
	if r.fx.Placer.Requests[1].Size.String() != "10" || r.fx.Placer.Requests[1].Price.String() != "0.6" {
		t.Fatalf("sell %+v: sells exactly what it bought, at sellAbove or better", r.fx.Placer.Requests[1])
	}
	if row := r.stored(); row.OpenSizeMicro != 10_000_000 || row.BudgetUsedMicro != 3_900_000+3_900_000 {
		t.Fatalf("open %d, used %d", row.OpenSizeMicro, row.BudgetUsedMicro)
	}
}

func TestThreeFailedExecutionsPutTheStrategyInErrorAndResumeResets(t *testing.T) {
	r := newStrategyRig(t, "PRICE_ALERT", alertBuy, "20")
	r.fx.Book.Set(strategiestest.Token, "0.30", "0.34")
	r.fx.Placer.Set(func(p *strategiestest.Placer) {
		p.Fail = errs.E(errs.Conflict, "insufficient balance").WithCode(errs.CodeInsufficientBalance)
	})
	for i := 1; i <= 3; i++ {
		r.at(time.Duration(i)*time.Minute, r.hint)
	}
	var resumed *updateResult
	r.at(4*time.Minute, func() {
		row := r.stored()
		if row.Status != strategies.StatusError || row.ConsecutiveFailures != 3 || row.LastError == "" || row.Triggers != "" {
			t.Errorf("after 3 failures: %s, %d failures, last error %q, triggers %q", row.Status, row.ConsecutiveFailures, row.LastError, row.Triggers)
		}
		// An ERROR strategy is not executed: a hint does nothing.
		r.hint()
	})
	r.at(5*time.Minute, func() {
		r.fx.Placer.Set(func(p *strategiestest.Placer) { p.Fail = nil })
		resumed = r.change(strategies.ActionResume, strategies.ByUser, strategies.Change{})
	})
	r.at(6*time.Minute, r.hint)
	st := r.run()
	if !resumed.done || resumed.err != nil || resumed.rejected != nil || resumed.state.Status != strategies.StatusActive || resumed.state.ConsecutiveErrors != 0 {
		t.Fatalf("resume: %+v", resumed)
	}
	if st.Status != strategies.StatusCompleted {
		t.Fatalf("ended %s", st.Status)
	}
	calls, placed := r.fx.Placer.Counts()
	if calls != 4 || placed != 1 {
		t.Fatalf("place calls %d (3 failed + 1), placed %d", calls, placed)
	}
	ex := r.executions()
	if len(ex) != 4 || ex[3].Kind != strategies.KindError || ex[0].Kind != strategies.KindAction || ex[0].Seq != 4 {
		t.Fatalf("executions %+v", ex)
	}
	if ev := r.events(); !sameList(ev, "STRATEGY_ERROR/system", "STRATEGY_EXECUTED/system", "STRATEGY_COMPLETED/system") {
		t.Fatalf("events %v", ev)
	}
}

func TestTransientFailuresAreRetriedThenCounted(t *testing.T) {
	r := newStrategyRig(t, "PRICE_ALERT", alertBuy, "20")
	r.fx.Book.Set(strategiestest.Token, "0.30", "0.34")
	r.fx.Placer.Set(func(p *strategiestest.Placer) { p.Fail = errs.E(errs.Transient, "venue unavailable") })
	r.at(time.Minute, r.hint)
	r.at(time.Hour, func() { r.change(strategies.ActionCancel, strategies.ByAgent, strategies.Change{}) })
	r.run()
	calls, _ := r.fx.Placer.Counts()
	ex := r.executions()
	if calls != 4 || len(ex) != 1 || ex[0].Kind != strategies.KindError || r.stored().ConsecutiveFailures != 1 {
		t.Fatalf("calls %d, executions %+v", calls, ex)
	}
}

func TestAPIStrategyExpiresAfter24HoursUnlessExtended(t *testing.T) {
	t.Run("expires", func(t *testing.T) {
		r := newStrategyRig(t, "PRICE_ALERT", alertBuy, "20")
		start := r.env.Now()
		st := r.run()
		if st.Status != strategies.StatusCancelled || st.EndedReason != strategies.EndExpired {
			t.Fatalf("ended %s (%s)", st.Status, st.EndedReason)
		}
		if took := r.env.Now().Sub(start); took < 24*time.Hour-time.Second || took > 24*time.Hour+time.Minute {
			t.Fatalf("expired after %s", took)
		}
		if ev := r.events(); !sameList(ev, "STRATEGY_CANCELLED/system") {
			t.Fatalf("events %v", ev)
		}
	})
	t.Run("extended", func(t *testing.T) {
		r := newStrategyRig(t, "PRICE_ALERT", alertBuy, "20")
		start := r.env.Now()
		var ext *updateResult
		r.at(time.Hour, func() {
			until := start.Add(72 * time.Hour)
			ext = r.change(strategies.ActionExtend, strategies.ByUser, strategies.Change{ExpiresAt: &until})
		})
		st := r.run()
		if ext.err != nil || ext.rejected != nil {
			t.Fatalf("extend: %+v", ext)
		}
		if st.EndedReason != strategies.EndExpired {
			t.Fatalf("ended %s", st.EndedReason)
		}
		if took := r.env.Now().Sub(start); took < 72*time.Hour-time.Second || took > 72*time.Hour+time.Minute {
			t.Fatalf("expired after %s", took)
		}
	})
}

func TestPauseResumeCancelFollowTheLifecycle(t *testing.T) {
	r := newStrategyRig(t, "PRICE_ALERT", alertBuy, "20")
	var paused, pauseAgain, resumed, cancelled, unvouched *updateResult
	r.at(time.Minute, func() { paused = r.change(strategies.ActionPause, strategies.ByUser, strategies.Change{}) })
	r.at(2*time.Minute, func() {
		pauseAgain = r.change(strategies.ActionPause, strategies.ByAgent, strategies.Change{})
		row := r.stored()
		if row.Status != strategies.StatusPaused || row.PausedBy != strategies.ByUser || row.Triggers != "" {
			t.Errorf("paused: %s by %q, triggers %q", row.Status, row.PausedBy, row.Triggers)
		}
		// Paused, a met price is not acted on.
		r.fx.Book.Set(strategiestest.Token, "0.30", "0.34")
		r.hint()
	})
	r.at(3*time.Minute, func() {
		r.fx.Book.Set(strategiestest.Token, "0.40", "0.42")
		resumed = r.change(strategies.ActionResume, strategies.ByAgent, strategies.Change{})
	})
	r.at(4*time.Minute, func() {
		res := &updateResult{}
		r.env.UpdateWorkflow(strategies.ActionPause, "forged", &testsuite.TestUpdateCallback{
			OnAccept: func() {}, OnReject: func(err error) { res.done, res.rejected = true, err },
			OnComplete: func(_ any, err error) { res.done, res.err = true, err },
		}, strategies.Change{By: strategies.ByUser})
		unvouched = res
	})
	r.at(5*time.Minute, func() { cancelled = r.change(strategies.ActionCancel, strategies.ByUser, strategies.Change{}) })
	st := r.run()
	if paused.state.Status != strategies.StatusPaused || paused.state.PausedBy != strategies.ByUser {
		t.Fatalf("pause answered %+v", paused)
	}
	if pauseAgain.rejected == nil || errs.CodeOf(temporalerr.From(pauseAgain.rejected)) != errs.CodeStrategyState {
		t.Fatalf("pausing a paused strategy: %+v", pauseAgain)
	}
	if resumed.state.Status != strategies.StatusActive {
		t.Fatalf("resume answered %+v", resumed)
	}
	if unvouched.rejected == nil || errs.CodeOf(temporalerr.From(unvouched.rejected)) != errs.CodeUnvouchedRequest {
		t.Fatalf("a change without a proof: %+v", unvouched)
	}
	if cancelled.state.Status != strategies.StatusCancelled {
		t.Fatalf("cancel answered %+v", cancelled)
	}
	if st.Status != strategies.StatusCancelled || st.EndedReason != strategies.EndCancelled {
		t.Fatalf("ended %+v", st)
	}
	if _, placed := r.fx.Placer.Counts(); placed != 0 {
		t.Fatalf("a paused strategy placed %d orders", placed)
	}
	if ev := r.events(); !sameList(ev, "STRATEGY_PAUSED/user", "STRATEGY_CANCELLED/user") {
		t.Fatalf("events %v", ev)
	}
}

func TestForgedProofIsRefusedByTheActivity(t *testing.T) {
	r := newStrategyRig(t, "PRICE_ALERT", alertBuy, "20")
	var forged *updateResult
	r.at(time.Minute, func() {
		ch := strategies.Change{StrategyID: r.id, Action: strategies.ActionCancel, By: strategies.ByUser, Version: r.stored().Version}
		ch.Proof = r.keys.Sign(intent.StrategyPause, ch.ProofFields()...)
		res := &updateResult{}
		r.env.UpdateWorkflow(strategies.ActionCancel, "forged", &testsuite.TestUpdateCallback{
			OnAccept: func() {}, OnReject: func(err error) { res.done, res.rejected = true, err },
			OnComplete: func(_ any, err error) { res.done, res.err = true, err },
		}, ch)
		forged = res
	})
	r.at(2*time.Minute, func() { r.change(strategies.ActionCancel, strategies.ByAgent, strategies.Change{}) })
	r.run()
	if forged.err == nil || errs.CodeOf(temporalerr.From(forged.err)) != errs.CodeUnvouchedRequest {
		t.Fatalf("a pause proof used for a cancel: %+v", forged)
	}
	if r.stored().EndedReason != strategies.EndCancelled {
		t.Fatal("the real cancel did not apply")
	}
}

func TestCancelDuringAnExecutionWaitsForIt(t *testing.T) {
	r := newStrategyRig(t, "BUY_LOW_SELL_HIGH", `{"tokenId":"1001","buyBelow":0.40,"sellAbove":0.60,"sizePerTrade":10}`, "100")
	r.fx.Book.Set(strategiestest.Token, "0.37", "0.39")
	release := make(chan struct{})
	r.fx.Placer.Set(func(p *strategiestest.Placer) { p.Block = release })
	var cancelled *updateResult
	r.at(time.Minute, r.hint)
	// The execution is blocked in Place: the cancel arrives meanwhile and
	// waits for it.
	r.at(time.Minute+time.Millisecond, func() {
		cancelled = r.change(strategies.ActionCancel, strategies.ByUser, strategies.Change{})
		if cancelled.done {
			t.Error("the cancel did not wait for the execution in flight")
		}
		close(release)
	})
	st := r.run()
	if !cancelled.done || cancelled.state.Status != strategies.StatusCancelled || st.Status != strategies.StatusCancelled {
		t.Fatalf("cancel %+v, ended %s", cancelled, st.Status)
	}
	ex := r.executions()
	if len(ex) != 1 || ex[0].Kind != strategies.KindAction || ex[0].OrderID == nil {
		t.Fatalf("the execution in flight was not recorded: %+v", ex)
	}
}

func TestPatchChangesTheTriggerAndBudget(t *testing.T) {
	r := newStrategyRig(t, "PRICE_ALERT", alertBuy, "20")
	r.svc.Runs = rigRunner{r}
	r.at(time.Minute, func() {
		// The rig's runner queues the update; its effect is checked below.
		if _, err := r.svc.Patch(context.Background(), r.fx.Actor(), r.id, strategies.PatchRequest{
			Config: json.RawMessage(`{"triggerPrice":0.45}`), MaxBudget: strategies.D(decimal.RequireFromString("30")),
		}); err != nil {
			t.Error(err)
		}
	})
	r.at(2*time.Minute, r.hint)
	st := r.run()
	if st.Status != strategies.StatusCompleted {
		t.Fatalf("ended %s: the patched trigger (0.45 ≥ ask 0.42) did not fire", st.Status)
	}
	if row := r.stored(); row.MaxBudgetMicro != 30_000_000 {
		t.Fatalf("budget %d", row.MaxBudgetMicro)
	}
}

// rigRunner sends the service's changes into the rig's workflow (queued:
// the test environment runs them when the callback returns).
type rigRunner struct{ r *strategyRig }

func (rigRunner) Start(context.Context, strategies.State) error { return nil }
func (g rigRunner) Change(_ context.Context, ch strategies.Change) (strategies.State, error) {
	g.r.change(ch.Action, ch.By, ch)
	return strategies.State{}, nil
}

// A run continues as new after strategyRunExecutions (200) executions:
// the history stays bounded however long a strategy runs.
func TestStrategyContinuesAsNewAfter200Executions(t *testing.T) {
	r := newStrategyRig(t, "RECURRING_BUY", `{"tokenId":"1001","amountPerInterval":1.05,"intervalMs":60000}`, "100000")
	r.env.ExecuteWorkflow(workflows.Strategy, workflows.StrategyInput{StrategyID: r.id, Shape: r.shape})
	err := r.env.GetWorkflowError()
	if !workflow.IsContinueAsNewError(err) {
		t.Fatalf("the run ended with %v, want continue-as-new", err)
	}
	if n := r.stored().Executions; n != 200 {
		t.Fatalf("%d executions in the run, want 200", n)
	}
}

// Every non-final status ends in CANCELLED by a cancel or the expiry:
// a PAUSED strategy and one auto-paused in ERROR alike.
func TestPausedAndErroredStrategiesCancelAndExpire(t *testing.T) {
	pause := func(r *strategyRig) {
		r.at(time.Minute, func() { r.change(strategies.ActionPause, strategies.ByAgent, strategies.Change{}) })
	}
	fail := func(r *strategyRig) {
		r.fx.Book.Set(strategiestest.Token, "0.30", "0.34")
		r.fx.Placer.Set(func(p *strategiestest.Placer) {
			p.Fail = errs.E(errs.Conflict, "insufficient balance").WithCode(errs.CodeInsufficientBalance)
		})
		for i := 1; i <= 3; i++ {
			r.at(time.Duration(i)*time.Minute, r.hint)
		}
	}
	for _, tc := range []struct {
		name   string
		into   func(*strategyRig)
		status string
		cancel bool
		ended  string
	}{
		{"paused, cancelled", pause, strategies.StatusPaused, true, strategies.EndCancelled},
		{"paused, expired", pause, strategies.StatusPaused, false, strategies.EndExpired},
		{"in error, cancelled", fail, strategies.StatusError, true, strategies.EndCancelled},
		{"in error, expired", fail, strategies.StatusError, false, strategies.EndExpired},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newStrategyRig(t, "PRICE_ALERT", alertBuy, "20")
			tc.into(r)
			r.at(10*time.Minute, func() {
				if got := r.stored().Status; got != tc.status {
					t.Errorf("status %s, want %s", got, tc.status)
				}
			})
			var cancelled *updateResult
			if tc.cancel {
				r.at(11*time.Minute, func() { cancelled = r.change(strategies.ActionCancel, strategies.ByUser, strategies.Change{}) })
			}
			st := r.run()
			if st.Status != strategies.StatusCancelled || st.EndedReason != tc.ended {
				t.Fatalf("ended %s (%s), want CANCELLED (%s)", st.Status, st.EndedReason, tc.ended)
			}
			if tc.cancel && (cancelled.err != nil || cancelled.rejected != nil || cancelled.state.Status != strategies.StatusCancelled) {
				t.Fatalf("cancel: %+v", cancelled)
			}
			if _, placed := r.fx.Placer.Counts(); placed != 0 {
				t.Fatalf("%d orders placed", placed)
			}
		})
	}
}

// BUY_LOW_SELL_HIGH completes when its budget cannot buy another lot and
// it holds nothing: after its second cycle (2 × 10 shares at up to 0.40
// of a budget of 8) it ends budget_exhausted with its last sell.
func TestBuyLowSellHighCompletesWhenItsBudgetIsSpent(t *testing.T) {
	r := newStrategyRig(t, "BUY_LOW_SELL_HIGH", `{"tokenId":"1001","buyBelow":0.40,"sellAbove":0.60,"sizePerTrade":10}`, "8")
	r.fx.Placer.Book = nil // each lot fills at its worst price, 0.40: two spend the budget exactly
	for i, top := range [][2]string{{"0.37", "0.39"}, {"0.61", "0.63"}, {"0.37", "0.39"}, {"0.61", "0.63"}} {
		r.at(time.Duration(i+1)*time.Minute, func() { r.fx.Book.Set(strategiestest.Token, top[0], top[1]); r.hint() })
	}
	st := r.run()
	if st.Status != strategies.StatusCompleted || st.EndedReason != strategies.EndBudget {
		t.Fatalf("ended %s (%s)", st.Status, st.EndedReason)
	}
	var sides string
	for _, q := range r.fx.Placer.Requests {
		sides += q.Side[:1]
	}
	if row := r.stored(); sides != "BSBS" || row.OpenSizeMicro != 0 || row.BudgetUsedMicro != 8_000_000 {
		t.Fatalf("orders %q, open %d, budget used %d", sides, row.OpenSizeMicro, row.BudgetUsedMicro)
	}
}

// newMarketRig is newStrategyRig for a strategy whose market ends: the
// service and the engine read the fake venue's markets.
func newMarketRig(t *testing.T, typ, config, budget string, setup func(fx *strategiestest.Env, now time.Time)) *strategyRig {
	t.Helper()
	var ts testsuite.WorkflowTestSuite
	env := ts.NewTestWorkflowEnvironment()
	fx := strategiestest.New(t, storetest.NewSQLite(t), env.Now)
	setup(fx, env.Now())
	r := &strategyRig{t: t, env: env, fx: fx, keys: intenttest.Keys(t), shape: workflows.StrategyShapeCurrent}
	r.svc = &workflows.StrategyDesk{Strategies: fx.Service(env.Now), Runs: noStart{}}
	env.RegisterWorkflow(workflows.Strategy)
	env.RegisterActivity(&activities.Strategies{Engine: fx.Engine, Intents: r.keys})
	env.RegisterActivity(&workflows.StrategyPlacer{Engine: fx.Engine, Orders: venueStarter{env: env, fx: fx}})
	registerVenueOrders(env, fx)
	b := &strategies.Dec{}
	if err := b.UnmarshalJSON([]byte(budget)); err != nil {
		t.Fatal(err)
	}
	st, err := r.svc.Create(context.Background(), fx.Actor(), strategies.CreateRequest{Type: typ, Config: json.RawMessage(config), MaxBudget: b})
	if err != nil {
		t.Fatal(err)
	}
	r.id = st.ID
	return r
}

// A strategy wakes at its market's end date with no price event: a
// marketQuery moves to the window it names then, and a tokenId strategy
// whose market no longer trades ends (market_closed).
func TestMarketEndWakesTheStrategy(t *testing.T) {
	const next = "3003"
	t.Run("marketQuery moves on", func(t *testing.T) {
		r := newMarketRig(t, "PRICE_ALERT", `{"marketQuery":"btc 15m up","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.3,"size":10}`, "20",
			func(fx *strategiestest.Env, now time.Time) {
				end, after := now.Add(15*time.Minute), now.Add(30*time.Minute)
				fx.Markets.Set(markets.TokenMarket{TokenID: strategiestest.Token, Question: "BTC 12:00-12:15", Outcome: "Up", EndDate: &end, AcceptingOrders: true})
				fx.Markets.Set(markets.TokenMarket{TokenID: next, Question: "BTC 12:15-12:30", Outcome: "Up", EndDate: &after, AcceptingOrders: true})
				fx.Book.Set(next, "0.45", "0.47")
			})
		// The venue closes the window at its end; the query names the next.
		r.at(15*time.Minute-time.Second, func() {
			r.fx.Markets.Close(strategiestest.Token)
			r.fx.Resolver.Set("btc 15m up", next)
		})
		var at time.Time
		r.at(20*time.Minute, func() {
			row := r.stored()
			if row.TokenID != next || row.MarketQuestion != "BTC 12:15-12:30" || row.Status != strategies.StatusActive {
				t.Errorf("after the window's end: token %s (%s), %s", row.TokenID, row.MarketQuestion, row.Status)
			}
			ex := r.executions()
			if len(ex) == 1 {
				at = ex[0].Time
			}
			r.change(strategies.ActionCancel, strategies.ByAgent, strategies.Change{})
		})
		start := r.env.Now()
		r.run()
		if d := at.Sub(start); d < 15*time.Minute-time.Second || d > 15*time.Minute+time.Second {
			t.Fatalf("moved %s after the start, want at the window's end (15m)", d)
		}
		if _, placed := r.fx.Placer.Counts(); placed != 0 {
			t.Fatal("placed an order")
		}
	})
	t.Run("tokenId ends", func(t *testing.T) {
		r := newMarketRig(t, "BUY_LOW_SELL_HIGH", `{"tokenId":"1001","buyBelow":0.3,"sellAbove":0.6,"sizePerTrade":10}`, "20",
			func(fx *strategiestest.Env, now time.Time) {
				end := now.Add(time.Hour)
				fx.Markets.Set(markets.TokenMarket{TokenID: strategiestest.Token, Question: "Will it?", Outcome: "Yes", EndDate: &end, AcceptingOrders: true})
			})
		r.at(59*time.Minute, func() { r.fx.Markets.Close(strategiestest.Token) })
		st := r.run()
		if st.Status != strategies.StatusCancelled || st.EndedReason != strategies.EndMarketClosed {
			t.Fatalf("ended %s (%s)", st.Status, st.EndedReason)
		}
		if ev := r.events(); !sameList(ev, "STRATEGY_CANCELLED/system") {
			t.Fatalf("events %v", ev)
		}
	})
}
