package main

import (
	"cmp"
	"context"
	"log/slog"

	"github.com/urfave/cli/v2"

	"github.com/agent-trading/ats/models/pricefeed"
	"github.com/agent-trading/ats/models/strategies"
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
func startPriceFeed(c *cli.Context, st *stack, vc *venueClients, svc *services, log *slog.Logger) *pricefeed.Feed {
	url := cmp.Or(c.String(flagVenueWS), vc.net.StreamsURL)
	ms := ws.NewMarketStream(ws.MarketConfig{
		Options: ws.Options{URL: url, Logger: log.With("component", "venue-stream")},
		Books:   vc.clob,
	})
	feed := pricefeed.New(pricefeed.Config{Source: ms, Poller: vc.clob, Logger: log.With("component", "price-feed")})
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
	st.onStop("price-feed", func(stopCtx context.Context) error {
		cancel()
		for range 2 {
			select {
			case <-done:
			case <-stopCtx.Done():
				return stopCtx.Err()
			}
		}
		return nil
	})
	if svc.markets != nil {
		svc.markets.Live = feed
	}
	if svc.strategyEngine != nil {
		// Strategy conditions wait in this process's feed; a met one
		// signals its strategy's workflow.
		svc.strategyEngine.Triggers = &strategies.Triggers{Feed: feed, Signal: svc.strategyClient.Hint,
			Logger: log.With("component", "strategy-triggers")}
	}
	return feed
}
