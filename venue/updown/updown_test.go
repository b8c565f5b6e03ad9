package updown

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/gamma"
)

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestWindowAt(t *testing.T) {
	cases := []struct {
		name       string
		asset      string
		tf         Timeframe
		at         string
		slug       string
		alts       []string
		start, end string
	}{
		// Venue examples (protocol doc §5).
		{"5m example", "btc", TF5m, "2026-05-12T11:03:10Z", "btc-updown-5m-1778583600", nil, "2026-05-12T11:00:00Z", "2026-05-12T11:05:00Z"},
		{"5m boundary", "bitcoin", TF5m, "2026-05-12T11:05:00Z", "btc-updown-5m-1778583900", nil, "2026-05-12T11:05:00Z", "2026-05-12T11:10:00Z"},
		{"15m example", "BTC", TF15m, "2026-05-10T18:44:59Z", "btc-updown-15m-1778437800", nil, "2026-05-10T18:30:00Z", "2026-05-10T18:45:00Z"},
		{"4h example EST", "btc", TF4h, "2025-12-16T07:00:00Z", "btc-updown-4h-1765861200", nil, "2025-12-16T05:00:00Z", "2025-12-16T09:00:00Z"},
		{"4h EDT", "eth", TF4h, "2026-05-12T12:00:00Z", "eth-updown-4h-1778587200", nil, "2026-05-12T12:00:00Z", "2026-05-12T16:00:00Z"},
		{"4h spring forward: 3h window", "sol", TF4h, "2026-03-08T06:30:00Z", "sol-updown-4h-1772946000", nil, "2026-03-08T05:00:00Z", "2026-03-08T08:00:00Z"},
		{"4h after spring forward", "sol", TF4h, "2026-03-08T08:30:00Z", "sol-updown-4h-1772956800", nil, "2026-03-08T08:00:00Z", "2026-03-08T12:00:00Z"},
		{"4h fall back: 5h window", "xrp", TF4h, "2026-11-01T06:30:00Z", "xrp-updown-4h-1793505600", nil, "2026-11-01T04:00:00Z", "2026-11-01T09:00:00Z"},
		{"4h after fall back", "xrp", TF4h, "2026-11-01T09:30:00Z", "xrp-updown-4h-1793523600", nil, "2026-11-01T09:00:00Z", "2026-11-01T13:00:00Z"},
		{"hourly example", "btc", TFHourly, "2026-09-16T12:30:00Z", "bitcoin-up-or-down-september-16-2026-8am-et",
			[]string{"bitcoin-up-or-down-september-16-8am-et"}, "2026-09-16T12:00:00Z", "2026-09-16T13:00:00Z"},
		{"hourly EST evening", "bitcoin", TFHourly, "2026-01-07T02:00:00Z", "bitcoin-up-or-down-january-6-2026-9pm-et",
			[]string{"bitcoin-up-or-down-january-6-9pm-et"}, "2026-01-07T02:00:00Z", "2026-01-07T03:00:00Z"},
		{"hourly year boundary", "sol", TFHourly, "2026-01-01T04:59:00Z", "solana-up-or-down-december-31-2025-11pm-et",
			[]string{"solana-up-or-down-december-31-11pm-et"}, "2026-01-01T04:00:00Z", "2026-01-01T05:00:00Z"},
		{"hourly noon", "doge", TFHourly, "2026-06-01T16:10:00Z", "dogecoin-up-or-down-june-1-2026-12pm-et",
			[]string{"dogecoin-up-or-down-june-1-12pm-et"}, "2026-06-01T16:00:00Z", "2026-06-01T17:00:00Z"},
		{"hourly midnight", "doge", TFHourly, "2026-06-01T04:10:00Z", "dogecoin-up-or-down-june-1-2026-12am-et",
			[]string{"dogecoin-up-or-down-june-1-12am-et"}, "2026-06-01T04:00:00Z", "2026-06-01T05:00:00Z"},
		{"hourly spring forward skips 2am", "eth", TFHourly, "2026-03-08T07:30:00Z", "ethereum-up-or-down-march-8-2026-3am-et",
			[]string{"ethereum-up-or-down-march-8-3am-et"}, "2026-03-08T07:00:00Z", "2026-03-08T08:00:00Z"},
		{"hourly fall back first 1am", "eth", TFHourly, "2026-11-01T05:30:00Z", "ethereum-up-or-down-november-1-2026-1am-et",
			[]string{"ethereum-up-or-down-november-1-1am-et"}, "2026-11-01T05:00:00Z", "2026-11-01T06:00:00Z"},
		{"hourly fall back second 1am", "eth", TFHourly, "2026-11-01T06:30:00Z", "ethereum-up-or-down-november-1-2026-1am-et",
			[]string{"ethereum-up-or-down-november-1-1am-et"}, "2026-11-01T06:00:00Z", "2026-11-01T07:00:00Z"},
		{"daily before noon", "eth", TFDaily, "2026-08-24T15:59:59Z", "ethereum-up-or-down-on-august-24-2026",
			[]string{"ethereum-up-or-down-on-august-24"}, "2026-08-23T16:00:00Z", "2026-08-24T16:00:00Z"},
		{"daily at noon rolls over", "eth", TFDaily, "2026-08-24T16:00:00Z", "ethereum-up-or-down-on-august-25-2026",
			[]string{"ethereum-up-or-down-on-august-25"}, "2026-08-24T16:00:00Z", "2026-08-25T16:00:00Z"},
		{"daily across spring forward: 23h", "btc", TFDaily, "2026-03-08T12:00:00Z", "bitcoin-up-or-down-on-march-8-2026",
			[]string{"bitcoin-up-or-down-on-march-8"}, "2026-03-07T17:00:00Z", "2026-03-08T16:00:00Z"},
		{"daily across fall back: 25h", "btc", TFDaily, "2026-11-01T12:00:00Z", "bitcoin-up-or-down-on-november-1-2026",
			[]string{"bitcoin-up-or-down-on-november-1"}, "2026-10-31T16:00:00Z", "2026-11-01T17:00:00Z"},
		{"daily polygon alias", "matic", TFDaily, "2026-01-10T12:00:00Z", "polygon-up-or-down-on-january-10-2026",
			[]string{"polygon-up-or-down-on-january-10", "matic-up-or-down-on-january-10-2026", "matic-up-or-down-on-january-10"}, "2026-01-09T17:00:00Z", "2026-01-10T17:00:00Z"},
		{"5m matic symbol", "polygon", TF5m, "2026-01-10T12:00:01Z", "matic-updown-5m-1768046400", nil, "2026-01-10T12:00:00Z", "2026-01-10T12:05:00Z"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := ParseAsset(c.asset)
			require.NoError(t, err)
			w, err := WindowAt(a, c.tf, utc(c.at))
			require.NoError(t, err)
			require.Equal(t, c.slug, w.Slug)
			require.Equal(t, c.alts, w.Alternates)
			require.Equal(t, utc(c.start), w.Start)
			require.Equal(t, utc(c.end), w.End)
			require.False(t, utc(c.at).Before(w.Start))
			require.True(t, utc(c.at).Before(w.End))
		})
	}
}

