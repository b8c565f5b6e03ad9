package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/cmd/ats/internal/app"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/workflows"
)

// BenchmarkCopyTradeLatency measures a COPY_TRADE's latency end to end
// with 1 and with 1,000 strategies copying one wallet: from the block
// holding the target's fill being available at the node (its header
// reaching a subscriber in the process) → the target's watcher (woken by
// the node's log notification) records the trade for every copier → a
// hint to each copier's workflow → its execution claims the trade and
// places the copy through the order path → the venue answered the signed
// post (the order leaves PENDING; its updated_at). One target trade per
// iteration; every copier's latency is a sample. Goal p95 ≤ 300 ms.
//
//	go test -run '^$' -bench BenchmarkCopyTradeLatency -benchtime 20x -timeout 30m ./cmd/ats/e2e/
//
// copiers=1000 (ATS_BENCH_COPIERS=N for another count) runs 100 agents
// of 10 users (an agent holds 10 strategies; each user's wallet funds 100
// copies). Copies not answered within 5 minutes are reported as
// answered-pct below 100 and left out of the quantiles.
//
// ATS_BENCH_COPY_RPC=ws (or http) runs the worker as production does, as
// its own `ats worker` process reading the chain through the node's
// JSON-RPC endpoint — the sandbox's /rpc/ws (a node's wss://: the copy
// watcher is woken by the node's log subscription), or its HTTP /rpc (no
// subscriptions: the watcher polls) — instead of in process on the node
// itself; the first trade warms it up and is not counted.
//
//	ATS_BENCH_COPY_RPC=ws go test -run '^$' -bench 'BenchmarkCopyTradeLatency/copiers=1$' -benchtime 20x ./cmd/ats/e2e/
func BenchmarkCopyTradeLatency(b *testing.B) {
	many := 1000
	if v, err := strconv.Atoi(os.Getenv("ATS_BENCH_COPIERS")); err == nil && v > 0 {
		many = v
	}
	for _, n := range []int{1, many} {
		b.Run(fmt.Sprintf("copiers=%d", n), func(b *testing.B) { benchCopy(b, n) })
	}
}

