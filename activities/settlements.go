package activities

import (
	"context"

	"go.temporal.io/sdk/activity"

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
type Settlements struct {
	Steps SettlementSteps
}

// ApproveWallet grants the wallet's approvals (sends transactions).
func (s *Settlements) ApproveWallet(ctx context.Context, in settlements.ApproveInput) (settlements.ApproveResult, error) {
	res, err := s.Steps.ApproveWallet(ctx, in)
	if err != nil {
		return res, ToTemporal(err)
	}
	activity.GetLogger(ctx).Info("wallet approved", "user_id", in.UserID, "token", in.Token, "transactions", len(res.TransactionHashes))
	return res, nil
}

// PlanRedeem selects the positions to redeem (reads only).
func (s *Settlements) PlanRedeem(ctx context.Context, in settlements.RedeemInput) (settlements.RedeemPlan, error) {
	plan, err := s.Steps.PlanRedeem(ctx, in)
	if err != nil {
		return plan, ToTemporal(err)
	}
	activity.GetLogger(ctx).Info("redemption planned", "agent_id", in.AgentID, "positions", len(plan.Positions),
		"markets", len(plan.Conditions), "holdings", len(plan.Holdings))
	return plan, nil
}

// RedeemOnChain sends the planned redemptions (one transaction per market).
func (s *Settlements) RedeemOnChain(ctx context.Context, in settlements.RedeemExecution) ([]settlements.ChainRedemption, error) {
	out, err := s.Steps.RedeemOnChain(ctx, in)
	if err != nil {
		return out, ToTemporal(err)
	}
	activity.GetLogger(ctx).Info("redeemed on chain", "user_id", in.UserID, "markets", len(out))
	return out, nil
}

// RecordRedemptions records the redeemed positions, of every agent of the
// user, as settled.
func (s *Settlements) RecordRedemptions(ctx context.Context, in settlements.RedeemRecord) (settlements.RedeemResult, error) {
	res, err := s.Steps.RecordRedemptions(ctx, in)
	if err != nil {
		return res, ToTemporal(err)
	}
	return res, nil
}

// RecordSettlementAudit writes the audit entry of an approval or redemption.
func (s *Settlements) RecordSettlementAudit(ctx context.Context, r settlements.AuditRecord) error {
	return ToTemporal(s.Steps.RecordAudit(ctx, r))
}
