package settlements_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/settlements"
	"github.com/agent-trading/ats/models/settlements/settlementstest"
	"github.com/agent-trading/ats/venue/chain"
)

// TestApproveWallet grants the approvals on the real sandbox chain; the
// second call sends nothing and reports everything as already approved.
func TestApproveWallet(t *testing.T) {
	e := settlementstest.New(t)
	u := e.User(t, 0)
	ctx := settlementstest.Ctx(t)
	in := settlements.ApproveInput{UserID: u.UserID, AgentID: u.AgentID, Token: "all"}

	res, err := e.Service.ApproveWallet(ctx, in)
	require.NoError(t, err)
	req, err := e.Client.RequiredApprovals(chain.ApproveAll)
	require.NoError(t, err)
	require.Len(t, res.Approvals, len(req))
	require.Len(t, res.TransactionHashes, len(req))
	assert.Equal(t, uint64(len(req)), e.Nonce(t, u.Maker))
	n := e.Client.Network()
	for i, a := range res.Approvals {
		assert.Equal(t, req[i].Token, a.Token)
		assert.Equal(t, req[i].Spender.Hex(), a.Spender)
		assert.Equal(t, settlements.StatusApproved, a.Status)
		assert.Equal(t, res.TransactionHashes[i], a.TxHash)
		assert.NotEqual(t, "unknown", a.SpenderName, "spender %s", a.Spender)
		assert.Equal(t, settlements.SpenderName(n, req[i].Spender), a.SpenderName)
	}
	assert.Equal(t, "exchange", res.Approvals[0].SpenderName)

	again, err := e.Service.ApproveWallet(ctx, in)
	require.NoError(t, err)
	assert.Empty(t, again.TransactionHashes)
	for _, a := range again.Approvals {
		assert.Equal(t, settlements.StatusAlreadyApproved, a.Status)
		assert.Empty(t, a.TxHash)
	}
	assert.Equal(t, uint64(len(req)), e.Nonce(t, u.Maker), "the second approval sent transactions")

	_, err = e.Service.ApproveWallet(ctx, settlements.ApproveInput{UserID: "usr_nobody", Token: "all"})
	assert.Equal(t, errs.NotFound, errs.KindOf(err), "%v", err)
}

