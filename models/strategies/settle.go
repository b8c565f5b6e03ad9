package strategies

import (
	"context"
	"fmt"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/events"
	"github.com/agent-trading/ats/models/metrics"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/venue/micro"
)

// An execution that places an order is recorded when it is decided
// (DecideOpen), its outcome open: an action whose order is PENDING. The
// order's workflow starts without the strategy's waiting for it, and its
// activities call Settle at each change of the order, which classifies
// the execution once the order is placed (as record does for an order
// placed before the record) and keeps the strategy's totals and
// conditions in step with its orders. Runs begun before keep Decide and
// Placed (placement.go), whose executions are never open.

// DecideOpen runs execution seq of strategy id as Decide does; an
// execution that places an order is recorded at once, with its outcome
// open, and its order returned (Place) for the workflow to start.
// Idempotent: a retry answers the execution as recorded, with its order
// again while that is still PENDING (its workflow may never have
// started).
func (e *Engine) DecideOpen(ctx context.Context, id string, seq int) (Decision, error) {
	st, err := e.Store.StrategyByID(ctx, id)
	if err != nil {
		return Decision{}, err
	}
	var dec Decision
	if st.Executions >= seq {
		dec, err = e.reopen(ctx, st, seq)
	} else {
		d := deferral{open: true}
		dec.Outcome, err = e.execute(ctx, id, seq, &d)
		dec.Place = d.place
	}
	if err != nil {
		return Decision{}, err
	}
	// A copier runs its next copy at once while its target's events wait
	// (its copies in flight count in its totals already).
	if _, ok := followerOf(st.Type); ok && dec.Outcome.Executed && dec.Outcome.State.Status == StatusActive {
		if dec.Outcome.State.Pending, err = e.Store.CopyTradesPending(ctx, id, seq); err != nil {
			return Decision{}, err
		}
	}
	return dec, nil
}

// reopen answers execution seq, recorded already: with its order when it
// is open and the order still PENDING, else as recorded.
func (e *Engine) reopen(ctx context.Context, st *models.Strategy, seq int) (Decision, error) {
	rec, err := e.Store.StrategyExecutionBySeq(ctx, st.ID, seq)
	if err != nil && !errs.Is(err, errs.NotFound) {
		return Decision{}, err
	}
	if rec == nil || !rec.Open || rec.OrderID == nil {
		out, err := e.recorded(ctx, st, seq)
		return Decision{Outcome: out}, err
	}
	o, err := e.Store.OrderByID(ctx, *rec.OrderID)
	if err != nil {
		return Decision{}, err
	}
	out := Outcome{State: stateOf(st), Executed: true, Kind: rec.Kind, OrderID: o.ID}
	if o.Status != models.OrderPending {
		return Decision{Outcome: out}, nil
	}
	pm := &Placement{OrderID: o.ID, UserID: o.UserID, AgentID: o.AgentID, TokenID: o.TokenID, Mode: st.Mode,
		Kind: KindAction, Reason: rec.Reason, Complete: typeOf(st.Type).Traits().EndsWhenPlaced}
	if _, ok := followerOf(st.Type); ok {
		if ct, err := e.Store.CopyTradeBySeq(ctx, st.ID, seq); err == nil {
			pm.CopiedAt = &ct.CreatedAt
		} else if !errs.Is(err, errs.NotFound) {
			return Decision{}, err
		}
	}
	return Decision{Outcome: out, Place: pm}, nil
}

// handOver hands the accepted order o (PENDING) of execution seq to the
// workflow: Decide leaves the execution to Placed; DecideOpen records it
// now, open.
func (e *Engine) handOver(ctx context.Context, d *deferral, st *models.Strategy, c Config, seq int, o *orders.Ref, pl Plan,
	copiedAt *time.Time) (Outcome, error) {
	out := d.hold(st, o, pl, copiedAt)
	if !d.open {
		return out, nil
	}
	return e.recordOpen(ctx, st, c, seq, pl, o.ID)
}

