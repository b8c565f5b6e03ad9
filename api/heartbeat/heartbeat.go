// Package heartbeat serves GET /api/agent/v1/heartbeat (scope read): a thin
// handler over models/heartbeat that encodes the spec's response, numbers
// as JSON numbers and times as RFC 3339 strings. docs/agent-api-heartbeat.md
// documents it.
package heartbeat

import (
	"encoding/json"
	"math"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/agentauth"
	"github.com/agent-trading/ats/models/heartbeat"
	"github.com/agent-trading/ats/models/metrics"
)

// Heartbeat is the body's data. Portfolio, OrderActivity, Budget are
// absent when SLEEPING, Message present only then, Actions only when
// ACTION_NEEDED.
type Heartbeat struct {
	Status string `json:"status"`
	// Mode is the agent's: "paper" or "live".
	Mode          string         `json:"mode"`
	Timestamp     string         `json:"timestamp"`
	Message       string         `json:"message,omitempty"`
	Portfolio     *Portfolio     `json:"portfolio,omitempty"`
	OrderActivity *OrderActivity `json:"orderActivity,omitempty"`
	Budget        *Budget        `json:"budget,omitempty"`
	Actions       []Action       `json:"actions,omitempty"`
	Heartbeat     Schedule       `json:"heartbeat"`
}

// Portfolio is data.portfolio.
type Portfolio struct {
	OpenPositions   int         `json:"openPositions"`
	TotalValue      json.Number `json:"totalValue"`
	UnrealizedPnl   json.Number `json:"unrealizedPnl"`
	RedeemableCount int         `json:"redeemableCount"`
	RedeemableValue json.Number `json:"redeemableValue"`
}

// OrderActivity is data.orderActivity.
type OrderActivity struct {
	OpenOrders               int64            `json:"openOrders"`
	FilledSinceLastHeartbeat int              `json:"filledSinceLastHeartbeat"`
	RecentFills              []heartbeat.Fill `json:"recentFills"`
}

// Budget is data.budget.
type Budget struct {
	Available     json.Number `json:"available"`
	LimitedBy     string      `json:"limitedBy"`
	WalletBalance json.Number `json:"walletBalance"`
}

// Action is an entry of data.actions.
type Action struct {
	Type     string         `json:"type"`
	Priority string         `json:"priority"`
	Summary  string         `json:"summary"`
	Details  map[string]any `json:"details"`
}

// ActiveHours is heartbeat.active_hours.
type ActiveHours struct {
	Start    string `json:"start"`
	End      string `json:"end"`
	Timezone string `json:"timezone"`
}

// Schedule is data.heartbeat.
type Schedule struct {
	NextCheckAt        string       `json:"next_check_at"`
	IntervalMs         int64        `json:"interval_ms"`
	ActiveHours        *ActiveHours `json:"active_hours"`
	HeartbeatCount     int64        `json:"heartbeat_count"`
	LatestSkillVersion int          `json:"latest_skill_version"`
}

// Routes mounts GET /heartbeat on /api/agent/v1 behind auth.
func Routes(svc *heartbeat.Service, auth ...gin.HandlerFunc) api.Routes {
	return func(s *api.Server) {
		s.Group("/api/agent/v1", auth...).GET("/heartbeat", agentauth.Require("read"), handler(svc))
	}
}

func handler(svc *heartbeat.Service) gin.HandlerFunc {
	return func(c *gin.Context) {
		id, ok := agentauth.Need(c)
		if !ok {
			return
		}
		var skill *int
		if _, sent := c.GetQuery("skill_version"); sent {
			v, err := api.QueryInt(c, "skill_version", 0, 0, math.MaxInt32)
			if err != nil {
				api.Fail(c, err)
				return
			}
			skill = &v
		}
		key := heartbeat.Key{KeyID: id.KeyID, AgentID: id.AgentID, UserID: id.UserID, IntervalMs: id.HeartbeatIntervalMs}
		if id.Timezone != "" {
			h, err := heartbeat.ParseHours(id.ActiveHoursStart, id.ActiveHoursEnd, id.Timezone)
			if err != nil {
				api.Fail(c, err)
				return
			}
			key.Hours = h
			key.HoursText = &heartbeat.HoursText{Start: id.ActiveHoursStart, End: id.ActiveHoursEnd, Timezone: id.Timezone}
		}
		r, err := svc.Beat(c.Request.Context(), key, skill)
		if err != nil {
			metrics.Heartbeat("error")
			api.Fail(c, err)
			return
		}
		metrics.Heartbeat(strings.ToLower(r.Status))
		dto := toDTO(r)
		dto.Mode = id.AgentMode
		api.OK(c, dto)
	}
}

func toDTO(r heartbeat.Report) Heartbeat {
	out := Heartbeat{
		Status: r.Status, Timestamp: r.Timestamp.UTC().Format(time.RFC3339Nano), Message: r.Message,
		Heartbeat: Schedule{
			NextCheckAt: r.Schedule.NextCheckAt.UTC().Format(time.RFC3339Nano), IntervalMs: r.Schedule.IntervalMs,
			HeartbeatCount: r.Schedule.HeartbeatCount, LatestSkillVersion: r.Schedule.LatestSkillVersion,
		},
	}
	if h := r.Schedule.ActiveHours; h != nil {
		out.Heartbeat.ActiveHours = &ActiveHours{Start: h.Start, End: h.End, Timezone: h.Timezone}
	}
	if p := r.Portfolio; p != nil {
		out.Portfolio = &Portfolio{OpenPositions: p.OpenPositions, TotalValue: heartbeat.Num(p.TotalValue.Round(6)),
			UnrealizedPnl: heartbeat.Num(p.UnrealizedPnl.Round(6)), RedeemableCount: p.RedeemableCount,
			RedeemableValue: heartbeat.Num(p.RedeemableValue.Round(6))}
	}
	if o := r.Orders; o != nil {
		out.OrderActivity = &OrderActivity{OpenOrders: o.OpenOrders, FilledSinceLastHeartbeat: o.FilledSinceLastHeartbeat,
			RecentFills: o.RecentFills}
		if out.OrderActivity.RecentFills == nil {
			out.OrderActivity.RecentFills = []heartbeat.Fill{}
		}
	}
	if b := r.Budget; b != nil {
		out.Budget = &Budget{Available: heartbeat.Num(b.Available), LimitedBy: b.LimitedBy, WalletBalance: heartbeat.Num(b.WalletBalance)}
	}
	if r.Status == heartbeat.StatusActionNeeded {
		out.Actions = make([]Action, 0, len(r.Actions))
		for _, a := range r.Actions {
			out.Actions = append(out.Actions, Action{Type: a.Type, Priority: a.Priority, Summary: a.Summary, Details: a.Details})
		}
	}
	return out
}
