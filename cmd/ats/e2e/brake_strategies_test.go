package e2e

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	updatepb "go.temporal.io/api/update/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/errs/temporalerr"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/venue/chain"
	"github.com/agent-trading/ats/worker/codec"
	"github.com/agent-trading/ats/worker/replaytest"
	"github.com/agent-trading/ats/workflows"
)

// strategyActivities counts the activities of type name the strategy's
// workflow scheduled, and whether all it scheduled have closed.
func (e *tradingEnv) strategyActivities(t testing.TB, id, name string) (n int, idle bool) {
	t.Helper()
	h := replaytest.History(t, context.Background(), e.tc, workflows.WorkflowID(workflows.KindStrategy, id), "")
	open := map[int64]bool{}
	for _, ev := range h.Events {
		// An execution of a run at version 1 of "child-orders" is a local
		// activity (DecideStrategy), recorded as a marker when it is done:
		// the only local activities of the strategy's workflow are an
		// execution's.
		if name == "ExecuteStrategy" && ev.GetMarkerRecordedEventAttributes().GetMarkerName() == "LocalActivity" {
			n++
		}
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil {
			open[ev.GetEventId()] = true
			if a.GetActivityType().GetName() == name {
				n++
			}
		}
		for _, sched := range []int64{ev.GetActivityTaskCompletedEventAttributes().GetScheduledEventId(),
			ev.GetActivityTaskFailedEventAttributes().GetScheduledEventId(), ev.GetActivityTaskTimedOutEventAttributes().GetScheduledEventId()} {
			delete(open, sched)
		}
	}
	return n, len(open) == 0
}

// TestForgedPriceSignalsPlaceNoEarlyBuyAgainstTheSandbox: the attack of
// issue 24 item 4, as it was made. A RECURRING_BUY on a one-day interval
// buys at once; then three `price` signals sent with a Temporal client
// each wake a check of the strategy, and none buys: the check reads the
// schedule from the database. The late fill of the first buy (its order
// workflow hints the strategy) buys nothing either.
func TestForgedPriceSignalsPlaceNoEarlyBuyAgainstTheSandbox(t *testing.T) {
	e, tr, m := newTradingTest(t, tradingOpts{}, "Will forged hints buy early")
	ctx := context.Background()
	s := e.createStrategy(t, tr, map[string]any{"type": "RECURRING_BUY", "maxBudget": 50, "config": map[string]any{
		"tokenId": m.TokenIDs[0], "amountPerInterval": 5, "interval": "1d"}})
	bought := e.awaitStrategy(t, tr, s.ID, "bought", func(s apiStrategy) bool {
		return len(s.Executions) == 1 && s.Executions[0].OrderStatus != nil && *s.Executions[0].OrderStatus == models.OrderFilled
	})
	t0 := time.Now()
	if bought.Executions[0].Kind != "action" {
		t.Fatalf("the first interval: %+v", bought.Executions[0])
	}
	wfID := workflows.WorkflowID(workflows.KindStrategy, s.ID)
	for i := 1; i <= 3; i++ {
		before, _ := e.strategyActivities(t, s.ID, "ExecuteStrategy")
		if err := e.tc.SignalWorkflow(ctx, wfID, "", workflows.StrategySignalPrice, nil); err != nil {
			t.Fatal(err)
		}
		// The signal woke a check, which ran to its end.
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			n, idle := e.strategyActivities(t, s.ID, "ExecuteStrategy")
			if n > before && idle {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("signal %d woke no check (%d executions scheduled before, %d now)", i, before, n)
			}
		}
	}
	t.Logf("three forged signals checked in %v", time.Since(t0))
	if orders := e.strategyOrders(t, tr.agentID, s.ID); len(orders) != 1 {
		t.Fatalf("%d orders after three forged signals, want the first interval's only", len(orders))
	}
	_, b := e.call(t, tr.key, "GET", "/strategies/"+s.ID, nil)
	if after := dataStrategy(t, b); len(after.Executions) != 1 || after.Status != "ACTIVE" {
		t.Fatalf("after the signals: %+v", after)
	}
	row, err := e.store.StrategyByID(ctx, s.ID)
	if err != nil || row.NextEvaluationAt == nil || time.Until(*row.NextEvaluationAt) < 23*time.Hour {
		t.Fatalf("the next buy moved: %+v %v", row.NextEvaluationAt, err)
	}
}

