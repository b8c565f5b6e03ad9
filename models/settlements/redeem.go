package settlements

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/venue/chain"
)

// PlannedCondition is one market of a redemption plan.
type PlannedCondition struct {
	ConditionID string `json:"condition_id"`
	NegRisk     bool   `json:"neg_risk"`
	// TokenIDs are the market's outcome tokens in outcome order (the
	// neg-risk adapter redeems both by amount).
	TokenIDs []string `json:"token_ids"`
}

// PlannedPosition is one position a plan redeems.
type PlannedPosition struct {
	PositionID  string `json:"position_id"`
	TokenID     string `json:"token_id"`
	ConditionID string `json:"condition_id"`
	Outcome     string `json:"outcome"`
	// SharesMicro is the position's size, capped at the wallet's balance
	// of the token when planning.
	SharesMicro int64 `json:"shares_micro"`
	// PayoutMicro is SharesMicro × numerator / denominator of the outcome,
	// as the conditional-tokens contract pays it. A resolution is final, so
	// it is known before the transaction is sent.
	PayoutMicro int64 `json:"payout_micro"`
}

// RedeemPlan is what a redemption will do: the first step's result,
// recorded in the workflow history so that retries of the later steps
// work from the same plan.
type RedeemPlan struct {
	// Maker is the wallet address holding the tokens when planning.
	Maker      string             `json:"maker"`
	Conditions []PlannedCondition `json:"conditions"`
	Positions  []PlannedPosition  `json:"positions"`
	// Unresolved counts the positions in scope whose market has not
	// resolved yet.
	Unresolved int `json:"unresolved"`
}

// Empty reports whether the plan redeems nothing.
func (p RedeemPlan) Empty() bool { return len(p.Positions) == 0 }

// ChainRedemption is one market's redemption on chain.
type ChainRedemption struct {
	ConditionID string `json:"condition_id"`
	// TxHash is the redemption transaction; empty when Recovered.
	TxHash string `json:"tx_hash,omitempty"`
	// Recovered is set when the tokens were already gone at execution:
	// an earlier attempt's transaction was mined but its result was lost
	// (the worker died). Nothing was sent again.
	Recovered bool `json:"recovered,omitempty"`
}

// RedeemExecution is the input of RedeemOnChain.
type RedeemExecution struct {
	UserID string     `json:"user_id"`
	Plan   RedeemPlan `json:"plan"`
}

// RedeemRecord is the input of RecordRedemptions.
type RedeemRecord struct {
	Input RedeemInput       `json:"input"`
	Plan  RedeemPlan        `json:"plan"`
	Chain []ChainRedemption `json:"chain"`
	// At is the redemption time (the workflow's clock, so retries record
	// the same instant).
	At time.Time `json:"at"`
}

// redeemableStatuses are the position states a redemption considers.
func redeemable(p *models.Position) bool {
	switch p.Status {
	case models.PositionSettled, models.PositionClosed:
		return false
	}
	return p.SizeMicro > 0 && p.ConditionID != "" && p.TokenID != ""
}

