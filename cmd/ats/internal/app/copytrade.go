package app

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

// TargetVenue is where COPY_TRADE targets' activity is read.
func TargetVenue(vc *VenueClients) chain.TargetVenue {
	return chain.TargetVenue{Exchanges: []common.Address{vc.Net.Exchange, vc.Net.NegRiskExchange}, ConditionalTokens: vc.Net.ConditionalTokens}
}

// NewCopyHub builds the worker's copy-trade watchers (one per copied
// wallet) and hands the hub to the strategy engine, so its executions
// follow and unfollow targets; it has followed every ACTIVE COPY_TRADE
// when it returns. run starts it until ctx ends and closes the returned
// channel when it stopped. nil when the process runs no strategies.
func NewCopyHub(ctx context.Context, s *store.Store, vc *VenueClients, svc *Services, rpcURL string, confirmations uint64, log *slog.Logger) (*strategies.CopyHub, error) {
	if svc.StrategyEngine == nil || vc.Chain == nil {
		return nil, nil
	}
	// The watchers are woken by the node's log subscription, which needs a
	// WebSocket (ws:// or wss://): --chain-rpc when given, else the
	// network's WebSocket endpoint (the sandbox's /rpc/ws), else the
	// process's chain connection — in `ats dev` the in-process node
	// itself; over an HTTP-only endpoint the watchers poll instead (every
	// 2 s: docs/benchmarks.md, "COPY_TRADE over the node's JSON-RPC").
	dial := chain.Static(vc.Chain.Backend())
	switch {
	case rpcURL != "":
		dial = chain.DialURL(rpcURL)
	case !vc.inProcess && vc.Net.WSURL != "":
		dial = chain.DialURL(vc.Net.WSURL)
	}
	hub := &strategies.CopyHub{
		Store: s, Dial: dial, Venue: TargetVenue(vc), Confirmations: confirmations,
		Signal: svc.strategyClient.Hint, Logger: log.With("component", "copy-trade"),
	}
	svc.StrategyEngine.Copies = hub
	n, err := hub.Rebuild(ctx)
	if err != nil {
		return nil, err
	}
	log.Info("copy-trade watchers rebuilt", "strategies", n)
	return hub, nil
}

// RunCopyHub runs hub until ctx ends; the channel closes when it stopped.
func RunCopyHub(ctx context.Context, hub *strategies.CopyHub) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = hub.Run(ctx)
	}()
	return done
}

// startCopyHub runs the process's copy hub until the stack stops.
func startCopyHub(c *cli.Context, st *stack, s *store.Store, vc *VenueClients, svc *Services, log *slog.Logger) error {
	ctx, cancel := context.WithCancel(context.Background())
	hub, err := NewCopyHub(ctx, s, vc, svc, c.String(flagChainRPC), c.Uint64(flagCopyConfirmations), log)
	if err != nil || hub == nil {
		cancel()
		return err
	}
	done := RunCopyHub(ctx, hub)
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