// recordOpen records execution seq, whose order orderID is stored PENDING,
// as an open action: its order's terms, the execution count, the totals
// with the order at the most it may spend, the schedule and the
// conditions. Its outcome is not known yet: the failure count is left as
// it is, no event is raised and the strategy does not end here (Settle
// does all three once the order is placed).
func (e *Engine) recordOpen(ctx context.Context, st *models.Strategy, c Config, seq int, pl Plan, orderID string) (Outcome, error) {
	o, err := e.Store.OrderByID(ctx, orderID)
	if err != nil {
		return Outcome{}, err
	}
	tr := typeOf(st.Type).Traits()
	now := e.now()
	rec := &models.StrategyExecution{StrategyID: st.ID, Seq: seq, Time: now, Kind: KindAction, Reason: truncate(pl.Reason, 500), Open: true}
	if tr.Market != MarketNone {
		rec.TokenID = st.TokenID
		marketOnExecution(rec, st)
	}
	orderTerms(rec, o)
	out, _, err := e.locked(ctx, st, func(tx *store.Store, cur *models.Strategy) (*store.StrategyUpdate, []events.Event, error) {
		if err := tx.AddStrategyExecution(ctx, rec); err != nil {
			return nil, nil, err
		}
		// st carries the market this execution acted on (a marketQuery
		// may have moved it); the counters are read here, under the lock.
		next := *st
		next.Status, next.Executions = cur.Status, seq
		buying, err := e.refreshIn(ctx, tx, &next)
		if err != nil {
			return nil, nil, err
		}
		u := &store.StrategyUpdate{Executions: &next.Executions, BudgetUsedMicro: &next.BudgetUsedMicro, OpenSizeMicro: &next.OpenSizeMicro,
			LastEvaluatedAt: &now}
		if tr.Market != MarketNone && next.TokenID != "" {
			setMarket(u, &next)
		}
		// A strategy whose status moved meanwhile (a copy's failure put
		// it in ERROR) keeps its status, schedule and conditions: the
		// order, decided while it was ACTIVE, is placed as one in flight.
		if cur.Status == StatusActive {
			if tr.Interval {
				u.NextEvaluationAt = ptr(now.Add(c.IntervalDuration()))
			}
			conds, err := e.conditions(ctx, tx, &next, c, buying)
			if err != nil {
				return nil, nil, err
			}
			u.Triggers = ptr(encodeConds(conds))
		}
		return u, nil, nil
	})
	if err != nil {
		return Outcome{}, err
	}
	return Outcome{State: stateOf(out), Executed: true, Kind: KindAction, OrderID: o.ID}, nil
}

// Settled is what Settle did for one order.
type Settled struct {
	StrategyID string `json:"strategy_id,omitempty"`
	// Changed: this call moved the strategy's status (COMPLETED, ERROR):
	// its workflow must reload it.
	Changed bool `json:"changed,omitempty"`
	// Status is the strategy's status after the call. A retried call
	// (its first answer lost with a worker) answers it again, where
	// Changed would be false.
	Status string `json:"status,omitempty"`
	// Wake: the order, a copier's BUY, is placed (or failed) and a SELL
	// of its token by the target waits for it (Outcome.WaitsFor): the
	// strategy's workflow must run that execution again. A retried call
	// answers it again.
	Wake bool `json:"wake,omitempty"`
}

// Ended reports whether the strategy is COMPLETED or ERROR after the call:
// what its workflow must be told (it reloads and ends or parks).
func (s Settled) Ended() bool { return s.Status == StatusCompleted || s.Status == StatusError }

