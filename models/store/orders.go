package store

import (
	"context"
	"slices"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
)

// CreateOrder inserts o, filling ID (when empty), Status (PENDING when
// empty) and timestamps. An idempotency key the agent used for an order
// within IdempotencyRetention is errs.Conflict (the unique index makes it
// so on both databases); look that order up with OrderByIdempotencyKey. An
// older order holding the key gives it up in the same transaction, so a
// key is free again after the retention, as the API documents.
func (s *Store) CreateOrder(ctx context.Context, o *models.Order) error {
	if o.AgentID == "" || o.UserID == "" || o.TokenID == "" {
		return errs.E(errs.Invalid, "an order needs an agent, a user and a token")
	}
	if o.ID == "" {
		o.ID = models.NewID(models.PrefixOrder)
	}
	if o.Status == "" {
		o.Status = models.OrderPending
	}
	if o.Mode == "" {
		o.Mode = models.ModeLive
	}
	// Microseconds, the precision PostgreSQL keeps: the row in memory is
	// the row read back, on either database (the placement attempt works
	// from the row its acceptance stored).
	now := s.now().Truncate(time.Microsecond)
	o.CreatedAt, o.UpdatedAt = now, now
	o.FilledAt = utcPtr(o.FilledAt)
	if o.IdempotencyKey == nil {
		if err := s.db.WithContext(ctx).Create(o).Error; err != nil {
			return mapErr(err, "order")
		}
		s.changed(Change{UserID: o.UserID, Topic: TopicOrders})
		return nil
	}
	return s.Tx(ctx, func(tx *Store) error {
		if _, err := tx.releaseOrderKeys(ctx, o.AgentID, *o.IdempotencyKey, now.Add(-IdempotencyRetention)); err != nil {
			return err
		}
		if err := tx.db.WithContext(ctx).Create(o).Error; err != nil {
			return mapErr(err, "order")
		}
		tx.changed(Change{UserID: o.UserID, Topic: TopicOrders})
		return nil
	})
}

// releaseOrderKeys clears the idempotency key of orders created at or
// before cutoff, of one agent and key or (both empty) of everyone.
func (s *Store) releaseOrderKeys(ctx context.Context, agentID, key string, cutoff time.Time) (int64, error) {
	q := s.db.WithContext(ctx).Model(&models.Order{}).Where("idempotency_key IS NOT NULL AND created_at <= ?", utc(cutoff))
	if agentID != "" || key != "" {
		q = q.Where("agent_id = ? AND idempotency_key = ?", agentID, key)
	}
	res := q.UpdateColumn("idempotency_key", nil)
	return res.RowsAffected, mapErr(res.Error, "order")
}

// OrderByID finds an order by ID, whoever owns it (for workers).
func (s *Store) OrderByID(ctx context.Context, id string) (*models.Order, error) {
	return s.orderWhere(ctx, "id = ?", id)
}

// OrderForAgent finds agentID's order id; another agent's order is NotFound.
func (s *Store) OrderForAgent(ctx context.Context, agentID, id string) (*models.Order, error) {
	return s.orderWhere(ctx, "id = ? AND agent_id = ?", id, agentID)
}

// OrderByIdempotencyKey finds the agent's order placed with key within
// IdempotencyRetention; an older one no longer holds the key (NotFound).
func (s *Store) OrderByIdempotencyKey(ctx context.Context, agentID, key string) (*models.Order, error) {
	return s.orderWhere(ctx, "agent_id = ? AND idempotency_key = ? AND created_at > ?",
		agentID, key, utc(s.now().Add(-IdempotencyRetention)))
}

// OrderByVenueID finds an order by the venue's order ID.
func (s *Store) OrderByVenueID(ctx context.Context, venueOrderID string) (*models.Order, error) {
	if venueOrderID == "" {
		return nil, errs.E(errs.NotFound, "order not found")
	}
	return s.orderWhere(ctx, "venue_order_id = ?", venueOrderID)
}

func (s *Store) orderWhere(ctx context.Context, cond string, args ...any) (*models.Order, error) {
	var o models.Order
	if err := s.db.WithContext(ctx).Where(cond, args...).Take(&o).Error; err != nil {
		return nil, mapErr(err, "order")
	}
	return &o, nil
}

