package e2e

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/agent-trading/ats/cmd/ats/internal/app"
	"github.com/agent-trading/ats/venue/contracts"
	"github.com/agent-trading/ats/venue/network"
)

// devRun is one `ats dev` process of a test.
type devRun struct {
	cmd    *exec.Cmd
	urls   map[string]string
	stderr *syncBuffer
}

// runDevProcess starts `ats dev --demo` on dataDir with every port on :0 and
// waits until it is ready.
func runDevProcess(t *testing.T, bin, temporal, dataDir string) *devRun {
	t.Helper()
	cmd := exec.Command(bin, "dev", "--demo", "--data-dir", dataDir,
		"--http", "127.0.0.1:0", "--ops-listen", "127.0.0.1:0", "--temporal-listen", "127.0.0.1:0", "--temporal-ui-listen", "127.0.0.1:0",
		"--sandbox-addr", "127.0.0.1:0", "--temporal-cli", temporal, "--log-format", "text")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	r := &devRun{cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = r.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		if t.Failed() {
			t.Logf("ats dev stderr:\n%s", r.stderr.String())
		}
	})
	r.urls = readListening(t, stdout, []string{"sandbox", "temporal", "temporal-ui", "api", "ops"}, 90*time.Second)
	waitStatus(t, r.urls["api"]+"/readyz", http.StatusOK, 60*time.Second)
	return r
}

// stop sends SIGINT and waits for a clean exit.
func (r *devRun) stop(t *testing.T) {
	t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ats dev exited with %v\n%s", err, r.stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("ats dev did not stop within 60s of SIGINT")
	}
}

// sharesOnChain reads the wallet's balance of an outcome token from the CTF
// contract through the sandbox chain's JSON-RPC, as any Polygon client would.
func sharesOnChain(t *testing.T, sandboxURL string, wallet common.Address, tokenID string) *big.Int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n := network.Sandbox(sandboxURL)
	rpc, err := ethclient.DialContext(ctx, n.RPCURL)
	if err != nil {
		t.Fatal(err)
	}
	defer rpc.Close()
	ctf, err := contracts.NewConditionalTokens(n.ConditionalTokens, rpc)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := new(big.Int).SetString(tokenID, 10)
	bal, err := ctf.BalanceOf(&bind.CallOpts{Context: ctx}, wallet, id)
	if err != nil {
		t.Fatal(err)
	}
	return bal
}

// agentOrder is the agent API's answer about one order.
type agentOrder struct {
	Data struct {
		Order struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"order"`
	} `json:"data"`
}

// TestDevContinuesAfterRestart is the paper trader's day: an agent buys
// through the agent API and leaves a limit order resting; `ats dev` is
// stopped and started again on the same data dir. The shares are still
// held on chain (balanceOf on the CTF through the chain RPC), the resting
// order is still open, and the shares sell through the agent API against
// the sandbox's book.
func TestDevContinuesAfterRestart(t *testing.T) {
	temporal := temporalCLI(t)
	bin := buildATS(t)
	dir := t.TempDir()

	first := runDevProcess(t, bin, temporal, dir)
	var outputs strings.Builder
	key := linkAgent(t, bin, dir, first.urls, app.DemoEmail, "restart-e2e", &outputs)
	var m struct {
		ConditionID string   `json:"conditionId"`
		TokenIDs    []string `json:"tokenIds"`
	}
	sandboxPost(t, first.urls["sandbox"]+"/control/markets", fmt.Sprintf(`{"question":"Will the sandbox remember the position","slug":"sandbox-remembers","price":0.5,"endDate":%q}`,
		time.Now().Add(72*time.Hour).UTC().Format(time.RFC3339)), &m)
	if len(m.TokenIDs) != 2 {
		t.Fatalf("created market: %+v", m)
	}
	token := m.TokenIDs[0]
	var bal struct {
		Data struct {
			USDC    float64 `json:"usdc"`
			Address string  `json:"address"`
		} `json:"data"`
	}
	agentJSON(t, first.urls["api"], key, http.MethodGet, "/balance", "", http.StatusOK, &bal)
	wallet := common.HexToAddress(bal.Data.Address)

	var bought agentOrder
	agentJSON(t, first.urls["api"], key, http.MethodPost, "/orders",
		`{"tokenId":"`+token+`","side":"BUY","price":0.7,"size":10,"type":"MARKET"}`, http.StatusOK, &bought)
	if bought.Data.Order.Status != "FILLED" {
		t.Fatalf("market buy: %+v", bought.Data.Order)
	}
	var resting agentOrder
	agentJSON(t, first.urls["api"], key, http.MethodPost, "/orders",
		`{"tokenId":"`+token+`","side":"BUY","price":0.2,"size":10}`, http.StatusOK, &resting)
	if resting.Data.Order.Status != "OPEN" {
		t.Fatalf("limit order: %+v", resting.Data.Order)
	}
	if got := sharesOnChain(t, first.urls["sandbox"], wallet, token); got.Cmp(big.NewInt(10_000_000)) != 0 {
		t.Fatalf("shares on chain before the restart: %s", got)
	}
	agentJSON(t, first.urls["api"], key, http.MethodGet, "/balance", "", http.StatusOK, &bal)
	usdcBefore := bal.Data.USDC
	first.stop(t)

	second := runDevProcess(t, bin, temporal, dir)
	if got := sharesOnChain(t, second.urls["sandbox"], wallet, token); got.Cmp(big.NewInt(10_000_000)) != 0 {
		t.Fatalf("shares on chain after the restart: %s, want 10000000", got)
	}
	agentJSON(t, second.urls["api"], key, http.MethodGet, "/balance", "", http.StatusOK, &bal)
	if bal.Data.USDC != usdcBefore {
		t.Errorf("balance %v after the restart, %v before: the demo wallet was funded again", bal.Data.USDC, usdcBefore)
	}
	var open agentOrder
	agentJSON(t, second.urls["api"], key, http.MethodGet, "/orders/"+resting.Data.Order.ID, "", http.StatusOK, &open)
	if open.Data.Order.Status != "OPEN" {
		t.Errorf("the resting order is %s after the restart, want OPEN", open.Data.Order.Status)
	}
	var positions struct {
		Data struct {
			Positions []struct {
				TokenID string  `json:"tokenId"`
				Size    float64 `json:"size"`
			} `json:"positions"`
		} `json:"data"`
	}
	agentJSON(t, second.urls["api"], key, http.MethodGet, "/positions", "", http.StatusOK, &positions)
	if len(positions.Data.Positions) != 1 || positions.Data.Positions[0].TokenID != token || positions.Data.Positions[0].Size != 10 {
		t.Fatalf("positions after the restart: %+v", positions.Data.Positions)
	}

	var sold agentOrder
	agentJSON(t, second.urls["api"], key, http.MethodPost, "/orders",
		`{"tokenId":"`+token+`","side":"SELL","price":0.3,"size":10,"type":"MARKET"}`, http.StatusOK, &sold)
	if sold.Data.Order.Status != "FILLED" {
		t.Fatalf("market sell after the restart: %+v", sold.Data.Order)
	}
	if got := sharesOnChain(t, second.urls["sandbox"], wallet, token); got.Sign() != 0 {
		t.Fatalf("shares on chain after the sell: %s", got)
	}
	agentJSON(t, second.urls["api"], key, http.MethodDelete, "/orders/"+resting.Data.Order.ID, "", http.StatusOK, nil)
	second.stop(t)
}
