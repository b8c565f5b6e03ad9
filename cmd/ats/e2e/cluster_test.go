package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/agent-trading/ats/api/ratelimit/redistest"
	"github.com/agent-trading/ats/cmd/ats/internal/app"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/sandbox/exchange"
	"github.com/agent-trading/ats/worker/clustertest"
	"github.com/agent-trading/ats/worker/replaytest"
	"github.com/agent-trading/ats/workflows"
)

// cluster is `ats api` and `ats worker` processes of e on one PostgreSQL,
// one Temporal and one Redis, as deployments/ runs them.
type cluster struct {
	e       *tradingEnv
	apis    []*atsProcess
	workers []*atsProcess
	// start starts another process of a kind ("api", "worker").
	start func(kind string) *atsProcess
}

// atsProcess is one `ats` process with the URLs it announced.
type atsProcess struct {
	*workerProcess
	urls map[string]string
}

// pgBaseURL is the PostgreSQL server of the test, or a skip (a failure
// under CI, which has one) without it.
func pgBaseURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(storetest.EnvDatabaseURL)
	if base == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not set: CI must run the multi-instance test", storetest.EnvDatabaseURL)
		}
		t.Skipf("the multi-instance test needs PostgreSQL: set %s to a server URL", storetest.EnvDatabaseURL)
	}
	return base
}

// clusterTemporal picks the Temporal of newCluster.
type clusterTemporal int

const (
	// onCluster: a Temporal cluster as production runs it (clustertest:
	// PostgreSQL, one process per service, mutual TLS).
	onCluster clusterTemporal = iota
	// onDevServer: the Temporal dev server `ats dev` embeds.
	onDevServer
)

// newCluster starts a sandbox, Temporal, a fresh PostgreSQL database, a
// Redis, and apis `ats api` and workers `ats worker` processes on them.
func newCluster(t testing.TB, apis, workers int, on clusterTemporal) *cluster {
	t.Helper()
	base := pgBaseURL(t)
	// The dev server as `ats dev` runs it (WAL), for comparisons.
	o := tradingOpts{noWorker: true, devPragmas: app.DevTemporalPragmas, noResponseCheck: true}
	if on == onCluster {
		o.temporal = clustertest.Start(t, clustertest.Options{DatabaseURL: base})
	}
	rd := redistest.Start(t)
	bin := buildATS(t)
	o.databaseURL = storetest.CreateDatabase(t, base)
	e := newTradingEnv(t, o)
	keyFile := filepath.Join(e.dataDir, "master.key")
	if err := os.WriteFile(keyFile, []byte(base64.StdEncoding.EncodeToString(e.master)), 0o600); err != nil {
		t.Fatal(err)
	}
	common := []string{"--data-dir", e.dataDir, "--database-url", o.databaseURL, "--venue", "sandbox",
		"--sandbox-addr", strings.TrimPrefix(e.sb.URL(), "http://"), "--master-key-file", keyFile,
		"--ratelimit-redis-url", rd.URL, "--ops-listen", "127.0.0.1:0", "--log-level", "warn"}
	common = append(common, e.temporalFlags()...)
	c := &cluster{e: e}
	c.start = func(kind string) *atsProcess {
		names, extra := []string{"ops"}, []string(nil)
		if kind == "api" {
			names, extra = []string{"api", "ops"}, []string{"--http", "127.0.0.1:0"}
		}
		p := &atsProcess{workerProcess: &workerProcess{args: append(append([]string{bin, kind}, common...), extra...)}}
		if err := p.start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			p.kill()
			if t.Failed() {
				t.Logf("%s logs:\n%s", kind, p.logs.String())
			}
		})
		p.urls = awaitListening(t, p.workerProcess, names, time.Minute)
		return p
	}
	for range workers {
		c.workers = append(c.workers, c.start("worker"))
	}
	for range apis {
		c.apis = append(c.apis, c.start("api"))
	}
	for _, a := range c.apis {
		awaitReady(t, a.urls["api"])
	}
	return c
}

