package workflows_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/errs/temporalerr"
	"github.com/agent-trading/ats/models/strategies"
)

// A "price" hint only wakes a check: a RECURRING_BUY on an hourly interval
// told to look three times a minute apart, and again after its second buy,
// buys once per interval, at the interval.
func TestRecurringBuyHintsOnlyWakeACheck(t *testing.T) {
	r := newStrategyRig(t, "RECURRING_BUY", `{"tokenId":"1001","amountPerInterval":2,"interval":"1h"}`, "6")
	start := r.env.Now()
	for _, at := range []time.Duration{time.Minute, 2 * time.Minute, 3 * time.Minute, 61 * time.Minute, 90 * time.Minute} {
		r.at(at, r.hint)
	}
	r.at(4*time.Minute, func() {
		if _, placed := r.fx.Placer.Counts(); placed != 1 {
			t.Errorf("three hints within the first interval: %d orders placed, want the first buy only", placed)
		}
	})
	st := r.run()
	if st.Status != strategies.StatusCompleted || st.EndedReason != strategies.EndBudget {
		t.Fatalf("ended %s (%s)", st.Status, st.EndedReason)
	}
	ex := r.executions()
	if len(ex) != 3 {
		t.Fatalf("%d executions, want 3: %+v", len(ex), ex)
	}
	for i, e := range ex {
		want := time.Duration(len(ex)-1-i) * time.Hour
		if e.Kind != strategies.KindAction || e.Time.Sub(start).Round(time.Second) != want {
			t.Fatalf("execution %d: %s at %v, want a buy at %v", e.Seq, e.Kind, e.Time.Sub(start), want)
		}
	}
	if _, placed := r.fx.Placer.Counts(); placed != 3 {
		t.Fatalf("%d orders placed, want 3", placed)
	}
}

// A change sent again (taken from the workflow's history: the same
// arguments, the same proof) is refused once the strategy has moved on:
// the user's pause after the agent's resume stands, and the replay leaves
// no audit entry.
func TestReplayedResumeIsRefused(t *testing.T) {
	r := newStrategyRig(t, "PRICE_ALERT", alertBuy, "20")
	var resume strategies.Change
	var replayed *updateResult
	var during string
	r.at(time.Minute, func() { r.change(strategies.ActionPause, strategies.ByUser, strategies.Change{}) })
	r.at(2*time.Minute, func() {
		resume = strategies.Change{StrategyID: r.id, Action: strategies.ActionResume, By: strategies.ByAgent, Version: r.stored().Version}
		r.send(resume)
	})
	r.at(3*time.Minute, func() { r.change(strategies.ActionPause, strategies.ByUser, strategies.Change{}) })
	r.at(4*time.Minute, func() { replayed = r.send(resume) })
	r.at(5*time.Minute, func() { during = r.stored().Status })
	r.at(6*time.Minute, func() { r.change(strategies.ActionCancel, strategies.ByUser, strategies.Change{}) })
	r.run()
	if replayed == nil || replayed.rejected == nil || errs.CodeOf(temporalerr.From(replayed.rejected)) != errs.CodeStrategyState {
		t.Fatalf("the replayed resume: %+v", replayed)
	}
	if during != strategies.StatusPaused {
		t.Fatalf("after the replay the strategy is %s, want PAUSED", during)
	}
	page, err := (&audit.Service{Store: r.fx.Store}).List(context.Background(), audit.Filter{UserID: r.fx.UserID})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := len(page.Entries) - 1; i >= 0; i-- {
		if e := page.Entries[i]; e.Target == r.id {
			got = append(got, e.Action)
		}
	}
	if strings.Join(got, ",") != "strategy.create,strategy.pause,strategy.resume,strategy.pause,strategy.cancel" {
		t.Fatalf("audited %v", got)
	}
}
