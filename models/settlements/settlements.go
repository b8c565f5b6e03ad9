// Package settlements grants a user's wallet its trading approvals and turns
// the positions of resolved markets into collateral (redeem). Both run as
// durable Temporal workflows (workflows.Approve, workflows.Redeem) because
// they send on-chain transactions that must be neither lost nor repeated
// when a process dies half-way: the API checks a request here
// (ApproveRequest, RedeemRequest) and runs its workflow through
// workflows.Settlements; the workflows' activities call the step methods
// of the Service (ApproveWallet, PlanRedeem, RedeemOnChain,
// RecordRedemptions, RecordAudit). The package never runs a workflow
// itself, so a settlement walk enters it once on each side of Temporal.
//
// Private keys never enter Temporal: workflow inputs and activity
// arguments hold ids and public data only, and every activity loads the
// wallet (which signs through the vault) itself.
//
// Amounts are int64 micro-units (×1e6): shares of an outcome token and
// collateral share the 6 decimals of the chain's base units.
package settlements

import (
	"context"
	"log/slog"
	"math/big"
	"regexp"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/venue/chain"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/network"
)

// ActionRedeem is the audit action of a redemption. The approval is
// audit.ActionWalletApprove.
const ActionRedeem = "settlement.redeem"

// ActionRedeemShared is the audit action written, in the same database
// transaction as the positions, for every other agent of the user whose
// positions a redemption settled: the agents share the wallet, and the
// contracts redeem its whole balance of a market at once.
const ActionRedeemShared = "settlement.redeem.shared"

// Approval statuses.
const (
	StatusApproved        = "approved"
	StatusAlreadyApproved = "alreadyApproved"
)

// Chain is what the settlements need from the chain; *chain.Client
// implements it.
type Chain interface {
	Network() network.Network
	RequiredApprovals(token chain.ApproveToken) ([]chain.Approval, error)
	Approve(ctx context.Context, w chain.Wallet, token chain.ApproveToken) (chain.ApproveResult, error)
	Redeem(ctx context.Context, w chain.Wallet, positions []chain.RedeemPosition) ([]chain.RedeemResult, error)
	Payouts(ctx context.Context, conditionID common.Hash) ([]*big.Int, *big.Int, error)
	OutcomeBalance(ctx context.Context, addr common.Address, tokenID *big.Int) (*big.Int, error)
	IsApprovedForAll(ctx context.Context, owner, operator common.Address) (bool, error)
}

// WalletSource loads a user's wallet for the chain client;
// *wallets.Service implements it. A user without a wallet is NotFound.
type WalletSource interface {
	ChainWallet(ctx context.Context, userID string) (chain.Wallet, error)
}

// MarketSource reads a market's outcome tokens (in outcome order, the
// order of the payout vector) and neg-risk flag; *clob.Client implements
// it.
type MarketSource interface {
	Market(ctx context.Context, conditionID string) (*clob.Market, error)
}

// Service is the settlements service: the steps of the Approve and Redeem
// workflows, backed by Store, Wallets, Chain and Markets. Audit defaults
// to an audit.Service on Store and Logger to a discarding logger.
type Service struct {
	Store   *store.Store
	Wallets WalletSource
	Chain   Chain
	Markets MarketSource
	Audit   *audit.Service
	Logger  *slog.Logger
	// Positions, when set, rebuilds each redeemed position from its fills
	// and the recorded redemption (realized P&L includes the payout);
	// models/positions.Service implements it.
	Positions PositionRecomputer
}

// PositionRecomputer rebuilds an agent's position in a token.
type PositionRecomputer interface {
	Recompute(ctx context.Context, agentID, userID, tokenID string) error
}

func (s *Service) log() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Logger
}

func (s *Service) audit() *audit.Service {
	if s.Audit == nil {
		return &audit.Service{Store: s.Store}
	}
	return s.Audit
}

// ApproveInput is the input of the Approve workflow and its activity.
type ApproveInput struct {
	UserID  string `json:"user_id"`
	AgentID string `json:"agent_id"`
	// Token is the canonical approval selection (chain.ApproveToken).
	Token      string `json:"token"`
	ClientAddr string `json:"client_addr,omitempty"`
	// Proof vouches that an authenticated agent request asked for this
	// (models/intent, kind intent.WalletApprove): the user and agent ids
	// are claims until the activity verifies it.
	Proof string `json:"proof,omitempty"`
}

// Approval is one (asset, spender) approval of an ApproveResult.
type Approval struct {
	// Token is the approved asset: "USDC" (collateral) or "CTF" (outcome
	// tokens).
	Token   string `json:"token"`
	Spender string `json:"spender"`
	// SpenderName names the venue contract: exchange, negRiskExchange,
	// negRiskAdapter, redeemAdapter, negRiskRedeemAdapter.
	SpenderName string `json:"spender_name"`
	// Status is StatusApproved (granted now, TxHash set) or
	// StatusAlreadyApproved (nothing sent).
	Status string `json:"status"`
	TxHash string `json:"tx_hash,omitempty"`
}

