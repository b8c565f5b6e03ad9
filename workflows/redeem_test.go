package workflows_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/errs/temporalerr"
	"github.com/agent-trading/ats/models/intent"
	"github.com/agent-trading/ats/models/intent/intenttest"
	"github.com/agent-trading/ats/models/settlements"
	"github.com/agent-trading/ats/models/settlements/settlementstest"
	"github.com/agent-trading/ats/worker/replaytest"
	"github.com/agent-trading/ats/workflows"
)

func runRedeem(t *testing.T, e *settlementstest.Env, steps activities.SettlementSteps, in settlements.RedeemInput) (settlements.RedeemResult, error) {
	t.Helper()
	env := newSettleEnv(t, e, steps)
	in.Proof = intenttest.Keys(t).Sign(intent.Redeem, in.UserID, in.AgentID, in.ConditionID, in.ClientAddr)
	env.ExecuteWorkflow(workflows.Redeem, in)
	require.True(t, env.IsWorkflowCompleted())
	var res settlements.RedeemResult
	if err := env.GetWorkflowError(); err != nil {
		return res, temporalerr.From(err)
	}
	require.NoError(t, env.GetWorkflowResult(&res))
	return res, nil
}

func TestRedeemWorkflow(t *testing.T) {
	e := settlementstest.New(t)
	const shares = 5_000_000

	t.Run("redeems winners and losers and records them", func(t *testing.T) {
		u := e.User(t, 0)
		m := e.Market(t, t.Name(), false)
		e.Split(t, u, m, shares)
		yes := e.Position(t, u, m, 0, shares)
		no := e.Position(t, u, m, 1, shares)
		require.NoError(t, e.Chain.Resolve(settlementstest.Ctx(t), m.ConditionID, 0))
		before, nonce := e.Collateral(t, u.Maker), e.Nonce(t, u.Maker)

		in := settlements.RedeemInput{UserID: u.UserID, AgentID: u.AgentID, ClientAddr: "10.0.0.8"}
		res, err := runRedeem(t, e, e.Service, in)
		require.NoError(t, err)
		assert.Equal(t, before+shares, e.Collateral(t, u.Maker))
		assert.Equal(t, nonce+1, e.Nonce(t, u.Maker))
		require.Len(t, res.Redemptions, 2)
		require.Len(t, res.TransactionHashes, 1)
		assert.Equal(t, int64(shares), res.TotalPayoutMicro)
		assert.Equal(t, settlements.Redemption{PositionID: yes.ID, TokenID: yes.TokenID, ConditionID: yes.ConditionID, Outcome: "Yes",
			SharesMicro: shares, PayoutMicro: shares, TxHash: res.TransactionHashes[0]}, res.Redemptions[0])
		assert.Equal(t, int64(0), res.Redemptions[1].PayoutMicro)
		got, err := e.Store.PositionForAgent(settlementstest.Ctx(t), u.AgentID, no.ID)
		require.NoError(t, err)
		assert.Equal(t, models.PositionSettled, got.Status)
		assert.Equal(t, int64(shares), got.RedeemedSizeMicro)
		assert.True(t, got.RedeemedAt.Equal(start), "redeemed at the workflow's time, got %v", got.RedeemedAt)

		entries := auditOf(t, e, u.UserID, settlements.ActionRedeem)
		require.Len(t, entries, 1)
		assert.Equal(t, audit.Success, entries[0].Result)
		assert.Equal(t, "all", entries[0].Target)
		assert.Contains(t, string(entries[0].Detail), res.TransactionHashes[0])

		// A second redemption finds nothing.
		res, err = runRedeem(t, e, e.Service, in)
		require.NoError(t, err)
		assert.Empty(t, res.Redemptions)
		assert.Equal(t, "nothing to redeem: no positions in resolved markets", res.Message)
		assert.Equal(t, nonce+1, e.Nonce(t, u.Maker))
	})

	t.Run("a lost chain result and a failed record neither repeat nor lose anything", func(t *testing.T) {
		u := e.User(t, 0)
		m := e.Market(t, t.Name(), false)
		e.Split(t, u, m, shares)
		yes := e.Position(t, u, m, 0, shares)
		require.NoError(t, e.Chain.Resolve(settlementstest.Ctx(t), m.ConditionID, 0))
		before, nonce := e.Collateral(t, u.Maker), e.Nonce(t, u.Maker)

		steps := &faultySteps{SettlementSteps: e.Service, loseChainResults: 1, failRecords: 2}
		res, err := runRedeem(t, e, steps, settlements.RedeemInput{UserID: u.UserID, AgentID: u.AgentID})
		require.NoError(t, err)
		assert.Equal(t, 2, steps.count("chain"), "the chain step was retried")
		assert.Equal(t, 3, steps.count("record"), "the record step was retried")
		assert.Equal(t, nonce+1, e.Nonce(t, u.Maker), "the retry sent a second transaction")
		assert.Equal(t, before+shares, e.Collateral(t, u.Maker))
		require.Len(t, res.Redemptions, 1)
		assert.Equal(t, int64(shares), res.Redemptions[0].PayoutMicro)
		assert.Empty(t, res.Redemptions[0].TxHash, "the recovered redemption's transaction is not known")
		got, err := e.Store.PositionForAgent(settlementstest.Ctx(t), u.AgentID, yes.ID)
		require.NoError(t, err)
		assert.Equal(t, models.PositionSettled, got.Status)
		assert.Equal(t, int64(shares), got.RedeemedSizeMicro)
		assert.Equal(t, int64(shares), got.PayoutMicro)
		assert.Zero(t, got.SizeMicro)
	})

	t.Run("one agent's redemption settles the other agents' positions in the wallet", func(t *testing.T) {
		a := e.User(t, 0)
		b := e.Agent(t, a)
		m := e.Market(t, t.Name(), false)
		e.Split(t, a, m, shares)
		aYes := e.Position(t, a, m, 0, 2_000_000)
		bYes := e.Position(t, b, m, 0, 3_000_000)
		bNo := e.Position(t, b, m, 1, 1_000_000)
		require.NoError(t, e.Chain.Resolve(settlementstest.Ctx(t), m.ConditionID, 0))
		before, nonce := e.Collateral(t, a.Maker), e.Nonce(t, a.Maker)

		// The chain result and then a committed record's reply are lost.
		steps := &faultySteps{SettlementSteps: e.Service, loseChainResults: 1, loseRecordResults: 1}
		res, err := runRedeem(t, e, steps, settlements.RedeemInput{UserID: a.UserID, AgentID: a.AgentID})
		require.NoError(t, err)
		assert.Equal(t, 2, steps.count("record"), "the record step was retried")
		assert.Equal(t, nonce+1, e.Nonce(t, a.Maker))
		assert.Equal(t, before+shares, e.Collateral(t, a.Maker), "the wallet's whole YES balance paid")
		require.Len(t, res.Redemptions, 1)
		assert.Equal(t, aYes.ID, res.Redemptions[0].PositionID)
		assert.Equal(t, int64(2_000_000), res.TotalPayoutMicro)
		require.Len(t, res.OtherAgents, 2)
		assert.Equal(t, settlements.Redemption{AgentID: b.AgentID, PositionID: bYes.ID, TokenID: bYes.TokenID, ConditionID: bYes.ConditionID,
			Outcome: "Yes", SharesMicro: 3_000_000, PayoutMicro: 3_000_000}, res.OtherAgents[0])
		assert.Equal(t, bNo.ID, res.OtherAgents[1].PositionID)
		assert.Equal(t, int64(shares), res.WalletPayoutMicro)
		require.Len(t, res.Unattributed, 1, "the NO shares beyond the position")
		assert.Equal(t, int64(shares-1_000_000), res.Unattributed[0].SharesMicro)
		for _, p := range []*models.Position{aYes, bYes, bNo} {
			got, err := e.Store.PositionForAgent(settlementstest.Ctx(t), p.AgentID, p.ID)
			require.NoError(t, err)
			assert.Equal(t, models.PositionSettled, got.Status)
			assert.Zero(t, got.SizeMicro)
			assert.Equal(t, p.SizeMicro, got.RedeemedSizeMicro, "recorded once")
		}
		shared := auditOf(t, e, a.UserID, settlements.ActionRedeemShared)
		require.Len(t, shared, 1, "one entry for the other agent, although the record step ran twice")
		assert.Equal(t, b.AgentID, shared[0].AgentID)

		// The other agent's redemption finds nothing left.
		res, err = runRedeem(t, e, e.Service, settlements.RedeemInput{UserID: b.UserID, AgentID: b.AgentID})
		require.NoError(t, err)
		assert.Empty(t, res.Redemptions)
		assert.Equal(t, "nothing to redeem: no positions in resolved markets", res.Message)
		assert.Equal(t, nonce+1, e.Nonce(t, a.Maker))
	})

	t.Run("unresolved markets are a successful empty result", func(t *testing.T) {
		u := e.User(t, 0)
		m := e.Market(t, t.Name(), false)
		e.Split(t, u, m, shares)
		e.Position(t, u, m, 0, shares)
		res, err := runRedeem(t, e, e.Service, settlements.RedeemInput{UserID: u.UserID, AgentID: u.AgentID})
		require.NoError(t, err)
		assert.Empty(t, res.Redemptions)
		assert.Equal(t, 1, res.Unresolved)
		assert.Contains(t, res.Message, "1 position(s) are in markets that have not resolved")
	})

	t.Run("a missing approval fails before sending and is audited", func(t *testing.T) {
		u := e.User(t, 0)
		m := e.Market(t, t.Name(), true)
		e.Split(t, u, m, shares)
		e.Position(t, u, m, 0, shares)
		require.NoError(t, e.Chain.Resolve(settlementstest.Ctx(t), m.ConditionID, 0))
		nonce := e.Nonce(t, u.Maker)
		steps := &faultySteps{SettlementSteps: e.Service}
		_, err := runRedeem(t, e, steps, settlements.RedeemInput{UserID: u.UserID, AgentID: u.AgentID})
		assert.Equal(t, errs.VenueRejected, errs.KindOf(err), "%v", err)
		assert.Equal(t, "approval_required", errs.CodeOf(err))
		assert.Equal(t, 0, steps.count("record"))
		assert.Equal(t, nonce, e.Nonce(t, u.Maker))
		entries := auditOf(t, e, u.UserID, settlements.ActionRedeem)
		require.Len(t, entries, 1)
		assert.Equal(t, audit.Failure, entries[0].Result)
	})
}