// TestRedeemSteps runs plan, chain and record against the real sandbox
// chain and store, including the crash cases: the chain step repeated
// after its transaction was mined, and the record step repeated after it
// committed.
func TestRedeemSteps(t *testing.T) {
	e := settlementstest.New(t)
	u := e.User(t, 0)
	ctx := settlementstest.Ctx(t)
	const shares = 7_000_000

	won := e.Market(t, "steps resolved", false)
	open := e.Market(t, "steps open", false)
	neg := e.Market(t, "steps neg-risk", true)
	e.Split(t, u, won, shares)
	e.Split(t, u, open, shares)
	e.Split(t, u, neg, shares)
	yes := e.Position(t, u, won, 0, shares)
	no := e.Position(t, u, won, 1, shares)
	e.Position(t, u, open, 0, shares)
	negNo := e.Position(t, u, neg, 1, 4_000_000) // the wallet holds more than the position
	require.NoError(t, e.Chain.Resolve(ctx, won.ConditionID, 0))
	require.NoError(t, e.Chain.Resolve(ctx, neg.ConditionID, 1))

	in := settlements.RedeemInput{UserID: u.UserID, AgentID: u.AgentID}
	plan, err := e.Service.PlanRedeem(ctx, in)
	require.NoError(t, err)
	assert.Equal(t, u.Maker.Hex(), plan.Maker)
	assert.Equal(t, 1, plan.Unresolved)
	require.Len(t, plan.Conditions, 2)
	assert.False(t, plan.Conditions[0].NegRisk)
	assert.True(t, plan.Conditions[1].NegRisk)
	assert.Equal(t, []settlements.PlannedPosition{
		{AgentID: u.AgentID, PositionID: yes.ID, TokenID: yes.TokenID, ConditionID: yes.ConditionID, Outcome: "Yes", SharesMicro: shares, PayoutMicro: shares},
		{AgentID: u.AgentID, PositionID: no.ID, TokenID: no.TokenID, ConditionID: no.ConditionID, Outcome: "No", SharesMicro: shares, PayoutMicro: 0},
		{AgentID: u.AgentID, PositionID: negNo.ID, TokenID: negNo.TokenID, ConditionID: negNo.ConditionID, Outcome: "No", SharesMicro: 4_000_000, PayoutMicro: 4_000_000},
	}, plan.Positions)
	require.Len(t, plan.Holdings, 4, "both outcomes of both markets")

	// One market only.
	only, err := e.Service.PlanRedeem(ctx, settlements.RedeemInput{UserID: u.UserID, AgentID: u.AgentID, ConditionID: strings.ToLower(common.Hash(neg.ConditionID).Hex())})
	require.NoError(t, err)
	require.Len(t, only.Positions, 1)
	assert.Equal(t, negNo.ID, only.Positions[0].PositionID)
	assert.Equal(t, 0, only.Unresolved)

	// The neg-risk adapter needs the CTF approval: refused before any
	// transaction is sent, with the remedy.
	exec := settlements.RedeemExecution{UserID: u.UserID, Plan: plan}
	nonce := e.Nonce(t, u.Maker)
	_, err = e.Service.RedeemOnChain(ctx, exec)
	assert.Equal(t, errs.VenueRejected, errs.KindOf(err), "%v", err)
	assert.Equal(t, "approval_required", errs.CodeOf(err))
	if e, ok := errs.As(err); assert.True(t, ok) {
		assert.Contains(t, e.Hint, "NEG_RISK")
	}
	assert.Equal(t, nonce, e.Nonce(t, u.Maker))
	_, err = e.Service.ApproveWallet(ctx, settlements.ApproveInput{UserID: u.UserID, AgentID: u.AgentID, Token: "NEG_RISK"})
	require.NoError(t, err)

	before := e.Collateral(t, u.Maker)
	nonce = e.Nonce(t, u.Maker)
	done, err := e.Service.RedeemOnChain(ctx, exec)
	require.NoError(t, err)
	require.Len(t, done, 2)
	for _, d := range done {
		assert.False(t, d.Recovered)
		assert.NotEqual(t, (common.Hash{}).Hex(), d.TxHash)
	}
	assert.Equal(t, nonce+2, e.Nonce(t, u.Maker), "one transaction per market")
	// The whole wallet balance of both markets was redeemed: YES won the
	// first (7 paid, the NO side burned), NO won the neg-risk one (7 paid,
	// although the position recorded only 4 of them).
	assert.Equal(t, before+2*shares, e.Collateral(t, u.Maker))

	// The chain step again, as after a crash that lost its result: nothing
	// is sent, both markets are recognised as redeemed.
	again, err := e.Service.RedeemOnChain(ctx, exec)
	require.NoError(t, err)
	assert.Equal(t, []settlements.ChainRedemption{
		{ConditionID: done[0].ConditionID, Recovered: true}, {ConditionID: done[1].ConditionID, Recovered: true},
	}, again)
	assert.Equal(t, nonce+2, e.Nonce(t, u.Maker))

	rec := settlements.RedeemRecord{Input: in, Plan: plan, Chain: done, At: yes.CreatedAt}
	res, err := e.Service.RecordRedemptions(ctx, rec)
	require.NoError(t, err)
	assert.Equal(t, int64(shares+4_000_000), res.TotalPayoutMicro)
	assert.Equal(t, []string{done[0].TxHash, done[1].TxHash}, res.TransactionHashes)
	require.Len(t, res.Redemptions, 3)
	assert.Equal(t, done[0].TxHash, res.Redemptions[1].TxHash)
	assert.Contains(t, res.Message, "redeemed 3 position(s) in 2 market(s) for 11 USDC")
	// The neg-risk market's other 3 NO shares and its 7 YES shares were
	// the wallet's beyond the position.
	assert.Equal(t, []settlements.UnattributedRedemption{
		{TokenID: neg.TokenIDs[0].String(), ConditionID: negNo.ConditionID, Outcome: "Yes", SharesMicro: shares, TxHash: done[1].TxHash},
		{TokenID: negNo.TokenID, ConditionID: negNo.ConditionID, Outcome: "No", SharesMicro: 3_000_000, PayoutMicro: 3_000_000, TxHash: done[1].TxHash},
	}, res.Unattributed)
	assert.Equal(t, int64(2*shares), res.WalletPayoutMicro)
	assert.Empty(t, res.OtherAgents)
	assert.Contains(t, res.Message, "1 position(s) wait")

	// Recording twice (a retry after a commit whose reply was lost) does
	// not count twice.
	_, err = e.Service.RecordRedemptions(ctx, rec)
	require.NoError(t, err)
	for _, want := range []struct {
		p      *models.Position
		shares int64
		payout int64
		tx     string
	}{{yes, shares, shares, done[0].TxHash}, {no, shares, 0, done[0].TxHash}, {negNo, 4_000_000, 4_000_000, done[1].TxHash}} {
		got, err := e.Store.PositionForAgent(ctx, u.AgentID, want.p.ID)
		require.NoError(t, err)
		assert.Equal(t, models.PositionSettled, got.Status)
		assert.Zero(t, got.SizeMicro)
		assert.Equal(t, want.shares, got.RedeemedSizeMicro)
		assert.Equal(t, want.payout, got.PayoutMicro)
		assert.Equal(t, want.tx, got.RedeemTx)
		require.NotNil(t, got.RedeemedAt)
		assert.True(t, got.RedeemedAt.Equal(rec.At), "redeemed at %v", got.RedeemedAt)
	}

	// Nothing left but the open market.
	plan, err = e.Service.PlanRedeem(ctx, in)
	require.NoError(t, err)
	assert.True(t, plan.Empty())
	assert.Equal(t, 1, plan.Unresolved)
	assert.Contains(t, settlements.NothingToRedeem(in, plan).Message, "not resolved")
}