// PlanRedeem is the Redeem workflow's first activity. It selects the
// agent's positions (in in.ConditionID only, when set) with a size above
// zero whose market is resolved on chain and whose token the wallet still
// holds, and computes what each will pay. It reads and sends nothing else.
func (s *Service) PlanRedeem(ctx context.Context, in RedeemInput) (RedeemPlan, error) {
	plan := RedeemPlan{Conditions: []PlannedCondition{}, Positions: []PlannedPosition{}}
	all, err := s.Store.ListPositions(ctx, in.AgentID)
	if err != nil {
		return plan, err
	}
	// Group by market, in the store's (creation) order.
	byCond := map[string][]*models.Position{}
	var conds []string
	for i := range all {
		p := &all[i]
		if !redeemable(p) || p.UserID != in.UserID {
			continue
		}
		c := strings.ToLower(p.ConditionID)
		if in.ConditionID != "" && c != in.ConditionID {
			continue
		}
		if _, seen := byCond[c]; !seen {
			conds = append(conds, c)
		}
		byCond[c] = append(byCond[c], p)
	}
	if len(conds) == 0 {
		return plan, nil
	}
	w, err := s.Wallets.ChainWallet(ctx, in.UserID)
	if err != nil {
		return plan, err
	}
	maker := w.Maker()
	plan.Maker = maker.Hex()
	for _, c := range conds {
		nums, den, err := s.Chain.Payouts(ctx, common.HexToHash(c))
		if err != nil {
			return plan, err
		}
		if den.Sign() == 0 {
			plan.Unresolved += len(byCond[c])
			continue
		}
		m, err := s.Markets.Market(ctx, c)
		if err != nil {
			return plan, err
		}
		pc := PlannedCondition{ConditionID: c, NegRisk: m.NegRisk}
		index := map[string]int{}
		for i, t := range m.Tokens {
			pc.TokenIDs = append(pc.TokenIDs, t.TokenID)
			index[t.TokenID] = i
		}
		var planned []PlannedPosition
		for _, p := range byCond[c] {
			idx, ok := index[p.TokenID]
			if !ok || idx >= len(nums) {
				return plan, errs.Ef(errs.Internal, "position %s holds token %s, which market %s does not list", p.ID, p.TokenID, c)
			}
			tok, ok := new(big.Int).SetString(p.TokenID, 10)
			if !ok {
				return plan, errs.Ef(errs.Internal, "position %s has a malformed token id", p.ID)
			}
			bal, err := s.Chain.OutcomeBalance(ctx, maker, tok)
			if err != nil {
				return plan, err
			}
			if bal.Sign() <= 0 {
				continue // sold or redeemed outside this service
			}
			shares := p.SizeMicro
			if bal.IsInt64() && bal.Int64() < shares {
				shares = bal.Int64()
			}
			payout := chain.PayoutFor(big.NewInt(shares), nums[idx], den)
			planned = append(planned, PlannedPosition{
				PositionID: p.ID, TokenID: p.TokenID, ConditionID: c, Outcome: p.Outcome,
				SharesMicro: shares, PayoutMicro: payout.Int64(),
			})
		}
		if len(planned) > 0 {
			plan.Conditions = append(plan.Conditions, pc)
			plan.Positions = append(plan.Positions, planned...)
		}
	}
	return plan, nil
}

// RedeemOnChain is the Redeem workflow's second activity: one redemption
// transaction per planned market. It is idempotent across retries and
// crashes: a market whose planned tokens are all gone from the wallet was
// redeemed by an earlier attempt whose result was lost, so it is reported
// as Recovered and nothing is sent again.
func (s *Service) RedeemOnChain(ctx context.Context, in RedeemExecution) ([]ChainRedemption, error) {
	out := []ChainRedemption{}
	if in.Plan.Empty() {
		return out, nil
	}
	w, err := s.Wallets.ChainWallet(ctx, in.UserID)
	if err != nil {
		return out, err
	}
	maker := w.Maker()
	if maker.Hex() != in.Plan.Maker {
		return out, errs.E(errs.Conflict, "the wallet changed while the redemption was running; redeem again").WithCode("wallet_changed")
	}
	held := make([]bool, len(in.Plan.Conditions))
	for i, c := range in.Plan.Conditions {
		if held[i], err = s.holdsPlanned(ctx, maker, c.ConditionID, in.Plan.Positions); err != nil {
			return out, err
		}
		if held[i] {
			if err := s.checkRedeemApproval(ctx, maker, c.NegRisk); err != nil {
				return out, err
			}
		}
	}
	for i, c := range in.Plan.Conditions {
		if !held[i] {
			s.log().WarnContext(ctx, "redemption already on chain; recording it without sending again",
				"user_id", in.UserID, "condition_id", c.ConditionID)
			out = append(out, ChainRedemption{ConditionID: c.ConditionID, Recovered: true})
			continue
		}
		rp := chain.RedeemPosition{ConditionID: common.HexToHash(c.ConditionID), NegRisk: c.NegRisk}
		for _, t := range c.TokenIDs {
			id, ok := new(big.Int).SetString(t, 10)
			if !ok {
				return out, errs.Ef(errs.Internal, "market %s has a malformed token id", c.ConditionID)
			}
			rp.TokenIDs = append(rp.TokenIDs, id)
		}
		// One market per call, so a failure leaves the markets before it
		// reported (and a retry finds them redeemed).
		res, err := s.Chain.Redeem(ctx, w, []chain.RedeemPosition{rp})
		if err != nil {
			return out, err
		}
		if len(res) != 1 {
			return out, errs.Ef(errs.Internal, "redeem of one market returned %d results", len(res))
		}
		out = append(out, ChainRedemption{ConditionID: c.ConditionID, TxHash: res[0].TxHash.Hex()})
	}
	return out, nil
}

