package models

import (
	"strings"
	"time"

	"github.com/agent-trading/ats/venue/micro"
)

// MicroPerUnit is the scale of every *Micro field: 6 decimals, the USDC and
// conditional-token precision on the venue.
const MicroPerUnit int64 = micro.PerUnit

// User is a dashboard account.
type User struct {
	ID    string `gorm:"column:id;primaryKey"`
	Email string `gorm:"column:email"` // normalised (trimmed, lowercased); unique
	// PasswordHash is a PHC-style argon2id string (see models/secret).
	PasswordHash string `gorm:"column:password_hash"`
	// The TOTP secret is sealed by models/vault with the binding
	// "totp-secret|<user id>|".
	TOTPSecretCiphertext []byte `gorm:"column:totp_secret_ciphertext"`
	TOTPSecretNonce      []byte `gorm:"column:totp_secret_nonce"`
	TOTPKeyVersion       int    `gorm:"column:totp_key_version"`
	TOTPEnabled          bool   `gorm:"column:totp_enabled"`
	// TOTPLastStep is the time step of the last accepted code; only later
	// steps are accepted, so a code works once.
	TOTPLastStep int64 `gorm:"column:totp_last_step"`
	// BackupCodeHashes is unused: backup codes live in user_backup_codes
	// (one row each, so a code is spent by one conditional update).
	BackupCodeHashes string    `gorm:"column:backup_code_hashes"`
	CreatedAt        time.Time `gorm:"column:created_at"`
	UpdatedAt        time.Time `gorm:"column:updated_at"`
}

// TableName implements gorm's tabler.
func (User) TableName() string { return "users" }

// Credential kinds.
const (
	CredentialWebAuthn = "webauthn"
	CredentialOAuth    = "oauth"
)

// UserCredential is a passkey or a social-login identity of a user.
type UserCredential struct {
	ID     string `gorm:"column:id;primaryKey"`
	UserID string `gorm:"column:user_id"`
	Kind   string `gorm:"column:kind"` // CredentialWebAuthn | CredentialOAuth
	// WebAuthn: credential id (unique when set), COSE public key, counter.
	WebAuthnCredentialID []byte `gorm:"column:webauthn_credential_id"`
	WebAuthnPublicKey    []byte `gorm:"column:webauthn_public_key"`
	WebAuthnSignCount    int64  `gorm:"column:webauthn_sign_count"`
	// WebAuthnRecord is the whole credential record (flags, AAGUID,
	// transports, attestation) as JSON, as the WebAuthn library keeps it.
	WebAuthnRecord string `gorm:"column:webauthn_record"`
	// OAuth: provider ("google", "github") and the provider's subject;
	// (provider, subject) is unique when set.
	OAuthProvider *string `gorm:"column:oauth_provider"`
	OAuthSubject  *string `gorm:"column:oauth_subject"`
	// OAuthEmail is the verified email the provider reported at linking.
	OAuthEmail string     `gorm:"column:oauth_email"`
	Name       string     `gorm:"column:name"`
	CreatedAt  time.Time  `gorm:"column:created_at"`
	LastUsedAt *time.Time `gorm:"column:last_used_at"`
}

// TableName implements gorm's tabler.
func (UserCredential) TableName() string { return "user_credentials" }

// Wallet kinds.
const (
	WalletEOA     = "eoa"
	WalletProxy   = "proxy"
	WalletSafe    = "safe"
	WalletDeposit = "deposit"
)

