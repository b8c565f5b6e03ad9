package workflows

import (
	"context"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/intent"
	"github.com/agent-trading/ats/models/settlements"
)

// planOptions: planning only reads (store, chain, CLOB).
var planOptions = workflow.ActivityOptions{
	StartToCloseTimeout:    2 * time.Minute,
	ScheduleToCloseTimeout: 15 * time.Minute,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second,
	},
}

// redeemChainOptions: one transaction per market, each waiting for its
// receipt. A retry re-reads the wallet's balances and skips markets
// already redeemed, so it never redeems twice.
var redeemChainOptions = workflow.ActivityOptions{
	StartToCloseTimeout:    10 * time.Minute,
	ScheduleToCloseTimeout: time.Hour,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval: 2 * time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
	},
}

// recordOptions: once the tokens are redeemed the positions must be
// recorded, so recording retries without a deadline (a database outage
// delays it, the workflow keeps the plan and the transactions).
var recordOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 30 * time.Second,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 5 * time.Minute,
	},
}

// Redeem redeems what a user's wallet holds in resolved markets, for one
// of its agents (id "redeem/<user id>": one redemption per wallet at a
// time, because a redemption burns the wallet's whole balance of a
// market's tokens, so it settles the positions of every agent of the user
// in the market). It plans (PlanRedeem: the wallet's balances in resolved
// markets, shared out over the agents' positions), redeems on chain
// (RedeemOnChain: one transaction per market, skipping markets an earlier
// attempt already redeemed) and records the positions as settled
// (RecordRedemptions). The plan and the transactions live in the history,
// so a crash between the steps neither repeats a transaction nor loses the
// record. Nothing to redeem is a successful empty result. The outcome is
// written to the audit log (settlement.redeem, and settlement.redeem.shared
// for the other agents whose positions it settled).
//
// Covering the whole wallet changed what the activities plan and record,
// not the commands: the only decision taken here, plan.Empty(), gives the
// same answer for the plans recorded in older histories (they have no
// holdings), so no version marker is needed.
func Redeem(ctx workflow.Context, in settlements.RedeemInput) (settlements.RedeemResult, error) {
	if err := workflow.SetQueryHandler(ctx, QuerySettlementInput, func() (settlements.RedeemInput, error) { return in, nil }); err != nil {
		return settlements.RedeemResult{}, err
	}
	var a *activities.Settlements
	rec := settlements.AuditRecord{
		UserID: in.UserID, AgentID: in.AgentID, ClientAddr: in.ClientAddr,
		Action: settlements.ActionRedeem, Target: in.ConditionID,
	}
	if rec.Target == "" {
		rec.Target = "all"
	}
	fail := func(err error) (settlements.RedeemResult, error) {
		failed(&rec, err)
		recordSettlementAudit(ctx, rec)
		return settlements.RedeemResult{}, err
	}

	var plan settlements.RedeemPlan
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, planOptions), a.PlanRedeem, in).Get(ctx, &plan); err != nil {
		return fail(err)
	}
	if plan.Empty() {
		res := settlements.NothingToRedeem(in, plan)
		rec.Redeem = &res
		recordSettlementAudit(ctx, rec)
		return res, nil
	}
	var done []settlements.ChainRedemption
	exec := settlements.RedeemExecution{UserID: in.UserID, Plan: plan}
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, redeemChainOptions), a.RedeemOnChain, exec).Get(ctx, &done); err != nil {
		return fail(err)
	}
	var res settlements.RedeemResult
	record := settlements.RedeemRecord{Input: in, Plan: plan, Chain: done, At: workflow.Now(ctx).UTC()}
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, recordOptions), a.RecordRedemptions, record).Get(ctx, &res); err != nil {
		return fail(err)
	}
	rec.Redeem = &res
	recordSettlementAudit(ctx, rec)
	return res, nil
}

// RunRedeem starts the Redeem workflow of in.UserID, or joins the running
// one when it is the same agent's redemption of the same scope (one market
// or all), and returns its result. Any other running redemption of the
// wallet is waited for first.
func (c SettlementsClient) RunRedeem(ctx context.Context, in settlements.RedeemInput) (settlements.RedeemResult, error) {
	if c.Intents == nil {
		return settlements.RedeemResult{}, errs.E(errs.Internal, "the settlements client has no intent keys")
	}
	in.Proof = c.Intents.Sign(intent.Redeem, in.UserID, in.AgentID, in.ConditionID, in.ClientAddr)
	scope := in.ConditionID
	if scope == "" {
		scope = "all markets"
	}
	spec := StartSpec{
		Kind: KindRedeem, BusinessID: in.UserID, Summary: "redeem " + scope + " for agent " + in.AgentID,
		SearchAttributes: []temporal.SearchAttributeUpdate{SAUserID.ValueSet(in.UserID), SAAgentID.ValueSet(in.AgentID)},
	}
	var res settlements.RedeemResult
	err := runJoined(ctx, c.Client, spec, Redeem, in, func(running settlements.RedeemInput) bool {
		return running.UserID == in.UserID && running.AgentID == in.AgentID && running.ConditionID == in.ConditionID
	}, &res)
	if err != nil {
		return settlements.RedeemResult{}, err
	}
	return res, nil
}

// SettlementsClient implements the runs of Settlements.
var _ SettlementRuns = SettlementsClient{}