// checkRedeemApproval refuses, before anything is sent, a redemption
// whose redeem contract may not move the wallet's outcome tokens: the
// transaction would revert and burn gas. The conditional-tokens contract
// redeems its own tokens without approval (the sandbox's normal markets).
func (s *Service) checkRedeemApproval(ctx context.Context, maker common.Address, negRisk bool) error {
	n := s.Chain.Network()
	spender, selection := n.RedeemNormal, "CTF"
	if negRisk {
		spender, selection = n.RedeemNegRisk, "NEG_RISK"
	}
	if spender == n.ConditionalTokens {
		return nil
	}
	ok, err := s.Chain.IsApprovedForAll(ctx, maker, spender)
	if err != nil || ok {
		return err
	}
	return errs.E(errs.VenueRejected, "the wallet has not approved the redeem contract to move its outcome tokens").
		WithCode("approval_required").WithHint("call POST /wallet/approve with token " + selection + " (or all), then redeem again")
}

// holdsPlanned reports whether the wallet still holds any planned token of
// the market. A redemption burns the wallet's whole balance of the
// market's tokens, so "none left" means it happened.
func (s *Service) holdsPlanned(ctx context.Context, maker common.Address, cond string, ps []PlannedPosition) (bool, error) {
	for _, p := range ps {
		if p.ConditionID != cond {
			continue
		}
		id, ok := new(big.Int).SetString(p.TokenID, 10)
		if !ok {
			return false, errs.Ef(errs.Internal, "position %s has a malformed token id", p.PositionID)
		}
		bal, err := s.Chain.OutcomeBalance(ctx, maker, id)
		if err != nil {
			return false, err
		}
		if bal.Sign() > 0 {
			return true, nil
		}
	}
	return false, nil
}