// Wallet is a user's imported trading wallet. A user has at most one.
type Wallet struct {
	ID     string `gorm:"column:id;primaryKey"`
	UserID string `gorm:"column:user_id"` // unique
	Kind   string `gorm:"column:kind"`    // WalletEOA | WalletProxy | WalletSafe | WalletDeposit
	// EOAAddress is the signer; FunderAddress holds the funds and is the
	// order maker (equal to EOAAddress for kind eoa). Both 0x-hex, checksummed.
	EOAAddress    string `gorm:"column:eoa_address"`
	FunderAddress string `gorm:"column:funder_address"`
	// SignatureType is the venue's order signature type (0 EOA, 1 proxy,
	// 2 Safe, ...).
	SignatureType int `gorm:"column:signature_type"`
	// The private key, sealed by models/vault with the binding
	// "wallet-key|<user id>|<wallet id>".
	KeyCiphertext []byte `gorm:"column:key_ciphertext"`
	KeyNonce      []byte `gorm:"column:key_nonce"`
	KeyVersion    int    `gorm:"column:key_version"`
	// The venue API credentials (key, secret, passphrase as one JSON
	// document), sealed with the binding "venue-creds|<user id>|<wallet id>";
	// empty until derived.
	APICredsCiphertext []byte    `gorm:"column:api_creds_ciphertext"`
	APICredsNonce      []byte    `gorm:"column:api_creds_nonce"`
	APICredsKeyVersion int       `gorm:"column:api_creds_key_version"`
	CreatedAt          time.Time `gorm:"column:created_at"`
	UpdatedAt          time.Time `gorm:"column:updated_at"`
}

// TableName implements gorm's tabler.
func (Wallet) TableName() string { return "wallets" }

// Agent statuses.
const (
	AgentActive  = "active"
	AgentPaused  = "paused"
	AgentRevoked = "revoked"
)

// Agent modes (docs/paper-trading.md): a paper agent trades the real
// venue's prices with the user's paper money, matched inside the service;
// a live agent trades the wallet on the venue. Chosen at approval, never
// changed.
const (
	ModePaper = "paper"
	ModeLive  = "live"
)

// ModeOrLive is mode, or ModeLive for a row stored before modes existed
// (the mode columns' default): what an answer shows for it.
func ModeOrLive(mode string) string {
	if mode == "" {
		return ModeLive
	}
	return mode
}

// DefaultPaperBalanceMicro is a user's paper balance until they set one:
// 1,000 USDC.
const DefaultPaperBalanceMicro = 1_000 * 1_000_000

// PaperBalance is a user's paper money (absent: DefaultPaperBalanceMicro).
type PaperBalance struct {
	UserID       string    `gorm:"column:user_id;primaryKey"`
	BalanceMicro int64     `gorm:"column:balance_micro"`
	UpdatedAt    time.Time `gorm:"column:updated_at"`
}

// TableName implements gorm's tabler.
func (PaperBalance) TableName() string { return "paper_balances" }

// Agent is an AI agent linked to a user, with its limits.
type Agent struct {
	ID     string `gorm:"column:id;primaryKey"`
	UserID string `gorm:"column:user_id"`
	Name   string `gorm:"column:name"`
	Status string `gorm:"column:status"` // AgentActive | AgentPaused | AgentRevoked
	// Mode is ModePaper or ModeLive, chosen at approval.
	Mode string `gorm:"column:mode;default:live"`
	// Scopes is a space-separated scope list (see ScopeList).
	Scopes string `gorm:"column:scopes"`
	// Budget: a fixed limit in micro-USDC, or a share of the wallet balance
	// in basis points (10000 = 100%); nil = not set.
	BudgetLimitMicro      *int64 `gorm:"column:budget_limit_micro"`
	BudgetPercentBps      *int32 `gorm:"column:budget_percent_bps"`
	MaxPositionValueMicro *int64 `gorm:"column:max_position_value_micro"`
	// Heartbeat: expected interval and optional active hours ("HH:MM" in
	// an IANA zone); nil hours = always active.
	HeartbeatIntervalMs int64      `gorm:"column:heartbeat_interval_ms"`
	ActiveHoursStart    *string    `gorm:"column:active_hours_start"`
	ActiveHoursEnd      *string    `gorm:"column:active_hours_end"`
	ActiveHoursTimezone *string    `gorm:"column:active_hours_timezone"`
	RateLimitPerMinute  int        `gorm:"column:rate_limit_per_minute"`
	CreatedAt           time.Time  `gorm:"column:created_at"`
	UpdatedAt           time.Time  `gorm:"column:updated_at"`
	RevokedAt           *time.Time `gorm:"column:revoked_at"`
}

// TableName implements gorm's tabler.
func (Agent) TableName() string { return "agents" }

// ScopeList splits Scopes.
func (a Agent) ScopeList() []string { return strings.Fields(a.Scopes) }

// HasScope reports whether the agent holds scope.
func (a Agent) HasScope(scope string) bool {
	for _, s := range strings.Fields(a.Scopes) {
		if s == scope {
			return true
		}
	}
	return false
}

