package store

import (
	"context"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

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
	st.MarketEndDate, st.MarketCheckAt = utcPtr(st.MarketEndDate), utcPtr(st.MarketCheckAt)
	if err := s.db.WithContext(ctx).Create(st).Error; err != nil {
		return mapErr(err, "strategy")
	}
	s.changed(Change{UserID: st.UserID, Topic: TopicStrategies, StrategyID: st.ID})
	return nil
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

// StrategyUpdate changes a strategy; nil fields are left unchanged. A
// pointer to the zero time sets a nullable time to NULL.
type StrategyUpdate struct {
	Status              *string
	BudgetUsedMicro     *int64
	ConsecutiveFailures *int
	WorkflowID          *string
	ExpiresAt           *time.Time
	Config              *string
	MaxBudgetMicro      *int64
	PausedBy            *string
	EndedReason         *string
	LastError           *string
	LastEvaluatedAt     *time.Time
	NextEvaluationAt    *time.Time
	Executions          *int
	TokenID             *string
	OpenSizeMicro       *int64
	Triggers            *string
	// The market of the token (MarketEndDate and MarketCheckAt: a pointer
	// to the zero time sets NULL).
	MarketQuestion *string
	MarketOutcome  *string
	MarketSlug     *string
	MarketEndDate  *time.Time
	MarketCheckAt  *time.Time
	// IfVersion, when set, applies the update only to the strategy at
	// that version (a change bound to the version it was made for).
	IfVersion *int64
}

// changesTerms reports whether u changes what the strategy does beyond
// its status and token: its config, budget or expiry.
func (u StrategyUpdate) changesTerms() bool {
	return u.Config != nil || u.MaxBudgetMicro != nil || u.ExpiresAt != nil
}

func nullableTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return utc(t)
}

// UpdateStrategy applies u to strategy id if its status is one of from (any
// when empty) and, with u.IfVersion, its version is that one; otherwise
// errs.Conflict with code "strategy_state". A missing strategy is
// NotFound. The strategy's version moves by one when u changes its status
// (to another one), its token (to another one) or its terms (changesTerms),
// whoever writes it: a change, an execution, an expiry, a control of the
// user.
func (s *Store) UpdateStrategy(ctx context.Context, id string, from []string, u StrategyUpdate) error {
	set := map[string]any{"updated_at": s.now()}
	if u.changesTerms() {
		set["version"] = gorm.Expr("version + 1")
	} else {
		// The status and the token move the version only when they
		// change: an execution writes both back as they are (the token
		// changes when a marketQuery moves to the next market). SET reads
		// the row as it was before the update (SQLite and PostgreSQL
		// alike).
		var same []string
		var args []any
		if u.Status != nil {
			same, args = append(same, "status = ?"), append(args, *u.Status)
		}
		if u.TokenID != nil {
			same, args = append(same, "token_id = ?"), append(args, *u.TokenID)
		}
		if len(same) > 0 {
			set["version"] = gorm.Expr("CASE WHEN "+strings.Join(same, " AND ")+" THEN version ELSE version + 1 END", args...)
		}
	}
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
		set["expires_at"] = nullableTime(*u.ExpiresAt)
	}
	for col, v := range map[string]*string{"config": u.Config, "paused_by": u.PausedBy, "ended_reason": u.EndedReason,
		"last_error": u.LastError, "token_id": u.TokenID, "triggers": u.Triggers,
		"market_question": u.MarketQuestion, "market_outcome": u.MarketOutcome, "market_slug": u.MarketSlug} {
		if v != nil {
			set[col] = *v
		}
	}
	for col, v := range map[string]*int64{"max_budget_micro": u.MaxBudgetMicro, "open_size_micro": u.OpenSizeMicro} {
		if v != nil {
			set[col] = *v
		}
	}
	if u.Executions != nil {
		set["executions"] = *u.Executions
	}
	if u.LastEvaluatedAt != nil {
		set["last_evaluated_at"] = nullableTime(*u.LastEvaluatedAt)
	}
	if u.NextEvaluationAt != nil {
		set["next_evaluation_at"] = nullableTime(*u.NextEvaluationAt)
	}
	if u.MarketEndDate != nil {
		set["market_end_date"] = nullableTime(*u.MarketEndDate)
	}
	if u.MarketCheckAt != nil {
		set["market_check_at"] = nullableTime(*u.MarketCheckAt)
	}
	q := s.db.WithContext(ctx).Model(&models.Strategy{}).Where("id = ?", id)
	if len(from) > 0 {
		q = q.Where("status IN ?", from)
	}
	if u.IfVersion != nil {
		q = q.Where("version = ?", *u.IfVersion)
	}
	res := q.Updates(set)
	if res.Error != nil {
		return mapErr(res.Error, "strategy")
	}
	if res.RowsAffected == 1 {
		s.changed(Change{Topic: TopicStrategies, StrategyID: id})
		return nil
	}
	st, err := s.StrategyByID(ctx, id)
	if err != nil {
		return err
	}
	if u.IfVersion != nil && st.Version != *u.IfVersion && (len(from) == 0 || slices.Contains(from, st.Status)) {
		return errs.E(errs.Conflict, "the strategy changed since the request was made").WithCode(errs.CodeStrategyState)
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
	e.MarketEndDate = utcPtr(e.MarketEndDate)
	if err := s.db.WithContext(ctx).Create(e).Error; err != nil {
		return mapErr(err, "strategy execution")
	}
	s.changed(Change{Topic: TopicStrategies, StrategyID: e.StrategyID})
	return nil
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
		Order("time DESC").Order("seq DESC").Order("id DESC").Limit(limit).Find(&out).Error
	if err != nil {
		return nil, mapErr(err, "strategy execution")
	}
	return out, nil
}

