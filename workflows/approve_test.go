package workflows_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/errs/temporalerr"
	"github.com/agent-trading/ats/models/intent"
	"github.com/agent-trading/ats/models/intent/intenttest"
	"github.com/agent-trading/ats/models/settlements"
	"github.com/agent-trading/ats/models/settlements/settlementstest"
	"github.com/agent-trading/ats/venue/chain"
	"github.com/agent-trading/ats/worker/replaytest"
	"github.com/agent-trading/ats/workflows"
)

// faultySteps runs the real settlement steps and injects the failures a
// crash produces: a chain step whose transaction was mined but whose
// result never reached Temporal, and a record step that failed after (or
// before) committing.
type faultySteps struct {
	activities.SettlementSteps
	mu sync.Mutex
	// loseChainResults: the next n RedeemOnChain calls run for real and
	// then report a transient failure.
	loseChainResults int
	// failRecords: the next n RecordRedemptions calls fail transiently
	// before doing anything.
	failRecords int
	// loseRecordResults: the next n RecordRedemptions calls (after
	// failRecords) run for real, commit, and then report a transient
	// failure.
	loseRecordResults int
	calls             map[string]int
}

func (f *faultySteps) count(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[name]
}

func (f *faultySteps) hit(name string, budget *int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[name]++
	if *budget > 0 {
		*budget--
		return true
	}
	return false
}

func (f *faultySteps) ApproveWallet(ctx context.Context, in settlements.ApproveInput) (settlements.ApproveResult, error) {
	none := 0
	f.hit("approve", &none)
	return f.SettlementSteps.ApproveWallet(ctx, in)
}

func (f *faultySteps) RedeemOnChain(ctx context.Context, in settlements.RedeemExecution) ([]settlements.ChainRedemption, error) {
	out, err := f.SettlementSteps.RedeemOnChain(ctx, in)
	if err == nil && f.hit("chain", &f.loseChainResults) {
		return nil, errs.E(errs.Transient, "worker lost the result")
	}
	return out, err
}

func (f *faultySteps) RecordRedemptions(ctx context.Context, in settlements.RedeemRecord) (settlements.RedeemResult, error) {
	if f.hit("record", &f.failRecords) {
		return settlements.RedeemResult{}, errs.E(errs.Transient, "database unavailable")
	}
	res, err := f.SettlementSteps.RecordRedemptions(ctx, in)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil && f.loseRecordResults > 0 {
		f.loseRecordResults--
		return settlements.RedeemResult{}, errs.E(errs.Transient, "worker lost the result")
	}
	return res, err
}

// newSettleEnv is a test workflow environment whose settlement activities
// run the real service on the real sandbox chain and store.
func newSettleEnv(t *testing.T, e *settlementstest.Env, steps activities.SettlementSteps) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetStartTime(start)
	env.SetTestTimeout(2 * time.Minute)
	// The activities send real transactions and wait for their receipts,
	// which on a loaded machine takes longer than the default 1 s the test
	// environment allows a workflow task (its activities run inside it).
	env.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: time.Minute})
	workflows.Register(env)
	if err := activities.Register(env, activities.Deps{Housekeeper: e.Store, Settlements: steps, Intents: intenttest.Keys(t)}); err != nil {
		t.Fatal(err)
	}
	return env
}

func auditOf(t *testing.T, e *settlementstest.Env, userID, action string) []audit.Record {
	t.Helper()
	p, err := (&audit.Service{Store: e.Store}).List(settlementstest.Ctx(t), audit.Filter{UserID: userID, Action: action})
	require.NoError(t, err)
	return p.Entries
}

func runApprove(t *testing.T, e *settlementstest.Env, steps activities.SettlementSteps, in settlements.ApproveInput) (settlements.ApproveResult, error) {
	t.Helper()
	env := newSettleEnv(t, e, steps)
	in.Proof = intenttest.Keys(t).Sign(intent.WalletApprove, in.UserID, in.AgentID, in.Token, in.ClientAddr)
	env.ExecuteWorkflow(workflows.Approve, in)
	require.True(t, env.IsWorkflowCompleted())
	var res settlements.ApproveResult
	if err := env.GetWorkflowError(); err != nil {
		return res, temporalerr.From(err)
	}
	require.NoError(t, env.GetWorkflowResult(&res))
	return res, nil
}