// awaitReady waits for the API at url to answer /readyz with 200.
func awaitReady(t testing.TB, url string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := http.Get(url + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s/readyz never answered 200 (%v)", url, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

var listeningLine = regexp.MustCompile(`(?m)^listening (\S+) (\S+)$`)

// awaitListening reads the process's `listening` lines from its output.
func awaitListening(t testing.TB, p *workerProcess, names []string, timeout time.Duration) map[string]string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got := map[string]string{}
		for _, m := range listeningLine.FindAllStringSubmatch(p.logs.String(), -1) {
			got[m[1]] = m[2]
		}
		if len(got) >= len(names) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v announced %v, want %v; output:\n%s", p.args[1], got, names, p.logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// call sends an agent request to API instance i (modulo their number)
// and decodes the JSON answer.
func (c *cluster) call(t testing.TB, i int, key, method, path string, body any, hdr ...string) (int, map[string]json.RawMessage) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.apis[i%len(c.apis)].urls["api"]+"/api/agent/v1"+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for j := 0; j+1 < len(hdr); j += 2 {
		req.Header.Set(hdr[j], hdr[j+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("%s %s: %d, not JSON: %v", method, path, resp.StatusCode, err)
	}
	return resp.StatusCode, out
}

// identities are the worker identities that started activities or
// completed workflow tasks in workflow id's history.
func (c *cluster) identities(t testing.TB, id string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, ev := range replaytest.History(t, context.Background(), c.e.tc, id, "").GetEvents() {
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			out[ev.GetActivityTaskStartedEventAttributes().GetIdentity()] = true
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			out[ev.GetWorkflowTaskCompletedEventAttributes().GetIdentity()] = true
		}
	}
	return out
}

// workerOf names the worker process behind a Temporal identity ("pid@host@queue").
func (c *cluster) workerOf(identity string, pids []int) int {
	for i, pid := range pids {
		if strings.HasPrefix(identity, strconv.Itoa(pid)+"@") {
			return i
		}
	}
	return -1
}

// TestTwoAPIsAndTwoWorkers runs two `ats api` and two `ats worker`
// processes on a Temporal cluster as production runs it (clustertest:
// PostgreSQL persistence and visibility, frontend, internal-frontend, two
// history, matching and worker processes, mutual TLS), one PostgreSQL
// database and one Redis:
//
//   - one key's rate limit is one budget across both APIs;
//   - each API places the orders it accepts itself (their first workflow
//     task, started eagerly, ran in that API's process), and strategies
//     spread over both workers (by the worker identities in their workflow
//     histories);
//   - after one worker is killed with SIGKILL, the other carries every
//     order and strategy on: new orders are placed, the resting ones
//     cancelled, every strategy fires and completes;
//   - nothing was done twice: one venue order per service order and per
//     idempotency key, one execution and one order per strategy;
//   - each process's operator listener serves the metrics of that traffic;
//
// then, with orders and strategies arriving all along, SIGKILLs one
// history process, the matching process and a worker, and finally the whole
// Temporal cluster with orders resting (faultsWhileTrading).
func TestTwoAPIsAndTwoWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal cluster, PostgreSQL databases, Redis, the sandbox and four ats processes")
	}
	c := newCluster(t, 2, 2, onCluster)
	e := c.e
	ctx := context.Background()
	tr := e.newTrader(t, 0)
	m := e.newMarket(t, "Will two of everything hold", "0.5")
	yes := m.TokenIDs[0]
	pids := []int{c.workers[0].pid(), c.workers[1].pid()}
	apiPids := []int{c.apis[0].pid(), c.apis[1].pid()}

	t.Run("one rate limit across both APIs", func(t *testing.T) {
		key := e.agentWithLimit(t, tr, 20)
		ok, limited := 0, 0
		for i := range 30 {
			switch status, b := c.call(t, i, key, "GET", "/me", nil); status {
			case http.StatusOK:
				ok++
			case http.StatusTooManyRequests:
				limited++
			default:
				t.Fatalf("request %d: %d %s", i, status, b)
			}
		}
		if ok != 20 || limited != 10 {
			t.Fatalf("20 a minute across two APIs: %d answered, %d limited", ok, limited)
		}
	})

	t.Run("a revoked key is refused by every API", func(t *testing.T) {
		// Another agent of the trader's user, its key read (and so
		// cached) by both APIs; then paused, resumed and revoked as the
		// dashboard does, in this process: each instance learns of it
		// from the database's notification alone.
		key, agentID := e.secondAgent(t, tr, "read")
		refusedBy := func(code string) time.Duration {
			t.Helper()
			t0 := time.Now()
			for i := range c.apis {
				for {
					status, b, err := c.try(i, key, "GET", "/me", nil)
					if err == nil && status == http.StatusUnauthorized && string(b["code"]) == `"`+code+`"` {
						break
					}
					if time.Since(t0) > time.Second {
						t.Fatalf("api %d still answers %d %s %v a second after the change, want %s", i, status, b, err, code)
					}
					time.Sleep(5 * time.Millisecond)
				}
			}
			return time.Since(t0)
		}
		answeredBy := func() {
			t.Helper()
			for i := range c.apis {
				for t0 := time.Now(); ; time.Sleep(5 * time.Millisecond) {
					if status, _, err := c.try(i, key, "GET", "/me", nil); err == nil && status == http.StatusOK {
						break
					}
					if time.Since(t0) > time.Second {
						t.Fatalf("api %d still refuses the resumed agent a second later", i)
					}
				}
			}
		}
		answeredBy()
		answeredBy() // served from both caches now
		if _, err := e.svc.Agents.Pause(ctx, tr.userID, agentID, "127.0.0.1"); err != nil {
			t.Fatal(err)
		}
		t.Logf("pause refused by both APIs after %v", refusedBy("agent_paused"))
		if _, err := e.svc.Agents.Resume(ctx, tr.userID, agentID, "127.0.0.1"); err != nil {
			t.Fatal(err)
		}
		answeredBy()
		if _, err := e.svc.Agents.Revoke(ctx, tr.userID, agentID, "127.0.0.1"); err != nil {
			t.Fatal(err)
		}
		t.Logf("revocation refused by both APIs after %v", refusedBy("key_revoked"))
	})

	// Orders and strategies through both APIs, before the kill.
	const nOrders, nAlerts = 20, 8
	place := func(t *testing.T, i int, key string) string {
		status, b := c.call(t, i, tr.key, "POST", "/orders", map[string]any{"tokenId": yes, "side": "BUY", "price": 0.2, "size": 5},
			"Idempotency-Key", key)
		if status != http.StatusOK && status != http.StatusAccepted {
			t.Fatalf("order %s: %d %s", key, status, b)
		}
		return dataOrder(t, b).ID
	}
	var before []string
	for i := range nOrders {
		before = append(before, place(t, i, fmt.Sprintf("before-%d", i)))
	}
	var alerts []string
	for i := range nAlerts {
		status, b := c.call(t, i, tr.key, "POST", "/strategies", map[string]any{"type": "PRICE_ALERT", "maxBudget": 5, "config": map[string]any{
			"tokenId": yes, "side": "BUY", "triggerCondition": "PRICE_LTE", "triggerPrice": 0.35, "size": 5}})
		if status != http.StatusOK {
			t.Fatalf("create strategy: %d %s", status, b)
		}
		alerts = append(alerts, dataStrategy(t, b).ID)
	}
	awaitOrders(t, e, before)

	t.Run("work spreads over both workers", func(t *testing.T) {
		seen := map[int]int{}
		for _, id := range workflowIDs(workflows.KindStrategy, alerts) {
			for ident := range c.identities(t, id) {
				seen[c.workerOf(ident, pids)]++
			}
		}
		if seen[0] == 0 || seen[1] == 0 {
			t.Errorf("strategies: tasks per worker %v; want both workers busy", seen)
		}
		t.Logf("strategies: tasks per worker %v", seen)
	})

	t.Run("each API places its orders itself", func(t *testing.T) {
		// Order i went to API i%2, which started its workflow eagerly:
		// the first workflow task, which placed the order, ran there.
		for i, id := range before {
			first := c.firstTaskIdentity(t, workflows.WorkflowID(workflows.KindOrder, id))
			if got := c.workerOf(first, apiPids); got != i%2 {
				t.Errorf("order %d (%s): first workflow task by %q, want api %d (pid %d)", i, id, first, i%2, apiPids[i%2])
			}
		}
	})

	c.workers[0].kill()
	t.Logf("worker %d killed", pids[0])

	t.Run("the survivor carries everything on", func(t *testing.T) {
		var after []string
		for i := range 10 {
			after = append(after, place(t, i, fmt.Sprintf("after-%d", i)))
		}
		awaitOrders(t, e, after)
		// Resting orders whose workflows lived on the dead worker are
		// cancelled through the survivor.
		var wg sync.WaitGroup
		for i, id := range before[:10] {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if status, b := c.call(t, i, tr.key, "DELETE", "/orders/"+id, nil); status != http.StatusOK {
					t.Errorf("cancel %s: %d %s", id, status, b)
				}
			}()
		}
		wg.Wait()
		// Every alert, armed in either worker, fires through the survivor.
		e.setPrice(t, yes, "0.3")
		e.awaitStoredCompleted(t, alerts)
	})

	t.Run("nothing done twice", func(t *testing.T) {
		rows, err := e.store.ListOrders(ctx, store.OrderFilter{AgentID: tr.agentID, Limit: 500})
		if err != nil {
			t.Fatal(err)
		}
		byHash := map[string]int{}
		for _, v := range e.sb.Venue().Engine().Orders(exchange.OrderFilter{Maker: common.HexToAddress(tr.wallet.Address)}) {
			byHash[strings.ToLower(v.ID)]++
		}
		perKey, strategyOrders := map[string]int{}, 0
		for _, o := range rows {
			if o.IdempotencyKey == nil {
				t.Errorf("order %s has no idempotency key", o.ID)
				continue
			}
			if o.StrategyID != nil {
				strategyOrders++
			}
			n := byHash[strings.ToLower(o.VenueOrderID)]
			// A FOK the venue killed (a strategy's market buy on a book
			// the others emptied) is FAILED and not kept by the venue.
			if n > 1 || n == 0 && o.Status != models.OrderFailed {
				t.Errorf("order %s (%s, %s): %d venue orders", o.ID, *o.IdempotencyKey, o.Status, n)
			}
			perKey[*o.IdempotencyKey] += n
		}
		for k, n := range perKey {
			if n > 1 {
				t.Errorf("idempotency key %s: %d venue orders", k, n)
			}
		}
		if want := nOrders + 10 + strategyOrders; len(rows) != want {
			t.Errorf("%d orders, want %d placed by hand and %d by strategies", len(rows), nOrders+10, strategyOrders)
		}
		kept := 0
		for _, o := range rows {
			if byHash[strings.ToLower(o.VenueOrderID)] == 1 {
				kept++
			}
		}
		if len(byHash) != kept {
			t.Errorf("the venue holds %d orders of the wallet, %d of them the service's", len(byHash), kept)
		}
		executionOrders := 0
		for _, id := range alerts {
			ex, err := e.store.ListStrategyExecutions(ctx, id, 10)
			if err != nil {
				t.Fatal(err)
			}
			// Newest first: the one that completed the alert placed the
			// order that filled; earlier ones failed (each with its own
			// execution number and key).
			if len(ex) == 0 || ex[0].OrderID == nil || ex[0].Kind != "action" {
				t.Errorf("strategy %s: executions %+v", id, ex)
			}
			for _, x := range ex {
				if x.OrderID != nil {
					executionOrders++
				}
			}
		}
		if executionOrders != strategyOrders {
			t.Errorf("the strategies recorded %d orders, the service holds %d of theirs", executionOrders, strategyOrders)
		}
		for _, id := range before[:10] {
			if o, err := e.store.OrderByID(ctx, id); err != nil || o.Status != models.OrderCancelled {
				t.Errorf("order %s: %v %v, want CANCELLED", id, o.Status, err)
			}
		}
	})

	t.Run("each process serves its metrics", func(t *testing.T) {
		var rejected float64
		for i, a := range c.apis {
			s := scrapeURL(t, a.urls["ops"]+"/metrics")
			if n := s.sum("ats_http_request_duration_seconds", "method", "POST", "route", "/api/agent/v1/orders"); n < 1 {
				t.Errorf("api %d: %v POST /orders observations", i, n)
			}
			rejected += s.sum("ats_ratelimit_rejections_total", "limit", "default/key")
		}
		if rejected != 10 {
			t.Errorf("the APIs count %v rate-limit rejections, want 10", rejected)
		}
		s := scrapeURL(t, c.workers[1].urls["ops"]+"/metrics")
		for _, name := range []string{"ats_orders_placed_total", "ats_strategy_executions_total", "ats_venue_requests_total",
			"ats_chain_calls_total", "temporal_activity_execution_latency_seconds", "temporal_workflow_task_execution_latency_seconds"} {
			if s.sum(name) < 1 {
				t.Errorf("the surviving worker's %s is %v", name, s.sum(name))
			}
		}
	})

	// A new worker in place of the killed one, for the faults.
	c.workers[0] = c.start("worker")
	t.Run("faults while trading", func(t *testing.T) { faultsWhileTrading(t, c) })
}

