package settlements_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/agentauth"
	"github.com/agent-trading/ats/api/idempotency"
	"github.com/agent-trading/ats/api/openapi/openapitest"
	apisettlements "github.com/agent-trading/ats/api/settlements"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/settlements"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/workflows"
)

// scriptedRunner stands in for Temporal behind workflows.Settlements: it
// records the workflow inputs and answers with the scripted result. The workflows themselves run in the end-to-end test.
type scriptedRunner struct {
	mu      sync.Mutex
	approve []settlements.ApproveInput
	redeem  []settlements.RedeemInput
	aRes    settlements.ApproveResult
	rRes    settlements.RedeemResult
	err     error
}

func (r *scriptedRunner) RunApprove(_ context.Context, in settlements.ApproveInput) (settlements.ApproveResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.approve = append(r.approve, in)
	return r.aRes, r.err
}

func (r *scriptedRunner) RunRedeem(_ context.Context, in settlements.RedeemInput) (settlements.RedeemResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.redeem = append(r.redeem, in)
	return r.rRes, r.err
}

type env struct {
	st  *store.Store
	srv http.Handler
	run *scriptedRunner
}

func newEnv(t *testing.T) *env {
	t.Helper()
	st := storetest.NewSQLite(t)
	run := &scriptedRunner{}
	svc := &workflows.Settlements{Runs: run}
	srv := api.New(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{
		Routes: []api.Routes{apisettlements.Routes(apisettlements.Deps{Settlements: svc},
			idempotency.Middleware(st, idempotency.Options{}), agentauth.Middleware(st, nil))},
	})
	return &env{st: st, srv: srv, run: run}
}

type agent struct{ userID, agentID, key string }

func (e *env) agent(t *testing.T, scopes string) agent {
	t.Helper()
	ctx := context.Background()
	u := &models.User{Email: models.NewID("u") + "@example.com"}
	require.NoError(t, e.st.CreateUser(ctx, u))
	plain, hash, prefix := secret.NewAPIKey()
	a := &models.Agent{UserID: u.ID, Name: "bot", Scopes: scopes}
	require.NoError(t, e.st.CreateAgentWithKey(ctx, a, &models.APIKey{Hash: hash, DisplayPrefix: prefix}))
	return agent{userID: u.ID, agentID: a.ID, key: plain}
}

type reply struct {
	status int
	body   map[string]json.RawMessage
	raw    string
}

func (e *env) post(t *testing.T, key, path string, body io.Reader, hdr map[string]string) reply {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/api/agent/v1"+path, body)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	openapitest.Handler(t, e.srv).ServeHTTP(rec, req)
	r := reply{status: rec.Code, raw: rec.Body.String()}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &r.body), r.raw)
	return r
}

func str(t *testing.T, r reply, k string) string {
	t.Helper()
	var s string
	if raw, ok := r.body[k]; ok {
		require.NoError(t, json.Unmarshal(raw, &s))
	}
	return s
}

