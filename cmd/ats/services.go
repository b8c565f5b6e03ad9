package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/urfave/cli/v2"
	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/client"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/account"
	"github.com/agent-trading/ats/api/agentauth"
	"github.com/agent-trading/ats/api/dashboard"
	"github.com/agent-trading/ats/api/device"
	heartbeatapi "github.com/agent-trading/ats/api/heartbeat"
	"github.com/agent-trading/ats/api/idempotency"
	"github.com/agent-trading/ats/api/markets"
	mcpapi "github.com/agent-trading/ats/api/mcp"
	"github.com/agent-trading/ats/api/openapi"
	orderapi "github.com/agent-trading/ats/api/orders"
	positionapi "github.com/agent-trading/ats/api/positions"
	"github.com/agent-trading/ats/api/ratelimit"
	settlementapi "github.com/agent-trading/ats/api/settlements"
	"github.com/agent-trading/ats/api/skill"
	strategyapi "github.com/agent-trading/ats/api/strategies"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/backtesting"
	"github.com/agent-trading/ats/models/budget"
	"github.com/agent-trading/ats/models/changes"
	"github.com/agent-trading/ats/models/heartbeat"
	"github.com/agent-trading/ats/models/intent"
	marketsvc "github.com/agent-trading/ats/models/markets"
	"github.com/agent-trading/ats/models/metrics"
	"github.com/agent-trading/ats/models/notify"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/positions"
	"github.com/agent-trading/ats/models/pricefeed"
	"github.com/agent-trading/ats/models/readcache"
	"github.com/agent-trading/ats/models/settlements"
	"github.com/agent-trading/ats/models/stats"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/wallets"
	"github.com/agent-trading/ats/sandbox"
	"github.com/agent-trading/ats/venue/chain"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/dataapi"
	"github.com/agent-trading/ats/venue/gamma"
	"github.com/agent-trading/ats/venue/network"
	"github.com/agent-trading/ats/workflows"
)

const flagChainRPC = "chain-rpc"

// heartbeatBalanceTTL is how old a wallet balance the heartbeat's budget
// may show.
const heartbeatBalanceTTL = 10 * time.Second

func chainRPCFlag() cli.Flag {
	return &cli.StringFlag{Name: flagChainRPC, EnvVars: []string{"ATS_CHAIN_RPC_URL"},
		Usage: "JSON-RPC URL (http(s):// or ws(s)://) of a Polygon node; default: the venue's (the sandbox's /rpc)"}
}

// venueClients are the clients of one venue, shared by every service of a
// process.
type venueClients struct {
	net   network.Network
	chain *chain.Client
	// inProcess: chain is the in-process sandbox node itself (`ats dev`),
	// not a JSON-RPC connection.
	inProcess bool
	clob      *clob.Client
	gamma     *gamma.Client
}

// connectVenue builds the venue clients. An in-process sandbox is reached
// through its node directly; anything else over JSON-RPC.
// Every call is measured; with tp, the venue's HTTP requests are traced.
func connectVenue(ctx context.Context, n network.Network, sb *sandbox.Sandbox, rpcURL string, tp trace.TracerProvider) (*venueClients, error) {
	cc, gc := clob.ConfigFor(n), gamma.ConfigFor(n)
	cc.HTTP, gc.HTTP = venueHTTP("clob", n.CLOBURL, tp), venueHTTP("gamma", n.GammaURL, tp)
	v := &venueClients{net: n, clob: clob.NewClient(cc), gamma: gamma.New(gc)}
	if sb != nil {
		v.chain = chain.New(n, sb.EVM().Client(), chainOptions())
		v.inProcess = true
		return v, nil
	}
	c, err := chain.Dial(ctx, n, rpcURL, chainOptions())
	if err != nil {
		return nil, err
	}
	v.chain = c
	return v, nil
}

func (v *venueClients) close() {
	if v != nil && v.chain != nil {
		v.chain.Close()
	}
}

