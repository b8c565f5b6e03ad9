package store

import (
	"context"
	"encoding/base64"
	"strings"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
)

// AuditFilter selects audit entries; zero fields don't filter.
type AuditFilter struct {
	UserID  string
	AgentID string
	Action  string
	Result  string
	// Since is inclusive, Until exclusive.
	Since, Until time.Time
	// Limit caps the page size: default 50, max 500.
	Limit int
	// Cursor continues a previous List from its returned next cursor.
	Cursor string
}

// Audit list page sizes.
const (
	DefaultAuditLimit = 50
	MaxAuditLimit     = 500
)

// AppendAudit inserts e, filling ID and (when zero) Time. Entries are never
// updated or deleted; both schemas enforce that with triggers.
func (s *Store) AppendAudit(ctx context.Context, e *models.AuditLog) error {
	if e.ID == "" {
		e.ID = models.NewID(models.PrefixAudit)
	}
	if e.Time.IsZero() {
		e.Time = s.now()
	} else {
		e.Time = utc(e.Time)
	}
	if e.Action == "" || e.Result == "" {
		return errs.E(errs.Invalid, "an audit entry needs an action and a result")
	}
	return mapErr(s.db.WithContext(ctx).Create(e).Error, "audit entry")
}

// ListAudit returns matching entries newest first, and a cursor for the
// next page ("" when this page is the last).
func (s *Store) ListAudit(ctx context.Context, f AuditFilter) ([]models.AuditLog, string, error) {
	limit := f.Limit
	switch {
	case limit <= 0:
		limit = DefaultAuditLimit
	case limit > MaxAuditLimit:
		limit = MaxAuditLimit
	}
	q := s.db.WithContext(ctx).Model(&models.AuditLog{})
	if f.UserID != "" {
		q = q.Where("user_id = ?", f.UserID)
	}
	if f.AgentID != "" {
		q = q.Where("agent_id = ?", f.AgentID)
	}
	if f.Action != "" {
		q = q.Where("action = ?", f.Action)
	}
	if f.Result != "" {
		q = q.Where("result = ?", f.Result)
	}
	if !f.Since.IsZero() {
		q = q.Where("time >= ?", utc(f.Since))
	}
	if !f.Until.IsZero() {
		q = q.Where("time < ?", utc(f.Until))
	}
	if f.Cursor != "" {
		t, id, err := decodeAuditCursor(f.Cursor)
		if err != nil {
			return nil, "", err
		}
		// Keyset paging on (time, id): stable under concurrent appends.
		q = q.Where("(time < ? OR (time = ? AND id < ?))", t, t, id)
	}
	var out []models.AuditLog
	if err := q.Order("time DESC").Order("id DESC").Limit(limit + 1).Find(&out).Error; err != nil {
		return nil, "", mapErr(err, "audit entry")
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		last := out[len(out)-1]
		next = encodeAuditCursor(last.Time, last.ID)
	}
	for i := range out {
		out[i].Time = out[i].Time.UTC()
	}
	return out, next, nil
}

func encodeAuditCursor(t time.Time, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(t.UTC().Format(time.RFC3339Nano) + "|" + id))
}

func decodeAuditCursor(c string) (time.Time, string, error) {
	bad := errs.E(errs.Invalid, "invalid cursor")
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return time.Time{}, "", bad
	}
	ts, id, ok := strings.Cut(string(raw), "|")
	if !ok || !models.HasPrefix(id, models.PrefixAudit) {
		return time.Time{}, "", bad
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return time.Time{}, "", bad
	}
	return utc(t), id, nil
}
