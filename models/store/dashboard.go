package store

import (
	"context"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
)

// UserOrderFilter selects a user's orders across agents for the dashboard;
// zero fields don't filter.
type UserOrderFilter struct {
	UserID      string
	AgentID     string
	Statuses    []string
	ConditionID string
	// From and To bound the creation time: From inclusive, To exclusive.
	From, To time.Time
	// Limit: default 50, max 1000 (a CSV export). Offset skips rows.
	Limit, Offset int
}

func (f UserOrderFilter) apply(q *gorm.DB, table string) *gorm.DB {
	q = q.Where(table+".user_id = ?", f.UserID)
	if f.AgentID != "" {
		q = q.Where(table+".agent_id = ?", f.AgentID)
	}
	if len(f.Statuses) > 0 {
		q = q.Where(table+".status IN ?", f.Statuses)
	}
	if f.ConditionID != "" {
		q = q.Where(table+".condition_id = ?", f.ConditionID)
	}
	if !f.From.IsZero() {
		q = q.Where(table+".created_at >= ?", utc(f.From))
	}
	if !f.To.IsZero() {
		q = q.Where(table+".created_at < ?", utc(f.To))
	}
	return q
}

func exportLimit(limit int) int {
	switch {
	case limit <= 0:
		return 50
	case limit > 1000:
		return 1000
	}
	return limit
}

// ListUserOrders returns the user's orders matching f, newest first, and
// whether more follow.
func (s *Store) ListUserOrders(ctx context.Context, f UserOrderFilter) ([]models.Order, bool, error) {
	if f.UserID == "" {
		return nil, false, errs.E(errs.Invalid, "a user is required")
	}
	limit := exportLimit(f.Limit)
	q := f.apply(s.db.WithContext(ctx).Model(&models.Order{}), "orders")
	if f.Offset > 0 {
		q = q.Offset(f.Offset)
	}
	var out []models.Order
	if err := q.Order("created_at DESC").Order("id DESC").Limit(limit + 1).Find(&out).Error; err != nil {
		return nil, false, mapErr(err, "order")
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	return out, more, nil
}

// OrderForUser finds userID's order id, whichever agent placed it;
// another user's order is NotFound.
func (s *Store) OrderForUser(ctx context.Context, userID, id string) (*models.Order, error) {
	return s.orderWhere(ctx, "id = ? AND user_id = ?", id, userID)
}

// OrderTransitions returns the statuses order id entered, oldest first.
func (s *Store) OrderTransitions(ctx context.Context, orderID string) ([]models.OrderTransition, error) {
	var out []models.OrderTransition
	err := s.db.WithContext(ctx).Where("order_id = ?", orderID).Order("id").Find(&out).Error
	return out, mapErr(err, "order transition")
}

// Market is a market the user's agents traded: its condition id and
// question.
type Market struct {
	ConditionID string `gorm:"column:condition_id"`
	Question    string `gorm:"column:market_question"`
}

// UserMarkets lists the markets of the user's orders, by question: the
// dashboard's market filter.
func (s *Store) UserMarkets(ctx context.Context, userID string) ([]Market, error) {
	var out []Market
	err := s.db.WithContext(ctx).Model(&models.Order{}).
		Select("condition_id, MAX(market_question) AS market_question").
		Where("user_id = ? AND condition_id <> ''", userID).
		Group("condition_id").Order("market_question").Order("condition_id").Limit(500).Find(&out).Error
	return out, mapErr(err, "order")
}

// UserFill is a fill with what the fills list shows of its order.
type UserFill struct {
	models.Fill
	AgentID     string  `gorm:"column:agent_id"`
	Side        string  `gorm:"column:side"`
	TokenID     string  `gorm:"column:token_id"`
	ConditionID string  `gorm:"column:condition_id"`
	Question    string  `gorm:"column:market_question"`
	Outcome     string  `gorm:"column:outcome"`
	StrategyID  *string `gorm:"column:strategy_id"`
}

// UserFillFilter selects a user's fills; zero fields don't filter. From and
// To bound the fill time (From inclusive, To exclusive).
type UserFillFilter struct {
	UserID, AgentID, ConditionID, OrderID string
	From, To                              time.Time
	Limit, Offset                         int
}

// ListUserFills returns the user's fills matching f, newest first, and
// whether more follow.
func (s *Store) ListUserFills(ctx context.Context, f UserFillFilter) ([]UserFill, bool, error) {
	if f.UserID == "" {
		return nil, false, errs.E(errs.Invalid, "a user is required")
	}
	limit := exportLimit(f.Limit)
	q := s.db.WithContext(ctx).Table("fills").
		Select("fills.*, orders.agent_id, orders.side, orders.token_id, orders.condition_id, orders.market_question, "+
			"orders.outcome, orders.strategy_id").
		Joins("JOIN orders ON orders.id = fills.order_id").
		Where("orders.user_id = ?", f.UserID)
	if f.AgentID != "" {
		q = q.Where("orders.agent_id = ?", f.AgentID)
	}
	if f.ConditionID != "" {
		q = q.Where("orders.condition_id = ?", f.ConditionID)
	}
	if f.OrderID != "" {
		q = q.Where("fills.order_id = ?", f.OrderID)
	}
	if !f.From.IsZero() {
		q = q.Where("fills.time >= ?", utc(f.From))
	}
	if !f.To.IsZero() {
		q = q.Where("fills.time < ?", utc(f.To))
	}
	if f.Offset > 0 {
		q = q.Offset(f.Offset)
	}
	var out []UserFill
	if err := q.Order("fills.time DESC").Order("fills.id DESC").Limit(limit + 1).Find(&out).Error; err != nil {
		return nil, false, mapErr(err, "fill")
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	return out, more, nil
}

// ---- notifications ----

// NotificationSettingsOf returns userID's notification settings; NotFound
// when they never saved any.
func (s *Store) NotificationSettingsOf(ctx context.Context, userID string) (*models.NotificationSettings, error) {
	var out models.NotificationSettings
	if err := s.db.WithContext(ctx).Where("user_id = ?", userID).Take(&out).Error; err != nil {
		return nil, mapErr(err, "notification settings")
	}
	return &out, nil
}

// SaveNotificationSettings inserts or replaces the user's settings.
func (s *Store) SaveNotificationSettings(ctx context.Context, n *models.NotificationSettings) error {
	if n.UserID == "" {
		return errs.E(errs.Invalid, "notification settings need a user")
	}
	n.UpdatedAt = s.now()
	err := s.db.WithContext(ctx).Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "user_id"}}, UpdateAll: true}).Create(n).Error
	return mapErr(err, "notification settings")
}