// Settle amends the strategy side of order orderID after the order
// changed: the open execution that recorded it is classified once the
// order is placed (kind, reason, fills; for an ACTIVE strategy the
// failure count, the events and the end), and the strategy's totals and,
// while ACTIVE, its conditions follow its orders (a BUY's fill arms
// BUY_LOW_SELL_HIGH's sell). Idempotent; it writes nothing when nothing
// changed; an order of no strategy answers Settled{}. Concurrent calls
// for orders of one strategy are serialised under its user's lock, each
// reading the strategy and its orders there.
func (e *Engine) Settle(ctx context.Context, orderID string) (Settled, error) {
	o, err := e.Store.OrderByID(ctx, orderID)
	if err != nil {
		return Settled{}, err
	}
	if o.StrategyID == nil || *o.StrategyID == "" {
		return Settled{}, nil
	}
	id := *o.StrategyID
	st, err := e.Store.StrategyByID(ctx, id)
	if err != nil {
		return Settled{}, err
	}
	cfg, err := Load(st.Config)
	if err != nil {
		return Settled{}, err
	}
	t := typeOf(st.Type)
	if quiet, err := e.unchanged(ctx, st, cfg, o); err != nil || quiet {
		if err != nil {
			return Settled{}, err
		}
		wake, err := e.wakes(ctx, st, o)
		return Settled{StrategyID: id, Status: st.Status, Wake: wake}, err
	}
	var (
		closed  *models.StrategyExecution // the execution this call closed
		counted bool                      // ... for an ACTIVE strategy
		placed  *models.Order
		moved   bool
	)
	after, _, err := e.locked(ctx, st, func(tx *store.Store, cur *models.Strategy) (*store.StrategyUpdate, []events.Event, error) {
		closed, counted, placed, moved = nil, false, nil, false
		o, err := tx.OrderByID(ctx, orderID)
		if err != nil {
			return nil, nil, err
		}
		rec, err := tx.StrategyExecutionByOrder(ctx, id, orderID)
		if err != nil && !errs.Is(err, errs.NotFound) {
			return nil, nil, err
		}
		next := *cur
		buying, err := e.refreshIn(ctx, tx, &next)
		if err != nil {
			return nil, nil, err
		}
		u := &store.StrategyUpdate{BudgetUsedMicro: &next.BudgetUsedMicro, OpenSizeMicro: &next.OpenSizeMicro}
		write := next.BudgetUsedMicro != cur.BudgetUsedMicro || next.OpenSizeMicro != cur.OpenSizeMicro
		var evs []events.Event
		if rec != nil && rec.Open && o.Status != models.OrderPending {
			// Its outcome, as record classifies an order placed before
			// the record; the plan's reason is the one recorded.
			pl := Plan{Kind: KindAction, Reason: rec.Reason, Complete: t.Traits().EndsWhenPlaced}
			amended := *rec
			amended.Open = false
			orderTerms(&amended, o)
			classify(t, &amended, &pl, o)
			ok, err := tx.CloseStrategyExecution(ctx, &amended)
			if err != nil {
				return nil, nil, err
			}
			if ok {
				closed, placed, write = &amended, o, true
			}
			if ok && cur.Status == StatusActive {
				counted = true
				next.LastError = ""
				evs = tell(cur, &next, &amended, pl)
				if next.Status == StatusActive {
					// The end waits for every execution in flight: their
					// orders may still change the totals.
					open, err := tx.CountOpenStrategyExecutions(ctx, id)
					if err != nil {
						return nil, nil, err
					}
					if end := EndOf(t, snapshotOf(&next, cfg, buying), pl.Complete); end != "" && open == 0 {
						evs = append(evs, complete(&next, &amended, end))
					}
				}
				u.ConsecutiveFailures, u.LastError, u.Status, u.EndedReason = &next.ConsecutiveFailures, &next.LastError, &next.Status, &next.EndedReason
				if next.Status != StatusActive {
					u.NextEvaluationAt, u.Triggers = &time.Time{}, ptr("")
				}
			} else if ok && !Final(cur.Status) && amended.Kind == KindAction && pl.Complete != "" {
				// A one-shot (PRICE_ALERT) paused while its order was
				// being placed has fired all the same: it completes, or
				// its resume would fire it again. Otherwise a strategy no
				// longer ACTIVE gets its execution amended only.
				counted = true
				evs = append(tell(cur, &next, &amended, pl), complete(&next, &amended, pl.Complete))
				next.PausedBy = ""
				u.ConsecutiveFailures, u.Status, u.EndedReason, u.PausedBy = &next.ConsecutiveFailures, &next.Status, &next.EndedReason, &next.PausedBy
				u.NextEvaluationAt, u.Triggers = &time.Time{}, ptr("")
			}
		}
		if next.Status == StatusActive {
			conds, err := e.conditions(ctx, tx, &next, cfg, buying)
			if err != nil {
				return nil, nil, err
			}
			u.Triggers = ptr(encodeConds(conds))
		}
		if u.Triggers != nil && *u.Triggers != cur.Triggers {
			write = true
		}
		if !write {
			return nil, nil, nil
		}
		moved = next.Status != cur.Status
		return u, evs, nil
	})
	if err != nil {
		return Settled{}, err
	}
	if counted {
		metrics.StrategyExecuted(st.Type, closed.Kind, errorKind(closed, placed, nil))
		if _, ok := t.(Follower); ok {
			// From the target's trade recorded to the copy placed.
			if ct, err := e.Store.CopyTradeBySeq(ctx, id, closed.Seq); err == nil {
				metrics.CopyLatency(e.now().Sub(ct.CreatedAt))
			}
		}
	}
	wake, err := e.wakes(ctx, after, o)
	return Settled{StrategyID: id, Changed: moved, Status: after.Status, Wake: wake}, err
}