// A wallet that no longer holds the token (sold or redeemed elsewhere) is
// not planned; a plan made for another wallet is refused.
func TestRedeemSkipsWhatTheWalletLacks(t *testing.T) {
	e := settlementstest.New(t)
	u := e.User(t, 0)
	ctx := settlementstest.Ctx(t)
	m := e.Market(t, "not held", false)
	e.Position(t, u, m, 0, 1_000_000)
	require.NoError(t, e.Chain.Resolve(ctx, m.ConditionID, 0))
	plan, err := e.Service.PlanRedeem(ctx, settlements.RedeemInput{UserID: u.UserID, AgentID: u.AgentID})
	require.NoError(t, err)
	assert.True(t, plan.Empty())
	assert.Equal(t, "nothing to redeem: no positions in resolved markets", settlements.NothingToRedeem(settlements.RedeemInput{}, plan).Message)

	e.Split(t, u, m, 1_000_000)
	plan, err = e.Service.PlanRedeem(ctx, settlements.RedeemInput{UserID: u.UserID, AgentID: u.AgentID})
	require.NoError(t, err)
	require.Len(t, plan.Positions, 1)
	plan.Maker = common.HexToAddress("0x1234").Hex()
	_, err = e.Service.RedeemOnChain(ctx, settlements.RedeemExecution{UserID: u.UserID, Plan: plan})
	assert.Equal(t, "wallet_changed", errs.CodeOf(err), "%v", err)
}

