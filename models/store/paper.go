package store

import (
	"context"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
)

// The paper exchange's rows (docs/paper-trading.md): a user's paper
// balance and the paper orders resting on the paper book.

// PaperBalance returns userID's paper balance in micro-USDC: the stored
// one, or models.DefaultPaperBalanceMicro for a user who never set one.
func (s *Store) PaperBalance(ctx context.Context, userID string) (int64, error) {
	var b models.PaperBalance
	err := s.db.WithContext(ctx).Where("user_id = ?", userID).Take(&b).Error
	if err == gorm.ErrRecordNotFound {
		return models.DefaultPaperBalanceMicro, nil
	}
	if err != nil {
		return 0, mapErr(err, "paper balance")
	}
	return b.BalanceMicro, nil
}

// SetPaperBalance sets userID's paper balance (the dashboard's set and
// reset).
func (s *Store) SetPaperBalance(ctx context.Context, userID string, balanceMicro int64) error {
	if balanceMicro < 0 {
		return errs.E(errs.Invalid, "a paper balance cannot be negative").WithCode(errs.CodeInvalidBudget)
	}
	b := models.PaperBalance{UserID: userID, BalanceMicro: balanceMicro, UpdatedAt: s.now()}
	err := s.db.WithContext(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "user_id"}},
		DoUpdates: clause.AssignmentColumns([]string{"balance_micro", "updated_at"}),
	}).Create(&b).Error
	if err != nil {
		return mapErr(err, "paper balance")
	}
	s.changed(Change{Topic: TopicWallet, UserID: userID})
	return nil
}

// AddPaperBalance moves userID's paper balance by deltaMicro (a paper
// fill's cost or proceeds, a paper redemption's payout). Callers hold the
// user's lock (WithBudgetLock), so the read and the write are one step.
func (s *Store) AddPaperBalance(ctx context.Context, userID string, deltaMicro int64) error {
	cur, err := s.PaperBalance(ctx, userID)
	if err != nil {
		return err
	}
	b := models.PaperBalance{UserID: userID, BalanceMicro: cur + deltaMicro, UpdatedAt: s.now()}
	return mapErr(s.db.WithContext(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "user_id"}},
		DoUpdates: clause.AssignmentColumns([]string{"balance_micro", "updated_at"}),
	}).Create(&b).Error, "paper balance")
}

// RestingPaperOrders lists the paper orders that rest on the paper book
// (OPEN or PARTIALLY_FILLED), of tokenID ("" every token), oldest first:
// the paper exchange's time priority.
func (s *Store) RestingPaperOrders(ctx context.Context, tokenID string) ([]models.Order, error) {
	q := s.db.WithContext(ctx).Where("mode = ? AND status IN ?", models.ModePaper,
		[]string{models.OrderOpen, models.OrderPartiallyFilled})
	if tokenID != "" {
		q = q.Where("token_id = ?", tokenID)
	}
	var rows []models.Order
	if err := q.Order("created_at, id").Find(&rows).Error; err != nil {
		return nil, mapErr(err, "order")
	}
	return rows, nil
}
