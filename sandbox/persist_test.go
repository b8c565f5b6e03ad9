package sandbox_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/sandbox"
	"github.com/agent-trading/ats/sandbox/internal/childtest"
	"github.com/agent-trading/ats/sandbox/markets"
	"github.com/agent-trading/ats/venue/chain"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/network"
)

func persistentConfig(dir string) sandbox.Config {
	return sandbox.Config{Addr: "127.0.0.1:0", Seed: 31, BlockInterval: 20 * time.Millisecond,
		QuoteInterval: time.Hour, Ordinary: 2, DisableUpDown: true, DataDir: dir}
}

func startEVM(t *testing.T, cfg sandbox.Config) *sandbox.Sandbox {
	t.Helper()
	sb, err := sandbox.Start(context.Background(), cfg)
	require.NoError(t, err)
	return sb
}

// evmTrader is a fresh wallet on a running sandbox's EVM chain: funded
// through the control API, its approvals sent over /rpc with the venue's
// chain client, its API key created with L1 auth.
func evmTrader(t *testing.T, ctx context.Context, n network.Network, usdc int) (*trader, *chain.Client) {
	t.Helper()
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	addr := crypto.PubkeyToAddress(key.PublicKey)
	r := postJSON(t, strings.TrimSuffix(n.CLOBURL, "/clob")+"/control/wallets/"+addr.Hex()+"/fund", map[string]any{"usdc": usdc, "native": 1})
	require.Equal(t, 200, r.status, string(r.body))
	cl := chainClient(t, ctx, n)
	_, err = cl.Approve(ctx, chain.Wallet{Kind: chain.EOA, Owner: addr, Signer: chain.NewKeySigner(key)}, chain.ApproveAll)
	require.NoError(t, err)
	tr := &trader{net: n, key: key, addr: addr}
	r = do(t, "POST", n.CLOBURL+"/auth/api-key", l1Headers(t, n, key), nil)
	require.Equal(t, 200, r.status, string(r.body))
	var c struct{ APIKey, Secret, Passphrase string }
	r.json(t, &c)
	tr.creds = clob.Creds{Key: c.APIKey, Secret: c.Secret, Passphrase: c.Passphrase}
	return tr, cl
}

func chainClient(t *testing.T, ctx context.Context, n network.Network) *chain.Client {
	t.Helper()
	rpc, err := ethclient.DialContext(ctx, n.RPCURL)
	require.NoError(t, err)
	t.Cleanup(rpc.Close)
	return chain.New(n, rpc, chain.Options{ReceiptPoll: 10 * time.Millisecond})
}

func blockNumber(t *testing.T, ctx context.Context, n network.Network) uint64 {
	t.Helper()
	rpc, err := ethclient.DialContext(ctx, n.RPCURL)
	require.NoError(t, err)
	defer rpc.Close()
	b, err := rpc.BlockNumber(ctx)
	require.NoError(t, err)
	return b
}

func l1Headers(t *testing.T, n network.Network, key *ecdsa.PrivateKey) map[string][]string {
	t.Helper()
	h, err := clob.L1Headers(context.Background(), clob.NewKeySigner(key), n.ChainID, time.Now().Unix(), 0)
	require.NoError(t, err)
	return h
}

type orderAnswer struct {
	Success      bool   `json:"success"`
	ErrorMsg     string `json:"errorMsg"`
	OrderID      string `json:"orderID"`
	Status       string `json:"status"`
	TakingAmount string `json:"takingAmount"`
}

type openOrder struct {
	ID          string `json:"id"`
	Status      string `json:"status"`
	SizeMatched string `json:"size_matched"`
	Size        string `json:"original_size"`
	Price       string `json:"price"`
}

func (tr *trader) post(t *testing.T, m markets.Info, side clob.Side, price, size string, typ clob.OrderType) orderAnswer {
	t.Helper()
	body, id := tr.order(t, m, 0, side, price, size, typ)
	r := tr.call(t, "POST", "/order", body)
	require.Equal(t, 200, r.status, string(r.body))
	var a orderAnswer
	r.json(t, &a)
	require.Equal(t, id, a.OrderID)
	return a
}

func (tr *trader) getOrder(t *testing.T, id string) (openOrder, int) {
	t.Helper()
	r := tr.call(t, "GET", "/data/order/"+id, nil)
	var o openOrder
	if r.status == 200 {
		r.json(t, &o)
	}
	return o, r.status
}