// The audit entries keep the approval and redemption details: no detail
// key is one the audit log redacts.
func TestRecordAudit(t *testing.T) {
	e := settlementstest.New(t)
	u := e.User(t, 0)
	ctx := settlementstest.Ctx(t)
	require.NoError(t, e.Service.RecordAudit(ctx, settlements.AuditRecord{
		UserID: u.UserID, AgentID: u.AgentID, ClientAddr: "10.1.1.1", Action: audit.ActionWalletApprove, Target: "USDC",
		Approve: &settlements.ApproveResult{Token: "USDC", Approvals: []settlements.Approval{{Token: "USDC", Spender: "0xabc", SpenderName: "exchange", Status: "approved", TxHash: "0xdef"}}, TransactionHashes: []string{"0xdef"}},
	}))
	require.NoError(t, e.Service.RecordAudit(ctx, settlements.AuditRecord{
		UserID: u.UserID, AgentID: u.AgentID, Action: settlements.ActionRedeem, Target: "all",
		Error: "not enough gas funds to pay for the transaction", ErrorCode: "insufficient_gas",
	}))
	page, err := (&audit.Service{Store: e.Store}).List(ctx, audit.Filter{UserID: u.UserID})
	require.NoError(t, err)
	var got []audit.Record
	for _, r := range page.Entries {
		if r.Action == audit.ActionWalletApprove || r.Action == settlements.ActionRedeem {
			got = append(got, r)
		}
	}
	require.Len(t, got, 2)
	redeem, approve := got[0], got[1] // newest first
	assert.Equal(t, audit.Failure, redeem.Result)
	assert.JSONEq(t, `{"error":"not enough gas funds to pay for the transaction","code":"insufficient_gas"}`, string(redeem.Detail))
	assert.Equal(t, audit.Success, approve.Result)
	assert.Equal(t, "10.1.1.1", approve.ClientAddr)
	var d map[string]any
	require.NoError(t, json.Unmarshal(approve.Detail, &d))
	assert.Equal(t, "USDC", d["selection"])
	assert.NotContains(t, string(approve.Detail), "[redacted]")
	assert.Contains(t, string(approve.Detail), `"asset":"USDC"`)
}

