package markets

import (
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/gamma"
)

func lvl(p, s string) clob.PriceLevel {
	return clob.PriceLevel{Price: decimal.RequireFromString(p), Size: decimal.RequireFromString(s)}
}

func TestQuoteOf(t *testing.T) {
	b := &clob.OrderBook{
		// As served: best last.
		Bids: []clob.PriceLevel{lvl("0.40", "10"), lvl("0.45", "5")},
		Asks: []clob.PriceLevel{lvl("0.60", "3"), lvl("0.55", "7")},
	}
	b.LastTradePrice.Decimal = decimal.RequireFromString("0.5")
	normalise(b)
	q := QuoteOf("1", b)
	assert.Equal(t, "0.45", q.BestBid.Decimal.String())
	assert.Equal(t, "0.55", q.BestAsk.Decimal.String())
	assert.Equal(t, "0.5", q.Midpoint.Decimal.String())
	assert.Equal(t, "0.1", q.Spread.Decimal.String())
	assert.Equal(t, "20", q.SpreadPercent.Decimal.String())
	assert.Equal(t, "15", q.BidDepth.String())
	assert.Equal(t, "10", q.AskDepth.String())
	assert.Equal(t, "0.5", q.LastTradePrice.Decimal.String())

	oneSided := QuoteOf("2", &clob.OrderBook{Bids: []clob.PriceLevel{lvl("0.3", "1")}})
	assert.True(t, oneSided.BestBid.Valid)
	assert.False(t, oneSided.BestAsk.Valid)
	assert.False(t, oneSided.Midpoint.Valid)
	assert.False(t, oneSided.Spread.Valid)
	assert.False(t, oneSided.SpreadPercent.Valid)
	assert.False(t, oneSided.LastTradePrice.Valid)
}

func TestSearchParamsValidate(t *testing.T) {
	okP := SearchParams{Limit: 10}
	cases := []struct {
		name  string
		p     SearchParams
		param string
	}{
		{"sort", SearchParams{Limit: 10, Sort: "price"}, "sort"},
		{"tag", SearchParams{Limit: 10, Tag: "weather"}, "tag"},
		{"limit low", SearchParams{Limit: 0}, "limit"},
		{"limit high", SearchParams{Limit: 101}, "limit"},
		{"offset", SearchParams{Limit: 1, Offset: -1}, "offset"},
		{"min_volume", SearchParams{Limit: 1, MinVolume: decimal.NewFromInt(-1)}, "min_volume"},
	}
	require.NoError(t, okP.Validate())
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Validate()
			assert.True(t, errs.Is(err, errs.Invalid))
			assert.Contains(t, errs.PublicMessage(err), `"`+tc.param+`"`)
		})
	}
}

func TestMatchScore(t *testing.T) {
	m := gamma.Market{Question: "Will Bitcoin trade above 100k?", Slug: "btc-above-100k", Description: "resolves on coinbase"}
	cases := []struct {
		q    string
		want int
	}{
		{"bitcoin trade above", 3},
		{"above bitcoin", 2},
		{"bitcoin coinbase", 1},
		{"btc", 1},
		{"ethereum", 0},
		{"bitcoin ethereum", 0},
	}
	for _, tc := range cases {
		terms := splitTerms(tc.q)
		assert.Equal(t, tc.want, matchScore(m, terms, tc.q), tc.q)
	}
}

func TestParseTokenIDs(t *testing.T) {
	ids, err := ParseTokenIDs("token_ids", " 1, 2,1,,3 ")
	require.NoError(t, err)
	assert.Equal(t, []string{"1", "2", "3"}, ids)
	for _, raw := range []string{"", ",", "1,a", "0x12", "1,-2"} {
		_, err := ParseTokenIDs("token_ids", raw)
		assert.True(t, errs.Is(err, errs.Invalid), raw)
	}
}

func TestValidMarketID(t *testing.T) {
	for id, want := range map[string]bool{
		"1": true, "123456": true, "0x" + string(make([]byte, 0)): false, "abc": false, "": false,
		"0xAbCd000000000000000000000000000000000000000000000000000000000000": true,
		"0xzz00000000000000000000000000000000000000000000000000000000000000": false,
		"123456789012345678901": false,
	} {
		assert.Equal(t, want, validMarketID(id), id)
	}
}
