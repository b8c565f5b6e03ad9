package activities_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/errs/temporalerr"
	"github.com/agent-trading/ats/models/intent"
	"github.com/agent-trading/ats/models/intent/intenttest"
	"github.com/agent-trading/ats/models/settlements"
	"github.com/agent-trading/ats/models/settlements/settlementstest"
)

// The settlement activities run the real service on the real sandbox
// chain and store; their errors cross the Temporal boundary through
// temporalerr.To: a venue rejection or a missing wallet is non-retryable and
// temporalerr.From restores its kind and code.
func TestSettlementActivities(t *testing.T) {
	e := settlementstest.New(t)
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	keys := intenttest.Keys(t)
	env.RegisterActivity(&activities.Settlements{Steps: e.Service, Intents: keys})
	var a *activities.Settlements
	// vouched inputs, as workflows.SettlementsClient sends them.
	approve := func(in settlements.ApproveInput) settlements.ApproveInput {
		in.Proof = keys.Sign(intent.WalletApprove, in.UserID, in.AgentID, in.Token, in.ClientAddr)
		return in
	}
	redeem := func(in settlements.RedeemInput) settlements.RedeemInput {
		in.Proof = keys.Sign(intent.Redeem, in.UserID, in.AgentID, in.ConditionID, in.ClientAddr)
		return in
	}

	u := e.User(t, 0)
	v, err := env.ExecuteActivity(a.ApproveWallet, approve(settlements.ApproveInput{UserID: u.UserID, AgentID: u.AgentID, Token: "CTF"}))
	require.NoError(t, err)
	var res settlements.ApproveResult
	require.NoError(t, v.Get(&res))
	assert.Equal(t, "CTF", res.Token)
	assert.NotEmpty(t, res.TransactionHashes)

	for _, tc := range []struct {
		name string
		in   settlements.ApproveInput
		kind errs.Kind
		code string
	}{
		{"no gas", settlements.ApproveInput{UserID: e.BrokeUser(t).UserID, Token: "USDC"}, errs.VenueRejected, "insufficient_gas"},
		{"no wallet", settlements.ApproveInput{UserID: "usr_none", Token: "USDC"}, errs.NotFound, "no_wallet"},
		{"bad token", settlements.ApproveInput{UserID: u.UserID, Token: "DAI"}, errs.Invalid, "invalid_token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := env.ExecuteActivity(a.ApproveWallet, approve(tc.in))
			var appErr *temporal.ApplicationError
			require.True(t, errors.As(err, &appErr), "%v", err)
			assert.True(t, appErr.NonRetryable())
			got := temporalerr.From(err)
			assert.Equal(t, tc.kind, errs.KindOf(got))
			assert.Equal(t, tc.code, errs.CodeOf(got))
		})
	}

	// Planning with nothing held is an empty plan; the chain step of an
	// empty plan sends nothing.
	v, err = env.ExecuteActivity(a.PlanRedeem, redeem(settlements.RedeemInput{UserID: u.UserID, AgentID: u.AgentID}))
	require.NoError(t, err)
	var plan settlements.RedeemPlan
	require.NoError(t, v.Get(&plan))
	assert.True(t, plan.Empty())
	v, err = env.ExecuteActivity(a.RedeemOnChain, settlements.RedeemExecution{UserID: u.UserID, Plan: plan})
	require.NoError(t, err)
	var done []settlements.ChainRedemption
	require.NoError(t, v.Get(&done))
	assert.Empty(t, done)

	_, err = env.ExecuteActivity(a.RecordSettlementAudit, settlements.AuditRecord{UserID: u.UserID, AgentID: u.AgentID, Action: settlements.ActionRedeem, Target: "all"})
	require.NoError(t, err)
	page, err := (&audit.Service{Store: e.Store}).List(settlementstest.Ctx(t), audit.Filter{UserID: u.UserID, Action: settlements.ActionRedeem})
	require.NoError(t, err)
	assert.Len(t, page.Entries, 1)
}