// TestReplayedResumeUpdateIsRefusedAgainstTheSandbox: the attack of issue
// 24 item 5. The user pauses a strategy, its agent resumes it, the user
// pauses it again; the agent's `resume` update, taken from the workflow's
// history, is sent again — as recorded (the ciphertext, through the
// frontend's API) and decoded (through a Temporal client with the payload
// codec) — and is refused both times: the strategy stays PAUSED and
// nothing is audited for it. The user's own resume then works.
func TestReplayedResumeUpdateIsRefusedAgainstTheSandbox(t *testing.T) {
	e, tr, m := newTradingTest(t, tradingOpts{}, "Will a replay resume")
	ctx := context.Background()
	s := e.createStrategy(t, tr, map[string]any{"type": "PRICE_ALERT", "maxBudget": 5, "config": map[string]any{
		"tokenId": m.TokenIDs[0], "side": "BUY", "triggerCondition": "PRICE_LTE", "triggerPrice": 0.05, "size": 20}})
	user := strategies.Actor{By: strategies.ByUser, UserID: tr.userID, ClientAddr: "198.51.100.9"}
	if st, err := e.svc.StrategyDesk.Pause(ctx, user, s.ID); err != nil || st.Status != strategies.StatusPaused {
		t.Fatalf("the user's pause: %+v %v", st, err)
	}
	if status, b := e.call(t, tr.key, "POST", "/strategies/"+s.ID+"/resume", nil); status != http.StatusOK || dataStrategy(t, b).Status != "ACTIVE" {
		t.Fatalf("the agent's resume: %d %s", status, b)
	}
	if st, err := e.svc.StrategyDesk.Pause(ctx, user, s.ID); err != nil || st.Status != strategies.StatusPaused {
		t.Fatalf("the user's second pause: %+v %v", st, err)
	}

	// The resume as the history holds it.
	wfID := workflows.WorkflowID(workflows.KindStrategy, s.ID)
	var recorded *commonpb.Payloads
	for _, ev := range replaytest.History(t, ctx, e.tc, wfID, "").Events {
		if a := ev.GetWorkflowExecutionUpdateAcceptedEventAttributes(); a != nil && a.GetAcceptedRequest().GetInput().GetName() == strategies.ActionResume {
			recorded = a.GetAcceptedRequest().GetInput().GetArgs()
		}
	}
	if recorded == nil {
		t.Fatal("no resume update in the history")
	}

	t.Run("the recorded ciphertext", func(t *testing.T) {
		resp, err := e.tc.WorkflowService().UpdateWorkflowExecution(ctx, &workflowservice.UpdateWorkflowExecutionRequest{
			Namespace: "default", WorkflowExecution: &commonpb.WorkflowExecution{WorkflowId: wfID},
			WaitPolicy: &updatepb.WaitPolicy{LifecycleStage: enumspb.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_COMPLETED},
			Request: &updatepb.Request{Meta: &updatepb.Meta{UpdateId: "replayed-resume"},
				Input: &updatepb.Input{Name: strategies.ActionResume, Args: recorded}},
		})
		if err == nil && resp.GetOutcome().GetFailure() == nil {
			t.Fatalf("the replayed update succeeded: %+v", resp.GetOutcome())
		}
		t.Logf("refused: %v %v", err, resp.GetOutcome().GetFailure().GetMessage())
	})

	t.Run("decoded and sent with a client", func(t *testing.T) {
		cd, err := codec.FromMasterKeys(e.master)
		if err != nil {
			t.Fatal(err)
		}
		dec, err := cd.ForNamespace("default").Decode(recorded.GetPayloads())
		if err != nil {
			t.Fatal(err)
		}
		var ch strategies.Change
		if err := converter.GetDefaultDataConverter().FromPayload(dec[0], &ch); err != nil {
			t.Fatal(err)
		}
		if ch.Proof == "" || ch.By != strategies.ByAgent {
			t.Fatalf("decoded %+v", ch)
		}
		h, err := e.tc.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: wfID, UpdateName: strategies.ActionResume,
			Args: []any{ch}, WaitForStage: client.WorkflowUpdateStageCompleted})
		if err == nil {
			err = h.Get(ctx, nil)
		}
		if errs.CodeOf(temporalerr.From(err)) != errs.CodeStrategyState {
			t.Fatalf("the replayed update: %v, want strategy_state", err)
		}
	})

	if row, err := e.store.StrategyByID(ctx, s.ID); err != nil || row.Status != strategies.StatusPaused || row.PausedBy != strategies.ByUser {
		t.Fatalf("after the replays: %+v %v", row, err)
	}
	resp, err := e.tc.QueryWorkflow(ctx, wfID, "", workflows.StrategyQueryState)
	var st strategies.State
	if err != nil || resp.Get(&st) != nil || st.Status != strategies.StatusPaused {
		t.Fatalf("the workflow's state: %+v %v", st, err)
	}
	resumes := func() int {
		page, err := e.svc.Audit.List(ctx, audit.Filter{UserID: tr.userID, Action: audit.ActionStrategy + strategies.ActionResume})
		if err != nil {
			t.Fatal(err)
		}
		return len(page.Entries)
	}
	if n := resumes(); n != 1 {
		t.Fatalf("%d strategy.resume audit entries, want the agent's one", n)
	}
	if st, err := e.svc.StrategyDesk.Resume(ctx, user, s.ID); err != nil || st.Status != strategies.StatusActive || resumes() != 2 {
		t.Fatalf("the user's resume: %+v %v", st, err)
	}
}