// services are the domain services of a process that serves the API or
// runs admin commands. Built in one place so every entry point (HTTP,
// admin CLI, demo seeding) uses the same code paths.
type services struct {
	// intents make the proofs the API attaches to what it hands Temporal,
	// and verify them in the activities.
	intents *intent.Keys
	store   *store.Store
	audit   *audit.Service
	agents  *agents.Service
	// links runs the device flow through its workflows.
	links   *workflows.DeviceLinks
	wallets *wallets.Service
	markets *marketsvc.Service
	budget  *budget.Service
	stats   *stats.Service
	balance budget.ChainWallets
	orders  *orders.Service
	// orderDesk places and cancels orders through their workflows (its
	// Runs is nil without a Temporal client).
	orderDesk   *workflows.OrderDesk
	positions   *positions.Service
	settlements *settlements.Service
	// settlementDesk runs approvals and redemptions through their
	// workflows (its Runs is nil without a Temporal client).
	settlementDesk *workflows.Settlements
	heartbeat      *heartbeat.Service
	// strategyDesk serves the API, the dashboard and the admin commands
	// (creating and changing through the strategies' workflows, reading
	// with strategies, the service it calls); strategyEngine runs the
	// strategy workflows' activities (its Triggers are set where the
	// process has a price feed).
	strategies   *strategies.Service
	strategyDesk *workflows.StrategyDesk
	// backtests replay strategy configs over the venue's records.
	backtests      *backtesting.Service
	strategyEngine *strategies.Engine
	strategyClient workflows.StrategyDeskClient
	// controls are the user's brakes (pause, resume, revoke, cancels,
	// closes, stop everything), for the dashboard and the admin commands.
	controls *workflows.Controls
	// baseURL is the public {base_url} ("" for admin commands).
	baseURL string
	// dashboard is the web dashboard's routes, once enableDashboard ran.
	dashboard api.Routes
	log       *slog.Logger
	// linkLimit limits the device endpoints and /link per client address;
	// routes sets it, before anything is served.
	linkLimit gin.HandlerFunc
	// backtestLimit limits the dashboard's backtests per user.
	backtestLimit func(ctx context.Context, userID string) error
	// reads serve the key check and the read endpoints from memory once
	// cacheReads ran (processes that serve the API).
	reads *readcache.Reads
	// notify writes and delivers the users' notifications (every process:
	// a fill, an agent linked or a sign-in may happen in any).
	notify *notify.Service
	// changes is this process's hub of the users' changes (the live
	// pages, the webhook dispatcher); nil until started.
	changes *changes.Hub
	// feed is this process's price feed, once started; positionPrices
	// prices positions from it where it holds them.
	feed           *pricefeed.Feed
	positionPrices *positions.FeedPrices
	// explorer is the network's block explorer.
	explorer string
}

// cacheReads serves the key check of every agent request, GET /budget,
// GET /heartbeat and the positions listings through a read cache that the
// database's change notifications keep current (models/readcache), and
// runs its listener until the stack stops. Reads that decide (placements,
// reservations) still read the database. Call it before routes.
func (svc *services) cacheReads(st *stack) {
	svc.reads = readcache.New(svc.store, readcache.Options{Logger: svc.log})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); svc.reads.Run(ctx) }()
	st.onStop("read-cache", func(context.Context) error { cancel(); <-done; return nil })
	if svc.positions != nil {
		svc.positions.Reads = svc.reads
	}
	if svc.heartbeat != nil {
		svc.heartbeat.Counts = svc.reads
		if b, ok := svc.heartbeat.Budget.(*budget.Service); ok {
			svc.heartbeat.Budget = b.ReadingFrom(svc.reads)
		}
	}
}

