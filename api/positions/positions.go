// Package positions serves the agent API's position endpoints under
// /api/agent/v1: GET /positions (scope read) and POST /positions/{id}/close
// (scope trade, behind the Idempotency-Key middleware). Handlers are thin:
// they call models/positions and encode explicit DTOs whose numbers are
// JSON numbers, as the spec says. docs/agent-api-positions.md documents
// the endpoints.
package positions

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/agentauth"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/positions"
)

// HeaderIdempotencyKey is the header whose value a close passes on as the
// order's idempotency key (the same header the idempotency middleware
// reads), so a retried close cannot sell twice even past the middleware.
const HeaderIdempotencyKey = "Idempotency-Key"

// Closer closes a position through the order desk; *workflows.PositionDesk
// implements it.
type Closer interface {
	Close(ctx context.Context, p orders.Principal, positionID string, r positions.CloseRequest) (positions.CloseResult, error)
}

// Deps are the services behind the endpoints.
type Deps struct {
	Positions *positions.Service
	Closer    Closer
}

// Market is the "market" member of a position.
type Market struct {
	Question string `json:"question"`
	Outcome  string `json:"outcome"`
}

// PnL is the "pnl" member of a position.
type PnL struct {
	Unrealized        json.Number `json:"unrealized"`
	UnrealizedPercent json.Number `json:"unrealizedPercent"`
}

// Position is one item of data.positions. Status (open, redeemable,
// settled, closed) is an addition to the spec's fields, so a listing of
// status=all can be told apart.
type Position struct {
	ID      string `json:"id"`
	TokenID string `json:"tokenId"`
	Status  string `json:"status"`
	// Mode is the agent's (paper or live): an agent lists only its own
	// positions, and its mode never changes, so every position it holds
	// is of its mode.
	Mode          string      `json:"mode"`
	Market        Market      `json:"market"`
	Size          json.Number `json:"size"`
	AvgEntryPrice json.Number `json:"avgEntryPrice"`
	CurrentPrice  json.Number `json:"currentPrice"`
	CurrentValue  json.Number `json:"currentValue"`
	PnL           PnL         `json:"pnl"`
}

// Summary is data.summary of GET /positions.
type Summary struct {
	TotalPositions     int         `json:"totalPositions"`
	TotalUnrealizedPnl json.Number `json:"totalUnrealizedPnl"`
	TotalValue         json.Number `json:"totalValue"`
}

// List is the body of GET /positions.
type List struct {
	Positions []Position `json:"positions"`
	Summary   Summary    `json:"summary"`
}

// CloseRequest is the optional body of POST /positions/{id}/close.
type CloseRequest struct {
	// Type is MARKET (default), FOK or LIMIT.
	Type string `json:"type"`
	// Slippage (0–1, default 0.02) applies to LIMIT closes.
	Slippage *decimal.Decimal `json:"slippage"`
	DryRun   bool             `json:"dryRun"`
}

// CloseOrder is data.order of a close.
type CloseOrder struct {
	ID           string      `json:"id"`
	Status       string      `json:"status"`
	Side         string      `json:"side"`
	FilledSize   json.Number `json:"filledSize"`
	AvgFillPrice json.Number `json:"avgFillPrice"`
}

// ClosePosition is data.position of a close.
type ClosePosition struct {
	ID       string `json:"id"`
	IsClosed bool   `json:"isClosed"`
}

// Execution is data.execution of a close.
type Execution struct {
	Proceeds   json.Number `json:"proceeds"`
	Pnl        json.Number `json:"pnl"`
	PnlPercent json.Number `json:"pnlPercent"`
}

// Preview is data.preview of a dry-run close: the sell that would be
// placed and the least it would receive (size × price).
type Preview struct {
	TokenID        string      `json:"tokenId"`
	Side           string      `json:"side"`
	Type           string      `json:"type"`
	Price          json.Number `json:"price"`
	Size           json.Number `json:"size"`
	MarketQuestion string      `json:"marketQuestion"`
	Outcome        string      `json:"outcome"`
	Proceeds       json.Number `json:"proceeds"`
	TickSize       string      `json:"tickSize"`
	MinSize        json.Number `json:"minSize"`
	NegRisk        bool        `json:"negRisk"`
}

// Close is the data of POST /positions/{id}/close: order, position and
// execution when placed; dryRun, position and preview for a dry run.
type Close struct {
	DryRun    bool          `json:"dryRun,omitempty"`
	Order     *CloseOrder   `json:"order,omitempty"`
	Position  ClosePosition `json:"position"`
	Execution *Execution    `json:"execution,omitempty"`
	Preview   *Preview      `json:"preview,omitempty"`
}

// Routes mounts the endpoints on /api/agent/v1 behind auth (the lead passes
// agentauth.Middleware and ratelimit.PerKey). idem is the Idempotency-Key
// middleware of the close (nil mounts none, for tests).
func Routes(d Deps, idem gin.HandlerFunc, auth ...gin.HandlerFunc) api.Routes {
	return func(s *api.Server) {
		g := s.Group("/api/agent/v1", auth...)
		g.GET("/positions", agentauth.Require("read"), d.list)
		closeChain := []gin.HandlerFunc{agentauth.Require("trade")}
		if idem != nil {
			closeChain = append(closeChain, idem)
		}
		g.POST("/positions/:id/close", append(closeChain, d.close)...)
	}
}