// CreateNotification stores n, filling ID and CreatedAt.
func (s *Store) CreateNotification(ctx context.Context, n *models.Notification) error {
	if n.UserID == "" || n.Kind == "" || n.Title == "" {
		return errs.E(errs.Invalid, "a notification needs a user, a kind and a title")
	}
	if n.ID == "" {
		n.ID = models.NewID(models.PrefixNotification)
	}
	n.CreatedAt = s.now()
	if err := s.db.WithContext(ctx).Create(n).Error; err != nil {
		return mapErr(err, "notification")
	}
	s.changed(Change{UserID: n.UserID, Topic: TopicNotifications})
	return nil
}

// NotificationByID finds a notification by ID, whoever it is for (the
// delivery workflow's activities).
func (s *Store) NotificationByID(ctx context.Context, id string) (*models.Notification, error) {
	var out models.Notification
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&out).Error; err != nil {
		return nil, mapErr(err, "notification")
	}
	return &out, nil
}

// ListNotifications returns the user's latest notifications, newest first
// (limit default 50, max 200).
func (s *Store) ListNotifications(ctx context.Context, userID string, limit int) ([]models.Notification, error) {
	if limit <= 0 || limit > 200 {
		limit = 50
	}
	var out []models.Notification
	err := s.db.WithContext(ctx).Where("user_id = ?", userID).Order("created_at DESC").Order("id DESC").Limit(limit).Find(&out).Error
	return out, mapErr(err, "notification")
}

// UnreadNotifications counts the user's unread notifications.
func (s *Store) UnreadNotifications(ctx context.Context, userID string) (int64, error) {
	var n int64
	err := s.db.WithContext(ctx).Model(&models.Notification{}).Where("user_id = ? AND read_at IS NULL", userID).Count(&n).Error
	return n, mapErr(err, "notification")
}

