// Package settlements serves the agent API's settlement endpoints under
// /api/agent/v1: POST /wallet/approve (scope trade) grants the wallet's
// trading approvals and POST /settlements/redeem (scope redeem) turns what
// the wallet holds in resolved markets into collateral, settling the
// positions of every agent of the user it pays. Handlers are
// thin: they bind an explicit DTO, call models/settlements (which runs the
// durable workflows and waits for their results) and encode explicit
// DTOs. Amounts (shares, payouts) are JSON numbers with up to 6 decimals,
// exact (rendered from micro-units, never through float64), like the
// account endpoints. docs/agent-api-settlements.md documents the
// endpoints.
package settlements

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/gin-gonic/gin"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/agentauth"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/settlements"
	"github.com/agent-trading/ats/venue/micro"
)

// Settler is the service behind the endpoints; *settlements.Service
// implements it.
type Settler interface {
	Approve(ctx context.Context, p orders.Principal, token string) (settlements.ApproveResult, error)
	Redeem(ctx context.Context, p orders.Principal, conditionID string) (settlements.RedeemResult, error)
}

// Deps are the services behind the endpoints.
type Deps struct {
	Settlements Settler
}

// ApproveRequest is the body of POST /wallet/approve.
type ApproveRequest struct {
	// Token is USDC, CTF, NEG_RISK or all (case-insensitive).
	Token string `json:"token"`
}

// Validate implements api.Validator.
func (r ApproveRequest) Validate() error {
	if r.Token == "" {
		return errs.E(errs.Invalid, "token is required: USDC, CTF, NEG_RISK or all").WithCode(errs.CodeInvalidToken)
	}
	return nil
}

// Approval is one approval of the approve response.
type Approval struct {
	// Token is the approved asset: USDC (collateral) or CTF (outcome
	// tokens).
	Token       string `json:"token"`
	Spender     string `json:"spender"`
	SpenderName string `json:"spenderName"`
	// Status is approved or alreadyApproved.
	Status string `json:"status"`
	// TxHash is set when the approval was granted now.
	TxHash string `json:"txHash,omitempty"`
}

// ApproveResponse is the data of POST /wallet/approve.
type ApproveResponse struct {
	Token             string     `json:"token"`
	Approvals         []Approval `json:"approvals"`
	TransactionHashes []string   `json:"transactionHashes"`
}

// RedeemRequest is the optional body of POST /settlements/redeem.
type RedeemRequest struct {
	// ConditionID limits the redemption to one market; empty or absent
	// redeems every resolved market.
	ConditionID string `json:"conditionId"`
}

// Redemption is one redeemed position.
type Redemption struct {
	PositionID  string      `json:"positionId"`
	TokenID     string      `json:"tokenId"`
	ConditionID string      `json:"conditionId"`
	Outcome     string      `json:"outcome"`
	Shares      json.Number `json:"shares"`
	Payout      json.Number `json:"payout"`
	// TxHash is the market's redemption transaction; absent when an
	// interrupted earlier attempt had already redeemed it on chain.
	TxHash string `json:"txHash,omitempty"`
}

// OtherAgentsTotal is what the redemption burned of and paid for the
// positions of the user's other agents (the agents share the wallet): totals
// only, never which agents, positions or markets.
type OtherAgentsTotal struct {
	Shares json.Number `json:"shares"`
	Payout json.Number `json:"payout"`
}

// Unattributed is the part of the wallet's balance of one outcome token
// that no agent's position accounts for (bought outside the service).
type Unattributed struct {
	TokenID     string      `json:"tokenId"`
	ConditionID string      `json:"conditionId"`
	Outcome     string      `json:"outcome"`
	Shares      json.Number `json:"shares"`
	Payout      json.Number `json:"payout"`
	TxHash      string      `json:"txHash,omitempty"`
}

// RedeemResponse is the data of POST /settlements/redeem.
type RedeemResponse struct {
	// Redeemed and TotalPayout are the calling agent's positions.
	Redeemed          []Redemption `json:"redeemed"`
	TotalPayout       json.Number  `json:"totalPayout"`
	TransactionHashes []string     `json:"transactionHashes"`
	// Unresolved counts positions whose market has not resolved yet.
	Unresolved int `json:"unresolved"`
	// OtherAgents totals what the same redemption settled of the other
	// agents' positions, Unattributed the shares no agent recorded;
	// WalletShares and WalletPayout add up everything the wallet redeemed.
	OtherAgents  OtherAgentsTotal `json:"otherAgents"`
	Unattributed []Unattributed   `json:"unattributed"`
	WalletShares json.Number      `json:"walletShares"`
	WalletPayout json.Number      `json:"walletPayout"`
}

