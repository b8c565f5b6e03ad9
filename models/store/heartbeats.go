package store

import (
	"context"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
)

// RecordHeartbeat stores one heartbeat, filling ID and (when zero) Time.
// The heartbeat endpoint counts through ClaimHeartbeat (heartbeat_cursors)
// instead, one row per key rather than per call; this per-call log is
// kept for tools that want a history.
func (s *Store) RecordHeartbeat(ctx context.Context, h *models.Heartbeat) error {
	if h.AgentID == "" || h.APIKeyID == "" {
		return errs.E(errs.Invalid, "a heartbeat needs an agent and a key")
	}
	if h.ID == "" {
		h.ID = models.NewID(models.PrefixHeartbeat)
	}
	if h.Time.IsZero() {
		h.Time = s.now()
	} else {
		h.Time = utc(h.Time)
	}
	return mapErr(s.db.WithContext(ctx).Create(h).Error, "heartbeat")
}

// HeartbeatStats returns how many heartbeats a key has recorded and the
// latest one (nil when none).
func (s *Store) HeartbeatStats(ctx context.Context, apiKeyID string) (int64, *models.Heartbeat, error) {
	var n int64
	if err := s.db.WithContext(ctx).Model(&models.Heartbeat{}).Where("api_key_id = ?", apiKeyID).Count(&n).Error; err != nil {
		return 0, nil, mapErr(err, "heartbeat")
	}
	if n == 0 {
		return 0, nil, nil
	}
	var h models.Heartbeat
	err := s.db.WithContext(ctx).Where("api_key_id = ?", apiKeyID).Order("time DESC").Order("id DESC").Take(&h).Error
	if err != nil {
		return 0, nil, mapErr(err, "heartbeat")
	}
	return n, &h, nil
}
