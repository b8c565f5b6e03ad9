package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/sandbox/exchange"
	"github.com/agent-trading/ats/workflows"
)

// faultsWhileTrading runs orders and strategies through both APIs of c
// (a Temporal cluster) while it SIGKILLs one history process, then the
// matching process, then a worker, each started again after a while;
// then it kills the whole Temporal cluster with the orders resting and
// starts it again. Afterwards every order and strategy is where it must
// be: every order a client was answered for exists, once, and rests on the
// venue (or was cancelled after the restart, through its workflow); every
// strategy fired exactly once and completed; nothing was posted twice;
// the Web UI's search attributes (visibility queries) still find every
// strategy.
func faultsWhileTrading(t *testing.T, c *cluster) {
	e, tcl := c.e, c.e.cluster
	ctx := context.Background()
	tr := e.newTrader(t, 0)
	m := e.newMarket(t, "Will the cluster outlive its faults", "0.5")
	yes := m.TokenIDs[0]
	// The strategies belong to four agents of the user (an agent runs at
	// most 10 at a time).
	ld := &tradingLoad{c: c, key: tr.key, token: yes}
	for range 4 {
		k, _ := e.secondAgent(t, tr, "read trade")
		ld.strategyKeys = append(ld.strategyKeys, k)
	}
	stop := ld.run()

	pause := func(d time.Duration) {
		time.Sleep(d)
		if err := ld.failure(); err != nil {
			t.Fatal(err)
		}
	}
	pause(5 * time.Second)
	for _, f := range []struct {
		what    string
		kill    func()
		restart func()
		down    time.Duration
	}{
		{"history-1", func() { tcl.Kill("history-1") }, func() { tcl.Start("history-1") }, 10 * time.Second},
		{"matching", func() { tcl.Kill("matching") }, func() { tcl.Start("matching") }, 5 * time.Second},
		{"a worker", func() { c.workers[1].kill() }, func() { c.workers[1] = c.start("worker") }, 5 * time.Second},
	} {
		n := ld.answered()
		t.Logf("SIGKILL %s (%d orders and strategies answered so far)", f.what, n)
		f.kill()
		pause(f.down)
		f.restart()
		pause(5 * time.Second)
		if ld.answered() <= n {
			t.Fatalf("no order or strategy was answered since %s was killed", f.what)
		}
	}
	stop()
	if err := ld.failure(); err != nil {
		t.Fatal(err)
	}
	orders, strats := ld.results()
	t.Logf("%d orders and %d strategies placed through the faults", len(orders), len(strats))
	// 202s are placed in the background; every order comes to rest.
	awaitOrders(t, e, orders)

	// The whole cluster goes down with the orders resting, and comes back.
	t.Logf("SIGKILL of every Temporal process")
	tcl.KillAll()
	time.Sleep(2 * time.Second)
	tcl.StartAll()
	var after []string
	for i := range 6 {
		id, err := ld.placeOrder(i, fmt.Sprintf("after-restart-%d", i))
		if err != nil {
			t.Fatal(err)
		}
		after = append(after, id)
	}
	awaitOrders(t, e, after)
	// Half the orders that rested through the restart are cancelled: their
	// workflows survived it.
	cancelled := orders[:len(orders)/2]
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, id := range cancelled {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(500 * time.Millisecond) {
				status, b, err := c.try(i, tr.key, "DELETE", "/orders/"+id, nil)
				if err == nil && status == http.StatusOK {
					return
				}
				if err == nil && status < 500 && status != http.StatusTooManyRequests || time.Now().After(deadline) {
					t.Errorf("cancel %s: %d %s %v", id, status, b, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	// Every alert, armed before or during the faults, fires once.
	e.setPrice(t, yes, "0.3")
	e.awaitStoredCompleted(t, strats)

	t.Run("every order where it must be, once", func(t *testing.T) {
		// Every order of the user: the trader's and its strategies' (the
		// other agents of the user, on the same wallet).
		var rows []models.Order
		if err := e.store.DB().WithContext(ctx).Where("user_id = ?", tr.userID).Find(&rows).Error; err != nil {
			t.Fatal(err)
		}
		venue := map[string]exchange.OrderView{}
		perHash := map[string]int{}
		for _, v := range e.sb.Venue().Engine().Orders(exchange.OrderFilter{Maker: common.HexToAddress(tr.wallet.Address)}) {
			venue[strings.ToLower(v.ID)] = v
			perHash[strings.ToLower(v.ID)]++
		}
		byID := map[string]models.Order{}
		byKey := map[string]int{}
		strategyOrders := 0
		for _, o := range rows {
			byID[o.ID] = o
			if o.IdempotencyKey != nil {
				byKey[*o.IdempotencyKey]++
			}
			if o.StrategyID != nil {
				strategyOrders++
			}
			if perHash[strings.ToLower(o.VenueOrderID)] > 1 {
				t.Errorf("order %s: posted %d times", o.ID, perHash[strings.ToLower(o.VenueOrderID)])
			}
		}
		for k, n := range byKey {
			if n > 1 {
				t.Errorf("idempotency key %s: %d orders", k, n)
			}
		}
		for _, id := range append(slices.Clone(orders), after...) {
			o, ok := byID[id]
			if !ok {
				t.Errorf("order %s, answered to its client, is lost", id)
				continue
			}
			want := models.OrderOpen
			if slices.Contains(cancelled, id) {
				want = models.OrderCancelled
			}
			v, onVenue := venue[strings.ToLower(o.VenueOrderID)]
			switch {
			case o.Status != want:
				t.Errorf("order %s is %s, want %s", id, o.Status, want)
			case !onVenue:
				t.Errorf("order %s (%s) is not on the venue", id, o.Status)
			case want == models.OrderOpen && v.Status != exchange.StatusLive:
				t.Errorf("order %s is OPEN, the venue says %s", id, v.Status)
			case want == models.OrderCancelled && v.Status != exchange.StatusCanceled:
				t.Errorf("order %s is CANCELLED, the venue says %s", id, v.Status)
			}
		}
		if want := len(orders) + len(after) + strategyOrders; len(rows) != want {
			t.Errorf("%d orders of the user, want %d placed by hand and %d by the strategies", len(rows), len(orders)+len(after), strategyOrders)
		}
		if len(venue) != len(rows)-failedOrders(rows) {
			t.Errorf("the venue holds %d orders of the wallet, the service %d (%d failed)", len(venue), len(rows), failedOrders(rows))
		}
	})

	t.Run("every strategy fired once", func(t *testing.T) {
		for _, id := range strats {
			ex, err := e.store.ListStrategyExecutions(ctx, id, 10)
			if err != nil {
				t.Fatal(err)
			}
			withOrder := 0
			for _, x := range ex {
				if x.OrderID != nil {
					withOrder++
				}
			}
			if len(ex) == 0 || ex[0].Kind != "action" || ex[0].OrderID == nil {
				t.Errorf("strategy %s: executions %+v", id, ex)
			}
			// A FOK bought from a book the other alerts emptied failed
			// and was tried again; at most one order filled.
			filled := 0
			for _, x := range ex {
				if x.OrderID == nil {
					continue
				}
				o, err := e.store.OrderByID(ctx, *x.OrderID)
				if err != nil {
					t.Fatal(err)
				}
				if o.Status == models.OrderFilled {
					filled++
				}
			}
			if filled != 1 {
				t.Errorf("strategy %s: %d filled orders of %d", id, filled, withOrder)
			}
		}
	})

	t.Run("the Web UI's search attributes find the strategies", func(t *testing.T) {
		q := fmt.Sprintf("WorkflowKind = 'strategy' AND UserId = '%s' AND StrategyType = 'PRICE_ALERT' AND StrategyStatus = 'COMPLETED'", tr.userID)
		var found []string
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(500 * time.Millisecond) {
			found = listWorkflows(t, c, q)
			if len(found) >= len(strats) || time.Now().After(deadline) {
				break
			}
		}
		slices.Sort(found)
		want := workflowIDs(workflows.KindStrategy, strats)
		slices.Sort(want)
		if !slices.Equal(found, want) {
			t.Errorf("%s: found %d %v, want the %d strategies %v", q, len(found), found, len(want), want)
		}
		// The orders' status attribute follows them through the restart.
		q = fmt.Sprintf("WorkflowKind = 'order' AND AgentId = '%s' AND OrderStatus = 'CANCELLED'", tr.agentID)
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(500 * time.Millisecond) {
			found = listWorkflows(t, c, q)
			if len(found) >= len(cancelled) || time.Now().After(deadline) {
				break
			}
		}
		if len(found) != len(cancelled) {
			t.Errorf("%s: %d workflows, want %d", q, len(found), len(cancelled))
		}
	})
}

// failedOrders counts the FAILED orders of rows (the venue keeps none).
func failedOrders(rows []models.Order) int {
	n := 0
	for _, o := range rows {
		if o.Status == models.OrderFailed {
			n++
		}
	}
	return n
}

// listWorkflows are the ids of the workflows visibility finds for query.
func listWorkflows(t testing.TB, c *cluster, query string) []string {
	t.Helper()
	var out []string
	var token []byte
	for {
		resp, err := c.e.tc.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{Query: query, NextPageToken: token})
		if err != nil {
			t.Fatalf("list %q: %v", query, err)
		}
		for _, ex := range resp.GetExecutions() {
			out = append(out, ex.GetExecution().GetWorkflowId())
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			return out
		}
	}
}

// tradingLoad places orders (every 300 ms) and creates PRICE_ALERT
// strategies (every 1.5 s) through the APIs of c, round robin, each with
// an idempotency key and retried with it until the API answers for it —
// as a client does while the service has trouble.
type tradingLoad struct {
	c     *cluster
	key   string
	token string
	// strategyKeys create the strategies, in turn.
	strategyKeys []string

	mu     sync.Mutex
	orders []string
	strats []string
	err    error
}

// run starts the load; the returned stop ends it and waits for the
// requests in flight to be answered.
func (l *tradingLoad) run() (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	loop := func(every time.Duration, one func(i int) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(every)
			defer tick.Stop()
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				case <-tick.C:
				}
				if err := one(i); err != nil {
					l.fail(err)
					return
				}
			}
		}()
	}
	loop(300*time.Millisecond, func(i int) error {
		id, err := l.placeOrder(i, fmt.Sprintf("load-%d", i))
		if err == nil {
			l.mu.Lock()
			l.orders = append(l.orders, id)
			l.mu.Unlock()
		}
		return err
	})
	loop(1500*time.Millisecond, func(i int) error {
		body := map[string]any{"type": "PRICE_ALERT", "maxBudget": 5, "config": map[string]any{
			"tokenId": l.token, "side": "BUY", "triggerCondition": "PRICE_LTE", "triggerPrice": 0.35, "size": 5}}
		b, err := l.until(i, l.strategyKeys[i%len(l.strategyKeys)], "POST", "/strategies", body, "strategy-"+fmt.Sprint(i), http.StatusOK)
		if err != nil {
			return err
		}
		var d struct {
			Strategy struct {
				ID string `json:"id"`
			} `json:"strategy"`
		}
		if err := json.Unmarshal(b["data"], &d); err != nil || d.Strategy.ID == "" {
			return fmt.Errorf("strategy answer %s: %v", b["data"], err)
		}
		l.mu.Lock()
		l.strats = append(l.strats, d.Strategy.ID)
		l.mu.Unlock()
		return nil
	})
	return func() { close(done); wg.Wait() }
}

