package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/cmd/ats/internal/app"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/worker"
	"github.com/agent-trading/ats/workflows"
)

// BenchmarkOrderPath measures placing a resting limit order end to end —
// POST /orders in, through validation, the budget reservation, the order
// workflow and its placement (sign, store, post to the sandbox venue,
// record), and the answer — next to the same wallet posting the same kind
// of order directly with the Go venue client, in the same run: each
// iteration places one order through the API, one directly and runs one
// dry run (the checks alone), so machine load falls on all three alike.
// Before the clock starts, 200 resting orders are placed through the API
// (ATS_BENCH_RESTING to change). The service's overhead is the API's
// latency minus the direct post's, at the same quantile.
//
// ATS_BENCH_VARIANT picks how the stack is wired (benchVariants); the
// default is what `ats dev` does.
//
//	go test -run '^$' -bench 'BenchmarkOrderPath$' -benchtime 200x ./cmd/ats/e2e/
func BenchmarkOrderPath(b *testing.B) {
	name, o := benchVariant(b)
	e := newTradingEnv(b, o)
	tr := e.newTrader(b, 0)
	m := e.newMarket(b, "Will the benchmark be fast", "0.5")
	direct := e.directTrader(b, tr)
	call := func(b testing.TB, key, method, path string, body any) (int, map[string]json.RawMessage) {
		return e.call(b, key, method, path, body)
	}
	b.Run(name, func(b *testing.B) { benchOrderPath(b, call, tr, m.TokenIDs[0], direct, nil, nil) })
}

// benchVariants are the wirings BenchmarkOrderPath compares: how the
// order workflow is started (update-with-start, or eagerly with the
// worker in process, then the placement update) and how the Temporal dev
// server keeps its SQLite state.
var benchVariants = map[string]tradingOpts{
	// As `ats dev` runs (DevTemporalPragmas, eager start).
	"dev": {eager: true, devPragmas: app.DevTemporalPragmas},
	// Update-with-start, the dev server's SQLite defaults (rollback
	// journal, every commit synced).
	"uws": {},
	// Eager start, then the placement update; SQLite defaults.
	"eager": {eager: true},
	// Update-with-start on WAL, synced at checkpoints.
	"uws-wal": {devPragmas: app.DevTemporalPragmas},
	// Eager start on WAL without any sync.
	"eager-wal-nosync": {eager: true, devPragmas: []string{"journal_mode=wal", "synchronous=off"}},
	// Eager start, the dev server in memory (nothing survives a restart).
	"eager-memory": {eager: true, devInMemory: true},
}

// benchVariant is the wiring ATS_BENCH_VARIANT names ("dev" when unset),
// serving the API without the OpenAPI check of every answer (production
// does not check).
func benchVariant(b *testing.B) (string, tradingOpts) {
	name := os.Getenv("ATS_BENCH_VARIANT")
	if name == "" {
		name = "dev"
	}
	o, ok := benchVariants[name]
	if !ok {
		b.Fatalf("ATS_BENCH_VARIANT=%s: not one of %v", name, slices.Sorted(maps.Keys(benchVariants)))
	}
	o.noResponseCheck = true
	return name, o
}

// directTrader is tr's wallet as a bare venue client, its market-info
// cache warmed like the service's.
func (e *tradingEnv) directTrader(b testing.TB, tr trader) *clob.Trader {
	ctx := context.Background()
	signer, err := e.svc.Wallets.Signer(ctx, tr.userID)
	if err != nil {
		b.Fatal(err)
	}
	creds, err := e.svc.Wallets.Creds(ctx, tr.userID)
	if err != nil {
		b.Fatal(err)
	}
	return &clob.Trader{
		Client: clob.NewClient(clob.ConfigFor(e.sb.Network())).WithCreds(creds, signer.Address()), Network: e.sb.Network(),
		Signer: signer, SignatureType: clob.SignatureType(tr.wallet.SignatureType), Funder: common.HexToAddress(tr.wallet.Address),
	}
}

