package strategies_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/strategies/strategiestest"
)

// A hint only ever wakes a check: a RECURRING_BUY buys when the database
// says its interval has passed, however often it is told to look (a forged
// "price" signal, the late fill of its last buy).
func TestRecurringBuyBuysOnlyWhenItsIntervalIsDue(t *testing.T) {
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	fx := strategiestest.New(t, storetest.NewSQLite(t), func() time.Time { return now })
	svc := &strategiestest.Desk{Runs: noRunner{}, Service: &strategies.Service{Store: fx.Store, Resolver: strategiestest.Resolver{}, Now: func() time.Time { return now }}}
	st, err := svc.Create(context.Background(), fx.Actor(), strategies.CreateRequest{Type: "RECURRING_BUY",
		Config: json.RawMessage(`{"tokenId":"1001","amountPerInterval":5,"interval":"1d"}`), MaxBudget: strategies.D(decimal.RequireFromString("50"))})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	out, err := fx.Engine.Execute(ctx, st.ID, 1)
	if err != nil || !out.Executed || out.Kind != strategies.KindAction {
		t.Fatalf("the first buy: %+v %v", out, err)
	}
	for _, after := range []time.Duration{time.Second, 10 * time.Second, time.Hour, 24*time.Hour - 3*time.Second} {
		now = now.Add(after - now.Sub(time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)))
		out, err := fx.Engine.Execute(ctx, st.ID, 2)
		if err != nil || out.Executed {
			t.Fatalf("a check %v after the buy executed: %+v %v", after, out, err)
		}
		if _, placed := fx.Placer.Counts(); placed != 1 {
			t.Fatalf("%v after the buy: %d orders placed", after, placed)
		}
	}
	// Within the slack for the two clocks (the timer's and the worker's),
	// then at the due time.
	now = time.Date(2030, 1, 2, 12, 0, 0, 0, time.UTC).Add(-time.Second)
	if out, err := fx.Engine.Execute(ctx, st.ID, 2); err != nil || !out.Executed || out.Kind != strategies.KindAction {
		t.Fatalf("the due buy: %+v %v", out, err)
	}
	if _, placed := fx.Placer.Counts(); placed != 2 {
		t.Fatalf("%d orders placed, want 2", placed)
	}
}

// Every change of what a strategy does moves its version, whoever writes
// it; an execution that leaves the status as it is does not.
func TestStrategyVersionMovesWithEveryChange(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		fx := strategiestest.New(t, s, nil)
		svc := &strategiestest.Desk{Runs: strategiestest.Direct{Engine: fx.Engine}, Service: &strategies.Service{Store: s, Resolver: strategiestest.Resolver{}}}
		ctx := context.Background()
		st, err := svc.Create(ctx, fx.Actor(), strategies.CreateRequest{Type: "PRICE_ALERT", Config: json.RawMessage(`{"tokenId":"1001","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.35,"size":10}`),
			MaxBudget: strategies.D(decimal.RequireFromString("20"))})
		if err != nil {
			t.Fatal(err)
		}
		version := func() int64 {
			t.Helper()
			row, err := s.StrategyByID(ctx, st.ID)
			if err != nil {
				t.Fatal(err)
			}
			return row.Version
		}
		want := int64(0)
		for _, step := range []struct {
			name  string
			moves bool
			do    func() error
		}{
			{"an unconfirmed check", false, func() error { _, err := fx.Engine.Execute(ctx, st.ID, 1); return err }},
			{"the same status written again", false, func() error {
				return s.UpdateStrategy(ctx, st.ID, nil, store.StrategyUpdate{Status: ptr(strategies.StatusActive), LastError: ptr("")})
			}},
			{"pause", true, func() error { _, err := svc.Pause(ctx, fx.Actor(), st.ID); return err }},
			{"resume", true, func() error { _, err := svc.Resume(ctx, fx.Actor(), st.ID); return err }},
			{"extend", true, func() error { _, err := svc.Extend(ctx, fx.Actor(), st.ID, time.Now().Add(48*time.Hour)); return err }},
			{"patch", true, func() error {
				_, err := svc.Patch(ctx, fx.Actor(), st.ID, strategies.PatchRequest{Config: json.RawMessage(`{"triggerPrice":0.3}`)})
				return err
			}},
			{"a status written by another path", true, func() error {
				return s.UpdateStrategy(ctx, st.ID, nil, store.StrategyUpdate{Status: ptr(strategies.StatusPaused)})
			}},
		} {
			if err := step.do(); err != nil {
				t.Fatalf("%s: %v", step.name, err)
			}
			if step.moves {
				want++
			}
			if got := version(); got != want {
				t.Fatalf("after %s: version %d, want %d", step.name, got, want)
			}
		}
	})
}