// CreateStrategyLimited inserts st unless its agent already holds max
// strategies in one of the statuses counted (the count and the insert
// are one step under the user's lock, so concurrent creates cannot both
// pass the limit). fn, when set, runs in the same transaction after the
// insert (e.g. to append an event). Over the limit is errs.Conflict with
// code errs.CodeStrategyLimit.
func (s *Store) CreateStrategyLimited(ctx context.Context, st *models.Strategy, max int, counted []string, fn func(tx *Store) error) error {
	return s.WithBudgetLock(ctx, st.UserID, func(tx *Store) error {
		n, err := tx.CountStrategies(ctx, st.AgentID, counted...)
		if err != nil {
			return err
		}
		if n >= int64(max) {
			return errs.Ef(errs.Conflict, "the agent already has %d strategies that are not finished (the limit is %d)", n, max).
				WithCode(errs.CodeStrategyLimit).WithHint("cancel one with DELETE /strategies/{id} first")
		}
		if err := tx.CreateStrategy(ctx, st); err != nil {
			return err
		}
		if fn != nil {
			return fn(tx)
		}
		return nil
	})
}

// StrategyFilter selects strategies for a listing.
type StrategyFilter struct {
	UserID   string // required unless AgentID is set
	AgentID  string
	Statuses []string
	Type     string
	Limit    int // default 100, max 1000
}

// FindStrategies lists strategies by f, newest first.
func (s *Store) FindStrategies(ctx context.Context, f StrategyFilter) ([]models.Strategy, error) {
	if f.UserID == "" && f.AgentID == "" {
		return nil, errs.E(errs.Invalid, "a strategy listing needs a user or an agent")
	}
	q := s.db.WithContext(ctx)
	if f.UserID != "" {
		q = q.Where("user_id = ?", f.UserID)
	}
	if f.AgentID != "" {
		q = q.Where("agent_id = ?", f.AgentID)
	}
	if len(f.Statuses) > 0 {
		q = q.Where("status IN ?", f.Statuses)
	}
	if f.Type != "" {
		q = q.Where("type = ?", f.Type)
	}
	switch {
	case f.Limit <= 0:
		f.Limit = 100
	case f.Limit > 1000:
		f.Limit = 1000
	}
	var out []models.Strategy
	if err := q.Order("created_at DESC").Order("id DESC").Limit(f.Limit).Find(&out).Error; err != nil {
		return nil, mapErr(err, "strategy")
	}
	return out, nil
}

// ArmedStrategies returns the strategies in status whose price triggers
// are armed (the worker re-registers them with its price feed at start),
// by id after the cursor, at most limit (default 1000).
func (s *Store) ArmedStrategies(ctx context.Context, status, after string, limit int) ([]models.Strategy, error) {
	if limit <= 0 {
		limit = 1000
	}
	var out []models.Strategy
	err := s.db.WithContext(ctx).Select("id", "triggers").
		Where("status = ? AND triggers <> '' AND id > ?", status, after).
		Order("id").Limit(limit).Find(&out).Error
	if err != nil {
		return nil, mapErr(err, "strategy")
	}
	return out, nil
}

// StrategyExecutionBySeq finds a strategy's execution number seq.
func (s *Store) StrategyExecutionBySeq(ctx context.Context, strategyID string, seq int) (*models.StrategyExecution, error) {
	var e models.StrategyExecution
	if err := s.db.WithContext(ctx).Where("strategy_id = ? AND seq = ?", strategyID, seq).Take(&e).Error; err != nil {
		return nil, mapErr(err, "strategy execution")
	}
	return &e, nil
}

