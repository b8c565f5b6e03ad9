package workflows_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/settlements"
	"github.com/agent-trading/ats/workflows"
)

// recordingRunner is a SettlementRuns that answers with what it was asked, so
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

// blockingRunner is a SettlementRuns whose workflows outlive every wait.
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
	s := &workflows.Settlements{Runs: blockingRunner{}, Wait: 20 * time.Millisecond}
	_, err := s.Approve(context.Background(), settlementPrincipal, "all")
	e, ok := errs.As(err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, errs.Transient, e.Kind)
	assert.Equal(t, errs.CodeSettlementPending, e.Code)
	assert.Equal(t, 5, e.RetryAfterSeconds)
	assert.Contains(t, e.Message, "approval is still running")
	_, err = s.Redeem(context.Background(), settlementPrincipal, "")
	assert.Equal(t, errs.CodeSettlementPending, errs.CodeOf(err))

	gone, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = s.Redeem(gone, settlementPrincipal, "")
	require.Error(t, err)
	assert.NotEqual(t, errs.CodeSettlementPending, errs.CodeOf(err))
}

var settlementPrincipal = orders.Principal{AgentID: "agt_1", UserID: "usr_1", ClientAddr: "10.0.0.1"}

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
			s := &workflows.Settlements{Runs: r}
			res, err := s.Approve(context.Background(), settlementPrincipal, tc.in)
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
			s := &workflows.Settlements{Runs: r}
			_, err := s.Redeem(context.Background(), settlementPrincipal, tc.in)
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
