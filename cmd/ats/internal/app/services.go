package app

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

// VenueClients are the clients of one venue, shared by every service of a
// process.
type VenueClients struct {
	// Net is the venue's addresses and contracts; Chain, CLOB and Gamma
	// its chain node, order book and market data clients.
	Net   network.Network
	Chain *chain.Client
	// inProcess: chain is the in-process sandbox node itself (`ats dev`),
	// not a JSON-RPC connection.
	inProcess bool
	CLOB      *clob.Client
	Gamma     *gamma.Client
}

// ConnectVenue builds the venue clients. An in-process sandbox is reached
// through its node directly; anything else over JSON-RPC.
// Every call is measured; with tp, the venue's HTTP requests are traced.
func ConnectVenue(ctx context.Context, n network.Network, sb *sandbox.Sandbox, rpcURL string, tp trace.TracerProvider) (*VenueClients, error) {
	cc, gc := clob.ConfigFor(n), gamma.ConfigFor(n)
	cc.HTTP, gc.HTTP = venueHTTP("clob", n.CLOBURL, tp), venueHTTP("gamma", n.GammaURL, tp)
	v := &VenueClients{Net: n, CLOB: clob.NewClient(cc), Gamma: gamma.New(gc)}
	if sb != nil {
		v.Chain = chain.New(n, sb.EVM().Client(), chainOptions())
		v.inProcess = true
		return v, nil
	}
	c, err := chain.Dial(ctx, n, rpcURL, chainOptions())
	if err != nil {
		return nil, err
	}
	v.Chain = c
	return v, nil
}

// Close releases the chain connection (a no-op for a nil v).
func (v *VenueClients) Close() {
	if v != nil && v.Chain != nil {
		v.Chain.Close()
	}
}

// Services are the domain services of a process that serves the API or
// runs admin commands. Built in one place so every entry point (HTTP,
// admin CLI, demo seeding) uses the same code paths. The exported fields
// are the ones the end-to-end tests (cmd/ats/e2e) drive directly.
type Services struct {
	// Intents make the proofs the API attaches to what it hands Temporal,
	// and verify them in the activities.
	Intents *intent.Keys
	store   *store.Store
	Audit   *audit.Service
	Agents  *agents.Service
	// links runs the device flow through its workflows.
	links   *workflows.DeviceLinks
	Wallets *wallets.Service
	markets *marketsvc.Service
	Budget  *budget.Service
	stats   *stats.Service
	balance budget.ChainWallets
	Orders  *orders.Service
	// OrderDesk places and cancels orders through their workflows (its
	// Runs is nil without a Temporal client).
	OrderDesk   *workflows.OrderDesk
	Positions   *positions.Service
	Settlements *settlements.Service
	// settlementDesk runs approvals and redemptions through their
	// workflows (its Runs is nil without a Temporal client).
	settlementDesk *workflows.Settlements
	Heartbeat      *heartbeat.Service
	// StrategyDesk serves the API, the dashboard and the admin commands
	// (creating and changing through the Strategies' workflows, reading
	// with Strategies, the service it calls); StrategyEngine runs the
	// strategy workflows' activities (its Triggers are set where the
	// process has a price feed).
	Strategies   *strategies.Service
	StrategyDesk *workflows.StrategyDesk
	// backtests replay strategy configs over the venue's records.
	backtests      *backtesting.Service
	StrategyEngine *strategies.Engine
	strategyClient workflows.StrategyDeskClient
	// Controls are the user's brakes (pause, resume, revoke, cancels,
	// closes, stop everything), for the dashboard and the admin commands.
	Controls *workflows.Controls
	// baseURL is the public {base_url} ("" for admin commands).
	baseURL string
	// dashboard is the web dashboard's routes, once EnableDashboard ran.
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
	// Notify writes and delivers the users' notifications (every process:
	// a fill, an agent linked or a sign-in may happen in any).
	Notify *notify.Service
	// Changes is this process's hub of the users' changes (the live
	// pages, the webhook dispatcher); nil until started.
	Changes *changes.Hub
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
func (svc *Services) cacheReads(st *stack) {
	svc.reads = readcache.New(svc.store, readcache.Options{Logger: svc.log})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); svc.reads.Run(ctx) }()
	st.onStop("read-cache", func(context.Context) error { cancel(); <-done; return nil })
	if svc.Positions != nil {
		svc.Positions.Reads = svc.reads
	}
	if svc.Heartbeat != nil {
		svc.Heartbeat.Counts = svc.reads
		if b, ok := svc.Heartbeat.Budget.(*budget.Service); ok {
			svc.Heartbeat.Budget = b.ReadingFrom(svc.reads)
		}
	}
}

