package orders

import (
	"context"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
)

// Bounds of posting an order and of cancelling it while PENDING.
const (
	// postTimeout bounds one post of an order to the venue. postSettle is
	// how long after a post returned a request of it may still reach the
	// venue. The posting claim lasts postTimeout+postSettle.
	postTimeout = 15 * time.Second
	postSettle  = 3 * time.Second
	// claimPoll is how often a cancel waiting for a post looks again.
	claimPoll = 200 * time.Millisecond
	// pendingCancelWait bounds how long CancelPending waits for posts to
	// end: one claim's lease and some. Placement attempts follow each
	// other with a growing backoff, so it finds a gap well within it.
	pendingCancelWait = postTimeout + postSettle + 5*time.Second
)

// CancelPending cancels a PENDING order without waiting for its placement.
// It is the order workflow's cancel step for an order not placed yet, and
// what CancelDirect runs for an order without a workflow. previous is
// always PENDING:
//
//   - no post in flight: the order is CANCELLED at once and its budget
//     reservation released; the placement step, whenever it runs, finds it
//     cancelled and posts nothing (store.ClaimOrderPost). A signed order is
//     first looked up on the venue (a post whose answer was lost): when the
//     venue has it, it is adopted and cancelled there.
//   - a post in flight: it waits for the post's outcome (the posting
//     claim's lease at most), then cancels on the venue as CancelAtVenue
//     does, or refuses when the order filled at once.
//
// It is idempotent: a retry after it cancelled the order answers the same.
func (s *Service) CancelPending(ctx context.Context, orderID string) (previous string, _ Order, _ error) {
	previous = models.OrderPending
	deadline := time.Now().Add(pendingCancelWait)
	for {
		o, err := s.Store.OrderByID(ctx, orderID)
		if err != nil {
			return "", Order{}, err
		}
		switch o.Status {
		case models.OrderCancelled:
			// Cancelled by an earlier attempt, which may have died before
			// releasing the reservation (releasing again is harmless). A
			// cancel with fills was recorded, and released, by a sync.
			if o.FilledSizeMicro == 0 {
				if err := s.releaseBudget(ctx, o, 0); err != nil {
					return "", Order{}, err
				}
			}
			return previous, view(o), nil
		case models.OrderFilled, models.OrderFailed:
			return "", Order{}, notCancellable(o.Status)
		case models.OrderOpen, models.OrderPartiallyFilled:
			// Posted meanwhile (the post this cancel waited for).
			_, v, err := s.CancelAtVenue(ctx, orderID)
			if err != nil {
				return "", Order{}, err
			}
			return previous, v, nil
		}
		if time.Now().After(deadline) {
			return "", Order{}, errs.E(errs.Transient, "the order is being posted to the venue right now; the cancel did not get in").
				WithCode(errs.CodeCancelInProgress).WithHint("send DELETE /orders/{id} again in a few seconds")
		}
		if o.PostingUntil != nil {
			if left := time.Until(*o.PostingUntil); left > 0 {
				if err := sleepCtx(ctx, min(left, claimPoll)); err != nil {
					return "", Order{}, err
				}
				continue
			}
		}
		if o.VenueOrderID != "" {
			adopted, err := s.adoptIfPosted(ctx, o)
			if err != nil {
				return "", Order{}, err
			}
			if adopted {
				continue
			}
		}
		err = s.Store.CancelPendingOrder(ctx, o.ID)
		if errs.Is(err, errs.Conflict) {
			continue // a post claimed it, or it changed status: look again
		}
		if err != nil {
			return "", Order{}, err
		}
		if err := s.releaseBudget(ctx, o, 0); err != nil {
			return "", Order{}, err
		}
		cur, err := s.Store.OrderByID(ctx, o.ID)
		if err != nil {
			return "", Order{}, err
		}
		s.log().InfoContext(ctx, "pending order cancelled before it was posted", "order_id", o.ID)
		return previous, view(cur), nil
	}
}

// adoptIfPosted looks a signed PENDING order up on the venue: an earlier
// post may have placed it without its answer arriving. When the venue has
// it, its status and fills are recorded (adopted = true) so that it is
// cancelled on the venue, never just forgotten.
func (s *Service) adoptIfPosted(ctx context.Context, o *models.Order) (adopted bool, _ error) {
	t, err := s.trader(ctx, o.UserID)
	if errs.Is(err, errs.NotFound) {
		// The wallet was removed: the venue cannot be asked, and no
		// placement can post the order any more.
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, err = t.Client.GetOrder(ctx, o.VenueOrderID)
	switch {
	case errs.Is(err, errs.NotFound):
		return false, nil
	case err != nil:
		return false, s.venueErr(ctx, o.UserID, err)
	}
	s.log().InfoContext(ctx, "pending order found on the venue; adopting it to cancel it there", "order_id", o.ID)
	if _, err := s.syncWith(ctx, t, o); err != nil {
		return false, err
	}
	return true, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