// TestRedeemSharedWallet: two agents of one user share its wallet, and a
// redemption burns the wallet's whole balance of a market. Redeeming
// through one agent settles the other's positions with their share of the
// payout (audited for that agent), redeems shares no agent recorded, and
// leaves the other agent nothing to redeem. The wallet's balance of a
// token is shared out oldest position first.
func TestRedeemSharedWallet(t *testing.T) {
	e := settlementstest.New(t)
	a := e.User(t, 0)
	b := e.Agent(t, a)
	ctx := settlementstest.Ctx(t)

	shared := e.Market(t, "shared wallet: both agents", false)
	capped := e.Market(t, "shared wallet: more recorded than held", false)
	onlyB := e.Market(t, "shared wallet: the other agent only", false)
	open := e.Market(t, "shared wallet: open", false)
	e.Split(t, a, shared, 10_000_000)
	e.Split(t, a, capped, 5_000_000)
	e.Split(t, a, onlyB, 5_000_000)
	e.Split(t, a, open, 1_000_000)
	aYes := e.Position(t, a, shared, 0, 4_000_000)
	bYes := e.Position(t, b, shared, 0, 3_000_000)
	bNo := e.Position(t, b, shared, 1, 2_000_000)
	// Its loss already recorded by GET /positions: still redeemed (for 0).
	bNo.Status = models.PositionSettled
	require.NoError(t, e.Store.SavePosition(ctx, bNo))
	aCapped := e.Position(t, a, capped, 0, 3_000_000)
	bCapped := e.Position(t, b, capped, 0, 4_000_000) // only 2 of them are left in the wallet
	bOnly := e.Position(t, b, onlyB, 1, 5_000_000)
	e.Position(t, a, open, 0, 1_000_000)
	e.Position(t, b, open, 0, 1_000_000)
	require.NoError(t, e.Chain.Resolve(ctx, shared.ConditionID, 0))
	require.NoError(t, e.Chain.Resolve(ctx, capped.ConditionID, 0))
	require.NoError(t, e.Chain.Resolve(ctx, onlyB.ConditionID, 1))

	in := settlements.RedeemInput{UserID: a.UserID, AgentID: a.AgentID, ClientAddr: "10.2.2.2"}
	plan, err := e.Service.PlanRedeem(ctx, in)
	require.NoError(t, err)
	assert.Equal(t, 1, plan.Unresolved, "only the calling agent's unresolved positions count")
	require.Len(t, plan.Conditions, 3)
	pp := func(p *models.Position, shares, payout int64) settlements.PlannedPosition {
		return settlements.PlannedPosition{AgentID: p.AgentID, PositionID: p.ID, TokenID: p.TokenID, ConditionID: p.ConditionID,
			Outcome: p.Outcome, SharesMicro: shares, PayoutMicro: payout}
	}
	assert.Equal(t, []settlements.PlannedPosition{
		pp(aYes, 4_000_000, 4_000_000), pp(bYes, 3_000_000, 3_000_000), pp(bNo, 2_000_000, 0),
		pp(aCapped, 3_000_000, 3_000_000), pp(bCapped, 2_000_000, 2_000_000),
		pp(bOnly, 5_000_000, 5_000_000),
	}, plan.Positions)
	assert.Equal(t, []settlements.PlannedHolding{
		{ConditionID: aYes.ConditionID, TokenID: aYes.TokenID, Outcome: "Yes", SharesMicro: 10_000_000, PayoutMicro: 10_000_000, UnattributedSharesMicro: 3_000_000, UnattributedPayoutMicro: 3_000_000},
		{ConditionID: bNo.ConditionID, TokenID: bNo.TokenID, Outcome: "No", SharesMicro: 10_000_000, PayoutMicro: 0, UnattributedSharesMicro: 8_000_000},
		{ConditionID: aCapped.ConditionID, TokenID: aCapped.TokenID, Outcome: "Yes", SharesMicro: 5_000_000, PayoutMicro: 5_000_000},
		{ConditionID: aCapped.ConditionID, TokenID: capped.TokenIDs[1].String(), Outcome: "No", SharesMicro: 5_000_000, PayoutMicro: 0, UnattributedSharesMicro: 5_000_000},
		{ConditionID: bOnly.ConditionID, TokenID: onlyB.TokenIDs[0].String(), Outcome: "Yes", SharesMicro: 5_000_000, PayoutMicro: 0, UnattributedSharesMicro: 5_000_000},
		{ConditionID: bOnly.ConditionID, TokenID: bOnly.TokenID, Outcome: "No", SharesMicro: 5_000_000, PayoutMicro: 5_000_000},
	}, plan.Holdings)

	before, nonce := e.Collateral(t, a.Maker), e.Nonce(t, a.Maker)
	done, err := e.Service.RedeemOnChain(ctx, settlements.RedeemExecution{UserID: a.UserID, Plan: plan})
	require.NoError(t, err)
	require.Len(t, done, 3)
	assert.Equal(t, nonce+3, e.Nonce(t, a.Maker))
	assert.Equal(t, before+20_000_000, e.Collateral(t, a.Maker), "the winning shares of both agents and of nobody")
	// The chain step again, as after a crash that lost its result: every
	// market's holdings are gone, so nothing is sent.
	repeated, err := e.Service.RedeemOnChain(ctx, settlements.RedeemExecution{UserID: a.UserID, Plan: plan})
	require.NoError(t, err)
	for i, c := range repeated {
		assert.Equal(t, settlements.ChainRedemption{ConditionID: done[i].ConditionID, Recovered: true}, c)
	}
	assert.Equal(t, nonce+3, e.Nonce(t, a.Maker))

	rec := settlements.RedeemRecord{Input: in, Plan: plan, Chain: done, At: time.Date(2026, 3, 4, 5, 6, 7, 891_234_567, time.UTC)}
	res, err := e.Service.RecordRedemptions(ctx, rec)
	require.NoError(t, err)
	r := func(p *models.Position, shares, payout int64, tx string, other bool) settlements.Redemption {
		out := settlements.Redemption{PositionID: p.ID, TokenID: p.TokenID, ConditionID: p.ConditionID, Outcome: p.Outcome,
			SharesMicro: shares, PayoutMicro: payout, TxHash: tx}
		if other {
			out.AgentID = p.AgentID
		}
		return out
	}
	assert.Equal(t, []settlements.Redemption{
		r(aYes, 4_000_000, 4_000_000, done[0].TxHash, false), r(aCapped, 3_000_000, 3_000_000, done[1].TxHash, false),
	}, res.Redemptions)
	assert.Equal(t, int64(7_000_000), res.TotalPayoutMicro)
	assert.Equal(t, []settlements.Redemption{
		r(bYes, 3_000_000, 3_000_000, done[0].TxHash, true), r(bNo, 2_000_000, 0, done[0].TxHash, true),
		r(bCapped, 2_000_000, 2_000_000, done[1].TxHash, true), r(bOnly, 5_000_000, 5_000_000, done[2].TxHash, true),
	}, res.OtherAgents)
	assert.Equal(t, []settlements.UnattributedRedemption{
		{TokenID: aYes.TokenID, ConditionID: aYes.ConditionID, Outcome: "Yes", SharesMicro: 3_000_000, PayoutMicro: 3_000_000, TxHash: done[0].TxHash},
		{TokenID: bNo.TokenID, ConditionID: bNo.ConditionID, Outcome: "No", SharesMicro: 8_000_000, TxHash: done[0].TxHash},
		{TokenID: capped.TokenIDs[1].String(), ConditionID: aCapped.ConditionID, Outcome: "No", SharesMicro: 5_000_000, TxHash: done[1].TxHash},
		{TokenID: onlyB.TokenIDs[0].String(), ConditionID: bOnly.ConditionID, Outcome: "Yes", SharesMicro: 5_000_000, TxHash: done[2].TxHash},
	}, res.Unattributed)
	assert.Equal(t, int64(40_000_000), res.WalletSharesMicro)
	assert.Equal(t, int64(20_000_000), res.WalletPayoutMicro, "what the chain paid")
	assert.Equal(t, "redeemed 2 position(s) in 3 market(s) for 7 USDC; the same redemption paid 10 USDC for 12 share(s) other agents"+
		" of this wallet held; 21 share(s) no agent recorded paid 3 USDC; 1 position(s) wait for their market to resolve", res.Message)
	for _, foreign := range []string{b.AgentID, bYes.ID, bNo.ID, bCapped.ID, bOnly.ID} {
		assert.NotContains(t, res.Message, foreign)
	}

	// Recording again (a retry after a commit whose reply was lost) counts
	// nothing twice and writes no second audit entry for the other agent.
	again, err := e.Service.RecordRedemptions(ctx, rec)
	require.NoError(t, err)
	assert.Equal(t, res, again)
	for _, want := range []struct {
		p              *models.Position
		shares, payout int64
		tx             string
	}{
		{aYes, 4_000_000, 4_000_000, done[0].TxHash}, {bYes, 3_000_000, 3_000_000, done[0].TxHash}, {bNo, 2_000_000, 0, done[0].TxHash},
		{aCapped, 3_000_000, 3_000_000, done[1].TxHash}, {bCapped, 2_000_000, 2_000_000, done[1].TxHash}, {bOnly, 5_000_000, 5_000_000, done[2].TxHash},
	} {
		got, err := e.Store.PositionForAgent(ctx, want.p.AgentID, want.p.ID)
		require.NoError(t, err)
		assert.Equal(t, models.PositionSettled, got.Status, want.p.ID)
		assert.Zero(t, got.SizeMicro, want.p.ID)
		assert.Equal(t, want.shares, got.RedeemedSizeMicro, want.p.ID)
		assert.Equal(t, want.payout, got.PayoutMicro, want.p.ID)
		assert.Equal(t, want.tx, got.RedeemTx, want.p.ID)
		require.NotNil(t, got.RedeemedAt)
		assert.True(t, got.RedeemedAt.Equal(rec.At.Truncate(time.Microsecond)), "redeemed at %v", got.RedeemedAt)
	}
	page, err := (&audit.Service{Store: e.Store}).List(ctx, audit.Filter{UserID: a.UserID, Action: settlements.ActionRedeemShared})
	require.NoError(t, err)
	require.Len(t, page.Entries, 1)
	entry := page.Entries[0]
	assert.Equal(t, b.AgentID, entry.AgentID)
	assert.Equal(t, "all", entry.Target)
	assert.Equal(t, "10.2.2.2", entry.ClientAddr)
	var d struct {
		RedeemedBy  string           `json:"redeemedBy"`
		Redemptions []map[string]any `json:"redemptions"`
		TotalPayout string           `json:"totalPayout"`
	}
	require.NoError(t, json.Unmarshal(entry.Detail, &d))
	assert.Equal(t, a.AgentID, d.RedeemedBy)
	assert.Len(t, d.Redemptions, 4)
	assert.Equal(t, "10", d.TotalPayout)
	assert.NotContains(t, string(entry.Detail), "[redacted]")

	// The calling agent's own entry names what the redemption did for the
	// others and for the wallet.
	require.NoError(t, e.Service.RecordAudit(ctx, settlements.AuditRecord{
		UserID: a.UserID, AgentID: a.AgentID, Action: settlements.ActionRedeem, Target: "all", Redeem: &res,
	}))
	own, err := (&audit.Service{Store: e.Store}).List(ctx, audit.Filter{AgentID: a.AgentID, Action: settlements.ActionRedeem})
	require.NoError(t, err)
	require.Len(t, own.Entries, 1)
	var od struct {
		OtherAgents  []map[string]any `json:"otherAgents"`
		Unattributed []map[string]any `json:"unattributed"`
		WalletPayout string           `json:"walletPayout"`
	}
	require.NoError(t, json.Unmarshal(own.Entries[0].Detail, &od))
	require.Len(t, od.OtherAgents, 4)
	assert.Equal(t, b.AgentID, od.OtherAgents[0]["agentId"])
	assert.Len(t, od.Unattributed, 4)
	assert.Equal(t, "20", od.WalletPayout)
	assert.NotContains(t, string(own.Entries[0].Detail), "[redacted]")

	// The other agent finds nothing left but its open market; so does the
	// calling agent.
	for _, u := range []settlementstest.User{b, a} {
		left, err := e.Service.PlanRedeem(ctx, settlements.RedeemInput{UserID: u.UserID, AgentID: u.AgentID})
		require.NoError(t, err)
		assert.True(t, left.Empty(), "%+v", left)
		assert.Equal(t, 1, left.Unresolved)
	}
	left, err := e.Service.PlanRedeem(ctx, settlements.RedeemInput{UserID: b.UserID, AgentID: b.AgentID, ConditionID: bOnly.ConditionID})
	require.NoError(t, err)
	assert.True(t, left.Empty())
	assert.Equal(t, "nothing to redeem: no position with shares in this market",
		settlements.NothingToRedeem(settlements.RedeemInput{ConditionID: bOnly.ConditionID}, left).Message)
}

