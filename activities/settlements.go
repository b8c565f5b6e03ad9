package activities

import (
	"context"

	"go.temporal.io/sdk/activity"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/errs/temporalerr"
	"github.com/agent-trading/ats/models/intent"
	"github.com/agent-trading/ats/models/settlements"
)

// SettlementSteps is the work behind the approve and redeem workflows;
// *settlements.Service implements it. Every method must be idempotent:
// activities run at least once, and the chain steps may be retried after
// their transaction was mined.
type SettlementSteps interface {
	ApproveWallet(ctx context.Context, in settlements.ApproveInput) (settlements.ApproveResult, error)
	PlanRedeem(ctx context.Context, in settlements.RedeemInput) (settlements.RedeemPlan, error)
	RedeemOnChain(ctx context.Context, in settlements.RedeemExecution) ([]settlements.ChainRedemption, error)
	RecordRedemptions(ctx context.Context, in settlements.RedeemRecord) (settlements.RedeemResult, error)
	RecordAudit(ctx context.Context, r settlements.AuditRecord) error
}

// Settlements holds the approve and redeem activities. Workflows
// reference its methods through a nil *Settlements. Inputs carry ids and
// public data only: each step loads the wallet, whose key stays in the
// vault, itself.
//
// A workflow's input names a user and an agent, but anyone who reaches
// Temporal can start a workflow: the steps that act on a wallet (approve,
// plan the redemption) and the one that records it verify the input's
// proof, made only for an authenticated agent request (models/intent).
type Settlements struct {
	Steps   SettlementSteps
	Intents *intent.Keys
}

func (s *Settlements) verifyApprove(in settlements.ApproveInput) error {
	return s.Intents.Verify(in.Proof, intent.WalletApprove, in.UserID, in.AgentID, in.Token, in.ClientAddr)
}

func (s *Settlements) verifyRedeem(in settlements.RedeemInput) error {
	return s.Intents.Verify(in.Proof, intent.Redeem, in.UserID, in.AgentID, in.ConditionID, in.ClientAddr)
}

// ApproveWallet grants the wallet's approvals (sends transactions).
func (s *Settlements) ApproveWallet(ctx context.Context, in settlements.ApproveInput) (settlements.ApproveResult, error) {
	if err := s.verifyApprove(in); err != nil {
		return settlements.ApproveResult{}, temporalerr.To(err)
	}
	res, err := s.Steps.ApproveWallet(ctx, in)
	if err != nil {
		return res, temporalerr.To(err)
	}
	activity.GetLogger(ctx).Info("wallet approved", "user_id", in.UserID, "token", in.Token, "transactions", len(res.TransactionHashes))
	return res, nil
}

// PlanRedeem selects the positions to redeem (reads only).
func (s *Settlements) PlanRedeem(ctx context.Context, in settlements.RedeemInput) (settlements.RedeemPlan, error) {
	if err := s.verifyRedeem(in); err != nil {
		return settlements.RedeemPlan{}, temporalerr.To(err)
	}
	plan, err := s.Steps.PlanRedeem(ctx, in)
	if err != nil {
		return plan, temporalerr.To(err)
	}
	activity.GetLogger(ctx).Info("redemption planned", "agent_id", in.AgentID, "positions", len(plan.Positions),
		"markets", len(plan.Conditions), "holdings", len(plan.Holdings))
	return plan, nil
}

// RedeemOnChain sends the planned redemptions (one transaction per market).
func (s *Settlements) RedeemOnChain(ctx context.Context, in settlements.RedeemExecution) ([]settlements.ChainRedemption, error) {
	out, err := s.Steps.RedeemOnChain(ctx, in)
	if err != nil {
		return out, temporalerr.To(err)
	}
	activity.GetLogger(ctx).Info("redeemed on chain", "user_id", in.UserID, "markets", len(out))
	return out, nil
}

// RecordRedemptions records the redeemed positions, of every agent of the
// user, as settled.
func (s *Settlements) RecordRedemptions(ctx context.Context, in settlements.RedeemRecord) (settlements.RedeemResult, error) {
	if err := s.verifyRedeem(in.Input); err != nil {
		return settlements.RedeemResult{}, temporalerr.To(err)
	}
	res, err := s.Steps.RecordRedemptions(ctx, in)
	if err != nil {
		return res, temporalerr.To(err)
	}
	return res, nil
}

// RecordSettlementAudit writes the audit entry of an approval or
// redemption. A request refused for lacking its proof is not the named
// user's or agent's doing, so it goes to the log, not to their audit trail
// (which anyone reaching Temporal could otherwise fill).
func (s *Settlements) RecordSettlementAudit(ctx context.Context, r settlements.AuditRecord) error {
	if r.ErrorCode == errs.CodeUnvouchedRequest {
		activity.GetLogger(ctx).Warn("settlement request without a valid proof refused; not audited as the user's",
			"action", r.Action, "claimed_user_id", r.UserID, "claimed_agent_id", r.AgentID)
		return nil
	}
	return temporalerr.To(s.Steps.RecordAudit(ctx, r))
}
