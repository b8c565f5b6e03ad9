package store

import (
	"context"
	"math"

	"gorm.io/gorm/clause"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
)

// FillWatermark returns the last block whose fills the watcher named key
// delivered, and false when it never saved one.
func (s *Store) FillWatermark(ctx context.Context, key string) (uint64, bool, error) {
	if key == "" {
		return 0, false, errs.E(errs.Invalid, "a fill watermark needs a key")
	}
	var w models.FillWatermark
	err := s.db.WithContext(ctx).Where("key = ?", key).Take(&w).Error
	if err != nil {
		err = mapErr(err, "fill watermark")
		if errs.Is(err, errs.NotFound) {
			return 0, false, nil
		}
		return 0, false, err
	}
	if w.Block < 0 {
		return 0, false, errs.Ef(errs.Internal, "fill watermark %q is negative", key)
	}
	return uint64(w.Block), true, nil
}

// SaveFillWatermark records that the watcher named key delivered every fill
// up to and including block, replacing what it saved before.
func (s *Store) SaveFillWatermark(ctx context.Context, key string, block uint64) error {
	if key == "" {
		return errs.E(errs.Invalid, "a fill watermark needs a key")
	}
	if block > math.MaxInt64 {
		// The column is a signed BIGINT; no chain comes near this height.
		return errs.Ef(errs.Invalid, "block %d does not fit a fill watermark", block)
	}
	w := models.FillWatermark{Key: key, Block: int64(block), UpdatedAt: s.now()}
	err := s.db.WithContext(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "key"}},
		DoUpdates: clause.AssignmentColumns([]string{"block", "updated_at"}),
	}).Create(&w).Error
	return mapErr(err, "fill watermark")
}

// FillWatermarks is the database-backed watermark store of the chain fill
// watchers: it has the method set of venue/chain.WatermarkStore, which it
// satisfies without the store depending on the chain layer.
type FillWatermarks struct{ s *Store }

// FillWatermarks returns the fill watchers' watermark store on s.
func (s *Store) FillWatermarks() FillWatermarks { return FillWatermarks{s: s} }

// Load returns the saved block for key, or 0 with no error when none.
func (w FillWatermarks) Load(ctx context.Context, key string) (uint64, error) {
	b, _, err := w.s.FillWatermark(ctx, key)
	return b, err
}

// Save records that every fill up to and including block was delivered.
func (w FillWatermarks) Save(ctx context.Context, key string, block uint64) error {
	return w.s.SaveFillWatermark(ctx, key, block)
}
