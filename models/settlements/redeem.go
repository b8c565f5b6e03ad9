package settlements

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/venue/chain"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/micro"
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
	// AgentID is the position's agent: any agent of the user, since the
	// agents share the wallet. Empty in plans made before redemptions
	// settled other agents' positions; those were the calling agent's.
	AgentID     string `json:"agent_id,omitempty"`
	PositionID  string `json:"position_id"`
	TokenID     string `json:"token_id"`
	ConditionID string `json:"condition_id"`
	Outcome     string `json:"outcome"`
	// SharesMicro is the position's size, capped at what is left of the
	// wallet's balance of the token after the older positions in it.
	SharesMicro int64 `json:"shares_micro"`
	// PayoutMicro is SharesMicro × numerator / denominator of the outcome,
	// as the conditional-tokens contract pays it. A resolution is final, so
	// it is known before the transaction is sent.
	PayoutMicro int64 `json:"payout_micro"`
}

// PlannedHolding is the wallet's balance of one outcome token of a planned
// market: the redemption burns all of it.
type PlannedHolding struct {
	ConditionID string `json:"condition_id"`
	TokenID     string `json:"token_id"`
	Outcome     string `json:"outcome"`
	// SharesMicro is the wallet's balance when planning and PayoutMicro
	// what the contract pays for it.
	SharesMicro int64 `json:"shares_micro"`
	PayoutMicro int64 `json:"payout_micro"`
	// UnattributedSharesMicro is the part of the balance no position of
	// the user's agents accounts for (bought outside the service), and
	// UnattributedPayoutMicro the payout beyond the positions' (it
	// includes the rounding remainder of their payouts).
	UnattributedSharesMicro int64 `json:"unattributed_shares_micro"`
	UnattributedPayoutMicro int64 `json:"unattributed_payout_micro"`
}

// RedeemPlan is what a redemption will do: the first step's result,
// recorded in the workflow history so that retries of the later steps
// work from the same plan.
type RedeemPlan struct {
	// Maker is the wallet address holding the tokens when planning.
	Maker      string             `json:"maker"`
	Conditions []PlannedCondition `json:"conditions"`
	// Positions are the positions of every agent of the user the
	// redemption settles, in the store's (creation) order.
	Positions []PlannedPosition `json:"positions"`
	// Holdings are the wallet's balances of the planned markets' tokens
	// (those above zero). Plans made before they were recorded have none.
	Holdings []PlannedHolding `json:"holdings,omitempty"`
	// Unresolved counts the calling agent's positions in scope whose
	// market has not resolved yet.
	Unresolved int `json:"unresolved"`
	// Paper marks a paper agent's redemption (docs/paper-trading.md): it
	// settles the user's paper positions from the market's resolution
	// and credits the paper balance; nothing is sent to the chain.
	Paper bool `json:"paper,omitempty"`
}

// Empty reports whether the plan redeems nothing. The workflow decides
// on it; a plan without holdings (made before they were recorded) is
// empty exactly when it has no positions, as it was then.
func (p RedeemPlan) Empty() bool { return len(p.Positions) == 0 && len(p.Holdings) == 0 }

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

// redeemable reports whether a position takes part in a redemption: it
// holds shares of a known market. A settled position with shares is a
// losing one whose resolution was recorded (GET /positions) while its
// tokens are still in the wallet; the redemption burns them for 0, so it is
// recorded as redeemed too.
func redeemable(p *models.Position) bool {
	return p.Status != models.PositionClosed && p.SizeMicro > 0 && p.ConditionID != "" && p.TokenID != ""
}

