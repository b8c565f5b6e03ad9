package workflows_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/intent/intenttest"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/strategies/strategiestest"
	"github.com/agent-trading/ats/worker/replaytest"
	"github.com/agent-trading/ats/workflows"
)

const copyConfig = `{"targetAddress":"0x00000000000000000000000000000000000000A1","sizingMode":"fixed","fixedAmount":5,"copySells":true}`

// record records the target's BUY of token (as the worker's copy hub
// does) and returns its transaction hash.
func (r *strategyRig) record(n int, token string) string {
	r.t.Helper()
	return r.recordSide(n, token, "BUY")
}

// recordSide records the target's trade of token on side.
func (r *strategyRig) recordSide(n int, token, side string) string {
	r.t.Helper()
	tx := fmt.Sprintf("0x%064x", n)
	if err := r.fx.Store.RecordCopyTrades(context.Background(), []models.CopyTrade{{StrategyID: r.id, TxHash: tx, LogIndex: 2,
		Target: "0x00000000000000000000000000000000000000A1", Block: int64(n), Kind: models.CopyKindTrade, TokenID: token, Side: side,
		SharesMicro: 10_000_000, PriceMicro: 500_000}}); err != nil {
		r.t.Fatal(err)
	}
	return tx
}

// One hint drains every recorded event of the target, one execution each,
// in chain order; a hint with nothing recorded executes nothing; a paused
// strategy copies nothing until resumed.
func TestCopyTradeCopiesEveryRecordedEventOnce(t *testing.T) {
	r := newStrategyRig(t, "COPY_TRADE", copyConfig, "100")
	var txs []string
	r.at(time.Minute, func() {
		for i := 1; i <= 3; i++ {
			txs = append(txs, r.record(i, "11"))
		}
		r.hint()
	})
	r.at(2*time.Minute, func() {
		if st := r.stored(); st.Executions != 3 {
			t.Errorf("after one hint for 3 events: %d executions", st.Executions)
		}
		r.hint() // nothing recorded: nothing happens
	})
	r.at(3*time.Minute, func() {
		if st := r.stored(); st.Executions != 3 {
			t.Errorf("a hint with nothing recorded executed: %d", st.Executions)
		}
		if res := r.change(strategies.ActionPause, strategies.ByAgent, strategies.Change{}); res.err != nil || res.rejected != nil {
			t.Errorf("pause: %+v", res)
		}
	})
	r.at(4*time.Minute, func() {
		txs = append(txs, r.record(4, "12"))
		r.hint()
	})
	r.at(5*time.Minute, func() {
		if st := r.stored(); st.Executions != 3 {
			t.Errorf("a paused strategy copied: %d executions", st.Executions)
		}
		if res := r.change(strategies.ActionResume, strategies.ByAgent, strategies.Change{}); res.err != nil || res.rejected != nil {
			t.Errorf("resume: %+v", res)
		}
		r.hint()
	})
	r.at(6*time.Minute, func() {
		if res := r.change(strategies.ActionCancel, strategies.ByAgent, strategies.Change{}); res.err != nil {
			t.Errorf("cancel: %+v", res)
		}
	})
	st := r.run()
	if st.Status != strategies.StatusCancelled {
		t.Fatalf("ended %s", st.Status)
	}
	ex := r.executions()
	if len(ex) != 4 {
		t.Fatalf("%d executions, want 4: %+v", len(ex), ex)
	}
	for _, x := range ex {
		tx := txs[x.Seq-1]
		if x.Kind != strategies.KindAction || x.OrderID == nil || !strings.Contains(x.Reason, tx) {
			t.Fatalf("execution %d: %+v, want the copy of %s", x.Seq, x, tx)
		}
	}
	if calls, placed := r.fx.Placer.Counts(); calls != 4 || placed != 4 {
		t.Fatalf("place calls %d, placed %d", calls, placed)
	}
	for i, req := range r.fx.Placer.Requests {
		if req.IdempotencyKey != strategies.CopyIdempotencyKey(r.id, txs[i], 2) || req.Size.String() != "10" || req.Side != "BUY" {
			t.Fatalf("placed %+v", req)
		}
	}
}

// The target sells while the copy of its buy is still being placed: the
// sell's execution waits (nothing recorded, the copier holds nothing yet)
// until the BUY's settling wakes the run, which then sells what the BUY
// filled; then the copier follows the target's next trade as usual.
func TestCopySellWaitsForTheBuyInFlight(t *testing.T) {
	r := newStrategyRig(t, "COPY_TRADE", copyConfig, "100")
	r.at(time.Minute, func() {
		r.venue.hold.on = true
		r.recordSide(1, strategiestest.Token, "BUY")
		r.hint()
	})
	r.at(2*time.Minute, func() {
		if st := r.stored(); st.Executions != 1 || len(r.venue.hold.ids) != 1 {
			t.Errorf("the buy: %d executions, %d orders held", st.Executions, len(r.venue.hold.ids))
		}
		r.recordSide(2, strategiestest.Token, "SELL")
		r.hint()
	})
	r.at(3*time.Minute, func() {
		if st := r.stored(); st.Executions != 1 {
			t.Errorf("the sell was decided while its buy was in flight: %d executions", st.Executions)
		}
		r.venue.release(t)
	})
	r.at(4*time.Minute, func() {
		if st := r.stored(); st.Executions != 2 {
			t.Errorf("the buy's placement did not run the waiting sell: %d executions", st.Executions)
		}
		r.recordSide(3, strategiestest.Token, "BUY")
		r.hint()
	})
	r.at(5*time.Minute, func() {
		if res := r.change(strategies.ActionCancel, strategies.ByAgent, strategies.Change{}); res.err != nil {
			t.Errorf("cancel: %+v", res)
		}
	})
	if st := r.run(); st.Status != strategies.StatusCancelled {
		t.Fatalf("ended %s", st.Status)
	}
	ex := r.executions()
	if len(ex) != 3 {
		t.Fatalf("%d executions, want 3: %+v", len(ex), ex)
	}
	sides := []string{}
	for i := len(ex) - 1; i >= 0; i-- { // newest first
		x := ex[i]
		if x.Kind != strategies.KindAction || x.OrderID == nil {
			t.Fatalf("execution %d: %+v, want a copy placed", x.Seq, x)
		}
		sides = append(sides, x.Side)
	}
	if !sameList(sides, "BUY", "SELL", "BUY") {
		t.Fatalf("copies %v, want BUY SELL BUY", sides)
	}
}