// redeemHistory was recorded with approveHistory (see there): the first
// redemption (plan, chain, record, audit) of api/settlements' end-to-end
// test.
const redeemHistory = "testdata/redeem.json"

func TestRedeemReplays(t *testing.T) {
	replaytest.ReplayFileWithOptions(t, redeemHistory, replayOptions(t), workflows.All()...)
}

// The replay must be able to fail: a version that records without the
// chain step issues different commands.
func TestRedeemReplayDetectsChanges(t *testing.T) {
	changed := func(ctx workflow.Context, in settlements.RedeemInput) (settlements.RedeemResult, error) {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
		var a *activities.Settlements
		var plan settlements.RedeemPlan
		if err := workflow.ExecuteActivity(ctx, a.PlanRedeem, in).Get(ctx, &plan); err != nil {
			return settlements.RedeemResult{}, err
		}
		var res settlements.RedeemResult
		err := workflow.ExecuteActivity(ctx, a.RecordRedemptions, settlements.RedeemRecord{Input: in, Plan: plan}).Get(ctx, &res)
		return res, err
	}
	err := replaytest.Replay(redeemHistory, replayOptions(t), replaytest.Named{Name: "Redeem", Func: changed})
	if err == nil {
		t.Fatal("replay of a changed workflow succeeded")
	}
	t.Log(err)
}