// Default agent settings, from the spec's limits table.
const (
	DefaultRateLimitPerMinute  = 100
	DefaultHeartbeatIntervalMs = int64(60 * 1000)
)

// APIKey is an agent's bearer key. Only its SHA-256 hash is stored.
type APIKey struct {
	ID      string `gorm:"column:id;primaryKey"`
	AgentID string `gorm:"column:agent_id"`
	UserID  string `gorm:"column:user_id"`
	// Hash is the lowercase hex SHA-256 of the plaintext key; unique.
	Hash string `gorm:"column:hash"`
	// DisplayPrefix identifies the key to humans ("ll_AbCd…").
	DisplayPrefix string     `gorm:"column:display_prefix"`
	CreatedAt     time.Time  `gorm:"column:created_at"`
	LastUsedAt    *time.Time `gorm:"column:last_used_at"`
	RevokedAt     *time.Time `gorm:"column:revoked_at"`
}

// TableName implements gorm's tabler.
func (APIKey) TableName() string { return "api_keys" }

// Device link statuses.
const (
	DeviceLinkPending  = "pending"
	DeviceLinkApproved = "approved"
	DeviceLinkDenied   = "denied"
	DeviceLinkExpired  = "expired"
	DeviceLinkIssued   = "issued"
)

// DeviceLink is one run of the device authorization flow.
type DeviceLink struct {
	ID string `gorm:"column:id;primaryKey"`
	// DeviceCodeHash is the SHA-256 hex of the device code the agent polls
	// with; the code itself is never stored. Unique.
	DeviceCodeHash string `gorm:"column:device_code_hash"`
	// UserCode is the short code the user types; unique.
	UserCode  string `gorm:"column:user_code"`
	AgentName string `gorm:"column:agent_name"`
	// RequestAddr is the client address that asked for the code, shown
	// on the confirmation page ("" for links older than the column).
	RequestAddr string `gorm:"column:request_addr"`
	Status      string `gorm:"column:status"`
	// UserID is the approving (or denying) user, AgentID the agent created
	// on approval.
	UserID          *string    `gorm:"column:user_id"`
	AgentID         *string    `gorm:"column:agent_id"`
	ExpiresAt       time.Time  `gorm:"column:expires_at"`
	IntervalSeconds int        `gorm:"column:interval_seconds"`
	LastPollAt      *time.Time `gorm:"column:last_poll_at"`
	CreatedAt       time.Time  `gorm:"column:created_at"`
}

// TableName implements gorm's tabler.
func (DeviceLink) TableName() string { return "device_links" }

// Order statuses, as the API shows them.
const (
	OrderPending         = "PENDING"
	OrderOpen            = "OPEN"
	OrderFilled          = "FILLED"
	OrderPartiallyFilled = "PARTIALLY_FILLED"
	OrderCancelled       = "CANCELLED"
	OrderFailed          = "FAILED"
)

