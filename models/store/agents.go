package store

import (
	"context"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/secret"
)

// CreateAgentWithKey inserts an agent and its first API key atomically,
// filling IDs (when empty), defaults, timestamps and the key's agent and
// user IDs. A duplicate key hash is errs.Conflict and nothing is stored.
func (s *Store) CreateAgentWithKey(ctx context.Context, a *models.Agent, k *models.APIKey) error {
	if k.Hash == "" {
		return errs.E(errs.Invalid, "an API key needs a hash")
	}
	return s.Tx(ctx, func(tx *Store) error {
		if err := tx.CreateAgent(ctx, a); err != nil {
			return err
		}
		k.AgentID, k.UserID = a.ID, a.UserID
		return tx.CreateAPIKey(ctx, k)
	})
}

// AgentKeyByHash resolves a bearer key: the key with this hash and its
// agent. Revoked keys and agents are returned too (with RevokedAt / status
// set) so the caller can tell "revoked" from "unknown"; an unknown hash is
// NotFound.
func (s *Store) AgentKeyByHash(ctx context.Context, hash string) (*models.APIKey, *models.Agent, error) {
	var k models.APIKey
	if err := s.db.WithContext(ctx).Where("hash = ?", hash).Take(&k).Error; err != nil {
		return nil, nil, mapErr(err, "API key")
	}
	// The indexed lookup compares with the database's own, short-circuiting
	// string equality, and a collation or padding rule could make it match
	// a value that is not byte-for-byte the same. The acceptance decision
	// is therefore taken here, by a constant-time comparison of the stored
	// hash with the computed one, so it depends on neither where the two
	// differ nor the database's comparison rules.
	if !secret.Equal(k.Hash, hash) {
		return nil, nil, errs.E(errs.NotFound, "API key not found")
	}
	a, err := s.AgentByID(ctx, k.AgentID)
	if err != nil {
		return nil, nil, err
	}
	return &k, a, nil
}

// TouchAPIKey records that key id was used at now. It only moves
// last_used_at forward, so racing requests cannot move it back. On
// PostgreSQL concurrent touches share one statement (touch_batch.go).
func (s *Store) TouchAPIKey(ctx context.Context, id string, now time.Time) error {
	t := utc(now)
	if s.dialect == Postgres && s.committed == nil && s.touches != nil {
		return s.touchAPIKeyBatched(id, t)
	}
	res := s.db.WithContext(ctx).Model(&models.APIKey{}).
		Where("id = ? AND (last_used_at IS NULL OR last_used_at < ?)", id, t).
		Update("last_used_at", t)
	return mapErr(res.Error, "API key")
}

// AgentByID finds an agent by ID.
func (s *Store) AgentByID(ctx context.Context, id string) (*models.Agent, error) {
	var a models.Agent
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&a).Error; err != nil {
		return nil, mapErr(err, "agent")
	}
	return &a, nil
}

// AgentForUser finds agent id owned by userID; someone else's agent is
// NotFound, indistinguishable from a missing one.
func (s *Store) AgentForUser(ctx context.Context, userID, id string) (*models.Agent, error) {
	var a models.Agent
	if err := s.db.WithContext(ctx).Where("id = ? AND user_id = ?", id, userID).Take(&a).Error; err != nil {
		return nil, mapErr(err, "agent")
	}
	return &a, nil
}

// ListAgentsByUser returns a user's agents, oldest first, revoked included.
func (s *Store) ListAgentsByUser(ctx context.Context, userID string) ([]models.Agent, error) {
	var out []models.Agent
	err := s.db.WithContext(ctx).Where("user_id = ?", userID).Order("created_at").Order("id").Find(&out).Error
	if err != nil {
		return nil, mapErr(err, "agent")
	}
	return out, nil
}

// UpdateAgentStatus sets the status of userID's agent id. Revocation is
// final: it also revokes every key of the agent, and any later status change
// of a revoked agent is errs.Conflict. Someone else's agent is NotFound.
func (s *Store) UpdateAgentStatus(ctx context.Context, userID, id, status string) error {
	switch status {
	case models.AgentActive, models.AgentPaused, models.AgentRevoked:
	default:
		return errs.Ef(errs.Invalid, "unknown agent status %q", status)
	}
	return s.Tx(ctx, func(tx *Store) error {
		now := tx.now()
		set := map[string]any{"status": status, "updated_at": now}
		if status == models.AgentRevoked {
			set["revoked_at"] = now
		}
		err := tx.updateAgentSettings(ctx, userID, id, set)
		if errs.CodeOf(err) == errs.CodeAgentRevoked && status == models.AgentRevoked {
			return nil // revoking twice is a no-op
		}
		if err != nil {
			return err
		}
		if status == models.AgentRevoked {
			err := tx.db.WithContext(ctx).Model(&models.APIKey{}).
				Where("agent_id = ? AND revoked_at IS NULL", id).Update("revoked_at", now).Error
			return mapErr(err, "API key")
		}
		return nil
	})
}
