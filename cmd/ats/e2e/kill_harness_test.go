package e2e

import (
	"math/rand/v2"
	"testing"
	"time"
)

// killEnv is the shared prologue of the SIGKILL tests that kill a
// separate `ats worker` (orders, strategies, copies): a trading
// environment without an in-process worker (placements answer after 3 s
// at most, so an order whose worker is dead answers PENDING), one trader,
// one market and the worker process, started.
type killEnv struct {
	e      *tradingEnv
	tr     trader
	market sandboxMarket
	worker *workerProcess
}

// newKillEnv starts a killEnv whose market asks question at price 0.5;
// before(e, market) runs after the market is made and before the worker starts
// (nil: nothing).
func newKillEnv(t *testing.T, question string, before func(e *tradingEnv, m sandboxMarket)) *killEnv {
	t.Helper()
	if testing.Short() {
		t.Skip("starts the sandbox, Temporal and worker processes")
	}
	bin := buildATS(t)
	e := newTradingEnv(t, tradingOpts{noWorker: true, placeTimeout: 3 * time.Second})
	k := &killEnv{e: e, tr: e.newTrader(t, 0), market: e.newMarket(t, question, "0.5")}
	if before != nil {
		before(e, k.market)
	}
	k.worker = e.startWorkerProcess(t, bin)
	return k
}

// killer kills a process with SIGKILL at random moments and starts it
// again until it is stopped.
type killer struct {
	t    testing.TB
	what string
	stop chan struct{}
	done chan int
}

// killPace is when a killer strikes: every Every plus up to Jitter, the
// process staying down up to Down before it is restarted.
type killPace struct {
	Every, Jitter, Down time.Duration
}

// startKiller runs kill, then restart, at pace's random moments (seeded
// with seed and the clock) until stop; what names the process in the
// log. A restart that fails fails the test.
func startKiller(t testing.TB, what string, seed uint64, pace killPace, kill func(), restart func() error) *killer {
	k := &killer{t: t, what: what, stop: make(chan struct{}), done: make(chan int)}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), seed))
	go func() {
		kills := 0
		for {
			select {
			case <-k.stop:
				k.done <- kills
				return
			case <-time.After(pace.Every + time.Duration(rng.Int64N(int64(pace.Jitter)))):
			}
			kill()
			kills++
			if pace.Down > 0 {
				time.Sleep(time.Duration(rng.Int64N(int64(pace.Down))))
			}
			if err := restart(); err != nil {
				t.Error(err)
			}
		}
	}()
	return k
}

// killWorker is startKiller on the env's worker process.
func (k *killEnv) killWorker(t testing.TB, seed uint64, pace killPace) *killer {
	return startKiller(t, "worker", seed, pace, k.worker.kill, k.worker.start)
}

// finish stops the killer, logs how often it struck (while doing), and
// fails the test when it never did: the test then proved nothing.
func (k *killer) finish(doing string) int {
	close(k.stop)
	kills := <-k.done
	k.t.Logf("%s killed %d times %s", k.what, kills, doing)
	if kills == 0 {
		k.t.Fatalf("the %s was never killed: the test proved nothing", k.what)
	}
	return kills
}
