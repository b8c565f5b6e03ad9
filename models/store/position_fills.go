package store

import (
	"context"
	"time"

	"gorm.io/gorm/clause"

	"github.com/agent-trading/ats/models"
)

// TokenFill is one fill of an agent's order in a token, with what the
// position fold needs of the order: its side and the market it trades.
type TokenFill struct {
	ID           string    `gorm:"column:id"`
	OrderID      string    `gorm:"column:order_id"`
	VenueTradeID string    `gorm:"column:venue_trade_id"`
	Side         string    `gorm:"column:side"` // BUY | SELL
	PriceMicro   int64     `gorm:"column:price_micro"`
	SizeMicro    int64     `gorm:"column:size_micro"`
	FeeMicro     int64     `gorm:"column:fee_micro"`
	Time         time.Time `gorm:"column:time"`
	ConditionID  string    `gorm:"column:condition_id"`
	Question     string    `gorm:"column:market_question"`
	Outcome      string    `gorm:"column:outcome"`
	NegRisk      bool      `gorm:"column:neg_risk"`
}

// TokenFills returns every fill of agentID's orders in tokenID, oldest
// first: by fill time, then by when the order was created (venues report
// match times in whole seconds, so a buy and the sell that closes it can
// share a timestamp; the order that came first folds first), then by
// fill id for a stable order.
func (s *Store) TokenFills(ctx context.Context, agentID, tokenID string) ([]TokenFill, error) {
	var out []TokenFill
	err := s.db.WithContext(ctx).Table("fills").
		Select("fills.id, fills.order_id, fills.venue_trade_id, orders.side, fills.price_micro, fills.size_micro, "+
			"fills.fee_micro, fills.time, orders.condition_id, orders.market_question, orders.outcome, orders.neg_risk").
		Joins("JOIN orders ON orders.id = fills.order_id").
		Where("orders.agent_id = ? AND orders.token_id = ?", agentID, tokenID).
		Order("fills.time").Order("orders.created_at").Order("fills.id").
		Scan(&out).Error
	if err != nil {
		return nil, mapErr(err, "fill")
	}
	for i := range out {
		out[i].Time = out[i].Time.UTC()
	}
	return out, nil
}

// FilledTokens returns the distinct tokens in which agentID's orders have
// fills, sorted, so every position of the agent can be rebuilt from its
// fills.
func (s *Store) FilledTokens(ctx context.Context, agentID string) ([]string, error) {
	var out []string
	err := s.db.WithContext(ctx).Table("fills").
		Distinct("orders.token_id").
		Joins("JOIN orders ON orders.id = fills.order_id").
		Where("orders.agent_id = ?", agentID).
		Order("orders.token_id").
		Pluck("orders.token_id", &out).Error
	if err != nil {
		return nil, mapErr(err, "fill")
	}
	return out, nil
}

// LockPositionByToken reads the agent's position in a token for update:
// inside a transaction on PostgreSQL the row stays locked until commit, so
// a writer that does not hold the user's lock (the settlements service
// recording a redemption) cannot interleave with a read-modify-write of the
// position and lose an update. SQLite transactions already run one writer
// at a time. A missing position is NotFound.
func (s *Store) LockPositionByToken(ctx context.Context, agentID, tokenID string) (*models.Position, error) {
	q := s.db.WithContext(ctx).Where("agent_id = ? AND token_id = ?", agentID, tokenID)
	if s.dialect == Postgres {
		q = q.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	var p models.Position
	if err := q.Take(&p).Error; err != nil {
		return nil, mapErr(err, "position")
	}
	return &p, nil
}