func TestParse(t *testing.T) {
	for _, s := range []string{"btc", "Bitcoin", "ETH", "ethereum", "sol", "solana", "xrp", "doge", "dogecoin", "matic", "polygon", "pol"} {
		_, err := ParseAsset(s)
		require.NoError(t, err, s)
	}
	_, err := ParseAsset("bnb")
	require.Equal(t, "invalid_asset", venue.CodeOf(err))
	for in, want := range map[string]Timeframe{"5m": TF5m, "15MIN": TF15m, "4h": TF4h, "1h": TFHourly, "hourly": TFHourly, "": TFDaily, "1d": TFDaily} {
		got, err := ParseTimeframe(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got)
	}
	_, err = ParseTimeframe("1w")
	require.Equal(t, "invalid_timeframe", venue.CodeOf(err))
}

func TestWindowsContiguous(t *testing.T) {
	btc, _ := ParseAsset("btc")
	for _, tf := range []Timeframe{TF5m, TF15m, TF4h, TFHourly, TFDaily} {
		// Across the autumn DST change, where local-time arithmetic breaks.
		ws, err := Windows(btc, tf, utc("2026-10-31T20:00:00Z"), 30)
		require.NoError(t, err)
		require.Len(t, ws, 31)
		seen := map[string]bool{}
		for i := 1; i < len(ws); i++ {
			require.Equal(t, ws[i-1].End, ws[i].Start, "%s window %d", tf, i)
			require.True(t, ws[i].End.After(ws[i].Start))
			if tf != TFHourly { // hourly slugs repeat on the fall-back night by design
				require.False(t, seen[ws[i].Slug], ws[i].Slug)
			}
			seen[ws[i].Slug] = true
		}
	}
}

