package e2e

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"
	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/openapi/openapitest"
	"github.com/agent-trading/ats/api/ratelimit"
	"github.com/agent-trading/ats/cmd/ats/internal/app"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/changes"
	"github.com/agent-trading/ats/models/identities"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/wallets"
	"github.com/agent-trading/ats/sandbox"
	"github.com/agent-trading/ats/sandbox/githubprovider"
	"github.com/agent-trading/ats/sandbox/oidcprovider"
	"github.com/agent-trading/ats/venue/network"
	"github.com/agent-trading/ats/worker"
	"github.com/agent-trading/ats/worker/clustertest"
	"github.com/agent-trading/ats/worker/devserver"
	"github.com/agent-trading/ats/worker/replaytest"
	"github.com/agent-trading/ats/workflows"
)

// envRecordOrderHistory names a file to write the history of the first
// order workflow of TestOrderLifecycleAgainstTheSandbox to (see
// workflows/order_test.go).
const envRecordOrderHistory = "ATS_RECORD_ORDER_HISTORY"

// tradingEnv is the whole service in one test process, wired exactly as
// `ats dev` wires it (NewServices, WorkerDeps, Services.Routes): a sandbox
// venue with its EVM chain, a Temporal dev server, an SQLite store, the
// worker (optional: the kill test runs it as a separate process) and the
// API on an httptest server.
type tradingEnv struct {
	sb *sandbox.Sandbox
	// sbURL and sbProc are the sandbox in its own process
	// (tradingOpts.sandboxProcess; sb is nil then).
	sbURL  string
	sbProc *workerProcess
	dev    *devserver.Server
	// cluster is the Temporal cluster instead of dev (tradingOpts.temporal).
	cluster *clustertest.Cluster
	// databaseURL is the PostgreSQL database of store ("" for SQLite in
	// dataDir).
	databaseURL string
	store       *store.Store
	tc          client.Client
	svc         *app.Services
	api         *httptest.Server
	// publicURL is the {base_url}: the API's address named localhost.
	publicURL string
	master    []byte
	dataDir   string
	log       *slog.Logger
	worker    sdkworker.Worker
	vc        *app.VenueClients
	// events tells the order workflows of venue events (started with the
	// first worker).
	events   *app.OrderEvents
	noEvents bool
	// copies are the worker's copy-trade watchers (with events).
	copies *strategies.CopyHub
}

type tradingOpts struct {
	// noWorker leaves the worker out (a separate process runs it).
	noWorker bool
	// noEvents runs the worker without its order events (listener and
	// fill watcher): venue events then reach no workflow.
	noEvents bool
	// placeTimeout overrides how long POST /orders waits for placement.
	placeTimeout time.Duration
	// dashboard serves the web dashboard too, at publicURL (localhost, so
	// passkeys work), with the sandbox OpenID provider registered;
	// freshFor, when set, is how recent its sessions' second factor must
	// be for a sensitive action.
	dashboard bool
	freshFor  time.Duration
	// wrapCLOB, when set, puts a handler in front of the sandbox for the
	// service's CLOB client (to count or alter its venue requests).
	wrapCLOB func(http.Handler) http.Handler
	// tracing traces the API, Temporal and venue calls as `ats dev` does
	// when an OTLP endpoint is configured.
	tracing trace.TracerProvider
	// defaultRegistry puts the API's HTTP metrics on the process's default
	// registry, where every other metric is (as in `ats dev`), instead of a
	// registry of its own.
	defaultRegistry bool
	// databaseURL, when set, is the PostgreSQL database of the env's store
	// (instead of SQLite in its data dir).
	databaseURL string
	// eager starts order workflows eagerly, as `ats dev` does with its
	// worker in process (ignored with noWorker).
	eager bool
	// devPragmas are the Temporal dev server's --sqlite-pragma values;
	// devInMemory keeps its state in memory instead of a file.
	devPragmas  []string
	devInMemory bool
	// noResponseCheck serves the API without checking every answer
	// against the OpenAPI document (benchmarks: production does not).
	noResponseCheck bool
	// upDown lists these crypto up/down series in the sandbox ("btc 15m";
	// none by default), each window trading upDownWindow when set (short
	// windows one after another: sandbox.Config.UpDownWindow).
	upDown       []string
	upDownWindow time.Duration
	// temporal, when set, is the Temporal cluster (clustertest) the env
	// runs on, over its mutual TLS, instead of a dev server of its own.
	temporal *clustertest.Cluster
	// observeSandbox wraps the sandbox's own HTTP handler (sandbox.Config
	// Observe): whatever reaches the venue, from any client.
	observeSandbox func(http.Handler) http.Handler
	// quoteInterval is the sandbox makers' re-quote period (their
	// default when 0); a long one keeps books still between the test's
	// own moves (trades, /control prices).
	quoteInterval time.Duration
	// sandboxProcess runs the sandbox as its own `ats sandbox` process
	// (chain read over its /rpc/ws, wallets funded through its control
	// API) so a benchmark's CPU of the service leaves the venue out.
	sandboxProcess bool
}