// newWalletlessTrader is newTrader without the wallet: a user who has not
// imported one yet, and an agent.
func (e *tradingEnv) newWalletlessTrader(t testing.TB) trader {
	t.Helper()
	u := &models.User{Email: models.NewID("u") + "@example.com", PasswordHash: "x"}
	if err := e.store.CreateUser(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	plain, hash, prefix := secret.NewAPIKey()
	a := &models.Agent{UserID: u.ID, Name: "e2e", Scopes: "read trade cancel redeem", RateLimitPerMinute: 100_000}
	if err := e.store.CreateAgentWithKey(context.Background(), a, &models.APIKey{Hash: hash, DisplayPrefix: prefix}); err != nil {
		t.Fatal(err)
	}
	return trader{userID: u.ID, agentID: a.ID, key: plain}
}

// TestOwnWalletIsNeverCopiedAgainstTheSandbox: the attack of issue 24 item
// 6. A COPY_TRADE created before the user imported a wallet copies what
// becomes the user's own wallet; the user's own buy is never copied.
// Caught at the copy (a wallet imported without the import's check, as
// before it existed): the strategy goes to ERROR naming the reason and
// places nothing. Caught at the import: the strategy is in ERROR before
// the wallet trades, and the target's trades are not even recorded for it.
func TestOwnWalletIsNeverCopiedAgainstTheSandbox(t *testing.T) {
	e, _, m := newTradingTest(t, tradingOpts{}, "Will a copy copy itself")
	ctx := context.Background()
	yes := m.TokenIDs[0]
	n := e.sb.Network()
	// trader gets a wallet whose proxy a COPY_TRADE of its agent, created
	// before, copies; importing it with or without the import's check.
	setup := func(t *testing.T, checkAtImport bool) (trader, string, string) {
		tr := e.newWalletlessTrader(t)
		key, err := crypto.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		proxy := chain.DeriveProxyAddress(n, crypto.PubkeyToAddress(key.PublicKey)).Hex()
		id := e.createCopy(t, tr, proxy, map[string]any{"sizingMode": "fixed", "fixedAmount": 5, "copySells": true})
		ws := *e.svc.Wallets
		// The trader has no second factor; the import's 2FA requirement
		// is models/wallets' test, not this one.
		ws.RequireTwoFactor = false
		if !checkAtImport {
			ws.Imported = nil
		}
		w, err := ws.Import(ctx, tr.userID, hex.EncodeToString(crypto.FromECDSA(key)), proxy, "198.51.100.9")
		if err != nil || w.Address != proxy {
			t.Fatalf("import: %+v %v", w, err)
		}
		if tr.wallet, err = e.svc.Wallets.SeedDemo(ctx, e.sb.EVM(), tr.userID); err != nil {
			t.Fatal(err)
		}
		return tr, id, proxy
	}
	buy := func(t *testing.T, tr trader) {
		status, b := e.call(t, tr.key, "POST", "/orders", map[string]any{"tokenId": yes, "side": "BUY", "price": 0.7, "size": 10, "type": "MARKET"})
		if status != http.StatusOK || dataOrder(t, b).Status != models.OrderFilled {
			t.Fatalf("the user's own buy: %d %s", status, b)
		}
	}
	stopped := func(t *testing.T, tr trader, id string) {
		t.Helper()
		s := e.awaitStrategy(t, tr, id, "stopped", func(s apiStrategy) bool { return s.Status == "ERROR" })
		_, b := e.call(t, tr.key, "GET", "/strategies/"+id, nil)
		var d struct {
			Strategy struct {
				LastError string `json:"lastError"`
			} `json:"strategy"`
		}
		if err := json.Unmarshal(b["data"], &d); err != nil || !strings.Contains(d.Strategy.LastError, "your own wallet") {
			t.Fatalf("%s stopped without its reason: %+v %v", id, s, err)
		}
		if status, b := e.call(t, tr.key, "POST", "/strategies/"+id+"/resume", nil); status != http.StatusBadRequest || !strings.Contains(string(b["code"]), "copy_target_own_wallet") {
			t.Fatalf("resume: %d %s", status, b)
		}
	}

	t.Run("at the copy", func(t *testing.T) {
		tr, id, proxy := setup(t, false)
		if row, err := e.store.StrategyByID(ctx, id); err != nil || row.Status != strategies.StatusActive {
			t.Fatalf("before the trade: %+v %v", row, err)
		}
		buy(t, tr)
		// The own trade is recorded for the strategy and claimed by its
		// execution, which stops it.
		deadline := time.Now().Add(4 * time.Minute)
		for {
			row, err := e.store.StrategyByID(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if row.Status == strategies.StatusError {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the strategy never stopped: %s, %d events recorded; the chain holds %d events of the wallet",
					row.Status, len(e.copyRows(t, id)), e.targetEvents(t, proxy))
			}
			time.Sleep(100 * time.Millisecond)
		}
		stopped(t, tr, id)
		ex, err := e.store.ListStrategyExecutions(ctx, id, 10)
		if err != nil || len(ex) != 1 || ex[0].Kind != strategies.KindError || ex[0].OrderID != nil {
			t.Fatalf("executions %+v %v", ex, err)
		}
		time.Sleep(2 * time.Second) // a chain of copies would be under way by now
		if os := e.strategyOrders(t, tr.agentID, id); len(os) != 0 {
			t.Fatalf("the strategy placed %d orders copying its own user", len(os))
		}
	})

	t.Run("at the import", func(t *testing.T) {
		tr, id, _ := setup(t, true)
		row, err := e.store.StrategyByID(ctx, id)
		if err != nil || row.Status != strategies.StatusError || !strings.Contains(row.LastError, "your own wallet") {
			t.Fatalf("after the import: %+v %v", row, err)
		}
		// The workflow was told: it reports ERROR too.
		wfID := workflows.WorkflowID(workflows.KindStrategy, id)
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			var st strategies.State
			resp, err := e.tc.QueryWorkflow(ctx, wfID, "", workflows.StrategyQueryState)
			if err == nil && resp.Get(&st) == nil && st.Status == strategies.StatusError {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the workflow still reports %+v %v", st, err)
			}
		}
		stopped(t, tr, id)
		page, err := e.svc.Audit.List(ctx, audit.Filter{UserID: tr.userID, Action: audit.ActionStrategy + "stop"})
		if err != nil || len(page.Entries) != 1 || page.Entries[0].Target != id {
			t.Fatalf("audit %+v %v", page, err)
		}
		buy(t, tr)
		time.Sleep(3 * time.Second)
		if os := e.strategyOrders(t, tr.agentID, id); len(os) != 0 {
			t.Fatalf("the strategy placed %d orders copying its own user", len(os))
		}
		if rows := e.copyRows(t, id); len(rows) != 0 {
			t.Fatalf("%d events of the user's own wallet recorded for the stopped strategy", len(rows))
		}
	})
}
