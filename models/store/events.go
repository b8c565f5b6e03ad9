package store

import (
	"context"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
)

// AppendEvent appends e to its agent's event log and sets e.Seq. Call it on
// the transaction-bound store of the change that causes the event, so the
// event exists exactly when the change does (models/events wraps it with
// typed constructors).
//
// The agent's head row is bumped first: its row lock, held to commit,
// serialises an agent's appends, so events commit in Seq order without
// gaps and a heartbeat that claims up to the committed head never misses
// one that commits later.
func (s *Store) AppendEvent(ctx context.Context, e *models.AgentEvent) error {
	if e.AgentID == "" || e.Type == "" {
		return errs.E(errs.Invalid, "an event needs an agent and a type")
	}
	now := s.now()
	if e.Time.IsZero() {
		e.Time = now
	} else {
		e.Time = utc(e.Time)
	}
	e.CreatedAt = now
	return s.Tx(ctx, func(tx *Store) error {
		var seq int64
		err := tx.db.WithContext(ctx).Raw(`INSERT INTO agent_event_heads (agent_id, last_seq) VALUES (?, 1)
			ON CONFLICT (agent_id) DO UPDATE SET last_seq = agent_event_heads.last_seq + 1
			RETURNING last_seq`, e.AgentID).Scan(&seq).Error
		if err != nil {
			return mapErr(err, "event")
		}
		e.Seq = seq
		return mapErr(tx.db.WithContext(ctx).Create(e).Error, "event")
	})
}

// HeartbeatClaim is what one heartbeat of a key claimed.
type HeartbeatClaim struct {
	// Beats is the key's heartbeat count including this one.
	Beats int64
	// PrevAt is the key's previous heartbeat (nil for its first).
	PrevAt *time.Time
	// Events are the agent's events this heartbeat reports, oldest first:
	// those after the key's cursor, at most the limit asked for. No other
	// heartbeat of the key reports them.
	Events []models.AgentEvent
	// More is true when events beyond the limit remain for the next call.
	More bool
}

// heartbeatClaimAttempts bounds the compare-and-set retries of ClaimHeartbeat; each
// retry means another heartbeat of the same key committed in between, so
// running out needs a key hammered from many places at once.
const heartbeatClaimAttempts = 20

// ClaimHeartbeat records one heartbeat of apiKeyID (agent agentID) and,
// when consume is true, claims up to limit of the agent's events after the
// key's cursor. The cursor and count move by compare-and-set: of two
// concurrent heartbeats of a key each claims a distinct range, so no event
// is reported twice and none is skipped. A heartbeat with consume false
// (a sleeping key) counts but leaves the events for the next one.
func (s *Store) ClaimHeartbeat(ctx context.Context, apiKeyID, agentID string, consume bool, skillVersion *int, limit int) (HeartbeatClaim, error) {
	if apiKeyID == "" || agentID == "" {
		return HeartbeatClaim{}, errs.E(errs.Invalid, "a heartbeat needs an agent and a key")
	}
	if limit <= 0 {
		limit = 100
	}
	db := s.db.WithContext(ctx)
	type row struct {
		EventSeq int64      `gorm:"column:event_seq"`
		Beats    int64      `gorm:"column:beats"`
		LastAt   *time.Time `gorm:"column:last_at"`
		Head     int64      `gorm:"column:head"`
		Found    bool       `gorm:"column:found"`
	}
	for range heartbeatClaimAttempts {
		var r row
		err := db.Raw(`SELECT c.event_seq, c.beats, c.last_at, COALESCE(h.last_seq, 0) AS head, TRUE AS found
			FROM heartbeat_cursors c LEFT JOIN agent_event_heads h ON h.agent_id = c.agent_id
			WHERE c.api_key_id = ?`, apiKeyID).Scan(&r).Error
		if err != nil {
			return HeartbeatClaim{}, mapErr(err, "heartbeat")
		}
		if !r.Found {
			err := db.Exec(`INSERT INTO heartbeat_cursors (api_key_id, agent_id, event_seq, beats)
				VALUES (?, ?, 0, 0) ON CONFLICT (api_key_id) DO NOTHING`, apiKeyID, agentID).Error
			if err != nil {
				return HeartbeatClaim{}, mapErr(err, "heartbeat")
			}
			continue
		}
		to, more := r.EventSeq, false
		if consume && r.Head > r.EventSeq {
			to = min(r.Head, r.EventSeq+int64(limit))
			more = to < r.Head
		}
		var evs []models.AgentEvent
		if to > r.EventSeq {
			// Read before the claim: once claimed, housekeeping may delete
			// old reported events.
			err := db.Where("agent_id = ? AND seq > ? AND seq <= ?", agentID, r.EventSeq, to).
				Order("seq").Find(&evs).Error
			if err != nil {
				return HeartbeatClaim{}, mapErr(err, "event")
			}
		}
		now := s.now()
		res := db.Exec(`UPDATE heartbeat_cursors SET event_seq = ?, beats = beats + 1, last_at = ?, skill_version = ?
			WHERE api_key_id = ? AND event_seq = ? AND beats = ?`,
			to, now, skillVersion, apiKeyID, r.EventSeq, r.Beats)
		if res.Error != nil {
			return HeartbeatClaim{}, mapErr(res.Error, "heartbeat")
		}
		if res.RowsAffected != 1 {
			continue // another heartbeat of the key won; read again
		}
		for i := range evs {
			evs[i].Time = evs[i].Time.UTC()
			evs[i].CreatedAt = evs[i].CreatedAt.UTC()
		}
		return HeartbeatClaim{Beats: r.Beats + 1, PrevAt: utcPtr(r.LastAt), Events: evs, More: more}, nil
	}
	return HeartbeatClaim{}, errs.E(errs.Transient, "too many concurrent heartbeats of this key; retry shortly")
}

