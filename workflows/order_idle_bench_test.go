package workflows_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models/intent/intenttest"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/worker"
	"github.com/agent-trading/ats/worker/devserver"
	"github.com/agent-trading/ats/worker/devserver/devservertest"
	"github.com/agent-trading/ats/worker/replaytest"
	"github.com/agent-trading/ats/workflows"
)

// restingVenue is a venue where every order rests untouched: Submit
// places it OPEN, Sync finds nothing new. It counts the syncs.
type restingVenue struct{ submits, syncs atomic.Int64 }

func (v *restingVenue) Submit(_ context.Context, id string) (orders.Order, error) {
	v.submits.Add(1)
	return orders.Order{ID: id, Status: "OPEN"}, nil
}

func (v *restingVenue) Sync(_ context.Context, id string) (orders.Order, error) {
	v.syncs.Add(1)
	return orders.Order{ID: id, Status: "OPEN"}, nil
}

func (v *restingVenue) CancelAtVenue(context.Context, string) (string, orders.Order, error) {
	return "", orders.Order{}, fmt.Errorf("not in this benchmark")
}

func (v *restingVenue) CancelPending(context.Context, string) (string, orders.Order, error) {
	return "", orders.Order{}, fmt.Errorf("not in this benchmark")
}

func (v *restingVenue) Abandon(context.Context, string) (orders.Order, error) {
	return orders.Order{}, fmt.Errorf("not in this benchmark")
}

// cpuTicks is the user+system CPU of process pid in clock ticks (1/100 s).
func cpuTicks(pid int) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(raw)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // fields from 3 on
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return ut + st
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// BenchmarkIdleOrders measures what resting orders cost while nothing
// happens to them: ATS_IDLE_ORDERS (1000) order workflows are placed on a
// Temporal dev server (in memory) against a venue where they rest
// untouched; after a settling time (40 s, past the polling version's
// back-off to its 30 s ceiling) it counts, over ATS_IDLE_WINDOW seconds
// (60), the venue reads (SyncOrder activities), the history events of a
// sample of 50 workflows (extrapolated to all), and the CPU of the worker
// process (this test: worker and fake activities) and of the dev server.
//
//	ATS_IDLE_ORDERS=1000 go test -run '^$' -bench BenchmarkIdleOrders -benchtime 1x -timeout 30m ./workflows/
func BenchmarkIdleOrders(b *testing.B) {
	n, window := envInt("ATS_IDLE_ORDERS", 1000), time.Duration(envInt("ATS_IDLE_WINDOW", 60))*time.Second
	bin := devservertest.Binary(b)
	ctx := context.Background()
	srv, err := devserver.Start(ctx, devserver.Options{Binary: bin, UIPort: -1, LogLevel: "error"})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = srv.Stop() }()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	c, err := worker.Dial(ctx, worker.ClientConfig{HostPort: srv.FrontendAddr(), CodecKey: replaytest.HistoryCodecKey, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	v := &restingVenue{}
	w := sdkworker.New(c, workflows.OrderTaskQueue, sdkworker.Options{})
	workflows.Register(w)
	w.RegisterActivity(&activities.Orders{Steps: v, Intents: intenttest.Keys(b)})
	if err := w.Start(); err != nil {
		b.Fatal(err)
	}
	defer w.Stop()

	oc := workflows.OrderDeskClient{Client: c, Intents: intenttest.Keys(b)}
	ids := make(chan string)
	var wg sync.WaitGroup
	t0 := time.Now()
	for range 16 {
		wg.Go(func() {
			for id := range ids {
				if err := oc.Resume(ctx, id, "usr_1", "agt_1", "123", "live"); err != nil {
					b.Error(err)
				}
			}
		})
	}
	for i := range n {
		ids <- fmt.Sprintf("ord_idle_%05d", i)
	}
	close(ids)
	wg.Wait()
	for v.submits.Load() < int64(n) {
		time.Sleep(100 * time.Millisecond)
	}
	b.Logf("%d orders placed in %v", n, time.Since(t0).Round(time.Second))
	time.Sleep(40 * time.Second)

	sample := make([]string, 50)
	for i := range sample {
		sample[i] = workflows.WorkflowID(workflows.KindOrder, fmt.Sprintf("ord_idle_%05d", rand.IntN(n)))
	}
	events := func() (total int64) {
		for _, id := range sample {
			it := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			for it.HasNext() {
				if _, err := it.Next(); err != nil {
					b.Fatal(err)
				}
				total++
			}
		}
		return total
	}
	var ru0, ru1 syscall.Rusage
	ev0, syncs0, srv0 := events(), v.syncs.Load(), cpuTicks(srv.Pid())
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	b.ResetTimer()
	time.Sleep(window)
	b.StopTimer()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	ev1, syncs1, srv1 := events(), v.syncs.Load(), cpuTicks(srv.Pid())
	perMin := float64(time.Minute) / float64(window)
	cpu := func(r syscall.Rusage) time.Duration {
		return time.Duration(r.Utime.Nano() + r.Stime.Nano())
	}
	workerCPU := cpu(ru1) - cpu(ru0)
	b.ReportMetric(float64(syncs1-syncs0)*perMin, "venue-reads/min")
	b.ReportMetric(float64(ev1-ev0)/float64(len(sample))*float64(n)*perMin, "history-events/min")
	b.ReportMetric(workerCPU.Seconds()/window.Seconds()*100, "worker-cpu-%")
	b.ReportMetric(float64(srv1-srv0)/100/window.Seconds()*100, "devserver-cpu-%")
}
