package models

import "time"

// PrefixBudgetReservation is the ID prefix of budget reservations.
const PrefixBudgetReservation = "bres"

// Budget reservation statuses.
const (
	// ReservationActive: the order can still fill; HeldMicro counts
	// against the agent's budget as well as UsedMicro.
	ReservationActive = "active"
	// ReservationClosed: the order is terminal (filled, cancelled, failed);
	// nothing is held any more, UsedMicro is what was actually spent.
	ReservationClosed = "closed"
)

// BudgetReservation is the budget an order holds against its agent's limits.
// Ref (the order ID) is unique, which makes reserve, release and convert
// idempotent per order. Committed spend of the reservation is
// UsedMicro + HeldMicro.
type BudgetReservation struct {
	ID      string `gorm:"column:id;primaryKey"`
	Ref     string `gorm:"column:ref"` // unique; usually the order ID
	AgentID string `gorm:"column:agent_id"`
	UserID  string `gorm:"column:user_id"`
	// AmountMicro is the micro-USDC originally reserved; HeldMicro the part
	// still held for unfilled size; UsedMicro the micro-USDC spent on fills.
	AmountMicro int64     `gorm:"column:amount_micro"`
	HeldMicro   int64     `gorm:"column:held_micro"`
	UsedMicro   int64     `gorm:"column:used_micro"`
	Status      string    `gorm:"column:status"` // ReservationActive | ReservationClosed
	CreatedAt   time.Time `gorm:"column:created_at"`
	UpdatedAt   time.Time `gorm:"column:updated_at"`
}

// TableName implements gorm's tabler.
func (BudgetReservation) TableName() string { return "budget_reservations" }