// newTradingTest skips t in -short mode (it starts the sandbox and
// Temporal) and returns an env with o, a trader without a budget limit and
// a fresh market named question at 0.5.
func newTradingTest(t *testing.T, o tradingOpts, question string) (*tradingEnv, trader, sandboxMarket) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts the sandbox and Temporal")
	}
	e := newTradingEnv(t, o)
	return e, e.newTrader(t, 0), e.newMarket(t, question, "0.5")
}

func newTradingEnv(t testing.TB, o tradingOpts) *tradingEnv {
	t.Helper()
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if os.Getenv("ATS_TEST_LOG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	e := &tradingEnv{dataDir: t.TempDir(), log: log, databaseURL: o.databaseURL}
	var err error
	if o.sandboxProcess {
		if o.observeSandbox != nil || o.quoteInterval != 0 {
			t.Fatal("observeSandbox and quoteInterval need the sandbox in process")
		}
		e.sbURL, e.sbProc = startSandboxProcess(t, buildATS(t))
	} else {
		e.sb, err = sandbox.Start(ctx, sandbox.Config{Addr: "127.0.0.1:0", Seed: 7, BlockInterval: 100 * time.Millisecond,
			Logger: log, DisableUpDown: len(o.upDown) == 0, UpDownSeries: o.upDown, UpDownWindow: o.upDownWindow, Ordinary: 4,
			Observe: o.observeSandbox, QuoteInterval: o.quoteInterval})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.sb.Close() })
	}
	conn := app.TemporalConn{Namespace: "default", Tracing: o.tracing}
	if e.cluster = o.temporal; e.cluster != nil {
		conn.HostPort, conn.TLS = e.cluster.Address(), e.cluster.TLS()
	} else {
		dbFile := filepath.Join(e.dataDir, "temporal.db")
		if o.devInMemory {
			dbFile = ""
		}
		e.dev, err = devserver.Start(ctx, devserver.Options{Binary: temporalCLI(t), UIPort: -1,
			DBFile: dbFile, SQLitePragmas: o.devPragmas})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.dev.Stop() })
		conn.HostPort = e.dev.FrontendAddr()
	}
	e.store, err = store.Open(ctx, store.Config{URL: o.databaseURL, DataDir: e.dataDir, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.store.Close() })
	if _, err := e.store.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	e.master = make([]byte, 32)
	if _, err := rand.Read(e.master); err != nil {
		t.Fatal(err)
	}
	if os.Getenv(envRecordOrderHistory) != "" {
		// Recorded histories are encrypted with the public replay key so
		// the replay tests can read them.
		e.tc, err = worker.Dial(ctx, worker.ClientConfig{HostPort: conn.HostPort, TLS: conn.TLS, Namespace: "default",
			CodecKey: replaytest.HistoryCodecKey, Logger: log})
	} else {
		e.tc, err = app.DialTemporal(ctx, conn, app.MasterKeys{Current: e.master}, log)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.tc.Close)
	n, rpcURL := network.Sandbox(e.sandboxURL()), ""
	if e.sb != nil {
		n = e.sb.Network()
	} else {
		rpcURL = n.WSURL
	}
	if o.wrapCLOB != nil {
		target, err := url.Parse(e.sandboxURL())
		if err != nil {
			t.Fatal(err)
		}
		front := httptest.NewServer(o.wrapCLOB(httputil.NewSingleHostReverseProxy(target)))
		t.Cleanup(front.Close)
		n.CLOBURL = front.URL + "/clob"
	}
	vc, err := app.ConnectVenue(ctx, n, e.sb, rpcURL, o.tracing)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(vc.Close)
	e.vc = vc
	e.api = httptest.NewUnstartedServer(nil)
	e.publicURL = app.LoopbackAsLocalhost("http://" + e.api.Listener.Addr().String())
	e.svc, err = app.NewServices(e.store, e.tc, vc, app.MasterKeys{Current: e.master}, e.publicURL, log)
	if err != nil {
		t.Fatal(err)
	}
	if o.dashboard {
		// The live pages follow the store's changes, as in `ats dev`; the
		// test's webhook receiver is on loopback.
		hub := changes.NewHub()
		ctx, cancel := context.WithCancel(context.Background())
		done := changes.Feed(ctx, e.store, hub, log)
		t.Cleanup(func() { cancel(); <-done })
		e.svc.Changes = hub
		e.svc.Notify.Delivery.AllowPrivate = true
		if err := e.svc.EnableDashboard(app.DashboardOptions{PublicURL: e.publicURL, Providers: []identities.ProviderConfig{{
			Name: "sandbox", Issuer: e.sb.OIDCIssuer(), ClientID: oidcprovider.DefaultClientID, ClientSecret: oidcprovider.DefaultClientSecret,
		}, identities.GitHubProvider(e.sb.GitHubURL(), githubprovider.DefaultClientID, githubprovider.DefaultClientSecret)},
			Operators: []string{browserOperator}, TemporalUI: browserTemporalUI, FreshFor: o.freshFor}); err != nil {
			t.Fatal(err)
		}
	}
	if o.placeTimeout > 0 {
		e.svc.OrderDesk.PlaceTimeout = o.placeTimeout
	}
	e.noEvents = o.noEvents
	if !o.noWorker {
		if o.eager {
			e.svc.StartOrdersEagerly()
		}
		e.startWorker(t)
	}
	limiter := ratelimit.New(ratelimit.NewMemoryStore(), ratelimit.Options{})
	cfg := api.Config{Registry: prometheus.NewRegistry(), TracerProvider: o.tracing}
	if o.defaultRegistry {
		cfg.Registry = nil
	}
	srv := api.NewServer(cfg, api.Deps{Logger: log, Routes: e.svc.Routes(limiter)})
	e.api.Config.Handler = srv
	if !o.noResponseCheck {
		e.api.Config.Handler = openapitest.Handler(t, srv)
	}
	e.api.Start()
	t.Cleanup(e.api.Close)
	return e
}

