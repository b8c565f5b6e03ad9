// Package clientcompat_test proves the sandbox speaks the live venue's
// protocol: the official @polymarket/clob-client-v2 (pinned in package.json),
// unchanged, trades against it.
package clientcompat_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/agent-trading/ats/sandbox"
	"github.com/agent-trading/ats/venue/chain"
)

// needNode returns the node binary, skipping (failing under CI, which
// installs both) when node or the pinned client is missing.
func needNode(t *testing.T) string {
	t.Helper()
	skip := t.Skipf
	if os.Getenv("CI") != "" {
		skip = t.Fatalf
	}
	node, err := exec.LookPath("node")
	if err != nil {
		skip("node not installed")
	}
	if _, err := os.Stat(filepath.Join("node_modules", "@polymarket", "clob-client-v2")); err != nil {
		skip("the official client is not installed: run npm ci in sandbox/clientcompat")
	}
	return node
}

func TestOfficialClientTradesAgainstSandbox(t *testing.T) {
	node := needNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	sb, err := sandbox.Start(ctx, sandbox.Config{Addr: "127.0.0.1:0", Seed: 7, BlockInterval: 100 * time.Millisecond,
		Ordinary: 2, DisableUpDown: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Close() })

	var markets []struct {
		ConditionID string   `json:"conditionId"`
		TokenIDs    []string `json:"tokenIds"`
		Resolved    bool     `json:"resolved"`
		NegRisk     bool     `json:"negRisk"`
	}
	getJSON(t, sb.URL()+"/control/markets", &markets)
	tokenID, conditionID := "", ""
	for _, m := range markets {
		if !m.Resolved && !m.NegRisk {
			tokenID, conditionID = m.TokenIDs[0], m.ConditionID
			break
		}
	}
	if tokenID == "" {
		t.Fatal("the sandbox lists no open market")
	}

	// A fresh EOA, funded through the control API and approved for trading
	// through the chain client (the official client does no approvals).
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	addr := crypto.PubkeyToAddress(key.PublicKey)
	postJSON(t, sb.URL()+"/control/wallets/"+addr.Hex()+"/fund", `{"usdc": 100, "native": 1}`)
	rpc, err := ethclient.DialContext(ctx, sb.Network().RPCURL)
	if err != nil {
		t.Fatal(err)
	}
	defer rpc.Close()
	cl := chain.New(sb.Network(), rpc, chain.Options{ReceiptPoll: 20 * time.Millisecond})
	if _, err := cl.Approve(ctx, chain.Wallet{Kind: chain.EOA, Owner: addr, Signer: chain.NewKeySigner(key)}, chain.ApproveAll); err != nil {
		t.Fatal(err)
	}
	before, err := cl.CollateralBalance(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}

	cmd := exec.CommandContext(ctx, node, "compat.mjs", sb.Network().CLOBURL, "0x"+hex.EncodeToString(crypto.FromECDSA(key)), tokenID, conditionID)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("official client failed: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	var res struct {
		DeriveRefused string `json:"deriveRefused"`
		Batch         []struct {
			Success  bool   `json:"success"`
			Status   string `json:"status"`
			OrderID  string `json:"orderID"`
			ErrorMsg string `json:"errorMsg"`
		} `json:"batch"`
		CancelledByAsset  []string `json:"cancelledByAsset"`
		CancelledByMarket []string `json:"cancelledByMarket"`
		RestingOrderID    string   `json:"restingOrderID"`
		Cancelled         []string `json:"cancelled"`
		MarketOrderID     string   `json:"marketOrderID"`
		MarketStatus      string   `json:"marketStatus"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("client output %q: %v", stdout.String(), err)
	}
	t.Logf("official client: %s", stdout.String())
	if res.MarketStatus != "matched" || res.MarketOrderID == "" {
		t.Fatalf("marketable order not matched: %+v", res)
	}
	// The script checked each step; the answers are the venue's too.
	if res.DeriveRefused != "Could not derive api key!" {
		t.Errorf("derive of a missing key answered %q, want the venue's refusal", res.DeriveRefused)
	}
	if len(res.Batch) != 3 || res.Batch[0].Status != "live" || res.Batch[1].Status != "live" || res.Batch[2].Success || res.Batch[2].ErrorMsg == "" {
		t.Errorf("batch answers: %+v", res.Batch)
	}
	if len(res.CancelledByAsset) != 2 || len(res.CancelledByMarket) != 1 {
		t.Errorf("cancel-market-orders: by asset %v, by market %v", res.CancelledByAsset, res.CancelledByMarket)
	}

	// The fill settled on chain: shares arrived and collateral left.
	tok, _ := new(big.Int).SetString(tokenID, 10)
	shares, err := cl.OutcomeBalance(ctx, addr, tok)
	if err != nil {
		t.Fatal(err)
	}
	if shares.Sign() <= 0 {
		t.Fatalf("no outcome tokens on chain after the fill")
	}
	after, err := cl.CollateralBalance(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	if after.Cmp(before) >= 0 {
		t.Fatalf("collateral did not move: before %s after %s", before, after)
	}
}

func getJSON(t *testing.T, url string, into any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
		t.Fatal(err)
	}
}

func postJSON(t *testing.T, url, body string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s", url, resp.Status)
	}
}
