package secret

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-trading/ats/models/errs"
)

// TestGateBoundsConcurrentHashes: 20 password checks at once through a
// gate with room for 2 default-cost hashes never run more than 2 at a
// time (so never hold more than its memory budget); those that cannot get
// room within the wait are refused with server_busy instead of queueing.
func TestGateBoundsConcurrentHashes(t *testing.T) {
	per := DefaultArgon2.MemoryKiB
	g := NewGate(2*int64(per), 300*time.Millisecond)
	var running, peak atomic.Int64
	var ran, busy atomic.Int64
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := g.Do(context.Background(), per, func() {
				n := running.Add(1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				time.Sleep(100 * time.Millisecond) // a hash's worth of work
				running.Add(-1)
				ran.Add(1)
			})
			switch {
			case err == nil:
			case errs.CodeOf(err) == errs.CodeServerBusy && errs.Is(err, errs.Transient):
				busy.Add(1)
			default:
				t.Errorf("Do: %v", err)
			}
		}()
	}
	wg.Wait()
	if p := peak.Load(); p > 2 {
		t.Fatalf("%d hashes ran at once, want at most 2", p)
	}
	if ran.Load() < 2 || busy.Load() == 0 || ran.Load()+busy.Load() != 20 {
		t.Fatalf("%d ran, %d refused busy: want some of each, 20 in all", ran.Load(), busy.Load())
	}
	// A cost above the budget runs alone instead of never.
	if err := g.Do(context.Background(), 10*per, func() {}); err != nil {
		t.Fatalf("an oversized hash: %v", err)
	}
}

// TestVerifyThroughFullGate: with the gate's room taken, a verification
// waits its time and is refused, without computing anything; once room is
// free it verifies as usual.
func TestVerifyThroughFullGate(t *testing.T) {
	p := Argon2Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1, SaltLen: 16, KeyLen: 32}
	h, err := HashPasswordWith("correct horse", p)
	if err != nil {
		t.Fatal(err)
	}
	g := NewGate(64, 50*time.Millisecond)
	hold := make(chan struct{})
	held := make(chan struct{})
	go func() { _ = g.Do(context.Background(), 64, func() { close(held); <-hold }) }()
	<-held
	t0 := time.Now()
	ok, err := VerifyPasswordContext(context.Background(), g, h, "correct horse")
	if ok || errs.CodeOf(err) != errs.CodeServerBusy {
		t.Fatalf("verify with the gate full: %v %v", ok, err)
	}
	if e, _ := errs.As(err); e.RetryAfterSeconds != 1 || time.Since(t0) < 50*time.Millisecond {
		t.Fatalf("refused after %v with %+v", time.Since(t0), e)
	}
	close(hold)
	if ok, err := VerifyPasswordContext(context.Background(), g, h, "correct horse"); !ok || err != nil {
		t.Fatalf("verify once the gate has room: %v %v", ok, err)
	}
}

func TestDefaultBudget(t *testing.T) {
	per := int64(DefaultArgon2.MemoryKiB)
	for _, tc := range []struct {
		cpus     int
		memLimit int64
		want     int64
	}{
		{2, 1<<63 - 1, 4 * per},  // no GOMEMLIMIT: two per CPU
		{8, 1<<63 - 1, 16 * per}, // more CPUs, more room
		{8, 512 << 20, 2 * per},  // a quarter of 512 MiB
		{2, 64 << 20, per},       // never less than one hash
		{0, 1<<63 - 1, 2 * per},  // a CPU count of 0 counts as 1
	} {
		if got := defaultBudgetKiB(tc.cpus, tc.memLimit); got != tc.want {
			t.Errorf("defaultBudgetKiB(%d, %d) = %d, want %d", tc.cpus, tc.memLimit, got, tc.want)
		}
	}
}
