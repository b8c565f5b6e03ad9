package strategies_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/pricefeed"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/venue/ws"
)

type signals struct {
	mu  sync.Mutex
	got map[string]int
	ch  chan string
}

func newSignals() *signals { return &signals{got: map[string]int{}, ch: make(chan string, 100)} }

func (s *signals) signal(_ context.Context, id string) error {
	s.mu.Lock()
	s.got[id]++
	s.mu.Unlock()
	s.ch <- id
	return nil
}

func (s *signals) count(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.got[id]
}

func (s *signals) await(t *testing.T, id string) {
	t.Helper()
	select {
	case got := <-s.ch:
		if got != id {
			t.Fatalf("signalled %s, want %s", got, id)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%s was never signalled", id)
	}
}

func bookEvent(tok, bid, ask string) *ws.BookEvent {
	return &ws.BookEvent{AssetID: tok, Market: "0xm", Timestamp: time.Now(), TickSize: decimal.RequireFromString("0.01"),
		Bids: []ws.Level{{Price: decimal.RequireFromString(bid), Size: decimal.NewFromInt(100)}},
		Asks: []ws.Level{{Price: decimal.RequireFromString(ask), Size: decimal.NewFromInt(100)}}}
}

func TestTriggersSignalOnlyTheStrategyWhoseConditionIsMet(t *testing.T) {
	feed := pricefeed.New(pricefeed.Config{})
	sig := newSignals()
	tr := &strategies.Triggers{Feed: feed, Signal: sig.signal}
	buyLow := []strategies.Cond{{TokenID: "7", Field: strategies.FieldBestAsk, Op: strategies.OpAtOrBelow, Threshold: decimal.RequireFromString("0.40")}}
	sellHigh := []strategies.Cond{{TokenID: "7", Field: strategies.FieldBestBid, Op: strategies.OpAtOrAbove, Threshold: decimal.RequireFromString("0.60")}}
	tr.Arm("str_low", buyLow)
	tr.Arm("str_high", sellHigh)
	feed.Apply(bookEvent("7", "0.45", "0.47"))
	time.Sleep(50 * time.Millisecond)
	if sig.count("str_low")+sig.count("str_high") != 0 {
		t.Fatal("signalled with no condition met")
	}
	// The bid reaches 0.40 but a buy reads the ask (0.42): not met.
	feed.Apply(bookEvent("7", "0.40", "0.42"))
	time.Sleep(50 * time.Millisecond)
	if sig.count("str_low") != 0 {
		t.Fatal("a buy condition fired on the bid")
	}
	feed.Apply(bookEvent("7", "0.38", "0.39"))
	sig.await(t, "str_low")
	// Fired conditions are disarmed until the execution re-arms them.
	feed.Apply(bookEvent("7", "0.37", "0.38"))
	time.Sleep(50 * time.Millisecond)
	if n := sig.count("str_low"); n != 1 || sig.count("str_high") != 0 || tr.Armed() != 1 {
		t.Fatalf("signals low %d high %d, armed %d", n, sig.count("str_high"), tr.Armed())
	}
	// Re-armed while already met: fires at once, without waiting for an event.
	tr.Arm("str_low", buyLow)
	sig.await(t, "str_low")
	feed.Apply(bookEvent("7", "0.61", "0.63"))
	sig.await(t, "str_high")
	// Disarmed: nothing.
	feed.Apply(bookEvent("7", "0.45", "0.47"))
	tr.Arm("str_high", nil)
	tr.Arm("str_high", sellHigh)
	tr.Arm("str_high", nil)
	feed.Apply(bookEvent("7", "0.70", "0.72"))
	time.Sleep(50 * time.Millisecond)
	if sig.count("str_high") != 1 {
		t.Fatalf("a disarmed strategy was signalled %d times", sig.count("str_high"))
	}
}

func TestTriggersRebuildFromTheStore(t *testing.T) {
	s := storetest.NewSQLite(t)
	ctx := context.Background()
	conds, _ := json.Marshal([]strategies.Cond{{TokenID: "9", Field: strategies.FieldBestAsk, Op: strategies.OpAtOrBelow, Threshold: decimal.RequireFromString("0.3")}})
	for _, st := range []*models.Strategy{
		{ID: "str_a", Status: strategies.StatusActive, Triggers: string(conds)},
		{ID: "str_b", Status: strategies.StatusPaused, Triggers: string(conds)}, // not armed when not ACTIVE
		{ID: "str_c", Status: strategies.StatusActive},                          // a RECURRING_BUY: no conditions
	} {
		st.AgentID, st.UserID, st.Type, st.Config = "agt_1", "usr_1", strategies.TypePriceAlert, "{}"
		if err := s.CreateStrategy(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	feed := pricefeed.New(pricefeed.Config{})
	sig := newSignals()
	tr := &strategies.Triggers{Feed: feed, Signal: sig.signal}
	n, err := tr.Rebuild(ctx, s)
	if err != nil || n != 1 || tr.Armed() != 1 {
		t.Fatalf("rebuilt %d (%v), armed %d", n, err, tr.Armed())
	}
	feed.Apply(bookEvent("9", "0.2", "0.25"))
	sig.await(t, "str_a")
}

// TestTriggersSyncAdoptsStrategiesArmedElsewhere: a worker's Sync arms the
// ACTIVE strategies whose conditions live in another worker (one that may
// die), leaves those it holds alone, and drops those no longer ACTIVE.
func TestTriggersSyncAdoptsStrategiesArmedElsewhere(t *testing.T) {
	s := storetest.NewSQLite(t)
	ctx := context.Background()
	conds, _ := json.Marshal([]strategies.Cond{{TokenID: "9", Field: strategies.FieldBestAsk, Op: strategies.OpAtOrBelow, Threshold: decimal.RequireFromString("0.3")}})
	for _, id := range []string{"str_mine", "str_theirs", "str_paused"} {
		st := &models.Strategy{ID: id, Status: strategies.StatusActive, Triggers: string(conds),
			AgentID: "agt_1", UserID: "usr_1", Type: strategies.TypePriceAlert, Config: "{}"}
		if err := s.CreateStrategy(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	feed := pricefeed.New(pricefeed.Config{})
	sig := newSignals()
	tr := &strategies.Triggers{Feed: feed, Signal: sig.signal}
	var c []strategies.Cond
	_ = json.Unmarshal(conds, &c)
	tr.Arm("str_mine", c)
	tr.Arm("str_paused", c)
	paused := strategies.StatusPaused
	if err := s.UpdateStrategy(ctx, "str_paused", []string{strategies.StatusActive}, store.StrategyUpdate{Status: &paused}); err != nil {
		t.Fatal(err)
	}
	armed, disarmed, err := tr.Sync(ctx, s)
	if err != nil || armed != 1 || disarmed != 1 || !tr.IsArmed("str_theirs") || !tr.IsArmed("str_mine") || tr.IsArmed("str_paused") {
		t.Fatalf("sync: armed %d, disarmed %d (%v); theirs %v mine %v paused %v", armed, disarmed, err,
			tr.IsArmed("str_theirs"), tr.IsArmed("str_mine"), tr.IsArmed("str_paused"))
	}
	if armed, disarmed, _ := tr.Sync(ctx, s); armed+disarmed != 0 {
		t.Fatalf("a second sync changed %d, %d", armed, disarmed)
	}
	feed.Apply(bookEvent("9", "0.2", "0.25"))
	for deadline := time.Now().Add(5 * time.Second); sig.count("str_theirs") == 0 || sig.count("str_mine") == 0; {
		if time.Now().After(deadline) {
			t.Fatalf("signals: theirs %d, mine %d", sig.count("str_theirs"), sig.count("str_mine"))
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	if sig.count("str_paused") != 0 {
		t.Fatal("a paused strategy was signalled")
	}
}

// TestTriggersConditionMetWhileItsSignalIsInFlight: the signal reaches
// the workflow before its RPC returns here, and the execution it starts
// re-arms conditions that are met at once. That fire must not be dropped
// as "a signal is in flight already": the strategy would stay disarmed
// here with nothing left to re-arm it.
func TestTriggersConditionMetWhileItsSignalIsInFlight(t *testing.T) {
	feed := pricefeed.New(pricefeed.Config{})
	sellHigh := []strategies.Cond{{TokenID: "7", Field: strategies.FieldBestBid, Op: strategies.OpAtOrAbove, Threshold: decimal.RequireFromString("0.60")}}
	sig := newSignals()
	var tr *strategies.Triggers
	var once sync.Once
	tr = &strategies.Triggers{Feed: feed, Signal: func(ctx context.Context, id string) error {
		// The execution this signal started ran and re-armed before the
		// RPC answered.
		once.Do(func() { tr.Arm(id, sellHigh) })
		return sig.signal(ctx, id)
	}}
	tr.Arm("str_high", sellHigh)
	feed.Apply(bookEvent("7", "0.61", "0.63"))
	sig.await(t, "str_high")
	sig.await(t, "str_high")
	time.Sleep(50 * time.Millisecond)
	if n := sig.count("str_high"); n != 2 {
		t.Fatalf("signalled %d times, want 2 (the one in flight, then one for the condition met meanwhile)", n)
	}
	// The second signal's execution re-arms as usual.
	tr.Arm("str_high", sellHigh)
	sig.await(t, "str_high")
}