// ApproveResult is what an approval did.
type ApproveResult struct {
	// Token is the selection that was approved (USDC, CTF, NEG_RISK, all).
	Token     string     `json:"token"`
	Approvals []Approval `json:"approvals"`
	// TransactionHashes are the transactions sent, in order; empty when
	// everything was already approved.
	TransactionHashes []string `json:"transaction_hashes"`
}

// RedeemInput is the input of the Redeem workflow and its planning step.
type RedeemInput struct {
	UserID  string `json:"user_id"`
	AgentID string `json:"agent_id"`
	// ConditionID limits the redemption to one market (lower-case 0x hex);
	// empty means every resolved market in which an agent of the user
	// holds a position (the agents share the wallet).
	ConditionID string `json:"condition_id,omitempty"`
	ClientAddr  string `json:"client_addr,omitempty"`
	// Proof vouches that an authenticated agent request asked for this
	// (models/intent, kind intent.Redeem).
	Proof string `json:"proof,omitempty"`
}

// Redemption is one position's part of a redemption.
type Redemption struct {
	// AgentID is the position's agent; set in RedeemResult.OtherAgents
	// only (the others are the calling agent's).
	AgentID     string `json:"agent_id,omitempty"`
	PositionID  string `json:"position_id"`
	TokenID     string `json:"token_id"`
	ConditionID string `json:"condition_id"`
	Outcome     string `json:"outcome"`
	// SharesMicro were burned; PayoutMicro is the collateral they paid
	// (zero for the losing outcome).
	SharesMicro int64  `json:"shares_micro"`
	PayoutMicro int64  `json:"payout_micro"`
	TxHash      string `json:"tx_hash,omitempty"`
}

// UnattributedRedemption is the part of the wallet's balance of one
// outcome token that no position of the user's agents accounts for
// (shares bought outside the service), redeemed with the rest.
type UnattributedRedemption struct {
	TokenID     string `json:"token_id"`
	ConditionID string `json:"condition_id"`
	Outcome     string `json:"outcome"`
	SharesMicro int64  `json:"shares_micro"`
	// PayoutMicro is what the wallet was paid for the token beyond the
	// positions' payouts (it includes their rounding remainder).
	PayoutMicro int64  `json:"payout_micro"`
	TxHash      string `json:"tx_hash,omitempty"`
}

// RedeemResult is what a redemption did. Redemptions are the calling
// agent's positions; a redemption burns the wallet's whole balance of each
// market, so it also settles the positions of the user's other agents in
// those markets (OtherAgents) and redeems shares no agent recorded
// (Unattributed). The wallet totals add all three up.
type RedeemResult struct {
	AgentID     string       `json:"agent_id"`
	ConditionID string       `json:"condition_id,omitempty"`
	Redemptions []Redemption `json:"redemptions"`
	// TotalPayoutMicro is the sum of the redemptions' payouts (the calling
	// agent's).
	TotalPayoutMicro int64 `json:"total_payout_micro"`
	// OtherAgents are the positions of the user's other agents that this
	// redemption settled, with their share of the payout.
	OtherAgents []Redemption `json:"other_agents,omitempty"`
	// Unattributed are the wallet's shares no agent's position accounts
	// for, per token.
	Unattributed []UnattributedRedemption `json:"unattributed,omitempty"`
	// WalletSharesMicro and WalletPayoutMicro are everything the
	// redemption burned and paid to the wallet.
	WalletSharesMicro int64 `json:"wallet_shares_micro"`
	WalletPayoutMicro int64 `json:"wallet_payout_micro"`
	// TransactionHashes are the redemption transactions, one per market.
	TransactionHashes []string `json:"transaction_hashes"`
	// Unresolved counts the agent's positions (in scope) whose market has
	// not resolved yet.
	Unresolved int `json:"unresolved"`
	// Message is a one-line summary for the agent.
	Message string `json:"message"`
}

// OtherAgentsTotals adds up OtherAgents: the shares of the user's other
// agents this redemption burned and what it paid for them. It is what the
// calling agent may learn of them: which agents, positions and markets
// they were is theirs (the user sees them in the audit log).
func (r RedeemResult) OtherAgentsTotals() (sharesMicro, payoutMicro int64) {
	for _, o := range r.OtherAgents {
		sharesMicro += o.SharesMicro
		payoutMicro += o.PayoutMicro
	}
	return sharesMicro, payoutMicro
}

// conditionRE is a condition id: 32 bytes of hex.
var conditionRE = regexp.MustCompile(`^0x[0-9a-fA-F]{64}$`)

