package exchange

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/sandbox/persist"
)

// mmOwner is the test's ephemeral owner (the market makers' role).
const mmOwner = "mm"

// testSigned stands in for the venue's signed wire order.
type testSigned struct {
	Salt int `json:"salt"`
}

func openStore(t *testing.T, fs vfs.FS) *persist.Store {
	t.Helper()
	s, err := persist.Open("state", persist.Options{FS: fs})
	require.NoError(t, err)
	return s
}

// persistentHarness is newHarness with a journal on fs; the ledger (the
// chain) and the clock are shared by every engine built on them, as the
// chain outlives the venue's process.
func persistentHarness(t *testing.T, l *MemLedger, now *time.Time, j Journal, settler Settler) *harness {
	t.Helper()
	h := &harness{l: l, now: *now}
	if settler == nil {
		settler = l
	}
	h.e = New(Config{Ledger: l, Settler: settler, Clock: func() time.Time { return *now }, ConfirmAfter: 2 * time.Second,
		Journal: j, Ephemeral: func(o string) bool { return o == mmOwner },
		DecodeSigned: func(raw []byte) (any, error) {
			var s testSigned
			return s, json.Unmarshal(raw, &s)
		}})
	require.NoError(t, h.e.AddMarket(Market{ConditionID: cond, Tokens: [2]string{yes, no}, Outcomes: [2]string{"Yes", "No"},
		TickMicro: 10_000, MinSizeMicro: 5 * One}))
	return h
}

func fundedLedger() *MemLedger {
	l := NewMemLedger()
	for _, w := range []common.Address{alice, bob, carol} {
		l.Credit(w, "", 1000*One)
		l.Credit(w, yes, 1000*One)
		l.Approve(w, 1<<62, true)
	}
	return l
}

// crash is what a machine crash leaves of fs at this moment: only what was
// synced. The engine writing to fs is abandoned, not closed.
func crash(fs *vfs.MemFS) *vfs.MemFS { return fs.CrashClone(vfs.CrashCloneCfg{}) }

// kept is the state a restart must reproduce: every order but the market
// makers', the book without their levels, trades and reservations.
type kept struct {
	Orders   []OrderView
	Bids     []Level
	Asks     []Level
	Trades   []Trade
	Reserved map[string]uint64
	Last     uint64
}

func keptState(t *testing.T, e *Engine, mmLevels map[uint64]uint64) kept {
	t.Helper()
	var k kept
	for _, v := range e.Orders(OrderFilter{}) {
		if v.Owner != mmOwner {
			v.CreatedAt = v.CreatedAt.UTC() // JSON keeps the instant, not the zone
			k.Orders = append(k.Orders, v)
		}
	}
	b, ok := e.Book(yes)
	require.True(t, ok)
	strip := func(ls []Level) []Level {
		var out []Level
		for _, l := range ls {
			l.SizeMicro -= mmLevels[l.PriceMicro]
			if l.SizeMicro > 0 {
				out = append(out, l)
			}
		}
		return out
	}
	k.Bids, k.Asks, k.Last = strip(b.Bids), strip(b.Asks), b.LastTradeMicro
	for _, tr := range e.Trades(TradeFilter{}) {
		tr.MatchTime, tr.LastUpdate = tr.MatchTime.UTC(), tr.LastUpdate.UTC()
		k.Trades = append(k.Trades, tr)
	}
	k.Reserved = map[string]uint64{}
	for _, w := range []common.Address{alice, bob, carol} {
		for _, a := range []string{"", yes} {
			k.Reserved[w.Hex()+"/"+a] = e.Reserved(w, a)
		}
	}
	return k
}

func TestEngineReopensWithItsBooks(t *testing.T) {
	fs := vfs.NewCrashableMem()
	l, now := fundedLedger(), t0
	h := persistentHarness(t, l, &now, openStore(t, fs), nil)
	order := func(maker common.Address, side Side, price, shares uint64, typ OrderType) Order {
		o := h.order(maker, side, price, shares, typ)
		o.Signed = testSigned{Salt: h.n}
		return o
	}
	b1 := h.place(t, order(bob, Sell, 540_000, 10*One, GTC))
	a2 := h.place(t, order(alice, Sell, 540_000, 10*One, GTC))
	b3 := h.place(t, order(bob, Sell, 540_000, 10*One, GTC))
	a4 := h.place(t, order(alice, Sell, 600_000, 10*One, GTC))
	gtd := order(bob, Buy, 400_000, 10*One, GTD)
	gtd.Expiration = now.Add(time.Hour).Unix()
	h.place(t, gtd)
	mmWallet := common.HexToAddress("0x3a3a")
	l.Credit(mmWallet, "", 1000*One)
	l.Approve(mmWallet, 1<<62, true)
	mm := order(mmWallet, Buy, 300_000, 20*One, GTC)
	mm.Owner = mmOwner
	h.place(t, mm)
	// Carol lifts 15: b1's 10 and 5 of a2 (earlier than b3).
	taker := h.place(t, order(carol, Buy, 540_000, 15*One, GTC))
	require.Equal(t, "matched", taker.Status)
	require.NoError(t, h.e.Cancel(a4.OrderID, ""))
	mmLevels := map[uint64]uint64{300_000: 20 * One}
	before := keptState(t, h.e, mmLevels)

	fs2 := crash(fs)
	h2 := persistentHarness(t, l, &now, openStore(t, fs2), nil)
	require.NoError(t, h2.e.Restore(context.Background(), nil))
	after := keptState(t, h2.e, nil)
	assert.Equal(t, before, after, "the reopened engine differs from the one that crashed")
	v, ok := h2.e.Order(b1.OrderID)
	require.True(t, ok)
	assert.Equal(t, testSigned{Salt: 1}, v.Signed, "the signed order comes back as it was")
	_, ok = h2.e.Order(mm.ID)
	assert.False(t, ok, "a market maker's quote is not kept")

	// The restored book trades at its time priority: a2's 5 left before b3.
	h2.n = h.n
	r, err := h2.e.Place(context.Background(), Order{ID: "0xtaker2", Owner: "key-carol", Maker: carol, Signer: carol,
		TokenID: yes, Side: Buy, MakerAmount: 10 * 540_000, TakerAmount: 10 * One, Type: FOK})
	require.NoError(t, err)
	require.Equal(t, "matched", r.Status)
	tr := h2.e.Trades(TradeFilter{ID: r.TradeIDs[0]})
	require.Len(t, tr, 1)
	require.Len(t, tr[0].MakerOrders, 2)
	assert.Equal(t, a2.OrderID, tr[0].MakerOrders[0].OrderID)
	assert.Equal(t, 5*One, tr[0].MakerOrders[0].MatchedShares)
	assert.Equal(t, b3.OrderID, tr[0].MakerOrders[1].OrderID)
	av, _ := h2.e.Order(a2.OrderID)
	assert.Equal(t, StatusMatched, av.Status)
	assert.Equal(t, 1000*One+10*540_000, l.Balance(alice, ""), "alice sold 10 in all, across the restart")

	// The GTD order still expires on time.
	now = now.Add(2 * time.Hour)
	bk, _ := h2.e.Book(yes)
	assert.Empty(t, bk.Bids)

	// And what the reopened engine did survives the next crash.
	h3 := persistentHarness(t, l, &now, openStore(t, crash(fs2)), nil)
	require.NoError(t, h3.e.Restore(context.Background(), nil))
	assert.Equal(t, keptState(t, h2.e, nil), keptState(t, h3.e, nil))
}

