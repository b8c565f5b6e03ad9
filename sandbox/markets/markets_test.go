package markets

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/sandbox/exchange"
	"github.com/agent-trading/ats/venue/network"
	"github.com/agent-trading/ats/venue/updown"
)

func TestUpDownSlugsMatchTheLiveVenue(t *testing.T) {
	cases := []struct {
		asset, tf string
		at        time.Time
		slug      string
		title     string
	}{
		{"btc", "5m", time.Unix(1778583600+120, 0), "btc-updown-5m-1778583600", "Bitcoin Up or Down - May 12, 7:00AM-7:05AM ET"},
		{"btc", "15m", time.Unix(1778437800+899, 0), "btc-updown-15m-1778437800", "Bitcoin Up or Down - May 10, 2:30PM-2:45PM ET"},
		{"btc", "4h", time.Unix(1765861200+3*3600, 0), "btc-updown-4h-1765861200", "Bitcoin Up or Down - December 16, 12:00AM-4:00AM ET"},
		{"btc", "hourly", time.Date(2026, 9, 16, 12, 30, 0, 0, time.UTC), "bitcoin-up-or-down-september-16-2026-8am-et", "Bitcoin Up or Down - September 16, 8AM ET"},
		{"eth", "daily", time.Date(2026, 8, 24, 14, 0, 0, 0, time.UTC), "ethereum-up-or-down-on-august-24-2026", "Ethereum Up or Down on August 24?"},
		{"eth", "daily", time.Date(2026, 8, 24, 17, 0, 0, 0, time.UTC), "ethereum-up-or-down-on-august-25-2026", "Ethereum Up or Down on August 25?"},
		{"doge", "hourly", time.Date(2026, 1, 6, 2, 10, 0, 0, time.UTC), "dogecoin-up-or-down-january-5-2026-9pm-et", "Dogecoin Up or Down - January 5, 9PM ET"},
	}
	for _, c := range cases {
		t.Run(c.slug, func(t *testing.T) {
			a, err := updown.ParseAsset(c.asset)
			require.NoError(t, err)
			tf, err := updown.ParseTimeframe(c.tf)
			require.NoError(t, err)
			ws, err := updown.Windows(a, tf, c.at, 1)
			require.NoError(t, err)
			w := ws[0]
			assert.Equal(t, c.slug, w.Slug)
			assert.Equal(t, c.title, Title(c.asset, c.tf, w.Start, w.End))
			assert.False(t, c.at.Before(w.Start))
			assert.True(t, c.at.Before(w.End))
			assert.Equal(t, w.End, ws[1].Start, "windows are contiguous")
		})
	}
}

func TestPricePathIsDeterministic(t *testing.T) {
	p, q := NewPricePath(1), NewPricePath(2)
	at := time.Unix(1_790_000_000, 0)
	assert.Equal(t, p.At("btc", at), NewPricePath(1).At("btc", at))
	assert.NotEqual(t, p.At("btc", at), q.At("btc", at))
	for _, a := range Assets {
		v := p.At(a, at)
		base := basePrices[a]
		assert.InDelta(t, base, v, float64(base)/20, a)
	}
	u := UpDown{Asset: "eth", Timeframe: "5m", Start: at, End: at.Add(5 * time.Minute)}
	want := 1
	if p.At("eth", u.End) >= p.At("eth", u.Start) {
		want = 0
	}
	assert.Equal(t, want, p.Outcome(u))
	assert.Equal(t, uint64(500_000), p.Fair(u, at.Add(-time.Minute)))
	f := p.Fair(u, at.Add(3*time.Minute))
	assert.Zero(t, f%10_000)
	assert.True(t, f >= 30_000 && f <= 970_000)
}

