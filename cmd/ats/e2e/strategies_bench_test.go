package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/cmd/ats/internal/app"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/workflows"
)

// triggerLatency creates a PRICE_ALERT (BUY at or below 0.35) on token,
// waits until it is armed, moves the sandbox price to 0.30 and returns the
// time from the price change to the alert's order being posted to the
// venue (the order has the venue's id). armed reports when the alert's
// condition is registered.
func triggerLatency(b testing.TB, e *tradingEnv, tr trader, token string, armed func(id string) bool) time.Duration {
	b.Helper()
	e.setPrice(b, token, "0.5")
	s := e.createStrategy(b, tr, map[string]any{"type": "PRICE_ALERT", "maxBudget": 5, "config": map[string]any{
		"tokenId": token, "side": "BUY", "triggerCondition": "PRICE_LTE", "triggerPrice": 0.35, "size": 5}})
	for deadline := time.Now().Add(30 * time.Second); !armed(s.ID); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatalf("%s was never armed", s.ID)
		}
	}
	ctx := context.Background()
	t0 := time.Now()
	e.setPrice(b, token, "0.3")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		rows, err := e.store.ListOrders(ctx, store.OrderFilter{AgentID: tr.agentID, StrategyID: s.ID, Limit: 1})
		if err != nil {
			b.Fatal(err)
		}
		if len(rows) == 1 && rows[0].VenueOrderID != "" {
			return time.Since(t0)
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s: no order posted 30 s after the price moved", s.ID)
		}
	}
}

func reportQuantiles(b *testing.B, lat []time.Duration) {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.95), "p95-ms")
	b.ReportMetric(q(1), "max-ms")
}

// BenchmarkStrategyTriggerLatency measures a PRICE_ALERT's trigger
// latency end to end: the price moved at the sandbox (POST /control/…/price)
// → the venue's market channel → the worker's price feed → the condition
// → a signal to the strategy's workflow → its execution re-checks the
// price and places the order through the order path → the signed post
// reaches the venue. Goal p95 ≤ 1 s.
//
//	go test -run '^$' -bench BenchmarkStrategyTriggerLatency -benchtime 30x ./cmd/ats/e2e/
func BenchmarkStrategyTriggerLatency(b *testing.B) {
	e := newTradingEnv(b, tradingOpts{})
	e.withStrategyFeed(b)
	tr := e.newTrader(b, 0)
	m := e.newMarket(b, "Will the trigger be fast", "0.5")
	trig := e.svc.StrategyEngine.Triggers.(*strategies.Triggers)
	armed := func(id string) bool { return trig.IsArmed(id) }
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		lat = append(lat, triggerLatency(b, e, tr, m.TokenIDs[0], armed))
	}
	reportQuantiles(b, lat)
}

// procStat reads a process's CPU time (user+system) and resident set.
func procStat(b testing.TB, pid int) (cpu time.Duration, rssMB float64) {
	b.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	cpu = time.Duration(ut+st) * (time.Second / 100) // USER_HZ
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			kb, _ := strconv.ParseFloat(strings.Fields(l)[1], 64)
			rssMB = kb / 1024
		}
	}
	return cpu, rssMB
}