func benchCopy(b *testing.B, n int) {
	// As `ats dev` and `ats worker` run: the placements a strategy's
	// execution makes start their order workflows eagerly, and the dev
	// server's SQLite is in WAL mode (DevTemporalPragmas).
	o := tradingOpts{eager: true, devPragmas: app.DevTemporalPragmas, databaseURL: benchDatabaseURL(b), sandboxProcess: true}
	rpc := os.Getenv("ATS_BENCH_COPY_RPC")
	switch rpc {
	case "":
	case "ws", "http":
		o.noWorker = true
	default:
		b.Fatalf("ATS_BENCH_COPY_RPC=%s: want ws or http", rpc)
	}
	e := newTradingEnv(b, o)
	ctx := context.Background()
	m := e.newMarket(b, fmt.Sprintf("Will %d copies be fast", n), "0.5")
	yes := m.TokenIDs[0]
	// Warm the outside wallet up; it is the target.
	var warmed struct {
		Address string `json:"address"`
	}
	e.control(b, "/control/trades", fmt.Sprintf(`{"tokenId":%q,"side":"BUY","size":5,"price":0.6}`, yes), &warmed)
	target := warmed.Address
	writes := countWrites(b, e.store.DB())

	// n copiers: users of 10 agents of 10 strategies each.
	cfg := json.RawMessage(`{"targetAddress":"` + target + `","sizingMode":"fixed","fixedAmount":3,"copySells":false}`)
	ids := e.createStrategies(b, n, strategies.TypeCopyTrade, cfg, decimal.NewFromInt(1000))
	warm := 0
	var worker *workerProcess
	if rpc != "" {
		// The worker follows every ACTIVE copier as it starts; the first
		// trade's copies show it is listening.
		url := e.sandboxURL() + "/rpc"
		if rpc == "ws" {
			url = "ws" + strings.TrimPrefix(e.sandboxURL(), "http") + "/rpc/ws"
		}
		worker = e.startWorkerProcess(b, buildATS(b), "--chain-rpc", url)
		warm = 1
	} else {
		// Every copier's workflow has loaded (and so followed the target).
		for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
			if _, c := e.copies.Watching(); c >= n {
				break
			}
			if time.Now().After(deadline) {
				b.Fatal("the copiers never all followed the target")
			}
		}
	}

	// When each block reached a subscriber of the node.
	heads := make(chan *types.Header, 4096)
	sub, err := e.vc.Chain.Backend().SubscribeNewHead(ctx, heads)
	if err != nil {
		b.Fatal(err)
	}
	defer sub.Unsubscribe()
	var amu sync.Mutex
	arrived := map[uint64]time.Time{}
	go func() {
		for h := range heads {
			t := time.Now()
			amu.Lock()
			arrived[h.Number.Uint64()] = t
			amu.Unlock()
		}
	}()

	lat, rec, started := make([]time.Duration, 0, b.N*n), make([]time.Duration, 0, b.N*n), make([]time.Duration, 0, b.N*n)
	total := 0
	// What the copies cost, read around the timed part: CPU of the
	// service's processes (this one — API, worker, copy watchers, and the
	// benchmark's own polling — and the `ats worker` when one runs) and of
	// the Temporal dev server, the sandbox being its own process; database
	// writes; history events of the copiers' and their orders' workflows.
	strategyWIDs := make([]string, len(ids))
	for i, id := range ids {
		strategyWIDs[i] = workflows.WorkflowID(workflows.KindStrategy, id)
	}
	var c0 fanoutCounters
	var events0 int64
	var ordersBefore map[string]bool
	b.ResetTimer()
	for i := range b.N + warm {
		if i == warm {
			b.StopTimer()
			ordersBefore = e.strategiesOrderIDs(b, ids)
			events0 = e.historyLength(b, strategyWIDs)
			c0 = e.readCounters(b, writes, worker)
			b.StartTimer()
		}
		e.outsideTrade(b, yes, "BUY", "10", "0.6")
		// Wait until every copier's copy i+1 was answered by the venue.
		var block int64
		answered, recordedAt, placedAt := map[string]time.Time{}, map[string]time.Time{}, map[string]time.Time{}
		// The latencies are the rows' times: polling seldom keeps the
		// poll's own queries (counted as the service's CPU) small.
		for deadline := time.Now().Add(5 * time.Minute); len(answered) < n; time.Sleep(250 * time.Millisecond) {
			var rows []struct {
				StrategyID string
				Block      int64
				Status     string
				UpdatedAt  time.Time
				CreatedAt  time.Time
				PlacedAt   time.Time
			}
			err := e.store.DB().Raw(`SELECT c.strategy_id, c.block, c.created_at, o.status, o.updated_at, o.created_at AS placed_at FROM copy_trades c
				JOIN orders o ON o.idempotency_key = 'copy:' || c.strategy_id || ':' || c.tx_hash || ':' || c.log_index AND o.agent_id IN (SELECT agent_id FROM strategies WHERE id = c.strategy_id)
				WHERE c.kind = 'trade' AND c.seq = ? AND o.status <> 'PENDING'`, i+1).Scan(&rows).Error
			if err != nil {
				b.Fatal(err)
			}
			for _, r := range rows {
				answered[r.StrategyID], block = r.UpdatedAt, r.Block
				recordedAt[r.StrategyID], placedAt[r.StrategyID] = r.CreatedAt, r.PlacedAt
			}
			if time.Now().After(deadline) {
				b.Logf("trade %d: %d of %d copies answered after 5 minutes", i+1, len(answered), n)
				break
			}
		}
		if len(answered) == 0 {
			b.Fatalf("trade %d: no copy answered", i+1)
		}
		if i < warm {
			continue
		}
		total += n
		amu.Lock()
		t0, ok := arrived[uint64(block)]
		amu.Unlock()
		if !ok {
			b.Fatalf("block %d never reached the head subscriber", block)
		}
		for id, t := range answered {
			lat = append(lat, t.Sub(t0))
			rec = append(rec, recordedAt[id].Sub(t0))
			started = append(started, placedAt[id].Sub(t0))
		}
	}
	b.StopTimer()
	c1 := e.readCounters(b, writes, worker)
	var orderWIDs []string
	for id := range e.strategiesOrderIDs(b, ids) {
		if !ordersBefore[id] {
			orderWIDs = append(orderWIDs, workflows.WorkflowID(workflows.KindOrder, id))
		}
	}
	events := e.historyLength(b, strategyWIDs) - events0 + e.historyLength(b, orderWIDs)
	reportFanout(b, "copy", c0, c1, events, total, e.databaseURL != "")
	// Every copy placed at most once (one order per copier and trade);
	// those not placed within the bound show in placed-pct.
	b.ReportMetric(100*float64(len(orderWIDs))/float64(total), "placed-pct")
	if len(orderWIDs) > total {
		b.Errorf("%d orders for %d copies", len(orderWIDs), total)
	}
	// How much of it is the watcher's: block available → trade recorded.
	sort.Slice(rec, func(i, j int) bool { return rec[i] < rec[j] })
	b.ReportMetric(float64(rec[len(rec)/2].Microseconds())/1000, "recorded-p50-ms")
	// And when the order path took the copy (its order row persisted,
	// before it is signed and posted): the rest is the placement.
	sort.Slice(started, func(i, j int) bool { return started[i] < started[j] })
	b.ReportMetric(float64(started[len(started)/2].Microseconds())/1000, "order-persisted-p50-ms")
	b.ReportMetric(float64(started[len(started)*95/100].Microseconds())/1000, "order-persisted-p95-ms")
	b.ReportMetric(100*float64(len(lat))/float64(total), "answered-pct")
	reportQuantiles(b, lat)
}

