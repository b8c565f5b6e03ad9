package changes_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/changes"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

func TestHub(t *testing.T) {
	h := changes.NewHub()
	a, all := h.Subscribe("usr_a"), h.Subscribe("")
	defer all.Close()
	h.Publish(changes.Change{UserID: "usr_a", Topic: changes.Orders})
	h.Publish(changes.Change{UserID: "usr_b", Topic: changes.Fills})
	if got := <-a.C; got.Topic != changes.Orders {
		t.Fatalf("a got %+v", got)
	}
	if got := []changes.Change{<-all.C, <-all.C}; got[0].UserID != "usr_a" || got[1].UserID != "usr_b" {
		t.Fatalf("all got %+v", got)
	}
	select {
	case c := <-a.C:
		t.Fatalf("a got another user's change %+v", c)
	default:
	}
	// A subscriber that falls behind is told it lost changes, once.
	for range 100 {
		h.Publish(changes.Change{UserID: "usr_a", Topic: changes.Orders})
	}
	if !a.Lost() || a.Lost() {
		t.Fatal("an overflowed subscriber is told once that it lost changes")
	}
	// The database connection lost and found again: everyone re-reads.
	for len(all.C) > 0 {
		<-all.C
	}
	h.Publish(changes.Change{})
	if !all.Lost() {
		t.Fatal("a change without a user marks every subscriber lost")
	}
	// A subscription to some topics gets only those.
	notes := h.Subscribe("", changes.Notifications)
	h.Publish(changes.Change{UserID: "usr_c", Topic: changes.Orders})
	h.Publish(changes.Change{UserID: "usr_c", Topic: changes.Notifications})
	if got := <-notes.C; got.Topic != changes.Notifications || len(notes.C) != 0 {
		t.Fatalf("a notifications subscriber got %+v", got)
	}
	notes.Close()
	a.Close()
	a.Close()
	all.Close()
	for len(a.C) > 0 {
		<-a.C
	}
	for len(all.C) > 0 {
		<-all.C
	}
	h.Publish(changes.Change{UserID: "usr_a", Topic: changes.Orders})
	if len(a.C) != 0 || len(all.C) != 0 {
		t.Fatal("closed subscriptions still get changes")
	}
}

// listening waits until the feed's LISTEN is in place on PostgreSQL: it
// starts in a goroutine, and a change committed before it is not heard
// (the dashboard re-reads on connect; a test would wait in vain).
func listening(t *testing.T, s *store.Store, h *changes.Hub) {
	t.Helper()
	if s.Dialect() != store.Postgres {
		return
	}
	probe := h.Subscribe("usr_probe")
	defer probe.Close()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if err := s.Notify(context.Background(), changes.Channel, "usr_probe probe"); err != nil {
			t.Fatal(err)
		}
		select {
		case <-probe.C:
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatal("the feed never listened")
}

// await waits for a change of user under topic on sub.
func await(t *testing.T, sub *changes.Sub, user, topic string) {
	t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		select {
		case c := <-sub.C:
			if c.UserID == user && c.Topic == topic {
				return
			}
		case <-deadline:
			t.Fatalf("no %s change of %s", topic, user)
		}
	}
}

func order(t *testing.T, s *store.Store, user string) *models.Order {
	t.Helper()
	o := &models.Order{AgentID: "agt_" + user, UserID: user, WalletID: "wal_1", TokenID: "1", Side: "BUY", Type: "GTC",
		PriceMicro: 500_000, SizeMicro: 1_000_000}
	if err := s.CreateOrder(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	return o
}

// TestFeed: a write reaches the hub with its user, also an update that
// names only the order.
func TestFeed(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx, cancel := context.WithCancel(context.Background())
		h := changes.NewHub()
		done := changes.Feed(ctx, s, h, nil)
		defer func() { cancel(); <-done }()
		listening(t, s, h)
		sub := h.Subscribe("usr_1")
		defer sub.Close()
		o := order(t, s, "usr_1")
		await(t, sub, "usr_1", changes.Orders)
		open := models.OrderOpen
		if err := s.UpdateOrder(ctx, o.ID, nil, store.OrderUpdate{Status: &open}); err != nil {
			t.Fatal(err)
		}
		await(t, sub, "usr_1", changes.Orders)
	})
}

// TestFeedAcrossProcesses: with PostgreSQL, the API and the worker are
// separate processes on one database; a change one of them commits
// reaches the other's hub (NOTIFY/LISTEN).
func TestFeedAcrossProcesses(t *testing.T) {
	base := os.Getenv(storetest.EnvDatabaseURL)
	if base == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not set", storetest.EnvDatabaseURL)
		}
		t.Skip("needs PostgreSQL: set " + storetest.EnvDatabaseURL)
	}
	url := storetest.CreateDatabase(t, base)
	open := func() *store.Store {
		s, err := store.Open(context.Background(), store.Config{URL: url})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		if _, err := s.Migrate(context.Background()); err != nil {
			t.Fatal(err)
		}
		return s
	}
	worker, api := open(), open()
	ctx, cancel := context.WithCancel(context.Background())
	wHub, aHub := changes.NewHub(), changes.NewHub()
	wDone, aDone := changes.Feed(ctx, worker, wHub, nil), changes.Feed(ctx, api, aHub, nil)
	defer func() { cancel(); <-wDone; <-aDone }()
	sub := aHub.Subscribe("usr_2")
	defer sub.Close()
	// The API process listens from its first notification on: wait for
	// its subscription before the worker writes.
	deadline := time.Now().Add(10 * time.Second)
	for len(sub.C) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	order(t, worker, "usr_2")
	await(t, sub, "usr_2", changes.Orders)
}