// MarkNotificationsRead marks the user's unread notifications created up
// to upTo as read (so one arriving while the page was open stays unread).
func (s *Store) MarkNotificationsRead(ctx context.Context, userID string, upTo time.Time) error {
	res := s.db.WithContext(ctx).Model(&models.Notification{}).
		Where("user_id = ? AND read_at IS NULL AND created_at <= ?", userID, utc(upTo)).Update("read_at", s.now())
	if res.Error != nil {
		return mapErr(res.Error, "notification")
	}
	if res.RowsAffected > 0 {
		s.changed(Change{UserID: userID, Topic: TopicNotifications})
	}
	return nil
}

// PendingWebhooks lists up to limit notifications waiting for their
// webhook delivery to start, oldest first.
func (s *Store) PendingWebhooks(ctx context.Context, limit int) ([]string, error) {
	var ids []string
	err := s.db.WithContext(ctx).Model(&models.Notification{}).Where("webhook = ?", models.WebhookPending).
		Order("created_at").Limit(limit).Pluck("id", &ids).Error
	return ids, mapErr(err, "notification")
}

// SetWebhookState moves notification id's webhook state from one of from
// to to, and reports whether it did.
func (s *Store) SetWebhookState(ctx context.Context, id string, from []string, to string) (bool, error) {
	res := s.db.WithContext(ctx).Model(&models.Notification{}).Where("id = ? AND webhook IN ?", id, from).Update("webhook", to)
	if res.Error != nil {
		return false, mapErr(res.Error, "notification")
	}
	return res.RowsAffected == 1, nil
}

// RecordWebhookAttempt logs one delivery attempt of a notification and
// sets its webhook state to state and its attempt count to d.Attempt, in
// one transaction. An attempt already logged (an activity retried after
// its answer was lost) is not logged twice.
func (s *Store) RecordWebhookAttempt(ctx context.Context, d *models.WebhookDelivery, state string) error {
	if d.ID == "" {
		d.ID = models.NewID(models.PrefixWebhookDelivery)
	}
	if d.Time.IsZero() {
		d.Time = s.now()
	}
	d.Time = utc(d.Time)
	return s.Tx(ctx, func(tx *Store) error {
		var n int64
		if err := tx.db.WithContext(ctx).Model(&models.WebhookDelivery{}).
			Where("notification_id = ? AND attempt = ?", d.NotificationID, d.Attempt).Count(&n).Error; err != nil {
			return mapErr(err, "webhook delivery")
		}
		if n == 0 {
			if err := tx.db.WithContext(ctx).Create(d).Error; err != nil {
				return mapErr(err, "webhook delivery")
			}
		}
		err := tx.db.WithContext(ctx).Model(&models.Notification{}).Where("id = ?", d.NotificationID).
			Updates(map[string]any{"webhook": state, "webhook_attempts": d.Attempt}).Error
		if err != nil {
			return mapErr(err, "notification")
		}
		tx.changed(Change{UserID: d.UserID, Topic: TopicNotifications})
		return nil
	})
}

// ListWebhookDeliveries returns the user's latest delivery attempts,
// newest first (limit default 50, max 200).
func (s *Store) ListWebhookDeliveries(ctx context.Context, userID string, limit int) ([]models.WebhookDelivery, error) {
	if limit <= 0 || limit > 200 {
		limit = 50
	}
	var out []models.WebhookDelivery
	err := s.db.WithContext(ctx).Where("user_id = ?", userID).Order("time DESC").Order("id DESC").Limit(limit).Find(&out).Error
	return out, mapErr(err, "webhook delivery")
}

// NotificationSettingsWithSecretAfter returns up to n settings holding a
// sealed webhook secret with a user id above afterID, by user id: a
// master-key rotation pages through them.
func (s *Store) NotificationSettingsWithSecretAfter(ctx context.Context, afterID string, n int) ([]models.NotificationSettings, error) {
	var out []models.NotificationSettings
	err := s.db.WithContext(ctx).Where("user_id > ? AND webhook_secret_ciphertext IS NOT NULL AND length(webhook_secret_ciphertext) > 0", afterID).
		Order("user_id").Limit(n).Find(&out).Error
	return out, mapErr(err, "notification settings")
}
