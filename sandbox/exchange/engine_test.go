package exchange

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/venue"
)

const (
	yes  = "1001"
	no   = "1002"
	cond = "0xc0"
)

var (
	alice = common.HexToAddress("0xA11CE")
	bob   = common.HexToAddress("0xB0B")
	carol = common.HexToAddress("0xCA501")
	t0    = time.Unix(1_800_000_000, 0)
)

type harness struct {
	e   *Engine
	l   *MemLedger
	now time.Time
	n   int
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{l: NewMemLedger(), now: t0}
	h.e = New(Config{Ledger: h.l, Settler: h.l, Clock: func() time.Time { return h.now }, ConfirmAfter: 2 * time.Second})
	require.NoError(t, h.e.AddMarket(Market{ConditionID: cond, Tokens: [2]string{yes, no}, Outcomes: [2]string{"Yes", "No"},
		TickMicro: 10_000, MinSizeMicro: 5 * One}))
	for _, w := range []common.Address{alice, bob, carol} {
		h.l.Credit(w, "", 1000*One)
		h.l.Credit(w, yes, 1000*One)
		h.l.Approve(w, 1<<62, true)
	}
	return h
}

// limit builds an order of `shares` at `price` (both micro).
func (h *harness) order(maker common.Address, side Side, price, shares uint64, typ OrderType) Order {
	h.n++
	o := Order{ID: fmt.Sprintf("0x%064x", h.n), Owner: "key-" + maker.Hex()[:8], Maker: maker, Signer: maker,
		TokenID: yes, Side: side, Type: typ}
	coll := mulDiv(shares, price, One)
	if side == Buy {
		o.MakerAmount, o.TakerAmount = coll, shares
	} else {
		o.MakerAmount, o.TakerAmount = shares, coll
	}
	return o
}

func (h *harness) place(t *testing.T, o Order) Result {
	t.Helper()
	r, err := h.e.Place(context.Background(), o)
	require.NoError(t, err)
	return r
}

func TestRestingAndPriceTimePriority(t *testing.T) {
	h := newHarness(t)
	a1 := h.place(t, h.order(alice, Sell, 550_000, 10*One, GTC))
	b1 := h.place(t, h.order(bob, Sell, 540_000, 10*One, GTC))
	a2 := h.place(t, h.order(alice, Sell, 540_000, 10*One, GTC))
	h.place(t, h.order(carol, Buy, 500_000, 20*One, GTC))
	for _, r := range []Result{a1, b1, a2} {
		assert.Equal(t, "live", r.Status)
	}
	bk, _ := h.e.Book(yes)
	assert.Equal(t, []Level{{540_000, 20 * One}, {550_000, 10 * One}}, bk.Asks)
	assert.Equal(t, []Level{{500_000, 20 * One}}, bk.Bids)

	// Carol lifts 15 at up to 0.55: bob's 0.54 first (earlier), then alice's 0.54.
	r := h.place(t, h.order(carol, Buy, 550_000, 15*One, GTC))
	assert.Equal(t, "matched", r.Status)
	assert.Equal(t, 15*One, r.TakingMicro)
	assert.Equal(t, 15*540_000, int(r.MakingMicro), "taker pays maker prices")
	b1v, _ := h.e.Order(b1.OrderID)
	a2v, _ := h.e.Order(a2.OrderID)
	assert.Equal(t, StatusMatched, b1v.Status)
	assert.Equal(t, 5*One, a2v.MatchedMicro)
	assert.Equal(t, StatusLive, a2v.Status)

	assert.Equal(t, 1015*One, h.l.Balance(carol, yes))
	assert.Equal(t, 1000*One-15*540_000, h.l.Balance(carol, ""))
	assert.Equal(t, 990*One, h.l.Balance(bob, yes))
	assert.Equal(t, 1000*One+10*540_000, h.l.Balance(bob, ""))

	tr := h.e.Trades(TradeFilter{ID: r.TradeIDs[0]})
	require.Len(t, tr, 1)
	assert.Equal(t, TradeMined, tr[0].Status)
	assert.Len(t, tr[0].MakerOrders, 2)
	assert.Equal(t, uint64(540_000), tr[0].PriceMicro)
	h.now = h.now.Add(3 * time.Second)
	assert.Equal(t, TradeConfirmed, h.e.Trades(TradeFilter{ID: r.TradeIDs[0]})[0].Status)
	// Bob is involved as a maker.
	assert.Len(t, h.e.Trades(TradeFilter{Maker: bob}), 1)
	bk, _ = h.e.Book(yes)
	assert.Equal(t, uint64(540_000), bk.LastTradeMicro)
}

