package settlements_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/settlements"
	"github.com/agent-trading/ats/models/settlements/settlementstest"
	"github.com/agent-trading/ats/venue/chain"
)

// recordingRunner is a Runner that answers with what it was asked, so
// the service's validation and normalisation can be checked without
// Temporal (the workflows' own tests run them for real).
type recordingRunner struct {
	mu      sync.Mutex
	approve []settlements.ApproveInput
	redeem  []settlements.RedeemInput
}

func (r *recordingRunner) RunApprove(_ context.Context, in settlements.ApproveInput) (settlements.ApproveResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.approve = append(r.approve, in)
	return settlements.ApproveResult{Token: in.Token}, nil
}

func (r *recordingRunner) RunRedeem(_ context.Context, in settlements.RedeemInput) (settlements.RedeemResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.redeem = append(r.redeem, in)
	return settlements.RedeemResult{AgentID: in.AgentID, ConditionID: in.ConditionID}, nil
}

// blockingRunner is a Runner whose workflows outlive every wait.
type blockingRunner struct{}

func (blockingRunner) RunApprove(ctx context.Context, _ settlements.ApproveInput) (settlements.ApproveResult, error) {
	<-ctx.Done()
	return settlements.ApproveResult{}, errs.Wrap(errs.Transient, ctx.Err(), "workflow service unavailable")
}

func (blockingRunner) RunRedeem(ctx context.Context, _ settlements.RedeemInput) (settlements.RedeemResult, error) {
	<-ctx.Done()
	return settlements.RedeemResult{}, errs.Wrap(errs.Transient, ctx.Err(), "workflow service unavailable")
}

// An operation that outlives the wait is answered as still running, with
// a retry delay; a caller that went away is not told anything of the sort.
func TestWaitBound(t *testing.T) {
	s := &settlements.Service{Runner: blockingRunner{}, Wait: 20 * time.Millisecond}
	_, err := s.Approve(context.Background(), principal, "all")
	e, ok := errs.As(err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, errs.Transient, e.Kind)
	assert.Equal(t, settlements.CodePending, e.Code)
	assert.Equal(t, 5, e.RetryAfterSeconds)
	assert.Contains(t, e.Message, "approval is still running")
	_, err = s.Redeem(context.Background(), principal, "")
	assert.Equal(t, settlements.CodePending, errs.CodeOf(err))

	gone, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = s.Redeem(gone, principal, "")
	require.Error(t, err)
	assert.NotEqual(t, settlements.CodePending, errs.CodeOf(err))
}

var principal = orders.Principal{AgentID: "agt_1", UserID: "usr_1", ClientAddr: "10.0.0.1"}

func TestApproveValidatesToken(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"USDC", "USDC"}, {"usdc", "USDC"}, {"CTF", "CTF"}, {"ctf", "CTF"},
		{"NEG_RISK", "NEG_RISK"}, {"neg_risk", "NEG_RISK"}, {"all", "all"}, {"ALL", "all"}, {" all ", "all"},
		{"", ""}, {"DAI", ""}, {"USDC,CTF", ""}, {"negrisk", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			r := &recordingRunner{}
			s := &settlements.Service{Runner: r}
			res, err := s.Approve(context.Background(), principal, tc.in)
			if tc.want == "" {
				require.Error(t, err)
				assert.Equal(t, errs.Invalid, errs.KindOf(err))
				assert.Equal(t, "invalid_token", errs.CodeOf(err))
				assert.Empty(t, r.approve, "an invalid token must not start a workflow")
				return
			}
			require.NoError(t, err)
			require.Len(t, r.approve, 1)
			assert.Equal(t, settlements.ApproveInput{UserID: "usr_1", AgentID: "agt_1", Token: tc.want, ClientAddr: "10.0.0.1"}, r.approve[0])
			assert.Equal(t, tc.want, res.Token)
		})
	}
}

func TestRedeemValidatesCondition(t *testing.T) {
	hexID := "0x" + strings.Repeat("Ab", 32)
	for _, tc := range []struct {
		name, in, want string
		ok             bool
	}{
		{"all markets", "", "", true},
		{"one market, normalised", hexID, strings.ToLower(hexID), true},
		{"surrounding space", " " + hexID + " ", strings.ToLower(hexID), true},
		{"no prefix", strings.Repeat("ab", 32), "", false},
		{"short", "0xabc", "", false},
		{"not hex", "0x" + strings.Repeat("zz", 32), "", false},
		{"a token id", "123456789", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recordingRunner{}
			s := &settlements.Service{Runner: r}
			_, err := s.Redeem(context.Background(), principal, tc.in)
			if !tc.ok {
				require.Error(t, err)
				assert.Equal(t, "invalid_condition_id", errs.CodeOf(err))
				assert.Empty(t, r.redeem)
				return
			}
			require.NoError(t, err)
			require.Len(t, r.redeem, 1)
			assert.Equal(t, settlements.RedeemInput{UserID: "usr_1", AgentID: "agt_1", ConditionID: tc.want, ClientAddr: "10.0.0.1"}, r.redeem[0])
		})
	}
}

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
		{PositionID: yes.ID, TokenID: yes.TokenID, ConditionID: yes.ConditionID, Outcome: "Yes", SharesMicro: shares, PayoutMicro: shares},
		{PositionID: no.ID, TokenID: no.TokenID, ConditionID: no.ConditionID, Outcome: "No", SharesMicro: shares, PayoutMicro: 0},
		{PositionID: negNo.ID, TokenID: negNo.TokenID, ConditionID: negNo.ConditionID, Outcome: "No", SharesMicro: 4_000_000, PayoutMicro: 4_000_000},
	}, plan.Positions)

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