func tokenOf(m markets.Info) *big.Int {
	tok, _ := new(big.Int).SetString(m.TokenIDs[0], 10)
	return tok
}

// TestSandboxContinuesFromItsDataDir stops a sandbox kept in a data dir and
// starts it again on the same directory: the wallet's API key, its resting
// order, its trade and the shares it bought (on chain) are all there; the
// resting order still matches; the shares sell through the book; the
// markets listed, re-ticked and resolved before the stop are as they were.
func TestSandboxContinuesFromItsDataDir(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an EVM node twice")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	sb := startEVM(t, persistentConfig(dir))
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = sb.Close()
		}
	})
	require.False(t, sb.Restored())
	var created struct {
		ConditionID string   `json:"conditionId"`
		TokenIDs    []string `json:"tokenIds"`
	}
	r := postJSON(t, sb.URL()+"/control/markets", map[string]any{"question": "Will the sandbox remember?", "slug": "sandbox-remembers", "price": 0.5})
	require.Equal(t, 200, r.status, string(r.body))
	r.json(t, &created)
	m, ok := sb.Venue().ByCondition(created.ConditionID)
	require.True(t, ok)
	cat := firstMarket(t, sb)
	r = postJSON(t, sb.URL()+"/control/markets/"+cat.ConditionID+"/resolve", map[string]any{"winner": cat.Outcomes[1]})
	require.Equal(t, 200, r.status, string(r.body))
	var other markets.Info
	for _, x := range sb.Venue().Markets() {
		if !x.Resolved && x.ConditionID != m.ConditionID {
			other = x
		}
	}
	r = postJSON(t, sb.URL()+"/control/markets/"+other.ConditionID+"/tick", map[string]any{"tick": "0.001"})
	require.Equal(t, 200, r.status, string(r.body))

	tr, cl := evmTrader(t, ctx, sb.Network(), 100)
	bought := tr.post(t, m, clob.Buy, "0.51", "10", clob.FOK)
	require.Equal(t, "matched", bought.Status, bought.ErrorMsg)
	resting := tr.post(t, m, clob.Buy, "0.50", "10", clob.GTC)
	require.Equal(t, "live", resting.Status, resting.ErrorMsg)
	shares, err := cl.OutcomeBalance(ctx, tr.addr, tokenOf(m))
	require.NoError(t, err)
	require.Equal(t, int64(10_000_000), shares.Int64())
	var tradesBefore struct{ Data []map[string]any }
	tr.call(t, "GET", "/data/trades", nil).json(t, &tradesBefore)
	require.Len(t, tradesBefore.Data, 1)
	marketsBefore := get(t, sb.URL()+"/control/markets").body
	head := blockNumber(t, ctx, sb.Network())

	require.NoError(t, sb.Close())
	closed = true
	sb2 := startEVM(t, persistentConfig(dir))
	t.Cleanup(func() { _ = sb2.Close() })
	require.True(t, sb2.Restored())
	tr.net = sb2.Network()
	cl = chainClient(t, ctx, sb2.Network())

	// The API key: the old credentials authenticate, derive returns them.
	var derived struct{ APIKey, Secret, Passphrase string }
	do(t, "GET", tr.net.CLOBURL+"/auth/derive-api-key", l1Headers(t, tr.net, tr.key), nil).json(t, &derived)
	assert.Equal(t, tr.creds, clob.Creds{Key: derived.APIKey, Secret: derived.Secret, Passphrase: derived.Passphrase})
	// The chain went on from where it was.
	assert.GreaterOrEqual(t, blockNumber(t, ctx, sb2.Network()), head)
	shares, err = cl.OutcomeBalance(ctx, tr.addr, tokenOf(m))
	require.NoError(t, err)
	assert.Equal(t, int64(10_000_000), shares.Int64(), "the shares bought before the restart are held on chain")
	// The markets as they were (the control API lists the same, prices included).
	assert.JSONEq(t, string(marketsBefore), string(get(t, sb2.URL()+"/control/markets").body))
	// The trade and the resting order.
	var tradesAfter struct{ Data []map[string]any }
	tr.call(t, "GET", "/data/trades", nil).json(t, &tradesAfter)
	require.Len(t, tradesAfter.Data, 1)
	assert.Equal(t, tradesBefore.Data[0]["id"], tradesAfter.Data[0]["id"])
	assert.Equal(t, tradesBefore.Data[0]["transaction_hash"], tradesAfter.Data[0]["transaction_hash"])
	o, status := tr.getOrder(t, resting.OrderID)
	require.Equal(t, 200, status)
	assert.Equal(t, "LIVE", o.Status)
	var b book
	get(t, sb2.URL()+"/clob/book?token_id="+m.TokenIDs[0]).json(t, &b)
	require.NotEmpty(t, b.Bids)
	assert.Equal(t, struct{ Price, Size string }{"0.5", "10"}, b.Bids[len(b.Bids)-1], "the resting bid is the best bid again")
	require.NotEmpty(t, b.Asks, "the market makers quote again")

	// The resting order still matches: an outside wallet sells into it.
	outside := crypto.PubkeyToAddress(sb2.Chain().OutsideWallets()[0].PublicKey)
	r = postJSON(t, sb2.URL()+"/control/trades", map[string]any{"address": outside.Hex(), "tokenId": m.TokenIDs[0], "side": "SELL", "size": 10, "price": 0.5})
	require.Equal(t, 200, r.status, string(r.body))
	o, _ = tr.getOrder(t, resting.OrderID)
	assert.Equal(t, "MATCHED", o.Status)
	shares, err = cl.OutcomeBalance(ctx, tr.addr, tokenOf(m))
	require.NoError(t, err)
	assert.Equal(t, int64(20_000_000), shares.Int64(), "the resting bid bought 10 more")
	// The shares bought before the restart sell through the book.
	sold := tr.post(t, m, clob.Sell, "0.40", "20", clob.FOK)
	assert.Equal(t, "matched", sold.Status, sold.ErrorMsg)
	shares, err = cl.OutcomeBalance(ctx, tr.addr, tokenOf(m))
	require.NoError(t, err)
	assert.Zero(t, shares.Int64(), "all sold")

	// A key is refused by derive once deleted, across restarts too.
	require.Equal(t, 200, tr.call(t, "DELETE", "/auth/api-key", nil).status)
	require.NoError(t, sb2.Close())
	sb3 := startEVM(t, persistentConfig(dir))
	r = do(t, "GET", sb3.Network().CLOBURL+"/auth/derive-api-key", l1Headers(t, sb3.Network(), tr.key), nil)
	assert.Equal(t, 400, r.status, string(r.body))

	// A second sandbox on a directory in use is refused, and so is
	// another seed on it.
	_, err = sandbox.Start(ctx, persistentConfig(dir))
	assert.Error(t, err)
	require.NoError(t, sb3.Close())
	cfg := persistentConfig(dir)
	cfg.Seed = 32
	_, err = sandbox.Start(ctx, cfg)
	assert.ErrorContains(t, err, "seed 31")
}

