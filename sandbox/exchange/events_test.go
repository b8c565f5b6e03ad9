package exchange

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recSink records published events.
type recSink struct {
	active atomic.Bool
	mu     sync.Mutex
	evs    []Event
}

func (r *recSink) Active() bool { return r.active.Load() }
func (r *recSink) Publish(evs []Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, evs...)
}

func (r *recSink) take() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.evs
	r.evs = nil
	return out
}

func TestEventsOfAMatch(t *testing.T) {
	h := newHarness(t)
	sink := &recSink{}
	sink.active.Store(true)
	h.e.SetEventSink(sink)

	maker := h.place(t, h.order(alice, Sell, 540_000, 10*One, GTC))
	evs := sink.take()
	require.Len(t, evs, 2, "%#v", evs)
	lc := evs[0].(LevelsChanged)
	assert.Equal(t, cond, lc.ConditionID)
	assert.Equal(t, []LevelChange{{TokenID: yes, Side: Sell, PriceMicro: 540_000, SizeMicro: 10 * One, BestAsk: 540_000}}, lc.Changes)
	placed := evs[1].(OrderChanged)
	assert.Equal(t, OrderPlaced, placed.Kind)
	assert.Equal(t, maker.OrderID, placed.Order.ID)

	taker := h.place(t, h.order(bob, Buy, 550_000, 6*One, GTC))
	evs = sink.take()
	var kinds []string
	for _, ev := range evs {
		switch e := ev.(type) {
		case LevelsChanged:
			kinds = append(kinds, "levels")
			assert.Equal(t, uint64(4*One), e.Changes[0].SizeMicro, "the level's new total")
		case TradeChanged:
			kinds = append(kinds, "trade:"+string(e.Trade.Status))
			assert.Equal(t, taker.TradeIDs[0], e.Trade.ID, "one trade id from MATCHED on")
			assert.Equal(t, uint64(6*One), e.Trade.SizeMicro)
			require.Len(t, e.Trade.MakerOrders, 1)
		case LastTrade:
			kinds = append(kinds, "last")
			assert.Equal(t, uint64(540_000), e.PriceMicro, "the level hit")
			assert.Equal(t, Buy, e.Side)
		case BookSnapshot:
			kinds = append(kinds, "book")
			assert.Equal(t, []Level{{540_000, 4 * One}}, e.Book.Asks)
		case OrderChanged:
			kinds = append(kinds, "order:"+string(e.Kind))
			assert.Equal(t, maker.OrderID, e.Order.ID)
			assert.Equal(t, uint64(6*One), e.Order.MatchedMicro)
		}
	}
	assert.Equal(t, []string{"levels", "trade:MATCHED", "trade:MINED", "last", "book", "order:UPDATE"}, kinds)

	require.NoError(t, h.e.Cancel(maker.OrderID, ""))
	evs = sink.take()
	require.Len(t, evs, 2)
	assert.Equal(t, uint64(0), evs[0].(LevelsChanged).Changes[0].SizeMicro, "the level is gone")
	assert.Equal(t, OrderCancelled, evs[1].(OrderChanged).Kind)

	// An FOK that cannot fill is reported as a CANCELLATION with the
	// venue's message.
	_, err := h.e.Place(context.Background(), h.order(bob, Buy, 550_000, 6*One, FOK))
	require.Error(t, err)
	evs = sink.take()
	require.Len(t, evs, 1)
	kill := evs[0].(OrderChanged)
	assert.Equal(t, OrderCancelled, kill.Kind)
	assert.Equal(t, "CANCELED_"+MsgFOKNotFilled, kill.Status)

	old, err := h.e.SetTick(cond, 1_000)
	require.NoError(t, err)
	assert.Equal(t, uint64(10_000), old)
	evs = sink.take()
	require.Len(t, evs, 1)
	assert.Equal(t, TickChanged{Market: evs[0].(TickChanged).Market, OldTick: 10_000, NewTick: 1_000, Time: h.now}, evs[0])
	h.place(t, h.order(alice, Sell, 541_000, 10*One, GTC)) // on the new tick
}

func TestEventsConfirmAfterSettlement(t *testing.T) {
	h := newHarness(t)
	h.e.cfg.ConfirmAfter = 20 * time.Millisecond
	h.e.cfg.Clock = time.Now
	sink := &recSink{}
	sink.active.Store(true)
	h.e.SetEventSink(sink)
	h.place(t, h.order(alice, Sell, 540_000, 10*One, GTC))
	r := h.place(t, h.order(bob, Buy, 550_000, 6*One, GTC))
	require.Eventually(t, func() bool {
		sink.mu.Lock()
		defer sink.mu.Unlock()
		for _, ev := range sink.evs {
			if tc, ok := ev.(TradeChanged); ok && tc.Trade.Status == TradeConfirmed {
				return tc.Trade.ID == r.TradeIDs[0]
			}
		}
		return false
	}, 2*time.Second, 5*time.Millisecond)
}

// Nobody listening: nothing is built or published.
func TestEventsInactiveSink(t *testing.T) {
	h := newHarness(t)
	sink := &recSink{}
	h.e.SetEventSink(sink)
	h.place(t, h.order(alice, Sell, 540_000, 10*One, GTC))
	h.place(t, h.order(bob, Buy, 550_000, 6*One, GTC))
	assert.Empty(t, sink.take())
	assert.Empty(t, h.e.touched)
	assert.Empty(t, h.e.queued)
}

// Books runs its callback under the engine's lock: no event can fall
// between the snapshot and what the callback registers.
func TestBooksSnapshotIsOrderedWithEvents(t *testing.T) {
	h := newHarness(t)
	sink := &recSink{}
	sink.active.Store(true)
	h.e.SetEventSink(sink)
	h.place(t, h.order(alice, Sell, 540_000, 10*One, GTC))
	sink.take()
	var got []Book
	h.e.Books([]string{yes, "unknown"}, func(bs []Book) {
		got = bs
		assert.Empty(t, sink.evs, "nothing published while the snapshot is taken")
	})
	require.Len(t, got, 1)
	assert.Equal(t, []Level{{540_000, 10 * One}}, got[0].Asks)
}
