package e2e

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agent-trading/ats/models"
)

// TestAPIKilledWhilePlacingOrders places orders through an `ats api`
// process that is killed with SIGKILL at random moments and started again,
// beside an `ats worker` (on the dev server, PostgreSQL and Redis): each
// API places the orders it accepts in its own process (their workflows
// start eagerly on its placement worker), so a kill can come after the
// order is stored, after its workflow started, while it is signed or
// posted, or after the venue took it. Afterwards every order the API
// stored settles — its workflow's task taken over by another poller of the
// order queue after the dead API's task timed out, or resumed by the
// worker when the workflow never started — matches the venue, and none was
// posted twice.
func TestAPIKilledWhilePlacingOrders(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL databases, Redis, the sandbox, Temporal and ats processes")
	}
	c := newCluster(t, 1, 1, onDevServer)
	e := c.e
	tr := e.newTrader(t, 0)
	m := e.newMarket(t, "Will the API survive", "0.5")

	var mu sync.Mutex
	api := c.apis[0]
	current := func() *atsProcess { mu.Lock(); defer mu.Unlock(); return api }
	kl := startKiller(t, "API", 11, killPace{Every: 300 * time.Millisecond, Jitter: 1500 * time.Millisecond},
		func() { current().kill() },
		func() error {
			next := c.start("api")
			awaitReady(t, next.urls["api"])
			mu.Lock()
			api = next
			mu.Unlock()
			return nil
		})

	const n = 40
	var wg sync.WaitGroup
	answered := make([]bool, n)
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
			time.Sleep(time.Duration(rand.IntN(4000)) * time.Millisecond)
			for {
				one := &cluster{apis: []*atsProcess{current()}}
				status, _, err := one.try(0, tr.key, "POST", "/orders", body, "Idempotency-Key", fmt.Sprintf("api-kill-%d", i))
				if err != nil && errors.Is(err, syscall.ECONNREFUSED) {
					// The API is down: the request never reached it.
					time.Sleep(100 * time.Millisecond)
					continue
				}
				// A request the kill cut off is not retried: what the API
				// had stored must settle by itself.
				answered[i] = err == nil && (status == http.StatusOK || status == http.StatusAccepted)
				return
			}
		}()
	}
	wg.Wait()
	n200 := 0
	for _, ok := range answered {
		if ok {
			n200++
		}
	}
	kl.finish(fmt.Sprintf("while %d orders were placed (%d answered)", n, n200))

	// Every stored order settles: the dead API's workflow tasks time out
	// and are taken over; an order whose workflow never started is resumed
	// by the worker's sweep (a minute after it was stored).
	ctx := context.Background()
	var rows []models.Order
	for deadline := time.Now().Add(4 * time.Minute); ; time.Sleep(500 * time.Millisecond) {
		rows = nil
		if err := e.store.DB().WithContext(ctx).Where("agent_id = ?", tr.agentID).Find(&rows).Error; err != nil {
			t.Fatal(err)
		}
		pending := 0
		for _, o := range rows {
			if o.Status == models.OrderPending {
				pending++
			}
		}
		if pending == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d stored orders still PENDING", pending, len(rows))
		}
	}
	if len(rows) < n200 {
		t.Fatalf("%d orders answered, %d stored", n200, len(rows))
	}
	t.Logf("%d orders stored", len(rows))
	checkOrdersAgainstTheVenue(t, e, tr, rows, n)
}
