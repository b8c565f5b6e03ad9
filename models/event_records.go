package models

import "time"

// Agent event types (AgentEvent.Type). models/events documents each.
const (
	EventOrderFill         = "ORDER_FILL"
	EventStrategyExecuted  = "STRATEGY_EXECUTED"
	EventStrategyError     = "STRATEGY_ERROR"
	EventStrategyCompleted = "STRATEGY_COMPLETED"
	EventStrategyPaused    = "STRATEGY_PAUSED"
	EventStrategyCancelled = "STRATEGY_CANCELLED"
)

// Who caused an event (AgentEvent.Actor).
const (
	ActorAgent  = "agent"
	ActorUser   = "user"
	ActorSystem = "system"
)

// AgentEvent is one entry of an agent's event log. (AgentID, Seq) is the
// key; Seq numbers an agent's events 1, 2, 3… without gaps, in commit
// order (see store.AppendEvent).
type AgentEvent struct {
	AgentID      string    `gorm:"column:agent_id;primaryKey"`
	Seq          int64     `gorm:"column:seq;primaryKey;autoIncrement:false"`
	UserID       string    `gorm:"column:user_id"`
	Type         string    `gorm:"column:type"`
	Time         time.Time `gorm:"column:time"`
	OrderID      string    `gorm:"column:order_id"`
	FillID       string    `gorm:"column:fill_id"`
	StrategyID   string    `gorm:"column:strategy_id"`
	StrategyType string    `gorm:"column:strategy_type"`
	Actor        string    `gorm:"column:actor"`
	Summary      string    `gorm:"column:summary"`
	// Details is a JSON object ("" for none).
	Details   string    `gorm:"column:details"`
	CreatedAt time.Time `gorm:"column:created_at"`
}

// TableName implements gorm's tabler.
func (AgentEvent) TableName() string { return "agent_events" }

// HeartbeatCursor is an API key's heartbeat record: how many heartbeats it
// made, the last one, and the agent event number it has been told up to.
type HeartbeatCursor struct {
	APIKeyID     string     `gorm:"column:api_key_id;primaryKey"`
	AgentID      string     `gorm:"column:agent_id"`
	EventSeq     int64      `gorm:"column:event_seq"`
	Beats        int64      `gorm:"column:beats"`
	LastAt       *time.Time `gorm:"column:last_at"`
	SkillVersion *int       `gorm:"column:skill_version"`
}

// TableName implements gorm's tabler.
func (HeartbeatCursor) TableName() string { return "heartbeat_cursors" }