// DeleteStrategy removes a strategy that never ran (its workflow could
// not be started) with its executions.
func (s *Store) DeleteStrategy(ctx context.Context, id string) error {
	return s.Tx(ctx, func(tx *Store) error {
		if err := tx.db.WithContext(ctx).Where("strategy_id = ?", id).Delete(&models.StrategyExecution{}).Error; err != nil {
			return mapErr(err, "strategy execution")
		}
		if err := tx.db.WithContext(ctx).Where("id = ?", id).Delete(&models.Strategy{}).Error; err != nil {
			return mapErr(err, "strategy")
		}
		tx.changed(Change{Topic: TopicStrategies, StrategyID: id})
		return nil
	})
}

// ExecutionOrders returns the orders of ids (the fields an execution shows:
// status, fills, size and price), by id; ids not found are left out.
func (s *Store) ExecutionOrders(ctx context.Context, ids []string) (map[string]models.Order, error) {
	out := make(map[string]models.Order, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var rows []models.Order
	err := s.db.WithContext(ctx).Select("id", "side", "status", "price_micro", "size_micro", "filled_size_micro", "avg_fill_price_micro").
		Where("id IN ?", ids).Find(&rows).Error
	if err != nil {
		return nil, mapErr(err, "order")
	}
	for _, o := range rows {
		out[o.ID] = o
	}
	return out, nil
}

// LastStrategyExecution returns strategyID's most recent execution of
// kind (NotFound when none).
func (s *Store) LastStrategyExecution(ctx context.Context, strategyID, kind string) (*models.StrategyExecution, error) {
	var e models.StrategyExecution
	err := s.db.WithContext(ctx).Where("strategy_id = ? AND kind = ?", strategyID, kind).
		Order("time DESC").Order("id DESC").Take(&e).Error
	if err != nil {
		return nil, mapErr(err, "strategy execution")
	}
	return &e, nil
}

// StrategyOrders returns every order strategyID placed (the fields its
// accounting reads), oldest first.
func (s *Store) StrategyOrders(ctx context.Context, strategyID string) ([]models.Order, error) {
	var out []models.Order
	err := s.db.WithContext(ctx).Select("id", "token_id", "side", "status", "price_micro", "size_micro", "filled_size_micro", "avg_fill_price_micro").
		Where("strategy_id = ?", strategyID).Order("created_at").Order("id").Find(&out).Error
	if err != nil {
		return nil, mapErr(err, "order")
	}
	return out, nil
}

// StrategyExecutionByOrder finds the execution of strategyID that recorded
// order orderID (NotFound when none did: an order of a run begun before
// executions were recorded at their decision, or one not yet recorded).
func (s *Store) StrategyExecutionByOrder(ctx context.Context, strategyID, orderID string) (*models.StrategyExecution, error) {
	var e models.StrategyExecution
	err := s.db.WithContext(ctx).Where("order_id = ? AND strategy_id = ?", orderID, strategyID).
		Order("seq DESC").Order("id DESC").Take(&e).Error
	if err != nil {
		return nil, mapErr(err, "strategy execution")
	}
	return &e, nil
}

// CountOpenStrategyExecutions counts strategyID's executions whose order
// has not settled yet (models.StrategyExecution.Open).
func (s *Store) CountOpenStrategyExecutions(ctx context.Context, strategyID string) (int64, error) {
	var n int64
	err := s.db.WithContext(ctx).Model(&models.StrategyExecution{}).Where("strategy_id = ? AND open = ?", strategyID, true).Count(&n).Error
	return n, mapErr(err, "strategy execution")
}

// CloseStrategyExecution amends open execution e.ID with e's outcome
// (kind, reason, and its order's status, fills and amount) and closes it.
// It reports false, changing nothing, when the execution is not open (an
// earlier call closed it).
func (s *Store) CloseStrategyExecution(ctx context.Context, e *models.StrategyExecution) (bool, error) {
	res := s.db.WithContext(ctx).Model(&models.StrategyExecution{}).Where("id = ? AND open = ?", e.ID, true).Updates(map[string]any{
		"open": false, "kind": e.Kind, "reason": e.Reason, "order_status": e.OrderStatus,
		"filled_size_micro": e.FilledSizeMicro, "avg_fill_price_micro": e.AvgFillPriceMicro, "amount_micro": e.AmountMicro,
	})
	if res.Error != nil {
		return false, mapErr(res.Error, "strategy execution")
	}
	if res.RowsAffected != 1 {
		return false, nil
	}
	s.changed(Change{Topic: TopicStrategies, StrategyID: e.StrategyID})
	return true, nil
}
