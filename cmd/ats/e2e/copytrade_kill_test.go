package e2e

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agent-trading/ats/cmd/ats/internal/app"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/sandbox/exchange"
)

// TestWorkerKilledWhileCopying has an outside wallet trade through the
// sandbox's book while COPY_TRADE strategies follow it and a separate
// `ats worker` process — the only one running the copy watchers and the
// strategies' activities — is killed with SIGKILL at random moments and
// restarted. Afterwards every event of the target on chain (from each
// strategy's first block) is recorded for each strategy exactly once and
// handled by exactly one execution (misses nothing), every order has its
// own copy key, belongs to an execution and is one venue order (copies
// nothing twice), and execution numbers have no gaps.
func TestWorkerKilledWhileCopying(t *testing.T) {
	var target string
	k := newKillEnv(t, "Will copies survive the worker", func(e *tradingEnv, m sandboxMarket) {
		target = e.outsideAddress(t)
		e.outsideTrade(t, m.TokenIDs[0], "BUY", "5", "0.6") // warm the outside wallet up
	})
	e, tr, yes := k.e, k.tr, k.market.TokenIDs[0]

	ids := []string{
		e.createCopy(t, tr, target, map[string]any{"sizingMode": "fixed", "fixedAmount": 3, "copySells": true}),
		e.createCopy(t, tr, target, map[string]any{"sizingMode": "proportional", "proportionPct": 100, "copySells": false}),
		e.createCopy(t, tr, target, map[string]any{"sizingMode": "proportional", "proportionPct": 100, "copySells": true}),
	}

	pace := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 17)) // the trades'
	kl := k.killWorker(t, 16, killPace{Every: 700 * time.Millisecond, Jitter: 1500 * time.Millisecond, Down: 700 * time.Millisecond})
	const trades = 10
	for i := range trades {
		if i%2 == 0 {
			e.outsideTrade(t, yes, "BUY", "5", "0.6")
		} else {
			e.outsideTrade(t, yes, "SELL", "5", "0.4")
		}
		time.Sleep(time.Duration(800+pace.IntN(800)) * time.Millisecond)
	}
	kl.finish(fmt.Sprintf("while the target traded %d times", trades))

	// What the chain says the target did, from each strategy's first block.
	ctx := context.Background()
	venue := app.TargetVenue(e.vc)
	head, err := e.vc.Chain.Backend().BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	type event struct {
		tx    string
		index int64
		block uint64
	}
	var onChain []event
	for _, q := range venue.TargetQueries([]common.Address{common.HexToAddress(target)}) {
		q.FromBlock, q.ToBlock = big.NewInt(0), new(big.Int).SetUint64(head)
		logs, err := e.vc.Chain.Backend().FilterLogs(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range logs {
			ev, err := venue.ClassifyTargetLog(l, common.HexToAddress(target))
			if err != nil {
				t.Fatal(err)
			}
			if !ev.Ignore {
				onChain = append(onChain, event{strings.ToLower(l.TxHash.Hex()), int64(l.Index), l.BlockNumber})
			}
		}
	}

	// Wait until the restarted worker handled everything it recorded.
	deadline := time.Now().Add(3 * time.Minute)
	for {
		done := true
		for _, id := range ids {
			st, err := e.store.StrategyByID(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			f, err := e.store.CopyFollow(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			for _, ev := range onChain {
				if int64(ev.block) >= f.FromBlock {
					want++
				}
			}
			// A copier that stopped (which the checks below refuse)
			// records and executes no more.
			rows := e.copyRows(t, id)
			if st.Status == strategies.StatusActive && (len(rows) < want || st.Executions < len(rows)) {
				done = false
			}
			for _, o := range e.strategyOrders(t, tr.agentID, id) {
				if o.Status == models.OrderPending {
					done = false
				}
			}
		}
		if done {
			break
		}
		if time.Now().After(deadline) {
			for _, id := range ids {
				st, _ := e.store.StrategyByID(ctx, id)
				t.Logf("%s: %s, %d executions, %d recorded, last error %q", id, st.Status, st.Executions, len(e.copyRows(t, id)), st.LastError)
			}
			t.Fatalf("the copies never caught up with the %d events on chain", len(onChain))
		}
		time.Sleep(500 * time.Millisecond)
	}

	venueOrders := map[string]bool{}
	for _, v := range e.sb.Venue().Engine().Orders(exchange.OrderFilter{Maker: common.HexToAddress(tr.wallet.Address)}) {
		venueOrders[strings.ToLower(v.ID)] = true
	}
	seenVenue := map[string]bool{}
	activeThroughout := 0
	for _, id := range ids {
		st, err := e.store.StrategyByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		complete := st.Status == strategies.StatusActive
		if !complete {
			// Nothing may stop a copier here: a copy delayed by the kills
			// until the market moved past its price is a skip, not a
			// failure. Its exactly-once checks below still hold; whether it
			// missed nothing cannot be told for the events after it stopped.
			t.Errorf("%s ended %s: %s (its completeness is not checked)", id, st.Status, st.LastError)
		} else {
			activeThroughout++
		}
		f, _ := e.store.CopyFollow(ctx, id)
		rows := e.copyRows(t, id)
		recorded := map[string]*models.CopyTrade{}
		seqs := map[int]bool{}
		for i := range rows {
			r := &rows[i]
			recorded[fmt.Sprintf("%s:%d", r.TxHash, r.LogIndex)] = r
			if r.Seq == nil && complete || r.Seq != nil && seqs[*r.Seq] {
				t.Errorf("%s: event %s:%d handled by no execution or by one that handled another", id, r.TxHash, r.LogIndex)
			} else if r.Seq != nil {
				seqs[*r.Seq] = true
			}
		}
		want := 0
		for _, ev := range onChain {
			if int64(ev.block) < f.FromBlock {
				continue
			}
			want++
			if complete && recorded[fmt.Sprintf("%s:%d", ev.tx, ev.index)] == nil {
				t.Errorf("%s: the target's event %s:%d (block %d) was missed", id, ev.tx, ev.index, ev.block)
			}
		}
		if complete && len(rows) != want || len(rows) > want {
			t.Errorf("%s: %d events recorded, the chain holds %d", id, len(rows), want)
		}
		ex, err := e.store.ListStrategyExecutions(ctx, id, 500)
		if err != nil {
			t.Fatal(err)
		}
		byOrder := map[string]bool{}
		for i, x := range ex {
			if w := len(ex) - i; x.Seq != w {
				t.Errorf("%s: execution numbers have a gap: %d where %d", id, x.Seq, w)
			}
			if x.OrderID != nil {
				byOrder[*x.OrderID] = true
			}
		}
		keys := map[string]bool{}
		for _, o := range e.strategyOrders(t, tr.agentID, id) {
			k := *o.IdempotencyKey
			if keys[k] {
				t.Errorf("%s: two orders under %s", id, k)
			}
			keys[k] = true
			parts := strings.Split(k, ":")
			if len(parts) != 4 || recorded[parts[2]+":"+parts[3]] == nil {
				t.Errorf("%s: order %s under %s copies no recorded event", id, o.ID, k)
			}
			if !byOrder[o.ID] {
				t.Errorf("%s: order %s is in no execution", id, o.ID)
			}
			if h := strings.ToLower(o.VenueOrderID); h != "" {
				if seenVenue[h] {
					t.Errorf("venue order %s belongs to two orders", h)
				}
				seenVenue[h] = true
				if !venueOrders[h] && (o.Status != models.OrderFailed || o.FilledSizeMicro != 0) {
					t.Errorf("order %s: venue order %s unknown to the venue", o.ID, h)
				}
			}
		}
		t.Logf("%s: %d events recorded, %d executions, %d orders", id, len(rows), len(ex), len(keys))
	}
	if activeThroughout == 0 {
		t.Fatal("every copier stopped: nothing shows that no event was missed")
	}
}
