package strategies

import (
	"context"
	"strings"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/markets"
	"github.com/agent-trading/ats/venue/gamma"
	"github.com/agent-trading/ats/venue/updown"
)

// MarketResolver resolves a marketQuery through market search.
//
// A query naming a crypto asset and an up/down timeframe ("btc 15m up",
// "eth hourly", "sol daily down") resolves to that asset's up/down market
// of the window accepting orders now, so a RECURRING_BUY re-resolving it
// every interval follows the current window. Outcome Yes is the "Up"
// token and No the "Down" token; with no outcome, an "up" or "down" word
// in the query decides, else Yes/Up. Any other query is a market search
// (markets accepting orders; the top match) and Outcome picks the Yes or
// No token (default Yes).
type MarketResolver struct {
	Markets *markets.Service
}

// Resolve returns the token id the query and outcome name now.
func (r MarketResolver) Resolve(ctx context.Context, query, outcome string) (string, error) {
	words := strings.Fields(strings.ToLower(query))
	var asset, tf string
	updownWord := ""
	for _, w := range words {
		if _, err := updown.ParseAsset(w); err == nil && asset == "" {
			asset = w
			continue
		}
		if w == "up" || w == "down" {
			updownWord = w
			continue
		}
		if w != "" && tf == "" && isTimeframe(w) {
			tf = w
		}
	}
	if asset != "" && tf != "" {
		c, err := r.Markets.CryptoMarket(ctx, asset, tf, false)
		if err != nil {
			if errs.Is(err, errs.NotFound) {
				return "", unresolved(query)
			}
			return "", err
		}
		label := "Up"
		switch {
		case outcome == "No":
			label = "Down"
		case outcome == "" && updownWord == "down":
			label = "Down"
		}
		return tokenFor(c.Market, label, query)
	}
	res, err := r.Markets.Search(ctx, markets.SearchParams{Query: query, AcceptingOrders: true, Limit: 1})
	if err != nil {
		return "", err
	}
	if res.TopMatch == nil {
		return "", unresolved(query)
	}
	label := "Yes"
	if outcome == "No" {
		label = "No"
	}
	return tokenFor(*res.TopMatch, label, query)
}

func isTimeframe(w string) bool {
	_, err := updown.ParseTimeframe(w)
	return err == nil
}

func tokenFor(m gamma.Market, label, query string) (string, error) {
	if t, ok := m.TokenFor(label); ok {
		return t, nil
	}
	// Markets with other labels: Yes/Up is the first outcome, No/Down
	// the second.
	i := 0
	if label == "No" || label == "Down" {
		i = 1
	}
	if i < len(m.ClobTokenIDs) {
		return m.ClobTokenIDs[i], nil
	}
	return "", unresolved(query)
}

func unresolved(query string) error {
	return errs.Ef(errs.NotFound, "no market accepting orders matches marketQuery %q", query).WithCode(errs.CodeMarketQueryUnresolved).
		WithHint("try GET /markets/search, or give a tokenId")
}
