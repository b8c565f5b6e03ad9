// Package audit records security-relevant events — agent linking and
// revocation, order placement, wallet operations, login attempts — in the
// append-only audit log, and lists them for the dashboard.
//
// Entries never hold secrets: Detail values under secret-looking keys are
// redacted before they are stored, as a second line of defence behind
// callers that are expected not to pass them in the first place.
package audit

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
)

// Actions. Dotted "object.verb"; add new ones here so the list stays the
// single vocabulary of the log.
const (
	ActionUserCreate       = "user.create"
	ActionUserLogin        = "user.login"
	ActionTwoFactorEnable  = "user.2fa_enable"
	ActionTwoFactorDisable = "user.2fa_disable"
	// Dashboard account security.
	ActionPasswordChange = "user.password_change"
	ActionBackupCodes    = "user.backup_codes_regenerate"
	ActionSecondFactor   = "user.second_factor"
	ActionPasskeyAdd     = "user.passkey_add"
	ActionPasskeyRename  = "user.passkey_rename"
	ActionPasskeyRemove  = "user.passkey_remove"
	ActionIdentityLink   = "user.identity_link"
	ActionIdentityUnlink = "user.identity_unlink"
	ActionInviteCreate   = "user.invite_create"
	// ActionUserStop is the user's stop-everything control (every agent
	// and strategy paused, every open order cancelled).
	ActionUserStop      = "user.stop"
	ActionDeviceApprove = "device.approve"
	ActionDeviceDeny    = "device.deny"
	ActionAgentLink     = "agent.link"
	ActionAgentPause    = "agent.pause"
	ActionAgentResume   = "agent.resume"
	ActionAgentRevoke   = "agent.revoke"
	ActionAgentUpdate   = "agent.update"
	ActionOrderPlace    = "order.place"
	ActionOrderCancel   = "order.cancel"
	ActionWalletImport  = "wallet.import"
	ActionWalletDelete  = "wallet.delete"
	ActionWalletApprove = "wallet.approve"
	ActionWalletRedeem  = "wallet.redeem"
	// ActionStrategy is the prefix of a strategy's audit actions:
	// strategy.create, strategy.pause, strategy.resume, strategy.cancel,
	// strategy.extend, strategy.patch, and strategy.stop (a COPY_TRADE put
	// in ERROR because a wallet import made its target the user's own).
	ActionStrategy = "strategy."
)

// Results.
const (
	Success = models.AuditSuccess
	Failure = models.AuditFailure
	Denied  = models.AuditDenied
)

// Entry is an event to record.
type Entry struct {
	// Time defaults to now.
	Time       time.Time
	UserID     string
	AgentID    string
	Action     string
	Target     string
	Result     string
	ClientAddr string
	// Detail is extra context, stored as JSON. Never put secrets here;
	// values under secret-looking keys are replaced by "[redacted]".
	Detail map[string]any
}

// Record is a stored entry as services and the dashboard see it.
type Record struct {
	ID         string          `json:"id"`
	Time       time.Time       `json:"time"`
	UserID     string          `json:"user_id,omitempty"`
	AgentID    string          `json:"agent_id,omitempty"`
	Action     string          `json:"action"`
	Target     string          `json:"target,omitempty"`
	Result     string          `json:"result"`
	ClientAddr string          `json:"client_address,omitempty"`
	Detail     json.RawMessage `json:"detail,omitempty"`
}

// Filter selects entries; zero fields don't filter.
type Filter struct {
	UserID  string
	AgentID string
	Action  string
	Result  string
	// Since is inclusive, Until exclusive.
	Since, Until time.Time
	// Limit: default 50, max 500.
	Limit int
	// Cursor is the NextCursor of the previous page.
	Cursor string
}

// Page is one page of entries, newest first.
type Page struct {
	Entries []Record `json:"entries"`
	// NextCursor continues the listing; "" on the last page.
	NextCursor string `json:"next_cursor,omitempty"`
}

// Service records and lists audit entries.
type Service struct {
	Store *store.Store
}

// Record appends e to the log.
func (s *Service) Record(ctx context.Context, e Entry) error {
	return Append(ctx, s.Store, e)
}

// Append appends e through st. Use it with the *store.Store a Tx callback
// receives so that the entry commits or rolls back with the action it
// describes.
func Append(ctx context.Context, st *store.Store, e Entry) error {
	if e.Action == "" {
		return errs.E(errs.Internal, "audit entry without an action")
	}
	switch e.Result {
	case Success, Failure, Denied:
	default:
		return errs.Ef(errs.Internal, "audit entry with unknown result %q", e.Result)
	}
	rec := &models.AuditLog{
		Time: e.Time, UserID: e.UserID, AgentID: e.AgentID, Action: e.Action,
		Target: e.Target, Result: e.Result, ClientAddr: e.ClientAddr,
	}
	if len(e.Detail) > 0 {
		b, err := json.Marshal(redact(e.Detail))
		if err != nil {
			return errs.Wrap(errs.Internal, err, "audit detail is not serialisable")
		}
		rec.Detail = string(b)
	}
	return st.AppendAudit(ctx, rec)
}

// List returns one page of entries matching f, newest first.
func (s *Service) List(ctx context.Context, f Filter) (Page, error) {
	rows, next, err := s.Store.ListAudit(ctx, store.AuditFilter{
		UserID: f.UserID, AgentID: f.AgentID, Action: f.Action, Result: f.Result,
		Since: f.Since, Until: f.Until, Limit: f.Limit, Cursor: f.Cursor,
	})
	if err != nil {
		return Page{}, err
	}
	out := Page{Entries: make([]Record, 0, len(rows)), NextCursor: next}
	for _, r := range rows {
		rec := Record{
			ID: r.ID, Time: r.Time.UTC(), UserID: r.UserID, AgentID: r.AgentID, Action: r.Action,
			Target: r.Target, Result: r.Result, ClientAddr: r.ClientAddr,
		}
		if r.Detail != "" {
			rec.Detail = json.RawMessage(r.Detail)
		}
		out.Entries = append(out.Entries, rec)
	}
	return out, nil
}

// secretMarkers are substrings of detail keys whose values are never
// stored.
var secretMarkers = []string{"password", "secret", "private", "passphrase", "api_key", "apikey", "token", "mnemonic", "seed", "otp", "backup_code", "device_code"}

const redacted = "[redacted]"

func redact(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if isSecretKey(k) {
			out[k] = redacted
			continue
		}
		if sub, ok := v.(map[string]any); ok {
			v = redact(sub)
		}
		out[k] = v
	}
	return out
}

func isSecretKey(k string) bool {
	k = strings.ToLower(k)
	for _, m := range secretMarkers {
		if strings.Contains(k, m) {
			return true
		}
	}
	return false
}