func TestAdmissionRules(t *testing.T) {
	h := newHarness(t)
	h.place(t, h.order(alice, Sell, 600_000, 10*One, GTC))
	h.place(t, h.order(alice, Buy, 400_000, 10*One, GTC))
	dup := h.order(bob, Buy, 300_000, 10*One, GTC)
	h.place(t, dup)
	poor := common.HexToAddress("0xdead")
	h.l.Approve(poor, 1<<62, true)
	h.l.Credit(poor, "", 2*One)

	cases := []struct {
		name string
		mk   func() Order
		want string
	}{
		{"off tick", func() Order { return h.order(bob, Buy, 505_000, 10*One, GTC) }, "breaks minimum tick size rule: 0.01"},
		{"price at 1", func() Order { return h.order(bob, Buy, One, 10*One, GTC) }, "breaks minimum tick size rule"},
		{"below min size", func() Order { return h.order(bob, Buy, 500_000, 4*One, GTC) }, "lower than the minimum: 5"},
		{"duplicate", func() Order { return dup }, "is invalid. Duplicated."},
		{"post only crosses", func() Order {
			o := h.order(bob, Buy, 600_000, 10*One, GTC)
			o.PostOnly = true
			return o
		}, MsgPostOnlyCrosses},
		{"post only on FOK", func() Order {
			o := h.order(bob, Buy, 600_000, 10*One, FOK)
			o.PostOnly = true
			return o
		}, MsgPostOnlyType},
		{"unfunded", func() Order {
			o := h.order(poor, Buy, 500_000, 10*One, GTC)
			return o
		}, MsgNotEnoughBalance},
		{"unapproved seller", func() Order {
			nope := common.HexToAddress("0x0a0a")
			h.l.Credit(nope, no, 10*One)
			o := h.order(nope, Sell, 500_000, 10*One, GTC)
			o.TokenID = no
			return o
		}, MsgNotEnoughBalance},
		{"GTD too soon", func() Order {
			o := h.order(bob, Buy, 500_000, 10*One, GTD)
			o.Expiration = h.now.Add(30 * time.Second).Unix()
			return o
		}, MsgInvalidExpiration},
		{"expiration on GTC", func() Order {
			o := h.order(bob, Buy, 500_000, 10*One, GTC)
			o.Expiration = h.now.Add(time.Hour).Unix()
			return o
		}, MsgInvalidExpiration},
		{"FOK unfillable", func() Order { return h.order(bob, Buy, 600_000, 11*One, FOK) }, MsgFOKNotFilled},
		{"FAK no match", func() Order { return h.order(bob, Buy, 550_000, 10*One, FAK) }, MsgFAKNoMatch},
		{"market buy precision", func() Order {
			o := h.order(bob, Buy, 600_000, 10*One, FOK)
			o.MakerAmount += 1
			return o
		}, MsgMarketBuyAccuracy},
		{"unknown token", func() Order {
			o := h.order(bob, Buy, 500_000, 10*One, GTC)
			o.TokenID = "42"
			return o
		}, "Invalid token id"},
		{"bad type", func() Order { return h.order(bob, Buy, 500_000, 10*One, "IOC") }, MsgInvalidPayload},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before, _ := h.e.Book(yes)
			_, err := h.e.Place(context.Background(), c.mk())
			require.Error(t, err)
			assert.Contains(t, venue.MessageOf(err), c.want)
			assert.Equal(t, venue.Invalid, venue.CategoryOf(err))
			after, _ := h.e.Book(yes)
			assert.Equal(t, before.Bids, after.Bids, "nothing booked")
			assert.Equal(t, before.Asks, after.Asks, "nothing booked")
		})
	}
}

func TestReservation(t *testing.T) {
	h := newHarness(t)
	w := common.HexToAddress("0x5e5e")
	h.l.Credit(w, "", 10*One)
	h.l.Approve(w, 1<<62, true)
	r := h.place(t, h.order(w, Buy, 500_000, 16*One, GTC)) // reserves 8
	assert.Equal(t, 8*One, h.e.Reserved(w, ""))
	_, err := h.e.Place(context.Background(), h.order(w, Buy, 500_000, 6*One, GTC)) // needs 3, 2 left
	assert.Equal(t, MsgNotEnoughBalance, venue.MessageOf(err))
	h.place(t, h.order(w, Buy, 400_000, 5*One, GTC)) // needs 2: fits exactly
	require.NoError(t, h.e.Cancel(r.OrderID, ""))
	assert.Equal(t, 2*One, h.e.Reserved(w, ""))
	assert.Len(t, h.e.CancelWhere(h.order(w, Buy, 1, 1, GTC).Owner, "", ""), 1)
	assert.Zero(t, h.e.Reserved(w, ""))

	// Partial fill releases the filled part of the reservation.
	r = h.place(t, h.order(w, Buy, 500_000, 10*One, GTC))
	h.place(t, h.order(alice, Sell, 500_000, 4*One, FAK))
	assert.Equal(t, 3*One, h.e.Reserved(w, ""))
	v, _ := h.e.Order(r.OrderID)
	assert.Equal(t, 4*One, v.MatchedMicro)
}

