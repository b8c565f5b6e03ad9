package readcache

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

// fixture is a user with an agent and its key on st.
type fixture struct {
	user  *models.User
	agent *models.Agent
	hash  string
}

func newFixture(t *testing.T, st *store.Store) fixture {
	t.Helper()
	ctx := context.Background()
	u := &models.User{Email: models.NewID("u") + "@example.com", PasswordHash: "x"}
	if err := st.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	_, hash, prefix := secret.NewAPIKey()
	a := &models.Agent{UserID: u.ID, Name: "bot", Scopes: "read trade"}
	if err := st.CreateAgentWithKey(ctx, a, &models.APIKey{Hash: hash, DisplayPrefix: prefix}); err != nil {
		t.Fatal(err)
	}
	return fixture{user: u, agent: a, hash: hash}
}

// live runs r's change feed until t ends and waits until it listens.
func live(t *testing.T, r *Reads) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	for deadline := time.Now().Add(10 * time.Second); !r.Live(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the change feed never listened")
		}
	}
}

// quietly runs fn with the change triggers of table off, so a change is
// made behind the cache's back: what the cache then answers came from
// memory.
func quietly(t *testing.T, st *store.Store, trigger, table string, fn func()) {
	t.Helper()
	db := st.DB()
	if err := db.Exec("ALTER TABLE " + table + " DISABLE TRIGGER " + trigger).Error; err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := db.Exec("ALTER TABLE " + table + " ENABLE TRIGGER " + trigger).Error; err != nil {
			t.Fatal(err)
		}
	}()
	fn()
}

// eventually polls cond every 10 ms for up to a second.
func eventually(t *testing.T, what string, cond func() bool) time.Duration {
	t.Helper()
	t0 := time.Now()
	for !cond() {
		if time.Since(t0) > time.Second {
			t.Fatalf("%s: not within a second", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Since(t0)
}

// Every kind of change a trigger announces drops the entries it affects,
// at once; a change nobody announced is not seen (the read came from
// memory).
func TestChangesDropWhatTheyAffect(t *testing.T) {
	st := storetest.NewPostgres(t)
	ctx := context.Background()
	r := New(st, Options{})
	live(t, r)
	f := newFixture(t, st)

	t.Run("keys and agents", func(t *testing.T) {
		if _, a, err := r.AgentKeyByHash(ctx, f.hash); err != nil || a.Status != models.AgentActive {
			t.Fatalf("%v %v", a, err)
		}
		quietly(t, st, "agents_notify", "agents", func() {
			if err := st.DB().Exec("UPDATE agents SET name = 'renamed' WHERE id = ?", f.agent.ID).Error; err != nil {
				t.Fatal(err)
			}
		})
		if _, a, _ := r.AgentKeyByHash(ctx, f.hash); a.Name != "bot" {
			t.Fatalf("the key's agent was read again (%q): nothing is cached", a.Name)
		}
		if a, _ := r.AgentByID(ctx, f.agent.ID); a.Name != "renamed" {
			t.Fatalf("agent %q: first read", a.Name)
		}
		if err := st.UpdateAgentStatus(ctx, f.user.ID, f.agent.ID, models.AgentPaused); err != nil {
			t.Fatal(err)
		}
		took := eventually(t, "the pause", func() bool {
			_, a, err := r.AgentKeyByHash(ctx, f.hash)
			return err == nil && a.Status == models.AgentPaused
		})
		t.Logf("pause seen after %v", took)
		if a, _ := r.AgentByID(ctx, f.agent.ID); a.Status != models.AgentPaused {
			t.Fatalf("agent %s after the pause", a.Status)
		}
		if err := st.UpdateAgentStatus(ctx, f.user.ID, f.agent.ID, models.AgentRevoked); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the revocation", func() bool {
			k, a, err := r.AgentKeyByHash(ctx, f.hash)
			return err == nil && k.RevokedAt != nil && a.Status == models.AgentRevoked
		})
	})

	g := newFixture(t, st)
	t.Run("budget totals", func(t *testing.T) {
		if tot, _ := r.BudgetTotals(ctx, g.user.ID, g.agent.ID); tot.UserHeldMicro != 0 {
			t.Fatalf("%+v", tot)
		}
		if err := st.CreateBudgetReservation(ctx, &models.BudgetReservation{Ref: "o1", AgentID: g.agent.ID, UserID: g.user.ID,
			AmountMicro: 2_000_000}); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the reservation", func() bool {
			tot, err := r.BudgetTotals(ctx, g.user.ID, g.agent.ID)
			return err == nil && tot.AgentHeldMicro == 2_000_000 && tot.UserHeldMicro == 2_000_000
		})
	})

	t.Run("positions", func(t *testing.T) {
		if ps, _ := r.ListPositions(ctx, g.agent.ID, models.PositionOpen); len(ps) != 0 {
			t.Fatalf("%v", ps)
		}
		if err := st.SavePosition(ctx, &models.Position{AgentID: g.agent.ID, UserID: g.user.ID, TokenID: "tok",
			SizeMicro: 1_000_000, AvgEntryMicro: 500_000}); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the position", func() bool {
			ps, err := r.ListPositions(ctx, g.agent.ID, models.PositionOpen)
			return err == nil && len(ps) == 1
		})
	})

	t.Run("live orders", func(t *testing.T) {
		f := store.OrderFilter{AgentID: g.agent.ID, Statuses: []string{models.OrderPending, models.OrderOpen}}
		if n, _ := r.CountOrders(ctx, f); n != 0 {
			t.Fatalf("%d", n)
		}
		o := &models.Order{AgentID: g.agent.ID, UserID: g.user.ID, WalletID: "w", TokenID: "tok", Side: "BUY", Type: "GTC",
			RequestType: "LIMIT", PriceMicro: 500_000, SizeMicro: 1_000_000}
		if err := st.CreateOrder(ctx, o); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the order", func() bool { n, err := r.CountOrders(ctx, f); return err == nil && n == 1 })
	})

	t.Run("active strategies", func(t *testing.T) {
		if n, _ := r.CountStrategies(ctx, g.agent.ID, "ACTIVE"); n != 0 {
			t.Fatalf("%d", n)
		}
		s := &models.Strategy{AgentID: g.agent.ID, UserID: g.user.ID, Type: "PRICE_ALERT", Status: "ACTIVE", Config: "{}",
			MaxBudgetMicro: 1_000_000}
		if err := st.CreateStrategy(ctx, s); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the strategy", func() bool { n, err := r.CountStrategies(ctx, g.agent.ID, "ACTIVE"); return err == nil && n == 1 })
	})
}