func (d Deps) list(c *gin.Context) {
	id, ok := agentauth.Need(c)
	if !ok {
		return
	}
	fresh := false
	switch src := strings.ToLower(strings.TrimSpace(c.Query("source"))); src {
	case "":
	case "clob":
		fresh = true
	default:
		api.Fail(c, errs.E(errs.Invalid, `query parameter "source" must be clob`).WithCode(errs.CodeInvalidQuery))
		return
	}
	l, err := d.Positions.List(c.Request.Context(), id.AgentID, c.Query("status"), fresh)
	if err != nil {
		api.Fail(c, err)
		return
	}
	out := List{Positions: make([]Position, 0, len(l.Positions)), Summary: Summary{
		TotalPositions:     l.Summary.TotalPositions,
		TotalUnrealizedPnl: num(l.Summary.TotalUnrealizedPnl),
		TotalValue:         num(l.Summary.TotalValue),
	}}
	for _, p := range l.Positions {
		out.Positions = append(out.Positions, Position{
			ID: p.ID, TokenID: p.TokenID, Status: p.Status, Mode: id.AgentMode,
			Market:        Market{Question: p.Question, Outcome: p.Outcome},
			Size:          num(p.Size),
			AvgEntryPrice: num(p.AvgEntryPrice),
			CurrentPrice:  num(p.CurrentPrice),
			CurrentValue:  num(p.CurrentValue),
			PnL:           PnL{Unrealized: num(p.Unrealized), UnrealizedPercent: num(p.UnrealizedPercent)},
		})
	}
	api.OK(c, out)
}

func (d Deps) close(c *gin.Context) {
	id, ok := agentauth.Need(c)
	if !ok {
		return
	}
	var body CloseRequest
	present, err := hasBody(c.Request)
	if err != nil {
		api.Fail(c, err)
		return
	}
	if present && !api.BindJSON(c, &body) {
		return
	}
	if d.Closer == nil {
		api.Fail(c, errs.E(errs.Internal, "closing positions is not configured in this process"))
		return
	}
	res, err := d.Closer.Close(c.Request.Context(), orders.Principal{AgentID: id.AgentID, UserID: id.UserID, ClientAddr: c.ClientIP()},
		c.Param("id"), positions.CloseRequest{
			Type: body.Type, Slippage: body.Slippage, DryRun: body.DryRun,
			IdempotencyKey: strings.TrimSpace(c.GetHeader(HeaderIdempotencyKey)),
		})
	if err != nil {
		api.Fail(c, err)
		return
	}
	if res.Preview != nil {
		pv := res.Preview
		api.OKMessage(c, "Dry run: nothing was placed", Close{
			DryRun:   true,
			Position: ClosePosition{ID: res.PositionID, IsClosed: res.IsClosed},
			Preview: &Preview{
				TokenID: pv.TokenID, Side: pv.Side, Type: pv.Type, Price: num(pv.Price), Size: num(pv.Size),
				MarketQuestion: pv.MarketQuestion, Outcome: pv.Outcome, Proceeds: num(pv.Proceeds),
				TickSize: pv.TickSize, MinSize: num(pv.MinSize), NegRisk: pv.NegRisk,
			},
		})
		return
	}
	o := res.Order
	// 202 while the sell is still being placed, as POST /orders answers:
	// the Idempotency-Key layer keeps only final answers, so a retry then
	// reports the order as it stands instead of a stale PENDING.
	status := http.StatusOK
	if res.Pending {
		status = http.StatusAccepted
	}
	api.OKWith(c, status, Close{
		Order:    &CloseOrder{ID: o.ID, Status: o.Status, Side: o.Side, FilledSize: num(o.FilledSize), AvgFillPrice: num(o.AvgFillPrice)},
		Position: ClosePosition{ID: res.PositionID, IsClosed: res.IsClosed},
		Execution: &Execution{
			Proceeds: num(res.Execution.Proceeds), Pnl: num(res.Execution.Pnl), PnlPercent: num(res.Execution.PnlPercent),
		},
	}, map[string]any{"message": closeMessage(res)})
}

// closeMessage tells the agent in words what the close did.
func closeMessage(r positions.CloseResult) string {
	switch {
	case r.IsClosed:
		return "Position closed"
	case r.Pending:
		return "Close order submitted; its result is pending: poll GET /orders/" + r.Order.ID
	case r.Order.FilledSize.IsPositive():
		return fmt.Sprintf("Position partially closed: %s shares sold; the order is %s", r.Order.FilledSize, r.Order.Status)
	default:
		return fmt.Sprintf("Close order placed but nothing sold yet; the order is %s", r.Order.Status)
	}
}

// hasBody reports whether the request carries a non-blank body: the close
// body is optional and an empty POST (also a chunked one) takes the
// defaults. The body is read (it is size-limited by the server) and put
// back for BindJSON.
func hasBody(r *http.Request) (bool, error) {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return false, nil
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return false, err // an over-limit body is answered 413 by api.Fail
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	return len(bytes.TrimSpace(raw)) > 0, nil
}

// num renders a decimal as an exact JSON number (no float rounding).
func num(d decimal.Decimal) json.Number { return json.Number(d.String()) }
