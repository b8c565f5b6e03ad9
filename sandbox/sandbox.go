// Package sandbox starts the local, protocol-faithful Polymarket: the chain,
// the matching engine, the living markets and the HTTP surface (/clob,
// /gamma, /data-api, /control, /rpc) on one listener. `ats sandbox` and
// `ats dev` call Start.
package sandbox

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	schain "github.com/agent-trading/ats/sandbox/chain"
	"github.com/agent-trading/ats/sandbox/githubprovider"
	"github.com/agent-trading/ats/sandbox/markets"
	"github.com/agent-trading/ats/sandbox/oidcprovider"
	"github.com/agent-trading/ats/sandbox/persist"
	"github.com/agent-trading/ats/sandbox/server"
	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/network"
)

// Config configures a sandbox.
type Config struct {
	// Addr is the listen address; ":0" or "127.0.0.1:0" picks a free port.
	Addr string
	// Seed makes the catalogue, the price walks and the wallets reproducible.
	Seed int64
	// BlockInterval is the chain's block time (0 = a block per transaction).
	BlockInterval time.Duration
	Logger        *slog.Logger
	// RefuseEOAMakers rejects signature-type-0 orders with the live venue's
	// message.
	RefuseEOAMakers bool

	// QuoteInterval is the market makers' re-quote period (default 2s).
	QuoteInterval time.Duration
	// Ordinary is the number of catalogue markets (default 24).
	Ordinary int
	// DisableUpDown skips the crypto up/down series (smaller test sandboxes).
	DisableUpDown bool
	// UpDownSeries and UpDownWindow are for tests: list only some up/down
	// series ("btc 15m"), and let each window trade only this long, one
	// after another (a window roll in seconds). See markets.Config.
	UpDownSeries []string
	UpDownWindow time.Duration
	// OIDCClients are the relying parties the sandbox OpenID provider at
	// /oidc accepts; empty means the default client
	// (oidcprovider.DefaultClientID / DefaultClientSecret, any redirect).
	OIDCClients []oidcprovider.Client
	// GitHubClients are the OAuth apps the sandbox GitHub at /github
	// accepts; empty means the default app
	// (githubprovider.DefaultClientID / DefaultClientSecret, any redirect).
	GitHubClients []githubprovider.Client

	// PaperChain runs the venue on an in-memory ledger instead of the EVM
	// chain: no /rpc, no signatures checked at settlement. For fast tests
	// of the HTTP surface only.
	PaperChain bool

	// DataDir, when set, keeps the sandbox on disk (the chain in
	// DataDir/chain, the venue's books, trades, API keys and markets in
	// DataDir/state): a sandbox started again on it continues where it
	// stopped. Empty keeps everything in memory. See persist.go.
	DataDir string

	// Observe, when set, wraps the sandbox's whole HTTP handler: a test
	// sees every request the venue serves (and its answer) as it arrives,
	// without the client under test reporting anything.
	Observe func(http.Handler) http.Handler
}

// Sandbox is a running sandbox venue.
type Sandbox struct {
	cfg    Config
	ln     net.Listener
	srv    *http.Server
	url    string
	net    network.Network
	chain  markets.Chain
	evm    *schain.Chain // nil on a paper chain
	venue  *markets.Venue
	api    *server.Server
	oidc   *oidcprovider.Provider
	github *githubprovider.Provider
	state  *persist.Store // nil in memory
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
}