// OrderFilter selects orders; zero fields don't filter.
type OrderFilter struct {
	AgentID    string
	Statuses   []string
	StrategyID string
	TokenID    string
	// Limit: default 50, max 100 (the API's limits). Offset skips rows.
	Limit, Offset int
}

// ListOrders returns matching orders newest first.
func (s *Store) ListOrders(ctx context.Context, f OrderFilter) ([]models.Order, error) {
	limit := f.Limit
	switch {
	case limit <= 0:
		limit = 50
	case limit > 100:
		limit = 100
	}
	q := s.db.WithContext(ctx).Model(&models.Order{})
	if f.AgentID != "" {
		q = q.Where("agent_id = ?", f.AgentID)
	}
	if len(f.Statuses) > 0 {
		q = q.Where("status IN ?", f.Statuses)
	}
	if f.StrategyID != "" {
		q = q.Where("strategy_id = ?", f.StrategyID)
	}
	if f.TokenID != "" {
		q = q.Where("token_id = ?", f.TokenID)
	}
	if f.Offset > 0 {
		q = q.Offset(f.Offset)
	}
	var out []models.Order
	if err := q.Order("created_at DESC").Order("id DESC").Limit(limit).Find(&out).Error; err != nil {
		return nil, mapErr(err, "order")
	}
	return out, nil
}

// OrderUpdate changes an order; nil fields are left unchanged.
type OrderUpdate struct {
	Status            *string
	VenueOrderID      *string
	FilledSizeMicro   *int64
	AvgFillPriceMicro *int64
	ReservedMicro     *int64
	FailureReason     *string
	FailureCode       *string
	FilledAt          *time.Time
	// PaperQueueMicro is a resting paper order's queue ahead of it.
	PaperQueueMicro *int64
	// At is the updated_at to write (the store's clock when zero): the
	// writer that answers from its own view of the row (the placement
	// attempt) knows the row's time without reading it back.
	At time.Time
}

// UpdateOrder applies u to order id if its status is one of from (any
// status when from is empty). The condition makes state changes safe
// against races (a fill arriving while a cancel is in flight): the loser
// gets errs.Conflict with code "order_state". A missing order is NotFound.
//
// It is where an order's status changes after it is created (besides
// endPendingOrder), so it is where the change is reported (OnOrderStatus):
// once the change commits, and only when the status was another before.
// A u.Status equal to the order's status is an update of its other fields.
func (s *Store) UpdateOrder(ctx context.Context, id string, from []string, u OrderUpdate) error {
	set := orderSet(s.now(), u)
	if u.Status == nil {
		return s.guardedUpdate(ctx, id, from, set)
	}
	to := *u.Status
	// First as a change of status: the guard names only other statuses,
	// so the row it matches is the transition, whichever writer wins.
	changing := slices.DeleteFunc(slices.Clone(from), func(st string) bool { return st == to })
	if len(from) == 0 || len(changing) > 0 {
		guard, arg := "status IN ?", any(changing)
		if len(from) == 0 {
			guard, arg = "status <> ?", to
		}
		changed, err := s.updateOrderWhere(ctx, id, set, guard, arg)
		if err != nil {
			return err
		}
		if changed {
			s.orderStatusChanged(to)
			s.changed(Change{Topic: TopicOrders, OrderID: id})
			return nil
		}
	}
	// Then as an update of an order already in that status.
	if len(from) > 0 && !slices.Contains(from, to) {
		return s.updateConflict(ctx, id)
	}
	return s.guardedUpdate(ctx, id, []string{to}, set)
}

// guardedUpdate applies set to order id if its status is one of from (any
// status when from is empty).
func (s *Store) guardedUpdate(ctx context.Context, id string, from []string, set map[string]any) error {
	var updated bool
	var err error
	if len(from) > 0 {
		updated, err = s.updateOrderWhere(ctx, id, set, "status IN ?", from)
	} else {
		updated, err = s.updateOrderWhere(ctx, id, set, "")
	}
	if err != nil {
		return err
	}
	if updated {
		s.changed(Change{Topic: TopicOrders, OrderID: id})
		return nil
	}
	return s.updateConflict(ctx, id)
}

// updateOrderWhere applies set to order id if guard (a condition on its
// other columns; "" for none) holds, and reports whether it did.
func (s *Store) updateOrderWhere(ctx context.Context, id string, set map[string]any, guard string, args ...any) (bool, error) {
	q := s.db.WithContext(ctx).Model(&models.Order{}).Where("id = ?", id)
	if guard != "" {
		q = q.Where(guard, args...)
	}
	res := q.Updates(set)
	if res.Error != nil {
		return false, mapErr(res.Error, "order")
	}
	return res.RowsAffected == 1, nil
}