func newServices(s *store.Store, tc client.Client, v *venueClients, keys masterKeys, baseURL string, log *slog.Logger) (*services, error) {
	vlt, err := keys.vault()
	if err != nil {
		return nil, err
	}
	intents, err := keys.intents()
	if err != nil {
		return nil, err
	}
	// Orders' status changes are counted where the store commits them.
	s.OnOrderStatus(metrics.OrderStatus)
	ag := agentService(s, baseURL)
	ag.Users.Vault = vlt
	ag.Intents = intents
	au := &audit.Service{Store: s}
	svc := &services{intents: intents, store: s, audit: au, agents: ag, links: deviceLinks(ag, tc, intents), baseURL: baseURL, log: log}
	svc.controls = &workflows.Controls{Agents: ag, Audit: au, Logger: log}
	if tc != nil {
		svc.controls.Runs = workflows.AgentControlClient{Client: tc}
	}
	// Notifications are written in the transaction of what they tell of:
	// every agent event (fills, strategy errors) passes the hook.
	svc.notify = &notify.Service{Store: s, Vault: vlt, Audit: au, PublicURL: baseURL}
	s.OnEvent(svc.notify.Event)
	if v != nil {
		svc.explorer = v.net.ExplorerURL
		// A key import needs two-step verification unless the operator
		// relaxes it (--wallet-import-without-2fa).
		svc.wallets = &wallets.Service{Store: s, Vault: vlt, Chain: v.chain, CLOB: v.clob, Network: v.net, Audit: au, Logger: log,
			RequireTwoFactor: true}
		svc.markets = &marketsvc.Service{Gamma: v.gamma, CLOB: v.clob}
		svc.balance = budget.ChainWallets{Wallets: svc.wallets, Chain: v.chain}
		prices := budget.MidpointPrices{Source: v.clob}
		svc.budget = budget.New(s, svc.balance, prices)
		svc.stats = stats.New(s, prices)
		svc.orders = &orders.Service{
			Store: s, Budget: svc.budget, Wallets: svc.wallets, CLOB: v.clob, Chain: v.chain, Network: v.net,
			Audit: au, Logger: log,
		}
		svc.orderDesk = &workflows.OrderDesk{Orders: svc.orders, Logger: log}
		if tc != nil {
			svc.orderDesk.Runs = workflows.OrderDeskClient{Client: tc, Intents: intents}
		}
		svc.positionPrices = &positions.FeedPrices{Fallback: &positions.MidpointPrices{Source: v.clob}}
		svc.positions = &positions.Service{
			Store: s, Prices: svc.positionPrices, Resolutions: v.chain,
			Books: v.clob, Markets: v.clob,
		}
		svc.orders.Positions = svc.positions
		// The heartbeat reads balances through a short cache (agents poll
		// it every few seconds; orders still check the chain live).
		hbBalances := heartbeat.NewCachedBalances(svc.balance, 100_000, heartbeatBalanceTTL)
		svc.heartbeat = &heartbeat.Service{
			Store: s, Budget: budget.New(s, hbBalances, prices), Positions: svc.positions,
			Markets: heartbeat.NewEndDates(v.clob, 10*time.Minute), SkillVersion: skill.Version,
		}
		svc.settlements = &settlements.Service{
			Store: s, Wallets: svc.wallets, Chain: v.chain, Markets: v.clob, Audit: au, Logger: log, Positions: svc.positions,
		}
		svc.settlementDesk = &workflows.Settlements{}
		if tc != nil {
			svc.settlementDesk.Runs = workflows.SettlementsClient{Client: tc, Intents: intents}
			// Strategies place through the order desk: the same path as
			// POST /orders (checks, budget, order workflow).
			resolver := strategies.MarketResolver{Markets: svc.markets}
			svc.strategyClient = workflows.StrategyDeskClient{Client: tc, Intents: intents}
			n := v.net
			svc.strategies = &strategies.Service{Store: s, Resolver: resolver, Markets: svc.markets, Network: &n}
			dc := dataapi.ConfigFor(n)
			dc.HTTP = venueHTTP("data", n.DataAPIURL, nil)
			svc.backtests = &backtesting.Service{Resolver: resolver,
				Source: backtesting.VenueSource{CLOB: v.clob, Data: dataapi.New(dc), Markets: svc.markets}}
			if v.chain != nil {
				svc.strategies.Head = v.chain.Backend().BlockNumber
			}
			svc.strategyDesk = &workflows.StrategyDesk{Strategies: svc.strategies, Runs: svc.strategyClient}
			svc.strategyEngine = &strategies.Engine{Store: s, Orders: svc.orderDesk, Desk: svc.orders, Quotes: svc.markets, Resolver: resolver,
				Network: &n, Markets: svc.markets, Logger: log.With("component", "strategies")}
		}
		svc.wallets.Imported = svc.stopOwnCopies
		svc.controls.OrderDesk, svc.controls.Positions, svc.controls.Strategies = svc.orderDesk, svc.positions, svc.strategyDesk
	}
	return svc, nil
}

// stopOwnCopies stops the user's COPY_TRADE strategies whose target a
// wallet import just made the user's own, and hints their workflows (where
// this process has a Temporal client) so they read the new status.
func (svc *services) stopOwnCopies(ctx context.Context, userID, clientAddr string) error {
	n := svc.wallets.Network
	ids, err := strategies.StopOwnCopies(ctx, svc.store, &n, userID, clientAddr)
	if svc.strategyClient.Client != nil {
		for _, id := range ids {
			if herr := svc.strategyClient.Hint(ctx, id); herr != nil {
				svc.log.WarnContext(ctx, "could not hint a stopped strategy", "strategy_id", id, "error", herr)
			}
		}
	}
	return err
}

