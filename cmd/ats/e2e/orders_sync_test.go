package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/orders"
)

// TestOrderListSyncIsCoalescedAgainstTheSandbox: GET /orders with the
// default sync=true used to cost one venue round trip per open order per
// call, so one key could drive thousands of venue requests a minute. Now
// concurrent listings of one agent share one sync, which costs one request
// for the wallet's open orders when nothing changed; listings within the
// window after it cost none; an order the venue no longer lists (cancelled
// there, outside the service) is still found and synced.
func TestOrderListSyncIsCoalescedAgainstTheSandbox(t *testing.T) {
	var venueReads atomic.Int64 // order and trade reads: what a sync costs
	count := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/clob/data/") {
				venueReads.Add(1)
			}
			next.ServeHTTP(w, r)
		})
	}
	e, tr, m := newTradingTest(t, tradingOpts{wrapCLOB: count}, "Will listing stay cheap")
	ctx := context.Background()
	var placed []apiOrder
	for _, price := range []string{"0.2", "0.21", "0.22"} {
		status, body := e.call(t, tr.key, "POST", "/orders", map[string]any{"tokenId": m.TokenIDs[0], "side": "BUY", "price": json.Number(price), "size": 10})
		if o := dataOrder(t, body); status != http.StatusOK || o.Status != models.OrderOpen {
			t.Fatalf("resting buy at %s: %d %s", price, status, body)
		}
		placed = append(placed, dataOrder(t, body))
	}
	// The order workflows follow their orders with venue reads of their
	// own; without a worker only the listings reach the venue.
	e.worker.Stop()

	type listing struct {
		Data []apiOrder `json:"data"`
		Sync struct {
			Enabled bool `json:"enabled"`
			Updated int  `json:"updated"`
		} `json:"sync"`
	}
	list := func() listing {
		t.Helper()
		status, _, raw := e.send(t, tr.key, "GET", "/orders", "")
		var l listing
		if status != http.StatusOK || json.Unmarshal(raw, &l) != nil || len(l.Data) != 3 || !l.Sync.Enabled {
			t.Fatalf("GET /orders: %d %s", status, raw)
		}
		return l
	}

	venueReads.Store(0)
	const n = 10
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			list()
		}()
	}
	wg.Wait()
	if got := venueReads.Load(); got != 1 {
		t.Fatalf("%d concurrent listings made %d venue reads, want the 1 of one sync (the open-order list)", n, got)
	}
	for range 5 {
		list()
	}
	if got := venueReads.Load(); got != 1 {
		t.Fatalf("listings within the sync window made %d venue reads in all, want still 1", got)
	}

	// Cancelled on the venue behind the service's back: the next sync
	// after the window finds it gone from the open orders and syncs it.
	creds, err := e.svc.Wallets.Creds(ctx, tr.userID)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := e.svc.Wallets.Signer(ctx, tr.userID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Orders.CLOB.WithCreds(creds, signer.Address()).CancelOrder(ctx, placed[1].PolyOrderID); err != nil {
		t.Fatal(err)
	}
	time.Sleep(orders.DefaultListSyncWindow + 100*time.Millisecond)
	venueReads.Store(0)
	l := list()
	if l.Sync.Updated != 1 {
		t.Fatalf("sync.updated %d after a venue-side cancel, want 1", l.Sync.Updated)
	}
	for _, o := range l.Data {
		want := models.OrderOpen
		if o.ID == placed[1].ID {
			want = models.OrderCancelled
		}
		if o.Status != want {
			t.Fatalf("order %s is %s, want %s", o.ID, o.Status, want)
		}
	}
	if got := venueReads.Load(); got != 2 {
		t.Fatalf("the sync made %d venue reads, want 2: the open-order list and the one order it no longer shows", got)
	}
}