// benchOrderPath places the resting orders, then b.N times: an order
// through the API, the same order posted directly, a dry run. procs, when
// set, are processes whose CPU time it reports per iteration (one order
// and one dry run through the API), as "<name>-cpu-ms/order"; timed, when
// set, is called as the timed part starts and what it returns as it ends.
func benchOrderPath(b *testing.B, call func(testing.TB, string, string, string, any) (int, map[string]json.RawMessage),
	tr trader, token string, direct *clob.Trader, procs map[string]*workerProcess, timed func() (end func())) {
	ctx := context.Background()
	// Orders at 0.01 rest far below the book and hold 0.05 pUSD each, so
	// thousands fit in the demo wallet.
	body := map[string]any{"tokenId": token, "side": "BUY", "price": 0.01, "size": 5}
	dry := map[string]any{"tokenId": token, "side": "BUY", "price": 0.01, "size": 5, "dryRun": true}
	args := clob.LimitOrderArgs{TokenID: token, Side: clob.Buy, Price: decimal.RequireFromString("0.01"), Size: decimal.NewFromInt(5)}
	resting := 200
	if v, err := strconv.Atoi(os.Getenv("ATS_BENCH_RESTING")); err == nil {
		resting = v
	}
	if _, err := direct.PlaceLimitOrder(ctx, args); err != nil {
		b.Fatal(err)
	}
	for range resting {
		if status, resp := call(b, tr.key, "POST", "/orders", body); status != http.StatusOK {
			b.Fatalf("resting order: %d %s", status, resp)
		}
	}
	api := make([]time.Duration, 0, b.N)
	posts := make([]time.Duration, 0, b.N)
	checks := make([]time.Duration, 0, b.N)
	pending := 0
	cpu0 := map[string]time.Duration{}
	for name, p := range procs {
		cpu0[name], _ = procStat(b, p.pid())
	}
	end := func() {}
	if timed != nil {
		end = timed()
	}
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		status, resp := call(b, tr.key, "POST", "/orders", body)
		api = append(api, time.Since(t0))
		switch status {
		case http.StatusOK:
		case http.StatusAccepted: // placement slower than the API waits
			pending++
		default:
			b.Fatalf("POST /orders: %d %s", status, resp)
		}
		t0 = time.Now()
		_, err := direct.PlaceLimitOrder(ctx, args)
		posts = append(posts, time.Since(t0))
		if err != nil {
			b.Fatal(err)
		}
		t0 = time.Now()
		status, resp = call(b, tr.key, "POST", "/orders", dry)
		checks = append(checks, time.Since(t0))
		if status != http.StatusOK {
			b.Fatalf("POST /orders dry run: %d %s", status, resp)
		}
	}
	b.StopTimer()
	end()
	for name, p := range procs {
		cpu, _ := procStat(b, p.pid())
		b.ReportMetric(float64((cpu-cpu0[name]).Microseconds())/1000/float64(b.N), name+"-cpu-ms/order")
	}
	a50, a99 := quantiles(api)
	d50, d99 := quantiles(posts)
	c50, _ := quantiles(checks)
	b.ReportMetric(a50, "api-p50-ms")
	b.ReportMetric(a99, "api-p99-ms")
	b.ReportMetric(d50, "direct-p50-ms")
	b.ReportMetric(d99, "direct-p99-ms")
	b.ReportMetric(a50-d50, "overhead-p50-ms")
	b.ReportMetric(a99-d99, "overhead-p99-ms")
	b.ReportMetric(c50, "dry-run-p50-ms")
	b.ReportMetric(float64(pending), "pending-202s")
	if avg, err := loadAverage(); err == nil {
		b.ReportMetric(avg, "loadavg")
	}
}

// quantiles returns the p50 and p99 of lat in milliseconds.
func quantiles(lat []time.Duration) (p50, p99 float64) {
	sorted := slices.Clone(lat)
	slices.Sort(sorted)
	q := func(p float64) float64 {
		return float64(sorted[int(p*float64(len(sorted)-1))].Microseconds()) / 1000
	}
	return q(0.50), q(0.99)
}

// loadAverage is the machine's one-minute load average (Linux).
func loadAverage() (float64, error) {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(raw))
	if len(f) == 0 {
		return 0, errors.New("empty /proc/loadavg")
	}
	return strconv.ParseFloat(f[0], 64)
}

