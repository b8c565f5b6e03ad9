package strategies

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/agentauth"
	"github.com/agent-trading/ats/models/backtesting"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/strategies"
)

// Backtester runs backtests; *backtesting.Service implements it.
type Backtester interface {
	Run(ctx context.Context, r backtesting.Request) (*backtesting.Result, error)
}

// BacktestBody is the body of POST /strategies/backtest: a create's body
// plus the window and the starting balance.
type BacktestBody struct {
	Type            string          `json:"type"`
	Config          json.RawMessage `json:"config"`
	MaxBudget       *strategies.Dec `json:"maxBudget"`
	From            *time.Time      `json:"from"`
	To              *time.Time      `json:"to"`
	StartingBalance *strategies.Dec `json:"startingBalance"`
}

// Validate implements api.Validator.
func (b *BacktestBody) Validate() error {
	if b.Type == "" {
		return errs.E(errs.Invalid, "type is required").WithCode(errs.CodeInvalidStrategyType)
	}
	if b.From == nil || b.To == nil {
		return errs.E(errs.Invalid, "from and to are required (RFC 3339 times)").WithCode(errs.CodeInvalidBacktestWindow)
	}
	if b.StartingBalance == nil {
		return errs.E(errs.Invalid, "startingBalance is required").WithCode(errs.CodeInvalidBacktestWindow)
	}
	return nil
}

// Backtest is a backtest's answer.
type Backtest struct {
	Type    string    `json:"type"`
	TokenID *string   `json:"tokenId"`
	Market  *Market   `json:"market"`
	From    time.Time `json:"from"`
	To      time.Time `json:"to"`
	// ResolutionSeconds is the typical interval between the price points
	// replayed; Points how many there were (COPY_TRADE: the target's
	// fills).
	ResolutionSeconds int64                  `json:"resolutionSeconds"`
	Points            int                    `json:"points"`
	Status            string                 `json:"status"`
	EndedReason       *string                `json:"endedReason"`
	Executions        []Execution            `json:"executions"`
	StartingBalance   json.Number            `json:"startingBalance"`
	FinalBalance      json.Number            `json:"finalBalance"`
	Positions         []BtPosition           `json:"positions"`
	RealizedPnl       json.Number            `json:"realizedPnl"`
	UnrealizedPnl     json.Number            `json:"unrealizedPnl"`
	MaxDrawdown       json.Number            `json:"maxDrawdown"`
	MaxDrawdownPct    json.Number            `json:"maxDrawdownPct"`
	TradeCount        int                    `json:"tradeCount"`
	BudgetUsed        json.Number            `json:"budgetUsed"`
	Prices            []PricePoint           `json:"prices"`
	Thresholds        map[string]json.Number `json:"thresholds"`
	Warnings          []string               `json:"warnings"`
}

// BtPosition is a holding at the end of a backtest's window.
type BtPosition struct {
	TokenID       string      `json:"tokenId"`
	Market        *Market     `json:"market"`
	Size          json.Number `json:"size"`
	AvgPrice      json.Number `json:"avgPrice"`
	Price         json.Number `json:"price"`
	Value         json.Number `json:"value"`
	UnrealizedPnl json.Number `json:"unrealizedPnl"`
}

// PricePoint is one recorded price of the window.
type PricePoint struct {
	T time.Time   `json:"t"`
	P json.Number `json:"p"`
}

// BacktestDTO renders a backtest's result. Its executions have the shape
// of a strategy's; their ids are bt_{seq} and no order stands behind them.
func BacktestDTO(r *backtesting.Result) Backtest {
	out := Backtest{Type: r.Type, TokenID: opt(r.TokenID), Market: marketDTO(r.Market), From: r.From.UTC(), To: r.To.UTC(),
		ResolutionSeconds: int64(r.Resolution / time.Second), Points: r.Points, Status: r.Status, EndedReason: opt(r.EndedReason),
		StartingBalance: num(r.StartingBalance), FinalBalance: num(r.FinalBalance), RealizedPnl: num(r.RealizedPnL),
		UnrealizedPnl: num(r.UnrealizedPnL), MaxDrawdown: num(r.MaxDrawdown), MaxDrawdownPct: num(r.MaxDrawdownPct),
		TradeCount: r.Trades, BudgetUsed: num(r.BudgetUsed), Warnings: r.Warnings,
		Executions: make([]Execution, len(r.Executions)), Positions: make([]BtPosition, len(r.Positions)),
		Prices: make([]PricePoint, len(r.Prices)), Thresholds: map[string]json.Number{}}
	if out.Warnings == nil {
		out.Warnings = []string{}
	}
	for i, e := range r.Executions {
		x := Execution{ID: fmt.Sprintf("bt_%d", e.Seq), Seq: e.Seq, Time: e.Time.UTC(), Kind: e.Kind, Action: e.Action, Reason: e.Reason,
			OrderStatus: opt(e.OrderStatus), TokenID: opt(e.TokenID), Side: opt(e.Side), Amount: num(e.Amount), Market: marketDTO(e.Market)}
		if e.OrderStatus != "" {
			x.Price, x.Size = num(e.Price), num(e.Size)
			x.FilledSize, x.AvgFillPrice = num(e.FilledSize), num(e.AvgFillPrice)
		}
		out.Executions[i] = x
	}
	for i, p := range r.Positions {
		out.Positions[i] = BtPosition{TokenID: p.TokenID, Market: marketDTO(p.Market), Size: num(p.Size), AvgPrice: num(p.AvgPrice),
			Price: num(p.Price), Value: num(p.Value), UnrealizedPnl: num(p.UnrealizedPnL)}
	}
	for i, p := range r.Prices {
		out.Prices[i] = PricePoint{T: p.Time.UTC(), P: num(p.Price)}
	}
	for k, v := range r.Thresholds {
		out.Thresholds[k] = num(v)
	}
	return out
}

// BacktestRoutes mounts POST /api/agent/v1/strategies/backtest (scope
// read: nothing is placed or stored) behind auth, whose per-key limit
// counts it as any read.
func BacktestRoutes(bt Backtester, auth ...gin.HandlerFunc) api.Routes {
	return func(s *api.Server) {
		g := s.Group("/api/agent/v1", auth...)
		g.POST("/strategies/backtest", agentauth.Require("read"), func(c *gin.Context) {
			if _, ok := agentauth.Need(c); !ok {
				return
			}
			var b BacktestBody
			if !api.BindJSON(c, &b) {
				return
			}
			res, err := bt.Run(c.Request.Context(), backtesting.Request{Type: b.Type, Config: b.Config, MaxBudget: b.MaxBudget,
				From: *b.From, To: *b.To, StartingBalance: b.StartingBalance.Decimal})
			if err != nil {
				api.Fail(c, err)
				return
			}
			api.OK(c, gin.H{"backtest": BacktestDTO(res)})
		})
	}
}
