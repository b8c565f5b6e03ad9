// Package account serves the agent API's account endpoints under
// /api/agent/v1 (scope read): GET /balance, GET /budget and GET /stats.
// Handlers are thin: they call the wallet reader, the budget engine
// (models/budget) and the statistics service (models/stats) and encode
// explicit DTOs whose numbers are JSON numbers, as the spec says.
// docs/agent-api-account.md documents the endpoints.
package account

import (
	"context"
	"encoding/json"

	"github.com/gin-gonic/gin"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/agentauth"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/budget"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/stats"
	"github.com/agent-trading/ats/venue/micro"
)

// WalletReader reads the user's trading wallet with its live balance; a
// user without a wallet is errs.NotFound. budget.ChainWallets implements it.
type WalletReader interface {
	Wallet(ctx context.Context, userID string) (budget.WalletInfo, error)
}

// PaperBalances reads a user's paper balance (micro-USDC): the money a
// paper agent trades with (docs/paper-trading.md). *store.Store
// implements it.
type PaperBalances interface {
	PaperBalance(ctx context.Context, userID string) (int64, error)
}

// Deps are the services behind the endpoints.
type Deps struct {
	Wallets WalletReader
	// Paper answers /balance for paper agents; without it a paper agent's
	// /balance is refused rather than showing the real wallet's money.
	Paper  PaperBalances
	Budget *budget.Service
	Stats  *stats.Service
}

// Balance is the body of GET /balance.
type Balance struct {
	USDC       json.Number `json:"usdc"`
	Address    string      `json:"address"`
	WalletType string      `json:"walletType"`
}

// BudgetConfig is the "config" member of GET /budget; unset limits are null.
type BudgetConfig struct {
	FixedLimit       *json.Number `json:"fixedLimit"`
	BudgetPercent    *json.Number `json:"budgetPercent"`
	MaxPositionValue *json.Number `json:"maxPositionValue"`
	Used             json.Number  `json:"used"`
}

// Budget is the body of GET /budget.
type Budget struct {
	USDC      json.Number  `json:"usdc"`
	LimitedBy string       `json:"limitedBy"`
	Wallet    json.Number  `json:"wallet"`
	Config    BudgetConfig `json:"config"`
}

// Stats is the body of GET /stats.
type Stats struct {
	TotalOrders   int64       `json:"totalOrders"`
	FilledOrders  int64       `json:"filledOrders"`
	TotalVolume   json.Number `json:"totalVolume"`
	RealizedPnL   json.Number `json:"realizedPnL"`
	UnrealizedPnL json.Number `json:"unrealizedPnL"`
	WinRate       json.Number `json:"winRate"`
	AvgTradeSize  json.Number `json:"avgTradeSize"`
}

// Routes mounts the account endpoints on /api/agent/v1 behind auth (the
// lead passes agentauth.Middleware and ratelimit.PerKey), each requiring
// the read scope.
func Routes(d Deps, auth ...gin.HandlerFunc) api.Routes {
	return func(s *api.Server) {
		g := s.Group("/api/agent/v1", auth...)
		read := agentauth.Require("read")
		g.GET("/balance", read, d.balance)
		g.GET("/budget", read, d.budget)
		g.GET("/stats", read, d.stats)
	}
}

func (d Deps) balance(c *gin.Context) {
	id, ok := agentauth.Need(c)
	if !ok {
		return
	}
	if id.AgentMode == models.ModePaper {
		d.paperBalance(c, id.UserID)
		return
	}
	w, err := d.Wallets.Wallet(c.Request.Context(), id.UserID)
	if err != nil {
		api.Fail(c, err)
		return
	}
	api.OK(c, Balance{USDC: num(micro.Decimal(w.CollateralMicro)), Address: w.Address.Hex(), WalletType: w.Type})
}

// paperBalance answers a paper agent's /balance: the user's paper balance,
// never the wallet's collateral (a paper agent sees and spends only paper
// money, as its /budget does). No wallet holds paper money, so the address
// is empty and walletType says "paper"; the chain is not read.
func (d Deps) paperBalance(c *gin.Context, userID string) {
	if d.Paper == nil {
		api.Fail(c, errs.E(errs.Internal, "account: no paper balance reader wired"))
		return
	}
	bal, err := d.Paper.PaperBalance(c.Request.Context(), userID)
	if err != nil {
		api.Fail(c, err)
		return
	}
	api.OK(c, Balance{USDC: num(micro.Decimal(bal)), Address: "", WalletType: WalletTypePaper})
}

// WalletTypePaper is /balance's walletType for a paper agent.
const WalletTypePaper = "paper"

func (d Deps) budget(c *gin.Context) {
	id, ok := agentauth.Need(c)
	if !ok {
		return
	}
	b, err := d.Budget.Snapshot(c.Request.Context(), id.AgentID)
	if err != nil {
		api.Fail(c, err)
		return
	}
	api.OK(c, Budget{
		USDC:      num(b.Available),
		LimitedBy: b.LimitedBy,
		Wallet:    num(b.Wallet),
		Config: BudgetConfig{
			FixedLimit:       numPtr(b.Config.FixedLimit),
			BudgetPercent:    numPtr(b.Config.BudgetPercent),
			MaxPositionValue: numPtr(b.Config.MaxPositionValue),
			Used:             num(b.Config.Used),
		},
	})
}

func (d Deps) stats(c *gin.Context) {
	id, ok := agentauth.Need(c)
	if !ok {
		return
	}
	st, err := d.Stats.ForAgent(c.Request.Context(), id.AgentID)
	if err != nil {
		api.Fail(c, err)
		return
	}
	api.OK(c, Stats{
		TotalOrders:   st.TotalOrders,
		FilledOrders:  st.FilledOrders,
		TotalVolume:   num(st.TotalVolume),
		RealizedPnL:   num(st.RealizedPnL),
		UnrealizedPnL: num(st.UnrealizedPnL),
		WinRate:       num(st.WinRate),
		AvgTradeSize:  num(st.AvgTradeSize),
	})
}

// num renders a decimal as an exact JSON number (no float rounding).
func num(d decimal.Decimal) json.Number { return json.Number(d.String()) }

func numPtr(d *decimal.Decimal) *json.Number {
	if d == nil {
		return nil
	}
	n := num(*d)
	return &n
}