// BenchmarkStrategiesWaiting measures one `ats worker` process holding
// ATS_BENCH_STRATEGIES (default 10000) ACTIVE PRICE_ALERT strategies
// whose conditions wait in its price feed: the creation rate (service
// Create: validation, the store's limit check and insert, the workflow
// start), the worker's idle CPU and RSS once every workflow has loaded and
// armed, and the trigger latency of an alert under that load. Goals: idle
// ≤ 0.5 core and ≤ 500 MB. It runs once whatever -benchtime says.
//
//	go test -run '^$' -bench BenchmarkStrategiesWaiting -benchtime 1x -timeout 30m ./cmd/ats/e2e/
func BenchmarkStrategiesWaiting(b *testing.B) {
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("ATS_BENCH_STRATEGIES")); err == nil && v > 0 {
		n = v
	}
	bin := buildATS(b)
	e := newTradingEnv(b, tradingOpts{noWorker: true})
	tr := e.newTrader(b, 0)
	m := e.newMarket(b, "Will ten thousand strategies wait", "0.5")
	idle := []string{m.TokenIDs[0], m.TokenIDs[1]}
	wp := e.startWorkerProcess(b, bin)
	ctx := context.Background()
	b.ResetTimer()
	// Agents hold at most 10 non-final strategies: createStrategies makes
	// real agents (10 per user) for them, half waiting on each outcome
	// (nothing executes for them).
	cfg := func(token string) json.RawMessage {
		return json.RawMessage(`{"tokenId":"` + token + `","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.02,"size":30}`)
	}
	t0 := time.Now()
	ids := e.createStrategies(b, n/2, strategies.TypePriceAlert, cfg(idle[0]), decimal.NewFromInt(5))
	ids = append(ids, e.createStrategies(b, n-n/2, strategies.TypePriceAlert, cfg(idle[1]), decimal.NewFromInt(5))...)
	created := time.Since(t0)
	b.ReportMetric(float64(n)/created.Seconds(), "created/s")
	b.Logf("%d strategies created in %v", n, created)

	// loaded reports whether strategy id's workflow has run its first
	// step (LoadStrategy arms its conditions in the worker's feed): its
	// state query answers the loaded state.
	loaded := func(id string) bool {
		qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		v, err := e.tc.QueryWorkflow(qctx, id, "", workflows.StrategyQueryState)
		if err != nil {
			return false
		}
		var st strategies.State
		return v.Get(&st) == nil && st.Status == strategies.StatusActive && st.ID == id
	}
	// Wait until the workflows have loaded (a sample of 20 of them, the
	// last created among them) and the worker is quiet.
	step := max(1, len(ids)/20)
	for i := len(ids) - 1; i >= 0; i -= step {
		for deadline := time.Now().Add(10 * time.Minute); !loaded(ids[i]); time.Sleep(time.Second) {
			if time.Now().After(deadline) {
				b.Fatalf("%s never loaded", ids[i])
			}
		}
	}
	b.Logf("%d strategies loaded %v after the first was created", n, time.Since(t0))
	pid := wp.pid()
	prev, _ := procStat(b, pid)
	for deadline := time.Now().Add(15 * time.Minute); ; {
		time.Sleep(10 * time.Second)
		cpu, rss := procStat(b, pid)
		used := (cpu - prev).Seconds() / 10
		prev = cpu
		b.Logf("settling: %.2f cores, %.0f MB", used, rss)
		if used < 0.2 {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("the worker never became idle")
		}
	}
	cpu0, _ := procStat(b, pid)
	time.Sleep(30 * time.Second)
	cpu1, rss := procStat(b, pid)
	b.ReportMetric((cpu1-cpu0).Seconds()/30, "idle-cores")
	b.ReportMetric(rss, "rss-MB")

	// Trigger latency under that load, on another market.
	lm := e.newMarket(b, "Will it fire under load", "0.5")
	lat := make([]time.Duration, 0, 10)
	for range 10 {
		lat = append(lat, triggerLatency(b, e, tr, lm.TokenIDs[0], loaded))
	}
	reportQuantiles(b, lat)
}