// A change is applied only to the version it was made for, and audited in
// the transaction that applies it; one made for an earlier version (taken
// from the workflow's history) is refused and leaves no trace.
func TestApplyRefusesAChangeMadeForAnotherVersion(t *testing.T) {
	fx, id := newAlert(t)
	ctx := context.Background()
	apply := func(action string, version int64) (strategies.State, error) {
		return fx.Engine.Apply(ctx, strategies.Change{StrategyID: id, Action: action, By: strategies.ByUser, Version: version, ClientAddr: "203.0.113.7"})
	}
	if st, err := apply(strategies.ActionPause, 0); err != nil || st.Status != strategies.StatusPaused || st.Version != 1 {
		t.Fatalf("pause: %+v %v", st, err)
	}
	resume := int64(1)
	if st, err := apply(strategies.ActionResume, resume); err != nil || st.Status != strategies.StatusActive {
		t.Fatalf("resume: %+v %v", st, err)
	}
	if st, err := apply(strategies.ActionPause, 2); err != nil || st.Status != strategies.StatusPaused {
		t.Fatalf("second pause: %+v %v", st, err)
	}
	// The resume again, as recorded: refused.
	if st, err := apply(strategies.ActionResume, resume); errs.CodeOf(err) != errs.CodeStrategyState || st.Status != strategies.StatusPaused {
		t.Fatalf("the resume replayed: %+v %v", st, err)
	}
	// A version the strategy has not reached yet is refused too.
	if _, err := apply(strategies.ActionResume, 9); errs.CodeOf(err) != errs.CodeStrategyState {
		t.Fatalf("a change for a future version: %v", err)
	}
	row, err := fx.Store.StrategyByID(ctx, id)
	if err != nil || row.Status != strategies.StatusPaused || row.Version != 3 {
		t.Fatalf("stored %+v %v", row, err)
	}
	page, err := (&audit.Service{Store: fx.Store}).List(ctx, audit.Filter{UserID: fx.UserID})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := len(page.Entries) - 1; i >= 0; i-- {
		e := page.Entries[i]
		if e.Target == id && e.Action != audit.ActionStrategy+"create" {
			if e.ClientAddr != "203.0.113.7" || e.Result != audit.Success {
				t.Fatalf("entry %+v", e)
			}
			got = append(got, e.Action)
		}
	}
	if strings.Join(got, ",") != "strategy.pause,strategy.resume,strategy.pause" {
		t.Fatalf("audited %v, want the three changes that took effect", got)
	}
}

// A COPY_TRADE whose target became the user's own wallet after it was
// created never places a copy of the user's trade: the execution stops
// the strategy (ERROR) with the reason, and a resume is refused.
func TestCopyOfTheUsersOwnWalletIsNeverPlaced(t *testing.T) {
	f := newCopy(t, `{"targetAddress":"`+copyTarget+`","sizingMode":"fixed","fixedAmount":5,"copySells":true}`, "100")
	ctx := context.Background()
	f.trade(t, "11", "BUY", "10", "0.5")
	if _, _, o := f.next(t); o == nil {
		t.Fatal("the copy of another wallet was not placed")
	}
	// The user imports the target's key as their own wallet.
	importWallet(t, f.Store, f.UserID, copyTarget)
	tx := f.trade(t, "11", "BUY", "10", "0.5")
	out, rec, o := f.next(t)
	if o != nil || rec.Kind != strategies.KindError || !strings.Contains(rec.Reason, "your own wallet") || !strings.Contains(rec.Reason, tx) {
		t.Fatalf("the copy of the user's own trade: %+v, order %+v", rec, o)
	}
	if out.State.Status != strategies.StatusError || !strings.Contains(out.State.LastError, "your own wallet") {
		t.Fatalf("state %+v", out.State)
	}
	if calls, placed := f.Placer.Counts(); calls != 1 || placed != 1 {
		t.Fatalf("place calls %d, placed %d", calls, placed)
	}
	svc := &strategiestest.Desk{Runs: strategiestest.Direct{Engine: f.Engine}, Service: &strategies.Service{Store: f.Store, Resolver: strategiestest.Resolver{}}}
	if _, err := svc.Resume(ctx, f.Actor(), f.id); errs.CodeOf(err) != errs.CodeCopyOwnWallet {
		t.Fatalf("resume: %v", err)
	}
}

