package store

import (
	"context"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
)

// SavePosition inserts or updates the agent's position in p.TokenID. The
// (agent, token) row keeps its ID and CreatedAt across saves, so position
// IDs are stable; p is updated with the stored ID and timestamps. Every
// other field is written as given (zero values included).
func (s *Store) SavePosition(ctx context.Context, p *models.Position) error {
	if p.AgentID == "" || p.UserID == "" || p.TokenID == "" {
		return errs.E(errs.Invalid, "a position needs an agent, a user and a token")
	}
	if p.Status == "" {
		p.Status = models.PositionOpen
	}
	p.EndDate = utcPtr(p.EndDate)
	return s.Tx(ctx, func(tx *Store) error {
		now := tx.now()
		old, err := tx.PositionByToken(ctx, p.AgentID, p.TokenID)
		switch {
		case errs.Is(err, errs.NotFound):
			if p.ID == "" {
				p.ID = models.NewID(models.PrefixPosition)
			}
			p.CreatedAt, p.UpdatedAt = now, now
			tx.changed(Change{UserID: p.UserID, Topic: TopicPositions})
			return mapErr(tx.db.WithContext(ctx).Create(p).Error, "position")
		case err != nil:
			return err
		}
		p.ID, p.CreatedAt, p.UpdatedAt = old.ID, old.CreatedAt, now
		err = tx.db.WithContext(ctx).Model(&models.Position{}).Where("id = ?", p.ID).
			Select("*").Omit("id", "agent_id", "token_id", "created_at").Updates(p).Error
		tx.changed(Change{UserID: p.UserID, Topic: TopicPositions})
		return mapErr(err, "position")
	})
}

// PositionByToken finds the agent's position in a token.
func (s *Store) PositionByToken(ctx context.Context, agentID, tokenID string) (*models.Position, error) {
	return s.positionWhere(ctx, "agent_id = ? AND token_id = ?", agentID, tokenID)
}

// PositionForAgent finds agentID's position id; another agent's is
// NotFound.
func (s *Store) PositionForAgent(ctx context.Context, agentID, id string) (*models.Position, error) {
	return s.positionWhere(ctx, "id = ? AND agent_id = ?", id, agentID)
}

func (s *Store) positionWhere(ctx context.Context, cond string, args ...any) (*models.Position, error) {
	var p models.Position
	if err := s.db.WithContext(ctx).Where(cond, args...).Take(&p).Error; err != nil {
		return nil, mapErr(err, "position")
	}
	return &p, nil
}

// ListPositions returns the agent's positions with one of statuses (all
// when empty), oldest first.
func (s *Store) ListPositions(ctx context.Context, agentID string, statuses ...string) ([]models.Position, error) {
	q := s.db.WithContext(ctx).Where("agent_id = ?", agentID)
	if len(statuses) > 0 {
		q = q.Where("status IN ?", statuses)
	}
	var out []models.Position
	if err := q.Order("created_at").Order("id").Find(&out).Error; err != nil {
		return nil, mapErr(err, "position")
	}
	return out, nil
}

// HeldPositionsOfUser returns the positions of every agent of userID that
// hold shares (size above zero), oldest first. The agents of a user share
// one wallet, so a redemption, which burns the wallet's whole balance of a
// market, settles all of them.
func (s *Store) HeldPositionsOfUser(ctx context.Context, userID string) ([]models.Position, error) {
	var out []models.Position
	err := s.db.WithContext(ctx).Where("user_id = ? AND size_micro > 0", userID).
		Order("created_at").Order("id").Find(&out).Error
	if err != nil {
		return nil, mapErr(err, "position")
	}
	return out, nil
}

// SellableShares is what agentID may still sell of tokenID: held is the
// size of its open position (0 without one, or once the market resolved),
// committed the unfilled rest of its live SELL orders in the token
// (PENDING, OPEN, PARTIALLY_FILLED), which a new sell must not offer
// again. Run it under the user's lock (WithBudgetLock), the lock position
// recomputes and order placements hold, so the two figures and the order
// inserted after them agree.
func (s *Store) SellableShares(ctx context.Context, agentID, tokenID string) (held, committed int64, err error) {
	var sizes []int64
	err = s.db.WithContext(ctx).Model(&models.Position{}).
		Where("agent_id = ? AND token_id = ? AND status = ?", agentID, tokenID, models.PositionOpen).
		Pluck("size_micro", &sizes).Error
	if err != nil {
		return 0, 0, mapErr(err, "position")
	}
	for _, v := range sizes {
		held += max(v, 0)
	}
	var row struct{ Committed int64 }
	err = s.db.WithContext(ctx).Model(&models.Order{}).
		Select("COALESCE(SUM(CASE WHEN size_micro > filled_size_micro THEN size_micro - filled_size_micro ELSE 0 END), 0) AS committed").
		Where("agent_id = ? AND token_id = ? AND side = ? AND status IN ?", agentID, tokenID, "SELL",
			[]string{models.OrderPending, models.OrderOpen, models.OrderPartiallyFilled}).
		Scan(&row).Error
	if err != nil {
		return 0, 0, mapErr(err, "order")
	}
	return held, row.Committed, nil
}

// StrategyShares is what strategyID may still sell of tokenID: held is
// what its BUY orders in the token filled less what its SELL orders
// filled, offered the unfilled rest of its live SELL orders (PENDING,
// OPEN, PARTIALLY_FILLED). Both come from the orders' rows, which change
// together with the agent's position (under WithBudgetLock), so a
// strategy's share of the position and the position agree at every
// commit. Run it under the user's lock, like SellableShares. (agentID,
// the strategy's owner, narrows the scan to the agent's orders.)
func (s *Store) StrategyShares(ctx context.Context, agentID, strategyID, tokenID string) (held, offered int64, err error) {
	var row struct{ Held, Offered int64 }
	err = s.db.WithContext(ctx).Model(&models.Order{}).
		Select("COALESCE(SUM(CASE WHEN side = ? THEN filled_size_micro ELSE -filled_size_micro END), 0) AS held, "+
			"COALESCE(SUM(CASE WHEN side = ? AND status IN ? AND size_micro > filled_size_micro THEN size_micro - filled_size_micro ELSE 0 END), 0) AS offered",
			"BUY", "SELL", []string{models.OrderPending, models.OrderOpen, models.OrderPartiallyFilled}).
		Where("agent_id = ? AND strategy_id = ? AND token_id = ?", agentID, strategyID, tokenID).
		Scan(&row).Error
	if err != nil {
		return 0, 0, mapErr(err, "order")
	}
	return max(row.Held, 0), row.Offered, nil
}
