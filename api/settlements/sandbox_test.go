package settlements_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/agentauth"
	"github.com/agent-trading/ats/api/idempotency"
	"github.com/agent-trading/ats/api/openapi/openapitest"
	apisettlements "github.com/agent-trading/ats/api/settlements"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/intent/intenttest"
	"github.com/agent-trading/ats/models/settlements"
	"github.com/agent-trading/ats/models/settlements/settlementstest"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/sandbox"
	sbchain "github.com/agent-trading/ats/sandbox/chain"
	"github.com/agent-trading/ats/venue/chain"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/worker"
	"github.com/agent-trading/ats/worker/devserver"
	"github.com/agent-trading/ats/worker/devserver/devservertest"
	"github.com/agent-trading/ats/worker/replaytest"
	"github.com/agent-trading/ats/workflows"
)

// TestSettlementsEndToEnd runs both endpoints against the real stack: the
// sandbox venue (EVM chain, CLOB, control API), the Temporal dev server
// with a worker running the real workflows and activities, the store and
// the HTTP server. It approves (twice at once, then again), buys shares on
// the sandbox exchange for two agents of the same user (one wallet),
// resolves the market through the control API and redeems through the
// first agent, which settles the second agent's position too (then again,
// and through the second agent: nothing is left).
//
// With ATS_RECORD_HISTORY=<dir> it writes the first approval's and
// redemption's histories there as approve.json and redeem.json (the
// replay tests' workflows/testdata).
func TestSettlementsEndToEnd(t *testing.T) {
	bin := devservertest.Binary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))

	sb, err := sandbox.Start(ctx, sandbox.Config{
		Addr: "127.0.0.1:0", Seed: 7, BlockInterval: 50 * time.Millisecond,
		DisableUpDown: true, Ordinary: 2, QuoteInterval: time.Hour,
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = sb.Close() })

	srv, err := devserver.Start(ctx, devserver.Options{Binary: bin, UIPort: -1, LogLevel: "error"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Stop() })
	tc, err := worker.Dial(ctx, worker.ClientConfig{HostPort: srv.FrontendAddr(), CodecKey: replaytest.HistoryCodecKey, Logger: logger})
	require.NoError(t, err)
	t.Cleanup(tc.Close)

	st := storetest.NewSQLite(t)
	e := settlementstest.NewOn(t, sb.EVM(), st)
	svc := e.Service
	svc.Markets = clob.NewClient(clob.ConfigFor(sb.Network())) // the sandbox's real CLOB
	svc.Logger = logger
	w, err := worker.NewWithLogger(tc, worker.Deps{Housekeeper: st, Settlements: svc, Intents: intenttest.Keys(t)}, logger)
	require.NoError(t, err)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)

	hs := httptest.NewServer(openapitest.Handler(t, api.New(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{
		Logger: logger,
		Routes: []api.Routes{apisettlements.Routes(apisettlements.Deps{Settlements: &workflows.Settlements{Runs: workflows.SettlementsClient{Client: tc, Intents: intenttest.Keys(t)}}},
			idempotency.Middleware(st, idempotency.Options{}), agentauth.Middleware(st, nil))},
	})))
	t.Cleanup(hs.Close)
	post := func(key, path, body string) reply {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, hs.URL+"/api/agent/v1"+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+key)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		r := reply{status: resp.StatusCode, raw: string(b)}
		require.NoError(t, json.Unmarshal(b, &r.body), r.raw)
		return r
	}
	record := func(kind workflows.Kind, userID, name string) {
		dir := os.Getenv("ATS_RECORD_HISTORY")
		if dir == "" {
			return
		}
		replaytest.WriteHistory(t, filepath.Join(dir, name), replaytest.History(t, context.Background(), tc, workflows.WorkflowID(kind, userID), ""))
	}

	u := e.User(t, 100_000_000)
	req, err := e.Client.RequiredApprovals(chain.ApproveAll)
	require.NoError(t, err)

	// The same approval sent twice at once: one workflow, one set of
	// transactions, the same answer to both.
	var wg sync.WaitGroup
	first := make([]reply, 2)
	for i := range first {
		wg.Add(1)
		go func() {
			defer wg.Done()
			first[i] = post(u.APIKey, "/wallet/approve", `{"token":"all"}`)
		}()
	}
	wg.Wait()
	for _, r := range first {
		require.Equal(t, http.StatusOK, r.status, r.raw)
	}
	assert.JSONEq(t, string(first[0].body["data"]), string(first[1].body["data"]))
	var approved apisettlements.ApproveResponse
	require.NoError(t, json.Unmarshal(first[0].body["data"], &approved))
	require.Len(t, approved.Approvals, len(req))
	require.Len(t, approved.TransactionHashes, len(req))
	for _, a := range approved.Approvals {
		assert.Equal(t, settlements.StatusApproved, a.Status)
		assert.NotEmpty(t, a.TxHash)
		assert.NotEqual(t, "unknown", a.SpenderName)
	}
	assert.Equal(t, uint64(len(req)), e.Nonce(t, u.Maker), "the concurrent approvals sent transactions twice")
	record(workflows.KindApprove, u.UserID, "approve.json")

	again := post(u.APIKey, "/wallet/approve", `{"token":"all"}`)
	require.Equal(t, http.StatusOK, again.status, again.raw)
	var approvedAgain apisettlements.ApproveResponse
	require.NoError(t, json.Unmarshal(again.body["data"], &approvedAgain))
	assert.Empty(t, approvedAgain.TransactionHashes)
	for _, a := range approvedAgain.Approvals {
		assert.Equal(t, settlements.StatusAlreadyApproved, a.Status)
		assert.Empty(t, a.TxHash)
	}
	assert.Equal(t, uint64(len(req)), e.Nonce(t, u.Maker))

	// Different tokens at once: whichever request meets the other's
	// workflow waits for it and runs its own, so each gets its own answer.
	tokens := []string{"USDC", "CTF", "NEG_RISK"}
	mixed := make([]reply, len(tokens))
	for i, tok := range tokens {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mixed[i] = post(u.APIKey, "/wallet/approve", `{"token":"`+strings.ToLower(tok)+`"}`)
		}()
	}
	wg.Wait()
	for i, r := range mixed {
		require.Equal(t, http.StatusOK, r.status, r.raw)
		var res apisettlements.ApproveResponse
		require.NoError(t, json.Unmarshal(r.body["data"], &res))
		assert.Equal(t, tokens[i], res.Token)
		sel, err := chain.ParseApproveToken(tokens[i])
		require.NoError(t, err)
		want, err := e.Client.RequiredApprovals(sel)
		require.NoError(t, err)
		assert.Len(t, res.Approvals, len(want), tokens[i])
		assert.Empty(t, res.TransactionHashes)
	}

	// Buy 10 YES at 0.60 from the market maker through the exchange.
	var m = sb.Venue().Markets()[0]
	for _, cand := range sb.Venue().Markets() {
		if !cand.NegRisk && !cand.Resolved {
			m = cand
			break
		}
	}
	const shares = 10_000_000
	buy(t, ctx, sb.EVM(), m.ConditionID, m.TokenIDs[0], m.NegRisk, u.Maker, shares)
	pos := &models.Position{
		AgentID: u.AgentID, UserID: u.UserID, TokenID: m.TokenIDs[0], ConditionID: m.ConditionID, Question: m.Question,
		Outcome: m.Outcomes[0], SizeMicro: shares, AvgEntryMicro: 600_000, Status: models.PositionOpen, NegRisk: m.NegRisk,
	}
	require.NoError(t, st.SavePosition(ctx, pos))
	// A second agent of the same user bought 4 YES with the same wallet.
	const sharesB = 4_000_000
	b := e.Agent(t, u)
	buy(t, ctx, sb.EVM(), m.ConditionID, m.TokenIDs[0], m.NegRisk, u.Maker, sharesB)
	posB := &models.Position{
		AgentID: b.AgentID, UserID: u.UserID, TokenID: m.TokenIDs[0], ConditionID: m.ConditionID, Question: m.Question,
		Outcome: m.Outcomes[0], SizeMicro: sharesB, AvgEntryMicro: 600_000, Status: models.PositionOpen, NegRisk: m.NegRisk,
	}
	require.NoError(t, st.SavePosition(ctx, posB))

	// Before resolution there is nothing to redeem.
	early := post(u.APIKey, "/settlements/redeem", "")
	require.Equal(t, http.StatusOK, early.status, early.raw)
	assert.Contains(t, early.raw, "nothing to redeem yet: 1 position(s) are in markets that have not resolved")

	ctrl, err := http.Post(sb.URL()+"/control/markets/"+m.ConditionID+"/resolve", "application/json",
		strings.NewReader(`{"winner":"`+m.Outcomes[0]+`"}`))
	require.NoError(t, err)
	_ = ctrl.Body.Close()
	require.Equal(t, http.StatusOK, ctrl.StatusCode)

	before := e.Collateral(t, u.Maker)
	redeemed := post(u.APIKey, "/settlements/redeem", `{"conditionId":"`+m.ConditionID+`"}`)
	require.Equal(t, http.StatusOK, redeemed.status, redeemed.raw)
	assert.Equal(t, before+shares+sharesB, e.Collateral(t, u.Maker), "collateral must grow by exactly the winning shares of both agents")
	var rr apisettlements.RedeemResponse
	require.NoError(t, json.Unmarshal(redeemed.body["data"], &rr))
	require.Len(t, rr.Redeemed, 1)
	require.Len(t, rr.TransactionHashes, 1)
	assert.Equal(t, apisettlements.Redemption{
		PositionID: pos.ID, TokenID: pos.TokenID, ConditionID: strings.ToLower(m.ConditionID), Outcome: m.Outcomes[0],
		Shares: "10", Payout: "10", TxHash: rr.TransactionHashes[0],
	}, rr.Redeemed[0])
	assert.Equal(t, "10", rr.TotalPayout.String())
	// The other agent's redemption shows as totals only: its agent and
	// position ids are not in the answer.
	assert.Equal(t, apisettlements.OtherAgentsTotal{Shares: "4", Payout: "4"}, rr.OtherAgents)
	assert.NotContains(t, redeemed.raw, b.AgentID)
	assert.NotContains(t, redeemed.raw, posB.ID)
	assert.Empty(t, rr.Unattributed, "every share in the wallet was an agent's")
	assert.Equal(t, "14", rr.WalletShares.String())
	assert.Equal(t, "14", rr.WalletPayout.String())
	assert.Contains(t, redeemed.raw, "the same redemption paid 4 USDC for 4 share(s) other agents of this wallet held")
	rcpt, err := sb.EVM().Client().TransactionReceipt(ctx, common.HexToHash(rr.TransactionHashes[0]))
	require.NoError(t, err)
	assert.Equal(t, uint64(1), rcpt.Status)
	record(workflows.KindRedeem, u.UserID, "redeem.json")

	got, err := st.PositionForAgent(ctx, u.AgentID, pos.ID)
	require.NoError(t, err)
	assert.Equal(t, models.PositionSettled, got.Status)
	assert.Zero(t, got.SizeMicro)
	assert.Equal(t, int64(shares), got.RedeemedSizeMicro)
	assert.Equal(t, int64(shares), got.PayoutMicro)
	assert.Equal(t, rr.TransactionHashes[0], got.RedeemTx)
	assert.NotNil(t, got.RedeemedAt)
	gotB, err := st.PositionForAgent(ctx, b.AgentID, posB.ID)
	require.NoError(t, err)
	assert.Equal(t, models.PositionSettled, gotB.Status)
	assert.Zero(t, gotB.SizeMicro)
	assert.Equal(t, int64(sharesB), gotB.RedeemedSizeMicro)
	assert.Equal(t, int64(sharesB), gotB.PayoutMicro)
	assert.Equal(t, rr.TransactionHashes[0], gotB.RedeemTx)
	assert.True(t, gotB.RedeemedAt.Equal(*got.RedeemedAt), "one redemption, one time")

	nonce := e.Nonce(t, u.Maker)
	second := post(u.APIKey, "/settlements/redeem", "")
	require.Equal(t, http.StatusOK, second.status, second.raw)
	assert.Contains(t, second.raw, "nothing to redeem")
	var rr2 apisettlements.RedeemResponse
	require.NoError(t, json.Unmarshal(second.body["data"], &rr2))
	assert.Empty(t, rr2.Redeemed)
	assert.Equal(t, nonce, e.Nonce(t, u.Maker))
	assert.Equal(t, before+shares+sharesB, e.Collateral(t, u.Maker))

	// The second agent's own redemption finds its position settled:
	// nothing left, no error, nothing sent.
	forB := post(b.APIKey, "/settlements/redeem", `{"conditionId":"`+m.ConditionID+`"}`)
	require.Equal(t, http.StatusOK, forB.status, forB.raw)
	assert.Equal(t, "nothing to redeem: no position with shares in this market", str(t, forB, "message"))
	var rrB apisettlements.RedeemResponse
	require.NoError(t, json.Unmarshal(forB.body["data"], &rrB))
	assert.Empty(t, rrB.Redeemed)
	assert.Equal(t, apisettlements.OtherAgentsTotal{Shares: "0", Payout: "0"}, rrB.OtherAgents)
	assert.Equal(t, "0", rrB.WalletPayout.String())
	assert.Equal(t, nonce, e.Nonce(t, u.Maker))
	assert.Equal(t, before+shares+sharesB, e.Collateral(t, u.Maker))

	page, err := (&audit.Service{Store: st}).List(ctx, audit.Filter{UserID: u.UserID, Limit: 100})
	require.NoError(t, err)
	actions := map[string]int{}
	for _, r := range page.Entries {
		actions[r.Action]++
	}
	assert.Equal(t, 2+len(tokens), actions[audit.ActionWalletApprove], "one entry per approval workflow (the concurrent pair shared one)")
	assert.Equal(t, 4, actions[settlements.ActionRedeem], "three of the first agent, one of the second")
	assert.Equal(t, 1, actions[settlements.ActionRedeemShared])
	shared, err := (&audit.Service{Store: st}).List(ctx, audit.Filter{UserID: u.UserID, Action: settlements.ActionRedeemShared})
	require.NoError(t, err)
	require.Len(t, shared.Entries, 1)
	assert.Equal(t, b.AgentID, shared.Entries[0].AgentID)
	assert.Contains(t, string(shared.Entries[0].Detail), `"redeemedBy":"`+u.AgentID+`"`)
}

