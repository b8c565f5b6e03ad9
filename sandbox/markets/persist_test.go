package markets

import (
	"context"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/sandbox/exchange"
	"github.com/agent-trading/ats/sandbox/persist"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/network"
)

func journalOn(t *testing.T, fs vfs.FS) *persist.Store {
	t.Helper()
	s, err := persist.Open("state", persist.Options{FS: fs})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func persistentVenue(t *testing.T, ch *MemChain, clk *clock, j Journal) *Venue {
	t.Helper()
	v, err := New(Config{Chain: ch, Network: network.Sandbox("http://127.0.0.1:1"), Seed: 5, Ordinary: 4,
		UpDownAhead: 2, Clock: clk.Now, Journal: j})
	require.NoError(t, err)
	require.NoError(t, v.Start(context.Background()))
	return v
}

// firstPerMinute is what /prices-history shows of a history (one point per
// whole minute, the first): what the journal keeps of it.
func firstPerMinute(ps []PricePoint) []PricePoint {
	var out []PricePoint
	for _, p := range ps {
		if n := len(out); n == 0 || out[n-1].Time.Unix()/60 != p.Time.Unix()/60 {
			out = append(out, PricePoint{Time: time.UnixMilli(p.Time.UnixMilli()), Micro: p.Micro})
		}
	}
	return out
}

// TestVenueReopensAfterACrash builds a venue's market lifecycle (a listed
// market, a price set, a tick changed, a resolution, price history, an
// outside order resting), abandons the venue without closing anything,
// and reopens it from what the disk kept, ten minutes later: everything is
// as it was, the up/down windows that ended meanwhile are resolved from the
// price path and new ones listed, and every open market is quoted again.
func TestVenueReopensAfterACrash(t *testing.T) {
	ctx := context.Background()
	fs := vfs.NewCrashableMem()
	ch := NewMemChain(5)
	clk := &clock{now: time.Date(2026, 11, 22, 4, 2, 30, 0, time.UTC)}
	v := persistentVenue(t, ch, clk, journalOn(t, fs))
	require.False(t, v.Restored())

	created, err := v.Create(ctx, Seed{Question: "Will the venue remember?", FairMicro: 250_000})
	require.NoError(t, err)
	var ordinary []Info
	for _, m := range v.Markets() {
		if m.UpDown == nil && m.ConditionID != created.ConditionID {
			ordinary = append(ordinary, m)
		}
	}
	require.Len(t, ordinary, 4)
	_, err = v.SetPrice(ctx, ordinary[0].TokenIDs[0], 420_000)
	require.NoError(t, err)
	_, err = v.SetTick(ordinary[1].ConditionID, 1_000)
	require.NoError(t, err)
	_, err = v.Resolve(ctx, ordinary[2].ConditionID, "Yes")
	require.NoError(t, err)
	out := ch.OutsideWallets()[0]
	rest, err := v.OutsideTrade(ctx, out, created.TokenIDs[0], exchange.Buy, 100_000, 20*exchange.One)
	require.NoError(t, err)
	require.Equal(t, "live", rest.Status)
	for range 5 { // a few minutes of price history
		clk.Add(40 * time.Second)
		require.NoError(t, v.Tick(ctx))
	}
	before := map[string]Info{}
	for _, m := range v.Markets() {
		before[m.ConditionID] = m
	}
	fairBefore := map[string]uint64{}
	for _, m := range v.Markets() {
		fairBefore[m.TokenIDs[0]], _ = v.Fair(m.TokenIDs[0])
	}
	hist, _ := v.History(ordinary[3].TokenIDs[0], time.Time{}, clk.Now())
	require.Greater(t, len(hist), 3)

	// The process dies; it comes back ten minutes later.
	clk.Add(10 * time.Minute)
	v2 := persistentVenue(t, ch, clk, journalOn(t, fs.CrashClone(vfs.CrashCloneCfg{})))
	require.True(t, v2.Restored())
	after := map[string]Info{}
	for _, m := range v2.Markets() {
		after[m.ConditionID] = m
	}
	for cond, b := range before {
		a, ok := after[cond]
		require.True(t, ok, "market %s is gone", b.Slug)
		if b.UpDown != nil && !b.Resolved && !clk.Now().Before(b.UpDown.End) {
			assert.True(t, a.Resolved, "%s ended while the venue was down", b.Slug)
			assert.Equal(t, v.PricePath().Outcome(*b.UpDown), a.Winner, b.Slug)
			continue
		}
		a.Start, b.Start = a.Start.UTC(), b.Start.UTC()
		a.End, b.End = a.End.UTC(), b.End.UTC()
		a.EventStart, b.EventStart = a.EventStart.UTC(), b.EventStart.UTC()
		a.ResolvedAt, b.ResolvedAt = a.ResolvedAt.UTC(), b.ResolvedAt.UTC()
		if b.UpDown != nil {
			a.UpDown.Start, a.UpDown.End = a.UpDown.Start.UTC(), a.UpDown.End.UTC()
			b.UpDown.Start, b.UpDown.End = b.UpDown.Start.UTC(), b.UpDown.End.UTC()
		}
		assert.Equal(t, b, a, b.Slug)
		if b.UpDown == nil {
			f, _ := v2.Fair(b.TokenIDs[0])
			assert.Equal(t, fairBefore[b.TokenIDs[0]], f, "fair price of %s", b.Slug)
		}
	}
	assert.Greater(t, len(after), len(before), "new up/down windows were listed")
	assert.Equal(t, uint64(1_000), after[ordinary[1].ConditionID].TickMicro)
	assert.True(t, after[ordinary[2].ConditionID].Resolved)
	f, _ := v2.Fair(ordinary[0].TokenIDs[0])
	assert.Equal(t, uint64(420_000), f)

	hist2, ok := v2.History(ordinary[3].TokenIDs[0], time.Time{}, clk.Now())
	require.True(t, ok)
	assert.Equal(t, firstPerMinute(hist), firstPerMinute(hist2)[:len(firstPerMinute(hist))],
		"the price history answers as before")

	ov, ok := v2.Engine().Order(rest.OrderID)
	require.True(t, ok, "the outside order is kept")
	assert.Equal(t, exchange.StatusLive, ov.Status)
	so, ok := ov.Signed.(clob.Order)
	require.True(t, ok, "its signed order comes back as the venue's wire order")
	assert.Equal(t, ov.ID, mustHash(t, v2, created, so))
	for _, m := range v2.Markets() {
		if m.Resolved {
			_, accepting, _ := v2.Engine().Market(m.ConditionID)
			assert.False(t, accepting, m.Slug)
			continue
		}
		b, _ := v2.Engine().Book(m.TokenIDs[0])
		assert.NotEmpty(t, b.Asks, "%s is quoted again", m.Slug)
	}
	b, _ := v2.Engine().Book(created.TokenIDs[0])
	assert.Contains(t, b.Bids, exchange.Level{PriceMicro: 100_000, SizeMicro: 20 * exchange.One}, "the outside bid rests")
	ordinaryAfter := 0
	for _, m := range v2.Markets() {
		if m.UpDown == nil {
			ordinaryAfter++
		}
	}
	assert.Equal(t, 5, ordinaryAfter, "the catalogue is not listed twice")
}

func mustHash(t *testing.T, v *Venue, m Info, o clob.Order) string {
	t.Helper()
	h, err := clob.OrderHash(o, clob.NetworkDomain(v.Network(), m.NegRisk))
	require.NoError(t, err)
	return h.Hex()
}
