package e2e

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/sandbox/exchange"
	"github.com/agent-trading/ats/venue/micro"
)

// TestWorkerKilledDuringStrategyExecutions runs BUY_LOW_SELL_HIGH
// strategies against a price that swings across both thresholds while a
// separate `ats worker` process (with its own price feed, whose
// conditions it rebuilds from the database at every start) is killed with
// SIGKILL at random moments and restarted. Afterwards: no order was
// placed twice (one venue order per service order, one order per
// execution number), no execution was lost (every order a strategy
// placed is in its execution log, numbers without gaps), and the budgets
// add up (budgetUsed is the sum of the executions' amounts and of what
// the strategy's buys paid; openSize is what its buys filled less what
// its sells filled).
func TestWorkerKilledDuringStrategyExecutions(t *testing.T) {
	k := newKillEnv(t, "Will strategies survive the worker", nil)
	e, tr, yes := k.e, k.tr, k.market.TokenIDs[0]

	const n = 4
	ids := make([]string, n)
	for i := range n {
		ids[i] = e.createStrategy(t, tr, map[string]any{"type": "BUY_LOW_SELL_HIGH", "maxBudget": 200, "config": map[string]any{
			"tokenId": yes, "buyBelow": 0.4, "sellAbove": 0.6, "sizePerTrade": 5}}).ID
	}

	kl := k.killWorker(t, 15, killPace{Every: 500 * time.Millisecond, Jitter: 1500 * time.Millisecond, Down: 500 * time.Millisecond})
	for i := range 12 {
		price := "0.35"
		if i%2 == 1 {
			price = "0.65"
		}
		e.setPrice(t, yes, price)
		time.Sleep(1500 * time.Millisecond)
	}
	kl.finish("during the swings")
	// With a healthy worker every strategy trades again (a step lost
	// with a killed worker times out and is retried): swing until each
	// has bought and sold once more, then rest in between.
	ctx := context.Background()
	before := map[string]int{}
	for _, id := range ids {
		st, err := e.store.StrategyByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		before[id] = st.Executions
	}
	swingUntil := time.Now().Add(3 * time.Minute)
	for i := 0; ; i++ {
		done := true
		for _, id := range ids {
			st, err := e.store.StrategyByID(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			// Holding nothing it can sell: a market buy that filled at a
			// better price than its level got a little more than its size,
			// and the dust under 0.01 share is the venue's to keep.
			if st.Executions < before[id]+2 || st.OpenSizeMicro >= 10_000 {
				done = false
			}
		}
		if done && i%2 == 0 {
			break
		}
		if time.Now().After(swingUntil) {
			for _, id := range ids {
				logStrategy(t, e, id, before[id])
			}
			t.Fatal("the strategies did not trade again after the worker came back")
		}
		e.setPrice(t, yes, map[bool]string{true: "0.35", false: "0.65"}[i%2 == 0])
		time.Sleep(3 * time.Second)
	}
	e.setPrice(t, yes, "0.5")

	settled := func() bool {
		rows, err := e.store.ListOrders(ctx, store.OrderFilter{AgentID: tr.agentID, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range rows {
			if o.Status == models.OrderPending {
				return false
			}
		}
		for _, id := range ids {
			st, err := e.store.StrategyByID(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			var placed int64
			for _, o := range rows {
				if o.StrategyID != nil && *o.StrategyID == id {
					placed++
				}
			}
			if placed > int64(st.Executions) {
				return false // an execution's order is not recorded yet
			}
		}
		return true
	}
	deadline := time.Now().Add(2 * time.Minute)
	for stable := 0; stable < 3; {
		if settled() {
			stable++
		} else {
			stable = 0
		}
		if time.Now().After(deadline) {
			t.Fatal("the strategies never settled after the worker came back")
		}
		time.Sleep(time.Second)
	}

	rows, err := e.store.ListOrders(ctx, store.OrderFilter{AgentID: tr.agentID, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	venue := map[string]bool{}
	for _, v := range e.sb.Venue().Engine().Orders(exchange.OrderFilter{Maker: common.HexToAddress(tr.wallet.Address)}) {
		venue[strings.ToLower(v.ID)] = true
	}
	seenVenue := map[string]bool{}
	actions := 0
	var held int64 // what the strategies' books say the wallet holds
	for _, id := range ids {
		st, err := e.store.StrategyByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		ex, err := e.store.ListStrategyExecutions(ctx, id, 500)
		if err != nil {
			t.Fatal(err)
		}
		byOrder := map[string]models.StrategyExecution{}
		var amount int64
		for i, x := range ex {
			if want := len(ex) - i; x.Seq != want {
				t.Errorf("%s: execution numbers have a gap: %d where %d", id, x.Seq, want)
			}
			amount += x.AmountMicro
			if x.OrderID != nil {
				byOrder[*x.OrderID] = x
			}
		}
		keys := map[string]bool{}
		var paid, open int64
		for _, o := range rows {
			if o.StrategyID == nil || *o.StrategyID != id {
				continue
			}
			if _, ok := byOrder[o.ID]; !ok {
				t.Errorf("%s: order %s (%s) is in no execution: an execution was lost", id, o.ID, *o.IdempotencyKey)
			}
			if keys[*o.IdempotencyKey] {
				t.Errorf("%s: two orders under %s", id, *o.IdempotencyKey)
			}
			keys[*o.IdempotencyKey] = true
			if h := strings.ToLower(o.VenueOrderID); h != "" {
				// The hash is stored before the post, so an order the venue
				// refused (a FOK it could not fill) keeps one the venue never
				// kept: that order must have ended FAILED with nothing filled.
				switch {
				case seenVenue[h]:
					t.Errorf("order %s: venue order %s belongs to two orders", o.ID, h)
				case !venue[h] && (o.Status != models.OrderFailed || o.FilledSizeMicro != 0):
					t.Errorf("order %s (%s, filled %d): venue order %s unknown to the venue", o.ID, o.Status, o.FilledSizeMicro, h)
				}
				seenVenue[h] = true
			}
			if o.Side == "BUY" {
				paid += ceilMicro(o.FilledSizeMicro, o.AvgFillPriceMicro)
				open += o.FilledSizeMicro
			} else {
				open -= o.FilledSizeMicro
			}
			actions++
		}
		// budgetUsed follows the orders' fills (recomputed at every
		// execution); the executions' amounts are what was known when
		// each was recorded (at most the order's worst cost).
		if st.BudgetUsedMicro != paid || amount < paid || st.OpenSizeMicro != open {
			t.Errorf("%s: budgetUsed %d, executions say %d, its buys paid %d; openSize %d, its fills say %d",
				id, st.BudgetUsedMicro, amount, paid, st.OpenSizeMicro, open)
		}
		if st.Status != strategies.StatusActive {
			t.Errorf("%s ended %s (%s): %s", id, st.Status, st.EndedReason, st.LastError)
		}
		held += open
		t.Logf("%s: %d executions, budget used %s, open %s", id, len(ex), micro.Decimal(st.BudgetUsedMicro), micro.Decimal(st.OpenSizeMicro))
	}
	// The chain agrees: an order the venue filled but the service
	// recorded as failed (or the reverse) shows here, whatever the
	// service's own rows say.
	tok, _ := new(big.Int).SetString(yes, 10)
	bal, err := e.svc.Orders.Chain.OutcomeBalance(ctx, common.HexToAddress(tr.wallet.Address), tok)
	if err != nil {
		t.Fatal(err)
	}
	if bal.Cmp(big.NewInt(held)) != 0 {
		t.Errorf("the wallet holds %s micro-shares on chain; its strategies' orders say %d", bal, held)
	}
	if actions < n*2 {
		t.Fatalf("only %d orders: the strategies hardly traded (%s)", actions, fmt.Sprint(len(rows)))
	}
}

// ceilMicro is size × price in micro-units, rounded up (as the engine
// charges a buy).
func ceilMicro(sizeMicro, priceMicro int64) int64 {
	p := sizeMicro * priceMicro
	q := p / models.MicroPerUnit
	if p%models.MicroPerUnit != 0 {
		q++
	}
	return q
}

// logStrategy logs where strategy id stands and its executions since
// number from (a failing test's evidence).
func logStrategy(t *testing.T, e *tradingEnv, id string, from int) {
	t.Helper()
	ctx := context.Background()
	st, err := e.store.StrategyByID(ctx, id)
	if err != nil {
		t.Logf("%s: %v", id, err)
		return
	}
	t.Logf("%s: %s, %d executions (%d before), openSize %d, budgetUsed %d, failures %d, last error %q",
		id, st.Status, st.Executions, from, st.OpenSizeMicro, st.BudgetUsedMicro, st.ConsecutiveFailures, st.LastError)
	ex, err := e.store.ListStrategyExecutions(ctx, id, 500)
	if err != nil {
		t.Logf("%s: %v", id, err)
		return
	}
	for _, x := range ex {
		oid := ""
		if x.OrderID != nil {
			oid = *x.OrderID
		}
		t.Logf("  #%d %s %s %s order %s %s filled %d: %s", x.Seq, x.Time.Format("15:04:05.000"), x.Kind, x.Side, oid, x.OrderStatus, x.FilledSizeMicro, x.Reason)
	}
}