func TestCatalogueIsReproducible(t *testing.T) {
	now := time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC)
	a, b := Catalogue(42, 20, now), Catalogue(42, 20, now.Add(time.Hour))
	assert.Equal(t, a, b)
	assert.NotEqual(t, a, Catalogue(43, 20, now))
	tags := map[string]bool{}
	slugs := map[string]bool{}
	for _, s := range a {
		tags[s.Tags[0]] = true
		assert.False(t, slugs[s.Slug], "unique slugs")
		slugs[s.Slug] = true
		assert.Zero(t, s.FairMicro%10_000)
		assert.True(t, s.End.After(now))
	}
	assert.Len(t, tags, 4, "politics, sports, crypto, entertainment")
}

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func newVenue(t *testing.T, updown bool) (*Venue, *MemChain, *clock) {
	t.Helper()
	ch := NewMemChain(5)
	clk := &clock{now: time.Date(2026, 11, 22, 4, 2, 30, 0, time.UTC)}
	v, err := New(Config{Chain: ch, Network: network.Sandbox("http://127.0.0.1:1"), Seed: 5, Ordinary: 4,
		UpDownAhead: 2, DisableUpDown: !updown, Clock: clk.Now})
	require.NoError(t, err)
	require.NoError(t, v.Start(context.Background()))
	return v, ch, clk
}

func TestVenueListsAndQuotesEveryMarket(t *testing.T) {
	v, ch, _ := newVenue(t, true)
	ms := v.Markets()
	assert.Len(t, ms, 4+len(Assets)*len(Timeframes)*3)
	for _, m := range ms {
		for i, tok := range m.TokenIDs {
			b, ok := v.Engine().Book(tok)
			require.True(t, ok)
			assert.NotEmpty(t, b.Bids, m.Slug)
			assert.NotEmpty(t, b.Asks, m.Slug)
			fair, _ := v.Fair(tok)
			assert.Less(t, b.Bids[0].PriceMicro, fair+1, "bid at or below fair")
			assert.Greater(t, b.Asks[0].PriceMicro, fair-1, "ask at or above fair")
			bal := ch.Balance(v.MarketMakerAddress(), tok)
			assert.Positive(t, bal, "real inventory for outcome %d", i)
		}
		ids := PositionIDs(network.Sandbox("").Collateral, common.HexToHash(m.ConditionID))
		assert.Equal(t, ids[0].String(), m.TokenIDs[0])
	}
}

func TestMakersRequoteAfterFillsAndPriceMoves(t *testing.T) {
	v, _, _ := newVenue(t, false)
	m := v.Markets()[0]
	before, _ := v.Engine().Book(m.TokenIDs[0])
	out := v.chain.OutsideWallets()[0]
	res, err := v.OutsideTrade(context.Background(), out, m.TokenIDs[0], exchange.Buy, before.Asks[0].PriceMicro, 100*exchange.One)
	require.NoError(t, err)
	assert.Equal(t, "matched", res.Status)
	mid, _ := v.Engine().Book(m.TokenIDs[0])
	assert.NotEqual(t, before.Asks[0], mid.Asks[0], "the best ask was taken")
	require.NoError(t, v.Tick(context.Background()))
	after, _ := v.Engine().Book(m.TokenIDs[0])
	assert.Equal(t, 100*exchange.One, after.Asks[0].SizeMicro, "best ask re-quoted at full size")

	info, err := v.SetPrice(context.Background(), m.TokenIDs[1], 300_000)
	require.NoError(t, err)
	f, _ := v.Fair(info.TokenIDs[0])
	assert.Equal(t, uint64(700_000), f)
	b, _ := v.Engine().Book(m.TokenIDs[0])
	assert.Equal(t, uint64(690_000), b.Bids[0].PriceMicro)
	assert.Equal(t, uint64(710_000), b.Asks[0].PriceMicro)
	_, err = v.SetPrice(context.Background(), m.TokenIDs[0], 305_000)
	assert.Error(t, err)
}

func TestUpDownRollsAndResolvesFromThePricePath(t *testing.T) {
	v, _, clk := newVenue(t, true)
	sol, _ := updown.ParseAsset("sol")
	ws, err := updown.Windows(sol, updown.TF5m, clk.Now(), 2)
	require.NoError(t, err)
	slug := ws[0].Slug
	cur, ok := v.BySlug(slug)
	require.True(t, ok)
	clk.Add(5 * time.Minute)
	require.NoError(t, v.Tick(context.Background()))
	done, _ := v.BySlug(slug)
	assert.True(t, done.Resolved)
	assert.Equal(t, v.PricePath().Outcome(*cur.UpDown), done.Winner)
	_, accepting, _ := v.Engine().Market(done.ConditionID)
	assert.False(t, accepting)
	ws, err = updown.Windows(sol, updown.TF5m, clk.Now(), 2)
	require.NoError(t, err)
	_, ok = v.BySlug(ws[2].Slug)
	assert.True(t, ok, "a new window was listed")
}

