// Package strategies is the HTTP API of server-side strategies:
// POST/GET /strategies, GET/PATCH/DELETE /strategies/{id},
// POST /strategies/{id}/pause and /resume. Handlers decode, call
// workflows.StrategyDesk for the authenticated agent, and answer DTOs.
package strategies

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/agentauth"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/strategies"
)

// Service is what the handlers need; *workflows.StrategyDesk implements it.
type Service interface {
	Create(ctx context.Context, a strategies.Actor, r strategies.CreateRequest) (strategies.Strategy, error)
	Get(ctx context.Context, a strategies.Actor, id string) (strategies.Strategy, error)
	List(ctx context.Context, a strategies.Actor, f strategies.ListFilter) ([]strategies.Strategy, error)
	Patch(ctx context.Context, a strategies.Actor, id string, r strategies.PatchRequest) (strategies.Strategy, error)
	Pause(ctx context.Context, a strategies.Actor, id string) (strategies.Strategy, error)
	Resume(ctx context.Context, a strategies.Actor, id string) (strategies.Strategy, error)
	Cancel(ctx context.Context, a strategies.Actor, id string) (strategies.Strategy, error)
}

// CreateBody is the body of POST /strategies.
type CreateBody struct {
	Type      string          `json:"type"`
	Config    json.RawMessage `json:"config"`
	MaxBudget *strategies.Dec `json:"maxBudget"`
}

// Validate implements api.Validator.
func (b *CreateBody) Validate() error {
	if b.Type == "" {
		return errs.E(errs.Invalid, "type is required").WithCode(errs.CodeInvalidStrategyType)
	}
	return nil
}

// PatchBody is the body of PATCH /strategies/{id}: any of config (a merge
// patch of the stored config), maxBudget and expiresAt (extends the
// expiry). type may be sent but never changes.
type PatchBody struct {
	Type      string          `json:"type"`
	Config    json.RawMessage `json:"config"`
	MaxBudget *strategies.Dec `json:"maxBudget"`
	ExpiresAt *time.Time      `json:"expiresAt"`
}

// Strategy is a strategy as the API shows it.
type Strategy struct {
	ID                string          `json:"id"`
	Type              string          `json:"type"`
	Status            string          `json:"status"`
	Mode              string          `json:"mode"`
	Config            json.RawMessage `json:"config"`
	MaxBudget         json.Number     `json:"maxBudget"`
	BudgetUsed        json.Number     `json:"budgetUsed"`
	BudgetRemaining   json.Number     `json:"budgetRemaining"`
	TokenID           string          `json:"tokenId"`
	Market            *Market         `json:"market"`
	OpenSize          json.Number     `json:"openSize"`
	CreatedBy         string          `json:"createdBy"`
	CreatedAt         time.Time       `json:"createdAt"`
	UpdatedAt         time.Time       `json:"updatedAt"`
	ExpiresAt         *time.Time      `json:"expiresAt"`
	PausedBy          *string         `json:"pausedBy"`
	EndedReason       *string         `json:"endedReason"`
	LastError         *string         `json:"lastError"`
	ConsecutiveErrors int             `json:"consecutiveErrors"`
	ExecutionCount    int             `json:"executionCount"`
	LastEvaluatedAt   *time.Time      `json:"lastEvaluatedAt"`
	NextEvaluationAt  *time.Time      `json:"nextEvaluationAt"`
	// Executions is set on one strategy (never in a list): [] when none.
	Executions *[]Execution `json:"executions,omitempty"`
}

// Execution is an entry of a strategy's execution log.
type Execution struct {
	ID          string      `json:"id"`
	Seq         int         `json:"seq"`
	Time        time.Time   `json:"time"`
	Kind        string      `json:"kind"`
	Action      string      `json:"action"`
	Reason      string      `json:"reason"`
	OrderID     *string     `json:"orderId"`
	OrderStatus *string     `json:"orderStatus"`
	TokenID     *string     `json:"tokenId"`
	Side        *string     `json:"side"`
	Price       json.Number `json:"price,omitempty"`
	Size        json.Number `json:"size,omitempty"`
	Amount      json.Number `json:"amount"`
	// FilledSize and AvgFillPrice: what the order filled (with an order).
	FilledSize   json.Number `json:"filledSize,omitempty"`
	AvgFillPrice json.Number `json:"avgFillPrice,omitempty"`
	Market       *Market     `json:"market"`
}