// wakes reports whether a copier's execution waits for order o (loaded
// before the call's amendment; past PENDING there, so past it now): a
// BUY placed or failed, with a SELL of its token by the target that no
// execution of st handled yet. Only such a BUY costs the read.
func (e *Engine) wakes(ctx context.Context, st *models.Strategy, o *models.Order) (bool, error) {
	if _, ok := followerOf(st.Type); !ok || o.Side != "BUY" || o.Status == models.OrderPending || Final(st.Status) {
		return false, nil
	}
	return e.Store.CopySellsPending(ctx, st.ID, st.Executions, o.TokenID)
}

// unchanged reports, from reads outside any lock, whether Settle of order
// o has nothing to do for st: no open execution of it to close, and the
// totals and conditions as stored. Most changes of an order (a fill
// announced twice, a status already counted) end here without taking the
// user's lock, which the user's order acceptances wait for.
func (e *Engine) unchanged(ctx context.Context, st *models.Strategy, c Config, o *models.Order) (bool, error) {
	rec, err := e.Store.StrategyExecutionByOrder(ctx, st.ID, o.ID)
	if err != nil && !errs.Is(err, errs.NotFound) {
		return false, err
	}
	if rec != nil && rec.Open && o.Status != models.OrderPending {
		return false, nil
	}
	next := *st
	buying, err := e.refresh(ctx, &next)
	if err != nil || next.BudgetUsedMicro != st.BudgetUsedMicro || next.OpenSizeMicro != st.OpenSizeMicro {
		return false, err
	}
	if st.Status != StatusActive {
		return true, nil
	}
	conds, err := e.conditions(ctx, e.Store, &next, c, buying)
	return err == nil && encodeConds(conds) == st.Triggers, err
}

// locked runs fn under the user's lock (the one budget writers take),
// with the strategy as it stands there, and applies the update fn returns
// (nil: nothing to write) conditional on that status, with its events, in
// the same transaction; it re-arms the strategy in this process after the
// commit. The strategy's other writers (its workflow's steps) do not take
// the lock but write conditional on the status they read: when one moved
// the status meanwhile, fn runs again on the strategy as it is then. It
// returns the strategy after the commit and whether anything was written.
func (e *Engine) locked(ctx context.Context, st *models.Strategy,
	fn func(tx *store.Store, cur *models.Strategy) (*store.StrategyUpdate, []events.Event, error)) (*models.Strategy, bool, error) {
	for attempt := 1; ; attempt++ {
		wrote, raced := false, false
		err := e.Store.WithBudgetLock(ctx, st.UserID, func(tx *store.Store) error {
			cur, err := tx.StrategyByID(ctx, st.ID)
			if err != nil {
				return err
			}
			u, evs, err := fn(tx, cur)
			if err != nil || u == nil {
				return err
			}
			if err := tx.UpdateStrategy(ctx, st.ID, []string{cur.Status}, *u); err != nil {
				raced = errs.CodeOf(err) == errs.CodeStrategyState
				return err
			}
			for _, ev := range evs {
				if _, err := events.Append(ctx, tx, ev); err != nil {
					return err
				}
			}
			wrote = true
			return nil
		})
		if raced && attempt < 3 {
			continue
		}
		if err != nil {
			return nil, false, err
		}
		if !wrote {
			return st, false, nil
		}
		out, err := e.Store.StrategyByID(ctx, st.ID)
		if err != nil {
			return nil, false, err
		}
		e.arm(out)
		return out, true, nil
	}
}