// Order is an order an agent (or a strategy on its behalf) placed.
type Order struct {
	ID             string `gorm:"column:id;primaryKey"`
	AgentID        string `gorm:"column:agent_id"`
	UserID         string `gorm:"column:user_id"`
	WalletID       string `gorm:"column:wallet_id"`
	TokenID        string `gorm:"column:token_id"` // decimal string (uint256)
	ConditionID    string `gorm:"column:condition_id"`
	MarketQuestion string `gorm:"column:market_question"`
	Outcome        string `gorm:"column:outcome"`
	Side           string `gorm:"column:side"` // BUY | SELL
	Type           string `gorm:"column:type"` // GTC | GTD | FOK | FAK
	// PriceMicro is the limit price ×1e6; SizeMicro and FilledSizeMicro are
	// shares ×1e6.
	PriceMicro        int64  `gorm:"column:price_micro"`
	SizeMicro         int64  `gorm:"column:size_micro"`
	FilledSizeMicro   int64  `gorm:"column:filled_size_micro"`
	AvgFillPriceMicro int64  `gorm:"column:avg_fill_price_micro"`
	Status            string `gorm:"column:status"`
	// VenueOrderID is the venue's order hash (the API's polyOrderId).
	VenueOrderID string `gorm:"column:venue_order_id"`
	// IdempotencyKey is unique per agent when set.
	IdempotencyKey *string `gorm:"column:idempotency_key"`
	// ReservedMicro is the micro-USDC held against the agent's budget while
	// the order can still fill.
	ReservedMicro int64  `gorm:"column:reserved_micro"`
	FailureReason string `gorm:"column:failure_reason"`
	// FailureCode is the catalogue code (models/errs) of the refusal that
	// failed the order, when it had one.
	FailureCode string  `gorm:"column:failure_code"`
	StrategyID  *string `gorm:"column:strategy_id"`
	// SignedOrder is the venue order as posted (JSON of the signed order
	// and its type), stored before the first post so every retry posts the
	// identical order; it is public data (no key material).
	SignedOrder string `gorm:"column:signed_order"`
	// PostingUntil is the placement step's claim on a PENDING order while
	// it posts it to the venue (a lease, so a crashed post frees it): a
	// cancel of the PENDING order waits for it instead of racing the post.
	PostingUntil *time.Time `gorm:"column:posting_until"`
	// RequestType is the type the agent asked for: LIMIT, MARKET, FOK, FAK.
	RequestType string `gorm:"column:request_type"`
	NegRisk     bool   `gorm:"column:neg_risk"`
	// Mode is the placing agent's mode (ModePaper or ModeLive).
	Mode string `gorm:"column:mode;default:live"`
	// PaperQueueMicro is, for a resting paper order, the venue's shares
	// still ahead of it at its price (docs/paper-trading.md).
	PaperQueueMicro int64      `gorm:"column:paper_queue_micro"`
	CreatedAt       time.Time  `gorm:"column:created_at"`
	UpdatedAt       time.Time  `gorm:"column:updated_at"`
	FilledAt        *time.Time `gorm:"column:filled_at"`
}

// TableName implements gorm's tabler.
func (Order) TableName() string { return "orders" }

// Fill is one venue trade against an order; (order, venue trade id) is unique
// so replayed trade events are absorbed.
type Fill struct {
	ID           string    `gorm:"column:id;primaryKey"`
	OrderID      string    `gorm:"column:order_id"`
	VenueTradeID string    `gorm:"column:venue_trade_id"`
	PriceMicro   int64     `gorm:"column:price_micro"`
	SizeMicro    int64     `gorm:"column:size_micro"`
	FeeMicro     int64     `gorm:"column:fee_micro"`
	TxHash       string    `gorm:"column:tx_hash"`
	Time         time.Time `gorm:"column:time"`
}

// TableName implements gorm's tabler.
func (Fill) TableName() string { return "fills" }

// Position statuses.
const (
	PositionOpen       = "open"
	PositionSettled    = "settled"
	PositionRedeemable = "redeemable"
	PositionClosed     = "closed"
)

// Position is an agent's holding of one outcome token; (agent, token) is
// unique, so the ID is stable for the life of the holding.
type Position struct {
	ID               string     `gorm:"column:id;primaryKey"`
	AgentID          string     `gorm:"column:agent_id"`
	UserID           string     `gorm:"column:user_id"`
	TokenID          string     `gorm:"column:token_id"`
	ConditionID      string     `gorm:"column:condition_id"`
	Question         string     `gorm:"column:question"`
	Outcome          string     `gorm:"column:outcome"`
	SizeMicro        int64      `gorm:"column:size_micro"`
	AvgEntryMicro    int64      `gorm:"column:avg_entry_micro"`
	RealizedPnlMicro int64      `gorm:"column:realized_pnl_micro"`
	Status           string     `gorm:"column:status"`
	NegRisk          bool       `gorm:"column:neg_risk"`
	EndDate          *time.Time `gorm:"column:end_date"`
	// RedeemedSizeMicro is the shares redeemed on chain and PayoutMicro the
	// collateral they paid; a position recomputed from its fills nets them
	// out. RedeemTx is the last redemption's transaction hash.
	RedeemedSizeMicro int64      `gorm:"column:redeemed_size_micro"`
	PayoutMicro       int64      `gorm:"column:payout_micro"`
	RedeemTx          string     `gorm:"column:redeem_tx"`
	RedeemedAt        *time.Time `gorm:"column:redeemed_at"`
	CreatedAt         time.Time  `gorm:"column:created_at"`
	UpdatedAt         time.Time  `gorm:"column:updated_at"`
}