// updateConflict is UpdateOrder's answer when its guard matched no row.
func (s *Store) updateConflict(ctx context.Context, id string) error {
	o, err := s.OrderByID(ctx, id)
	if err != nil {
		return err
	}
	return errs.Ef(errs.Conflict, "the order is %s", o.Status).WithCode(errs.CodeOrderState)
}

// orderSet is the columns u changes, updated at now.
func orderSet(now time.Time, u OrderUpdate) map[string]any {
	if !u.At.IsZero() {
		now = u.At
	}
	set := map[string]any{"updated_at": now}
	if u.Status != nil {
		set["status"] = *u.Status
	}
	if u.VenueOrderID != nil {
		set["venue_order_id"] = *u.VenueOrderID
	}
	if u.FilledSizeMicro != nil {
		set["filled_size_micro"] = *u.FilledSizeMicro
	}
	if u.AvgFillPriceMicro != nil {
		set["avg_fill_price_micro"] = *u.AvgFillPriceMicro
	}
	if u.ReservedMicro != nil {
		set["reserved_micro"] = *u.ReservedMicro
	}
	if u.FailureReason != nil {
		set["failure_reason"] = *u.FailureReason
	}
	if u.FailureCode != nil {
		set["failure_code"] = *u.FailureCode
	}
	if u.FilledAt != nil {
		set["filled_at"] = utc(*u.FilledAt)
	}
	if u.PaperQueueMicro != nil {
		set["paper_queue_micro"] = *u.PaperQueueMicro
	}
	return set
}

// AddFill records a venue trade against an order. A trade already recorded
// for the order is not an error: it returns created=false, so replayed
// trade events are absorbed.
func (s *Store) AddFill(ctx context.Context, f *models.Fill) (created bool, err error) {
	if f.OrderID == "" || f.VenueTradeID == "" {
		return false, errs.E(errs.Invalid, "a fill needs an order and a venue trade ID")
	}
	if f.ID == "" {
		f.ID = models.NewID(models.PrefixFill)
	}
	if f.Time.IsZero() {
		f.Time = s.now()
	} else {
		f.Time = utc(f.Time)
	}
	err = s.Tx(ctx, func(tx *Store) error {
		var n int64
		if err := tx.db.WithContext(ctx).Model(&models.Fill{}).
			Where("order_id = ? AND venue_trade_id = ?", f.OrderID, f.VenueTradeID).Count(&n).Error; err != nil {
			return mapErr(err, "fill")
		}
		if n > 0 {
			return nil
		}
		if err := tx.db.WithContext(ctx).Create(f).Error; err != nil {
			return mapErr(err, "fill")
		}
		created = true
		return tx.appendFillEvent(ctx, f)
	})
	if errs.Is(err, errs.Conflict) {
		// A concurrent writer recorded the same trade between our check and
		// insert (PostgreSQL read committed).
		return false, nil
	}
	return created, err
}

// appendFillEvent logs f in its agent's event log (models/events), in the
// fill's own transaction: every path that records a fill (placement
// answer, sync, cancel, reconciliation) comes through AddFill, so each
// recorded fill is reported by the heartbeat exactly once.
func (s *Store) appendFillEvent(ctx context.Context, f *models.Fill) error {
	var o models.Order
	err := s.db.WithContext(ctx).Select("agent_id", "user_id").Where("id = ?", f.OrderID).Take(&o).Error
	if err != nil {
		return mapErr(err, "order")
	}
	s.changed(Change{UserID: o.UserID, Topic: TopicFills})
	return s.AppendEvent(ctx, &models.AgentEvent{AgentID: o.AgentID, UserID: o.UserID,
		Type: models.EventOrderFill, Time: f.Time, OrderID: f.OrderID, FillID: f.ID})
}

// ListFills returns an order's fills, oldest first.
func (s *Store) ListFills(ctx context.Context, orderID string) ([]models.Fill, error) {
	var out []models.Fill
	if err := s.db.WithContext(ctx).Where("order_id = ?", orderID).Order("time").Order("id").Find(&out).Error; err != nil {
		return nil, mapErr(err, "fill")
	}
	return out, nil
}

