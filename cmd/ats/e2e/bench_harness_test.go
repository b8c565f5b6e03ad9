package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"
	"gorm.io/gorm"
)

// startSandboxProcess runs `ats sandbox` (the binary bin) as its own
// process, in memory, with the env's seed and block time, and returns its
// base URL once it listens: a benchmark then counts the sandbox's matching
// and EVM settlement against that process, not against the service's.
func startSandboxProcess(t testing.TB, bin string) (string, *workerProcess) {
	t.Helper()
	sp := &workerProcess{args: []string{bin, "sandbox", "--sandbox-addr", "127.0.0.1:0", "--data-dir", "",
		"--seed", "7", "--block-interval", "100ms", "--log-level", "warn"}}
	if err := sp.start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sp.kill()
		if t.Failed() {
			t.Logf("sandbox logs:\n%s", sp.logs.String())
		}
	})
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		for _, l := range strings.Split(sp.logs.String(), "\n") {
			if u, ok := strings.CutPrefix(l, "listening sandbox "); ok {
				return strings.TrimSpace(u), sp
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the sandbox process never listened:\n%s", sp.logs.String())
		}
	}
}

// sandboxURL is the base URL of the env's sandbox, in process or not.
func (e *tradingEnv) sandboxURL() string {
	if e.sb != nil {
		return e.sb.URL()
	}
	return e.sbURL
}

// httpFunder funds a wallet through a sandbox's control API (POST
// /control/wallets/{address}/fund): the wallets.Funder of a sandbox in
// another process.
type httpFunder struct{ base string }

func (f httpFunder) Fund(ctx context.Context, addr common.Address, collateralMicro *big.Int, nativeWei *big.Int) error {
	body := map[string]any{"usdc": decimal.Zero}
	if collateralMicro != nil {
		body["usdc"] = decimal.NewFromBigInt(collateralMicro, -6)
	}
	if nativeWei != nil {
		body["native"] = decimal.NewFromBigInt(nativeWei, -18)
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", f.base+"/control/wallets/"+addr.Hex()+"/fund", bytes.NewReader(raw))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("fund %s: %d %s", addr.Hex(), resp.StatusCode, msg)
	}
	return nil
}

// writeCounter counts the statements that write to the env's store from
// this process (GORM creates, updates, deletes and raw Exec statements):
// a benchmark's database writes per copy on SQLite, where no server
// keeps statistics. On PostgreSQL pgWrites counts every process's.
type writeCounter struct{ n atomic.Int64 }

func countWrites(t testing.TB, db *gorm.DB) *writeCounter {
	t.Helper()
	c := &writeCounter{}
	inc := func(*gorm.DB) { c.n.Add(1) }
	cb := db.Callback()
	for _, err := range []error{
		cb.Create().After("gorm:create").Register("bench:count_create", inc),
		cb.Update().After("gorm:update").Register("bench:count_update", inc),
		cb.Delete().After("gorm:delete").Register("bench:count_delete", inc),
		cb.Raw().After("gorm:raw").Register("bench:count_raw", inc),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// pgWrites is PostgreSQL's count of the committed transactions and of
// the rows inserted, updated and deleted in the database url names.
func pgWrites(t testing.TB, db *gorm.DB) (commits, rows int64) {
	t.Helper()
	var r struct{ Commits, Rows int64 }
	if err := db.Raw(`SELECT xact_commit AS commits, tup_inserted + tup_updated + tup_deleted AS rows
		FROM pg_stat_database WHERE datname = current_database()`).Scan(&r).Error; err != nil {
		t.Fatal(err)
	}
	return r.Commits, r.Rows
}

// historyLength sums the history lengths of the workflows ids (their
// latest runs), read with DescribeWorkflowExecution by a few readers: a
// workflow not found counts 0.
func (e *tradingEnv) historyLength(t testing.TB, ids []string) int64 {
	t.Helper()
	var total atomic.Int64
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(ids) {
					return
				}
				d, err := e.tc.DescribeWorkflowExecution(context.Background(), ids[i], "")
				if err != nil {
					continue
				}
				total.Add(d.GetWorkflowExecutionInfo().GetHistoryLength())
			}
		}()
	}
	wg.Wait()
	return total.Load()
}

// fanoutCounters are what a fan-out benchmark reads before and after its
// timed part: CPU of the service's processes (this one, plus an `ats
// worker` when one runs) and of the Temporal dev server, database writes.
type fanoutCounters struct {
	atsCPU, temporalCPU time.Duration
	writes              int64 // statements of this process (SQLite) or rows (PostgreSQL)
	commits             int64 // PostgreSQL only
}

func (e *tradingEnv) readCounters(t testing.TB, w *writeCounter, worker *workerProcess) fanoutCounters {
	t.Helper()
	var c fanoutCounters
	c.atsCPU, _ = procStat(t, os.Getpid())
	if worker != nil {
		wc, _ := procStat(t, worker.pid())
		c.atsCPU += wc
	}
	if e.dev != nil {
		c.temporalCPU, _ = procStat(t, e.dev.Pid())
	}
	if e.databaseURL != "" {
		// PostgreSQL flushes its statistics at most once a second.
		time.Sleep(1500 * time.Millisecond)
		c.commits, c.writes = pgWrites(t, e.store.DB())
	} else {
		c.writes = w.n.Load()
	}
	return c
}

// reportFanout reports the counters between c0 and c1 per unit ("copy",
// "order") over n of them, the history events of the workflows concerned
// (events, summed over them, written between the two reads) and the load
// average.
func reportFanout(b *testing.B, unit string, c0, c1 fanoutCounters, events int64, n int, pg bool) {
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(n) }
	b.ReportMetric(per(c1.atsCPU-c0.atsCPU), "ats-cpu-ms/"+unit)
	b.ReportMetric(per(c1.temporalCPU-c0.temporalCPU), "temporal-cpu-ms/"+unit)
	b.ReportMetric(per(c1.atsCPU-c0.atsCPU+c1.temporalCPU-c0.temporalCPU), "cpu-ms/"+unit)
	b.ReportMetric(float64(events)/float64(n), "history-events/"+unit)
	if pg {
		b.ReportMetric(float64(c1.writes-c0.writes)/float64(n), "pg-rows-written/"+unit)
		b.ReportMetric(float64(c1.commits-c0.commits)/float64(n), "pg-commits/"+unit)
	} else {
		b.ReportMetric(float64(c1.writes-c0.writes)/float64(n), "db-writes/"+unit)
	}
	if avg, err := loadAverage(); err == nil {
		b.ReportMetric(avg, "loadavg")
	}
}