func TestOrderTypes(t *testing.T) {
	cases := []struct {
		name       string
		typ        OrderType
		shares     uint64
		wantStatus Status
		wantFilled uint64
		rests      bool
	}{
		{"GTC partially fills then rests", GTC, 15 * One, StatusLive, 10 * One, true},
		{"GTC fully fills", GTC, 8 * One, StatusMatched, 8 * One, false},
		{"FOK fills completely", FOK, 10 * One, StatusMatched, 10 * One, false},
		{"FAK fills part, kills rest", FAK, 15 * One, StatusCanceled, 10 * One, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			h.place(t, h.order(alice, Sell, 500_000, 10*One, GTC))
			o := h.order(bob, Buy, 500_000, c.shares, c.typ)
			r := h.place(t, o)
			assert.Equal(t, "matched", r.Status)
			v, ok := h.e.Order(o.ID)
			require.True(t, ok)
			assert.Equal(t, c.wantStatus, v.Status)
			assert.Equal(t, c.wantFilled, v.MatchedMicro)
			bk, _ := h.e.Book(yes)
			assert.Equal(t, c.rests, len(bk.Bids) == 1)
			assert.Equal(t, 1000*One+c.wantFilled, h.l.Balance(bob, yes))
		})
	}
}

func TestGTDExpiry(t *testing.T) {
	h := newHarness(t)
	o := h.order(alice, Buy, 400_000, 10*One, GTD)
	o.Expiration = h.now.Add(2 * time.Minute).Unix()
	h.place(t, o)
	assert.Equal(t, 4*One, h.e.Reserved(alice, ""))
	h.now = h.now.Add(2 * time.Minute)
	h.e.Sweep()
	v, _ := h.e.Order(o.ID)
	assert.Equal(t, StatusCanceled, v.Status)
	assert.Zero(t, h.e.Reserved(alice, ""))
	bk, _ := h.e.Book(yes)
	assert.Empty(t, bk.Bids)
}

func TestSellTakerAndStaleMaker(t *testing.T) {
	h := newHarness(t)
	ghost := common.HexToAddress("0x9057")
	h.l.Credit(ghost, "", 5*One)
	h.l.Approve(ghost, 1<<62, true)
	g := h.place(t, h.order(ghost, Buy, 600_000, 8*One, GTC)) // 4.8 reserved
	h.place(t, h.order(bob, Buy, 550_000, 10*One, GTC))
	// The ghost moves its collateral away on chain.
	h.l.Approve(ghost, 0, true)
	r := h.place(t, h.order(alice, Sell, 500_000, 10*One, FOK))
	assert.Equal(t, "matched", r.Status)
	assert.Equal(t, 10*One*55/100, r.TakingMicro, "filled by bob at his price, not the ghost")
	v, _ := h.e.Order(g.OrderID)
	assert.Equal(t, StatusCanceled, v.Status)
	assert.Zero(t, h.e.Reserved(ghost, ""))
}

type failingSettler struct{}

func (failingSettler) Settle(context.Context, Match) (Settlement, error) {
	return Settlement{}, errors.New("execution reverted")
}

func TestFailedSettlementChangesNothing(t *testing.T) {
	h := newHarness(t)
	h.e.cfg.Settler = failingSettler{}
	mk := h.place(t, h.order(alice, Sell, 500_000, 10*One, GTC))
	_, err := h.e.Place(context.Background(), h.order(bob, Buy, 500_000, 10*One, GTC))
	require.Error(t, err)
	assert.Equal(t, venue.Rejected, venue.CategoryOf(err))
	assert.Equal(t, MsgExecution, venue.MessageOf(err))
	v, _ := h.e.Order(mk.OrderID)
	assert.Equal(t, StatusLive, v.Status)
	assert.Zero(t, v.MatchedMicro)
	assert.Empty(t, h.e.Trades(TradeFilter{}))
	assert.Equal(t, 10*One, h.e.Reserved(alice, yes))
}

func TestCancelRulesAndCloseMarket(t *testing.T) {
	h := newHarness(t)
	o := h.order(alice, Buy, 400_000, 10*One, GTC)
	h.place(t, o)
	assert.Equal(t, venue.NotFound, venue.CategoryOf(h.e.Cancel(o.ID, "someone-else")))
	assert.Equal(t, venue.NotFound, venue.CategoryOf(h.e.Cancel("0xnope", "")))
	require.NoError(t, h.e.Cancel(o.ID, o.Owner))
	assert.Equal(t, venue.Conflict, venue.CategoryOf(h.e.Cancel(o.ID, o.Owner)))

	h.place(t, h.order(alice, Sell, 700_000, 10*One, GTC))
	assert.Len(t, h.e.CloseMarket(cond), 1)
	_, err := h.e.Place(context.Background(), h.order(bob, Buy, 400_000, 10*One, GTC))
	assert.Equal(t, MsgMarketNotReady, venue.MessageOf(err))
	assert.Empty(t, h.e.Orders(OrderFilter{LiveOnly: true}))
}

