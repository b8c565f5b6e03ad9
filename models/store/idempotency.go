package store

import (
	"context"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
)

// GetIdempotency returns the live record for (agentID, key), or NotFound
// when there is none or it expired before now.
func (s *Store) GetIdempotency(ctx context.Context, agentID, key string, now time.Time) (*models.IdempotencyRecord, error) {
	var r models.IdempotencyRecord
	err := s.db.WithContext(ctx).
		Where("agent_id = ? AND key = ? AND expires_at > ?", agentID, key, utc(now)).
		Take(&r).Error
	if err != nil {
		return nil, mapErr(err, "idempotency record")
	}
	return &r, nil
}

// PutIdempotency stores r. A live record for the same (agent, key) makes it
// errs.Conflict — the first writer wins and a concurrent duplicate request
// must replay that record instead; an expired one is replaced.
func (s *Store) PutIdempotency(ctx context.Context, r *models.IdempotencyRecord) error {
	if r.AgentID == "" || r.Key == "" {
		return errs.E(errs.Invalid, "an idempotency record needs an agent and a key")
	}
	if r.CreatedAt.IsZero() {
		r.CreatedAt = s.now()
	} else {
		r.CreatedAt = utc(r.CreatedAt)
	}
	r.ExpiresAt = utc(r.ExpiresAt)
	if !r.ExpiresAt.After(r.CreatedAt) {
		return errs.E(errs.Invalid, "an idempotency record must expire after it is created")
	}
	return s.Tx(ctx, func(tx *Store) error {
		// Clear an expired predecessor so the key can be reused after
		// expiry without waiting for the purge job.
		if err := tx.db.WithContext(ctx).
			Where("agent_id = ? AND key = ? AND expires_at <= ?", r.AgentID, r.Key, r.CreatedAt).
			Delete(&models.IdempotencyRecord{}).Error; err != nil {
			return mapErr(err, "idempotency record")
		}
		return mapErr(tx.db.WithContext(ctx).Create(r).Error, "idempotency record")
	})
}

// IdempotencyRetention is how long an Idempotency-Key binds what it did:
// the API keeps its records this long (api/idempotency's default TTL) and
// an order placed with a key holds the key as long, after which the key is
// free again (OrderByIdempotencyKey no longer finds the order, CreateOrder
// and PurgeExpiredIdempotency clear it from the order).
const IdempotencyRetention = 24 * time.Hour

// PurgeExpiredIdempotency deletes records that expired at or before now and
// frees the idempotency keys of orders created IdempotencyRetention or more
// before now. It returns how many rows it changed (records deleted plus
// orders whose key was cleared).
func (s *Store) PurgeExpiredIdempotency(ctx context.Context, now time.Time) (int64, error) {
	res := s.db.WithContext(ctx).Where("expires_at <= ?", utc(now)).Delete(&models.IdempotencyRecord{})
	if res.Error != nil {
		return 0, mapErr(res.Error, "idempotency record")
	}
	keys, err := s.releaseOrderKeys(ctx, "", "", now.Add(-IdempotencyRetention))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected + keys, nil
}