// temporalFlags are the flags an `ats` process of e reaches Temporal
// with: the dev server's address, or the cluster's with its mutual TLS.
func (e *tradingEnv) temporalFlags() []string {
	if e.cluster == nil {
		return []string{"--temporal", e.dev.FrontendAddr()}
	}
	c := e.cluster.Certs()
	return []string{"--temporal", e.cluster.Address(), "--temporal-tls-cert", c.ClientCert, "--temporal-tls-key", c.ClientKey,
		"--temporal-tls-ca", c.CA, "--temporal-tls-server-name", c.ServerName}
}

func (e *tradingEnv) startWorker(t testing.TB) {
	t.Helper()
	w, err := worker.NewWithLogger(e.tc, app.WorkerDeps(e.store, e.svc), e.log)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	e.worker = w
	t.Cleanup(w.Stop)
	if e.events == nil && !e.noEvents {
		oe, err := app.NewOrderEvents(e.store, e.tc, e.vc, e.svc, "", "", e.log)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := oe.Run(ctx)
		e.events = oe
		t.Cleanup(func() { cancel(); <-done })
		// The copy-trade watchers run beside the order events, as in
		// `ats dev` and `ats worker`.
		hub, err := app.NewCopyHub(ctx, e.store, e.vc, e.svc, "", 0, e.log)
		if err != nil {
			t.Fatal(err)
		}
		if hub != nil {
			e.copies = hub
			hubDone := app.RunCopyHub(ctx, hub)
			t.Cleanup(func() { cancel(); <-hubDone })
		}
		// Notifications' webhook deliveries start as in `ats dev`.
		if e.svc.Changes != nil {
			dispatched := app.RunWebhookDispatch(ctx, e.svc.Changes, &workflows.Webhooks{Client: e.tc, Outbox: e.svc.Notify, Logger: e.log}, e.log)
			t.Cleanup(func() { cancel(); <-dispatched })
		}
	}
}

