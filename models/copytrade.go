package models

import "time"

// CopyFollow is a COPY_TRADE strategy's subscription to its target: which
// wallet it copies (checksummed hex, immutable) and the first block whose
// trades it copies (the chain's head when it was created), so a strategy
// never copies what the target did before it existed.
type CopyFollow struct {
	StrategyID string    `gorm:"column:strategy_id;primaryKey"`
	Target     string    `gorm:"column:target"`
	FromBlock  int64     `gorm:"column:from_block"`
	CreatedAt  time.Time `gorm:"column:created_at"`
}

// TableName implements gorm's tabler.
func (CopyFollow) TableName() string { return "copy_follows" }

// Copy trade kinds: a trade of the target to copy, or a movement of its
// tokens that is not a trade (logged as a skip).
const (
	CopyKindTrade = "trade"
	CopyKindSkip  = "skip"
)

// CopyTrade is one event of a target, recorded for one strategy copying it
// before anything is placed: (strategy, tx hash, log index) is unique, so
// an event is copied at most once per strategy; Seq is the strategy
// execution that handles it (nil until one claims it).
type CopyTrade struct {
	ID          int64     `gorm:"column:id;primaryKey;autoIncrement"`
	StrategyID  string    `gorm:"column:strategy_id"`
	TxHash      string    `gorm:"column:tx_hash"`
	LogIndex    int64     `gorm:"column:log_index"`
	Target      string    `gorm:"column:target"`
	Block       int64     `gorm:"column:block"`
	Kind        string    `gorm:"column:kind"`
	TokenID     string    `gorm:"column:token_id"`
	Side        string    `gorm:"column:side"`
	SharesMicro int64     `gorm:"column:shares_micro"`
	PriceMicro  int64     `gorm:"column:price_micro"`
	Reason      string    `gorm:"column:reason"`
	Seq         *int      `gorm:"column:seq"`
	CreatedAt   time.Time `gorm:"column:created_at"`
}

// TableName implements gorm's tabler.
func (CopyTrade) TableName() string { return "copy_trades" }

// CopyWatermark is how far the watcher of a target has dispatched its
// events: every log up to (Block, LogIndex) inclusive; LogIndex -1 means
// the whole block.
type CopyWatermark struct {
	Target    string    `gorm:"column:target;primaryKey"`
	Block     int64     `gorm:"column:block"`
	LogIndex  int64     `gorm:"column:log_index"`
	UpdatedAt time.Time `gorm:"column:updated_at"`
}

// TableName implements gorm's tabler.
func (CopyWatermark) TableName() string { return "copy_watermarks" }