// NewServices builds every domain service on the store s, the Temporal
// client tc (nil for admin commands that need none) and the venue v, with
// the secrets sealed under keys; baseURL is the public {base_url}.
func NewServices(s *store.Store, tc client.Client, v *VenueClients, keys MasterKeys, baseURL string, log *slog.Logger) (*Services, error) {
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
	svc := &Services{Intents: intents, store: s, Audit: au, Agents: ag, links: deviceLinks(ag, tc, intents), baseURL: baseURL, log: log}
	svc.Controls = &workflows.Controls{Agents: ag, Audit: au, Logger: log}
	if tc != nil {
		svc.Controls.Runs = workflows.AgentControlClient{Client: tc}
	}
	// Notifications are written in the transaction of what they tell of:
	// every agent event (fills, strategy errors) passes the hook.
	svc.Notify = &notify.Service{Store: s, Vault: vlt, Audit: au, PublicURL: baseURL}
	s.OnEvent(svc.Notify.Event)
	if v != nil {
		svc.explorer = v.Net.ExplorerURL
		// A key import needs two-step verification unless the operator
		// relaxes it (--wallet-import-without-2fa).
		svc.Wallets = &wallets.Service{Store: s, Vault: vlt, Chain: v.Chain, CLOB: v.CLOB, Network: v.Net, Audit: au, Logger: log,
			RequireTwoFactor: true}
		svc.markets = &marketsvc.Service{Gamma: v.Gamma, CLOB: v.CLOB}
		svc.balance = budget.ChainWallets{Wallets: svc.Wallets, Chain: v.Chain}
		prices := budget.MidpointPrices{Source: v.CLOB}
		svc.Budget = budget.New(s, svc.balance, prices)
		svc.stats = stats.New(s, prices)
		svc.Orders = &orders.Service{
			Store: s, Budget: svc.Budget, Wallets: svc.Wallets, CLOB: v.CLOB, Chain: v.Chain, Network: v.Net,
			Audit: au, Logger: log,
		}
		svc.OrderDesk = &workflows.OrderDesk{Orders: svc.Orders, Logger: log}
		if tc != nil {
			svc.OrderDesk.Runs = workflows.OrderDeskClient{Client: tc, Intents: intents}
		}
		svc.positionPrices = &positions.FeedPrices{Fallback: &positions.MidpointPrices{Source: v.CLOB}}
		svc.Positions = &positions.Service{
			Store: s, Prices: svc.positionPrices, Resolutions: v.Chain,
			Books: v.CLOB, Markets: v.CLOB,
		}
		svc.Orders.Positions = svc.Positions
		// The heartbeat reads balances through a short cache (agents poll
		// it every few seconds; orders still check the chain live).
		hbBalances := heartbeat.NewCachedBalances(svc.balance, 100_000, heartbeatBalanceTTL)
		svc.Heartbeat = &heartbeat.Service{
			Store: s, Budget: budget.New(s, hbBalances, prices), Positions: svc.Positions,
			Markets: heartbeat.NewEndDates(v.CLOB, 10*time.Minute), SkillVersion: skill.Version,
		}
		svc.Settlements = &settlements.Service{
			Store: s, Wallets: svc.Wallets, Chain: v.Chain, Markets: v.CLOB, Audit: au, Logger: log, Positions: svc.Positions,
		}
		svc.settlementDesk = &workflows.Settlements{}
		if tc != nil {
			svc.settlementDesk.Runs = workflows.SettlementsClient{Client: tc, Intents: intents}
			// Strategies place through the order desk: the same path as
			// POST /orders (checks, budget, order workflow).
			resolver := strategies.MarketResolver{Markets: svc.markets}
			svc.strategyClient = workflows.StrategyDeskClient{Client: tc, Intents: intents}
			n := v.Net
			svc.Strategies = &strategies.Service{Store: s, Resolver: resolver, Markets: svc.markets, Network: &n}
			dc := dataapi.ConfigFor(n)
			dc.HTTP = venueHTTP("data", n.DataAPIURL, nil)
			svc.backtests = &backtesting.Service{Resolver: resolver,
				Source: backtesting.VenueSource{CLOB: v.CLOB, Data: dataapi.New(dc), Markets: svc.markets}}
			if v.Chain != nil {
				svc.Strategies.Head = v.Chain.Backend().BlockNumber
			}
			svc.StrategyDesk = &workflows.StrategyDesk{Strategies: svc.Strategies, Runs: svc.strategyClient}
			svc.StrategyEngine = &strategies.Engine{Store: s, Orders: svc.OrderDesk, Desk: svc.Orders, Quotes: svc.markets, Resolver: resolver,
				Network: &n, Markets: svc.markets, Logger: log.With("component", "strategies")}
		}
		svc.Wallets.Imported = svc.stopOwnCopies
		svc.Controls.OrderDesk, svc.Controls.Positions, svc.Controls.Strategies = svc.OrderDesk, svc.Positions, svc.StrategyDesk
	}
	return svc, nil
}

