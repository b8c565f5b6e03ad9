package store

import (
	"context"
	"time"

	"gorm.io/gorm"

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
		if err := tx.db.WithContext(ctx).Create(e).Error; err != nil {
			return mapErr(err, "event")
		}
		if f := tx.onEvent.Load(); f != nil && *f != nil {
			return (*f)(ctx, tx, e)
		}
		return nil
	})
}

// EventHook runs in the transaction of an appended agent event, on the
// transaction's store: what it writes commits or rolls back with the
// event (models/notify writes the user's notification of a fill there).
type EventHook func(ctx context.Context, tx *Store, e *models.AgentEvent) error

// OnEvent installs f as the hook of every agent event this store (and
// every store derived from it) appends.
func (s *Store) OnEvent(f EventHook) { s.onEvent.Store(&f) }

// HeartbeatClaim is what one heartbeat of a key claimed.
type HeartbeatClaim struct {
	// Beats is the key's heartbeat count including this one.
	Beats int64
	// Events are the agent's events this heartbeat reports, oldest first:
	// those after the key's cursor, at most the limit asked for. No other
	// heartbeat of the key reports them.
	Events []models.AgentEvent
	// More is true when events beyond the limit remain for the next call.
	More bool
	// from and to are the cursor before and after the claim.
	from, to int64
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
// (a sleeping key) counts but leaves the events for the next one. Call it
// on the store itself, not inside a transaction.
func (s *Store) ClaimHeartbeat(ctx context.Context, apiKeyID, agentID string, consume bool, skillVersion *int, limit int) (HeartbeatClaim, error) {
	if apiKeyID == "" || agentID == "" {
		return HeartbeatClaim{}, errs.E(errs.Invalid, "a heartbeat needs an agent and a key")
	}
	if limit <= 0 {
		limit = 100
	}
	db := s.db.WithContext(ctx)
	count := s.countHeartbeat
	if s.dialect == Postgres && s.committed == nil && s.beats != nil {
		count = s.countHeartbeatBatched
	}
	if beats, ok, err := count(ctx, apiKeyID, agentID, consume, skillVersion); err != nil || ok {
		return HeartbeatClaim{Beats: beats}, err
	}
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
			err := s.heartbeatWrite(func() error {
				return db.Exec(`INSERT INTO heartbeat_cursors (api_key_id, agent_id, event_seq, beats)
					VALUES (?, ?, 0, 0) ON CONFLICT (api_key_id) DO NOTHING`, apiKeyID, agentID).Error
			})
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
		var res *gorm.DB
		err = s.heartbeatWrite(func() error {
			res = db.Exec(`UPDATE heartbeat_cursors SET event_seq = ?, beats = beats + 1, last_at = ?, skill_version = ?
				WHERE api_key_id = ? AND event_seq = ? AND beats = ?`,
				to, s.now(), skillVersion, apiKeyID, r.EventSeq, r.Beats)
			return res.Error
		})
		if err != nil {
			return HeartbeatClaim{}, mapErr(err, "heartbeat")
		}
		if res.RowsAffected != 1 {
			continue // another heartbeat of the key won; read again
		}
		for i := range evs {
			evs[i].Time = evs[i].Time.UTC()
			evs[i].CreatedAt = evs[i].CreatedAt.UTC()
		}
		return HeartbeatClaim{Beats: r.Beats + 1, Events: evs, More: more, from: r.EventSeq, to: to}, nil
	}
	return HeartbeatClaim{}, errs.E(errs.Transient, "too many concurrent heartbeats of this key; retry shortly")
}

// ReleaseHeartbeatClaim gives c's events back to the key's next heartbeat,
// for a heartbeat that claimed them but could not answer: the cursor moves
// back unless another heartbeat of the key has claimed past it meanwhile
// (then those events stay claimed by this failed call and are not
// reported; the case needs a second heartbeat of the same key racing a
// failing one).
func (s *Store) ReleaseHeartbeatClaim(ctx context.Context, apiKeyID string, c HeartbeatClaim) error {
	if c.to <= c.from {
		return nil
	}
	return mapErr(s.heartbeatWrite(func() error {
		return s.db.WithContext(ctx).Exec(`UPDATE heartbeat_cursors SET event_seq = ? WHERE api_key_id = ? AND event_seq = ?`,
			c.from, apiKeyID, c.to).Error
	}), "heartbeat")
}

// countHeartbeat is ClaimHeartbeat's one-statement path for the common
// case, a key with nothing new to claim (or a sleeping key, which claims
// nothing): it counts the heartbeat only if the key's cursor exists and is
// at the agent's head, and reports whether it did.
func (s *Store) countHeartbeat(ctx context.Context, apiKeyID, agentID string, consume bool, skillVersion *int) (int64, bool, error) {
	var out struct {
		Beats int64 `gorm:"column:beats"`
		Found bool  `gorm:"column:found"`
	}
	q := `UPDATE heartbeat_cursors SET beats = beats + 1, last_at = ?, skill_version = ? WHERE api_key_id = ?`
	args := []any{s.now(), skillVersion, apiKeyID}
	if consume {
		q += ` AND event_seq >= COALESCE((SELECT h.last_seq FROM agent_event_heads h WHERE h.agent_id = ?), 0)`
		args = append(args, agentID)
	}
	q += ` RETURNING beats, TRUE AS found`
	err := s.heartbeatWrite(func() error { return s.db.WithContext(ctx).Raw(q, args...).Scan(&out).Error })
	if err != nil {
		return 0, false, mapErr(err, "heartbeat")
	}
	return out.Beats, out.Found, nil
}

// heartbeatWrite runs one of ClaimHeartbeat's writes, in turn with the
// process's other heartbeat writes on SQLite (see Store.heartbeatWrites).
func (s *Store) heartbeatWrite(fn func() error) error {
	if s.dialect == SQLite && s.heartbeatWrites != nil {
		s.heartbeatWrites.Lock()
		defer s.heartbeatWrites.Unlock()
	}
	return fn()
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

// Event retention: reported events are kept a week (for support and the
// dashboard), unreported ones a month (an agent that stopped polling).
const (
	ReportedEventRetention   = 7 * 24 * time.Hour
	UnreportedEventRetention = 30 * 24 * time.Hour
)

// PurgeEvents is housekeeping's cleanup of the event log at now, by the
// retention periods above.
func (s *Store) PurgeEvents(ctx context.Context, now time.Time) (int64, error) {
	return s.PurgeReportedEvents(ctx, now.Add(-ReportedEventRetention), now.Add(-UnreportedEventRetention))
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
