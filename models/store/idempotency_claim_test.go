package store_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

func TestIdempotencyClaim(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		var mu sync.Mutex
		s.SetClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
		advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }

		// Invalid input.
		for _, tc := range []struct{ agent, key, hash string }{{"", "k", "h"}, {"a", "", "h"}, {"a", "k", ""}} {
			if _, _, err := s.ClaimIdempotency(ctx, tc.agent, tc.key, tc.hash, time.Hour, time.Minute); errs.KindOf(err) != errs.Invalid {
				t.Fatalf("claim %+v: %v", tc, err)
			}
		}

		c1, won, err := s.ClaimIdempotency(ctx, "a", "k", "h1", time.Hour, time.Minute)
		if err != nil || !won || c1.ResponseStatus != store.IdempotencyPending {
			t.Fatalf("first claim: %+v %v %v", c1, won, err)
		}
		got, won, err := s.ClaimIdempotency(ctx, "a", "k", "h2", time.Hour, time.Minute)
		if err != nil || won || got.RequestHash != "h1" || got.ResponseStatus != store.IdempotencyPending {
			t.Fatalf("second claim: %+v %v %v", got, won, err)
		}
		if err := s.CompleteIdempotency(ctx, c1, 201, []byte(`{"ok":true}`)); err != nil {
			t.Fatal(err)
		}
		got, won, err = s.ClaimIdempotency(ctx, "a", "k", "h1", time.Hour, time.Minute)
		if err != nil || won || got.ResponseStatus != 201 || string(got.ResponseBody) != `{"ok":true}` {
			t.Fatalf("after complete: %+v %v %v", got, won, err)
		}
		// A completed record is not a stale placeholder: no takeover
		// after the lease, only after the TTL.
		advance(30 * time.Minute)
		if _, won, _ := s.ClaimIdempotency(ctx, "a", "k", "h1", time.Hour, time.Minute); won {
			t.Fatal("completed record taken over before expiry")
		}
		advance(30 * time.Minute)
		if _, won, err := s.ClaimIdempotency(ctx, "a", "k", "h3", time.Hour, time.Minute); err != nil || !won {
			t.Fatalf("after expiry: %v %v", won, err)
		}

		// Release frees the key; a completed claim can't be released.
		c2, _, _ := s.ClaimIdempotency(ctx, "a", "r", "h", time.Hour, time.Minute)
		if err := s.ReleaseIdempotency(ctx, c2); err != nil {
			t.Fatal(err)
		}
		if _, won, err := s.ClaimIdempotency(ctx, "a", "r", "h", time.Hour, time.Minute); err != nil || !won {
			t.Fatalf("after release: %v %v", won, err)
		}
		if err := s.CompleteIdempotency(ctx, c2, 0, nil); errs.KindOf(err) != errs.Invalid {
			t.Fatalf("complete with status 0: %v", err)
		}
	})
}

func TestIdempotencyClaimConcurrent(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		var wins atomic.Int64
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				_, won, err := s.ClaimIdempotency(ctx, "a", "race", "h", time.Hour, time.Minute)
				if err != nil {
					t.Error(err)
				}
				if won {
					wins.Add(1)
				}
			})
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Fatalf("%d claims won, want 1", wins.Load())
		}
	})
}