// A copier paused while its sell waits for its BUY, the BUY placed while
// paused and its expiry extended meanwhile: the resume runs the waiting
// sell at once, not at the target's next trade (within CopyMaxAge: the
// steps are seconds apart).
func TestCopySellWaitingWhilePausedRunsAtTheResume(t *testing.T) {
	r := newStrategyRig(t, "COPY_TRADE", copyConfig, "100")
	ok := func(what string, res *updateResult) {
		if res.err != nil || res.rejected != nil {
			t.Errorf("%s: %+v", what, res)
		}
	}
	r.at(10*time.Second, func() {
		r.venue.hold.on = true
		r.recordSide(1, strategiestest.Token, "BUY")
		r.hint()
	})
	r.at(20*time.Second, func() {
		r.recordSide(2, strategiestest.Token, "SELL")
		r.hint()
	})
	r.at(30*time.Second, func() { ok("pause", r.change(strategies.ActionPause, strategies.ByAgent, strategies.Change{})) })
	r.at(40*time.Second, func() { r.venue.release(t) })
	r.at(50*time.Second, func() {
		at := r.env.Now().Add(48 * time.Hour)
		ok("extend", r.change(strategies.ActionExtend, strategies.ByAgent, strategies.Change{ExpiresAt: &at}))
	})
	r.at(60*time.Second, func() {
		if st := r.stored(); st.Executions != 1 {
			t.Errorf("a paused copier sold: %d executions", st.Executions)
		}
		ok("resume", r.change(strategies.ActionResume, strategies.ByAgent, strategies.Change{}))
	})
	r.at(70*time.Second, func() {
		if st := r.stored(); st.Executions != 2 {
			t.Errorf("the resume did not run the waiting sell: %d executions", st.Executions)
		}
		ok("cancel", r.change(strategies.ActionCancel, strategies.ByAgent, strategies.Change{}))
	})
	if st := r.run(); st.Status != strategies.StatusCancelled {
		t.Fatalf("ended %s", st.Status)
	}
	if ex := r.executions(); len(ex) != 2 || ex[0].Side != "SELL" || ex[0].Kind != strategies.KindAction {
		t.Fatalf("executions %+v, want the BUY and then the SELL copied", ex)
	}
}

// TestCopyTradeOnDevServer runs a COPY_TRADE's workflow on a real Temporal
// server: two recorded events of the target and one hint give two
// executions (the state's pending flag runs the second), then a cancel.
// With ATS_RECORD_HISTORY=<path> it writes the history for the replay
// test:
//
//	ATS_RECORD_HISTORY=$PWD/workflows/testdata/strategy_copy.json \
//	  go test -run TestCopyTradeOnDevServer ./workflows/
func TestCopyTradeOnDevServer(t *testing.T) {
	keys := intenttest.Keys(t)
	fx := strategiestest.New(t, storetest.NewSQLite(t), nil)
	ctx, c := onDevServerWithOrders(t, venueOrder(fx), &activities.Strategies{Engine: fx.Engine, Intents: keys})
	sc := workflows.StrategyDeskClient{Client: c, Intents: keys}
	svc := &workflows.StrategyDesk{Runs: sc, Strategies: &strategies.Service{Store: fx.Store, Resolver: strategiestest.Resolver{}}}
	st, err := svc.Create(ctx, fx.Actor(), strategies.CreateRequest{Type: "COPY_TRADE", Config: json.RawMessage(copyConfig),
		MaxBudget: strategies.D(decimal.RequireFromString("100"))})
	if err != nil {
		t.Fatal(err)
	}
	r := &strategyRig{t: t, fx: fx, id: st.ID}
	r.record(1, "11")
	r.record(2, "12")
	if err := sc.Hint(ctx, st.ID); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); r.stored().Executions < 2; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("executions: %d", r.stored().Executions)
		}
	}
	if _, err := svc.Cancel(ctx, fx.Actor(), st.ID); err != nil {
		t.Fatal(err)
	}
	var res strategies.State
	if err := c.GetWorkflow(ctx, st.ID, "").Get(ctx, &res); err != nil || res.Status != strategies.StatusCancelled || res.Executions != 2 {
		t.Fatalf("result %+v %v", res, err)
	}
	if calls, placed := fx.Placer.Counts(); calls != 2 || placed != 2 {
		t.Fatalf("place calls %d, placed %d", calls, placed)
	}
	if p := os.Getenv("ATS_RECORD_HISTORY"); p != "" {
		replaytest.WriteHistory(t, p, replaytest.History(t, ctx, c, st.ID, ""))
	}
}

// strategyCopyHistory was recorded by TestCopyTradeOnDevServer.
const strategyCopyHistory = "testdata/strategy_copy.json"

func TestCopyStrategyReplays(t *testing.T) {
	replaytest.ReplayFileWithOptions(t, strategyCopyHistory, replayOptions(t), workflows.All()...)
}
