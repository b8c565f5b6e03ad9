package settlements_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/settlements"
	"github.com/agent-trading/ats/models/settlements/settlementstest"
)

// TestPaperRedeem settles a paper agent's positions from the market's
// resolution on the sandbox chain: the plan pays each paper position what
// its shares pay, nothing is sent to the chain (the wallet's nonce and
// collateral stay), recording credits the user's paper balance once, and
// the live agent's plan of the same user and market leaves the paper
// positions out. A paper agent's wallet approval sends nothing either.
func TestPaperRedeem(t *testing.T) {
	e := settlementstest.New(t)
	live := e.User(t, 0)
	ctx := settlementstest.Ctx(t)
	pa := &models.Agent{UserID: live.UserID, Name: "paper settler", Scopes: "read trade cancel redeem", Mode: models.ModePaper}
	require.NoError(t, e.Store.CreateAgent(ctx, pa))
	paper := settlementstest.User{UserID: live.UserID, AgentID: pa.ID, Maker: live.Maker}

	m := e.Market(t, "paper redeem", false)
	won := e.Position(t, paper, m, 0, 6_000_000)
	lost := e.Position(t, paper, m, 1, 2_000_000)
	require.NoError(t, e.Chain.Resolve(ctx, m.ConditionID, 0))

	// The live agent's plan: the wallet holds none of the paper shares.
	lp, err := e.Service.PlanRedeem(ctx, settlements.RedeemInput{UserID: live.UserID, AgentID: live.AgentID})
	require.NoError(t, err)
	assert.True(t, lp.Empty(), "the live plan took paper positions: %+v", lp)

	in := settlements.RedeemInput{UserID: live.UserID, AgentID: pa.ID}
	plan, err := e.Service.PlanRedeem(ctx, in)
	require.NoError(t, err)
	assert.True(t, plan.Paper)
	require.Len(t, plan.Positions, 2)
	assert.Equal(t, int64(6_000_000), plan.Positions[0].PayoutMicro)
	assert.Equal(t, int64(0), plan.Positions[1].PayoutMicro)

	nonce, coll := e.Nonce(t, live.Maker), e.Collateral(t, live.Maker)
	done, err := e.Service.RedeemOnChain(ctx, settlements.RedeemExecution{UserID: live.UserID, Plan: plan})
	require.NoError(t, err)
	require.Len(t, done, 1)
	_, err = e.Service.ApproveWallet(ctx, settlements.ApproveInput{UserID: live.UserID, AgentID: pa.ID, Token: "all"})
	require.NoError(t, err)
	assert.Equal(t, nonce, e.Nonce(t, live.Maker), "a paper redemption or approval sent a transaction")
	assert.Equal(t, coll, e.Collateral(t, live.Maker))

	before, err := e.Store.PaperBalance(ctx, live.UserID)
	require.NoError(t, err)
	rec := settlements.RedeemRecord{Input: in, Plan: plan, Chain: done, At: time.Now()}
	res, err := e.Service.RecordRedemptions(ctx, rec)
	require.NoError(t, err)
	assert.Equal(t, int64(6_000_000), res.TotalPayoutMicro)
	_, err = e.Service.RecordRedemptions(ctx, rec) // a retry pays nothing twice
	require.NoError(t, err)
	after, err := e.Store.PaperBalance(ctx, live.UserID)
	require.NoError(t, err)
	assert.Equal(t, before+6_000_000, after)
	for _, p := range []*models.Position{won, lost} {
		got, err := e.Store.PositionForAgent(ctx, pa.ID, p.ID)
		require.NoError(t, err)
		assert.Equal(t, models.PositionSettled, got.Status)
	}
}