// firstTaskIdentity is the identity of the worker that completed the first
// workflow task of workflow id.
func (c *cluster) firstTaskIdentity(t testing.TB, id string) string {
	t.Helper()
	for _, ev := range replaytest.History(t, context.Background(), c.e.tc, id, "").GetEvents() {
		if ev.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED {
			return ev.GetWorkflowTaskCompletedEventAttributes().GetIdentity()
		}
	}
	t.Fatalf("workflow %s completed no workflow task", id)
	return ""
}

// workflowIDs are the workflow ids of kind for the business ids.
func workflowIDs(kind workflows.Kind, ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = workflows.WorkflowID(kind, id)
	}
	return out
}

// awaitOrders waits until no order of ids is PENDING.
func awaitOrders(t testing.TB, e *tradingEnv, ids []string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for _, id := range ids {
		for {
			o, err := e.store.OrderByID(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			if o.Status != models.OrderPending {
				if o.Status != models.OrderOpen {
					t.Fatalf("order %s is %s (%s)", id, o.Status, o.FailureReason)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("order %s still PENDING", id)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// BenchmarkClusterThroughput places orders from 16 concurrent clients
// (8 agents, each with its own wallet, so the per-wallet post pacing does
// not set the pace) through n `ats api` and n `ats worker` processes on one
// Temporal, one PostgreSQL and one Redis, and reports orders per second.
// The sandbox and Temporal are shared, as in production, so the pair scales
// only as far as they do:
//
//	go test -run '^$' -bench BenchmarkClusterThroughput -benchtime 300x ./cmd/ats/e2e/
func BenchmarkClusterThroughput(b *testing.B) {
	for _, n := range []int{1, 2} {
		b.Run(fmt.Sprintf("instances=%d", n), func(b *testing.B) {
			c := newCluster(b, n, n, benchTemporal(b))
			m := c.e.newMarket(b, "Will the pair be faster", "0.5")
			traders := make([]trader, 8)
			for i := range traders {
				traders[i] = c.e.newTrader(b, 0)
			}
			var next, pending atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			t0 := time.Now()
			for range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						i := int(next.Add(1) - 1)
						if i >= b.N {
							return
						}
						// Far below the book: every order rests.
						status, resp := c.call(b, i, traders[i%len(traders)].key, "POST", "/orders",
							map[string]any{"tokenId": m.TokenIDs[0], "side": "BUY", "price": 0.01, "size": 5})
						switch status {
						case http.StatusOK:
						case http.StatusAccepted:
							pending.Add(1)
						default:
							b.Errorf("POST /orders: %d %s", status, resp)
							return
						}
					}
				}()
			}
			wg.Wait()
			took := time.Since(t0)
			b.StopTimer()
			b.ReportMetric(float64(b.N)/took.Seconds(), "orders/s")
			b.ReportMetric(float64(pending.Load()), "pending-202s")
			if la, err := os.ReadFile("/proc/loadavg"); err == nil {
				b.Logf("load average: %s", strings.TrimSpace(string(la)))
			}
		})
	}
}

// secondAgent links another agent with scopes to tr's user (its wallet)
// and returns its key and id.
func (e *tradingEnv) secondAgent(t testing.TB, tr trader, scopes string) (key, agentID string) {
	t.Helper()
	plain, hash, prefix := secret.NewAPIKey()
	a := &models.Agent{UserID: tr.userID, Name: "second-" + models.NewID("a"), Scopes: scopes, RateLimitPerMinute: 100_000}
	if err := e.store.CreateAgentWithKey(context.Background(), a, &models.APIKey{Hash: hash, DisplayPrefix: prefix}); err != nil {
		t.Fatal(err)
	}
	return plain, a.ID
}

// awaitStoredCompleted waits until every strategy of ids is COMPLETED in
// the store, two minutes at most for them all (their price was just set).
func (e *tradingEnv) awaitStoredCompleted(t *testing.T, ids []string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for _, id := range ids {
		for {
			st, err := e.store.StrategyByID(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			if st.Status == "COMPLETED" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("strategy %s is %s (%s) two minutes after its price", id, st.Status, st.LastError)
			}
			time.Sleep(250 * time.Millisecond)
		}
	}
}
