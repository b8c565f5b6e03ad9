package app

import (
	"cmp"
	"context"
	"log/slog"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/urfave/cli/v2"
	"go.temporal.io/sdk/client"

	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/venue/chain"
	"github.com/agent-trading/ats/venue/ws"
	"github.com/agent-trading/ats/workflows"
)

// fillWatermarkKey names the order listener's chain watermark.
const fillWatermarkKey = "orders"

// OrderEvents is what tells the order workflows of venue events
// (docs/architecture.md, "Order events"): one user stream per wallet with
// live orders and the chain's OrderFilled logs of those wallets, routed to
// the orders' workflows as signals, and the per-wallet reconciliation
// sweep. Every worker process runs one; their hints are verified by the
// workflows, so duplicates are harmless.
type OrderEvents struct {
	router   *orders.Router
	watcher  *chain.Watcher
	listener *orders.Listener
	// paper fills resting paper orders from the venue's trades, on a
	// market stream of its own (docs/paper-trading.md).
	paper       *orders.PaperWatcher
	paperStream *ws.MarketStream
}

// NewOrderEvents builds the order events of a worker process and puts
// its listener behind the order service's placements. rpcURL and wsURL
// override the venue's chain node and WebSocket base when set.
func NewOrderEvents(s *store.Store, tc client.Client, vc *VenueClients, svc *Services, rpcURL, wsURL string, log *slog.Logger) (*OrderEvents, error) {
	router := &orders.Router{Store: s, Signaler: workflows.OrderDeskClient{Client: tc, Intents: svc.Intents}, Logger: log.With("component", "order-events")}
	dial := chain.Static(vc.Chain.Backend())
	if rpcURL != "" {
		dial = chain.DialURL(rpcURL)
	}
	watcher, err := chain.NewWatcher(chain.WatcherConfig{
		Dial:      dial,
		Exchanges: []common.Address{vc.Net.Exchange, vc.Net.NegRiskExchange},
		Store:     s.FillWatermarks(),
		Key:       fillWatermarkKey,
		// A fill is only a hint (the workflow asks the venue), so an
		// unconfirmed block's fill costs at most one venue read.
		Confirmations: 0,
		Deliver:       router.ChainFill,
		Logger:        log,
	})
	if err != nil {
		return nil, err
	}
	l := &orders.Listener{
		Store: s, Wallets: svc.Wallets, CLOB: vc.CLOB,
		StreamsURL: cmp.Or(wsURL, vc.Net.StreamsURL),
		Router:     router, SetMakers: watcher.SetMakers,
		Logger: log.With("component", "order-listener"),
	}
	svc.Orders.Listen = l
	ps := ws.NewMarketStream(ws.MarketConfig{
		Options: ws.Options{URL: cmp.Or(wsURL, vc.Net.StreamsURL), Logger: log.With("component", "paper-stream")},
	})
	pw := &orders.PaperWatcher{Orders: svc.Orders, Source: ps, Signaler: router.Signaler,
		Logger: log.With("component", "paper-exchange")}
	svc.Orders.PaperListen = pw
	return &OrderEvents{router: router, watcher: watcher, listener: l, paper: pw, paperStream: ps}, nil
}

// Run starts the watcher and the listener until ctx ends; the returned
// channel is closed once both stopped.
func (o *OrderEvents) Run(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		var wg sync.WaitGroup
		wg.Go(func() { _ = o.watcher.Run(ctx) })
		wg.Go(func() { _ = o.listener.Run(ctx) })
		wg.Go(func() { _ = o.paperStream.Run(ctx) })
		wg.Go(func() { _ = o.paper.Run(ctx) })
		wg.Wait()
		// Nothing routes any more: the events put off are left to the
		// next process's sweep, not signalled through a closing client.
		o.router.Close()
	}()
	return done
}

// startOrderListener runs the process's order events until the stack
// stops.
func startOrderListener(c *cli.Context, st *stack, s *store.Store, tc client.Client, vc *VenueClients, svc *Services, log *slog.Logger) error {
	if svc.Orders == nil || tc == nil {
		return nil
	}
	oe, err := NewOrderEvents(s, tc, vc, svc, c.String(flagChainRPC), c.String(flagVenueWS), log)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := oe.Run(ctx)
	st.onStop("order-listener", func(stopCtx context.Context) error {
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
