package chain

import (
	"context"
	"errors"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/venue/network"
)

var (
	testExchange = network.Sandbox("http://x").Exchange
	testNegRisk  = network.Sandbox("http://x").NegRiskExchange
	watched      = common.HexToAddress("0x00000000000000000000000000000000000000a1")
	watched2     = common.HexToAddress("0x00000000000000000000000000000000000000a2")
	other        = common.HexToAddress("0x00000000000000000000000000000000000000b1")
)

func TestOrderFilledTopic(t *testing.T) {
	want := common.HexToHash("0xd543adfd945773f1a62f74f0ee55a5e3b9b1a28262980ba90b1a89f2ea84d8ee")
	if OrderFilledTopic != want {
		t.Fatalf("OrderFilled topic0 = %s, want %s", OrderFilledTopic, want)
	}
}

func TestDecodeFill(t *testing.T) {
	ev := exchangeABI.Events["OrderFilled"]
	tests := []struct {
		name                string
		side                Side
		maker, taker, fee   int64
		shares, coll, price string
	}{
		{"buy", Buy, 5_200_000, 10_000_000, 0, "10", "5.2", "0.52"},
		{"sell", Sell, 4_000_000, 3_960_000, 40_000, "4", "3.96", "0.99"},
		{"repeating price rounds to 6dp", Buy, 1_000_000, 3_000_000, 0, "3", "1", "0.333333"},
		{"zero shares", Buy, 0, 0, 0, "0", "0", "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := ev.Inputs.NonIndexed().Pack(uint8(tt.side), big.NewInt(77), big.NewInt(tt.maker), big.NewInt(tt.taker), big.NewInt(tt.fee), [32]byte{1}, [32]byte{2})
			if err != nil {
				t.Fatal(err)
			}
			l := types.Log{
				Address:     testExchange,
				Topics:      []common.Hash{OrderFilledTopic, {9}, common.BytesToHash(watched.Bytes()), common.BytesToHash(other.Bytes())},
				Data:        data,
				BlockNumber: 12, TxHash: common.Hash{3}, Index: 4,
			}
			f, err := DecodeFill(l)
			if err != nil {
				t.Fatal(err)
			}
			if f.Maker != watched || f.Taker != other || f.OrderHash != (common.Hash{9}) || f.Side != tt.side ||
				f.TokenID.Int64() != 77 || f.Fee.Int64() != tt.fee || f.Block != 12 || f.LogIndex != 4 || f.Exchange != testExchange {
				t.Fatalf("decoded %+v", f)
			}
			for name, got := range map[string]decimal.Decimal{tt.shares: f.Shares, tt.coll: f.Collateral, tt.price: f.Price} {
				if !got.Equal(decimal.RequireFromString(name)) {
					t.Errorf("got %s, want %s", got, name)
				}
			}
		})
	}
	if _, err := DecodeFill(types.Log{Topics: []common.Hash{{1}}}); err == nil {
		t.Fatal("decoded a foreign log")
	}
	if _, err := DecodeFill(types.Log{Topics: []common.Hash{OrderFilledTopic, {}, {}, {}}, Data: []byte{1}}); err == nil {
		t.Fatal("decoded a truncated log")
	}
}

func TestSeenSetBounded(t *testing.T) {
	s := newSeenSet(3)
	for i := range 5 {
		s.add(FillKey{LogIndex: uint(i)})
	}
	for i, want := range []bool{false, false, true, true, true} {
		if got := s.has(FillKey{LogIndex: uint(i)}); got != want {
			t.Errorf("has(%d) = %v, want %v", i, got, want)
		}
	}
	if len(s.m) != 3 {
		t.Fatalf("set holds %d keys, want 3", len(s.m))
	}
}

// collector records deliveries.
type collector struct {
	mu    sync.Mutex
	fills []Fill
	fail  func(Fill) error
	ch    chan struct{}
}

func newCollector() *collector { return &collector{ch: make(chan struct{}, 1)} }

func (c *collector) deliver(_ context.Context, f Fill) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fail != nil {
		if err := c.fail(f); err != nil {
			return err
		}
	}
	c.fills = append(c.fills, f)
	select {
	case c.ch <- struct{}{}:
	default:
	}
	return nil
}

func (c *collector) snapshot() []Fill {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Fill(nil), c.fills...)
}

