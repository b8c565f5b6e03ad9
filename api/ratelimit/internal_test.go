package ratelimit

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestClientKey(t *testing.T) {
	tests := []struct{ ip, want string }{
		{"198.51.100.7", "198.51.100.7"},
		{"::ffff:198.51.100.7", "198.51.100.7"},
		{"2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"},
		{"2001:db8:1:2::1", "2001:db8:1:2::/64"},
		{"::1", "::/64"},
		{"", ""},
		{"not-an-ip", "not-an-ip"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, clientKey(tc.ip), tc.ip)
	}
}

func TestDecisionRetryAfter(t *testing.T) {
	now := time.Unix(1_800_000_000, 400_000_000)
	tests := []struct {
		reset time.Time
		want  int
	}{
		{time.Unix(1_800_000_060, 0), 60},
		{time.Unix(1_800_000_001, 0), 1},
		{time.Unix(1_800_000_000, 0), 1},
		{time.Unix(1_799_999_990, 0), 1},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, Decision{Reset: tc.reset}.RetryAfter(now), tc.reset)
	}
}

func TestNewDefaults(t *testing.T) {
	l := New(NewMemoryStore(), Options{})
	assert.Equal(t, DefaultPeriod, l.Period())
	assert.Equal(t, DefaultLimit, l.opts.DefaultLimit)
	assert.Equal(t, DefaultStoreTimeout, l.opts.StoreTimeout)
	assert.Panics(t, func() { New(nil, Options{}) })
}