// BenchmarkOrderPathSplit is BenchmarkOrderPath on the production split:
// `ats api` and `ats worker` as separate processes, on PostgreSQL and a
// Redis, on a Temporal cluster as production runs it (clustertest:
// PostgreSQL persistence, one process per service, mutual TLS) or, with
// ATS_BENCH_TEMPORAL=dev, on the dev server `ats dev` embeds (WAL, as
// `ats dev` runs it). ATS_BENCH_SPLIT picks the design (splitVariants):
// "api" (the default) is what `ats api` runs — its own worker for the order
// task queue takes the first workflow task of the orders it starts
// (eager start) and answers from the placement attempt; the others are the
// alternatives measured against it, with the API served from the test
// process and the same `ats worker`.
//
//	go test -run '^$' -bench BenchmarkOrderPathSplit -benchtime 200x ./cmd/ats/e2e/
func BenchmarkOrderPathSplit(b *testing.B) {
	variant := os.Getenv("ATS_BENCH_SPLIT")
	if variant == "" {
		variant = "api"
	}
	if _, ok := splitVariants[variant]; !ok && variant != "api" {
		b.Fatalf("ATS_BENCH_SPLIT=%s: not api or one of %v", variant, slices.Sorted(maps.Keys(splitVariants)))
	}
	on := benchTemporal(b)
	profile := os.Getenv("ATS_BENCH_PROFILE")
	if profile != "" {
		// The processes inherit it: their /debug/pprof answers it.
		b.Setenv("ATS_OPS_TOKEN", benchOpsToken)
	}
	apis := 1
	if variant != "api" {
		apis = 0
	}
	c := newCluster(b, apis, 1, on)
	e := c.e
	tr := e.newTrader(b, 0)
	m := e.newMarket(b, "Will the split benchmark be fast", "0.5")
	direct := e.directTrader(b, tr)
	call := func(b testing.TB, key, method, path string, body any) (int, map[string]json.RawMessage) {
		return c.call(b, 0, key, method, path, body)
	}
	if variant != "api" {
		splitVariants[variant](b, e)
		call = func(b testing.TB, key, method, path string, body any) (int, map[string]json.RawMessage) {
			return e.call(b, key, method, path, body)
		}
	}
	name := variant + "/" + map[clusterTemporal]string{onCluster: "cluster", onDevServer: "dev-server"}[on]
	procs := map[string]*workerProcess{"worker": c.workers[0].workerProcess}
	if len(c.apis) > 0 {
		procs["api"] = c.apis[0].workerProcess
	}
	var timed func() func()
	if profile != "" && len(c.apis) > 0 {
		timed = func() func() { return profileProcess(b, c.apis[0].urls["ops"], profile) }
	}
	b.Run(name, func(b *testing.B) { benchOrderPath(b, call, tr, m.TokenIDs[0], direct, procs, timed) })
}

// benchOpsToken is the operator token of the benchmarks' processes when
// they are profiled.
const benchOpsToken = "bench-operator-token-0123456789abcdef"

// profileProcess starts a CPU profile of the process whose operator
// listener is at ops, for ATS_BENCH_PROFILE_SECONDS (default 10) from now,
// and returns the wait for it, which writes it to file (go tool pprof
// file).
func profileProcess(b testing.TB, ops, file string) func() {
	secs := 10
	if v, err := strconv.Atoi(os.Getenv("ATS_BENCH_PROFILE_SECONDS")); err == nil && v > 0 {
		secs = v
	}
	done := make(chan error, 1)
	go func() {
		req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", ops, secs), nil)
		if err != nil {
			done <- err
			return
		}
		req.Header.Set("Authorization", "Bearer "+benchOpsToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- err
			return
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("profile: %s %s", resp.Status, raw)
		}
		if err == nil {
			err = os.WriteFile(file, raw, 0o644)
		}
		done <- err
	}()
	return func() {
		if err := <-done; err != nil {
			b.Errorf("ATS_BENCH_PROFILE: %v", err)
		}
	}
}

// splitVariants wire the test process's API (e's services, no worker of
// their own yet) for the alternatives BenchmarkOrderPathSplit measures
// beside `ats api`.
var splitVariants = map[string]func(testing.TB, *tradingEnv){
	// Update-with-start, no worker in the API: the placement's first
	// workflow task goes through the server's task queue to `ats worker`
	// (what `ats api` did before it ran a placement worker).
	"uws": func(testing.TB, *tradingEnv) {},
	// Eager start with the API's own placement worker, the answer from
	// the placement update (a second round trip) instead of the attempt.
	"eager-update": func(t testing.TB, e *tradingEnv) {
		e.svc.StartOrdersEagerly()
		oc := e.svc.OrderDesk.Runs.(workflows.OrderDeskClient)
		oc.Attempts = nil
		e.svc.OrderDesk.Runs = oc
		e.startPlacer(t)
	},
	// What `ats api` runs, served from the test process.
	"eager": func(t testing.TB, e *tradingEnv) {
		e.svc.StartOrdersEagerly()
		e.startPlacer(t)
	},
}