func TestApproveEndpoint(t *testing.T) {
	e := newEnv(t)
	a := e.agent(t, "read trade")
	e.run.aRes = settlements.ApproveResult{
		Token: "CTF",
		Approvals: []settlements.Approval{
			{Token: "CTF", Spender: "0xE111180000d2663C0091e4f400237545B87B996B", SpenderName: "exchange", Status: settlements.StatusApproved, TxHash: "0xaa"},
			{Token: "CTF", Spender: "0xd91E80cF2E7be2e162c6513ceD06f1dD0dA35296", SpenderName: "negRiskAdapter", Status: settlements.StatusAlreadyApproved},
		},
		TransactionHashes: []string{"0xaa"},
	}
	r := e.post(t, a.key, "/wallet/approve", strings.NewReader(`{"token":"ctf"}`), nil)
	require.Equal(t, http.StatusOK, r.status, r.raw)
	assert.Equal(t, "granted 1 approval(s)", str(t, r, "message"))
	assert.JSONEq(t, `{"token":"CTF","approvals":[
		{"token":"CTF","spender":"0xE111180000d2663C0091e4f400237545B87B996B","spenderName":"exchange","status":"approved","txHash":"0xaa"},
		{"token":"CTF","spender":"0xd91E80cF2E7be2e162c6513ceD06f1dD0dA35296","spenderName":"negRiskAdapter","status":"alreadyApproved"}],
		"transactionHashes":["0xaa"]}`, string(r.body["data"]))
	require.Len(t, e.run.approve, 1)
	assert.Equal(t, settlements.ApproveInput{UserID: a.userID, AgentID: a.agentID, Token: "CTF", ClientAddr: "192.0.2.1"}, e.run.approve[0])

	e.run.aRes = settlements.ApproveResult{Token: "all", Approvals: []settlements.Approval{}}
	r = e.post(t, a.key, "/wallet/approve", strings.NewReader(`{"token":"all"}`), nil)
	require.Equal(t, http.StatusOK, r.status, r.raw)
	assert.Equal(t, "every approval was already in place; nothing was sent", str(t, r, "message"))
	assert.JSONEq(t, `{"token":"all","approvals":[],"transactionHashes":[]}`, string(r.body["data"]))

	for _, tc := range []struct {
		name, key, body string
		status          int
		code            string
	}{
		{"unknown token", a.key, `{"token":"DAI"}`, 400, "invalid_token"},
		{"no token", a.key, `{}`, 400, "invalid_token"},
		{"unknown field", a.key, `{"token":"all","amount":1}`, 400, ""},
		{"no body", a.key, ``, 400, ""},
		{"no key", "", `{"token":"all"}`, 401, "missing_api_key"},
		{"read-only agent", e.agent(t, "read redeem").key, `{"token":"all"}`, 403, "insufficient_scope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := len(e.run.approve)
			r := e.post(t, tc.key, "/wallet/approve", strings.NewReader(tc.body), nil)
			assert.Equal(t, tc.status, r.status, r.raw)
			if tc.code != "" {
				assert.Equal(t, tc.code, str(t, r, "code"), r.raw)
			}
			assert.Len(t, e.run.approve, n, "a refused request must not start a workflow")
		})
	}

	t.Run("venue rejection", func(t *testing.T) {
		e.run.err = errs.E(errs.VenueRejected, "not enough gas funds to pay for the transaction").WithCode("insufficient_gas")
		defer func() { e.run.err = nil }()
		r := e.post(t, a.key, "/wallet/approve", strings.NewReader(`{"token":"USDC"}`), nil)
		assert.Equal(t, http.StatusUnprocessableEntity, r.status, r.raw)
		assert.Equal(t, "insufficient_gas", str(t, r, "code"))
	})

	t.Run("idempotency key replays without a second workflow", func(t *testing.T) {
		n := len(e.run.approve)
		hdr := map[string]string{"Idempotency-Key": "approve-1"}
		first := e.post(t, a.key, "/wallet/approve", strings.NewReader(`{"token":"all"}`), hdr)
		second := e.post(t, a.key, "/wallet/approve", strings.NewReader(`{"token":"all"}`), hdr)
		require.Equal(t, http.StatusOK, first.status, first.raw)
		assert.Equal(t, first.raw, second.raw)
		assert.Len(t, e.run.approve, n+1)
	})
}

