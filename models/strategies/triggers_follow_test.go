package strategies_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/pricefeed"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/strategies/strategiestest"
)

// eventually waits for cond, which an announcement makes true in another
// goroutine (not a timing bound: the limit only keeps a broken feed from
// hanging the test).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Workers follow the strategies by events, with no periodic scan: a
// strategy created through one worker's path is armed in another worker's
// triggers as soon as it is announced (PostgreSQL: the database's
// notification to every process; SQLite: the store's own change in its one
// process); a condition that fired there is armed again after the
// execution it woke; a cancelled strategy is disarmed.
func TestTriggersFollowStrategiesByEvents(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, cancel := context.WithCancel(context.Background())
		fx := strategiestest.New(t, s, nil)
		// Worker B: its own price feed and triggers, following the
		// database; it never runs the strategy's steps.
		feed := pricefeed.New(pricefeed.Config{})
		sig := newSignals()
		other := &strategies.Triggers{Feed: feed, Signal: sig.signal}
		ready := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			other.Follow(ctx, s, func() { close(ready) })
		}()
		t.Cleanup(func() { cancel(); <-done })
		select {
		case <-ready:
		case <-time.After(10 * time.Second):
			t.Fatal("the triggers never started following")
		}
		feed.Apply(bookEvent(strategiestest.Token, "0.40", "0.42"))

		// Worker A's path: the API creates it, A's steps run it.
		svc := fx.Service(strategiestest.Direct{Engine: fx.Engine}, nil)
		st, err := svc.Create(ctx, fx.Actor(), strategies.CreateRequest{Type: strategies.TypePriceAlert,
			Config:    json.RawMessage(`{"tokenId":"` + strategiestest.Token + `","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.35,"size":10}`),
			MaxBudget: strategies.D(decimal.NewFromInt(20))})
		if err != nil {
			t.Fatal(err)
		}
		eventually(t, "the new strategy armed in the other worker", func() bool { return other.IsArmed(st.ID) })

		// The price reaches the trigger in B: B signals and disarms.
		feed.Apply(bookEvent(strategiestest.Token, "0.33", "0.34"))
		sig.await(t, st.ID)
		eventually(t, "the fired condition disarmed", func() bool { return !other.IsArmed(st.ID) })
		// The price moves back before the execution the signal woke (in A)
		// re-reads it: nothing to do, and B arms the condition again.
		feed.Apply(bookEvent(strategiestest.Token, "0.40", "0.42"))
		out, err := fx.Engine.Execute(ctx, st.ID, 1)
		if err != nil || out.Executed {
			t.Fatalf("execute: %+v %v", out, err)
		}
		eventually(t, "the condition armed again after the execution", func() bool { return other.IsArmed(st.ID) })

		if _, err := svc.Cancel(ctx, fx.Actor(), st.ID); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the cancelled strategy disarmed", func() bool { return !other.IsArmed(st.ID) })
		if n := other.Armed(); n != 0 {
			t.Fatalf("%d strategies armed after the cancel", n)
		}
	})
}
