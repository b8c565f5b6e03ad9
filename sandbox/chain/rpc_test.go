package chain

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
)

// mount serves the handler the way the sandbox listener does.
func mount(c *Chain) *httptest.Server {
	mux := http.NewServeMux()
	mux.Handle("/rpc", http.StripPrefix("/rpc", c.Handler()))
	mux.Handle("/rpc/ws", http.StripPrefix("/rpc/ws", c.Handler()))
	return httptest.NewServer(mux)
}

func rpcCall(t *testing.T, url, method string, params ...any) json.RawMessage {
	t.Helper()
	if params == nil {
		params = []any{}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s: %s", method, raw)
	}
	if out.Error != nil {
		t.Fatalf("%s: %s", method, out.Error.Message)
	}
	return out.Result
}

func TestHTTPJSONRPC(t *testing.T) {
	c, err := New(Config{BlockInterval: 30 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c.Start(ctx)
	srv := mount(c)
	defer srv.Close()
	url := srv.URL + "/rpc"

	if got := string(rpcCall(t, url, "eth_chainId")); got != `"0x13882"` {
		t.Errorf("eth_chainId = %s", got)
	}
	if got := string(rpcCall(t, url, "net_version")); got != `"80002"` {
		t.Errorf("net_version = %s", got)
	}
	blockNumber := func() uint64 {
		var h hexutil.Uint64
		if err := json.Unmarshal(rpcCall(t, url, "eth_blockNumber"), &h); err != nil {
			t.Fatal(err)
		}
		return uint64(h)
	}
	first := blockNumber()
	deadline := time.Now().Add(10 * time.Second)
	for blockNumber() < first+2 {
		if time.Now().After(deadline) {
			t.Fatalf("block number stuck at %d", first)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The collateral's decimals through eth_call.
	res := rpcCall(t, url, "eth_call", map[string]any{"to": c.Network().Collateral, "data": "0x313ce567"}, "latest")
	if !strings.HasSuffix(strings.Trim(string(res), `"`), "06") {
		t.Errorf("decimals via eth_call = %s", res)
	}
	// Private namespaces are not served.
	body := `{"jsonrpc":"2.0","id":1,"method":"debug_setHead","params":["0x0"]}`
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(raw), "does not exist") {
		t.Errorf("debug namespace reachable: %s", raw)
	}
	// The ethclient over HTTP works with the bindings' needs.
	ec, err := ethclient.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	bal, err := ec.BalanceAt(ctx, address(c.MarketMaker()), nil)
	if err != nil || bal.Cmp(GenesisNativeWei) > 0 || bal.Sign() == 0 {
		t.Errorf("market maker gas %v %v", bal, err)
	}
}

func TestWebSocketSubscriptions(t *testing.T) {
	c, err := New(Config{BlockInterval: 30 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c.Start(ctx)
	srv := mount(c)
	defer srv.Close()
	wsURL := "ws" + strings.TrimPrefix(srv.URL, "http") + "/rpc/ws"
	rc, err := rpc.DialWebsocket(ctx, wsURL, "")
	if err != nil {
		t.Fatal(err)
	}
	ec := ethclient.NewClient(rc)
	defer ec.Close()

	heads := make(chan *types.Header, 16)
	hs, err := ec.SubscribeNewHead(ctx, heads)
	if err != nil {
		t.Fatal(err)
	}
	defer hs.Unsubscribe()
	logs := make(chan types.Log, 16)
	transferTopic := crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
	who := address(newKey(t))
	ls, err := ec.SubscribeFilterLogs(ctx, ethereum.FilterQuery{
		Addresses: []common.Address{c.Network().Collateral},
		Topics:    [][]common.Hash{{transferTopic}, nil, {common.BytesToHash(who.Bytes())}},
	}, logs)
	if err != nil {
		t.Fatal(err)
	}
	defer ls.Unsubscribe()

	select {
	case h := <-heads:
		if h.Number.Sign() <= 0 {
			t.Errorf("head %v", h.Number)
		}
	case err := <-hs.Err():
		t.Fatal(err)
	case <-ctx.Done():
		t.Fatal("no newHeads notification")
	}
	if err := c.Fund(ctx, who, big.NewInt(42_000_000), nil); err != nil {
		t.Fatal(err)
	}
	select {
	case l := <-logs:
		if new(big.Int).SetBytes(l.Data).Int64() != 42_000_000 || common.BytesToAddress(l.Topics[2].Bytes()) != who {
			t.Errorf("log %+v", l)
		}
	case err := <-ls.Err():
		t.Fatal(err)
	case <-ctx.Done():
		t.Fatal("no logs notification")
	}
}

func TestManualModeAndClose(t *testing.T) {
	c := newTestChain(t)
	ctx := ctxT(t)
	c.Start(ctx) // no-op in manual mode
	n1, err := c.Client().BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if n2, _ := c.Client().BlockNumber(ctx); n2 != n1 {
		t.Fatalf("block sealed without Commit: %d -> %d", n1, n2)
	}
	c.Commit()
	if n3, _ := c.Client().BlockNumber(ctx); n3 != n1+1 {
		t.Fatalf("commit: %d -> %d", n1, n3)
	}
	if _, err := New(Config{BlockInterval: -time.Second}); err == nil {
		t.Error("negative interval accepted")
	}
}