func TestRedeemEndpoint(t *testing.T) {
	e := newEnv(t)
	a := e.agent(t, "read redeem")
	cond := "0x" + strings.Repeat("ab", 32)
	e.run.rRes = settlements.RedeemResult{
		AgentID: a.agentID,
		Redemptions: []settlements.Redemption{
			{PositionID: "pos_1", TokenID: "123", ConditionID: cond, Outcome: "Yes", SharesMicro: 10_500_000, PayoutMicro: 10_500_000, TxHash: "0xbb"},
			{PositionID: "pos_2", TokenID: "456", ConditionID: cond, Outcome: "No", SharesMicro: 3_000_001, PayoutMicro: 0, TxHash: "0xbb"},
		},
		TotalPayoutMicro: 10_500_000, TransactionHashes: []string{"0xbb"}, Unresolved: 2,
		OtherAgents: []settlements.Redemption{
			{AgentID: "agt_2", PositionID: "pos_3", TokenID: "123", ConditionID: cond, Outcome: "Yes", SharesMicro: 2_000_000, PayoutMicro: 2_000_000, TxHash: "0xbb"},
			{AgentID: "agt_3", PositionID: "pos_4", TokenID: "456", ConditionID: cond, Outcome: "No", SharesMicro: 500_000, PayoutMicro: 0, TxHash: "0xbb"},
		},
		Unattributed: []settlements.UnattributedRedemption{
			{TokenID: "123", ConditionID: cond, Outcome: "Yes", SharesMicro: 1_250_000, PayoutMicro: 1_250_000, TxHash: "0xbb"},
		},
		WalletSharesMicro: 17_250_001, WalletPayoutMicro: 13_750_000,
		Message: "redeemed 2 position(s) in 1 market(s) for 10.5 USDC; 2 position(s) wait for their market to resolve",
	}
	r := e.post(t, a.key, "/settlements/redeem", nil, nil)
	require.Equal(t, http.StatusOK, r.status, r.raw)
	assert.Equal(t, e.run.rRes.Message, str(t, r, "message"))
	assert.JSONEq(t, `{"redeemed":[
		{"positionId":"pos_1","tokenId":"123","conditionId":"`+cond+`","outcome":"Yes","shares":10.5,"payout":10.5,"txHash":"0xbb"},
		{"positionId":"pos_2","tokenId":"456","conditionId":"`+cond+`","outcome":"No","shares":3.000001,"payout":0,"txHash":"0xbb"}],
		"totalPayout":10.5,"transactionHashes":["0xbb"],"unresolved":2,
		"otherAgents":{"shares":2.5,"payout":2},
		"unattributed":[{"tokenId":"123","conditionId":"`+cond+`","outcome":"Yes","shares":1.25,"payout":1.25,"txHash":"0xbb"}],
		"walletShares":17.250001,"walletPayout":13.75}`, string(r.body["data"]))
	for _, foreign := range []string{"agt_2", "pos_3", "agt_3", "pos_4"} {
		assert.NotContains(t, r.raw, foreign, "the answer names another agent's agent or position")
	}
	require.Len(t, e.run.redeem, 1)
	assert.Equal(t, settlements.RedeemInput{UserID: a.userID, AgentID: a.agentID, ClientAddr: "192.0.2.1"}, e.run.redeem[0])

	for _, tc := range []struct {
		name, body, want string
	}{
		{"empty object", `{}`, ""},
		{"white space", " \n", ""},
		{"one market", `{"conditionId":"` + strings.ToUpper(cond[2:]) + `"}`, "invalid"},
		{"one market, prefixed", `{"conditionId":"0x` + strings.ToUpper(cond[2:]) + `"}`, cond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := len(e.run.redeem)
			r := e.post(t, a.key, "/settlements/redeem", strings.NewReader(tc.body), nil)
			if tc.want == "invalid" {
				assert.Equal(t, http.StatusBadRequest, r.status, r.raw)
				assert.Equal(t, "invalid_condition_id", str(t, r, "code"))
				assert.Len(t, e.run.redeem, n)
				return
			}
			require.Equal(t, http.StatusOK, r.status, r.raw)
			require.Len(t, e.run.redeem, n+1)
			assert.Equal(t, tc.want, e.run.redeem[n].ConditionID)
		})
	}

	for _, tc := range []struct {
		name, key, body string
		status          int
	}{
		{"trade-only agent", e.agent(t, "read trade").key, ``, 403},
		{"malformed body", a.key, `{"conditionId":`, 400},
		{"wrong type", a.key, `{"conditionId":5}`, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := len(e.run.redeem)
			r := e.post(t, tc.key, "/settlements/redeem", strings.NewReader(tc.body), nil)
			assert.Equal(t, tc.status, r.status, r.raw)
			assert.Len(t, e.run.redeem, n)
		})
	}

	t.Run("nothing to redeem", func(t *testing.T) {
		e.run.rRes = settlements.NothingToRedeem(settlements.RedeemInput{}, settlements.RedeemPlan{})
		r := e.post(t, a.key, "/settlements/redeem", nil, nil)
		require.Equal(t, http.StatusOK, r.status, r.raw)
		assert.Equal(t, "nothing to redeem: no positions in resolved markets", str(t, r, "message"))
		assert.JSONEq(t, `{"redeemed":[],"totalPayout":0,"transactionHashes":[],"unresolved":0,
			"otherAgents":{"shares":0,"payout":0},"unattributed":[],"walletShares":0,"walletPayout":0}`, string(r.body["data"]))
	})
}