// HeartbeatCount returns how many heartbeats apiKeyID has made (0 before
// its first).
func (s *Store) HeartbeatCount(ctx context.Context, apiKeyID string) (int64, error) {
	var c models.HeartbeatCursor
	err := s.db.WithContext(ctx).Where("api_key_id = ?", apiKeyID).Limit(1).Find(&c).Error
	return c.Beats, mapErr(err, "heartbeat")
}

// LastHeartbeats returns the time of the latest heartbeat of each of
// agentIDs that has one, in one query over the keys' heartbeat records.
func (s *Store) LastHeartbeats(ctx context.Context, agentIDs []string) (map[string]time.Time, error) {
	out := map[string]time.Time{}
	if len(agentIDs) == 0 {
		return out, nil
	}
	var rows []models.HeartbeatCursor
	err := s.db.WithContext(ctx).Select("agent_id", "last_at").
		Where("agent_id IN ? AND last_at IS NOT NULL", agentIDs).Find(&rows).Error
	if err != nil {
		return nil, mapErr(err, "heartbeat")
	}
	for _, r := range rows {
		if t := r.LastAt.UTC(); t.After(out[r.AgentID]) {
			out[r.AgentID] = t
		}
	}
	return out, nil
}

// PurgeReportedEvents deletes events created before reportedBefore that
// every heartbeat key of their agent has been told, and any event created
// before unreportedBefore (an agent that stopped polling must not grow the
// log without bound). It returns how many were deleted.
func (s *Store) PurgeReportedEvents(ctx context.Context, reportedBefore, unreportedBefore time.Time) (int64, error) {
	db := s.db.WithContext(ctx)
	res := db.Exec(`DELETE FROM agent_events WHERE created_at < ? AND seq <= (
			SELECT COALESCE(MIN(c.event_seq), 0) FROM heartbeat_cursors c WHERE c.agent_id = agent_events.agent_id)`,
		utc(reportedBefore))
	if res.Error != nil {
		return 0, mapErr(res.Error, "event")
	}
	n := res.RowsAffected
	res = db.Where("created_at < ?", utc(unreportedBefore)).Delete(&models.AgentEvent{})
	if res.Error != nil {
		return n, mapErr(res.Error, "event")
	}
	return n + res.RowsAffected, nil
}

// OrdersByIDs returns agentID's orders among ids (another agent's are left
// out), in no particular order.
func (s *Store) OrdersByIDs(ctx context.Context, agentID string, ids []string) ([]models.Order, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var out []models.Order
	if err := s.db.WithContext(ctx).Where("agent_id = ? AND id IN ?", agentID, ids).Find(&out).Error; err != nil {
		return nil, mapErr(err, "order")
	}
	return out, nil
}