// Shares the wallet holds in a market no agent recorded a position in
// (bought outside the service) are redeemed when the request names the
// market, and reported as unattributed. A user without a wallet or
// position has nothing to redeem.
func TestRedeemUnrecordedShares(t *testing.T) {
	e := settlementstest.New(t)
	u := e.User(t, 0)
	ctx := settlementstest.Ctx(t)
	m := e.Market(t, "bought outside the service", false)
	e.Split(t, u, m, 2_500_000)
	cond := strings.ToLower(common.Hash(m.ConditionID).Hex())

	in := settlements.RedeemInput{UserID: u.UserID, AgentID: u.AgentID, ConditionID: cond}
	plan, err := e.Service.PlanRedeem(ctx, in)
	require.NoError(t, err)
	assert.True(t, plan.Empty(), "an unresolved market is not redeemed")

	require.NoError(t, e.Chain.Resolve(ctx, m.ConditionID, 1))
	all, err := e.Service.PlanRedeem(ctx, settlements.RedeemInput{UserID: u.UserID, AgentID: u.AgentID})
	require.NoError(t, err)
	assert.True(t, all.Empty(), "without a position or a named market there is nothing to look at")
	plan, err = e.Service.PlanRedeem(ctx, in)
	require.NoError(t, err)
	require.False(t, plan.Empty())
	assert.Empty(t, plan.Positions)
	require.Len(t, plan.Holdings, 2)

	before := e.Collateral(t, u.Maker)
	done, err := e.Service.RedeemOnChain(ctx, settlements.RedeemExecution{UserID: u.UserID, Plan: plan})
	require.NoError(t, err)
	require.Len(t, done, 1)
	assert.Equal(t, before+2_500_000, e.Collateral(t, u.Maker))
	res, err := e.Service.RecordRedemptions(ctx, settlements.RedeemRecord{Input: in, Plan: plan, Chain: done, At: time.Now()})
	require.NoError(t, err)
	assert.Empty(t, res.Redemptions)
	assert.Empty(t, res.OtherAgents)
	assert.Equal(t, []settlements.UnattributedRedemption{
		{TokenID: m.TokenIDs[0].String(), ConditionID: cond, Outcome: "Yes", SharesMicro: 2_500_000, TxHash: done[0].TxHash},
		{TokenID: m.TokenIDs[1].String(), ConditionID: cond, Outcome: "No", SharesMicro: 2_500_000, PayoutMicro: 2_500_000, TxHash: done[0].TxHash},
	}, res.Unattributed)
	assert.Equal(t, int64(2_500_000), res.WalletPayoutMicro)
	assert.Equal(t, int64(5_000_000), res.WalletSharesMicro)
	assert.Contains(t, res.Message, "5 share(s) no agent recorded paid 2.5 USDC")

	plan, err = e.Service.PlanRedeem(ctx, settlements.RedeemInput{UserID: "usr_nobody", AgentID: "agt_nobody", ConditionID: cond})
	require.NoError(t, err)
	assert.True(t, plan.Empty())

	// A resolved market the venue does not list and no agent traded.
	unlisted, err := e.Chain.PrepareMarket(ctx, crypto.Keccak256Hash([]byte("unlisted")), false)
	require.NoError(t, err)
	require.NoError(t, e.Chain.Resolve(ctx, unlisted.ConditionID, 0))
	plan, err = e.Service.PlanRedeem(ctx, settlements.RedeemInput{UserID: u.UserID, AgentID: u.AgentID,
		ConditionID: strings.ToLower(common.Hash(unlisted.ConditionID).Hex())})
	require.NoError(t, err)
	assert.True(t, plan.Empty())
}

