package exchange

import (
	"context"
	"sort"
	"sync/atomic"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/venue"
)

// ofBob gives an order its own owner (the harness's owners of alice's and
// bob's orders coincide).
func ofBob(o Order) Order {
	o.Owner = "key-bob"
	return o
}

func TestReplaceWhere(t *testing.T) {
	type setup struct {
		old     []Order // alice's orders before the swap
		outside []Order // other makers' resting orders
		next    []Order // the swap's orders
	}
	cases := []struct {
		name    string
		refused bool // the call itself fails
		build   func(h *harness) setup
		check   func(t *testing.T, h *harness, s setup, rep Replacement, evs []Event)
	}{
		{
			name: "old orders out, new in, one level update",
			build: func(h *harness) setup {
				return setup{
					old:  []Order{h.order(alice, Sell, 540_000, 10*One, GTC), h.order(alice, Buy, 460_000, 10*One, GTC)},
					next: []Order{h.order(alice, Sell, 550_000, 20*One, GTC), h.order(alice, Buy, 450_000, 20*One, GTC)},
				}
			},
			check: func(t *testing.T, h *harness, s setup, rep Replacement, evs []Event) {
				assert.Equal(t, []string{s.old[0].ID, s.old[1].ID}, rep.Cancelled)
				assert.Equal(t, []error{nil, nil}, rep.Errs)
				assert.Equal(t, "live", rep.Results[0].Status)
				bk, _ := h.e.Book(yes)
				assert.Equal(t, []Level{{550_000, 20 * One}}, bk.Asks)
				assert.Equal(t, []Level{{450_000, 20 * One}}, bk.Bids)
				assert.Equal(t, 20*One, h.e.Reserved(alice, yes), "the old sell's reservation released")
				assert.Equal(t, uint64(9*One), h.e.Reserved(alice, ""))

				var levels []LevelsChanged
				kinds := map[OrderEventKind]int{}
				for _, ev := range evs {
					switch e := ev.(type) {
					case LevelsChanged:
						levels = append(levels, e)
					case OrderChanged:
						kinds[e.Kind]++
					}
				}
				require.Len(t, levels, 1, "the swap is one update of the market's levels")
				changes := levels[0].Changes
				sort.Slice(changes, func(i, j int) bool { return changes[i].PriceMicro < changes[j].PriceMicro })
				top := func(c LevelChange) LevelChange { c.BestBid, c.BestAsk = 450_000, 550_000; return c }
				assert.Equal(t, []LevelChange{
					top(LevelChange{TokenID: yes, Side: Buy, PriceMicro: 450_000, SizeMicro: 20 * One}),
					top(LevelChange{TokenID: yes, Side: Buy, PriceMicro: 460_000}),
					top(LevelChange{TokenID: yes, Side: Sell, PriceMicro: 540_000}),
					top(LevelChange{TokenID: yes, Side: Sell, PriceMicro: 550_000, SizeMicro: 20 * One}),
				}, changes, "every level at its total after the swap, with the top of book after it")
				assert.Equal(t, map[OrderEventKind]int{OrderCancelled: 2, OrderPlaced: 2}, kinds)
			},
		},
		{
			name: "a refused order is reported, the others go in",
			build: func(h *harness) setup {
				return setup{
					old:  []Order{h.order(alice, Sell, 540_000, 10*One, GTC)},
					next: []Order{h.order(alice, Sell, 555_000, 10*One, GTC), h.order(alice, Sell, 560_000, 10*One, GTC)},
				}
			},
			check: func(t *testing.T, h *harness, s setup, rep Replacement, _ []Event) {
				assert.Equal(t, []string{s.old[0].ID}, rep.Cancelled)
				require.Error(t, rep.Errs[0])
				assert.Equal(t, venue.Invalid, venue.CategoryOf(rep.Errs[0]), "off the tick")
				assert.NoError(t, rep.Errs[1])
				bk, _ := h.e.Book(yes)
				assert.Equal(t, []Level{{560_000, 10 * One}}, bk.Asks)
			},
		},
		{
			name: "a new order crossing another maker's trades and rests the rest",
			build: func(h *harness) setup {
				return setup{
					old:     []Order{h.order(alice, Sell, 600_000, 10*One, GTC)},
					outside: []Order{ofBob(h.order(bob, Buy, 560_000, 10*One, GTC))},
					next:    []Order{h.order(alice, Sell, 550_000, 15*One, GTC), h.order(alice, Sell, 580_000, 10*One, GTC)},
				}
			},
			check: func(t *testing.T, h *harness, s setup, rep Replacement, evs []Event) {
				assert.Equal(t, []error{nil, nil}, rep.Errs)
				assert.Equal(t, "matched", rep.Results[0].Status)
				assert.Equal(t, 10*One, rep.Results[0].MakingMicro)
				assert.Equal(t, uint64(10*560_000), rep.Results[0].TakingMicro, "at the resting bid's price")
				bk, _ := h.e.Book(yes)
				assert.Empty(t, bk.Bids)
				assert.Equal(t, []Level{{550_000, 5 * One}, {580_000, 10 * One}}, bk.Asks)
				ov, _ := h.e.Order(s.outside[0].ID)
				assert.Equal(t, StatusMatched, ov.Status)
				assert.Equal(t, 1000*One+10*One, h.l.Balance(bob, yes))
				var last []LastTrade
				for _, ev := range evs {
					if lt, ok := ev.(LastTrade); ok {
						last = append(last, lt)
					}
				}
				require.Len(t, last, 1)
				assert.Equal(t, uint64(560_000), last[0].PriceMicro)
			},
		},
		{
			name:    "an order of another owner refuses the whole swap",
			refused: true,
			build: func(h *harness) setup {
				return setup{
					old:  []Order{h.order(alice, Sell, 540_000, 10*One, GTC)},
					next: []Order{h.order(alice, Sell, 550_000, 10*One, GTC), ofBob(h.order(bob, Sell, 560_000, 10*One, GTC))},
				}
			},
			check: func(t *testing.T, h *harness, s setup, rep Replacement, evs []Event) {
				assert.Empty(t, rep.Cancelled)
				bk, _ := h.e.Book(yes)
				assert.Equal(t, []Level{{540_000, 10 * One}}, bk.Asks, "nothing changed")
				assert.Empty(t, evs)
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			s := tc.build(h)
			for _, o := range append(s.old, s.outside...) {
				h.place(t, o)
			}
			sink := &recSink{}
			sink.active.Store(true)
			h.e.SetEventSink(sink)
			owner := s.old[0].Owner
			rep, err := h.e.ReplaceWhere(context.Background(), owner, cond, s.next)
			if tc.refused {
				require.Error(t, err)
				assert.Equal(t, venue.Invalid, venue.CategoryOf(err))
			} else {
				require.NoError(t, err)
			}
			tc.check(t, h, s, rep, sink.take())
		})
	}
}

