package e2e

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/sandbox/exchange"
)

// TestConcurrentOrdersAgainstTheBudget sends 200 concurrent POST /orders
// for an agent whose budget fits exactly 50 of them: exactly 50 are
// placed, the other 150 are refused with budget_exceeded, and the budget
// holds exactly what the 50 resting orders need.
func TestConcurrentOrdersAgainstTheBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the sandbox and Temporal")
	}
	e := newTradingEnv(t, tradingOpts{})
	tr := e.newTrader(t, 100) // 100 USDC = 50 orders of 10 shares at 0.20
	m := e.newMarket(t, "Will two hundred agents fit", "0.5")

	const n = 200
	type result struct {
		status int
		code   string
		order  apiOrder
	}
	results := make([]result, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			status, body := e.call(t, tr.key, "POST", "/orders", map[string]any{"tokenId": m.TokenIDs[0], "side": "BUY", "price": 0.2, "size": 10})
			r := result{status: status, code: strings.Trim(string(body["code"]), `"`)}
			if status == http.StatusOK || status == http.StatusAccepted {
				r.order = dataOrder(t, body)
			}
			results[i] = r
		}()
	}
	close(start)
	wg.Wait()

	// A placement whose result takes longer than the API waits is
	// answered 202 (PENDING) and completes in the background: wait for it.
	ctx := context.Background()
	for i := range results {
		r := &results[i]
		if r.status != http.StatusAccepted {
			continue
		}
		deadline := time.Now().Add(time.Minute)
		for {
			o, err := e.store.OrderByID(ctx, r.order.ID)
			if err != nil {
				t.Fatal(err)
			}
			if o.Status != models.OrderPending {
				r.status, r.order.Status = http.StatusOK, o.Status
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("order %s still PENDING a minute after it was accepted", o.ID)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	placed, refused := 0, 0
	for i, r := range results {
		switch {
		case r.status == http.StatusOK && r.order.Status == models.OrderOpen:
			placed++
		case r.status == http.StatusConflict && r.code == "budget_exceeded":
			refused++
		default:
			t.Errorf("request %d: %d %q %+v", i, r.status, r.code, r.order)
		}
	}
	if placed != 50 || refused != 150 {
		t.Fatalf("placed %d, refused %d; want 50 and 150", placed, refused)
	}
	totals, err := e.store.BudgetTotals(ctx, tr.userID, tr.agentID)
	if err != nil {
		t.Fatal(err)
	}
	if totals.AgentHeldMicro != 100*models.MicroPerUnit {
		t.Fatalf("held %d micro-USDC, want 100 USDC", totals.AgentHeldMicro)
	}
	live := e.sb.Venue().Engine().Orders(exchange.OrderFilter{Maker: common.HexToAddress(tr.wallet.Address), LiveOnly: true})
	if len(live) != 50 {
		t.Fatalf("%d live orders on the venue, want 50", len(live))
	}
}

// TestWorkerKilledWhilePlacingOrders places 50 orders while a separate
// `ats worker` process is killed with SIGKILL at random moments and
// restarted. Afterwards every order is in a terminal or open state that
// matches the venue, no order was posted twice, and the budget adds up.
func TestWorkerKilledWhilePlacingOrders(t *testing.T) {
	k := newKillEnv(t, "Will the worker survive", nil)
	e, tr, m := k.e, k.tr, k.market
	// The killer: SIGKILL at random moments while orders are placed.
	kl := k.killWorker(t, 7, killPace{Every: 200 * time.Millisecond, Jitter: 1200 * time.Millisecond, Down: 500 * time.Millisecond})

	const n = 50
	var wg sync.WaitGroup
	ids := make([]string, n)
	sem := make(chan struct{}, 8)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			body := map[string]any{"tokenId": m.TokenIDs[0], "side": "BUY", "price": 0.2, "size": 5}
			if i%3 == 0 { // a third take liquidity and fill at once
				body = map[string]any{"tokenId": m.TokenIDs[0], "side": "BUY", "price": 0.6, "size": 2, "type": "MARKET"}
			}
			status, resp := e.call(t, tr.key, "POST", "/orders", body, "Idempotency-Key", fmt.Sprintf("kill-%d", i))
			if status != http.StatusOK && status != http.StatusAccepted {
				t.Errorf("order %d: %d %s", i, status, resp)
				return
			}
			ids[i] = dataOrder(t, resp).ID
		}()
	}
	wg.Wait()
	kl.finish(fmt.Sprintf("while placing %d orders", n))

	// With a healthy worker every order settles into a non-PENDING state.
	ctx := context.Background()
	deadline := time.Now().Add(3 * time.Minute)
	var rows []models.Order
	for {
		var err error
		rows, err = e.store.ListOrders(ctx, store.OrderFilter{AgentID: tr.agentID, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		pending := 0
		for _, o := range rows {
			if o.Status == models.OrderPending {
				pending++
			}
		}
		if pending == 0 && len(rows) == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d orders still PENDING after the worker came back", pending, len(rows))
		}
		time.Sleep(500 * time.Millisecond)
	}

	checkOrdersAgainstTheVenue(t, e, tr, rows, n)
}

// checkOrdersAgainstTheVenue checks that every order of rows (all of tr's)
// matches the venue, that no venue order exists twice or without a service
// order, that few of n failed otherwise than by the market's answer, and
// that the budget adds up.
func checkOrdersAgainstTheVenue(t *testing.T, e *tradingEnv, tr trader, rows []models.Order, n int) {
	t.Helper()
	ctx := context.Background()
	engine := e.sb.Venue().Engine()
	venueOrders := engine.Orders(exchange.OrderFilter{Maker: common.HexToAddress(tr.wallet.Address)})
	byHash := map[string]exchange.OrderView{}
	for _, v := range venueOrders {
		byHash[strings.ToLower(v.ID)] = v
	}
	seen := map[string]bool{}
	var usedMicro, heldMicro int64
	for _, o := range rows {
		if o.VenueOrderID == "" {
			if o.Status != models.OrderFailed {
				t.Errorf("order %s is %s without a venue order", o.ID, o.Status)
			}
			continue
		}
		h := strings.ToLower(o.VenueOrderID)
		if seen[h] {
			t.Errorf("venue order %s belongs to two service orders", h)
		}
		seen[h] = true
		v, ok := byHash[h]
		switch {
		case !ok && o.Status == models.OrderFailed:
		case !ok:
			t.Errorf("order %s is %s but the venue does not know %s", o.ID, o.Status, h)
		default:
			want := map[exchange.Status]string{exchange.StatusLive: models.OrderOpen, exchange.StatusMatched: models.OrderFilled}[v.Status]
			if v.Status == exchange.StatusLive && o.FilledSizeMicro > 0 {
				want = models.OrderPartiallyFilled
			}
			if o.Status != want {
				t.Errorf("order %s is %s, the venue says %s", o.ID, o.Status, v.Status)
			}
			if int64(v.MatchedMicro) != o.FilledSizeMicro {
				t.Errorf("order %s filled %d, the venue says %d", o.ID, o.FilledSizeMicro, v.MatchedMicro)
			}
		}
		fills, err := e.store.ListFills(ctx, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		var notional int64
		for _, f := range fills {
			notional += f.PriceMicro * f.SizeMicro / models.MicroPerUnit
		}
		usedMicro += notional
		if !orderTerminal(o.Status) {
			heldMicro += o.PriceMicro*o.SizeMicro/models.MicroPerUnit - notional
		}
	}
	for h := range byHash {
		if !seen[h] {
			t.Errorf("the venue holds order %s that no service order knows: it was posted twice or lost", h)
		}
	}
	failed := 0
	for _, o := range rows {
		if o.Status == models.OrderFailed {
			t.Logf("order %s failed: %s", o.ID, o.FailureReason)
			// A FOK the book could not fill (50 buys outrun the market
			// makers' 2 s re-quote) is the market's answer, not a lost post.
			if !strings.Contains(o.FailureReason, "FOK orders are fully filled or killed") {
				failed++
			}
		}
	}
	if failed > n/5 {
		t.Errorf("%d of %d orders failed", failed, n)
	}
	totals, err := e.store.BudgetTotals(ctx, tr.userID, tr.agentID)
	if err != nil {
		t.Fatal(err)
	}
	if diff(totals.AgentUsedMicro, usedMicro) > int64(len(rows)) || totals.AgentHeldMicro != heldMicro {
		t.Errorf("budget: used %d held %d; the orders say used %d held %d", totals.AgentUsedMicro, totals.AgentHeldMicro, usedMicro, heldMicro)
	}
}

func orderTerminal(s string) bool {
	return s == models.OrderFilled || s == models.OrderCancelled || s == models.OrderFailed
}

func diff(a, b int64) int64 {
	if a > b {
		return a - b
	}
	return b - a
}

// workerProcess is a separate `ats worker` process of e, started and
// killed on demand (one at a time); its logs are shown when the test
// fails.
type workerProcess struct {
	args []string
	mu   sync.Mutex
	cmd  *exec.Cmd
	logs syncBuffer
}

// startWorkerProcess writes e's master key to a file and starts an
// `ats worker` (the binary bin) on e's database, Temporal and sandbox,
// with extra flags.
func (e *tradingEnv) startWorkerProcess(t testing.TB, bin string, extra ...string) *workerProcess {
	t.Helper()
	keyFile := filepath.Join(e.dataDir, "master.key")
	if err := os.WriteFile(keyFile, []byte(base64.StdEncoding.EncodeToString(e.master)), 0o600); err != nil {
		t.Fatal(err)
	}
	wp := &workerProcess{args: []string{"worker", "--data-dir", e.dataDir, "--venue", "sandbox", "--ops-listen", "127.0.0.1:0",
		"--sandbox-addr", strings.TrimPrefix(e.sandboxURL(), "http://"), "--master-key-file", keyFile, "--log-level", "warn"}}
	if e.databaseURL != "" {
		wp.args = append(wp.args, "--database-url", e.databaseURL)
	}
	wp.args = append(append(wp.args, e.temporalFlags()...), extra...)
	wp.args = append([]string{bin}, wp.args...)
	if err := wp.start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		wp.kill()
		if t.Failed() {
			t.Logf("worker logs:\n%s", wp.logs.String())
		}
	})
	return wp
}

func (w *workerProcess) start() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	cmd := exec.Command(w.args[0], w.args[1:]...)
	cmd.Stdout, cmd.Stderr = &w.logs, &w.logs
	if err := cmd.Start(); err != nil {
		return err
	}
	w.cmd = cmd
	return nil
}

// kill sends SIGKILL and waits for the process to end.
func (w *workerProcess) kill() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cmd != nil {
		_ = w.cmd.Process.Signal(syscall.SIGKILL)
		_, _ = w.cmd.Process.Wait()
		w.cmd = nil
	}
}

func (w *workerProcess) pid() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cmd.Process.Pid
}