// trader is a user with a funded, approved sandbox wallet and a linked
// agent whose key the requests use.
type trader struct {
	userID, agentID, key string
	wallet               wallets.Wallet
}

// newTrader creates a user, the demo wallet (1000 pUSD, every approval)
// and an agent with all scopes and a rate limit that does not get in the
// way of load tests. fixedLimit (USDC, 0 = none) caps the agent's budget.
func (e *tradingEnv) newTrader(t testing.TB, fixedLimit int64) trader {
	t.Helper()
	ctx := context.Background()
	u := &models.User{Email: models.NewID("u") + "@example.com", PasswordHash: "x"}
	if err := e.store.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	var funder wallets.Funder = httpFunder{base: e.sbURL}
	if e.sb != nil {
		funder = e.sb.EVM()
	}
	w, err := e.svc.Wallets.SeedDemo(ctx, funder, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	plain, hash, prefix := secret.NewAPIKey()
	a := &models.Agent{UserID: u.ID, Name: "e2e", Scopes: "read trade cancel redeem", RateLimitPerMinute: 100_000}
	if fixedLimit > 0 {
		v := fixedLimit * models.MicroPerUnit
		a.BudgetLimitMicro = &v
	}
	if err := e.store.CreateAgentWithKey(ctx, a, &models.APIKey{Hash: hash, DisplayPrefix: prefix}); err != nil {
		t.Fatal(err)
	}
	return trader{userID: u.ID, agentID: a.ID, key: plain, wallet: w}
}

// call sends an agent API request (body as JSON, nil for none) and decodes
// the JSON answer.
func (e *tradingEnv) call(t testing.TB, key, method, path string, body any, hdr ...string) (int, map[string]json.RawMessage) {
	t.Helper()
	var js string
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		js = string(b)
	}
	status, _, raw := e.send(t, key, method, path, js, hdr...)
	var out map[string]json.RawMessage
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s %s: %d, not JSON: %s", method, path, status, raw)
	}
	return status, out
}

// send is call with the body as JSON text ("" for none) and the raw
// answer: status, headers and body. hdr are extra header name, value pairs.
func (e *tradingEnv) send(t testing.TB, key, method, path, body string, hdr ...string) (int, http.Header, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.api.URL+"/api/agent/v1"+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, raw
}

// apiOrder is the order DTO as an agent reads it.
type apiOrder struct {
	ID             string      `json:"id"`
	PolyOrderID    string      `json:"polyOrderId"`
	Status         string      `json:"status"`
	PreviousStatus string      `json:"previousStatus"`
	Side           string      `json:"side"`
	Price          json.Number `json:"price"`
	Size           json.Number `json:"size"`
	FilledSize     json.Number `json:"filledSize"`
	AvgFillPrice   json.Number `json:"avgFillPrice"`
	MarketQuestion string      `json:"marketQuestion"`
	Outcome        string      `json:"outcome"`
}