// waitFor waits until n fills arrived; the bound only keeps a broken
// watcher from hanging the test.
func (c *collector) waitFor(t *testing.T, n int) []Fill {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		if got := c.snapshot(); len(got) >= n {
			return got
		}
		select {
		case <-c.ch:
		case <-deadline:
			t.Fatalf("got %d fills, want %d", len(c.snapshot()), n)
		}
	}
}

func runWatcher(t *testing.T, cfg WatcherConfig) (*Watcher, func()) {
	t.Helper()
	w, err := NewWatcher(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	stop := func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Run returned %v", err)
		}
	}
	t.Cleanup(func() {
		select {
		case <-ctx.Done():
		default:
			stop()
		}
	})
	return w, stop
}

func assertExactlyOnce(t *testing.T, got []Fill, want []common.Hash) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("delivered %d fills, want %d", len(got), len(want))
	}
	seen := map[FillKey]bool{}
	for i, f := range got {
		if seen[f.Key()] {
			t.Fatalf("fill %s:%d delivered twice", f.TxHash, f.LogIndex)
		}
		seen[f.Key()] = true
		if f.TxHash != want[i] {
			t.Fatalf("fill %d is tx %s, want %s (order broken)", i, f.TxHash, want[i])
		}
		if f.Maker != watched && f.Maker != watched2 {
			t.Fatalf("fill of unwatched maker %s delivered", f.Maker)
		}
	}
}

func TestWatcherLiveAcrossDisconnect(t *testing.T) {
	c := newSimChain(t, testExchange, testNegRisk)
	col := newCollector()
	store := &MemoryWatermarks{}
	_, stop := runWatcher(t, WatcherConfig{
		Dial:         DialURL(c.wsURL),
		Exchanges:    []common.Address{testExchange, testNegRisk},
		Makers:       []common.Address{watched, watched2},
		Store:        store,
		Key:          "test",
		StartBlock:   1,         // nothing is missed even if the first fill beats the dial
		PollInterval: time.Hour, // only the subscription may drive live delivery
		MinBackoff:   20 * time.Millisecond,
		MaxBackoff:   200 * time.Millisecond,
		Deliver:      col.deliver,
	})
	// Wait for the session to be up before producing anything.
	waitUntil(t, func() bool { return c.relay.open() > 0 })
	time.Sleep(100 * time.Millisecond) // let the subscription register

	var want []common.Hash
	want = append(want, c.emitFill(testExchange, common.Hash{1}, watched, other, Buy, 5, 500_000, 1_000_000, 0))
	c.emitFill(testExchange, common.Hash{2}, other, watched, Sell, 5, 1_000_000, 500_000, 0) // other is maker: not ours
	c.commit()
	got := col.waitFor(t, 1) // delivered from the block's notification alone
	if got[0].Price.String() != "0.5" || got[0].Side != Buy {
		t.Fatalf("fill %+v", got[0])
	}

	// Cut the WebSocket and refuse reconnects while fills happen.
	c.relay.cut(true)
	for i := range 4 {
		want = append(want, c.emitFill(testNegRisk, common.Hash{byte(10 + i)}, watched2, other, Sell, 6, 2_000_000, 1_100_000, 1))
		c.emitFill(testExchange, common.Hash{byte(20 + i)}, other, other, Buy, 6, 1, 2, 0)
		c.commit()
	}
	time.Sleep(150 * time.Millisecond) // a few refused reconnect attempts
	c.relay.restore()
	col.waitFor(t, len(want))

	// And the stream continues live after the reconnect.
	want = append(want, c.emitFill(testExchange, common.Hash{30}, watched, other, Buy, 7, 300_000, 1_000_000, 0))
	c.commit()
	col.waitFor(t, len(want))
	stop()
	assertExactlyOnce(t, col.snapshot(), want)

	head, _ := c.sim.Client().BlockNumber(context.Background())
	if wm, _ := store.Load(context.Background(), "test"); wm != head {
		t.Fatalf("saved watermark %d, want head %d", wm, head)
	}
}

