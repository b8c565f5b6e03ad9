package users

import (
	"testing"
	"time"

	"github.com/agent-trading/ats/models"
)

func TestThrottlePolicyBacksOffExponentially(t *testing.T) {
	p := ThrottlePolicy{Free: 3, Base: 10 * time.Second, Max: time.Minute, Forget: time.Hour}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		failuresBefore int
		lastFailure    time.Duration // before now
		wantFailures   int
		wantLock       time.Duration // 0 = none
	}{
		{0, 0, 1, 0},
		{2, time.Second, 3, 0},
		{3, time.Second, 4, 10 * time.Second},
		{4, time.Second, 5, 20 * time.Second},
		{5, time.Second, 6, 40 * time.Second},
		{6, time.Second, 7, time.Minute},
		{60, time.Second, 61, time.Minute},
		{60, time.Hour, 1, 0}, // forgotten
	}
	for _, tt := range tests {
		got := p.next(models.AuthThrottle{Failures: tt.failuresBefore, LastFailureAt: now.Add(-tt.lastFailure)}, now)
		if got.Failures != tt.wantFailures {
			t.Errorf("%+v: failures %d", tt, got.Failures)
		}
		switch {
		case tt.wantLock == 0 && got.LockedUntil != nil:
			t.Errorf("%+v: locked until %v", tt, got.LockedUntil)
		case tt.wantLock != 0 && (got.LockedUntil == nil || got.LockedUntil.Sub(now) != tt.wantLock):
			t.Errorf("%+v: lock %v, want %v", tt, got.LockedUntil, tt.wantLock)
		}
	}
}