// BenchmarkPriceAlertFanout measures ATS_BENCH_ALERTS (default 1,000)
// PRICE_ALERTs on one token fired by one price move: every alert (a LIMIT
// BUY of 5 at or below 0.35; 100 per user, 10 per agent) armed in the
// worker's price feed, the sandbox's price moved from 0.5 to 0.3 (POST
// /control/…/price) → the market channel → the feed's conditions → a
// signal to each alert's workflow → its execution starts its order's
// Order workflow → the venue answered the signed post (the order
// leaves PENDING; its updated_at). Each alert's latency is a sample. It
// checks that every alert placed exactly one order, and reports per order
// the counters of BenchmarkCopyTradeLatency (the sandbox in its own
// process). Goal: p95 ≤ 5 s. It runs once whatever -benchtime says.
//
//	go test -run '^$' -bench BenchmarkPriceAlertFanout -benchtime 1x -timeout 30m ./cmd/ats/e2e/
func BenchmarkPriceAlertFanout(b *testing.B) {
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("ATS_BENCH_ALERTS")); err == nil && v > 0 {
		n = v
	}
	e := newTradingEnv(b, tradingOpts{eager: true, devPragmas: app.DevTemporalPragmas, databaseURL: benchDatabaseURL(b), sandboxProcess: true})
	e.withStrategyFeed(b)
	m := e.newMarket(b, fmt.Sprintf("Will %d alerts fire at once", n), "0.5")
	token := m.TokenIDs[0]
	writes := countWrites(b, e.store.DB())
	cfg := json.RawMessage(`{"tokenId":"` + token + `","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.35,"size":5,"orderType":"LIMIT"}`)
	ids := e.createStrategies(b, n, strategies.TypePriceAlert, cfg, decimal.NewFromInt(5))
	trig := e.svc.StrategyEngine.Triggers.(*strategies.Triggers)
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		armed := 0
		for _, id := range ids {
			if trig.IsArmed(id) {
				armed++
			}
		}
		if armed == n {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d alerts armed after 5 minutes", armed, n)
		}
	}
	wids := make([]string, len(ids))
	for i, id := range ids {
		wids[i] = workflows.WorkflowID(workflows.KindStrategy, id)
	}
	events0 := e.historyLength(b, wids)
	c0 := e.readCounters(b, writes, nil)
	b.ResetTimer()
	t0 := time.Now()
	e.setPrice(b, token, "0.3")
	answered := map[string]time.Time{}
	orders := map[string][]string{}
	// The latencies are the rows' times: polling seldom keeps the poll's
	// own queries (counted as the service's CPU) small.
	for deadline := time.Now().Add(5 * time.Minute); len(answered) < n; time.Sleep(250 * time.Millisecond) {
		var rows []struct {
			ID, StrategyID, Status string
			UpdatedAt              time.Time
		}
		if err := e.store.DB().Raw(`SELECT id, strategy_id, status, updated_at FROM orders WHERE strategy_id IN ? AND status <> 'PENDING'`, ids).
			Scan(&rows).Error; err != nil {
			b.Fatal(err)
		}
		for _, r := range rows {
			answered[r.StrategyID] = r.UpdatedAt
		}
		if time.Now().After(deadline) {
			b.Logf("%d of %d alerts' orders answered after 5 minutes", len(answered), n)
			break
		}
	}
	b.StopTimer()
	c1 := e.readCounters(b, writes, nil)
	var rows []struct{ ID, StrategyID string }
	if err := e.store.DB().Raw(`SELECT id, strategy_id FROM orders WHERE strategy_id IN ?`, ids).Scan(&rows).Error; err != nil {
		b.Fatal(err)
	}
	for _, r := range rows {
		orders[r.StrategyID] = append(orders[r.StrategyID], r.ID)
	}
	// Every alert placed at most once; those not placed within the bound
	// show in placed-pct.
	b.ReportMetric(100*float64(len(orders))/float64(n), "placed-pct")
	for _, id := range ids {
		if len(orders[id]) > 1 {
			b.Errorf("alert %s placed %d orders, not one", id, len(orders[id]))
		}
	}
	owids := make([]string, len(rows))
	for i, r := range rows {
		owids[i] = workflows.WorkflowID(workflows.KindOrder, r.ID)
	}
	events := e.historyLength(b, wids) - events0 + e.historyLength(b, owids)
	reportFanout(b, "order", c0, c1, events, n, e.databaseURL != "")
	b.ReportMetric(100*float64(len(answered))/float64(n), "answered-pct")
	lat := make([]time.Duration, 0, len(answered))
	for _, t := range answered {
		lat = append(lat, t.Sub(t0))
	}
	if len(lat) == 0 {
		b.Fatal("no alert's order was answered")
	}
	reportQuantiles(b, lat)
}