// routes are the agent-facing routes: device linking, the OpenAPI
// document, then every /api/agent/v1 endpoint behind the key middleware and
// the per-key limit (and the dashboard's routes, once enabled). Failed
// attempts (passwords and device codes on /link, every sign-in form of the
// dashboard, which shares svc.agents.Users, and invalid API keys) are
// counted in l's store too, so API instances sharing a Redis share those
// limits as well.
// startOrdersEagerly makes the order desk start order workflows eagerly
// and answer from the placement attempt (workflows.OrderDeskClient's Eager
// and Attempts): for a process whose worker runs on the desk's Temporal
// client (`ats dev`; `ats worker`, where strategies' executions place
// their orders), so an order's first workflow task, which places it,
// runs here without a trip through the server's task queue. Call it
// before the worker starts.
// policyFromFlags applies the operator's relaxations: a key import
// without two-step verification, webhooks to private addresses.
func (svc *services) policyFromFlags(c *cli.Context) {
	if svc.wallets != nil && c.Bool(flagWalletImportWithout2FA) {
		svc.wallets.RequireTwoFactor = false
	}
	svc.notify.Delivery.AllowPrivate = c.Bool(flagWebhookAllowPrivate)
}

func (svc *services) startOrdersEagerly() {
	if oc, ok := svc.orderDesk.Runs.(workflows.OrderDeskClient); ok {
		svc.orders.Attempts = &orders.Attempts{}
		// An agent's order's workflow is started while the order is
		// accepted (OrderDesk.placeEarly): its placement attempt, here,
		// waits for the acceptance's decision.
		svc.orders.Accepts = &orders.Accepts{}
		oc.Eager, oc.Attempts = true, svc.orders.Attempts
		svc.orderDesk.Runs = oc
	}
}

func (svc *services) routes(l *ratelimit.Limiter) []api.Routes {
	attempts := l.Scope("attempts").Failures()
	svc.agents.Attempts, svc.agents.Users.Attempts = attempts, attempts
	// The device endpoints and /link (the dashboard's page, or the plain
	// one) share one per-address budget.
	svc.linkLimit = ratelimit.PerClientIP(l.Scope("device"), deviceEndpointsPerMinute)
	svc.backtestLimit = dashboard.LimitBacktests(l.Scope("dashboard-backtests"), 0)
	var keys agentauth.Keys = svc.store
	budgetReads := svc.budget
	if svc.reads != nil {
		keys = svc.reads
		// GET /budget as the heartbeat shows it: reads through the cache,
		// the wallet balance at most 10 s old (placements check it live).
		if svc.heartbeat != nil {
			if b, ok := svc.heartbeat.Budget.(*budget.Service); ok {
				budgetReads = b
			}
		}
	}
	keyAuth := agentauth.MiddlewareWith(keys, agentauth.Options{Failures: agentauth.KeyFailures(l.Scope("keys").Failures())})
	perKey := ratelimit.PerKey(l, nil)
	auth := []gin.HandlerFunc{keyAuth, perKey}
	idem := idempotency.Middleware(svc.store, idempotency.Options{})
	rs := []api.Routes{
		device.Routes(svc.links, device.Config{Limit: svc.linkLimit, DashboardLink: svc.dashboard != nil}),
		openapi.Routes(),
		skill.Routes(svc.baseURL),
		agentauth.Routes(auth...),
	}
	if svc.markets != nil {
		rs = append(rs,
			markets.Routes(svc.markets, auth...),
			account.Routes(account.Deps{Wallets: svc.balance, Paper: svc.store, Budget: budgetReads, Stats: svc.stats}, auth...),
			orderapi.Routes(svc.orders, svc.orderDesk, idem, auth...),
			positionapi.Routes(positionapi.Deps{Positions: svc.positions, Closer: &workflows.PositionDesk{Positions: svc.positions, Orders: svc.orderDesk}}, idem, auth...),
			settlementapi.Routes(settlementapi.Deps{Settlements: svc.settlementDesk}, idem, auth...),
			heartbeatapi.Routes(svc.heartbeat, auth...),
		)
		if svc.strategyDesk != nil {
			rs = append(rs, strategyapi.Routes(svc.strategyDesk, idem, auth...), strategyapi.BacktestRoutes(svc.backtests, auth...))
		}
		// Each tool call is served as the REST request it stands for,
		// through the routes above (where the per-key limit counts it);
		// the protocol's other requests are counted by the same limit.
		rs = append(rs, mcpapi.Routes(mcpapi.Config{Version: version, Logger: svc.log, PerKey: perKey}, keyAuth))
	}
	if svc.dashboard != nil {
		rs = append(rs, svc.dashboard)
	}
	return rs
}
