package store

import (
	"context"
	"time"

	"gorm.io/gorm/clause"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
)

// IdempotencyPending is the ResponseStatus of a claim placeholder: the first
// request with the key is still running and has no final response yet.
const IdempotencyPending = 0

// claimAttempts bounds the insert/read loop of ClaimIdempotency: a read can
// miss the row that beat our insert when its owner released it in between,
// and then the key is free again, so we retry the insert.
const claimAttempts = 3

// ClaimIdempotency atomically claims (agentID, key) for a request whose
// fingerprint is hash. On success it returns the placeholder record
// (ResponseStatus IdempotencyPending, expiring ttl from now) and true: the
// caller owns the key and must CompleteIdempotency or ReleaseIdempotency it,
// passing the returned record back. Otherwise it returns the live record
// already holding the key and false; the caller replays, rejects or reports
// the in-flight request from it.
//
// The claim is a single INSERT under the (agent_id, key) primary key, so of
// N concurrent claims exactly one wins on both databases. Before inserting,
// an expired record and a placeholder older than lease (its owner crashed
// or hung) are deleted, so neither blocks the key forever.
func (s *Store) ClaimIdempotency(ctx context.Context, agentID, key, hash string, ttl, lease time.Duration) (*models.IdempotencyRecord, bool, error) {
	if agentID == "" || key == "" || hash == "" {
		return nil, false, errs.E(errs.Invalid, "an idempotency claim needs an agent, a key and a request hash")
	}
	if ttl <= 0 || lease <= 0 {
		return nil, false, errs.E(errs.Invalid, "an idempotency claim needs a positive TTL and lease")
	}
	for range claimAttempts {
		now := s.now()
		if err := s.db.WithContext(ctx).
			Where("agent_id = ? AND key = ? AND (expires_at <= ? OR (response_status = ? AND created_at <= ?))",
				agentID, key, now, IdempotencyPending, now.Add(-lease)).
			Delete(&models.IdempotencyRecord{}).Error; err != nil {
			return nil, false, mapErr(err, "idempotency record")
		}
		r := &models.IdempotencyRecord{
			AgentID:        agentID,
			Key:            key,
			RequestHash:    hash,
			ResponseStatus: IdempotencyPending,
			CreatedAt:      now,
			ExpiresAt:      now.Add(ttl),
		}
		res := s.db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(r)
		if res.Error != nil {
			return nil, false, mapErr(res.Error, "idempotency record")
		}
		if res.RowsAffected == 1 {
			return r, true, nil
		}
		existing, err := s.GetIdempotency(ctx, agentID, key, now)
		if errs.KindOf(err) == errs.NotFound {
			continue // released or expired between our insert and read
		}
		if err != nil {
			return nil, false, err
		}
		return existing, false, nil
	}
	return nil, false, errs.E(errs.Transient, "the idempotency key is changing hands; retry").WithCode(errs.CodeIdempotencyContention)
}

// CompleteIdempotency stores the response of the request that holds claim.
// It is NotFound when the claim is no longer ours (it was taken over after
// its lease ran out, expired, or another request completed it first): the
// newer record is left alone. The claim's CreatedAt and ResponseStatus are
// its token, since a takeover always inserts a later one: a placeholder
// from ClaimIdempotency completes once, and a record read back with a
// stored status (a re-run of a response that was not final, like a 202)
// is replaced only while it still holds that status.
func (s *Store) CompleteIdempotency(ctx context.Context, claim *models.IdempotencyRecord, status int, body []byte) error {
	if status == IdempotencyPending {
		return errs.E(errs.Invalid, "an idempotent response needs a status")
	}
	res := s.db.WithContext(ctx).Model(&models.IdempotencyRecord{}).
		Where("agent_id = ? AND key = ? AND response_status = ? AND created_at = ?",
			claim.AgentID, claim.Key, claim.ResponseStatus, utc(claim.CreatedAt)).
		Updates(map[string]any{"response_status": status, "response_body": body})
	if res.Error != nil {
		return mapErr(res.Error, "idempotency record")
	}
	if res.RowsAffected == 0 {
		return errs.E(errs.NotFound, "the idempotency claim was lost")
	}
	return nil
}

// ReleaseIdempotency deletes claim's placeholder so the key is free for a
// retry; a claim already taken over or completed is left alone.
func (s *Store) ReleaseIdempotency(ctx context.Context, claim *models.IdempotencyRecord) error {
	return mapErr(s.db.WithContext(ctx).
		Where("agent_id = ? AND key = ? AND response_status = ? AND created_at = ?",
			claim.AgentID, claim.Key, IdempotencyPending, utc(claim.CreatedAt)).
		Delete(&models.IdempotencyRecord{}).Error, "idempotency record")
}
