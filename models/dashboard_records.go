package models

import "time"

// OrderTransition is one status an order entered, written by the database
// (migration 00019's triggers) when the order is created (From "") and
// whenever its status changes: the order page's lifecycle.
type OrderTransition struct {
	ID      int64     `gorm:"column:id;primaryKey"`
	OrderID string    `gorm:"column:order_id"`
	From    string    `gorm:"column:from_status"`
	To      string    `gorm:"column:to_status"`
	Time    time.Time `gorm:"column:time"`
}

// TableName implements gorm's tabler.
func (OrderTransition) TableName() string { return "order_transitions" }

// Notification kinds (NotificationSettings.Kinds, Notification.Kind).
const (
	NotifyFill          = "fill"
	NotifyStrategyError = "strategy_error"
	NotifySignIn        = "sign_in"
	NotifyAgentLinked   = "agent_linked"
)

// Webhook states of a notification (Notification.Webhook).
const (
	WebhookNone      = ""
	WebhookPending   = "pending"
	WebhookSending   = "sending"
	WebhookDelivered = "delivered"
	WebhookFailed    = "failed"
)

// NotificationSettings is what a user chose to be told of and where. A
// user without a row gets the defaults (models/notify).
type NotificationSettings struct {
	UserID string `gorm:"column:user_id;primaryKey"`
	// Kinds is a space-separated list of notification kinds.
	Kinds      string `gorm:"column:kinds"`
	WebhookURL string `gorm:"column:webhook_url"`
	// The webhook's signing secret, sealed by models/vault with the
	// binding "webhook-secret|<user id>|".
	WebhookSecretCiphertext []byte    `gorm:"column:webhook_secret_ciphertext"`
	WebhookSecretNonce      []byte    `gorm:"column:webhook_secret_nonce"`
	WebhookSecretKeyVersion int       `gorm:"column:webhook_secret_key_version"`
	UpdatedAt               time.Time `gorm:"column:updated_at"`
}

// TableName implements gorm's tabler.
func (NotificationSettings) TableName() string { return "notification_settings" }

// Notification is one thing a user is told of, in the dashboard and, when
// they set a webhook, at its URL.
type Notification struct {
	ID     string `gorm:"column:id;primaryKey"`
	UserID string `gorm:"column:user_id"`
	Kind   string `gorm:"column:kind"`
	Title  string `gorm:"column:title"`
	Body   string `gorm:"column:body"`
	// Link is the dashboard path it is about ("/orders/ord_…").
	Link string `gorm:"column:link"`
	// Data is the webhook payload's data object (JSON).
	Data      string     `gorm:"column:data"`
	CreatedAt time.Time  `gorm:"column:created_at"`
	ReadAt    *time.Time `gorm:"column:read_at"`
	// Webhook is the delivery state (WebhookPending …; "" without one).
	Webhook         string `gorm:"column:webhook"`
	WebhookAttempts int    `gorm:"column:webhook_attempts"`
}

// TableName implements gorm's tabler.
func (Notification) TableName() string { return "notifications" }

// WebhookDelivery is one attempt to deliver a notification to a webhook.
type WebhookDelivery struct {
	ID             string    `gorm:"column:id;primaryKey"`
	NotificationID string    `gorm:"column:notification_id"`
	UserID         string    `gorm:"column:user_id"`
	Attempt        int       `gorm:"column:attempt"`
	Time           time.Time `gorm:"column:time"`
	URL            string    `gorm:"column:url"`
	// StatusCode is the receiver's HTTP status (0: no answer, see Error).
	StatusCode int    `gorm:"column:status_code"`
	Error      string `gorm:"column:error"`
	DurationMs int64  `gorm:"column:duration_ms"`
}

// TableName implements gorm's tabler.
func (WebhookDelivery) TableName() string { return "webhook_deliveries" }