// TestShortUpDownWindows: a test sandbox lists only the series it asks
// for, and with UpDownWindow each window trades only that long, one after
// another from the listing: its end date says so, it resolves then, and
// the next window — same slugs as the live venue's — still accepts orders.
func TestShortUpDownWindows(t *testing.T) {
	ch := NewMemChain(5)
	clk := &clock{now: time.Date(2026, 11, 22, 4, 2, 30, 0, time.UTC)}
	v, err := New(Config{Chain: ch, Network: network.Sandbox("http://127.0.0.1:1"), Seed: 5, Ordinary: 1,
		UpDownAhead: 2, UpDownSeries: []string{"btc 15m"}, UpDownWindow: 20 * time.Second, Clock: clk.Now})
	require.NoError(t, err)
	require.NoError(t, v.Start(context.Background()))
	btc, _ := updown.ParseAsset("btc")
	ws, err := updown.Windows(btc, updown.TF15m, clk.Now(), 2)
	require.NoError(t, err)
	n := 0
	for _, m := range v.Markets() {
		if m.UpDown != nil {
			n++
			assert.Equal(t, "btc", m.UpDown.Asset)
			assert.Equal(t, "15m", m.UpDown.Timeframe)
		}
	}
	assert.Equal(t, 3, n, "the current window and the next two, of one series")
	cur, ok := v.BySlug(ws[0].Slug)
	require.True(t, ok)
	assert.Equal(t, clk.Now().Add(20*time.Second), cur.End, "the current window trades 20 s from its listing")
	next, ok := v.BySlug(ws[1].Slug)
	require.True(t, ok)
	assert.Equal(t, clk.Now().Add(40*time.Second), next.End, "the next one the 20 s after it")

	// A price set with the control API stays: the path no longer moves
	// that window.
	_, err = v.SetPrice(context.Background(), next.TokenIDs[0], 30_000)
	require.NoError(t, err)

	clk.Add(21 * time.Second)
	require.NoError(t, v.Tick(context.Background()))
	done, _ := v.BySlug(ws[0].Slug)
	assert.True(t, done.Resolved, "the short window resolved at its end")
	_, accepting, _ := v.Engine().Market(next.ConditionID)
	assert.True(t, accepting, "the next window still takes orders")
	f, _ := v.Fair(next.TokenIDs[0])
	assert.Equal(t, uint64(30_000), f, "the control price held through the tick")
}

func TestResolveAndCreate(t *testing.T) {
	v, _, _ := newVenue(t, false)
	m := v.Markets()[1]
	_, err := v.Resolve(context.Background(), m.ConditionID, "Maybe")
	assert.Error(t, err)
	r, err := v.Resolve(context.Background(), m.ConditionID, "no")
	require.NoError(t, err)
	assert.True(t, r.Resolved)
	assert.Equal(t, 1, r.Winner)
	assert.Empty(t, v.Engine().Orders(liveIn(m.ConditionID)))
	_, err = v.Resolve(context.Background(), m.ConditionID, "Yes")
	assert.Error(t, err)

	_, err = v.Create(context.Background(), Seed{Question: m.Question, Slug: m.Slug})
	assert.Error(t, err, "duplicate slug")
	c, err := v.Create(context.Background(), Seed{Question: "Will it rain in the sandbox?", FairMicro: 250_000})
	require.NoError(t, err)
	assert.Equal(t, "will-it-rain-in-the-sandbox", c.Slug)
	f, _ := v.Fair(c.TokenIDs[0])
	assert.Equal(t, uint64(250_000), f)
}

func liveIn(cond string) exchange.OrderFilter {
	return exchange.OrderFilter{ConditionID: cond, LiveOnly: true}
}
