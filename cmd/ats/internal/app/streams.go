package app

import (
	"cmp"
	"context"
	"log/slog"

	"github.com/urfave/cli/v2"

	"github.com/agent-trading/ats/models/pricefeed"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/ws"
)

const flagVenueWS = "venue-ws-url"

func venueWSFlag() cli.Flag {
	return &cli.StringFlag{Name: flagVenueWS, EnvVars: []string{"ATS_VENUE_WS_URL"},
		Usage: "the venue's WebSocket base (channels /ws/market, /ws/user); default: wss://ws-subscriptions-clob.polymarket.com live, {sandbox}/ws in dev"}
}

// startPriceFeed runs the process's one market stream and price feed and
// serves market-data reads from it. The stream opens no socket until a
// consumer subscribes a token.
func startPriceFeed(c *cli.Context, st *stack, vc *VenueClients, svc *Services, log *slog.Logger) *pricefeed.Feed {
	feed, stop := RunPriceFeed(cmp.Or(c.String(flagVenueWS), vc.Net.StreamsURL), vc.CLOB, svc, log)
	st.onStop("price-feed", stop)
	return feed
}

// RunPriceFeed starts the market stream at url and the feed over it, and
// hands the feed to the services that read prices (market data, strategy
// triggers). stop ends both.
func RunPriceFeed(url string, books *clob.Client, svc *Services, log *slog.Logger) (*pricefeed.Feed, func(context.Context) error) {
	ms := ws.NewMarketStream(ws.MarketConfig{
		Options: ws.Options{URL: url, Logger: log.With("component", "venue-stream")},
		Books:   books,
		// market_resolved (a custom feature) tells the feed a market
		// trades no more: the strategies waiting on it move on.
		CustomFeatures: true,
	})
	feed := pricefeed.New(pricefeed.Config{Source: ms, Poller: books, Logger: log.With("component", "price-feed")})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, 2)
	go func() {
		_ = ms.Run(ctx)
		done <- struct{}{}
	}()
	go func() {
		_ = feed.Run(ctx)
		done <- struct{}{}
	}()
	if svc.markets != nil {
		svc.markets.Live = feed
	}
	// Positions are priced from the feed where it holds their token (a
	// live dashboard page subscribed it), from the venue otherwise.
	if svc.positionPrices != nil {
		svc.positionPrices.SetFeed(feed)
	}
	svc.feed = feed
	if svc.StrategyEngine != nil {
		// Strategy conditions wait in this process's feed; a met one
		// signals its strategy's workflow.
		svc.StrategyEngine.Triggers = &strategies.Triggers{Feed: feed, Signal: svc.strategyClient.Hint,
			Logger: log.With("component", "strategy-triggers")}
	}
	return feed, func(stopCtx context.Context) error {
		cancel()
		for range 2 {
			select {
			case <-done:
			case <-stopCtx.Done():
				return stopCtx.Err()
			}
		}
		return nil
	}
}
