package store

import (
	"context"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
)

// CreateCopyFollow records which wallet a COPY_TRADE strategy copies (in
// the transaction that creates the strategy).
func (s *Store) CreateCopyFollow(ctx context.Context, f *models.CopyFollow) error {
	if f.CreatedAt.IsZero() {
		f.CreatedAt = s.now()
	}
	return mapErr(s.db.WithContext(ctx).Create(f).Error, "copy follow")
}

// CopyFollow returns the follow of a COPY_TRADE strategy.
func (s *Store) CopyFollow(ctx context.Context, strategyID string) (*models.CopyFollow, error) {
	var f models.CopyFollow
	if err := s.db.WithContext(ctx).Where("strategy_id = ?", strategyID).Take(&f).Error; err != nil {
		return nil, mapErr(err, "copy follow")
	}
	return &f, nil
}

// activeCopiers joins the follows with their ACTIVE strategies.
func (s *Store) activeCopiers(ctx context.Context) *gorm.DB {
	return s.db.WithContext(ctx).Model(&models.CopyFollow{}).
		Joins("JOIN strategies ON strategies.id = copy_follows.strategy_id").
		Where("strategies.status = ?", "ACTIVE")
}

// CopyFollows lists the follows of the strategies in one of statuses.
func (s *Store) CopyFollows(ctx context.Context, statuses ...string) ([]models.CopyFollow, error) {
	var out []models.CopyFollow
	err := s.db.WithContext(ctx).Model(&models.CopyFollow{}).Joins("JOIN strategies ON strategies.id = copy_follows.strategy_id").
		Where("strategies.status IN ?", statuses).Select("copy_follows.*").Order("copy_follows.strategy_id").Find(&out).Error
	return out, mapErr(err, "copy follow")
}

// CopyTargetStart is the first block any ACTIVE strategy copying target
// wants (0 when none says).
func (s *Store) CopyTargetStart(ctx context.Context, target string) (uint64, error) {
	var from *int64
	err := s.activeCopiers(ctx).Where("copy_follows.target = ?", target).Select("MIN(copy_follows.from_block)").Scan(&from).Error
	if err != nil || from == nil || *from < 0 {
		return 0, mapErr(err, "copy follow")
	}
	return uint64(*from), nil
}

// CopyFollowers lists the ACTIVE strategies copying target whose first
// block is at or before block.
func (s *Store) CopyFollowers(ctx context.Context, target string, block uint64) ([]string, error) {
	var out []string
	err := s.activeCopiers(ctx).Where("copy_follows.target = ? AND copy_follows.from_block <= ?", target, int64(block)).
		Order("copy_follows.strategy_id").Pluck("copy_follows.strategy_id", &out).Error
	return out, mapErr(err, "copy follow")
}

// RecordCopyTrades records events for their strategies; an event already
// recorded for a strategy (same transaction and log) is left as it was.
func (s *Store) RecordCopyTrades(ctx context.Context, rows []models.CopyTrade) error {
	if len(rows) == 0 {
		return nil
	}
	now := s.now()
	for i := range rows {
		rows[i].ID, rows[i].Seq = 0, nil
		if rows[i].CreatedAt.IsZero() {
			rows[i].CreatedAt = now
		}
	}
	err := s.db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).CreateInBatches(rows, 200).Error
	return mapErr(err, "copy trade")
}

// ClaimCopyTrade returns the event execution seq of strategyID handles:
// the one it claimed before (a retried execution), else the oldest pending
// one, now claimed. NotFound when nothing is pending.
func (s *Store) ClaimCopyTrade(ctx context.Context, strategyID string, seq int) (*models.CopyTrade, error) {
	var out *models.CopyTrade
	err := s.Tx(ctx, func(tx *Store) error {
		var ct models.CopyTrade
		err := tx.db.WithContext(ctx).Where("strategy_id = ? AND seq = ?", strategyID, seq).Take(&ct).Error
		if err == nil {
			out = &ct
			return nil
		}
		if err := mapErr(err, "copy trade"); !errs.Is(err, errs.NotFound) {
			return err
		}
		err = tx.db.WithContext(ctx).Where("strategy_id = ? AND seq IS NULL", strategyID).Order("block").Order("log_index").Order("id").Take(&ct).Error
		if err != nil {
			return mapErr(err, "copy trade")
		}
		res := tx.db.WithContext(ctx).Model(&models.CopyTrade{}).Where("id = ? AND seq IS NULL", ct.ID).Update("seq", seq)
		if res.Error != nil {
			return mapErr(res.Error, "copy trade")
		}
		if res.RowsAffected != 1 {
			return errs.E(errs.Transient, "the copy was claimed concurrently")
		}
		ct.Seq = &seq
		out = &ct
		return nil
	})
	return out, err
}