// buy makes maker buy shares of tokenID at 0.60 from the sandbox market
// maker: a match settled on the exchange, as the sandbox's engine does.
// The order hashes depend on shares, so buys of different sizes are
// different orders.
func buy(t *testing.T, ctx context.Context, ch *sbchain.Chain, conditionID, tokenID string, negRisk bool, maker common.Address, shares int64) {
	t.Helper()
	mm := ch.MarketMaker()
	cond := common.HexToHash(conditionID)
	require.NoError(t, ch.SplitTo(ctx, mm, cond, big.NewInt(shares)))
	tok, ok := new(big.Int).SetString(tokenID, 10)
	require.True(t, ok)
	cost := big.NewInt(shares * 6 / 10)
	_, err := ch.Settle(ctx, negRisk, sbchain.Match{
		Taker: sbchain.Fill{OrderHash: crypto.Keccak256Hash(maker.Bytes(), cond[:], big.NewInt(shares).Bytes()), Maker: maker, Side: sbchain.Buy,
			TokenID: tok, MakerAmount: cost, TakerAmount: big.NewInt(shares)},
		Makers: []sbchain.Fill{{OrderHash: crypto.Keccak256Hash(cond[:], []byte("mm"), big.NewInt(shares).Bytes()), Maker: crypto.PubkeyToAddress(mm.PublicKey), Side: sbchain.Sell,
			TokenID: tok, MakerAmount: big.NewInt(shares), TakerAmount: cost}},
	})
	require.NoError(t, err)
}