// RecordRedemptions is the Redeem workflow's third activity: it records
// every planned position as settled — redeemed shares and payout added,
// size zero, the transaction and time — in one database transaction, and
// returns the result. It is idempotent: a position already settled by an
// earlier attempt is reported but not counted twice.
func (s *Service) RecordRedemptions(ctx context.Context, in RedeemRecord) (RedeemResult, error) {
	txOf := map[string]string{}
	for _, c := range in.Chain {
		txOf[c.ConditionID] = c.TxHash
	}
	for _, c := range in.Plan.Conditions {
		if _, ok := txOf[c.ConditionID]; !ok {
			return RedeemResult{}, errs.Ef(errs.Internal, "market %s was planned but not redeemed", c.ConditionID)
		}
	}
	at := in.At.UTC()
	// Under the user's lock, like position recomputes, so a recompute in
	// flight cannot overwrite the redemption with a stale read.
	err := s.Store.WithBudgetLock(ctx, in.Input.UserID, func(tx *store.Store) error {
		for _, pp := range in.Plan.Positions {
			p, err := tx.PositionForAgent(ctx, in.Input.AgentID, pp.PositionID)
			if err != nil {
				return err
			}
			if p.Status == models.PositionSettled && p.RedeemedAt != nil {
				continue // recorded by an earlier attempt
			}
			p.RedeemedSizeMicro += pp.SharesMicro
			p.PayoutMicro += pp.PayoutMicro
			p.RedeemTx = txOf[pp.ConditionID]
			p.RedeemedAt = &at
			p.SizeMicro = 0
			p.Status = models.PositionSettled
			if err := tx.SavePosition(ctx, p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return RedeemResult{}, err
	}
	if s.Positions != nil {
		for _, pp := range in.Plan.Positions {
			if err := s.Positions.Recompute(ctx, in.Input.AgentID, in.Input.UserID, pp.TokenID); err != nil {
				return RedeemResult{}, err
			}
		}
	}
	res := RedeemResult{
		AgentID: in.Input.AgentID, ConditionID: in.Input.ConditionID,
		Redemptions: make([]Redemption, 0, len(in.Plan.Positions)), TransactionHashes: []string{},
		Unresolved: in.Plan.Unresolved,
	}
	for _, pp := range in.Plan.Positions {
		res.Redemptions = append(res.Redemptions, Redemption{
			PositionID: pp.PositionID, TokenID: pp.TokenID, ConditionID: pp.ConditionID, Outcome: pp.Outcome,
			SharesMicro: pp.SharesMicro, PayoutMicro: pp.PayoutMicro, TxHash: txOf[pp.ConditionID],
		})
		res.TotalPayoutMicro += pp.PayoutMicro
	}
	for _, c := range in.Chain {
		if c.TxHash != "" {
			res.TransactionHashes = append(res.TransactionHashes, c.TxHash)
		}
	}
	res.Message = fmt.Sprintf("redeemed %d position(s) in %d market(s) for %s USDC",
		len(res.Redemptions), len(in.Plan.Conditions), decimal.New(res.TotalPayoutMicro, -6).String())
	if res.Unresolved > 0 {
		res.Message += fmt.Sprintf("; %d position(s) wait for their market to resolve", res.Unresolved)
	}
	s.log().InfoContext(ctx, "positions redeemed", "user_id", in.Input.UserID, "agent_id", in.Input.AgentID,
		"positions", len(res.Redemptions), "payout_micro", res.TotalPayoutMicro)
	return res, nil
}

// NothingToRedeem is the successful result of a plan that redeems
// nothing. It is a pure function of its arguments (the workflow calls it).
func NothingToRedeem(in RedeemInput, plan RedeemPlan) RedeemResult {
	res := RedeemResult{
		AgentID: in.AgentID, ConditionID: in.ConditionID, Redemptions: []Redemption{},
		TransactionHashes: []string{}, Unresolved: plan.Unresolved,
	}
	switch {
	case plan.Unresolved > 0:
		res.Message = fmt.Sprintf("nothing to redeem yet: %d position(s) are in markets that have not resolved", plan.Unresolved)
	case in.ConditionID != "":
		res.Message = "nothing to redeem: no position with shares in this market"
	default:
		res.Message = "nothing to redeem: no positions in resolved markets"
	}
	return res
}

// AuditRecord is the input of RecordAudit: the outcome of one approval or
// redemption. Exactly one of Approve and Redeem is set on success; on
// failure Error holds the client-safe message.
type AuditRecord struct {
	UserID     string         `json:"user_id"`
	AgentID    string         `json:"agent_id"`
	ClientAddr string         `json:"client_addr,omitempty"`
	Action     string         `json:"action"`
	Target     string         `json:"target"`
	Approve    *ApproveResult `json:"approve,omitempty"`
	Redeem     *RedeemResult  `json:"redeem,omitempty"`
	Error      string         `json:"error,omitempty"`
	ErrorCode  string         `json:"error_code,omitempty"`
}

// RecordAudit writes the audit entry of an approval (audit.ActionWalletApprove)
// or redemption (ActionRedeem). Detail keys avoid the words the audit log
// redacts ("token"), so the entry keeps the asset and outcome names.
func (s *Service) RecordAudit(ctx context.Context, r AuditRecord) error {
	e := audit.Entry{UserID: r.UserID, AgentID: r.AgentID, ClientAddr: r.ClientAddr, Action: r.Action, Target: r.Target, Result: audit.Success}
	detail := map[string]any{}
	if r.Error != "" {
		e.Result = audit.Failure
		detail["error"] = r.Error
		if r.ErrorCode != "" {
			detail["code"] = r.ErrorCode
		}
	}
	if a := r.Approve; a != nil {
		list := make([]map[string]any, 0, len(a.Approvals))
		for _, x := range a.Approvals {
			list = append(list, map[string]any{"asset": x.Token, "spender": x.Spender, "spenderName": x.SpenderName, "status": x.Status, "txHash": x.TxHash})
		}
		detail["selection"] = a.Token
		detail["approvals"] = list
		detail["transactionHashes"] = a.TransactionHashes
	}
	if rd := r.Redeem; rd != nil {
		list := make([]map[string]any, 0, len(rd.Redemptions))
		for _, x := range rd.Redemptions {
			list = append(list, map[string]any{
				"positionId": x.PositionID, "conditionId": x.ConditionID, "outcome": x.Outcome,
				"shares": decimal.New(x.SharesMicro, -6).String(), "payout": decimal.New(x.PayoutMicro, -6).String(), "txHash": x.TxHash,
			})
		}
		detail["redemptions"] = list
		detail["totalPayout"] = decimal.New(rd.TotalPayoutMicro, -6).String()
		detail["transactionHashes"] = rd.TransactionHashes
	}
	if len(detail) > 0 {
		e.Detail = detail
	}
	return s.audit().Record(ctx, e)
}
