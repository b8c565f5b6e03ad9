package store

import (
	"context"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
)

// The posting claim (orders.posting_until) keeps a cancel of a PENDING
// order from racing its post to the venue. The placement step takes it,
// in the same guarded statement that checks the order is still PENDING,
// right before it posts; CancelPendingOrder only cancels while no claim is
// live. Either the cancel comes first and the post never happens, or the
// post comes first and the cancel waits for its outcome and cancels on the
// venue. The claim is a lease, so a placement attempt that dies mid-post
// does not block a cancel for longer than the post could have taken.

// ClaimOrderPost takes the posting claim of a PENDING order for d (the
// longest the post may take, plus a margin). A retried attempt takes it
// again. An order that is no longer PENDING (cancelled meanwhile) is
// errs.Conflict with code "order_state": it must not be posted.
func (s *Store) ClaimOrderPost(ctx context.Context, id string, d time.Duration) error {
	res := s.db.WithContext(ctx).Model(&models.Order{}).
		Where("id = ? AND status = ?", id, models.OrderPending).
		UpdateColumn("posting_until", utc(s.now().Add(d)))
	if res.Error != nil {
		return mapErr(res.Error, "order")
	}
	if res.RowsAffected == 1 {
		return nil
	}
	return s.orderStateConflict(ctx, id)
}

// ReleaseOrderPost shortens the posting claim of a PENDING order to end
// settle from now: the post returned, and only a request that may still
// be travelling to the venue has to be waited for. A claim that ends
// sooner, or an order that is no longer PENDING, is left alone.
func (s *Store) ReleaseOrderPost(ctx context.Context, id string, settle time.Duration) error {
	until := utc(s.now().Add(settle))
	err := s.db.WithContext(ctx).Model(&models.Order{}).
		Where("id = ? AND status = ? AND posting_until > ?", id, models.OrderPending, until).
		UpdateColumn("posting_until", until).Error
	return mapErr(err, "order")
}

// CancelPendingOrder marks a PENDING order CANCELLED with nothing reserved,
// unless its posting claim is live. When the order is no longer PENDING,
// or is being posted, it is errs.Conflict with code "order_state": read the
// order again to see which. The budget reservation is the caller's to
// release.
func (s *Store) CancelPendingOrder(ctx context.Context, id string) error {
	return s.endPendingOrder(ctx, id, map[string]any{"status": models.OrderCancelled})
}

// FailPendingOrder marks a PENDING order FAILED for reason with nothing
// reserved, under the same guard as CancelPendingOrder: never while a post
// may be on its way to the venue (a placement attempt that outlived its
// workflow's patience can still be posting). Conflict "order_state" as
// there. The budget reservation is the caller's to release.
func (s *Store) FailPendingOrder(ctx context.Context, id, reason string) error {
	return s.endPendingOrder(ctx, id, map[string]any{"status": models.OrderFailed, "failure_reason": reason})
}

// endPendingOrder applies set (a final status and what goes with it) to a
// PENDING order whose posting claim is not live, with nothing reserved.
func (s *Store) endPendingOrder(ctx context.Context, id string, set map[string]any) error {
	now := s.now()
	set["reserved_micro"], set["updated_at"] = int64(0), now
	res := s.db.WithContext(ctx).Model(&models.Order{}).
		Where("id = ? AND status = ? AND (posting_until IS NULL OR posting_until <= ?)", id, models.OrderPending, utc(now)).
		UpdateColumns(set)
	if res.Error != nil {
		return mapErr(res.Error, "order")
	}
	if res.RowsAffected == 1 {
		// Reported here and in UpdateOrder, the two places an order's
		// status changes.
		s.orderStatusChanged(set["status"].(string))
		s.changed(Change{Topic: TopicOrders, OrderID: id})
		return nil
	}
	return s.orderStateConflict(ctx, id)
}

// orderStateConflict is the answer to a guarded order update that matched
// no row: NotFound when the order does not exist, else the Conflict
// UpdateOrder answers.
func (s *Store) orderStateConflict(ctx context.Context, id string) error {
	o, err := s.OrderByID(ctx, id)
	if err != nil {
		return err
	}
	if o.Status == models.OrderPending {
		return errs.E(errs.Conflict, "the order is being posted to the venue").WithCode(errs.CodeOrderState)
	}
	return errs.Ef(errs.Conflict, "the order is %s", o.Status).WithCode(errs.CodeOrderState)
}