func TestSelfTradePrevention(t *testing.T) {
	h := newHarness(t)
	own := h.place(t, h.order(alice, Sell, 500_000, 10*One, GTC))
	h.place(t, h.order(bob, Sell, 510_000, 10*One, GTC))
	r := h.place(t, h.order(alice, Buy, 510_000, 10*One, GTC))
	assert.Equal(t, "matched", r.Status, "filled by bob, not by alice's own ask")
	v, _ := h.e.Order(own.OrderID)
	assert.Equal(t, StatusCanceled, v.Status)
	assert.Equal(t, 1010*One, h.l.Balance(alice, yes), "alice got bob's 10 shares; her own ask was cancelled")
	assert.Equal(t, 990*One, h.l.Balance(bob, yes))
}

// flakySettler fails the first n settlements, then settles in memory.
type flakySettler struct {
	l    *MemLedger
	mu   sync.Mutex
	fail int
}

func (f *flakySettler) Settle(ctx context.Context, m Match) (Settlement, error) {
	f.mu.Lock()
	if f.fail > 0 {
		f.fail--
		f.mu.Unlock()
		return Settlement{}, errors.New("reverted")
	}
	f.mu.Unlock()
	return f.l.Settle(ctx, m)
}

func TestRollbackKeepsTimePriority(t *testing.T) {
	h := newHarness(t)
	h.e.cfg.Settler = &flakySettler{l: h.l, fail: 1}
	first := h.place(t, h.order(alice, Sell, 500_000, 10*One, GTC))
	second := h.place(t, h.order(bob, Sell, 500_000, 10*One, GTC))
	_, err := h.e.Place(context.Background(), h.order(carol, Buy, 500_000, 15*One, FOK))
	require.Error(t, err)
	assert.Equal(t, 10*One, h.e.Reserved(alice, yes), "reservation restored")
	bk, _ := h.e.Book(yes)
	assert.Equal(t, []Level{{500_000, 20 * One}}, bk.Asks)
	r := h.place(t, h.order(carol, Buy, 500_000, 5*One, FOK))
	tr := h.e.Trades(TradeFilter{ID: r.TradeIDs[0]})
	require.Len(t, tr, 1)
	assert.Equal(t, first.OrderID, tr[0].MakerOrders[0].OrderID, "alice keeps her place ahead of bob")
	v, _ := h.e.Order(second.OrderID)
	assert.Zero(t, v.MatchedMicro)
}

// TestConcurrentTradingConservesFunds hammers one book from many goroutines
// and checks that collateral and shares are conserved and reservations end
// consistent with the open orders.
func TestConcurrentTradingConservesFunds(t *testing.T) {
	h := newHarness(t)
	h.now = time.Now()
	h.e.cfg.Clock = time.Now
	wallets := []common.Address{alice, bob, carol}
	var wg sync.WaitGroup
	var mu sync.Mutex
	n := 0
	next := func(w common.Address, side Side, price uint64) Order {
		mu.Lock()
		defer mu.Unlock()
		n++
		o := h.order(w, side, price, 5*One, GTC)
		o.ID = fmt.Sprintf("0xc%063x", n)
		return o
	}
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := wallets[g%3]
			for i := range 60 {
				side := Side(i % 2)
				price := uint64(480_000 + 10_000*(i%5))
				_, _ = h.e.Place(context.Background(), next(w, side, price))
			}
		}()
	}
	wg.Wait()
	var coll, shares uint64
	for _, w := range wallets {
		coll += h.l.Balance(w, "")
		shares += h.l.Balance(w, yes)
	}
	assert.Equal(t, 3000*One, coll)
	assert.Equal(t, 3000*One, shares)
	for _, w := range wallets {
		var wantColl, wantTok uint64
		for _, v := range h.e.Orders(OrderFilter{Maker: w, LiveOnly: true}) {
			rem := v.SizeMicro - v.MatchedMicro
			if v.Side == Buy {
				wantColl += mulDiv(rem, v.MakerAmount, v.TakerAmount)
			} else {
				wantTok += rem
			}
		}
		assert.Equal(t, wantColl, h.e.Reserved(w, ""))
		assert.Equal(t, wantTok, h.e.Reserved(w, yes))
	}
}