// ApproveRequest checks a request to grant the wallet's trading
// approvals for token (USDC, CTF, NEG_RISK or all, case-insensitive) and
// returns the Approve workflow's input. workflows.Settlements runs it: a
// concurrent request of the same user joins the running approval when it
// asks for the same token and waits for it otherwise; approvals already in
// place are reported as alreadyApproved without a transaction.
func ApproveRequest(p orders.Principal, token string) (ApproveInput, error) {
	tok, err := chain.ParseApproveToken(strings.TrimSpace(token))
	if err != nil {
		return ApproveInput{}, err // Invalid, code invalid_token
	}
	if p.UserID == "" || p.AgentID == "" {
		return ApproveInput{}, errs.E(errs.Internal, "settlements: approve without a principal")
	}
	return ApproveInput{UserID: p.UserID, AgentID: p.AgentID, Token: string(tok), ClientAddr: p.ClientAddr}, nil
}

// RedeemRequest checks a request to redeem what the user's wallet holds
// in resolved markets (only the market conditionID when it is not empty)
// and returns the Redeem workflow's input. workflows.Settlements runs it,
// recording the positions of every agent of the user it pays (see
// RedeemResult): one redemption runs per wallet at a time; a concurrent
// request of the same agent for the same scope joins the running one, any
// other waits for it and then runs. Nothing to redeem is a successful
// empty result with a message.
func RedeemRequest(p orders.Principal, conditionID string) (RedeemInput, error) {
	conditionID = strings.TrimSpace(conditionID)
	if conditionID != "" {
		if !conditionRE.MatchString(conditionID) {
			return RedeemInput{}, errs.E(errs.Invalid, "conditionId must be 0x followed by 64 hex digits").WithCode(errs.CodeInvalidConditionID)
		}
		conditionID = strings.ToLower(conditionID)
	}
	if p.UserID == "" || p.AgentID == "" {
		return RedeemInput{}, errs.E(errs.Internal, "settlements: redeem without a principal")
	}
	return RedeemInput{UserID: p.UserID, AgentID: p.AgentID, ConditionID: conditionID, ClientAddr: p.ClientAddr}, nil
}

// SpenderName names a venue contract of n for the approval result.
func SpenderName(n network.Network, a common.Address) string {
	for _, c := range []struct {
		addr common.Address
		name string
	}{
		{n.Exchange, "exchange"},
		{n.NegRiskExchange, "negRiskExchange"},
		{n.NegRiskAdapter, "negRiskAdapter"},
		{n.RedeemNormal, "redeemAdapter"},
		{n.RedeemNegRisk, "negRiskRedeemAdapter"},
		{n.ConditionalTokens, "conditionalTokens"},
	} {
		if c.addr == a {
			return c.name
		}
	}
	return "unknown"
}

// ApproveWallet is the Approve workflow's activity: it grants the
// approvals of in.Token from the user's wallet, skipping those in place.
// It is idempotent: a retry after a crash finds the approvals already
// granted and sends nothing for them.
func (s *Service) ApproveWallet(ctx context.Context, in ApproveInput) (ApproveResult, error) {
	tok, err := chain.ParseApproveToken(in.Token)
	if err != nil {
		return ApproveResult{}, err
	}
	// An approval without an agent is the user's own (the dashboard, the
	// admin command): their wallet is live.
	if in.AgentID != "" {
		a, err := s.Store.AgentByID(ctx, in.AgentID)
		if err != nil {
			return ApproveResult{}, err
		}
		if a.Mode == models.ModePaper {
			// Paper money needs no approval, and a paper agent never
			// writes to the chain (docs/paper-trading.md).
			return ApproveResult{Token: in.Token, Approvals: []Approval{}, TransactionHashes: []string{}}, nil
		}
	}
	req, err := s.Chain.RequiredApprovals(tok)
	if err != nil {
		return ApproveResult{}, err
	}
	w, err := s.Wallets.ChainWallet(ctx, in.UserID)
	if err != nil {
		return ApproveResult{}, err
	}
	got, err := s.Chain.Approve(ctx, w, tok)
	if err != nil {
		return ApproveResult{}, err
	}
	type key struct {
		token   string
		spender common.Address
	}
	done := make(map[key]chain.Approval, len(got.Approved))
	for _, a := range got.Approved {
		done[key{a.Token, a.Spender}] = a
	}
	n := s.Chain.Network()
	res := ApproveResult{Token: string(tok), Approvals: make([]Approval, 0, len(req)), TransactionHashes: []string{}}
	for _, a := range req {
		out := Approval{Token: a.Token, Spender: a.Spender.Hex(), SpenderName: SpenderName(n, a.Spender), Status: StatusAlreadyApproved}
		if g, ok := done[key{a.Token, a.Spender}]; ok {
			out.Status, out.TxHash = StatusApproved, g.TxHash.Hex()
			res.TransactionHashes = append(res.TransactionHashes, out.TxHash)
		}
		res.Approvals = append(res.Approvals, out)
	}
	s.log().InfoContext(ctx, "wallet approvals granted", "user_id", in.UserID, "agent_id", in.AgentID,
		"token", res.Token, "transactions", len(res.TransactionHashes))
	return res, nil
}