// CopyTradesPending reports whether strategyID has events no execution
// handled yet (executed is its last execution number).
func (s *Store) CopyTradesPending(ctx context.Context, strategyID string, executed int) (bool, error) {
	var n int64
	err := s.db.WithContext(ctx).Model(&models.CopyTrade{}).
		Where("strategy_id = ? AND (seq IS NULL OR seq > ?)", strategyID, executed).Limit(1).Count(&n).Error
	return n > 0, mapErr(err, "copy trade")
}

// CopySellsPending reports whether strategyID has a SELL of tokenID by
// its target that no execution handled yet (claimed by execution
// executed+1 or later, or not claimed): a copy that may be waiting for the
// strategy's BUY of the token to be placed (strategies.Engine.Settle).
func (s *Store) CopySellsPending(ctx context.Context, strategyID string, executed int, tokenID string) (bool, error) {
	var n int64
	err := s.db.WithContext(ctx).Model(&models.CopyTrade{}).
		Where("strategy_id = ? AND (seq IS NULL OR seq > ?) AND token_id = ? AND side = ?", strategyID, executed, tokenID, "SELL").
		Limit(1).Count(&n).Error
	return n > 0, mapErr(err, "copy trade")
}

// StrategiesWithPendingCopies lists the ACTIVE strategies with unclaimed
// events (a worker that recorded them may have died before its hint).
func (s *Store) StrategiesWithPendingCopies(ctx context.Context) ([]string, error) {
	var out []string
	err := s.db.WithContext(ctx).Model(&models.CopyTrade{}).
		Joins("JOIN strategies ON strategies.id = copy_trades.strategy_id").
		Where("strategies.status = ? AND copy_trades.seq IS NULL", "ACTIVE").
		Distinct("copy_trades.strategy_id").Pluck("copy_trades.strategy_id", &out).Error
	return out, mapErr(err, "copy trade")
}

// CopyWatermark returns how far target's events were dispatched: every
// log up to (block, logIndex); logIndex -1 is the whole block; ok false
// when never.
func (s *Store) CopyWatermark(ctx context.Context, target string) (block uint64, logIndex int64, ok bool, err error) {
	var w models.CopyWatermark
	err = s.db.WithContext(ctx).Where("target = ?", target).Take(&w).Error
	if err != nil {
		err = mapErr(err, "copy watermark")
		if errs.Is(err, errs.NotFound) {
			return 0, 0, false, nil
		}
		return 0, 0, false, err
	}
	return uint64(w.Block), w.LogIndex, true, nil
}

// SaveCopyWatermark moves target's watermark forward to (block, logIndex);
// it never moves back (several workers may watch one target).
func (s *Store) SaveCopyWatermark(ctx context.Context, target string, block uint64, logIndex int64) error {
	w := models.CopyWatermark{Target: target, Block: int64(block), LogIndex: logIndex, UpdatedAt: s.now()}
	err := s.db.WithContext(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "target"}},
		DoUpdates: clause.AssignmentColumns([]string{"block", "log_index", "updated_at"}),
		Where: clause.Where{Exprs: []clause.Expression{clause.Expr{
			SQL:  "copy_watermarks.block < excluded.block OR (copy_watermarks.block = excluded.block AND (copy_watermarks.log_index <> -1 AND (excluded.log_index = -1 OR copy_watermarks.log_index < excluded.log_index)))",
			Vars: nil,
		}}},
	}).Create(&w).Error
	return mapErr(err, "copy watermark")
}

// StrategyTokenOrders returns a strategy's orders of one token (the
// fields its holdings are derived from).
func (s *Store) StrategyTokenOrders(ctx context.Context, strategyID, tokenID string) ([]models.Order, error) {
	var out []models.Order
	err := s.db.WithContext(ctx).Select("id", "side", "status", "price_micro", "size_micro", "filled_size_micro", "avg_fill_price_micro").
		Where("strategy_id = ? AND token_id = ?", strategyID, tokenID).Order("created_at").Order("id").Find(&out).Error
	return out, mapErr(err, "order")
}

// CopyTradeBySeq finds the event of the target execution seq of
// strategyID claimed (NotFound when none).
func (s *Store) CopyTradeBySeq(ctx context.Context, strategyID string, seq int) (*models.CopyTrade, error) {
	var ct models.CopyTrade
	if err := s.db.WithContext(ctx).Where("strategy_id = ? AND seq = ?", strategyID, seq).Take(&ct).Error; err != nil {
		return nil, mapErr(err, "copy trade")
	}
	return &ct, nil
}