// countingJournal counts the journal entries the engine makes.
type countingJournal struct {
	Journal
	applies atomic.Int64
}

func (j *countingJournal) Apply(keys []string, values []any) uint64 {
	j.applies.Add(1)
	return j.Journal.Apply(keys, values)
}

// TestReplaceWhereIsOneJournalEntry: the swap reaches the disk as one entry
// (all of it or none), and a restart sees it whole.
func TestReplaceWhereIsOneJournalEntry(t *testing.T) {
	fs := vfs.NewCrashableMem()
	l, now := fundedLedger(), t0
	j := &countingJournal{Journal: openStore(t, fs)}
	h := persistentHarness(t, l, &now, j, nil)
	order := func(side Side, price uint64) Order {
		o := h.order(alice, side, price, 10*One, GTC)
		o.Signed = testSigned{Salt: h.n}
		return o
	}
	old := []Order{order(Sell, 540_000), order(Sell, 560_000), order(Buy, 450_000)}
	for _, o := range old {
		h.place(t, o)
	}
	next := []Order{order(Sell, 530_000), order(Buy, 460_000), order(Buy, 440_000)}
	before := j.applies.Load()
	rep, err := h.e.ReplaceWhere(context.Background(), old[0].Owner, cond, next)
	require.NoError(t, err)
	assert.Equal(t, []error{nil, nil, nil}, rep.Errs)
	assert.Equal(t, int64(1), j.applies.Load()-before, "three cancellations and three placements in one entry")

	want := keptState(t, h.e, nil)
	h2 := persistentHarness(t, l, &now, openStore(t, crash(fs)), nil)
	require.NoError(t, h2.e.Restore(context.Background(), nil))
	assert.Equal(t, want, keptState(t, h2.e, nil))
	for _, o := range old {
		v, _ := h2.e.Order(o.ID)
		assert.Equal(t, StatusCanceled, v.Status)
	}
	bk, _ := h2.e.Book(yes)
	assert.Equal(t, []Level{{530_000, 10 * One}}, bk.Asks)
	assert.Equal(t, []Level{{460_000, 10 * One}, {440_000, 10 * One}}, bk.Bids)
}