// A plan recorded by the version before redemptions covered the wallet
// (no holdings, positions without their agent: the caller's) still runs:
// the chain step recognises it as done from the positions' tokens and the
// record step books the caller's positions.
func TestRedeemPlanOfEarlierVersion(t *testing.T) {
	e := settlementstest.New(t)
	u := e.User(t, 0)
	ctx := settlementstest.Ctx(t)
	m := e.Market(t, "an earlier version's plan", false)
	e.Split(t, u, m, 3_000_000)
	p := e.Position(t, u, m, 0, 3_000_000)
	require.NoError(t, e.Chain.Resolve(ctx, m.ConditionID, 0))

	in := settlements.RedeemInput{UserID: u.UserID, AgentID: u.AgentID}
	plan, err := e.Service.PlanRedeem(ctx, in)
	require.NoError(t, err)
	var old settlements.RedeemPlan
	b, err := json.Marshal(map[string]any{
		"maker": plan.Maker, "conditions": plan.Conditions, "unresolved": 0,
		"positions": []map[string]any{{"position_id": p.ID, "token_id": p.TokenID, "condition_id": p.ConditionID,
			"outcome": "Yes", "shares_micro": 3_000_000, "payout_micro": 3_000_000}},
	})
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &old))
	require.False(t, old.Empty())

	before, nonce := e.Collateral(t, u.Maker), e.Nonce(t, u.Maker)
	done, err := e.Service.RedeemOnChain(ctx, settlements.RedeemExecution{UserID: u.UserID, Plan: old})
	require.NoError(t, err)
	require.Len(t, done, 1)
	assert.False(t, done[0].Recovered)
	assert.Equal(t, before+3_000_000, e.Collateral(t, u.Maker))
	again, err := e.Service.RedeemOnChain(ctx, settlements.RedeemExecution{UserID: u.UserID, Plan: old})
	require.NoError(t, err)
	assert.True(t, again[0].Recovered)
	assert.Equal(t, nonce+1, e.Nonce(t, u.Maker))

	res, err := e.Service.RecordRedemptions(ctx, settlements.RedeemRecord{Input: in, Plan: old, Chain: done, At: time.Now()})
	require.NoError(t, err)
	require.Len(t, res.Redemptions, 1)
	assert.Empty(t, res.Redemptions[0].AgentID)
	assert.Empty(t, res.OtherAgents)
	assert.Equal(t, int64(3_000_000), res.WalletPayoutMicro)
	got, err := e.Store.PositionForAgent(ctx, u.AgentID, p.ID)
	require.NoError(t, err)
	assert.Equal(t, models.PositionSettled, got.Status)
	assert.Equal(t, int64(3_000_000), got.PayoutMicro)
}