func waitUntil(t testing.TB, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestWatcherBackfillChunksAndRestart(t *testing.T) {
	c := newSimChain(t, testExchange, testNegRisk)
	var want []common.Hash
	for i := range 10 {
		want = append(want, c.emitFill(testExchange, common.Hash{byte(i)}, watched, other, Buy, 1, 100_000, 200_000, 0))
		c.commit()
		c.commit() // empty blocks between fills exercise chunk edges
	}
	store := &MemoryWatermarks{}
	col := newCollector()
	cfg := WatcherConfig{
		Dial:         Static(c.sim.Client()),
		Exchanges:    []common.Address{testExchange},
		Makers:       []common.Address{watched},
		Store:        store,
		Key:          "bf",
		StartBlock:   1,
		ChunkSize:    3,
		PollInterval: 10 * time.Millisecond,
		Deliver:      col.deliver,
	}
	_, stop := runWatcher(t, cfg)
	col.waitFor(t, 10)
	stop()
	assertExactlyOnce(t, col.snapshot(), want)

	// A restart resumes from the saved watermark: nothing old is re-delivered.
	want = append(want, c.emitFill(testExchange, common.Hash{99}, watched, other, Buy, 1, 100_000, 200_000, 0))
	c.commit()
	_, stop = runWatcher(t, cfg)
	col.waitFor(t, 11)
	time.Sleep(50 * time.Millisecond) // several polls: would expose a re-delivery
	stop()
	assertExactlyOnce(t, col.snapshot(), want)
}

func TestWatcherDeliveryFailureRetriesWithoutDuplicates(t *testing.T) {
	c := newSimChain(t, testExchange)
	var want []common.Hash
	for i := range 3 {
		want = append(want, c.emitFill(testExchange, common.Hash{byte(i)}, watched, other, Buy, 1, 100_000, 200_000, 0))
	}
	c.commit() // all three in one block
	col := newCollector()
	failed := false
	col.fail = func(f Fill) error {
		if f.TxHash == want[1] && !failed {
			failed = true
			return errors.New("consumer busy")
		}
		return nil
	}
	_, stop := runWatcher(t, WatcherConfig{
		Dial: Static(c.sim.Client()), Exchanges: []common.Address{testExchange}, Makers: []common.Address{watched},
		Store: &MemoryWatermarks{}, Key: "retry", StartBlock: 1, PollInterval: 10 * time.Millisecond,
		MinBackoff: 10 * time.Millisecond, Deliver: col.deliver,
	})
	col.waitFor(t, 3)
	stop()
	if !failed {
		t.Fatal("the failure was never injected")
	}
	assertExactlyOnce(t, col.snapshot(), want)
}

func TestWatcherConfirmations(t *testing.T) {
	c := newSimChain(t, testExchange)
	col := newCollector()
	w, stop := runWatcher(t, WatcherConfig{
		Dial: Static(c.sim.Client()), Exchanges: []common.Address{testExchange}, Makers: []common.Address{watched},
		Store: &MemoryWatermarks{}, Key: "conf", StartBlock: 1, Confirmations: 2, PollInterval: 5 * time.Millisecond,
		Deliver: col.deliver,
	})
	for range 4 {
		c.commit() // empty blocks, so that reaching the watermark below takes real polls
	}
	tx := c.emitFill(testExchange, common.Hash{1}, watched, other, Buy, 1, 1, 2, 0)
	c.commit() // the fill's block = head: 0 confirmations
	c.commit() // 1 confirmation
	head, _ := c.sim.Client().BlockNumber(context.Background())
	waitUntil(t, func() bool { return w.Watermark() == head-2 })
	if n := len(col.snapshot()); n != 0 {
		t.Fatalf("delivered %d fills before 2 confirmations", n)
	}
	c.commit()
	col.waitFor(t, 1)
	stop()
	assertExactlyOnce(t, col.snapshot(), []common.Hash{tx})
}

func TestWatcherSetMakers(t *testing.T) {
	c := newSimChain(t, testExchange)
	col := newCollector()
	w, stop := runWatcher(t, WatcherConfig{
		Dial: Static(c.sim.Client()), Exchanges: []common.Address{testExchange}, Makers: nil,
		Store: &MemoryWatermarks{}, Key: "set", PollInterval: 5 * time.Millisecond, Deliver: col.deliver,
	})
	c.emitFill(testExchange, common.Hash{1}, watched, other, Buy, 1, 1, 2, 0)
	c.commit()
	waitUntil(t, func() bool { return w.Watermark() >= 1 })
	w.SetMakers([]common.Address{watched})
	time.Sleep(20 * time.Millisecond)
	tx := c.emitFill(testExchange, common.Hash{2}, watched, other, Buy, 1, 1, 2, 0)
	c.commit()
	col.waitFor(t, 1)
	stop()
	// The fill before the maker was added is not history the watcher owes.
	assertExactlyOnce(t, col.snapshot(), []common.Hash{tx})
}

func mustDec(s string) decimal.Decimal { return decimal.RequireFromString(s) }
