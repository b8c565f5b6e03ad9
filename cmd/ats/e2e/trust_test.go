package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/errs/temporalerr"
	"github.com/agent-trading/ats/models/intent"
	"github.com/agent-trading/ats/models/intent/intenttest"
	"github.com/agent-trading/ats/models/settlements"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/worker/codec"
	"github.com/agent-trading/ats/worker/replaytest"
	"github.com/agent-trading/ats/workflows"
)

// Nothing that arrives through Temporal decides who is authorised. An
// attacker who reaches the frontend with a client that has the payload
// codec (the strongest position short of the master key) starts workflows
// and sends updates naming a victim: none of them acts for the victim.
// The same requests made through the authenticated API then succeed, so
// the refusals are not for want of something to do.
func TestForgedTemporalRequestsActForNoOne(t *testing.T) {
	e, victim, m := newTradingTest(t, tradingOpts{}, "Will forgeries fail")
	ctx := context.Background()
	yes := m.TokenIDs[0]
	attackerKeys := intenttest.Keys(t, 0x66) // not the service's

	// The victim's agent has a resting order and a position.
	status, body := e.call(t, victim.key, "POST", "/orders", map[string]any{"tokenId": yes, "side": "BUY", "price": 0.2, "size": 10})
	if status != http.StatusOK || dataOrder(t, body).Status != models.OrderOpen {
		t.Fatalf("resting order: %d %s", status, body)
	}
	resting := dataOrder(t, body)
	status, body = e.call(t, victim.key, "POST", "/orders", map[string]any{"tokenId": yes, "side": "BUY", "price": 0.7, "size": 10, "type": "MARKET"})
	if status != http.StatusOK || dataOrder(t, body).Status != models.OrderFilled {
		t.Fatalf("market buy: %d %s", status, body)
	}
	t.Run("cancel updates", func(t *testing.T) {
		wfID := workflows.WorkflowID(workflows.KindOrder, resting.ID)
		for _, f := range []struct {
			name string
			args []any
		}{
			{"no argument (the update as it was)", nil},
			{"no proof", []any{workflows.OrderCancelRequest{}}},
			{"a proof under another key", []any{workflows.OrderCancelRequest{Proof: attackerKeys.Sign(intent.OrderCancel, resting.ID)}}},
			{"the genuine proof of another order", []any{workflows.OrderCancelRequest{Proof: e.svc.Intents.Sign(intent.OrderCancel, "ord_other")}}},
		} {
			h, err := e.tc.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: wfID, UpdateName: workflows.OrderUpdateCancel,
				Args: f.args, WaitForStage: client.WorkflowUpdateStageCompleted})
			if err == nil {
				err = h.Get(ctx, nil)
			}
			if errs.KindOf(temporalerr.From(err)) != errs.Forbidden {
				t.Fatalf("%s: %v, want forbidden", f.name, err)
			}
		}
		if o, err := e.store.OrderByID(ctx, resting.ID); err != nil || o.Status != models.OrderOpen {
			t.Fatalf("order after forged cancels: %+v %v", o, err)
		}
		status, body := e.call(t, victim.key, "GET", "/orders/"+resting.ID, nil)
		if status != http.StatusOK || dataOrder(t, body).Status != models.OrderOpen {
			t.Fatalf("the venue no longer has the order: %d %s", status, body)
		}
	})

	t.Run("an order workflow naming the victim", func(t *testing.T) {
		forged := models.NewID(models.PrefixOrder)
		opts, err := workflows.StartOptions(workflows.StartSpec{Kind: workflows.KindOrder, BusinessID: forged})
		if err != nil {
			t.Fatal(err)
		}
		run, err := e.tc.ExecuteWorkflow(ctx, opts, workflows.Order,
			workflows.OrderInput{OrderID: forged, UserID: victim.userID, AgentID: victim.agentID, TokenID: yes})
		if err != nil {
			t.Fatal(err)
		}
		var st activities.OrderState
		err = run.Get(ctx, &st)
		t.Logf("forged order workflow: %+v %v", st, err)
		if _, err := e.store.OrderByID(ctx, forged); errs.KindOf(err) != errs.NotFound {
			t.Fatalf("an order %s exists after the forged start: %v", forged, err)
		}
		orders, err := e.store.ListOrders(ctx, storeOrdersOf(victim))
		if err != nil || len(orders) != 2 {
			t.Fatalf("the victim's orders: %d %v, want the 2 they placed", len(orders), err)
		}
	})

	// The real cancel, through the API, does what the forgeries could not.
	status, body = e.call(t, victim.key, "DELETE", "/orders/"+resting.ID, nil)
	if status != http.StatusOK || dataOrder(t, body).Status != models.OrderCancelled {
		t.Fatalf("cancel through the API: %d %s", status, body)
	}

	// Resolving the market makes the position redeemable.
	e.control(t, "/control/markets/"+m.ConditionID+"/resolve", `{"winner":"Yes"}`, nil)
	redeemable := func() int {
		var list struct {
			Positions []json.RawMessage `json:"positions"`
		}
		status, body := e.call(t, victim.key, "GET", "/positions?status=redeemable", nil)
		if status != http.StatusOK || json.Unmarshal(body["data"], &list) != nil {
			t.Fatalf("positions: %d %s", status, body)
		}
		return len(list.Positions)
	}
	if redeemable() != 1 {
		t.Fatal("no redeemable position to protect")
	}

	t.Run("settlement workflows naming the victim", func(t *testing.T) {
		run := func(kind workflows.Kind, wf any, in any) error {
			opts, err := workflows.StartOptions(workflows.StartSpec{Kind: kind, BusinessID: victim.userID})
			if err != nil {
				t.Fatal(err)
			}
			r, err := e.tc.ExecuteWorkflow(ctx, opts, wf, in)
			if err != nil {
				t.Fatal(err)
			}
			return temporalerr.From(r.Get(ctx, nil))
		}
		redeem := settlements.RedeemInput{UserID: victim.userID, AgentID: victim.agentID}
		forgedRedeem := redeem
		forgedRedeem.Proof = attackerKeys.Sign(intent.Redeem, redeem.UserID, redeem.AgentID, "", "")
		for name, in := range map[string]settlements.RedeemInput{"no proof": redeem, "a proof under another key": forgedRedeem} {
			if err := run(workflows.KindRedeem, workflows.Redeem, in); errs.KindOf(err) != errs.Forbidden {
				t.Fatalf("redeem, %s: %v, want forbidden", name, err)
			}
		}
		approve := settlements.ApproveInput{UserID: victim.userID, AgentID: victim.agentID, Token: "all"}
		if err := run(workflows.KindApprove, workflows.Approve, approve); errs.KindOf(err) != errs.Forbidden {
			t.Fatalf("approve: %v, want forbidden", err)
		}
		if redeemable() != 1 {
			t.Fatal("a forged redemption settled the victim's position")
		}
		// Refusals are not written into the victim's audit trail.
		for _, action := range []string{settlements.ActionRedeem, audit.ActionWalletApprove} {
			page, err := e.svc.Audit.List(ctx, audit.Filter{UserID: victim.userID, Action: action})
			if err != nil || len(page.Entries) != 0 {
				t.Fatalf("%s audit entries after forgeries: %+v %v", action, page, err)
			}
		}
	})

	// The real redemption, through the API, does what the forgeries could not.
	status, body = e.call(t, victim.key, "POST", "/settlements/redeem", nil)
	if status != http.StatusOK || redeemable() != 0 {
		t.Fatalf("redeem through the API: %d %s", status, body)
	}

	// A redemption's record replayed (into a later run of the wallet's
	// redeem workflow, whose id is the same) never pays twice.
	t.Run("a replayed redemption record", func(t *testing.T) {
		var rec settlements.RedeemRecord
		readActivityInput(t, e, workflows.WorkflowID(workflows.KindRedeem, victim.userID), "RecordRedemptions", &rec)
		posID := rec.Plan.Positions[0].PositionID
		before, err := e.store.PositionForAgent(ctx, victim.agentID, posID)
		if err != nil {
			t.Fatal(err)
		}
		rec.At = rec.At.Add(time.Hour)
		if _, err := e.svc.Settlements.RecordRedemptions(ctx, rec); err != nil {
			t.Fatal(err)
		}
		after, err := e.store.PositionForAgent(ctx, victim.agentID, posID)
		if err != nil {
			t.Fatal(err)
		}
		if after.PayoutMicro != before.PayoutMicro || after.RedeemedSizeMicro != before.RedeemedSizeMicro ||
			!decimal.NewFromInt(after.PayoutMicro).Equal(decimal.NewFromInt(10*models.MicroPerUnit)) {
			t.Fatalf("payout %d → %d, redeemed %d → %d", before.PayoutMicro, after.PayoutMicro, before.RedeemedSizeMicro, after.RedeemedSizeMicro)
		}
	})
}

func storeOrdersOf(tr trader) store.OrderFilter { return store.OrderFilter{AgentID: tr.agentID} }

// readActivityInput decodes, as an operator reads it through the codec,
// the input of the first activity of type activityType in the latest run
// of workflow id.
func readActivityInput(t *testing.T, e *tradingEnv, id, activityType string, out any) {
	t.Helper()
	cd, err := codec.FromMasterKeys(e.master)
	if err != nil {
		t.Fatal(err)
	}
	h := replaytest.History(t, context.Background(), e.tc, id, "")
	for _, ev := range h.Events {
		a := ev.GetActivityTaskScheduledEventAttributes()
		if a == nil || a.GetActivityType().GetName() != activityType {
			continue
		}
		dec, err := cd.ForNamespace("default").Decode(a.GetInput().GetPayloads())
		if err != nil {
			t.Fatal(err)
		}
		if err := converter.GetDefaultDataConverter().FromPayload(dec[0], out); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("no %s activity in %s", activityType, id)
}