// Routes mounts the endpoints on /api/agent/v1 behind auth (the lead
// passes agentauth.Middleware and the rate limiter). Each endpoint checks
// its scope first and then runs idem (the idempotency middleware; nil
// skips it), so a replayed Idempotency-Key never reaches the chain twice.
func Routes(d Deps, idem gin.HandlerFunc, auth ...gin.HandlerFunc) api.Routes {
	return func(s *api.Server) {
		g := s.Group("/api/agent/v1", auth...)
		chain := func(scope string, h gin.HandlerFunc) []gin.HandlerFunc {
			hs := []gin.HandlerFunc{agentauth.Require(scope)}
			if idem != nil {
				hs = append(hs, idem)
			}
			return append(hs, h)
		}
		g.POST("/wallet/approve", chain("trade", d.approve)...)
		g.POST("/settlements/redeem", chain("redeem", d.redeem)...)
	}
}

// principal returns the authenticated agent; Require already answered 401
// when there is none, so a miss here is a wiring bug.
func principal(c *gin.Context) (orders.Principal, bool) {
	id, ok := agentauth.Need(c)
	if !ok {
		return orders.Principal{}, false
	}
	return orders.Principal{AgentID: id.AgentID, UserID: id.UserID, ClientAddr: c.ClientIP()}, true
}

func (d Deps) approve(c *gin.Context) {
	p, ok := principal(c)
	if !ok {
		return
	}
	var req ApproveRequest
	if !api.BindJSON(c, &req) {
		return
	}
	res, err := d.Settlements.Approve(c, p, req.Token)
	if err != nil {
		api.Fail(c, err)
		return
	}
	out := ApproveResponse{Token: res.Token, Approvals: make([]Approval, 0, len(res.Approvals)), TransactionHashes: nonNil(res.TransactionHashes)}
	for _, a := range res.Approvals {
		out.Approvals = append(out.Approvals, Approval{Token: a.Token, Spender: a.Spender, SpenderName: a.SpenderName, Status: a.Status, TxHash: a.TxHash})
	}
	msg := fmt.Sprintf("granted %d approval(s)", len(res.TransactionHashes))
	if len(res.TransactionHashes) == 0 {
		msg = "every approval was already in place; nothing was sent"
	}
	api.OKMessage(c, msg, out)
}

func (d Deps) redeem(c *gin.Context) {
	p, ok := principal(c)
	if !ok {
		return
	}
	var req RedeemRequest
	// The body is optional: none (or only white space) redeems everything.
	if c.Request.Body != nil {
		body, err := io.ReadAll(c.Request.Body)
		if err != nil {
			api.Fail(c, err) // an over-limit body becomes 413
			return
		}
		c.Request.Body = io.NopCloser(bytes.NewReader(body))
		if len(bytes.TrimSpace(body)) > 0 && !api.BindJSON(c, &req) {
			return
		}
	}
	res, err := d.Settlements.Redeem(c, p, req.ConditionID)
	if err != nil {
		api.Fail(c, err)
		return
	}
	othersShares, othersPayout := res.OtherAgentsTotals()
	out := RedeemResponse{
		Redeemed: make([]Redemption, 0, len(res.Redemptions)), TotalPayout: amount(res.TotalPayoutMicro),
		TransactionHashes: nonNil(res.TransactionHashes), Unresolved: res.Unresolved,
		OtherAgents:  OtherAgentsTotal{Shares: amount(othersShares), Payout: amount(othersPayout)},
		Unattributed: make([]Unattributed, 0, len(res.Unattributed)),
		WalletShares: amount(res.WalletSharesMicro), WalletPayout: amount(res.WalletPayoutMicro),
	}
	for _, r := range res.Redemptions {
		out.Redeemed = append(out.Redeemed, redemption(r))
	}
	for _, u := range res.Unattributed {
		out.Unattributed = append(out.Unattributed, Unattributed{
			TokenID: u.TokenID, ConditionID: u.ConditionID, Outcome: u.Outcome,
			Shares: amount(u.SharesMicro), Payout: amount(u.PayoutMicro), TxHash: u.TxHash,
		})
	}
	api.OKMessage(c, res.Message, out)
}

func redemption(r settlements.Redemption) Redemption {
	return Redemption{
		PositionID: r.PositionID, TokenID: r.TokenID, ConditionID: r.ConditionID, Outcome: r.Outcome,
		Shares: amount(r.SharesMicro), Payout: amount(r.PayoutMicro), TxHash: r.TxHash,
	}
}

// micro renders micro-units as an exact JSON number.
func amount(v int64) json.Number { return json.Number(micro.Decimal(v).String()) }

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