// Importing a wallet stops (ERROR, with the reason, an event and an audit
// entry) the user's COPY_TRADE strategies that copy it; the others keep
// copying.
func TestStopOwnCopies(t *testing.T) {
	f := newCopy(t, `{"targetAddress":"`+copyTarget+`","sizingMode":"fixed","fixedAmount":5,"copySells":true}`, "100")
	ctx := context.Background()
	svc := &strategiestest.Desk{Runs: noRunner{}, Service: &strategies.Service{Store: f.Store, Resolver: strategiestest.Resolver{}}}
	other, err := svc.Create(ctx, f.Actor(), strategies.CreateRequest{Type: "COPY_TRADE",
		Config:    json.RawMessage(`{"targetAddress":"0x00000000000000000000000000000000000000B2","sizingMode":"fixed","fixedAmount":5,"copySells":true}`),
		MaxBudget: strategies.D(decimal.RequireFromString("10"))})
	if err != nil {
		t.Fatal(err)
	}
	if ids, err := strategies.StopOwnCopies(ctx, f.Store, nil, f.UserID, "203.0.113.7"); err != nil || len(ids) != 0 {
		t.Fatalf("without a wallet: %v %v", ids, err)
	}
	importWallet(t, f.Store, f.UserID, copyTarget)
	ids, err := strategies.StopOwnCopies(ctx, f.Store, nil, f.UserID, "203.0.113.7")
	if err != nil || len(ids) != 1 || ids[0] != f.id {
		t.Fatalf("stopped %v %v, want [%s]", ids, err, f.id)
	}
	row, err := f.Store.StrategyByID(ctx, f.id)
	if err != nil || row.Status != strategies.StatusError || !strings.Contains(row.LastError, "your own wallet") {
		t.Fatalf("stopped strategy %+v %v", row, err)
	}
	if row, err := f.Store.StrategyByID(ctx, other.ID); err != nil || row.Status != strategies.StatusActive {
		t.Fatalf("the other strategy %+v %v", row, err)
	}
	page, err := (&audit.Service{Store: f.Store}).List(ctx, audit.Filter{UserID: f.UserID, Action: audit.ActionStrategy + "stop"})
	if err != nil || len(page.Entries) != 1 || page.Entries[0].Target != f.id || page.Entries[0].ClientAddr != "203.0.113.7" {
		t.Fatalf("audit %+v %v", page, err)
	}
	// A recorded event of the target is not copied.
	f.trade(t, "11", "BUY", "10", "0.5")
	if out, err := f.Engine.Execute(ctx, f.id, 1); err != nil || out.Executed {
		t.Fatalf("an execution of the stopped strategy: %+v %v", out, err)
	}
	if calls, _ := f.Placer.Counts(); calls != 0 {
		t.Fatalf("%d placements", calls)
	}
	// Again: nothing left to stop.
	if ids, err := strategies.StopOwnCopies(ctx, f.Store, nil, f.UserID, "203.0.113.7"); err != nil || len(ids) != 0 {
		t.Fatalf("a second run stopped %v %v", ids, err)
	}
}

// importWallet stores a wallet for userID whose trading address is addr
// (as an import does; the key is never opened here).
func importWallet(t *testing.T, s *store.Store, userID, addr string) {
	t.Helper()
	w := &models.Wallet{ID: models.NewID(models.PrefixWallet), UserID: userID, Kind: "proxy", EOAAddress: "0x00000000000000000000000000000000000000E0",
		FunderAddress: addr, SignatureType: 1, KeyCiphertext: []byte{1}, KeyNonce: []byte{1}}
	if err := s.UpsertWallet(context.Background(), w); err != nil {
		t.Fatal(err)
	}
}