// orderTerms copies order o's terms and outcome so far into rec.
func orderTerms(rec *models.StrategyExecution, o *models.Order) {
	oid := o.ID
	rec.OrderID = &oid
	rec.Action, rec.Side, rec.TokenID = o.Side, o.Side, o.TokenID
	rec.PriceMicro, rec.SizeMicro, rec.OrderStatus = o.PriceMicro, o.SizeMicro, o.Status
	rec.FilledSizeMicro, rec.AvgFillPriceMicro = o.FilledSizeMicro, o.AvgFillPriceMicro
	rec.AmountMicro = spent(o)
}

// classify sets the kind and reason of execution rec (kind and reason
// those of plan pl so far) from its order o as it stands: a skip for a type
// with Traits.Unfilled whose order the book left unfilled, an error for a
// failed or unfilled order, a partial fill of a fill-and-kill order
// described, else the plan's action. An execution whose order failed or
// bought nothing does not end its strategy (pl.Complete is cleared).
func classify(t Type, rec *models.StrategyExecution, pl *Plan, o *models.Order) {
	tr := t.Traits()
	switch {
	case tr.Unfilled != "" && o.FilledSizeMicro == 0 &&
		(o.Status == models.OrderFailed && marketMovedAway(o.FailureCode) || o.Status != models.OrderFailed && orders.TerminalStatus(o.Status)):
		// Nothing was left within the bound when the order reached
		// the book: for these types a skip, not a failure
		// (Traits.Unfilled).
		rec.Kind = KindSkip
		rec.Reason = truncate(fmt.Sprintf(tr.Unfilled, micro.Decimal(o.PriceMicro).String(), pl.Reason), 500)
	case o.Status == models.OrderFailed:
		rec.Kind = KindError
		rec.Reason = "the order failed: " + o.FailureReason
		if _, ok := t.(Follower); ok {
			rec.Reason += " (" + pl.Reason + ")" // names the target's transaction
		}
		rec.Reason = truncate(rec.Reason, 500)
	case orders.TerminalStatus(o.Status) && o.FilledSizeMicro == 0:
		// A market order the book could not fill at the price read:
		// a failure, so a condition that keeps firing on a book too
		// thin to trade ends in ERROR instead of looping.
		rec.Kind = KindError
		rec.Reason = truncate(fmt.Sprintf("the order did not fill (%s): %s", o.Status, pl.Reason), 500)
	case o.RequestType == orders.TypeFAK && orders.TerminalStatus(o.Status) && o.FilledSizeMicro+shareDustMicro < marketShares(o):
		// Fill-and-kill: what the book held within the bound was
		// bought; the rest is a skip, not an error. (A whole fill of
		// a BUY is its venue amounts', a little under its size:
		// 198.03 shares at 0.53 are $104.95 of collateral, which buys
		// 198.0188 shares there.)
		rec.Reason = truncate(fmt.Sprintf("%s; partial fill: %s of %s shares at an average of %s, the rest was not on the book at %s or better and was not bought",
			pl.Reason, micro.Decimal(o.FilledSizeMicro).String(), micro.Decimal(o.SizeMicro).String(),
			micro.Decimal(o.AvgFillPriceMicro).String(), micro.Decimal(o.PriceMicro).String()), 500)
	}
	if rec.Kind != KindAction {
		// Its order failed or bought nothing: not what ends it.
		pl.Complete = ""
	}
}

