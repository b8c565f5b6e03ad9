package throttle_test

import (
	"context"
	"testing"
	"time"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/throttle"
)

// clock is a test clock (the tests run on one goroutine).
type clock struct{ t time.Time }

func (c *clock) Now() time.Time          { return c.t }
func (c *clock) Advance(d time.Duration) { c.t = c.t.Add(d) }

func retryAfter(t *testing.T, err error) int {
	t.Helper()
	e, ok := errs.As(err)
	if !ok || e.Kind != errs.RateLimited || e.Code != errs.CodeTooManyAttempts {
		t.Fatalf("err %v, want RateLimited %s", err, errs.CodeTooManyAttempts)
	}
	return e.RetryAfterSeconds
}

func TestAddrKey(t *testing.T) {
	for in, want := range map[string]string{
		"192.0.2.7":               "addr:192.0.2.7",
		"::ffff:192.0.2.7":        "addr:192.0.2.7",
		"2001:db8:1:2::1":         "addr:2001:db8:1:2::/64",
		"2001:db8:1:2:ffff:ab::9": "addr:2001:db8:1:2::/64",
		"2001:db8:1:3::1":         "addr:2001:db8:1:3::/64",
		"cli":                     "addr:cli",
	} {
		if got := throttle.AddrKey(in); got != want {
			t.Errorf("AddrKey(%q) = %q, want %q", in, got, want)
		}
	}
	if throttle.AccountKey(" Alice@Example.com") != throttle.AccountKey("alice@example.com") ||
		throttle.AccountKey("alice@example.com") == throttle.AccountKey("bob@example.com") {
		t.Fatal("AccountKey does not key by the normalised email")
	}
}

func TestLimit(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := throttle.Limit{Counter: throttle.NewMemory(clk.Now), Max: 3, Window: time.Minute}
	for range 3 {
		if err := l.Check(ctx, "a", "b"); err != nil {
			t.Fatal(err)
		}
		if err := l.Fail(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		clk.Advance(10 * time.Second)
	}
	// The window opened at a's first failure, 30 s ago.
	if got := retryAfter(t, l.Check(ctx, "b", "a")); got != 30 {
		t.Fatalf("retry after %d s, want 30", got)
	}
	if err := l.Check(ctx, "b"); err != nil {
		t.Fatalf("another key: %v", err)
	}
	clk.Advance(30 * time.Second)
	if err := l.Check(ctx, "a"); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}

// TestBackoff: the free failures pass; each further one locks the key for
// twice as long as the one before, up to the cap; a reset clears it.
func TestBackoff(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	b := throttle.Backoff{Counter: throttle.NewMemory(clk.Now), Free: 3, Base: 10 * time.Second, Cap: time.Minute, Window: time.Hour}
	for i := range 2 {
		if err := b.Fail(ctx, "acct"); err != nil {
			t.Fatal(err)
		}
		if err := b.Check(ctx, "acct"); err != nil {
			t.Fatalf("after free failure %d: %v", i+1, err)
		}
	}
	for _, want := range []int{10, 20, 40, 60, 60} {
		if err := b.Fail(ctx, "acct"); err != nil {
			t.Fatal(err)
		}
		if got := retryAfter(t, b.Check(ctx, "acct")); got != want {
			t.Fatalf("locked for %d s, want %d", got, want)
		}
		clk.Advance(time.Duration(want) * time.Second)
		if err := b.Check(ctx, "acct"); err != nil {
			t.Fatalf("after the %d s lock: %v", want, err)
		}
	}
	if err := b.Fail(ctx, "acct"); err != nil {
		t.Fatal(err)
	}
	if err := b.Reset(ctx, "acct"); err != nil {
		t.Fatal(err)
	}
	if err := b.Check(ctx, "acct"); err != nil {
		t.Fatalf("after a reset: %v", err)
	}
	if err := b.Fail(ctx, "acct"); err != nil || b.Check(ctx, "acct") != nil {
		t.Fatalf("the first failure after a reset is free again: %v", b.Check(ctx, "acct"))
	}
	if b.Delay(2) != 0 || b.Delay(3) != 10*time.Second || b.Delay(1000) != time.Minute {
		t.Fatalf("delays %v %v %v", b.Delay(2), b.Delay(3), b.Delay(1000))
	}
}