// Market names the market a strategy or an execution trades, as the
// venue does.
type Market struct {
	Question string     `json:"question"`
	Outcome  string     `json:"outcome"`
	Slug     string     `json:"slug"`
	EndDate  *time.Time `json:"endDate"`
}

func marketDTO(m *strategies.Market) *Market {
	if m == nil {
		return nil
	}
	return &Market{Question: m.Question, Outcome: m.Outcome, Slug: m.Slug, EndDate: utc(m.EndDate)}
}

func num(d decimal.Decimal) json.Number { return json.Number(d.String()) }

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// DTO renders a strategy (executions included when loaded).
func DTO(s strategies.Strategy) Strategy {
	out := Strategy{
		ID: s.ID, Type: s.Type, Status: s.Status, Mode: models.ModeOrLive(s.Mode), Config: s.Config, MaxBudget: num(s.MaxBudget), BudgetUsed: num(s.BudgetUsed),
		BudgetRemaining: num(decimal.Max(decimal.Zero, s.MaxBudget.Sub(s.BudgetUsed))), TokenID: s.TokenID, OpenSize: num(s.OpenSize),
		CreatedBy: s.CreatedBy, CreatedAt: s.CreatedAt.UTC(), UpdatedAt: s.UpdatedAt.UTC(), ExpiresAt: utc(s.ExpiresAt),
		PausedBy: opt(s.PausedBy), EndedReason: opt(s.EndedReason), LastError: opt(s.LastError),
		ConsecutiveErrors: s.ConsecutiveErrors, ExecutionCount: s.ExecutionCount,
		LastEvaluatedAt: utc(s.LastEvaluatedAt), NextEvaluationAt: utc(s.NextEvaluationAt), Market: marketDTO(s.Market),
	}
	if s.Executions != nil {
		ex := make([]Execution, len(s.Executions))
		out.Executions = &ex
		for i, e := range s.Executions {
			x := Execution{ID: e.ID, Seq: e.Seq, Time: e.Time.UTC(), Kind: e.Kind, Action: e.Action, Reason: e.Reason,
				OrderID: opt(e.OrderID), OrderStatus: opt(e.OrderStatus), TokenID: opt(e.TokenID), Side: opt(e.Side), Amount: num(e.Amount),
				Market: marketDTO(e.Market)}
			if e.OrderID != "" {
				x.Price, x.Size = num(e.Price), num(e.Size)
				x.FilledSize, x.AvgFillPrice = num(e.FilledSize), num(e.AvgFillPrice)
			}
			ex[i] = x
		}
	}
	return out
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// Routes mounts the strategy endpoints on /api/agent/v1 behind auth:
// scope read for the GETs, trade for the rest. idem (the Idempotency-Key
// middleware, may be nil) runs on POST /strategies.
func Routes(svc Service, idem gin.HandlerFunc, auth ...gin.HandlerFunc) api.Routes {
	h := handlers{svc: svc}
	return func(s *api.Server) {
		g := s.Group("/api/agent/v1", auth...)
		trade := agentauth.Require("trade")
		post := []gin.HandlerFunc{trade}
		if idem != nil {
			post = append(post, idem)
		}
		g.POST("/strategies", append(post, h.create)...)
		g.GET("/strategies", agentauth.Require("read"), h.list)
		g.GET("/strategies/:id", agentauth.Require("read"), h.get)
		g.PATCH("/strategies/:id", trade, h.patch)
		g.POST("/strategies/:id/pause", trade, h.pause)
		g.POST("/strategies/:id/resume", trade, h.resume)
		g.DELETE("/strategies/:id", trade, h.cancel)
	}
}

type handlers struct{ svc Service }

func actor(c *gin.Context, id agentauth.Identity) strategies.Actor {
	return strategies.Actor{By: strategies.ByAgent, AgentID: id.AgentID, UserID: id.UserID, ClientAddr: c.ClientIP()}
}

func (h handlers) create(c *gin.Context) {
	id, ok := agentauth.Need(c)
	if !ok {
		return
	}
	var b CreateBody
	if !api.BindJSON(c, &b) {
		return
	}
	st, err := h.svc.Create(c.Request.Context(), actor(c, id), strategies.CreateRequest{Type: b.Type, Config: b.Config, MaxBudget: b.MaxBudget})
	if err != nil {
		api.Fail(c, err)
		return
	}
	api.OK(c, gin.H{"strategy": DTO(st)})
}

var (
	statuses = []string{strategies.StatusActive, strategies.StatusPaused, strategies.StatusError, strategies.StatusCompleted, strategies.StatusCancelled}
	types    = strategies.Types
)

func (h handlers) list(c *gin.Context) {
	id, ok := agentauth.Need(c)
	if !ok {
		return
	}
	f := strategies.ListFilter{Status: c.Query("status"), Type: c.Query("type")}
	if f.Status != "" && !slices.Contains(statuses, f.Status) {
		api.Fail(c, errs.E(errs.Invalid, "query parameter \"status\" must be ACTIVE, PAUSED, ERROR, COMPLETED or CANCELLED").WithCode(errs.CodeInvalidQuery))
		return
	}
	if f.Type != "" && !slices.Contains(types, f.Type) {
		api.Fail(c, errs.E(errs.Invalid, "query parameter \"type\" must be PRICE_ALERT, RECURRING_BUY, BUY_LOW_SELL_HIGH or COPY_TRADE").WithCode(errs.CodeInvalidQuery))
		return
	}
	list, err := h.svc.List(c.Request.Context(), actor(c, id), f)
	if err != nil {
		api.Fail(c, err)
		return
	}
	out := make([]Strategy, len(list))
	for i, s := range list {
		out[i] = DTO(s)
	}
	api.OK(c, out)
}

func (h handlers) get(c *gin.Context) {
	h.one(c, "", func(c *gin.Context, a strategies.Actor) (strategies.Strategy, error) {
		return h.svc.Get(c.Request.Context(), a, c.Param("id"))
	})
}

func (h handlers) patch(c *gin.Context) {
	var b PatchBody
	h.one(c, "strategy updated", func(c *gin.Context, a strategies.Actor) (strategies.Strategy, error) {
		if !api.BindJSON(c, &b) {
			return strategies.Strategy{}, errBound
		}
		return h.svc.Patch(c.Request.Context(), a, c.Param("id"), strategies.PatchRequest{Type: b.Type, Config: b.Config, MaxBudget: b.MaxBudget, ExpiresAt: b.ExpiresAt})
	})
}

func (h handlers) pause(c *gin.Context) {
	h.one(c, "strategy paused", func(c *gin.Context, a strategies.Actor) (strategies.Strategy, error) {
		return h.svc.Pause(c.Request.Context(), a, c.Param("id"))
	})
}

func (h handlers) resume(c *gin.Context) {
	h.one(c, "strategy resumed", func(c *gin.Context, a strategies.Actor) (strategies.Strategy, error) {
		return h.svc.Resume(c.Request.Context(), a, c.Param("id"))
	})
}

func (h handlers) cancel(c *gin.Context) {
	h.one(c, "strategy cancelled", func(c *gin.Context, a strategies.Actor) (strategies.Strategy, error) {
		return h.svc.Cancel(c.Request.Context(), a, c.Param("id"))
	})
}

// errBound marks a request BindJSON already answered.
var errBound = errs.E(errs.Invalid, "answered")

func (h handlers) one(c *gin.Context, message string, fn func(*gin.Context, strategies.Actor) (strategies.Strategy, error)) {
	id, ok := agentauth.Need(c)
	if !ok {
		return
	}
	st, err := fn(c, actor(c, id))
	if err == errBound {
		return
	}
	if err != nil {
		api.Fail(c, err)
		return
	}
	if message == "" {
		api.OK(c, gin.H{"strategy": DTO(st)})
		return
	}
	api.OKMessage(c, message, gin.H{"strategy": DTO(st)})
}
