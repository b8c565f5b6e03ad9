package workflows

import (
	"context"
	"errors"
	"time"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/settlements"
)

// SettlementRuns runs the approve and redeem workflows and waits for their
// results; SettlementsClient implements it over Temporal, the tests of
// Settlements with stand-ins.
type SettlementRuns interface {
	RunApprove(ctx context.Context, in settlements.ApproveInput) (settlements.ApproveResult, error)
	RunRedeem(ctx context.Context, in settlements.RedeemInput) (settlements.RedeemResult, error)
}

// Settlements is how the API approves and redeems: models/settlements
// checks the request (ApproveRequest, RedeemRequest), then its workflow
// runs it, whose activities call the settlements service's steps. The
// walk api/settlements → workflows → Temporal → activities →
// models/settlements → venue/chain enters no package twice.
type Settlements struct {
	Runs SettlementRuns
	// Wait bounds how long Approve and Redeem wait for their workflow
	// (default DefaultSettlementWait): below the HTTP server's write
	// timeout, so an agent gets an answer it can act on instead of a cut
	// connection.
	Wait time.Duration
}

// DefaultSettlementWait is the default of Settlements.Wait.
const DefaultSettlementWait = 45 * time.Second

// Approve grants the wallet's trading approvals for token through the
// Approve workflow (see settlements.ApproveRequest).
func (s *Settlements) Approve(ctx context.Context, p orders.Principal, token string) (settlements.ApproveResult, error) {
	in, err := settlements.ApproveRequest(p, token)
	if err != nil {
		return settlements.ApproveResult{}, err
	}
	var res settlements.ApproveResult
	err = s.run(ctx, "approval", func(ctx context.Context) (err error) {
		res, err = s.Runs.RunApprove(ctx, in)
		return err
	})
	return res, err
}

// Redeem redeems what the user's wallet holds in resolved markets through
// the Redeem workflow (see settlements.RedeemRequest).
func (s *Settlements) Redeem(ctx context.Context, p orders.Principal, conditionID string) (settlements.RedeemResult, error) {
	in, err := settlements.RedeemRequest(p, conditionID)
	if err != nil {
		return settlements.RedeemResult{}, err
	}
	var res settlements.RedeemResult
	err = s.run(ctx, "redemption", func(ctx context.Context) (err error) {
		res, err = s.Runs.RunRedeem(ctx, in)
		return err
	})
	return res, err
}

// run calls fn with the wait applied and turns an expired wait (the
// caller's own context still alive) into a retryable "still running".
func (s *Settlements) run(ctx context.Context, what string, fn func(context.Context) error) error {
	if s.Runs == nil {
		return errs.E(errs.Internal, "settlements are not configured in this process")
	}
	wait := s.Wait
	if wait <= 0 {
		wait = DefaultSettlementWait
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	err := fn(wctx)
	if err != nil && ctx.Err() == nil && errors.Is(wctx.Err(), context.DeadlineExceeded) {
		return &errs.Error{
			Kind: errs.Transient, Code: errs.CodeSettlementPending, RetryAfterSeconds: 5,
			Message: "the " + what + " is still running on chain; send the same request again to get its result",
			Err:     err,
		}
	}
	return err
}