func dataOrder(t testing.TB, body map[string]json.RawMessage) apiOrder {
	t.Helper()
	var d struct {
		Order apiOrder `json:"order"`
	}
	if err := json.Unmarshal(body["data"], &d); err != nil {
		t.Fatalf("data.order: %v in %s", err, body["data"])
	}
	return d.Order
}

// sandboxMarket is a market of the control API.
type sandboxMarket struct {
	ConditionID string   `json:"conditionId"`
	TokenIDs    []string `json:"tokenIds"`
	Outcomes    []string `json:"outcomes"`
	NegRisk     bool     `json:"negRisk"`
}

// newMarket lists a fresh market at price (its YES book centred there).
func (e *tradingEnv) newMarket(t testing.TB, question string, price string) sandboxMarket {
	t.Helper()
	body := fmt.Sprintf(`{"question":%q,"slug":%q,"outcomes":["Yes","No"],"price":%s,"endDate":%q,"negRisk":false,"tags":["test"],"volume":1000}`,
		question, strings.ToLower(strings.ReplaceAll(question, " ", "-")), price, time.Now().Add(48*time.Hour).UTC().Format(time.RFC3339))
	var m sandboxMarket
	e.control(t, "/control/markets", body, &m)
	if len(m.TokenIDs) != 2 {
		t.Fatalf("created market: %+v", m)
	}
	return m
}

// orphanOrder stores a PENDING limit BUY of 5 shares at 0.20 of token for
// tr, its budget reserved, as the API does before it starts the order's
// workflow, and starts none: an order whose API died in between.
func (e *tradingEnv) orphanOrder(t testing.TB, tr trader, token string) *models.Order {
	t.Helper()
	ctx := context.Background()
	o := &models.Order{AgentID: tr.agentID, UserID: tr.userID, WalletID: tr.wallet.ID, TokenID: token, Side: "BUY",
		Type: "GTC", RequestType: "LIMIT", PriceMicro: 200_000, SizeMicro: 5_000_000, ReservedMicro: 1_000_000}
	o.ID = models.NewID(models.PrefixOrder)
	if _, err := e.svc.Budget.ReserveWith(ctx, tr.agentID, tr.userID, o.ReservedMicro, o.ID,
		func(tx *store.Store) error { return tx.CreateOrder(ctx, o) }); err != nil {
		t.Fatal(err)
	}
	return o
}

// askDepth is how many shares the venue's book of token offers at limit
// or better.
func (e *tradingEnv) askDepth(t testing.TB, token string, limit decimal.Decimal) decimal.Decimal {
	t.Helper()
	book, err := e.svc.Orders.CLOB.OrderBook(context.Background(), token)
	if err != nil {
		t.Fatal(err)
	}
	depth := decimal.Zero
	for _, l := range book.Asks {
		if l.Price.LessThanOrEqual(limit) {
			depth = depth.Add(l.Size)
		}
	}
	return depth
}

func (e *tradingEnv) control(t testing.TB, path, body string, out any) {
	t.Helper()
	resp, err := http.Post(e.sandboxURL()+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("POST %s: %d %s", path, resp.StatusCode, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("POST %s: %v in %s", path, err, raw)
		}
	}
}

// recordHistory writes the history of workflow id to the file named by
// envRecordOrderHistory, when set.
func (e *tradingEnv) recordHistory(t testing.TB, id string) {
	t.Helper()
	p := os.Getenv(envRecordOrderHistory)
	if p == "" {
		return
	}
	replaytest.WriteHistory(t, p, replaytest.History(t, context.Background(), e.tc, id, ""))
}

// awaitWorkflowDone waits until workflow id has closed.
func (e *tradingEnv) awaitWorkflowDone(t testing.TB, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.tc.GetWorkflow(ctx, id, "").Get(ctx, nil); err != nil {
		t.Fatalf("workflow %s: %v", id, err)
	}
}