// TableName implements gorm's tabler.
func (Position) TableName() string { return "positions" }

// Strategy types.
const (
	StrategyPriceAlert     = "PRICE_ALERT"
	StrategyRecurringBuy   = "RECURRING_BUY"
	StrategyBuyLowSellHigh = "BUY_LOW_SELL_HIGH"
	StrategyCopyTrade      = "COPY_TRADE"
)

// Strategy is a server-side autonomous strategy run by a Temporal workflow.
type Strategy struct {
	ID      string `gorm:"column:id;primaryKey"`
	AgentID string `gorm:"column:agent_id"`
	UserID  string `gorm:"column:user_id"`
	Type    string `gorm:"column:type"`
	// Config is the type-specific configuration as JSON text.
	Config              string     `gorm:"column:config"`
	MaxBudgetMicro      int64      `gorm:"column:max_budget_micro"`
	BudgetUsedMicro     int64      `gorm:"column:budget_used_micro"`
	Status              string     `gorm:"column:status"`
	ConsecutiveFailures int        `gorm:"column:consecutive_failures"`
	ExpiresAt           *time.Time `gorm:"column:expires_at"`
	WorkflowID          string     `gorm:"column:workflow_id"`
	// CreatedBy is who created it: "agent" (the API) or "user".
	CreatedBy string `gorm:"column:created_by"`
	// PausedBy is "agent" or "user" while PAUSED, else empty.
	PausedBy string `gorm:"column:paused_by"`
	// EndedReason says why a COMPLETED or CANCELLED strategy ended.
	EndedReason      string     `gorm:"column:ended_reason"`
	LastError        string     `gorm:"column:last_error"`
	LastEvaluatedAt  *time.Time `gorm:"column:last_evaluated_at"`
	NextEvaluationAt *time.Time `gorm:"column:next_evaluation_at"`
	// Executions is the last execution number used.
	Executions int `gorm:"column:executions"`
	// TokenID is the token traded now (a marketQuery resolved).
	TokenID string `gorm:"column:token_id"`
	// OpenSizeMicro is the shares (×1e6) the strategy's own buys hold.
	OpenSizeMicro int64 `gorm:"column:open_size_micro"`
	// Triggers are the price conditions armed for it (JSON).
	Triggers string `gorm:"column:triggers"`
	// Mode is its agent's mode (ModePaper or ModeLive), copied at
	// creation: an agent's mode never changes.
	Mode string `gorm:"column:mode;default:live"`
	// Version counts the changes of what the strategy does (status,
	// config, budget, token, expiry): store.UpdateStrategy moves it. A
	// change's proof is bound to the version it was made for, so a change
	// recorded in the workflow's history is refused once it moved on.
	Version int64 `gorm:"column:version"`
	// The market of TokenID: question, outcome, slug and end date, as the
	// venue named them when the strategy moved to it.
	MarketQuestion string     `gorm:"column:market_question"`
	MarketOutcome  string     `gorm:"column:market_outcome"`
	MarketSlug     string     `gorm:"column:market_slug"`
	MarketEndDate  *time.Time `gorm:"column:market_end_date"`
	// MarketCheckAt is when the strategy's workflow next looks at its
	// market (the end date; null: on its executions and the market's
	// events only).
	MarketCheckAt *time.Time `gorm:"column:market_check_at"`
	CreatedAt     time.Time  `gorm:"column:created_at"`
	UpdatedAt     time.Time  `gorm:"column:updated_at"`
}

// TableName implements gorm's tabler.
func (Strategy) TableName() string { return "strategies" }

// Strategy execution kinds.
const (
	ExecutionAction = "action"
	ExecutionSkip   = "skip"
	ExecutionError  = "error"
)