// killChildEnv makes the test binary run a sandbox on the directory it
// names instead of the tests.
const killChildEnv = "ATS_SANDBOX_KILL_CHILD"

// TestSandboxSurvivesKill trades against a sandbox process from several
// clients at once and kills it (SIGKILL) mid-stream, with orders being
// matched and settled. Reopened on its data dir: every order the venue
// acknowledged is there as acknowledged (or further along), and the shares
// the wallet holds on chain are exactly what the venue's trades say it
// bought: a match whose settlement was in flight at the kill was recorded
// if the chain has it and dropped if not.
func TestSandboxSurvivesKill(t *testing.T) {
	if dir := os.Getenv(killChildEnv); dir != "" {
		killChild(dir)
		return
	}
	if testing.Short() {
		t.Skip("starts an EVM node twice")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dir := t.TempDir()
	child := childtest.Start(t, "TestSandboxSurvivesKill", killChildEnv, dir)
	var url string
	for sc := child.Lines(); url == "" && sc.Scan(); {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "listening" {
			url = f[1]
		}
	}
	require.NotEmpty(t, url, "the child sandbox did not start")
	n := network.Sandbox(url)
	var ms []markets.Info
	r := get(t, url+"/control/markets")
	var listed []struct {
		ConditionID string    `json:"conditionId"`
		TokenIDs    [2]string `json:"tokenIds"`
		NegRisk     bool      `json:"negRisk"`
	}
	r.json(t, &listed)
	for _, l := range listed {
		ms = append(ms, markets.Info{ConditionID: l.ConditionID, TokenIDs: l.TokenIDs, NegRisk: l.NegRisk})
	}
	require.NotEmpty(t, ms)
	m := ms[0]
	tr, _ := evmTrader(t, ctx, n, 1000)

	// Four clients trade until the kill: marketable FOK buys (each a match
	// settled on chain) and resting bids far below the book.
	type ack struct {
		id, status string
	}
	var mu sync.Mutex
	var acks []ack
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				price, typ := "0.99", clob.FOK
				if (i+c)%3 == 0 {
					price, typ = "0.05", clob.GTC
				}
				body, _ := tr.order(t, m, 0, clob.Buy, price, "5", typ)
				h, _ := clob.L2Headers(tr.creds, tr.addr, time.Now().Unix(), "POST", "/order", body)
				a, err := postOrderRaw(n.CLOBURL+"/order", h, body)
				if err != nil {
					continue // the process is gone
				}
				if a.Success {
					mu.Lock()
					acks = append(acks, ack{a.OrderID, a.Status})
					mu.Unlock()
				}
			}
		}()
	}
	deadline := time.After(2 * time.Minute)
	for {
		mu.Lock()
		got := len(acks)
		mu.Unlock()
		if got >= 24 {
			break
		}
		select {
		case <-deadline:
			t.Fatalf("only %d orders acknowledged", got)
		case <-time.After(20 * time.Millisecond):
		}
	}
	child.Kill()
	close(stop)
	wg.Wait()

	sb := startEVM(t, sandbox.Config{Addr: "127.0.0.1:0", Seed: 41, BlockInterval: 20 * time.Millisecond,
		QuoteInterval: time.Hour, Ordinary: 1, DisableUpDown: true, DataDir: dir})
	t.Cleanup(func() { _ = sb.Close() })
	tr.net = sb.Network()
	cl := chainClient(t, ctx, sb.Network())
	matched := 0
	for _, a := range acks {
		o, status := tr.getOrder(t, a.id)
		require.Equal(t, 200, status, "acknowledged order %s (%s) is gone", a.id, a.status)
		switch a.status {
		case "matched":
			matched++
			assert.Equal(t, "MATCHED", o.Status, a.id)
			assert.Equal(t, o.Size, o.SizeMatched, a.id)
		case "live":
			assert.Equal(t, "LIVE", o.Status, a.id)
		}
	}
	require.Positive(t, matched, "no match was acknowledged before the kill")
	// The venue's record and the chain agree on what the wallet bought.
	var trades struct{ Data []map[string]any }
	tr.call(t, "GET", "/data/trades", nil).json(t, &trades)
	var venueShares int64
	for _, td := range trades.Data {
		var size float64
		_, _ = fmt.Sscan(td["size"].(string), &size)
		venueShares += int64(size*1e6 + 0.5)
	}
	onChain, err := cl.OutcomeBalance(ctx, tr.addr, tokenOf(m))
	require.NoError(t, err)
	t.Logf("%d orders acknowledged (%d matched) before the kill; after it the venue has %d trades, the chain %s micro-shares",
		len(acks), matched, len(trades.Data), onChain)
	assert.Equal(t, onChain.Int64(), venueShares, "shares on chain vs the venue's trades (%d trades, %d acknowledged matches)", len(trades.Data), matched)
	assert.GreaterOrEqual(t, len(trades.Data), matched)
	// And the reopened venue trades on.
	again := tr.post(t, m, clob.Buy, "0.99", "5", clob.FOK)
	assert.Equal(t, "matched", again.Status, again.ErrorMsg)
}

// postOrderRaw posts an order without failing the test on a lost
// connection (the sandbox is killed under it).
func postOrderRaw(url string, h map[string][]string, body []byte) (orderAnswer, error) {
	req, err := http.NewRequest("POST", url, bytes.NewReader(body))
	if err != nil {
		return orderAnswer{}, err
	}
	for k, v := range h {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return orderAnswer{}, err
	}
	defer res.Body.Close()
	var a orderAnswer
	if res.StatusCode != 200 {
		return a, fmt.Errorf("status %d", res.StatusCode)
	}
	return a, json.NewDecoder(res.Body).Decode(&a)
}

// killChild runs a persistent sandbox until it is killed.
func killChild(dir string) {
	sb, err := sandbox.Start(context.Background(), sandbox.Config{Addr: "127.0.0.1:0", Seed: 41, BlockInterval: 20 * time.Millisecond,
		QuoteInterval: time.Hour, Ordinary: 1, DisableUpDown: true, DataDir: dir})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	fmt.Println("listening", sb.URL())
	select {}
}
