package workflows_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/workflows"
)

const copyConfig = `{"targetAddress":"0x00000000000000000000000000000000000000A1","sizingMode":"fixed","fixedAmount":5,"copySells":true}`

// record records the target's BUY of token (as the worker's copy hub
// does) and returns its transaction hash.
func (r *strategyRig) record(n int, token string) string {
	r.t.Helper()
	tx := fmt.Sprintf("0x%064x", n)
	if err := r.fx.Store.RecordCopyTrades(context.Background(), []models.CopyTrade{{StrategyID: r.id, TxHash: tx, LogIndex: 2,
		Target: "0x00000000000000000000000000000000000000A1", Block: int64(n), Kind: models.CopyKindTrade, TokenID: token, Side: "BUY",
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
	_ = workflows.StrategySignalPrice
}
