package sandbox_test

import (
	"context"
	"encoding/json"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/sandbox"
	"github.com/agent-trading/ats/venue/chain"
	"github.com/agent-trading/ats/venue/clob"
)

// TestEVMOrderSettlesOnChain runs the sandbox on its EVM chain: a user funded
// through the control API approves the exchange over /rpc with the venue
// client, a marketable order settles through matchOrders, balances move on
// chain and the exchange emits OrderFilled; a resolved market's position is
// redeemable.
func TestEVMOrderSettlesOnChain(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an EVM node")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	began := time.Now()
	sb, err := sandbox.Start(ctx, sandbox.Config{Addr: "127.0.0.1:0", Seed: 21, BlockInterval: 50 * time.Millisecond,
		QuoteInterval: time.Hour, Ordinary: 2, DisableUpDown: true})
	require.NoError(t, err)
	t.Cleanup(func() {
		c0 := time.Now()
		_ = sb.Close()
		t.Logf("closed in %s", time.Since(c0))
	})
	t.Logf("sandbox with EVM chain started in %s", time.Since(began))
	m := firstMarket(t, sb)

	// The chain is reachable over the sandbox's /rpc.
	rpc, err := ethclient.DialContext(ctx, sb.Network().RPCURL)
	require.NoError(t, err)
	defer rpc.Close()
	id, err := rpc.ChainID(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(80002), id.Int64())
	ws, err := ethclient.DialContext(ctx, sb.Network().WSURL)
	require.NoError(t, err, "the chain is reachable over /rpc/ws")
	heads := make(chan *types.Header, 4)
	sub, err := ws.SubscribeNewHead(ctx, heads)
	require.NoError(t, err)
	select {
	case h := <-heads:
		assert.Positive(t, h.Number.Int64())
	case <-time.After(10 * time.Second):
		t.Fatal("no new head over the WebSocket")
	}
	t.Logf("websocket head at %s", time.Since(began))
	sub.Unsubscribe()
	ws.Close()

	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	addr := crypto.PubkeyToAddress(key.PublicKey)
	r := postJSON(t, sb.URL()+"/control/wallets/"+addr.Hex()+"/fund", map[string]any{"usdc": 500, "native": 1})
	require.Equal(t, 200, r.status, string(r.body))
	cl := chain.New(sb.Network(), rpc, chain.Options{ReceiptPoll: 20 * time.Millisecond})
	t.Logf("funded at %s", time.Since(began))
	_, err = cl.Approve(ctx, chain.Wallet{Kind: chain.EOA, Owner: addr, Signer: chain.NewKeySigner(key)}, chain.ApproveAll)
	require.NoError(t, err)

	t.Logf("approved at %s", time.Since(began))
	h, err := clob.L1Headers(ctx, clob.NewKeySigner(key), sb.Network().ChainID, time.Now().Unix(), 0)
	require.NoError(t, err)
	var c struct{ APIKey, Secret, Passphrase string }
	do(t, "POST", sb.URL()+"/clob/auth/api-key", h, nil).json(t, &c)
	tr := &trader{net: sb.Network(), key: key, addr: addr, creds: clob.Creds{Key: c.APIKey, Secret: c.Secret, Passphrase: c.Passphrase}}

	var b book
	get(t, sb.URL()+"/clob/book?token_id="+m.TokenIDs[0]).json(t, &b)
	require.NotEmpty(t, b.Asks)
	best := b.Asks[len(b.Asks)-1].Price
	tok, _ := new(big.Int).SetString(m.TokenIDs[0], 10)
	collBefore, err := cl.CollateralBalance(ctx, addr)
	require.NoError(t, err)

	body, orderID := tr.order(t, m, 0, clob.Buy, best, "10", clob.FOK)
	r = tr.call(t, "POST", "/order", body)
	t.Logf("order settled at %s", time.Since(began))
	require.Equal(t, 200, r.status, string(r.body))
	var or struct {
		Status             string
		TransactionsHashes []string
	}
	r.json(t, &or)
	assert.Equal(t, "matched", or.Status)
	require.Len(t, or.TransactionsHashes, 1)

	shares, err := cl.OutcomeBalance(ctx, addr, tok)
	require.NoError(t, err)
	assert.Equal(t, int64(10_000_000), shares.Int64(), "shares on chain")
	collAfter, err := cl.CollateralBalance(ctx, addr)
	require.NoError(t, err)
	paid := decimal.RequireFromString(best).Mul(decimal.NewFromInt(10)).Shift(6).IntPart()
	assert.Equal(t, paid, new(big.Int).Sub(collBefore, collAfter).Int64(), "collateral paid on chain")

	rcpt, err := rpc.TransactionReceipt(ctx, common.HexToHash(or.TransactionsHashes[0]))
	require.NoError(t, err)
	orderFilled := crypto.Keccak256Hash([]byte("OrderFilled(bytes32,address,address,uint8,uint256,uint256,uint256,uint256,bytes32,bytes32)"))
	var sawTaker bool
	fills := 0
	for _, l := range rcpt.Logs {
		if l.Topics[0] != orderFilled {
			continue
		}
		fills++
		assert.Equal(t, sb.Network().Exchange, l.Address)
		if l.Topics[1] == common.HexToHash(orderID) {
			sawTaker = true
			assert.Equal(t, common.BytesToAddress(l.Topics[2].Bytes()), addr, "taker order's maker")
		}
	}
	assert.True(t, sawTaker, "OrderFilled for the taker order")
	assert.GreaterOrEqual(t, fills, 2, "maker and taker fills")

	// Resolve: the position becomes redeemable.
	r = postJSON(t, sb.URL()+"/control/markets/"+m.ConditionID+"/resolve", map[string]any{"winner": m.Outcomes[0]})
	require.Equal(t, 200, r.status, string(r.body))
	var pos []map[string]any
	get(t, sb.URL()+"/data-api/positions?user="+addr.Hex()).json(t, &pos)
	require.Len(t, pos, 1)
	assert.Equal(t, true, pos[0]["redeemable"])
	den, err := cl.PayoutDenominator(ctx, common.HexToHash(m.ConditionID))
	require.NoError(t, err)
	assert.Equal(t, int64(1), den.Int64(), "resolved on chain")
	raw, _ := json.Marshal(pos[0])
	t.Logf("position: %s", raw)
}
