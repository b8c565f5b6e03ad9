// Package orders serves the agent API's order endpoints under
// /api/agent/v1: POST /orders (scope trade), GET /orders and
// GET /orders/{id} (scope read), DELETE /orders/{id} (scope cancel).
// Handlers decode, read orders through models/orders.Service, place and
// cancel them through their workflows (workflows.OrderDesk), and encode
// explicit DTOs whose prices and sizes are JSON numbers, as the spec shows
// them.
// docs/agent-api-orders.md documents the endpoints.
package orders

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/agentauth"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
)

// Reader reads an agent's orders; *orders.Service implements it.
type Reader interface {
	Get(ctx context.Context, agentID, id string) (orders.Order, error)
	List(ctx context.Context, agentID string, r orders.ListRequest) (orders.ListResult, error)
}

// OrderDesk places and cancels orders through their workflows;
// *workflows.OrderDesk implements it.
type OrderDesk interface {
	orders.Placer
	Cancel(ctx context.Context, p orders.Principal, id string) (orders.Order, error)
}

// PlaceBody is the body of POST /orders.
type PlaceBody struct {
	TokenID string           `json:"tokenId"`
	Side    string           `json:"side"`
	Price   *decimal.Decimal `json:"price"`
	Size    *decimal.Decimal `json:"size"`
	Type    string           `json:"type"`
	DryRun  bool             `json:"dryRun"`
}

// Validate checks presence; the service checks values.
func (b *PlaceBody) Validate() error {
	switch {
	case b.TokenID == "":
		return errs.E(errs.Invalid, "tokenId is required").WithCode(errs.CodeInvalidTokenID)
	case b.Side == "":
		return errs.E(errs.Invalid, "side is required (BUY or SELL)").WithCode(errs.CodeInvalidSide)
	case b.Price == nil:
		return errs.E(errs.Invalid, "price is required (0.01 to 0.99)").WithCode(errs.CodeInvalidPrice)
	case b.Size == nil:
		return errs.E(errs.Invalid, "size is required (number of shares)").WithCode(errs.CodeInvalidSize)
	}
	return nil
}

// Order is the spec's Order resource.
type Order struct {
	ID             string      `json:"id"`
	PolyOrderID    string      `json:"polyOrderId"`
	Status         string      `json:"status"`
	Mode           string      `json:"mode"`
	Side           string      `json:"side"`
	Type           string      `json:"type"`
	TokenID        string      `json:"tokenId"`
	Price          json.Number `json:"price"`
	Size           json.Number `json:"size"`
	FilledSize     json.Number `json:"filledSize"`
	AvgFillPrice   json.Number `json:"avgFillPrice"`
	MarketQuestion string      `json:"marketQuestion"`
	Outcome        string      `json:"outcome"`
	FailureReason  string      `json:"failureReason,omitempty"`
	CreatedAt      time.Time   `json:"createdAt"`
	UpdatedAt      time.Time   `json:"updatedAt"`
	FilledAt       *time.Time  `json:"filledAt,omitempty"`
}

// OrderDTO renders a service order (shared with the positions API).
func OrderDTO(o orders.Order) Order {
	o.Mode = models.ModeOrLive(o.Mode) // an order read before modes were
	return Order{
		ID: o.ID, PolyOrderID: o.PolyOrderID, Status: o.Status, Mode: o.Mode, Side: o.Side, Type: o.Type, TokenID: o.TokenID,
		Price: Num(o.Price), Size: Num(o.Size), FilledSize: Num(o.FilledSize), AvgFillPrice: Num(o.AvgFillPrice),
		MarketQuestion: o.MarketQuestion, Outcome: o.Outcome, FailureReason: o.FailureReason,
		CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt, FilledAt: o.FilledAt,
	}
}

// Preview is the body of a dry run's data.preview.
type Preview struct {
	TokenID         string      `json:"tokenId"`
	Side            string      `json:"side"`
	Type            string      `json:"type"`
	Price           json.Number `json:"price"`
	Size            json.Number `json:"size"`
	MarketQuestion  string      `json:"marketQuestion"`
	Outcome         string      `json:"outcome"`
	Cost            json.Number `json:"cost"`
	Proceeds        json.Number `json:"proceeds"`
	BudgetAvailable json.Number `json:"budgetAvailable"`
	TickSize        string      `json:"tickSize"`
	MinSize         json.Number `json:"minSize"`
	NegRisk         bool        `json:"negRisk"`
}

// PreviewDTO renders a dry run's preview (shared with the positions API).
func PreviewDTO(p *orders.Preview) Preview {
	return Preview{
		TokenID: p.TokenID, Side: p.Side, Type: p.Type, Price: Num(p.Price), Size: Num(p.Size),
		MarketQuestion: p.MarketQuestion, Outcome: p.Outcome, Cost: Num(p.Cost), Proceeds: Num(p.Proceeds),
		BudgetAvailable: Num(p.BudgetAvailable), TickSize: p.TickSize, MinSize: Num(p.MinSize), NegRisk: p.NegRisk,
	}
}