// StrategyExecution is one evaluation of a strategy.
type StrategyExecution struct {
	ID         string    `gorm:"column:id;primaryKey"`
	StrategyID string    `gorm:"column:strategy_id"`
	Time       time.Time `gorm:"column:time"`
	Kind       string    `gorm:"column:kind"`   // ExecutionAction | ExecutionSkip | ExecutionError
	Detail     string    `gorm:"column:detail"` // JSON text
	OrderID    *string   `gorm:"column:order_id"`
	// Seq is the execution number (unique per strategy when > 0).
	Seq    int    `gorm:"column:seq"`
	Action string `gorm:"column:action"` // BUY, SELL, or what was skipped
	Reason string `gorm:"column:reason"` // why (client-safe text)
	// TokenID, Side, PriceMicro, SizeMicro, AmountMicro describe the order
	// placed (amount: USDC charged to the strategy's budget), when one was.
	TokenID     string `gorm:"column:token_id"`
	Side        string `gorm:"column:side"`
	PriceMicro  int64  `gorm:"column:price_micro"`
	SizeMicro   int64  `gorm:"column:size_micro"`
	AmountMicro int64  `gorm:"column:amount_micro"`
	OrderStatus string `gorm:"column:order_status"`
	// FilledSizeMicro and AvgFillPriceMicro are what the order had filled
	// when the execution was recorded (its fills may come later: the
	// listing reads the order's own).
	FilledSizeMicro   int64 `gorm:"column:filled_size_micro"`
	AvgFillPriceMicro int64 `gorm:"column:avg_fill_price_micro"`
	// The market the execution acted on (a marketQuery moves a strategy
	// from window to window).
	MarketQuestion string     `gorm:"column:market_question"`
	MarketOutcome  string     `gorm:"column:market_outcome"`
	MarketSlug     string     `gorm:"column:market_slug"`
	MarketEndDate  *time.Time `gorm:"column:market_end_date"`
	// Open is true while the execution's order has not settled: it was
	// recorded when decided (an action with its order PENDING), and its
	// kind, reason and fills are amended once the order is placed
	// (strategies.Engine.Settle).
	Open bool `gorm:"column:open"`
}

// TableName implements gorm's tabler.
func (StrategyExecution) TableName() string { return "strategy_executions" }

// Heartbeat is one heartbeat call of an agent key.
type Heartbeat struct {
	ID           string    `gorm:"column:id;primaryKey"`
	AgentID      string    `gorm:"column:agent_id"`
	APIKeyID     string    `gorm:"column:api_key_id"`
	Time         time.Time `gorm:"column:time"`
	SkillVersion *int      `gorm:"column:skill_version"`
}

// TableName implements gorm's tabler.
func (Heartbeat) TableName() string { return "heartbeats" }

// Audit results.
const (
	AuditSuccess = "success"
	AuditFailure = "failure"
	AuditDenied  = "denied"
)

// AuditLog is one append-only audit entry. UserID and AgentID are "" when
// not applicable (e.g. a login attempt for an unknown email).
type AuditLog struct {
	ID         string    `gorm:"column:id;primaryKey"`
	Time       time.Time `gorm:"column:time"`
	UserID     string    `gorm:"column:user_id"`
	AgentID    string    `gorm:"column:agent_id"`
	Action     string    `gorm:"column:action"` // dotted verb, e.g. "user.login", "agent.revoke"
	Target     string    `gorm:"column:target"` // the object acted on, usually an ID
	Result     string    `gorm:"column:result"` // AuditSuccess | AuditFailure | AuditDenied
	ClientAddr string    `gorm:"column:client_addr"`
	Detail     string    `gorm:"column:detail"` // JSON text; never secrets
}

// TableName implements gorm's tabler.
func (AuditLog) TableName() string { return "audit_log" }

// IdempotencyRecord remembers the response to a request carrying an
// Idempotency-Key so a retry gets the same answer; (agent, key) is unique.
type IdempotencyRecord struct {
	AgentID string `gorm:"column:agent_id;primaryKey"`
	Key     string `gorm:"column:key;primaryKey"`
	// RequestHash fingerprints the request so a reuse of the key with a
	// different body is detected.
	RequestHash    string    `gorm:"column:request_hash"`
	ResponseStatus int       `gorm:"column:response_status"`
	ResponseBody   []byte    `gorm:"column:response_body"`
	CreatedAt      time.Time `gorm:"column:created_at"`
	ExpiresAt      time.Time `gorm:"column:expires_at"`
}

// TableName implements gorm's tabler.
func (IdempotencyRecord) TableName() string { return "idempotency_records" }
