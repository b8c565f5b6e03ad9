package chain

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agent-trading/ats/sandbox/internal/childtest"
	"github.com/agent-trading/ats/venue"
)

func openChain(t *testing.T, dir string, interval time.Duration) *Chain {
	t.Helper()
	c, err := New(Config{DataDir: dir, BlockInterval: interval})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestChainReopensFromDataDir closes a chain cleanly and opens it again on
// the same directory: blocks, balances, contracts, nonces and prepared
// markets are all there, and the chain goes on from its last block.
func TestChainReopensFromDataDir(t *testing.T) {
	ctx := ctxT(t)
	dir := t.TempDir()
	c := openChain(t, dir, 0)
	b := bindAll(t, c)
	who := address(newKey(t))
	if err := c.Fund(ctx, who, big.NewInt(7_000_000), big.NewInt(1e18)); err != nil {
		t.Fatal(err)
	}
	trader := c.OutsideWallets()[0]
	normal, err := c.PrepareMarket(ctx, crypto.Keccak256Hash([]byte("reopen normal")), false)
	if err != nil {
		t.Fatal(err)
	}
	negRisk, err := c.PrepareMarket(ctx, crypto.Keccak256Hash([]byte("reopen neg-risk")), true)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SplitTo(ctx, trader, normal.ConditionID, big.NewInt(3_000_000)); err != nil {
		t.Fatal(err)
	}
	// A settled match, found again after the restart by its taker order.
	mm, mma := c.MarketMaker(), address(c.MarketMaker())
	if err := c.SplitTo(ctx, mm, normal.ConditionID, big.NewInt(10_000_000)); err != nil {
		t.Fatal(err)
	}
	taker := crypto.Keccak256Hash([]byte("reopen taker"))
	settledAt := time.Now()
	txHash, err := c.Settle(ctx, false, Match{
		Taker: Fill{OrderHash: taker, Maker: address(trader), Side: Buy, TokenID: normal.TokenIDs[0],
			MakerAmount: big.NewInt(1_000_000), TakerAmount: big.NewInt(2_000_000)},
		Makers: []Fill{{OrderHash: crypto.Keccak256Hash([]byte("reopen maker")), Maker: mma, Side: Sell, TokenID: normal.TokenIDs[0],
			MakerAmount: big.NewInt(2_000_000), TakerAmount: big.NewInt(1_000_000)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	head := c.head()
	headHash := c.backend.BlockChain().CurrentBlock().Hash()
	opNonce, err := c.Client().NonceAt(ctx, address(c.Operator()), nil)
	if err != nil {
		t.Fatal(err)
	}
	yesBefore := tokBalance(t, b, address(trader), normal.TokenIDs[0])
	if c.Restored() {
		t.Fatal("a new chain claims to be restored")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	c = openChain(t, dir, 0)
	t.Cleanup(func() { _ = c.Close() })
	b = bindAll(t, c)
	if !c.Restored() {
		t.Fatal("the reopened chain does not say it was restored")
	}
	if got := c.head(); got != head {
		t.Fatalf("head %d after reopening, want %d", got, head)
	}
	if got := c.backend.BlockChain().CurrentBlock().Hash(); got != headHash {
		t.Fatalf("head hash %s, want %s", got, headHash)
	}
	wantBig(t, "funded collateral", collBalance(t, b, who), 7_000_000)
	if gas, err := c.Client().BalanceAt(ctx, who, nil); err != nil || gas.Cmp(big.NewInt(1e18)) != 0 {
		t.Errorf("funded gas %v, %v", gas, err)
	}
	if got := tokBalance(t, b, address(trader), normal.TokenIDs[0]); got.Cmp(yesBefore) != 0 {
		t.Errorf("YES balance %s after reopening, want %s", got, yesBefore)
	}
	if got := collBalance(t, b, mma); got.Cmp(new(big.Int).Sub(MarketMakerCollateral, big.NewInt(10_000_000-1_000_000))) != 0 {
		t.Errorf("market maker collateral %s", got)
	}
	if n, err := c.Client().NonceAt(ctx, address(c.Operator()), nil); err != nil || n != opNonce {
		t.Errorf("operator nonce %d (%v), want %d", n, err, opNonce)
	}
	rcpt, err := c.Client().TransactionReceipt(ctx, txHash)
	if err != nil || rcpt.Status != 1 {
		t.Fatalf("settlement receipt after reopening: %v %v", rcpt, err)
	}
	gotTx, gotBlock, found, err := c.FindSettlement(ctx, false, taker, settledAt.Add(-2*time.Second))
	if err != nil || !found || gotTx != txHash || gotBlock != rcpt.BlockNumber.Uint64() {
		t.Fatalf("FindSettlement = %s %d %v %v, want %s", gotTx, gotBlock, found, err, txHash)
	}
	if _, _, found, err := c.FindSettlement(ctx, false, crypto.Keccak256Hash([]byte("never matched")), settledAt.Add(-time.Minute)); err != nil || found {
		t.Fatalf("FindSettlement of an unknown taker: found %v, %v", found, err)
	}

	// The chain goes on: new transactions from the same accounts, and the
	// markets prepared before the restart resolve.
	if err := c.Fund(ctx, who, big.NewInt(1_000_000), nil); err != nil {
		t.Fatal(err)
	}
	wantBig(t, "collateral after a second funding", collBalance(t, b, who), 8_000_000)
	if c.head() <= head {
		t.Errorf("no new block after reopening: head %d", c.head())
	}
	for _, m := range []Market{normal, negRisk} {
		if err := c.Resolve(ctx, m.ConditionID, 0); err != nil {
			t.Fatalf("resolve a market prepared before the restart (neg-risk %v): %v", m.NegRisk, err)
		}
		den, err := b.ctf.PayoutDenominator(b.call, m.ConditionID)
		if err != nil || den.Sign() == 0 {
			t.Errorf("not resolved on chain: %v %v", den, err)
		}
	}
	if err := c.Resolve(ctx, crypto.Keccak256Hash([]byte("no such condition")), 0); !venue.Is(err, venue.NotFound) {
		t.Errorf("resolve of an unknown condition: %v", err)
	}
	if _, err := c.PrepareMarket(ctx, crypto.Keccak256Hash([]byte("reopen normal")), false); !venue.Is(err, venue.Conflict) {
		t.Errorf("preparing a market again after the restart: %v", err)
	}
}

// crashChildEnv makes the test binary run crashChild instead of the tests.
const crashChildEnv = "ATS_SANDBOX_CHAIN_CRASH_CHILD"

// TestChainSurvivesKill kills a process running a chain (SIGKILL, no
// clean close) right after its funding transactions were mined, and opens
// the chain again: everything mined before the kill is there.
func TestChainSurvivesKill(t *testing.T) {
	if os.Getenv(crashChildEnv) != "" {
		crashChild()
		return
	}
	dir := t.TempDir()
	child := childtest.Start(t, "TestChainSurvivesKill", crashChildEnv, dir)
	funded := map[common.Address]int64{}
	var head uint64
	sc := child.Lines()
	for len(funded) < crashFundings && sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 || f[0] != "funded" {
			continue
		}
		amount, _ := strconv.ParseInt(f[2], 10, 64)
		funded[common.HexToAddress(f[1])] = amount
		head, _ = strconv.ParseUint(f[3], 10, 64)
	}
	if len(funded) < crashFundings {
		t.Fatalf("the child stopped after %d fundings", len(funded))
	}
	child.Kill() // while it keeps sealing blocks and funding

	c := openChain(t, dir, 0)
	t.Cleanup(func() { _ = c.Close() })
	if c.head() < head {
		t.Fatalf("head %d after the kill, below block %d that was reported mined", c.head(), head)
	}
	b := bindAll(t, c)
	for a, amount := range funded {
		wantBig(t, "collateral of "+a.Hex(), collBalance(t, b, a), amount)
	}
	// And the chain works on.
	if err := c.Fund(ctxT(t), address(newKey(t)), big.NewInt(1), nil); err != nil {
		t.Fatal(err)
	}
}

const crashFundings = 5

// crashChild runs a sealing chain and funds fresh addresses one after the
// other, printing each once it is mined, until it is killed.
func crashChild() {
	dir := os.Getenv(crashChildEnv)
	c, err := New(Config{DataDir: filepath.Clean(dir), BlockInterval: 20 * time.Millisecond})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	c.Start(context.Background())
	for i := int64(1); ; i++ {
		k, _ := crypto.GenerateKey()
		a := crypto.PubkeyToAddress(k.PublicKey)
		if err := c.Fund(context.Background(), a, big.NewInt(i*1_000_000), nil); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(2)
		}
		r, err := c.Client().HeaderByNumber(context.Background(), nil)
		if err != nil {
			os.Exit(2)
		}
		fmt.Printf("funded %s %d %d\n", a.Hex(), i*1_000_000, r.Number.Uint64())
	}
}
