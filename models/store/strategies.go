package store

import (
	"context"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
)

// CreateStrategy inserts st, filling ID (when empty) and timestamps.
func (s *Store) CreateStrategy(ctx context.Context, st *models.Strategy) error {
	if st.AgentID == "" || st.UserID == "" || st.Type == "" || st.Status == "" {
		return errs.E(errs.Invalid, "a strategy needs an agent, a user, a type and a status")
	}
	if st.ID == "" {
		st.ID = models.NewID(models.PrefixStrategy)
	}
	now := s.now()
	st.CreatedAt, st.UpdatedAt = now, now
	st.ExpiresAt = utcPtr(st.ExpiresAt)
	return mapErr(s.db.WithContext(ctx).Create(st).Error, "strategy")
}

// StrategyByID finds a strategy by ID, whoever owns it (for workers).
func (s *Store) StrategyByID(ctx context.Context, id string) (*models.Strategy, error) {
	return s.strategyWhere(ctx, "id = ?", id)
}

// StrategyForAgent finds agentID's strategy id; another agent's is
// NotFound.
func (s *Store) StrategyForAgent(ctx context.Context, agentID, id string) (*models.Strategy, error) {
	return s.strategyWhere(ctx, "id = ? AND agent_id = ?", id, agentID)
}

func (s *Store) strategyWhere(ctx context.Context, cond string, args ...any) (*models.Strategy, error) {
	var st models.Strategy
	if err := s.db.WithContext(ctx).Where(cond, args...).Take(&st).Error; err != nil {
		return nil, mapErr(err, "strategy")
	}
	return &st, nil
}

// ListStrategies returns the agent's strategies with one of statuses (all
// when empty), newest first.
func (s *Store) ListStrategies(ctx context.Context, agentID string, statuses ...string) ([]models.Strategy, error) {
	q := s.db.WithContext(ctx).Where("agent_id = ?", agentID)
	if len(statuses) > 0 {
		q = q.Where("status IN ?", statuses)
	}
	var out []models.Strategy
	if err := q.Order("created_at DESC").Order("id DESC").Find(&out).Error; err != nil {
		return nil, mapErr(err, "strategy")
	}
	return out, nil
}

// CountStrategies counts the agent's strategies with one of statuses (all
// when empty), e.g. to enforce the active-strategies limit.
func (s *Store) CountStrategies(ctx context.Context, agentID string, statuses ...string) (int64, error) {
	q := s.db.WithContext(ctx).Model(&models.Strategy{}).Where("agent_id = ?", agentID)
	if len(statuses) > 0 {
		q = q.Where("status IN ?", statuses)
	}
	var n int64
	if err := q.Count(&n).Error; err != nil {
		return 0, mapErr(err, "strategy")
	}
	return n, nil
}

// StrategyUpdate changes a strategy; nil fields are left unchanged.
type StrategyUpdate struct {
	Status              *string
	BudgetUsedMicro     *int64
	ConsecutiveFailures *int
	WorkflowID          *string
	ExpiresAt           *time.Time
}

// UpdateStrategy applies u to strategy id if its status is one of from (any
// when empty); otherwise errs.Conflict with code "strategy_state". A
// missing strategy is NotFound.
func (s *Store) UpdateStrategy(ctx context.Context, id string, from []string, u StrategyUpdate) error {
	set := map[string]any{"updated_at": s.now()}
	if u.Status != nil {
		set["status"] = *u.Status
	}
	if u.BudgetUsedMicro != nil {
		set["budget_used_micro"] = *u.BudgetUsedMicro
	}
	if u.ConsecutiveFailures != nil {
		set["consecutive_failures"] = *u.ConsecutiveFailures
	}
	if u.WorkflowID != nil {
		set["workflow_id"] = *u.WorkflowID
	}
	if u.ExpiresAt != nil {
		set["expires_at"] = utc(*u.ExpiresAt)
	}
	q := s.db.WithContext(ctx).Model(&models.Strategy{}).Where("id = ?", id)
	if len(from) > 0 {
		q = q.Where("status IN ?", from)
	}
	res := q.Updates(set)
	if res.Error != nil {
		return mapErr(res.Error, "strategy")
	}
	if res.RowsAffected == 1 {
		return nil
	}
	st, err := s.StrategyByID(ctx, id)
	if err != nil {
		return err
	}
	return errs.Ef(errs.Conflict, "the strategy is %s", st.Status).WithCode(errs.CodeStrategyState)
}

// AddStrategyExecution records one evaluation of a strategy, filling ID and
// (when zero) Time.
func (s *Store) AddStrategyExecution(ctx context.Context, e *models.StrategyExecution) error {
	if e.StrategyID == "" || e.Kind == "" {
		return errs.E(errs.Invalid, "a strategy execution needs a strategy and a kind")
	}
	if e.ID == "" {
		e.ID = models.NewID(models.PrefixStrategyExecution)
	}
	if e.Time.IsZero() {
		e.Time = s.now()
	} else {
		e.Time = utc(e.Time)
	}
	return mapErr(s.db.WithContext(ctx).Create(e).Error, "strategy execution")
}

// ListStrategyExecutions returns a strategy's most recent executions,
// newest first (limit default 50, max 500).
func (s *Store) ListStrategyExecutions(ctx context.Context, strategyID string, limit int) ([]models.StrategyExecution, error) {
	switch {
	case limit <= 0:
		limit = 50
	case limit > 500:
		limit = 500
	}
	var out []models.StrategyExecution
	err := s.db.WithContext(ctx).Where("strategy_id = ?", strategyID).
		Order("time DESC").Order("id DESC").Limit(limit).Find(&out).Error
	if err != nil {
		return nil, mapErr(err, "strategy execution")
	}
	return out, nil
}
