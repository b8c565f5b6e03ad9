package account_test

import (
	"context"
	"math/big"
	"net/http"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/account"
	"github.com/agent-trading/ats/api/agentauth"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/budget"
	"github.com/agent-trading/ats/models/stats"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/wallets"
	sbchain "github.com/agent-trading/ats/sandbox/chain"
	vchain "github.com/agent-trading/ats/venue/chain"
	"github.com/agent-trading/ats/venue/clob"
)

// TestBalanceFromSandboxChain reads /balance and /budget live from the real
// sandbox EVM through the venue chain client: funding the wallet on chain
// shows up on the next request.
func TestBalanceFromSandboxChain(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an EVM")
	}
	ch, err := sbchain.New(sbchain.Config{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ch.Close() })
	client := vchain.New(ch.Network(), ch.Client(), vchain.Options{})

	st := storetest.NewSQLite(t)
	w := budget.ChainWallets{Wallets: &wallets.Service{Store: st}, Chain: client}
	deps := account.Deps{Wallets: w, Budget: budget.New(st, w, nil), Stats: stats.New(st, nil)}
	e := &env{st: st, chain: &fakeChain{bal: map[common.Address]*big.Int{}}}
	e.srv = api.New(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{
		Routes: []api.Routes{account.Routes(deps, agentauth.Middleware(st, nil))},
	})
	u := e.newUser(t, "read", models.WalletEOA, 0)

	status, body := e.get(t, u.key, "/balance")
	require.Equal(t, http.StatusOK, status, "%s", body)
	assert.JSONEq(t, `{"usdc":0,"address":"`+u.wallet.Hex()+`","walletType":"eoa"}`, string(body["data"]))

	require.NoError(t, ch.Fund(context.Background(), u.wallet, big.NewInt(42_500_000), nil))
	status, body = e.get(t, u.key, "/balance")
	require.Equal(t, http.StatusOK, status, "%s", body)
	assert.JSONEq(t, `{"usdc":42.5,"address":"`+u.wallet.Hex()+`","walletType":"eoa"}`, string(body["data"]))

	status, body = e.get(t, u.key, "/budget")
	require.Equal(t, http.StatusOK, status, "%s", body)
	assert.JSONEq(t, `{"usdc":42.5,"limitedBy":"wallet","wallet":42.5,"config":{"fixedLimit":null,"budgetPercent":null,"maxPositionValue":null,"used":0}}`,
		string(body["data"]))
}

// The production types the lead wires satisfy the engine's interfaces.
var (
	_ budget.WalletFinder     = (*wallets.Service)(nil)
	_ budget.CollateralReader = (*vchain.Client)(nil)
	_ budget.Midpointer       = (*clob.Client)(nil)
	_ budget.WalletBalancer   = budget.ChainWallets{}
	_ account.WalletReader    = budget.ChainWallets{}
)