func TestApproveWorkflow(t *testing.T) {
	e := settlementstest.New(t)

	t.Run("grants, then finds everything granted", func(t *testing.T) {
		u := e.User(t, 0)
		in := settlements.ApproveInput{UserID: u.UserID, AgentID: u.AgentID, Token: "USDC", ClientAddr: "10.0.0.7"}
		res, err := runApprove(t, e, e.Service, in)
		require.NoError(t, err)
		req, _ := e.Client.RequiredApprovals(chain.ApproveUSDC)
		require.Len(t, res.Approvals, len(req))
		assert.Len(t, res.TransactionHashes, len(req))
		for _, a := range res.Approvals {
			assert.Equal(t, settlements.StatusApproved, a.Status)
		}

		res, err = runApprove(t, e, e.Service, in)
		require.NoError(t, err)
		assert.Empty(t, res.TransactionHashes)
		for _, a := range res.Approvals {
			assert.Equal(t, settlements.StatusAlreadyApproved, a.Status)
		}
		assert.Equal(t, uint64(len(req)), e.Nonce(t, u.Maker))

		entries := auditOf(t, e, u.UserID, audit.ActionWalletApprove)
		require.Len(t, entries, 2)
		for _, r := range entries {
			assert.Equal(t, audit.Success, r.Result)
			assert.Equal(t, "USDC", r.Target)
			assert.Equal(t, u.AgentID, r.AgentID)
			assert.Equal(t, "10.0.0.7", r.ClientAddr)
		}
	})

	t.Run("a wallet without gas fails at once and is audited", func(t *testing.T) {
		u := e.BrokeUser(t)
		steps := &faultySteps{SettlementSteps: e.Service}
		_, err := runApprove(t, e, steps, settlements.ApproveInput{UserID: u.UserID, AgentID: u.AgentID, Token: "all"})
		assert.Equal(t, errs.VenueRejected, errs.KindOf(err), "%v", err)
		assert.Equal(t, chain.CodeInsufficientGas, errs.CodeOf(err))
		assert.Equal(t, 1, steps.count("approve"), "a venue rejection must not be retried")
		entries := auditOf(t, e, u.UserID, audit.ActionWalletApprove)
		require.Len(t, entries, 1)
		assert.Equal(t, audit.Failure, entries[0].Result)
		assert.Contains(t, string(entries[0].Detail), chain.CodeInsufficientGas)
	})

	t.Run("a user without a wallet", func(t *testing.T) {
		_, err := runApprove(t, e, e.Service, settlements.ApproveInput{UserID: "usr_nowallet", AgentID: "agt_x", Token: "CTF"})
		assert.Equal(t, errs.NotFound, errs.KindOf(err), "%v", err)
	})
}

// approveHistory was recorded on the Temporal dev server (CLI v1.5.1):
// the first approval of api/settlements' end-to-end test:
//
//	TEMPORAL_CLI=/root/go/bin/temporal ATS_RECORD_HISTORY=$PWD/workflows/testdata \
//	  go test -run TestSettlementsEndToEnd ./api/settlements/
//
// (which writes approve.json and redeem.json there). Its payloads are
// encrypted with replaytest.HistoryCodecKey.
const approveHistory = "testdata/approve.json"

func TestApproveReplays(t *testing.T) {
	replaytest.ReplayFileWithOptions(t, approveHistory, replayOptions(t), workflows.All()...)
}

// The replay must be able to fail: a version that skips the audit entry
// issues different commands.
func TestApproveReplayDetectsChanges(t *testing.T) {
	changed := func(ctx workflow.Context, in settlements.ApproveInput) (settlements.ApproveResult, error) {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
		var a *activities.Settlements
		var res settlements.ApproveResult
		err := workflow.ExecuteActivity(ctx, a.ApproveWallet, in).Get(ctx, &res)
		return res, err
	}
	err := replaytest.Replay(approveHistory, replayOptions(t), replaytest.Named{Name: "Approve", Func: changed})
	if err == nil {
		t.Fatal("replay of a changed workflow succeeded")
	}
	t.Log(err)
}