// stopOwnCopies stops the user's COPY_TRADE strategies whose target a
// wallet import just made the user's own, and hints their workflows (where
// this process has a Temporal client) so they read the new status.
func (svc *Services) stopOwnCopies(ctx context.Context, userID, clientAddr string) error {
	n := svc.Wallets.Network
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

// policyFromFlags applies the operator's relaxations: a key import
// without two-step verification, webhooks to private addresses.
func (svc *Services) policyFromFlags(c *cli.Context) {
	if svc.Wallets != nil && c.Bool(flagWalletImportWithout2FA) {
		svc.Wallets.RequireTwoFactor = false
	}
	svc.Notify.Delivery.AllowPrivate = c.Bool(flagWebhookAllowPrivate)
}

// StartOrdersEagerly makes the order desk start order workflows eagerly
// and answer from the placement attempt (workflows.OrderDeskClient's Eager
// and Attempts): for a process whose worker runs on the desk's Temporal
// client (`ats dev`; `ats worker`, where strategies' executions place
// their orders), so an order's first workflow task, which places it,
// runs here without a trip through the server's task queue. Call it
// before the worker starts.
func (svc *Services) StartOrdersEagerly() {
	if oc, ok := svc.OrderDesk.Runs.(workflows.OrderDeskClient); ok {
		svc.Orders.Attempts = &orders.Attempts{}
		// An agent's order's workflow is started while the order is
		// accepted (OrderDesk.placeEarly): its placement attempt, here,
		// waits for the acceptance's decision.
		svc.Orders.Accepts = &orders.Accepts{}
		oc.Eager, oc.Attempts = true, svc.Orders.Attempts
		svc.OrderDesk.Runs = oc
	}
}

// Routes are the agent-facing routes: device linking, the OpenAPI
// document, then every /api/agent/v1 endpoint behind the key middleware and
// the per-key limit (and the dashboard's routes, once enabled). Failed
// attempts (passwords and device codes on /link, every sign-in form of the
// dashboard, which shares svc.agents.Users, and invalid API keys) are
// counted in l's store too, so API instances sharing a Redis share those
// limits as well.
func (svc *Services) Routes(l *ratelimit.Limiter) []api.Routes {
	attempts := l.Scope("attempts").Failures()
	svc.Agents.Attempts, svc.Agents.Users.Attempts = attempts, attempts
	// The device endpoints and /link (the dashboard's page, or the plain
	// one) share one per-address budget.
	svc.linkLimit = ratelimit.PerClientIP(l.Scope("device"), deviceEndpointsPerMinute)
	svc.backtestLimit = dashboard.LimitBacktests(l.Scope("dashboard-backtests"), 0)
	var keys agentauth.Keys = svc.store
	budgetReads := svc.Budget
	if svc.reads != nil {
		keys = svc.reads
		// GET /budget as the heartbeat shows it: reads through the cache,
		// the wallet balance at most 10 s old (placements check it live).
		if svc.Heartbeat != nil {
			if b, ok := svc.Heartbeat.Budget.(*budget.Service); ok {
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
			orderapi.Routes(svc.Orders, svc.OrderDesk, idem, auth...),
			positionapi.Routes(positionapi.Deps{Positions: svc.Positions, Closer: &workflows.PositionDesk{Positions: svc.Positions, Orders: svc.OrderDesk}}, idem, auth...),
			settlementapi.Routes(settlementapi.Deps{Settlements: svc.settlementDesk}, idem, auth...),
			heartbeatapi.Routes(svc.Heartbeat, auth...),
		)
		if svc.StrategyDesk != nil {
			rs = append(rs, strategyapi.Routes(svc.StrategyDesk, idem, auth...), strategyapi.BacktestRoutes(svc.backtests, auth...))
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
