package models

import "time"

// FillWatermark is how far a chain fill watcher has delivered: every fill
// in blocks up to and including Block was handed to its consumer. Key names
// the watcher (e.g. "copy/str_…"), so a restarted watcher resumes where its
// predecessor stopped and backfills the blocks it missed.
type FillWatermark struct {
	Key       string    `gorm:"column:key;primaryKey"`
	Block     int64     `gorm:"column:block"`
	UpdatedAt time.Time `gorm:"column:updated_at"`
}

// TableName implements gorm's tabler.
func (FillWatermark) TableName() string { return "fill_watermarks" }
