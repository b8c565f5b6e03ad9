package main

import (
	"context"
	"log/slog"

	"github.com/ethereum/go-ethereum/common"
	"github.com/urfave/cli/v2"

	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/venue/chain"
)

const flagCopyConfirmations = "copy-confirmations"

func copyConfirmationsFlag() cli.Flag {
	return &cli.Uint64Flag{Name: flagCopyConfirmations, EnvVars: []string{"ATS_COPY_CONFIRMATIONS"},
		Usage: "blocks a copied wallet's trade must be buried under before COPY_TRADE strategies copy it (0: as soon as its block is seen)"}
}

// targetVenue is where COPY_TRADE targets' activity is read.
func targetVenue(vc *venueClients) chain.TargetVenue {
	return chain.TargetVenue{Exchanges: []common.Address{vc.net.Exchange, vc.net.NegRiskExchange}, ConditionalTokens: vc.net.ConditionalTokens}
}

// startCopyHub runs the worker's copy-trade watchers (one per copied
// wallet) until the stack stops, and hands the hub to the strategy engine
// so its executions follow and unfollow targets.
func startCopyHub(c *cli.Context, st *stack, s *store.Store, vc *venueClients, svc *services, log *slog.Logger) error {
	if svc.strategyEngine == nil {
		return nil
	}
	dial := chain.Static(vc.chain.Backend())
	if u := c.String(flagChainRPC); u != "" {
		dial = chain.DialURL(u)
	}
	hub := &strategies.CopyHub{
		Store: s, Dial: dial, Venue: targetVenue(vc), Confirmations: c.Uint64(flagCopyConfirmations),
		Signal: svc.strategyClient.Hint, Logger: log.With("component", "copy-trade"),
	}
	svc.strategyEngine.Copies = hub
	ctx, cancel := context.WithCancel(context.Background())
	n, err := hub.Rebuild(ctx)
	if err != nil {
		cancel()
		return err
	}
	log.Info("copy-trade watchers rebuilt", "strategies", n)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = hub.Run(ctx)
	}()
	st.onStop("copy-trade", func(stopCtx context.Context) error {
		cancel()
		select {
		case <-done:
			return nil
		case <-stopCtx.Done():
			return stopCtx.Err()
		}
	})
	return nil
}
