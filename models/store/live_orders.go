package store

import (
	"context"

	"github.com/agent-trading/ats/models"
)

// LiveOrderStatuses are the statuses of an order that can still trade:
// the ones a cancel applies to.
var LiveOrderStatuses = []string{models.OrderPending, models.OrderOpen, models.OrderPartiallyFilled}

// LiveOrders returns up to limit (1–500) of userID's orders that can still
// trade (of agentID only, when set), ordered by id, starting after the id
// after: a cursor, so the user's controls walk every live order once even
// while earlier ones end.
func (s *Store) LiveOrders(ctx context.Context, userID, agentID, after string, limit int) ([]models.Order, error) {
	limit = min(max(limit, 1), 500)
	q := s.db.WithContext(ctx).Where("user_id = ? AND status IN ?", userID, LiveOrderStatuses)
	if agentID != "" {
		q = q.Where("agent_id = ?", agentID)
	}
	if after != "" {
		q = q.Where("id > ?", after)
	}
	var out []models.Order
	if err := q.Order("id").Limit(limit).Find(&out).Error; err != nil {
		return nil, mapErr(err, "order")
	}
	return out, nil
}

// PositionForUser finds userID's position id (of any of the user's
// agents); another user's is NotFound.
func (s *Store) PositionForUser(ctx context.Context, userID, id string) (*models.Position, error) {
	return s.positionWhere(ctx, "id = ? AND user_id = ?", id, userID)
}
