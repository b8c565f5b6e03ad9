package store

import (
	"context"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
)

// CreateAgent inserts an agent without a key, filling ID (when empty),
// defaults and timestamps. The device flow creates the agent when the user
// approves and its key only when the agent next polls, so the two inserts
// happen in different transactions.
func (s *Store) CreateAgent(ctx context.Context, a *models.Agent) error {
	if a.UserID == "" || a.Name == "" {
		return errs.E(errs.Invalid, "an agent needs a user and a name")
	}
	if a.ID == "" {
		a.ID = models.NewID(models.PrefixAgent)
	}
	if a.Status == "" {
		a.Status = models.AgentActive
	}
	if a.Mode == "" {
		a.Mode = models.ModeLive
	}
	if a.RateLimitPerMinute == 0 {
		a.RateLimitPerMinute = models.DefaultRateLimitPerMinute
	}
	if a.HeartbeatIntervalMs == 0 {
		a.HeartbeatIntervalMs = models.DefaultHeartbeatIntervalMs
	}
	now := s.now()
	a.CreatedAt, a.UpdatedAt = now, now
	a.RevokedAt = utcPtr(a.RevokedAt)
	if err := s.db.WithContext(ctx).Create(a).Error; err != nil {
		return mapErr(err, "agent")
	}
	s.changed(Change{UserID: a.UserID, Topic: TopicAgents})
	return nil
}

// CreateAPIKey inserts a key for an existing agent, filling ID (when empty)
// and CreatedAt. A duplicate hash is errs.Conflict.
func (s *Store) CreateAPIKey(ctx context.Context, k *models.APIKey) error {
	if k.AgentID == "" || k.UserID == "" || k.Hash == "" {
		return errs.E(errs.Invalid, "an API key needs an agent, a user and a hash")
	}
	if k.ID == "" {
		k.ID = models.NewID(models.PrefixAPIKey)
	}
	k.CreatedAt = s.now()
	k.LastUsedAt = utcPtr(k.LastUsedAt)
	k.RevokedAt = utcPtr(k.RevokedAt)
	return mapErr(s.db.WithContext(ctx).Create(k).Error, "API key")
}

// AgentSettings are the user-editable limits of an agent. Every field is
// written: nil budget fields clear the limit, nil active hours mean
// "always active".
type AgentSettings struct {
	BudgetLimitMicro      *int64
	BudgetPercentBps      *int32
	MaxPositionValueMicro *int64
	HeartbeatIntervalMs   int64
	ActiveHoursStart      *string
	ActiveHoursEnd        *string
	ActiveHoursTimezone   *string
}

// UpdateAgentBudget sets the three budget limits of userID's agent id (nil
// clears one). A revoked agent is errs.Conflict, someone else's NotFound.
func (s *Store) UpdateAgentBudget(ctx context.Context, userID, id string, set AgentSettings) error {
	return s.updateAgentSettings(ctx, userID, id, map[string]any{
		"budget_limit_micro":       set.BudgetLimitMicro,
		"budget_percent_bps":       set.BudgetPercentBps,
		"max_position_value_micro": set.MaxPositionValueMicro,
	})
}

// UpdateAgentHeartbeat sets the heartbeat interval and active hours of
// userID's agent id. A revoked agent is errs.Conflict, someone else's
// NotFound.
func (s *Store) UpdateAgentHeartbeat(ctx context.Context, userID, id string, set AgentSettings) error {
	if set.HeartbeatIntervalMs <= 0 {
		return errs.E(errs.Invalid, "the heartbeat interval must be positive")
	}
	return s.updateAgentSettings(ctx, userID, id, map[string]any{
		"heartbeat_interval_ms": set.HeartbeatIntervalMs,
		"active_hours_start":    set.ActiveHoursStart,
		"active_hours_end":      set.ActiveHoursEnd,
		"active_hours_timezone": set.ActiveHoursTimezone,
	})
}

// UpdateAgentRateLimit sets the per-minute request budget of userID's
// agent id (the callers validate the range). A revoked agent is
// errs.Conflict, someone else's NotFound.
func (s *Store) UpdateAgentRateLimit(ctx context.Context, userID, id string, perMinute int) error {
	if perMinute <= 0 {
		return errs.E(errs.Invalid, "the rate limit must be positive")
	}
	return s.updateAgentSettings(ctx, userID, id, map[string]any{"rate_limit_per_minute": perMinute})
}

// updateAgentSettings applies set to userID's agent id unless it is
// revoked (errs.Conflict "agent_revoked"; someone else's agent is
// NotFound). It stamps updated_at unless set carries it.
func (s *Store) updateAgentSettings(ctx context.Context, userID, id string, set map[string]any) error {
	if _, ok := set["updated_at"]; !ok {
		set["updated_at"] = s.now()
	}
	// Conditional on "not revoked" in the statement itself, so a revoke
	// racing the change cannot be overtaken: a read followed by an
	// unconditional update would let a change that read "active" overwrite
	// a revoke committed in between (READ COMMITTED on PostgreSQL).
	res := s.db.WithContext(ctx).Model(&models.Agent{}).
		Where("id = ? AND user_id = ? AND status <> ?", id, userID, models.AgentRevoked).Updates(set)
	if res.Error != nil {
		return mapErr(res.Error, "agent")
	}
	if res.RowsAffected == 1 {
		s.changed(Change{UserID: userID, Topic: TopicAgents})
		return nil
	}
	if _, err := s.AgentForUser(ctx, userID, id); err != nil {
		return err
	}
	return errs.E(errs.Conflict, "the agent has been revoked").WithCode(errs.CodeAgentRevoked)
}
