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

// newCopyHub builds the worker's copy-trade watchers (one per copied
// wallet) and hands the hub to the strategy engine, so its executions
// follow and unfollow targets; it has followed every ACTIVE COPY_TRADE
// when it returns. run starts it until ctx ends and closes the returned
// channel when it stopped. nil when the process runs no strategies.
func newCopyHub(ctx context.Context, s *store.Store, vc *venueClients, svc *services, rpcURL string, confirmations uint64, log *slog.Logger) (*strategies.CopyHub, error) {
	if svc.strategyEngine == nil || vc.chain == nil {
		return nil, nil
	}
	// The watchers are woken by the node's log subscription, which needs a
	// WebSocket (ws:// or wss://): --chain-rpc when given, else the
	// network's WebSocket endpoint (the sandbox's /rpc/ws), else the
	// process's chain connection — in `ats dev` the in-process node
	// itself; over an HTTP-only endpoint the watchers poll instead (every
	// 2 s: docs/benchmarks.md, "COPY_TRADE over the node's JSON-RPC").
	dial := chain.Static(vc.chain.Backend())
	switch {
	case rpcURL != "":
		dial = chain.DialURL(rpcURL)
	case !vc.inProcess && vc.net.WSURL != "":
		dial = chain.DialURL(vc.net.WSURL)
	}
	hub := &strategies.CopyHub{
		Store: s, Dial: dial, Venue: targetVenue(vc), Confirmations: confirmations,
		Signal: svc.strategyClient.Hint, Logger: log.With("component", "copy-trade"),
	}
	svc.strategyEngine.Copies = hub
	n, err := hub.Rebuild(ctx)
	if err != nil {
		return nil, err
	}
	log.Info("copy-trade watchers rebuilt", "strategies", n)
	return hub, nil
}

// runCopyHub runs hub until ctx ends; the channel closes when it stopped.
func runCopyHub(ctx context.Context, hub *strategies.CopyHub) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = hub.Run(ctx)
	}()
	return done
}

// startCopyHub runs the process's copy hub until the stack stops.
func startCopyHub(c *cli.Context, st *stack, s *store.Store, vc *venueClients, svc *services, log *slog.Logger) error {
	ctx, cancel := context.WithCancel(context.Background())
	hub, err := newCopyHub(ctx, s, vc, svc, c.String(flagChainRPC), c.Uint64(flagCopyConfirmations), log)
	if err != nil || hub == nil {
		cancel()
		return err
	}
	done := runCopyHub(ctx, hub)
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