// startPlacer runs e's placement worker (worker.NewPlacer), as `ats api`
// does.
func (e *tradingEnv) startPlacer(t testing.TB) {
	t.Helper()
	w, err := worker.NewPlacer(e.tc, app.WorkerDeps(e.store, e.svc), e.log)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
}

// benchTemporal is the Temporal ATS_BENCH_TEMPORAL names for the
// benchmarks of several processes: "cluster" (the default) or "dev".
func benchTemporal(b testing.TB) clusterTemporal {
	switch v := os.Getenv("ATS_BENCH_TEMPORAL"); v {
	case "", "cluster":
		return onCluster
	case "dev":
		return onDevServer
	default:
		b.Fatalf("ATS_BENCH_TEMPORAL=%s: want cluster or dev", v)
		return 0
	}
}

// BenchmarkFillVisible measures how long a fill takes to be recorded: a
// resting BUY of one trader is filled by another trader's SELL posted
// directly to the sandbox venue (the match happens inside that post);
// the clock runs from just before that post until the stored order reads
// FILLED — the user channel's event, the router, the signal, a workflow
// task, the SyncOrder activity (venue read, fill, budget, position) and
// its write. GET /orders and positions read the stored order. Reports p50
// and p95.
//
//	go test -run '^$' -bench BenchmarkFillVisible -benchtime 50x ./cmd/ats/e2e/
func BenchmarkFillVisible(b *testing.B) {
	e := newTradingEnv(b, tradingOpts{})
	maker, taker := e.newTrader(b, 0), e.newTrader(b, 0)
	m := e.newMarket(b, "Will the fill be quick", "0.5")
	token := m.TokenIDs[0]
	ctx := context.Background()
	size := decimal.NewFromInt(5)
	status, body := e.call(b, taker.key, "POST", "/orders", map[string]any{"tokenId": token, "side": "BUY", "price": 0.99, "size": 5 * (b.N + 1), "type": "MARKET"})
	if status != http.StatusOK {
		b.Fatalf("the taker's buy: %d %s", status, body)
	}
	direct := e.directTrader(b, taker)
	// one measures one fill; false when the taker's sell met another bid
	// (the sandbox's synthetic book moved in between) and the maker's
	// order was left unfilled, which is then cancelled and tried again.
	one := func() (time.Duration, bool) {
		book, err := e.svc.Orders.CLOB.OrderBook(ctx, token)
		if err != nil {
			b.Fatal(err)
		}
		bestBid := decimal.Zero
		for _, l := range book.Bids {
			bestBid = decimal.Max(bestBid, l.Price)
		}
		price := bestBid.Add(decimal.RequireFromString("0.01"))
		status, body := e.call(b, maker.key, "POST", "/orders", map[string]any{"tokenId": token, "side": "BUY", "price": price, "size": 5})
		if status != http.StatusOK || dataOrder(b, body).Status != models.OrderOpen {
			b.Fatalf("the maker's resting buy: %d %s", status, body)
		}
		id := dataOrder(b, body).ID
		time.Sleep(50 * time.Millisecond) // the order rests before it is hit, as a real one would
		t0 := time.Now()
		if _, err := direct.PlaceLimitOrder(ctx, clob.LimitOrderArgs{TokenID: token, Side: clob.Sell, Price: price, Size: size}); err != nil {
			b.Fatal(err)
		}
		for {
			o, err := e.store.OrderByID(ctx, id)
			if err != nil {
				b.Fatal(err)
			}
			if o.Status == models.OrderFilled {
				return time.Since(t0), true
			}
			if time.Since(t0) > 10*time.Second {
				// GET /orders/{id} asks the venue itself.
				_, body := e.call(b, maker.key, "GET", "/orders/"+id, nil)
				if st := dataOrder(b, body).Status; st != models.OrderOpen {
					b.Fatalf("order %s is %s on the venue but was never recorded by its workflow", id, st)
				}
				if status, body := e.call(b, maker.key, "DELETE", "/orders/"+id, nil); status != http.StatusOK {
					b.Fatalf("cancel the unmatched order: %d %s", status, body)
				}
				return 0, false
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	measure := func() time.Duration {
		for range 5 {
			if d, ok := one(); ok {
				return d
			}
		}
		b.Fatal("the taker's sell never met the maker's bid")
		return 0
	}
	measure() // warm: the maker's stream comes up
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		lat = append(lat, measure())
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.95), "p95-ms")
	b.ReportMetric(q(1), "max-ms")
}