// benchDatabaseURL is a fresh PostgreSQL database for a benchmark when
// ATS_BENCH_POSTGRES is set (and ATS_TEST_DATABASE_URL names a server),
// else "" (SQLite, as `ats dev` runs).
func benchDatabaseURL(b *testing.B) string {
	if os.Getenv("ATS_BENCH_POSTGRES") == "" {
		return ""
	}
	return storetest.CreateDatabase(b, pgBaseURL(b))
}

// strategiesOrderIDs is the set of the ids of the orders the strategies
// ids placed.
func (e *tradingEnv) strategiesOrderIDs(t testing.TB, ids []string) map[string]bool {
	t.Helper()
	var rows []string
	if err := e.store.DB().Raw(`SELECT id FROM orders WHERE strategy_id IN ?`, ids).Scan(&rows).Error; err != nil {
		t.Fatal(err)
	}
	out := make(map[string]bool, len(rows))
	for _, id := range rows {
		out[id] = true
	}
	return out
}

// createStrategies creates n strategies of typ with cfg and maxBudget for
// users of 10 agents of 10 strategies each (an agent holds at most 10
// non-final strategies; each user's demo wallet funds 100) through the
// strategy desk, as the API does, and returns their ids.
func (e *tradingEnv) createStrategies(b *testing.B, n int, typ string, cfg json.RawMessage, maxBudget decimal.Decimal) []string {
	b.Helper()
	ctx := context.Background()
	var ids []string
	var mu sync.Mutex
	var wg sync.WaitGroup
	for made := 0; made < n; {
		tr := e.newTrader(b, 0)
		for a := 0; a < 10 && made < n; a++ {
			agentID := tr.agentID
			if a > 0 {
				_, hash, prefix := secret.NewAPIKey()
				ag := &models.Agent{UserID: tr.userID, Name: fmt.Sprintf("agent-%d", a), Scopes: "read trade", RateLimitPerMinute: 100_000}
				if err := e.store.CreateAgentWithKey(ctx, ag, &models.APIKey{Hash: hash, DisplayPrefix: prefix}); err != nil {
					b.Fatal(err)
				}
				agentID = ag.ID
			}
			k := min(10, n-made)
			made += k
			wg.Add(1)
			go func(userID, agentID string, k int) {
				defer wg.Done()
				for range k {
					st, err := e.svc.StrategyDesk.Create(ctx, strategies.Actor{By: strategies.ByAgent, AgentID: agentID, UserID: userID},
						strategies.CreateRequest{Type: typ, Config: cfg, MaxBudget: strategies.D(maxBudget)})
					if err != nil {
						b.Error(err)
						return
					}
					mu.Lock()
					ids = append(ids, st.ID)
					mu.Unlock()
				}
			}(tr.userID, agentID, k)
		}
		wg.Wait()
	}
	if b.Failed() {
		b.FailNow()
	}
	return ids
}
