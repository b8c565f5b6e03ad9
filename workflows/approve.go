package workflows

import (
	"context"
	"errors"
	"time"

	"github.com/cenkalti/backoff/v5"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/errs/temporalerr"
	"github.com/agent-trading/ats/models/intent"
	"github.com/agent-trading/ats/models/settlements"
)

// QuerySettlementInput is the query the approve and redeem workflows
// answer with their input, so a caller that joined a running workflow can
// tell whether it asked for the same thing.
const QuerySettlementInput = "input"

// approveOptions: an approval sends up to eight transactions, each waiting
// for its receipt. Retrying is safe — approvals already granted are
// skipped — so transient chain failures are retried for half an hour.
var approveOptions = workflow.ActivityOptions{
	StartToCloseTimeout:    10 * time.Minute,
	ScheduleToCloseTimeout: 30 * time.Minute,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval: 2 * time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
	},
}

// settlementAuditOptions: the audit entry is written after the work is
// done; it is retried for an hour and then given up with a warning
// rather than failing an approval or redemption that happened.
var settlementAuditOptions = workflow.ActivityOptions{
	StartToCloseTimeout:    15 * time.Second,
	ScheduleToCloseTimeout: time.Hour,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
	},
}

// Approve grants a wallet's trading approvals (id "approve/<user id>": one
// approval per wallet at a time). Its activity loads the wallet itself and
// skips approvals already in place, so a retry after a crash never sends a
// second transaction for an approval that was mined. The outcome, success
// or failure, is written to the audit log (wallet.approve).
func Approve(ctx workflow.Context, in settlements.ApproveInput) (settlements.ApproveResult, error) {
	if err := workflow.SetQueryHandler(ctx, QuerySettlementInput, func() (settlements.ApproveInput, error) { return in, nil }); err != nil {
		return settlements.ApproveResult{}, err
	}
	var a *activities.Settlements
	var res settlements.ApproveResult
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, approveOptions), a.ApproveWallet, in).Get(ctx, &res)
	rec := settlements.AuditRecord{
		UserID: in.UserID, AgentID: in.AgentID, ClientAddr: in.ClientAddr,
		Action: audit.ActionWalletApprove, Target: in.Token,
	}
	if err != nil {
		failed(&rec, err)
	} else {
		rec.Approve = &res
	}
	recordSettlementAudit(ctx, rec)
	return res, err
}

// failed fills the failure of an audit record from an activity error.
func failed(rec *settlements.AuditRecord, err error) {
	e := temporalerr.From(err)
	rec.Error, rec.ErrorCode = errs.PublicMessage(e), errs.CodeOf(e)
}

// recordSettlementAudit writes rec; a failure is logged, not returned,
// because the approval or redemption it describes has happened.
func recordSettlementAudit(ctx workflow.Context, rec settlements.AuditRecord) {
	var a *activities.Settlements
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, settlementAuditOptions), a.RecordSettlementAudit, rec).Get(ctx, nil)
	if err != nil {
		workflow.GetLogger(ctx).Warn("cannot record the settlement audit entry", "action", rec.Action, "error", err)
	}
}

// SettlementsClient runs the approve and redeem workflows over a Temporal
// client and waits for their results; it implements SettlementRuns.
// Its caller, Settlements, acts for an authenticated agent,
// so it attaches the proof of each request, made with Intents; the
// activities refuse an input without it.
type SettlementsClient struct {
	Client  client.Client
	Intents *intent.Keys
}

// maxJoins bounds how often a request waits for another request's
// workflow of the same wallet before giving up with a Conflict.
const maxJoins = 3

// RunApprove starts the Approve workflow of in.UserID, or joins the
// running one when it approves the same token, and returns its result. A
// running approval of another token is waited for first.
func (c SettlementsClient) RunApprove(ctx context.Context, in settlements.ApproveInput) (settlements.ApproveResult, error) {
	if c.Intents == nil {
		return settlements.ApproveResult{}, errs.E(errs.Internal, "the settlements client has no intent keys")
	}
	in.Proof = c.Intents.Sign(intent.WalletApprove, in.UserID, in.AgentID, in.Token, in.ClientAddr)
	spec := StartSpec{
		Kind: KindApprove, BusinessID: in.UserID, Summary: "approve " + in.Token + " for user " + in.UserID,
		SearchAttributes: []temporal.SearchAttributeUpdate{SAUserID.ValueSet(in.UserID), SAAgentID.ValueSet(in.AgentID)},
	}
	var res settlements.ApproveResult
	err := runJoined(ctx, c.Client, spec, Approve, in, func(running settlements.ApproveInput) bool {
		return running.UserID == in.UserID && running.Token == in.Token
	}, &res)
	if err != nil {
		return settlements.ApproveResult{}, err
	}
	return res, nil
}

// runJoined starts wf with in, joining a running workflow of the same id
// (WorkflowIDConflictPolicy USE_EXISTING: two identical requests sent at
// once share one workflow and one set of transactions). When the joined
// workflow was started for a different scope — same asks false for its
// input — it is waited for and the start is tried again, at most maxJoins
// times. The workflow's result is decoded into out.
func runJoined[I any](ctx context.Context, c client.Client, spec StartSpec, wf any, in I, same func(I) bool, out any) error {
	opts, err := StartOptions(spec)
	if err != nil {
		return err
	}
	opts.WorkflowIDConflictPolicy = enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING
	opts.WorkflowIDReusePolicy = enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE
	for range maxJoins {
		run, err := c.ExecuteWorkflow(ctx, opts, wf, in)
		if err != nil {
			return temporalerr.From(err)
		}
		v, err := queryWhenReady(ctx, c, opts.ID, run.GetRunID())
		if err != nil {
			return temporalerr.From(err)
		}
		var running I
		if err := v.Get(&running); err != nil {
			return errs.Wrap(errs.Internal, err, "decode the running workflow's input")
		}
		err = run.Get(ctx, out)
		if same(running) {
			return temporalerr.From(err)
		}
		if ctx.Err() != nil {
			return temporalerr.From(ctx.Err())
		}
		// Another request's workflow: it has finished, so the next start
		// runs ours.
	}
	return errs.E(errs.Conflict, "another operation on this wallet is running; retry shortly").WithCode(errs.CodeSettlementInProgress)
}

// queryWhenReady asks a settlement workflow for its input. A workflow
// whose first task has not completed yet (it was started a moment ago)
// may be refused as not ready; the query is then repeated briefly.
func queryWhenReady(ctx context.Context, c client.Client, id, runID string) (converter.EncodedValue, error) {
	return backoff.Retry(ctx, func() (converter.EncodedValue, error) {
		v, err := c.QueryWorkflow(ctx, id, runID, QuerySettlementInput)
		var notReady *serviceerror.WorkflowNotReady
		if err != nil && !errors.As(err, &notReady) {
			return v, backoff.Permanent(err)
		}
		return v, err
	}, backoff.WithBackOff(backoff.NewConstantBackOff(50*time.Millisecond)), backoff.WithMaxElapsedTime(0))
}