// PlanRedeem is the Redeem workflow's first activity. The agents of a user
// share its wallet, and redeeming a market burns the wallet's whole
// balance of it, so the plan covers the wallet, not just the calling
// agent: every market (in.ConditionID only, when set) in which an agent of
// the user holds shares, or which in.ConditionID names, that is resolved
// on chain and of which the wallet holds tokens. Each token's balance is
// shared out over the positions in it, oldest first, each getting at most
// its size; what is left is unattributed (bought outside the service). It
// computes what every part pays and reads and sends nothing else.
func (s *Service) PlanRedeem(ctx context.Context, in RedeemInput) (RedeemPlan, error) {
	plan := RedeemPlan{Conditions: []PlannedCondition{}, Positions: []PlannedPosition{}, Holdings: []PlannedHolding{}}
	all, err := s.Store.HeldPositionsOfUser(ctx, in.UserID)
	if err != nil {
		return plan, err
	}
	paper, callerPaper, err := s.paperAgents(ctx, in)
	if err != nil {
		return plan, err
	}
	if callerPaper {
		return s.planPaperRedeem(ctx, in, all, paper)
	}
	// Group by market, in the store's (creation) order.
	// Paper positions hold no tokens of the wallet.
	byCond, conds := byCondition(all, in, func(p *models.Position) bool { return !paper[p.AgentID] })
	recorded := len(conds) > 0
	if in.ConditionID != "" && !recorded {
		conds = append(conds, in.ConditionID) // the wallet may hold it all the same
	}
	if len(conds) == 0 {
		return plan, nil
	}
	w, err := s.Wallets.ChainWallet(ctx, in.UserID)
	if err != nil {
		if !recorded && errs.Is(err, errs.NotFound) {
			return plan, nil // no wallet and no position: nothing to redeem
		}
		return plan, err
	}
	maker := w.Maker()
	plan.Maker = maker.Hex()
	for _, c := range conds {
		ps := byCond[c]
		nums, den, resolved, err := s.resolvedPayouts(ctx, c, ps, in.AgentID, &plan)
		if err != nil {
			return plan, err
		}
		if !resolved {
			continue
		}
		m, err := s.Markets.Market(ctx, c)
		if err != nil {
			if !recorded && errs.Is(err, errs.NotFound) {
				continue // a named market neither the venue nor an agent knows
			}
			return plan, err
		}
		pc, index := plannedCondition(c, m)
		for _, p := range ps {
			if idx, ok := index[p.TokenID]; !ok || idx >= len(nums) {
				return plan, errs.Ef(errs.Internal, "position %s holds token %s, which market %s does not list", p.ID, p.TokenID, c)
			}
		}
		// The wallet's balance of every outcome: the redemption burns them
		// all, whoever recorded them.
		holdings := make([]PlannedHolding, len(m.Tokens))
		for i, t := range m.Tokens {
			tok, ok := new(big.Int).SetString(t.TokenID, 10)
			if !ok {
				return plan, errs.Ef(errs.Internal, "market %s has a malformed token id", c)
			}
			bal, err := s.Chain.OutcomeBalance(ctx, maker, tok)
			if err != nil {
				return plan, err
			}
			if bal.Sign() <= 0 {
				continue
			}
			if !bal.IsInt64() || i >= len(nums) {
				return plan, errs.Ef(errs.Internal, "the wallet's balance of token %s of market %s cannot be redeemed as planned", t.TokenID, c)
			}
			holdings[i] = PlannedHolding{
				ConditionID: c, TokenID: t.TokenID, Outcome: t.Outcome, SharesMicro: bal.Int64(),
				PayoutMicro: chain.PayoutFor(bal, nums[i], den).Int64(), UnattributedSharesMicro: bal.Int64(),
			}
		}
		var planned []PlannedPosition
		paid := make([]int64, len(holdings))
		for _, p := range ps {
			idx := index[p.TokenID]
			h := &holdings[idx]
			shares := min(p.SizeMicro, h.UnattributedSharesMicro)
			if shares <= 0 {
				continue // sold or redeemed outside this service
			}
			h.UnattributedSharesMicro -= shares
			payout := chain.PayoutFor(big.NewInt(shares), nums[idx], den).Int64()
			paid[idx] += payout
			planned = append(planned, PlannedPosition{
				AgentID: p.AgentID, PositionID: p.ID, TokenID: p.TokenID, ConditionID: c, Outcome: p.Outcome,
				SharesMicro: shares, PayoutMicro: payout,
			})
		}
		var held []PlannedHolding
		for i, h := range holdings {
			if h.SharesMicro > 0 {
				// Rounded down per position, the parts never pay more
				// than the whole; the remainder is the wallet's.
				h.UnattributedPayoutMicro = h.PayoutMicro - paid[i]
				held = append(held, h)
			}
		}
		if len(held) > 0 {
			plan.Conditions = append(plan.Conditions, pc)
			plan.Positions = append(plan.Positions, planned...)
			plan.Holdings = append(plan.Holdings, held...)
		}
	}
	return plan, nil
}