// Without the change feed (down, or not up yet) an entry lives at most
// the fallback TTL: a change nobody announced is seen after it.
func TestWithoutTheFeedEntriesLiveOneSecond(t *testing.T) {
	st := storetest.NewPostgres(t)
	ctx := context.Background()
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	r := New(st, Options{Now: clock})
	f := newFixture(t, st)
	if _, a, err := r.AgentKeyByHash(ctx, f.hash); err != nil || a.Status != models.AgentActive {
		t.Fatal(a, err)
	}
	if err := st.UpdateAgentStatus(ctx, f.user.ID, f.agent.ID, models.AgentPaused); err != nil {
		t.Fatal(err)
	}
	if _, a, _ := r.AgentKeyByHash(ctx, f.hash); a.Status != models.AgentActive {
		t.Fatalf("%s: nothing was cached", a.Status)
	}
	mu.Lock()
	now = now.Add(DefaultFallbackTTL)
	mu.Unlock()
	if _, a, _ := r.AgentKeyByHash(ctx, f.hash); a.Status != models.AgentPaused {
		t.Fatalf("%s a second later", a.Status)
	}
}

// A read that began before a change of its entry is not cached: it may
// hold the value from before the change.
func TestAReadOlderThanAChangeIsNotKept(t *testing.T) {
	r := New(nil, Options{})
	r.live = true
	seq := r.current()
	r.invalidate(store.ChangeAgent, "a1")
	r.put("agent:a1", store.ChangeAgent+":a1", "stale", seq)
	if _, ok, _ := r.get("agent:a1"); ok {
		t.Fatal("a value read before its change was cached")
	}
	// Another agent's change does not hold it up.
	seq = r.current()
	r.invalidate(store.ChangeAgent, "a2")
	r.put("agent:a1", store.ChangeAgent+":a1", "fresh", seq)
	if v, ok, _ := r.get("agent:a1"); !ok || v != "fresh" {
		t.Fatalf("%v %v", v, ok)
	}
	// A flush (the feed came back) drops it and holds up reads begun before.
	seq = r.current()
	r.flush(true)
	if _, ok, _ := r.get("agent:a1"); ok {
		t.Fatal("kept through a flush")
	}
	r.put("agent:a1", store.ChangeAgent+":a1", "stale", seq)
	if _, ok, _ := r.get("agent:a1"); ok {
		t.Fatal("a value read before a flush was cached")
	}
}

// On SQLite every read goes to the database.
func TestSQLiteReadsThrough(t *testing.T) {
	st := storetest.NewSQLite(t)
	ctx := context.Background()
	r := New(st, Options{})
	r.Run(ctx) // returns at once
	f := newFixture(t, st)
	if _, a, err := r.AgentKeyByHash(ctx, f.hash); err != nil || a.Status != models.AgentActive {
		t.Fatal(a, err)
	}
	if err := st.UpdateAgentStatus(ctx, f.user.ID, f.agent.ID, models.AgentPaused); err != nil {
		t.Fatal(err)
	}
	if _, a, _ := r.AgentKeyByHash(ctx, f.hash); a.Status != models.AgentPaused {
		t.Fatalf("%s", a.Status)
	}
}
