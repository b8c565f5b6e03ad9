package models

import "time"

// ID prefixes of the dashboard's sign-in records.
const (
	PrefixBackupCode = "bkc"
	PrefixInvite     = "inv"
)

// UserSession is a dashboard session, signed in or not yet. ID is the
// SHA-256 hex of the cookie token; the token itself is never stored.
type UserSession struct {
	ID string `gorm:"column:id;primaryKey"`
	// UserID is "" until the visitor signs in.
	UserID    string `gorm:"column:user_id"`
	CSRFToken string `gorm:"column:csrf_token"`
	// AuthMethod is how the session was signed in: password, passkey,
	// oidc:<provider>.
	AuthMethod string `gorm:"column:auth_method"`
	// SecondFactorAt is when a second factor was last verified in this
	// session; sensitive actions want it recent.
	SecondFactorAt *time.Time `gorm:"column:second_factor_at"`
	// State is the JSON of the session's pending steps (second factor,
	// WebAuthn challenge, OpenID Connect state); see models/sessions.
	State      string    `gorm:"column:state"`
	ClientAddr string    `gorm:"column:client_addr"`
	UserAgent  string    `gorm:"column:user_agent"`
	CreatedAt  time.Time `gorm:"column:created_at"`
	LastSeenAt time.Time `gorm:"column:last_seen_at"`
	ExpiresAt  time.Time `gorm:"column:expires_at"`
}

// TableName implements gorm's tabler.
func (UserSession) TableName() string { return "user_sessions" }

// BackupCode is one of a user's one-time 2FA backup codes, stored hashed.
type BackupCode struct {
	ID        string     `gorm:"column:id;primaryKey"`
	UserID    string     `gorm:"column:user_id"`
	CodeHash  string     `gorm:"column:code_hash"`
	CreatedAt time.Time  `gorm:"column:created_at"`
	UsedAt    *time.Time `gorm:"column:used_at"`
}

// TableName implements gorm's tabler.
func (BackupCode) TableName() string { return "user_backup_codes" }

// Invite lets one person sign up while sign-up is invite-only.
type Invite struct {
	ID       string `gorm:"column:id;primaryKey"`
	CodeHash string `gorm:"column:code_hash"`
	// Email, when set, is the only address the invite signs up.
	Email     string     `gorm:"column:email"`
	CreatedAt time.Time  `gorm:"column:created_at"`
	ExpiresAt time.Time  `gorm:"column:expires_at"`
	UsedAt    *time.Time `gorm:"column:used_at"`
	UsedBy    string     `gorm:"column:used_by"`
}

// TableName implements gorm's tabler.
func (Invite) TableName() string { return "user_invites" }

// SecondFactorFailures counts an account's failed second factors in a
// fixed window opened by the first, apart from its failed passwords, and
// holds the lock they earned (see store.TakeSecondFactorTurn).
type SecondFactorFailures struct {
	UserID      string     `gorm:"column:user_id;primaryKey"`
	Failures    int64      `gorm:"column:failures"`
	WindowEnds  time.Time  `gorm:"column:window_ends"`
	LockedUntil *time.Time `gorm:"column:locked_until"`
}

// TableName implements gorm's tabler.
func (SecondFactorFailures) TableName() string { return "second_factor_failures" }