// RedeemOnChain is the Redeem workflow's second activity: one redemption
// transaction per planned market. It is idempotent across retries and
// crashes: a market whose planned holdings are all gone from the wallet was
// redeemed by an earlier attempt whose result was lost, so it is reported
// as Recovered and nothing is sent again.
func (s *Service) RedeemOnChain(ctx context.Context, in RedeemExecution) ([]ChainRedemption, error) {
	out := []ChainRedemption{}
	if in.Plan.Empty() {
		return out, nil
	}
	if in.Plan.Paper {
		for _, c := range in.Plan.Conditions {
			out = append(out, ChainRedemption{ConditionID: c.ConditionID})
		}
		return out, nil
	}
	w, err := s.Wallets.ChainWallet(ctx, in.UserID)
	if err != nil {
		return out, err
	}
	maker := w.Maker()
	if maker.Hex() != in.Plan.Maker {
		return out, errs.E(errs.Conflict, "the wallet changed while the redemption was running; redeem again").WithCode(errs.CodeWalletChanged)
	}
	held := make([]bool, len(in.Plan.Conditions))
	for i, c := range in.Plan.Conditions {
		if held[i], err = s.holdsPlanned(ctx, maker, c.ConditionID, in.Plan); err != nil {
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
		WithCode(errs.CodeApprovalRequired).WithHint("call POST /wallet/approve with token " + selection + " (or all), then redeem again")
}

// holdsPlanned reports whether the wallet still holds any planned token of
// the market: a holding, or in a plan made before holdings were recorded,
// a position's token. A redemption burns the wallet's whole balance of the
// market's tokens, so "none left" means it happened.
func (s *Service) holdsPlanned(ctx context.Context, maker common.Address, cond string, plan RedeemPlan) (bool, error) {
	var tokens []string
	for _, h := range plan.Holdings {
		if h.ConditionID == cond {
			tokens = append(tokens, h.TokenID)
		}
	}
	if len(plan.Holdings) == 0 {
		for _, p := range plan.Positions {
			if p.ConditionID == cond {
				tokens = append(tokens, p.TokenID)
			}
		}
	}
	for _, t := range tokens {
		id, ok := new(big.Int).SetString(t, 10)
		if !ok {
			return false, errs.Ef(errs.Internal, "market %s has a malformed token id", cond)
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
// every planned position, whichever agent of the user it belongs to, as
// settled — redeemed shares and payout added, size zero, the transaction
// and time — and writes an ActionRedeemShared audit entry for each other
// agent whose positions it settled, all in one database transaction under
// the user's lock, and returns the result. It is idempotent: a position
// whose redemption time is already this redemption's was recorded by an
// earlier attempt (whose transaction committed with its audit entries), so
// it is reported but not counted twice.
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
	// Microseconds are what both databases keep, so a retry recognises the
	// time it recorded.
	at := in.At.UTC().Truncate(time.Microsecond)
	caller := in.Input.AgentID
	agentOf := func(pp PlannedPosition) string {
		if pp.AgentID == "" {
			return caller // a plan made before positions carried their agent
		}
		return pp.AgentID
	}
	redemption := func(pp PlannedPosition) Redemption {
		return Redemption{
			PositionID: pp.PositionID, TokenID: pp.TokenID, ConditionID: pp.ConditionID, Outcome: pp.Outcome,
			SharesMicro: pp.SharesMicro, PayoutMicro: pp.PayoutMicro, TxHash: txOf[pp.ConditionID],
		}
	}
	target := in.Input.ConditionID
	if target == "" {
		target = "all"
	}
	// Under the user's lock, like position recomputes, so a recompute in
	// flight cannot overwrite the redemption with a stale read.
	err := s.Store.WithBudgetLock(ctx, in.Input.UserID, func(tx *store.Store) error {
		var others []string // agents whose positions this call records, in plan order
		settled := map[string][]Redemption{}
		for _, pp := range in.Plan.Positions {
			agent := agentOf(pp)
			p, err := tx.PositionForAgent(ctx, agent, pp.PositionID)
			if err != nil {
				return err
			}
			if p.UserID != in.Input.UserID {
				return errs.Ef(errs.Internal, "planned position %s is not the user's", pp.PositionID)
			}
			if p.RedeemedAt != nil && p.RedeemedAt.UTC().Truncate(time.Microsecond).Equal(at) {
				continue // recorded by an earlier attempt
			}
			if !redeemable(p) {
				// Settled by another redemption (or sold) since planning:
				// a record arriving again — replayed into a later run of
				// the wallet's redeem workflow — never pays twice.
				continue
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
			if in.Plan.Paper {
				if err := tx.AddPaperBalance(ctx, in.Input.UserID, pp.PayoutMicro); err != nil {
					return err
				}
			}
			if agent != caller {
				if _, seen := settled[agent]; !seen {
					others = append(others, agent)
				}
				settled[agent] = append(settled[agent], redemption(pp))
			}
		}
		for _, agent := range others {
			var total int64
			for _, r := range settled[agent] {
				total += r.PayoutMicro
			}
			err := audit.Append(ctx, tx, audit.Entry{
				UserID: in.Input.UserID, AgentID: agent, ClientAddr: in.Input.ClientAddr,
				Action: ActionRedeemShared, Target: target, Result: audit.Success,
				Detail: map[string]any{
					"redeemedBy":  caller,
					"redemptions": redemptionsDetail(settled[agent]),
					"totalPayout": usdc(total),
				},
			})
			if err != nil {
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
			if err := s.Positions.Recompute(ctx, agentOf(pp), in.Input.UserID, pp.TokenID); err != nil {
				return RedeemResult{}, err
			}
		}
	}
	res := RedeemResult{
		AgentID: caller, ConditionID: in.Input.ConditionID,
		Redemptions: make([]Redemption, 0, len(in.Plan.Positions)), OtherAgents: []Redemption{},
		Unattributed: []UnattributedRedemption{}, TransactionHashes: []string{}, Unresolved: in.Plan.Unresolved,
	}
	for _, pp := range in.Plan.Positions {
		r := redemption(pp)
		if agent := agentOf(pp); agent != caller {
			r.AgentID = agent
			res.OtherAgents = append(res.OtherAgents, r)
		} else {
			res.Redemptions = append(res.Redemptions, r)
			res.TotalPayoutMicro += r.PayoutMicro
		}
	}
	var unattributedShares, unattributedPayout int64
	for _, h := range in.Plan.Holdings {
		res.WalletSharesMicro += h.SharesMicro
		res.WalletPayoutMicro += h.PayoutMicro
		if h.UnattributedSharesMicro > 0 || h.UnattributedPayoutMicro > 0 {
			res.Unattributed = append(res.Unattributed, UnattributedRedemption{
				TokenID: h.TokenID, ConditionID: h.ConditionID, Outcome: h.Outcome,
				SharesMicro: h.UnattributedSharesMicro, PayoutMicro: h.UnattributedPayoutMicro, TxHash: txOf[h.ConditionID],
			})
			unattributedShares += h.UnattributedSharesMicro
			unattributedPayout += h.UnattributedPayoutMicro
		}
	}
	if len(in.Plan.Holdings) == 0 {
		// A plan made before holdings were recorded: its positions are all
		// that is known of the wallet.
		for _, pp := range in.Plan.Positions {
			res.WalletSharesMicro += pp.SharesMicro
			res.WalletPayoutMicro += pp.PayoutMicro
		}
	}
	for _, c := range in.Chain {
		if c.TxHash != "" {
			res.TransactionHashes = append(res.TransactionHashes, c.TxHash)
		}
	}
	res.Message = fmt.Sprintf("redeemed %d position(s) in %d market(s) for %s USDC",
		len(res.Redemptions), len(in.Plan.Conditions), usdc(res.TotalPayoutMicro))
	if len(res.OtherAgents) > 0 {
		// Totals only: the caller is not told which agents or positions.
		shares, payout := res.OtherAgentsTotals()
		res.Message += fmt.Sprintf("; the same redemption paid %s USDC for %s share(s) other agents of this wallet held",
			usdc(payout), usdc(shares))
	}
	if len(res.Unattributed) > 0 {
		res.Message += fmt.Sprintf("; %s share(s) no agent recorded paid %s USDC",
			usdc(unattributedShares), usdc(unattributedPayout))
	}
	if res.Unresolved > 0 {
		res.Message += fmt.Sprintf("; %d position(s) wait for their market to resolve", res.Unresolved)
	}
	s.log().InfoContext(ctx, "positions redeemed", "user_id", in.Input.UserID, "agent_id", caller,
		"positions", len(res.Redemptions), "payout_micro", res.TotalPayoutMicro,
		"other_agents_positions", len(res.OtherAgents), "wallet_payout_micro", res.WalletPayoutMicro)
	return res, nil
}

// usdc renders micro-units as an exact decimal.
func usdc(v int64) string { return micro.Decimal(v).String() }

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

// redemptionsDetail is the audit detail of positions' redemptions. Its keys
// avoid the words the audit log redacts ("token").
func redemptionsDetail(rs []Redemption) []map[string]any {
	list := make([]map[string]any, 0, len(rs))
	for _, x := range rs {
		m := map[string]any{
			"positionId": x.PositionID, "conditionId": x.ConditionID, "outcome": x.Outcome,
			"shares": usdc(x.SharesMicro), "payout": usdc(x.PayoutMicro), "txHash": x.TxHash,
		}
		if x.AgentID != "" {
			m["agentId"] = x.AgentID
		}
		list = append(list, m)
	}
	return list
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
// or redemption (ActionRedeem; the other agents whose positions it settled
// got their ActionRedeemShared entries when they were recorded). Detail
// keys avoid the words the audit log redacts ("token"), so the entry keeps
// the asset and outcome names.
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
		detail["redemptions"] = redemptionsDetail(rd.Redemptions)
		detail["totalPayout"] = usdc(rd.TotalPayoutMicro)
		detail["transactionHashes"] = rd.TransactionHashes
		if len(rd.OtherAgents) > 0 {
			detail["otherAgents"] = redemptionsDetail(rd.OtherAgents)
		}
		if len(rd.Unattributed) > 0 {
			list := make([]map[string]any, 0, len(rd.Unattributed))
			for _, x := range rd.Unattributed {
				list = append(list, map[string]any{
					"conditionId": x.ConditionID, "outcome": x.Outcome,
					"shares": usdc(x.SharesMicro), "payout": usdc(x.PayoutMicro), "txHash": x.TxHash,
				})
			}
			detail["unattributed"] = list
		}
		if rd.WalletPayoutMicro > 0 || rd.WalletSharesMicro > 0 {
			detail["walletShares"] = usdc(rd.WalletSharesMicro)
			detail["walletPayout"] = usdc(rd.WalletPayoutMicro)
		}
	}
	if len(detail) > 0 {
		e.Detail = detail
	}
	return s.audit().Record(ctx, e)
}

// byCondition groups the redeemable positions keep accepts by market (in
// the store's creation order), narrowed to in.ConditionID when it names one.
// resolvedPayouts reads condition c's payouts (numerators, denominator)
// from the chain.
// A condition not resolved yet (denominator 0) answers resolved false and
// counts agentID's positions among ps in plan.Unresolved; paper and live
// plans alike.
func (s *Service) resolvedPayouts(ctx context.Context, c string, ps []*models.Position, agentID string, plan *RedeemPlan) (nums []*big.Int, den *big.Int, resolved bool, err error) {
	nums, den, err = s.Chain.Payouts(ctx, common.HexToHash(c))
	if err != nil {
		return nil, nil, false, err
	}
	if den.Sign() == 0 {
		for _, p := range ps {
			if p.AgentID == agentID {
				plan.Unresolved++
			}
		}
		return nil, nil, false, nil
	}
	return nums, den, true, nil
}

func byCondition(all []models.Position, in RedeemInput, keep func(*models.Position) bool) (map[string][]*models.Position, []string) {
	byCond := map[string][]*models.Position{}
	var conds []string
	for i := range all {
		p := &all[i]
		if !redeemable(p) || !keep(p) {
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
	return byCond, conds
}

// plannedCondition is market m's condition c as a plan names it, with the
// index of each of its tokens among the market's outcomes (the payouts'
// order).
func plannedCondition(c string, m *clob.Market) (PlannedCondition, map[string]int) {
	pc := PlannedCondition{ConditionID: c, NegRisk: m.NegRisk}
	index := map[string]int{}
	for i, t := range m.Tokens {
		pc.TokenIDs = append(pc.TokenIDs, t.TokenID)
		index[t.TokenID] = i
	}
	return pc, index
}
