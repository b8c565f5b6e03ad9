// Package agents links AI agents to users through the device
// authorization flow (RFC 8628 in spirit) and manages linked agents: list,
// pause, resume, revoke, budget and heartbeat settings.
//
// Approval has one code path, workflows.DeviceLinks.ApproveDevice /
// DenyDevice, used by the /link page and by the admin command: it checks
// the code here (DecidableLink), then the device-link Temporal workflow
// decides, whose activities record the decision through Recorder. This
// package never drives a workflow. The API key is minted later, in the API
// process, by PollDeviceToken, so it never enters Temporal.
//
// Every change is audited in the same transaction as the change.
package agents

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
)

// Scopes every linked agent receives (spec, "Authentication").
const (
	ScopeRead   = "read"
	ScopeTrade  = "trade"
	ScopeCancel = "cancel"
	ScopeRedeem = "redeem"
)

// AllScopes is the scope set of a newly linked agent.
var AllScopes = []string{ScopeRead, ScopeTrade, ScopeCancel, ScopeRedeem}

// Audit actions of this package that package audit does not list yet.
const (
	ActionDeviceRequest = "device.request"
	ActionKeyIssue      = "agent.key_issue"
	ActionDeviceExpire  = "device.expire"
)

// DefaultLinkHeartbeatIntervalMs is the heartbeat interval of a newly
// linked agent: one minute, with no active hours (models/heartbeat and
// docs/agent-api-heartbeat.md).
const DefaultLinkHeartbeatIntervalMs = models.DefaultHeartbeatIntervalMs