// SetSignedOrder stores the signed venue order of a PENDING order and its
// hash (the venue order id) unless one is stored already, and returns the
// order as stored: a concurrent or earlier attempt's signed order wins, so
// every retry posts the identical order. A non-PENDING order is returned
// unchanged. o is the order as the caller read it: when this update is
// the one that stores the signed order, the row is o with the three
// columns set, so it is answered without reading it back; otherwise
// (another attempt won, the order moved on) it is read.
func (s *Store) SetSignedOrder(ctx context.Context, o *models.Order, signed, venueOrderID string) (*models.Order, error) {
	now := s.now()
	res := s.db.WithContext(ctx).Model(&models.Order{}).
		Where("id = ? AND status = ? AND signed_order = ''", o.ID, models.OrderPending).
		Updates(map[string]any{"signed_order": signed, "venue_order_id": venueOrderID, "updated_at": now})
	if res.Error != nil {
		return nil, mapErr(res.Error, "order")
	}
	if res.RowsAffected == 1 && o.Status == models.OrderPending && o.SignedOrder == "" {
		cur := *o
		cur.SignedOrder, cur.VenueOrderID, cur.UpdatedAt = signed, venueOrderID, now
		return &cur, nil
	}
	return s.OrderByID(ctx, o.ID)
}

// ClearSignedOrder forgets the signed order of a PENDING order whose post
// the venue definitively rejected because the market's parameters changed,
// so the next attempt signs a new one. It only clears the given hash.
func (s *Store) ClearSignedOrder(ctx context.Context, id, venueOrderID string) error {
	err := s.db.WithContext(ctx).Model(&models.Order{}).
		Where("id = ? AND status = ? AND venue_order_id = ?", id, models.OrderPending, venueOrderID).
		Updates(map[string]any{"signed_order": "", "venue_order_id": "", "updated_at": s.now()}).Error
	return mapErr(err, "order")
}

// CountOrders counts orders matching f (Limit and Offset ignored).
func (s *Store) CountOrders(ctx context.Context, f OrderFilter) (int64, error) {
	q := s.db.WithContext(ctx).Model(&models.Order{})
	if f.AgentID != "" {
		q = q.Where("agent_id = ?", f.AgentID)
	}
	if len(f.Statuses) > 0 {
		q = q.Where("status IN ?", f.Statuses)
	}
	var n int64
	if err := q.Count(&n).Error; err != nil {
		return 0, mapErr(err, "order")
	}
	return n, nil
}

// StalePendingOrders lists PENDING orders created before cutoff, oldest
// first: orders whose workflow may never have started (the API process
// died between persisting the order and starting it).
func (s *Store) StalePendingOrders(ctx context.Context, cutoff time.Time, limit int) ([]models.Order, error) {
	var out []models.Order
	err := s.db.WithContext(ctx).Where("status = ? AND created_at < ?", models.OrderPending, utc(cutoff)).
		Order("created_at").Limit(limit).Find(&out).Error
	return out, mapErr(err, "order")
}

// restingStatuses are the statuses of an order that can still change on
// the venue by itself (a fill, an expiry).
var restingStatuses = []string{models.OrderOpen, models.OrderPartiallyFilled}

// UsersWithLiveOrders returns the users with an order that is pending or
// resting on the venue, by id: whose venue events the worker listens to.
func (s *Store) UsersWithLiveOrders(ctx context.Context) ([]string, error) {
	var ids []string
	err := s.db.WithContext(ctx).Model(&models.Order{}).
		Where("status IN ? AND mode = ?", append([]string{models.OrderPending}, restingStatuses...), models.ModeLive).
		Distinct().Order("user_id").Pluck("user_id", &ids).Error
	if err != nil {
		return nil, mapErr(err, "order")
	}
	return ids, nil
}

// RestingOrders returns the user's orders resting on the venue (placed,
// not ended), oldest first: what the reconciliation sweep compares with
// the venue's open orders.
func (s *Store) RestingOrders(ctx context.Context, userID string) ([]models.Order, error) {
	var out []models.Order
	err := s.db.WithContext(ctx).Where("user_id = ? AND status IN ? AND venue_order_id <> ''", userID, restingStatuses).
		Order("created_at").Order("id").Find(&out).Error
	if err != nil {
		return nil, mapErr(err, "order")
	}
	return out, nil
}