// Cancelled is data.order of DELETE /orders/{id}.
type Cancelled struct {
	ID             string `json:"id"`
	Status         string `json:"status"`
	PreviousStatus string `json:"previousStatus"`
}

// Sync is the top-level "sync" member of GET /orders.
type Sync struct {
	Enabled bool `json:"enabled"`
	Updated int  `json:"updated"`
}

// Routes mounts the order endpoints on /api/agent/v1 behind auth; idem
// (the Idempotency-Key middleware, may be nil) runs on POST /orders after
// the scope check.
func Routes(read Reader, desk OrderDesk, idem gin.HandlerFunc, auth ...gin.HandlerFunc) api.Routes {
	h := handlers{read: read, desk: desk}
	return func(s *api.Server) {
		g := s.Group("/api/agent/v1", auth...)
		post := []gin.HandlerFunc{agentauth.Require("trade")}
		if idem != nil {
			post = append(post, idem)
		}
		g.POST("/orders", append(post, h.place)...)
		g.GET("/orders", agentauth.Require("read"), h.list)
		g.GET("/orders/:id", agentauth.Require("read"), h.get)
		g.DELETE("/orders/:id", agentauth.Require("cancel"), h.cancel)
	}
}

type handlers struct {
	read Reader
	desk OrderDesk
}

func principal(c *gin.Context, id agentauth.Identity) orders.Principal {
	return orders.Principal{AgentID: id.AgentID, UserID: id.UserID, ClientAddr: c.ClientIP(), Mode: id.AgentMode}
}

func (h handlers) place(c *gin.Context) {
	id, ok := agentauth.Need(c)
	if !ok {
		return
	}
	var b PlaceBody
	if !api.BindJSON(c, &b) {
		return
	}
	res, err := h.desk.Place(c.Request.Context(), principal(c, id), orders.PlaceRequest{
		TokenID: b.TokenID, Side: b.Side, Type: b.Type, Price: *b.Price, Size: *b.Size, DryRun: b.DryRun,
		IdempotencyKey: c.GetHeader("Idempotency-Key"),
	})
	if err != nil {
		api.Fail(c, err)
		return
	}
	if res.Preview != nil {
		api.OKMessage(c, "dry run: every check passed; nothing was reserved or placed",
			gin.H{"dryRun": true, "preview": PreviewDTO(res.Preview)})
		return
	}
	if res.Pending {
		api.OKWith(c, http.StatusAccepted, gin.H{"order": OrderDTO(res.Order)},
			map[string]any{"message": "the order is recorded and being placed; poll GET /orders/" + res.Order.ID})
		return
	}
	api.OK(c, gin.H{"order": OrderDTO(res.Order)})
}

func (h handlers) list(c *gin.Context) {
	id, ok := agentauth.Need(c)
	if !ok {
		return
	}
	limit, err := api.QueryInt(c, "limit", 50, 1, 100)
	if err != nil {
		api.Fail(c, err)
		return
	}
	offset, err := api.QueryInt(c, "offset", 0, 0, 1_000_000)
	if err != nil {
		api.Fail(c, err)
		return
	}
	sync, err := api.QueryBool(c, "sync", true)
	if err != nil {
		api.Fail(c, err)
		return
	}
	res, err := h.read.List(c.Request.Context(), id.AgentID, orders.ListRequest{Status: c.Query("status"), Limit: limit, Offset: offset, Sync: sync})
	if err != nil {
		api.Fail(c, err)
		return
	}
	out := make([]Order, len(res.Orders))
	for i, o := range res.Orders {
		out[i] = OrderDTO(o)
	}
	api.OKWith(c, http.StatusOK, out, map[string]any{"sync": Sync{Enabled: res.Synced, Updated: res.Updated}})
}

func (h handlers) get(c *gin.Context) {
	id, ok := agentauth.Need(c)
	if !ok {
		return
	}
	o, err := h.read.Get(c.Request.Context(), id.AgentID, c.Param("id"))
	if err != nil {
		api.Fail(c, err)
		return
	}
	api.OK(c, gin.H{"order": OrderDTO(o)})
}

func (h handlers) cancel(c *gin.Context) {
	id, ok := agentauth.Need(c)
	if !ok {
		return
	}
	o, err := h.desk.Cancel(c.Request.Context(), principal(c, id), c.Param("id"))
	if err != nil {
		api.Fail(c, err)
		return
	}
	api.OKMessage(c, "order cancelled", gin.H{"order": Cancelled{ID: o.ID, Status: o.Status, PreviousStatus: o.PreviousStatus}})
}

// Num renders a decimal as an exact JSON number.
func Num(d decimal.Decimal) json.Number { return json.Number(d.String()) }