// tell applies the outcome of execution rec (plan pl) of st to next, the
// strategy after it: an error counts towards ERROR (at once for pl.Stop),
// an action resets the count. It returns the events raised.
func tell(st, next *models.Strategy, rec *models.StrategyExecution, pl Plan) []events.Event {
	var evs []events.Event
	ev := func(typ events.Type, summary string, details map[string]any) {
		evs = append(evs, events.Event{AgentID: st.AgentID, UserID: st.UserID, Type: typ, StrategyID: st.ID, StrategyType: st.Type,
			By: events.BySystem, Summary: summary, OrderID: derefOr(rec.OrderID), Details: details})
	}
	switch rec.Kind {
	case KindError:
		next.ConsecutiveFailures++
		next.LastError = rec.Reason
		if pl.Stop {
			// Nothing the strategy can do will succeed: ERROR at once.
			next.Status = StatusError
			ev(events.StrategyError, fmt.Sprintf("strategy %s stopped: %s", st.ID, rec.Reason),
				map[string]any{"lastError": rec.Reason, "failures": next.ConsecutiveFailures})
		} else if next.ConsecutiveFailures >= MaxConsecutiveErrors {
			next.Status = StatusError
			ev(events.StrategyError, fmt.Sprintf("strategy %s auto-paused after %d consecutive failed executions", st.ID, next.ConsecutiveFailures),
				map[string]any{"lastError": rec.Reason, "failures": next.ConsecutiveFailures})
		}
	case KindAction:
		next.ConsecutiveFailures = 0
		ev(events.StrategyExecuted, fmt.Sprintf("strategy %s: %s %s shares at %s (order %s)", st.ID, rec.Side,
			micro.Decimal(rec.SizeMicro).String(), micro.Decimal(rec.PriceMicro).String(), rec.OrderStatus),
			map[string]any{"side": rec.Side, "size": micro.Decimal(rec.SizeMicro).String(), "price": micro.Decimal(rec.PriceMicro).String(),
				"tokenId": rec.TokenID, "amount": micro.Decimal(rec.AmountMicro).String(), "execution": rec.Seq})
	}
	return evs
}

// complete ends next (COMPLETED, for reason end) after execution rec and
// returns the event.
func complete(next *models.Strategy, rec *models.StrategyExecution, end string) events.Event {
	next.Status, next.EndedReason = StatusCompleted, end
	return events.Event{AgentID: next.AgentID, UserID: next.UserID, Type: events.StrategyCompleted, StrategyID: next.ID, StrategyType: next.Type,
		By: events.BySystem, Summary: "strategy " + next.ID + " " + completedDetail(end), OrderID: derefOr(rec.OrderID),
		Details: map[string]any{"reason": end, "budgetUsed": micro.Decimal(next.BudgetUsedMicro).String()}}
}

// placing reports whether st, of a type that ends once its order is
// placed (PRICE_ALERT), has an execution whose order is not placed yet:
// it must not place another, nor wait for its condition meanwhile.
func placing(ctx context.Context, s *store.Store, st *models.Strategy) (bool, error) {
	if typeOf(st.Type).Traits().EndsWhenPlaced == "" {
		return false, nil
	}
	n, err := s.CountOpenStrategyExecutions(ctx, st.ID)
	return n > 0, err
}

// conditions are the conditions st waits for (conditionsFor), none while
// placing: s is the store (or transaction) to read from.
func (e *Engine) conditions(ctx context.Context, s *store.Store, st *models.Strategy, c Config, buying int64) ([]Cond, error) {
	conds := conditionsFor(st, c, buying)
	if len(conds) == 0 {
		return nil, nil
	}
	if busy, err := placing(ctx, s, st); err != nil || busy {
		return nil, err
	}
	return conds, nil
}