// blockingSettler settles on the ledger (or not) and then never returns
// while the test runs: the process "dies" with the settlement in flight.
type blockingSettler struct {
	l       *MemLedger
	settle  bool
	reached chan struct{}
	release chan struct{}
	mu      sync.Mutex
	done    map[string]common.Hash // taker order id → tx
}

func (s *blockingSettler) Settle(ctx context.Context, m Match) (Settlement, error) {
	var st Settlement
	if s.settle {
		var err error
		if st, err = s.l.Settle(ctx, m); err != nil {
			return Settlement{}, err
		}
		s.mu.Lock()
		s.done[m.Taker.ID] = st.TxHash
		s.mu.Unlock()
	}
	close(s.reached)
	<-s.release
	return Settlement{}, context.Canceled
}

func (s *blockingSettler) FindSettlement(_ context.Context, _ bool, taker string, _ time.Time) (Settlement, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tx, ok := s.done[taker]
	return Settlement{TxHash: tx}, ok, nil
}

func TestEngineReopensWithAMatchInFlight(t *testing.T) {
	for _, settled := range []bool{true, false} {
		name := "settled before the crash"
		if !settled {
			name = "not settled before the crash"
		}
		t.Run(name, func(t *testing.T) {
			fs := vfs.NewCrashableMem()
			l, now := fundedLedger(), t0
			bs := &blockingSettler{l: l, settle: settled, reached: make(chan struct{}), release: make(chan struct{}),
				done: map[string]common.Hash{}}
			t.Cleanup(func() { close(bs.release) })
			h := persistentHarness(t, l, &now, openStore(t, fs), bs)
			maker := h.place(t, h.order(alice, Sell, 500_000, 10*One, GTC))
			takerOrder := h.order(carol, Buy, 500_000, 15*One, GTC)
			go func() { _, _ = h.e.Place(context.Background(), takerOrder) }()
			<-bs.reached

			h2 := persistentHarness(t, l, &now, openStore(t, crash(fs)), nil)
			require.NoError(t, h2.e.Restore(context.Background(), bs))
			mv, ok := h2.e.Order(maker.OrderID)
			require.True(t, ok)
			tv, takerKept := h2.e.Order(takerOrder.ID)
			bk, _ := h2.e.Book(yes)
			if !settled {
				assert.Equal(t, StatusLive, mv.Status)
				assert.Zero(t, mv.MatchedMicro)
				assert.False(t, takerKept, "an order whose match never settled was never accepted")
				assert.Empty(t, h2.e.Trades(TradeFilter{}))
				assert.Equal(t, []Level{{500_000, 10 * One}}, bk.Asks)
				assert.Equal(t, 10*One, h2.e.Reserved(alice, yes))
				return
			}
			assert.Equal(t, StatusMatched, mv.Status)
			assert.Equal(t, 10*One, mv.MatchedMicro)
			require.True(t, takerKept, "the taker order traded on chain: the venue knows it")
			assert.Equal(t, StatusLive, tv.Status)
			assert.Equal(t, 10*One, tv.MatchedMicro)
			assert.Empty(t, bk.Asks)
			assert.Equal(t, []Level{{500_000, 5 * One}}, bk.Bids, "the GTC taker's remainder rests")
			assert.Equal(t, uint64(0), h2.e.Reserved(alice, yes))
			assert.Equal(t, 5*One/2, h2.e.Reserved(carol, ""))
			trades := h2.e.Trades(TradeFilter{})
			require.Len(t, trades, 1)
			assert.Equal(t, bs.done[takerOrder.ID], trades[0].TxHash)
			assert.Equal(t, []string{trades[0].ID}, tv.TradeIDs)
			assert.Equal(t, 10*One, trades[0].SizeMicro)
		})
	}
}
