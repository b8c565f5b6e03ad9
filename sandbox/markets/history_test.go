package markets

import (
	"context"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/sandbox/exchange"
)

// A recorded history (the control API's) replaces what the venue sampled
// over its span, is answered for both outcomes, and is on disk: a reopened
// venue answers it as before.
func TestRecordHistory(t *testing.T) {
	ctx := context.Background()
	fs := vfs.NewCrashableMem()
	ch := NewMemChain(5)
	clk := &clock{now: time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC)}
	v := persistentVenue(t, ch, clk, journalOn(t, fs))
	var m Info
	for _, x := range v.Markets() {
		if x.UpDown == nil {
			m = x
			break
		}
	}
	for range 3 { // the venue's own samples, some inside the span set below
		clk.Add(time.Minute)
		require.NoError(t, v.Tick(ctx))
	}
	start := clk.Now().Add(-150 * time.Second)
	var pts []PricePoint
	for i, p := range []uint64{500_000, 450_000, 380_000, 420_000} {
		pts = append(pts, PricePoint{Time: start.Add(time.Duration(i) * 30 * time.Second), Micro: p})
	}
	_, err := v.RecordHistory(m.TokenIDs[1], pts)
	require.NoError(t, err)
	got, ok := v.History(m.TokenIDs[1], start, pts[3].Time)
	require.True(t, ok)
	require.Len(t, got, 4, "the venue's samples inside the span are replaced")
	for i := range pts {
		assert.Equal(t, pts[i].Micro, got[i].Micro)
	}
	yes, _ := v.History(m.TokenIDs[0], start, pts[3].Time)
	assert.Equal(t, exchange.One-380_000, yes[2].Micro, "the other outcome at 1 - p")

	_, err = v.RecordHistory(m.TokenIDs[0], []PricePoint{{Time: clk.Now().Add(time.Minute), Micro: 500_000}})
	require.Error(t, err, "the future is not history")
	_, err = v.RecordHistory(m.TokenIDs[0], []PricePoint{{Time: start, Micro: 500_000}, {Time: start, Micro: 400_000}})
	require.Error(t, err, "points go oldest first")
	_, err = v.RecordHistory(m.TokenIDs[0], []PricePoint{{Time: start, Micro: exchange.One}})
	require.Error(t, err)
	_, err = v.RecordHistory("42", pts)
	require.Error(t, err)

	v2 := persistentVenue(t, ch, clk, journalOn(t, fs.CrashClone(vfs.CrashCloneCfg{})))
	again, _ := v2.History(m.TokenIDs[1], start, pts[3].Time)
	require.Len(t, again, 4)
	for i := range pts {
		assert.Equal(t, pts[i].Micro, again[i].Micro)
		assert.True(t, pts[i].Time.Equal(again[i].Time))
	}
}

// Beyond the cap the older half of a market's samples is thinned to the
// first of each minute, which is all /prices-history serves of it: weeks
// of one-minute history stay.
func TestHistoryThinsToMinutes(t *testing.T) {
	v := &Venue{history: map[string][]PricePoint{}}
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	h := make([]PricePoint, historyCap+1)
	for i := range h {
		h[i] = PricePoint{Time: t0.Add(time.Duration(i) * 2 * time.Second), Micro: uint64(i + 1)}
	}
	out := v.thinLocked("c", h)
	half := len(h) / 2
	assert.Equal(t, firstPerMinute(h[:half]), firstPerMinute(out[:len(out)-(len(h)-half)]))
	assert.Equal(t, h[half:], out[len(out)-(len(h)-half):], "the newer half is kept whole")
	assert.Equal(t, firstPerMinute(h), firstPerMinute(out), "/prices-history answers as before")
}