// Agent is the public view of an agent (never a key or its hash).
type Agent struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Status    string     `json:"status"`
	Mode      string     `json:"mode"`
	Scopes    []string   `json:"scopes"`
	Budget    Budget     `json:"budget"`
	Heartbeat Heartbeat  `json:"heartbeat"`
	RateLimit int        `json:"rate_limit_per_minute"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
}

// Budget is an agent's spending limits; nil means "not set".
type Budget struct {
	// FixedLimitMicro is the most micro-USDC the agent may spend.
	FixedLimitMicro *int64 `json:"fixed_limit_micro"`
	// PercentBps is the usable share of the wallet balance in basis
	// points (10000 = 100%).
	PercentBps *int32 `json:"percent_bps"`
	// MaxPositionValueMicro caps the total open position value.
	MaxPositionValueMicro *int64 `json:"max_position_value_micro"`
}

// ActiveHours restricts when an agent is expected to heartbeat.
type ActiveHours struct {
	Start    string `json:"start"` // "HH:MM"
	End      string `json:"end"`   // "HH:MM"
	Timezone string `json:"timezone"`
}

// Heartbeat is an agent's heartbeat settings.
type Heartbeat struct {
	IntervalMs  int64        `json:"interval_ms"`
	ActiveHours *ActiveHours `json:"active_hours"`
}

func toDTO(a *models.Agent) Agent {
	out := Agent{
		ID: a.ID, Name: a.Name, Status: a.Status, Mode: a.Mode, Scopes: a.ScopeList(),
		Budget:    Budget{FixedLimitMicro: a.BudgetLimitMicro, PercentBps: a.BudgetPercentBps, MaxPositionValueMicro: a.MaxPositionValueMicro},
		Heartbeat: Heartbeat{IntervalMs: a.HeartbeatIntervalMs},
		RateLimit: a.RateLimitPerMinute, CreatedAt: a.CreatedAt.UTC(),
	}
	if a.ActiveHoursStart != nil && a.ActiveHoursEnd != nil && a.ActiveHoursTimezone != nil {
		out.Heartbeat.ActiveHours = &ActiveHours{Start: *a.ActiveHoursStart, End: *a.ActiveHoursEnd, Timezone: *a.ActiveHoursTimezone}
	}
	if a.RevokedAt != nil {
		t := a.RevokedAt.UTC()
		out.RevokedAt = &t
	}
	return out
}

// maxAgentNameLen bounds agent names (characters).
const maxAgentNameLen = 64

// ValidateAgentName checks an agent name: 1–64 characters from letters,
// digits, space, '-', '_' and '.', not blank. It returns the trimmed name.
func ValidateAgentName(name string) (string, error) {
	n := strings.TrimSpace(name)
	bad := errs.E(errs.Invalid, "agent_name must be 1 to 64 characters: letters, digits, spaces, '-', '_' or '.'").WithCode(errs.CodeInvalidAgentName)
	if n == "" || utf8.RuneCountInString(n) > maxAgentNameLen {
		return "", bad
	}
	for _, r := range n {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			r == ' ' || r == '-' || r == '_' || r == '.'
		if !ok {
			return "", bad
		}
	}
	return n, nil
}

// List returns userID's agents, oldest first, revoked included.
func (s *Service) List(ctx context.Context, userID string) ([]Agent, error) {
	rows, err := s.Store.ListAgentsByUser(ctx, userID)
	if err != nil {
		return nil, err
	}
	out := make([]Agent, 0, len(rows))
	for i := range rows {
		out = append(out, toDTO(&rows[i]))
	}
	return out, nil
}

// Get returns userID's agent by ID or, failing that, by name; see Resolve.
func (s *Service) Get(ctx context.Context, userID, idOrName string) (Agent, error) {
	a, err := s.Resolve(ctx, userID, idOrName)
	if err != nil {
		return Agent{}, err
	}
	return toDTO(a), nil
}

// Resolve finds userID's agent by ID ("agt_…") or by exact name, as the
// admin command accepts either. A name shared by several agents that are
// not revoked is errs.Conflict (use the ID); when only one of them is
// live, it wins.
func (s *Service) Resolve(ctx context.Context, userID, idOrName string) (*models.Agent, error) {
	if models.HasPrefix(idOrName, models.PrefixAgent) {
		if a, err := s.Store.AgentForUser(ctx, userID, idOrName); err == nil || !errs.Is(err, errs.NotFound) {
			return a, err
		}
	}
	rows, err := s.Store.ListAgentsByUser(ctx, userID)
	if err != nil {
		return nil, err
	}
	var all, live []*models.Agent
	for i := range rows {
		if rows[i].Name == idOrName {
			all = append(all, &rows[i])
			if rows[i].Status != models.AgentRevoked {
				live = append(live, &rows[i])
			}
		}
	}
	switch {
	case len(all) == 1:
		return all[0], nil
	case len(live) == 1:
		return live[0], nil
	case len(all) == 0:
		return nil, errs.E(errs.NotFound, "agent not found")
	default:
		return nil, errs.Ef(errs.Conflict, "several agents are named %q; use the agent id", idOrName).WithCode(errs.CodeAmbiguousAgent)
	}
}

// Pause stops the agent's key from being accepted until Resume. Pausing a
// paused agent is a no-op (still audited); a revoked agent is Conflict.
func (s *Service) Pause(ctx context.Context, userID, idOrName, clientAddr string) (Agent, error) {
	return s.setStatus(ctx, userID, idOrName, clientAddr, models.AgentPaused, audit.ActionAgentPause)
}

// Resume re-enables a paused agent; a revoked agent is Conflict.
func (s *Service) Resume(ctx context.Context, userID, idOrName, clientAddr string) (Agent, error) {
	return s.setStatus(ctx, userID, idOrName, clientAddr, models.AgentActive, audit.ActionAgentResume)
}

// Revoke revokes the agent and all its keys, immediately and for good.
// Revoking twice is a no-op; pausing or resuming afterwards is Conflict.
func (s *Service) Revoke(ctx context.Context, userID, idOrName, clientAddr string) (Agent, error) {
	return s.setStatus(ctx, userID, idOrName, clientAddr, models.AgentRevoked, audit.ActionAgentRevoke)
}

// setStatus changes the agent's status under the user's lock
// (store.WithBudgetLock): every order's acceptance checks the agent's
// status under that lock with the order's insert (models/orders), so an
// order is either accepted before the change commits — and then visible
// to whatever the change does next (workflows.Controls cancels a revoked
// agent's orders) — or refused after it.
func (s *Service) setStatus(ctx context.Context, userID, idOrName, clientAddr, status, action string) (Agent, error) {
	return s.changeWith(ctx, userID, idOrName, clientAddr, action, func(ctx context.Context, fn func(*store.Store) error) error {
		return s.Store.WithBudgetLock(ctx, userID, fn)
	}, func(tx *store.Store, a *models.Agent) (map[string]any, error) {
		return map[string]any{"from": a.Status, "to": status}, tx.UpdateAgentStatus(ctx, userID, a.ID, status)
	})
}

// maxBudgetMicro bounds budget amounts (one billion USDC), far above any
// real use and far below int64 overflow in later arithmetic.
const maxBudgetMicro = int64(1_000_000_000) * models.MicroPerUnit

// SetBudget sets the agent's three budget limits; nil clears a limit.
// Amounts must be positive (at most 1e9 USDC), the percentage 1–10000 bps.
// It is UpdateBudget naming every limit, so both paths (the dashboard's
// form, the admin command) audit a change alike.
func (s *Service) SetBudget(ctx context.Context, userID, idOrName, clientAddr string, b Budget) (Agent, error) {
	ch := BudgetChange{FixedLimitMicro: b.FixedLimitMicro, PercentBps: b.PercentBps, MaxPositionValueMicro: b.MaxPositionValueMicro}
	if b.FixedLimitMicro == nil {
		ch.Clear = append(ch.Clear, LimitFixed)
	}
	if b.PercentBps == nil {
		ch.Clear = append(ch.Clear, LimitBudgetPercent)
	}
	if b.MaxPositionValueMicro == nil {
		ch.Clear = append(ch.Clear, LimitMaxPositionValue)
	}
	return s.UpdateBudget(ctx, userID, idOrName, clientAddr, ch)
}

// Heartbeat interval bounds: ten seconds (a strategy is evaluated about
// that often, so polling faster shows nothing new) to one day (an agent
// should hear of fills and expiring positions at least daily).
const (
	MinHeartbeatIntervalMs = int64(10_000)
	MaxHeartbeatIntervalMs = int64(24 * 3600 * 1000)
)

// SetHeartbeat sets the heartbeat interval (10 seconds to 1 day) and the
// optional active hours ("HH:MM" start and end in an IANA time zone; nil =
// always active).
func (s *Service) SetHeartbeat(ctx context.Context, userID, idOrName, clientAddr string, h Heartbeat) (Agent, error) {
	if h.IntervalMs < MinHeartbeatIntervalMs || h.IntervalMs > MaxHeartbeatIntervalMs {
		return Agent{}, errs.E(errs.Invalid, "interval_ms must be between 10000 (10 seconds) and 86400000 (1 day)").WithCode(errs.CodeInvalidHeartbeat)
	}
	set := store.AgentSettings{HeartbeatIntervalMs: h.IntervalMs}
	detail := map[string]any{"interval_ms": h.IntervalMs}
	if ah := h.ActiveHours; ah != nil {
		if !validHHMM(ah.Start) || !validHHMM(ah.End) || ah.Start == ah.End {
			return Agent{}, errs.E(errs.Invalid, "active hours need distinct start and end times as HH:MM").WithCode(errs.CodeInvalidHeartbeat)
		}
		if _, err := time.LoadLocation(ah.Timezone); err != nil || ah.Timezone == "" || ah.Timezone == "Local" {
			return Agent{}, errs.E(errs.Invalid, "active hours need an IANA time zone such as Europe/Paris").WithCode(errs.CodeInvalidHeartbeat)
		}
		start, end, tz := ah.Start, ah.End, ah.Timezone
		set.ActiveHoursStart, set.ActiveHoursEnd, set.ActiveHoursTimezone = &start, &end, &tz
		detail["active_hours"] = map[string]any{"start": start, "end": end, "timezone": tz}
	}
	return s.update(ctx, userID, idOrName, clientAddr, "heartbeat", func(tx *store.Store, id string) error {
		return tx.UpdateAgentHeartbeat(ctx, userID, id, set)
	}, detail)
}

// Per-key rate limit bounds (requests per minute). The default is
// models.DefaultRateLimitPerMinute (100, the spec's); the ceiling keeps one
// key from being configured into a budget the venue and the database could
// not sustain.
const (
	MinRateLimitPerMinute = 1
	MaxRateLimitPerMinute = 10_000
)

// SetRateLimit sets how many requests per minute the agent's key may make
// (1 to 10000). It applies from the key's next request: the key middleware
// reads the limit with the key on every request.
func (s *Service) SetRateLimit(ctx context.Context, userID, idOrName, clientAddr string, perMinute int) (Agent, error) {
	if perMinute < MinRateLimitPerMinute || perMinute > MaxRateLimitPerMinute {
		return Agent{}, errs.Ef(errs.Invalid, "the rate limit must be between %d and %d requests per minute",
			MinRateLimitPerMinute, MaxRateLimitPerMinute).WithCode(errs.CodeInvalidRateLimit)
	}
	return s.change(ctx, userID, idOrName, clientAddr, audit.ActionAgentUpdate, func(tx *store.Store, a *models.Agent) (map[string]any, error) {
		detail := map[string]any{"setting": "rate_limit", "from_per_minute": a.RateLimitPerMinute, "per_minute": perMinute}
		return detail, tx.UpdateAgentRateLimit(ctx, userID, a.ID, perMinute)
	})
}

func validHHMM(v string) bool {
	t, err := time.Parse("15:04", v)
	return err == nil && t.Format("15:04") == v
}

func (s *Service) update(ctx context.Context, userID, idOrName, clientAddr, what string, apply func(*store.Store, string) error, detail map[string]any) (Agent, error) {
	detail["setting"] = what
	return s.change(ctx, userID, idOrName, clientAddr, audit.ActionAgentUpdate, func(tx *store.Store, a *models.Agent) (map[string]any, error) {
		return detail, apply(tx, a.ID)
	})
}

// change resolves the agent, applies one management change and audits it
// in the same transaction, and returns the agent as stored afterwards.
func (s *Service) change(ctx context.Context, userID, idOrName, clientAddr, action string, apply func(*store.Store, *models.Agent) (map[string]any, error)) (Agent, error) {
	return s.changeWith(ctx, userID, idOrName, clientAddr, action, s.Store.Tx, apply)
}

// changeWith is change in the transaction tx opens.
func (s *Service) changeWith(ctx context.Context, userID, idOrName, clientAddr, action string, tx func(context.Context, func(*store.Store) error) error,
	apply func(*store.Store, *models.Agent) (map[string]any, error)) (Agent, error) {
	a, err := s.Resolve(ctx, userID, idOrName)
	if err != nil {
		return Agent{}, err
	}
	var out *models.Agent
	err = tx(ctx, func(tx *store.Store) error {
		detail, err := apply(tx, a)
		if err != nil {
			return err
		}
		if err := audit.Append(ctx, tx, audit.Entry{
			UserID: userID, AgentID: a.ID, Action: action, Target: a.ID, Result: audit.Success,
			ClientAddr: clientAddr, Detail: detail,
		}); err != nil {
			return err
		}
		out, err = tx.AgentByID(ctx, a.ID)
		return err
	})
	if err != nil {
		return Agent{}, err
	}
	return toDTO(out), nil
}
