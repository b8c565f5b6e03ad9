package e2e

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/pacing"
	"github.com/agent-trading/ats/models/secret"
)

// recordingPacer is the real pacer, noting whose posts it let out.
type recordingPacer struct {
	p     *pacing.Pacer
	mu    sync.Mutex
	calls []string
}

func (r *recordingPacer) Wait(ctx context.Context, wallet, agent string) error {
	err := r.p.Wait(ctx, wallet, agent)
	r.mu.Lock()
	r.calls = append(r.calls, wallet+"/"+agent)
	r.mu.Unlock()
	return err
}

// TestPostsPacedPerWallet: ten agents of one user (one wallet) placing at
// once all go through the wallet's one bucket — here 4 posts a second,
// one at a time — and every order is placed: queued, not refused. Each
// post waited under the wallet's signer address and its own agent.
func TestPostsPacedPerWallet(t *testing.T) {
	e, tr, m := newTradingTest(t, tradingOpts{}, "Will ten agents share a bucket")
	lim := pacing.Limit{Rate: 4, Burst: 1}
	rec := &recordingPacer{p: pacing.New(pacing.NewMemoryBucket(lim), e.log)}
	e.svc.Orders.Pacer = rec
	ctx := context.Background()
	keys := []string{tr.key}
	agents := map[string]bool{tr.agentID: true}
	for len(keys) < 10 {
		plain, hash, prefix := secret.NewAPIKey()
		a := &models.Agent{UserID: tr.userID, Name: models.NewID("strategy"), Scopes: "read trade cancel", RateLimitPerMinute: 100_000}
		if err := e.store.CreateAgentWithKey(ctx, a, &models.APIKey{Hash: hash, DisplayPrefix: prefix}); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, plain)
		agents[a.ID] = true
	}
	signer, err := e.svc.Wallets.Signer(ctx, tr.userID)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	var wg sync.WaitGroup
	for _, k := range keys {
		wg.Go(func() {
			status, body := e.call(t, k, "POST", "/orders", map[string]any{"tokenId": m.TokenIDs[0], "side": "BUY", "price": 0.01, "size": 5})
			if status != http.StatusOK || dataOrder(t, body).Status != models.OrderOpen {
				t.Errorf("placement: %d %s", status, body)
			}
		})
	}
	wg.Wait()
	// Ten posts through one bucket of 4 a second (burst 1) take at least
	// 9/4 s; each through its own would take none of it.
	if took := time.Since(t0); took < 2*time.Second {
		t.Fatalf("ten posts of one wallet went out in %v: not paced", took)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.calls) != 10 {
		t.Fatalf("%d paced posts, want 10: %v", len(rec.calls), rec.calls)
	}
	for _, c := range rec.calls {
		wallet, agent, _ := strings.Cut(c, "/")
		if wallet != signer.Address().Hex() || !agents[agent] {
			t.Fatalf("paced as %q", c)
		}
		delete(agents, agent)
	}
}

// TestCancelsPacedPerWallet: cancels of one wallet's orders go through
// the wallet's cancel bucket — here 4 a second, one at a time — under the
// wallet's signer address and the cancelling agent, and every one of them
// is carried out: queued, not refused. The posts' bucket is another.
func TestCancelsPacedPerWallet(t *testing.T) {
	e, tr, m := newTradingTest(t, tradingOpts{}, "Will cancels share a bucket")
	ctx := context.Background()
	var ids []string
	for range 6 {
		status, body := e.call(t, tr.key, "POST", "/orders", map[string]any{"tokenId": m.TokenIDs[0], "side": "BUY", "price": 0.01, "size": 5})
		if status != http.StatusOK || dataOrder(t, body).Status != models.OrderOpen {
			t.Fatalf("placement: %d %s", status, body)
		}
		ids = append(ids, dataOrder(t, body).ID)
	}
	rec := &recordingPacer{p: pacing.New(pacing.NewMemoryBucket(pacing.Limit{Rate: 4, Burst: 1}), e.log)}
	e.svc.Orders.CancelPacer = rec
	t0 := time.Now()
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() {
			status, body := e.call(t, tr.key, "DELETE", "/orders/"+id, nil)
			if status != http.StatusOK || dataOrder(t, body).Status != models.OrderCancelled {
				t.Errorf("cancel %s: %d %s", id, status, body)
			}
		})
	}
	wg.Wait()
	// Six cancels through a bucket of 4 a second (burst 1) take at least
	// 5/4 s.
	if took := time.Since(t0); took < 1200*time.Millisecond {
		t.Fatalf("six cancels of one wallet went out in %v: not paced", took)
	}
	signer, err := e.svc.Wallets.Signer(ctx, tr.userID)
	if err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.calls) != len(ids) {
		t.Fatalf("%d paced cancels, want %d: %v", len(rec.calls), len(ids), rec.calls)
	}
	for _, c := range rec.calls {
		if c != signer.Address().Hex()+"/"+tr.agentID {
			t.Fatalf("paced as %q", c)
		}
	}
}