// placeOrder places a resting BUY (0.2 on a book at 0.5) with
// idempotency key k through API i (mod their number), retrying until it
// is answered 200 or 202, and returns the order's id.
func (l *tradingLoad) placeOrder(i int, k string) (string, error) {
	b, err := l.until(i, l.key, "POST", "/orders", map[string]any{"tokenId": l.token, "side": "BUY", "price": 0.2, "size": 5}, k,
		http.StatusOK, http.StatusAccepted)
	if err != nil {
		return "", err
	}
	var d struct {
		Order struct {
			ID string `json:"id"`
		} `json:"order"`
	}
	if err := json.Unmarshal(b["data"], &d); err != nil || d.Order.ID == "" {
		return "", fmt.Errorf("order answer %s: %v", b["data"], err)
	}
	return d.Order.ID, nil
}

// until sends the request with the agent key and idempotency key k until
// it is answered with one of ok; a 5xx, a 409 in flight, a 429 or a
// transport error is tried again (for up to two minutes), anything else is
// the load's error.
func (l *tradingLoad) until(i int, key, method, path string, body any, k string, ok ...int) (map[string]json.RawMessage, error) {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		status, b, err := l.c.try(i, key, method, path, body, "Idempotency-Key", k)
		inFlight := status == http.StatusConflict && string(b["code"]) == `"idempotency_in_flight"`
		switch {
		case err == nil && slices.Contains(ok, status):
			return b, nil
		case err == nil && status < 500 && !inFlight && status != http.StatusTooManyRequests:
			return nil, fmt.Errorf("%s %s (%s): %d %s", method, path, k, status, b)
		case time.Now().After(deadline):
			return nil, fmt.Errorf("%s %s (%s): not answered within two minutes: %d %s %v", method, path, k, status, b, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func (l *tradingLoad) fail(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		l.err = err
	}
}

func (l *tradingLoad) failure() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

func (l *tradingLoad) answered() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.orders) + len(l.strats)
}

func (l *tradingLoad) results() (orders, strats []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.orders), slices.Clone(l.strats)
}

// try is call without failing the test: for goroutines, and for requests
// that may meet a service in trouble.
func (c *cluster) try(i int, key, method, path string, body any, hdr ...string) (int, map[string]json.RawMessage, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.apis[i%len(c.apis)].urls["api"]+"/api/agent/v1"+path, rd)
	if err != nil {
		return 0, nil, err
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
		return 0, nil, err
	}
	defer resp.Body.Close()
	var out map[string]json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return resp.StatusCode, nil, fmt.Errorf("%s %s: %d, not JSON: %w", method, path, resp.StatusCode, err)
	}
	return resp.StatusCode, out, nil
}