// Start listens, lists the markets and starts serving. The returned sandbox
// runs until Close (or ctx's end).
func Start(ctx context.Context, cfg Config) (*Sandbox, error) {
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:8090"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, venue.Wrap(venue.Conflict, err, "the sandbox address is not available")
	}
	base := "http://" + ln.Addr().String()
	sb := &Sandbox{cfg: cfg, ln: ln, url: base, net: network.Sandbox(base)}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	sb.cancel = cancel
	fail := func(err error) (*Sandbox, error) {
		cancel()
		_ = ln.Close()
		if sb.state != nil {
			_ = sb.state.Close()
		}
		if sb.evm != nil {
			_ = sb.evm.Close()
		}
		return nil, err
	}
	if cfg.DataDir != "" && cfg.PaperChain {
		return fail(venue.E(venue.Invalid, "a paper-chain sandbox cannot be kept in a data dir"))
	}

	var rpcHandler http.Handler
	if cfg.PaperChain {
		sb.chain = markets.NewMemChain(cfg.Seed)
	} else {
		// A running sandbox needs sealed blocks for transactions that
		// arrive over /rpc, so 0 means the chain's default interval.
		bi := cmp.Or(cfg.BlockInterval, schain.DefaultBlockInterval)
		c, err := schain.New(schain.Config{BlockInterval: bi, Logger: cfg.Logger.With("component", "sandbox-chain"),
			DataDir: chainDir(cfg.DataDir)})
		if err != nil {
			return fail(venue.Wrap(venue.Internal, err, "could not start the sandbox chain"))
		}
		c.Start(runCtx)
		sb.evm = c
		if err := waitIndexed(ctx, c); err != nil {
			return fail(err)
		}
		sb.chain = newEVMChain(c, sb.net)
		rpcHandler = c.Handler()
	}
	mcfg := markets.Config{
		Chain: sb.chain, Network: sb.net, Seed: cfg.Seed, Ordinary: cfg.Ordinary,
		QuoteInterval: cfg.QuoteInterval, ConfirmAfter: max(cfg.BlockInterval, time.Second),
		DisableUpDown: cfg.DisableUpDown, UpDownSeries: cfg.UpDownSeries, UpDownWindow: cfg.UpDownWindow,
		Logger: cfg.Logger.With("component", "markets"),
	}
	if cfg.DataDir != "" {
		if sb.state, err = openState(cfg, sb.evm.Restored()); err != nil {
			return fail(err)
		}
		mcfg.Journal = sb.state
	}
	v, err := markets.New(mcfg)
	if err != nil {
		return fail(err)
	}
	sb.venue = v
	if err := v.Start(ctx); err != nil {
		return fail(err)
	}
	scfg := server.Config{
		Venue: v, Network: sb.net, RefuseEOAMakers: cfg.RefuseEOAMakers,
		RPC: rpcHandler, RPCWS: rpcHandler, Logger: cfg.Logger.With("component", "sandbox-http"),
	}
	if sb.state != nil {
		scfg.Journal = sb.state
	}
	if ec, ok := sb.chain.(*evmChain); ok {
		scfg.Wallets = ec.cl
	}
	sb.api = server.New(scfg)
	if err := sb.api.Restore(); err != nil {
		return fail(venue.Wrap(venue.Internal, err, "could not read the sandbox's API keys"))
	}
	op, err := oidcprovider.New(oidcprovider.Config{Issuer: base + "/oidc", Clients: cfg.OIDCClients})
	if err != nil {
		return fail(venue.Wrap(venue.Internal, err, "could not start the sandbox OpenID provider"))
	}
	sb.oidc = op
	sb.github = githubprovider.New(githubprovider.Config{Clients: cfg.GitHubClients})
	mux := http.NewServeMux()
	mux.Handle("/oidc/", http.StripPrefix("/oidc", op.Handler()))
	mux.Handle("/github/", http.StripPrefix("/github", sb.github.Handler()))
	if sb.evm != nil {
		mux.Handle("GET /explorer/tx/{hash}", explorer{sb.evm.Client()})
	}
	mux.Handle("/", sb.api.Handler())
	var handler http.Handler = mux
	if cfg.Observe != nil {
		handler = cfg.Observe(mux)
	}
	// Headers capped at 64 KiB like every listener of the service; no
	// read or write deadline, because the WebSocket channels (/ws/…,
	// /rpc/ws) stay open for hours, but slow headers and idle keep-alive
	// connections are cut.
	sb.srv = &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		MaxHeaderBytes: 64 << 10, ErrorLog: slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelWarn)}

	sb.wg.Add(3)
	go func() {
		defer sb.wg.Done()
		if err := sb.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			cfg.Logger.Error("sandbox HTTP server stopped", "err", err)
		}
	}()
	go func() {
		defer sb.wg.Done()
		v.Run(runCtx)
	}()
	go func() {
		defer sb.wg.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-runCtx.Done():
				return
			case <-t.C:
				sb.api.SweepHeartbeats()
			}
		}
	}()
	cfg.Logger.Info("sandbox venue listening", "url", base)
	return sb, nil
}

// URL is the sandbox's base URL ("http://127.0.0.1:port").
func (s *Sandbox) URL() string { return s.url }

// GitHubURL is the base URL of the sandbox GitHub ({sandbox}/github): the
// service's --github-oauth.
func (s *Sandbox) GitHubURL() string { return s.url + "/github" }

// OIDCIssuer is the issuer URL of the sandbox OpenID provider
// ({sandbox}/oidc).
func (s *Sandbox) OIDCIssuer() string { return s.oidc.Issuer() }

// Network is the sandbox network with its service URLs filled in.
func (s *Sandbox) Network() network.Network { return s.net }

// Chain is the venue's view of the sandbox chain (EVM or paper).
func (s *Sandbox) Chain() markets.Chain { return s.chain }

// EVM is the sandbox EVM chain, nil when running on a paper chain.
func (s *Sandbox) EVM() *schain.Chain { return s.evm }

// Venue is the market layer (engine, catalogue, market makers).
func (s *Sandbox) Venue() *markets.Venue { return s.venue }

// Close stops serving and the background loops.
func (s *Sandbox) Close() error {
	var err error
	s.once.Do(func() {
		s.cancel()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = s.srv.Shutdown(ctx)
		// After Shutdown no socket can open; close the hijacked ones.
		s.api.CloseStreams()
		s.wg.Wait()
		if s.state != nil {
			err = cmp.Or(err, s.state.Close())
		}
		if s.evm != nil {
			err = cmp.Or(err, s.evm.Close())
		}
	})
	return err
}

// waitIndexed waits until the fresh node answers receipt queries: right
// after start geth reports "transaction indexing is in progress" instead of
// "not found", which transaction waits would take for a failure.
func waitIndexed(ctx context.Context, c *schain.Chain) error {
	_, err := backoff.Retry(ctx, func() (struct{}, error) {
		_, err := c.Client().TransactionReceipt(ctx, common.Hash{})
		if err == nil || errors.Is(err, ethereum.NotFound) || !strings.Contains(err.Error(), "indexing") {
			return struct{}{}, nil
		}
		return struct{}{}, err
	}, backoff.WithBackOff(backoff.NewConstantBackOff(20*time.Millisecond)), backoff.WithMaxElapsedTime(30*time.Second))
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return venue.Wrap(venue.Unavailable, ctx.Err(), "waiting for the sandbox chain")
	}
	return venue.Wrap(venue.Unavailable, err, "the sandbox chain did not finish indexing")
}