type fakeGamma struct {
	markets map[string]*gamma.Market
	err     map[string]error
	asked   []string
}

func (f *fakeGamma) MarketBySlug(_ context.Context, slug string) (*gamma.Market, error) {
	f.asked = append(f.asked, slug)
	if err := f.err[slug]; err != nil {
		return nil, err
	}
	if m, ok := f.markets[slug]; ok {
		return m, nil
	}
	return nil, venue.E(venue.NotFound, "market not found").WithCode("not_found")
}

func TestFindAccepting(t *testing.T) {
	btc, _ := ParseAsset("btc")
	now := utc("2026-05-12T11:03:10Z")

	// Current window closed early, next one open.
	f := &fakeGamma{markets: map[string]*gamma.Market{
		"btc-updown-5m-1778583600": {Slug: "btc-updown-5m-1778583600", AcceptingOrders: false},
		"btc-updown-5m-1778583900": {Slug: "btc-updown-5m-1778583900", AcceptingOrders: true},
	}}
	m, w, err := FindAccepting(context.Background(), f, btc, TF5m, now)
	require.NoError(t, err)
	require.Equal(t, "btc-updown-5m-1778583900", m.Slug)
	require.Equal(t, utc("2026-05-12T11:05:00Z"), w.Start)

	// The current window is past its end date, not yet closed by the
	// venue: the next one is the window that trades.
	f = &fakeGamma{markets: map[string]*gamma.Market{
		"btc-updown-5m-1778583600": {Slug: "btc-updown-5m-1778583600", AcceptingOrders: true, EndDate: utc("2026-05-12T11:03:00Z")},
		"btc-updown-5m-1778583900": {Slug: "btc-updown-5m-1778583900", AcceptingOrders: true, EndDate: utc("2026-05-12T11:10:00Z")},
	}}
	m, _, err = FindAccepting(context.Background(), f, btc, TF5m, now)
	require.NoError(t, err)
	require.Equal(t, "btc-updown-5m-1778583900", m.Slug)

	// Only the third window (the last one looked at) exists.
	f = &fakeGamma{markets: map[string]*gamma.Market{"btc-updown-5m-1778584200": {Slug: "x", AcceptingOrders: true}}}
	_, _, err = FindAccepting(context.Background(), f, btc, TF5m, now)
	require.NoError(t, err)
	require.Len(t, f.asked, 3)

	// Nothing within current+2.
	f = &fakeGamma{markets: map[string]*gamma.Market{"btc-updown-5m-1778584500": {AcceptingOrders: true}}}
	_, _, err = FindAccepting(context.Background(), f, btc, TF5m, now)
	require.Equal(t, "no_accepting_market", venue.CodeOf(err))

	// Falls back to the year-less hourly slug.
	f = &fakeGamma{markets: map[string]*gamma.Market{"bitcoin-up-or-down-september-16-8am-et": {AcceptingOrders: true}}}
	_, w, err = FindAccepting(context.Background(), f, btc, TFHourly, utc("2026-09-16T12:30:00Z"))
	require.NoError(t, err)
	require.Equal(t, []string{"bitcoin-up-or-down-september-16-2026-8am-et", "bitcoin-up-or-down-september-16-8am-et"}, f.asked)
	require.Equal(t, utc("2026-09-16T12:00:00Z"), w.Start)

	// Lookup failures other than not-found abort.
	f = &fakeGamma{err: map[string]error{"btc-updown-5m-1778583600": venue.E(venue.Unavailable, "gamma unavailable")}}
	_, _, err = FindAccepting(context.Background(), f, btc, TF5m, now)
	require.Equal(t, venue.Unavailable, venue.CategoryOf(err))
}

// gamma.Client satisfies MarketFinder.
var _ MarketFinder = (*gamma.Client)(nil)
