package heartbeat

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustHours(t *testing.T, start, end, zone string) *Hours {
	t.Helper()
	h, err := ParseHours(start, end, zone)
	require.NoError(t, err)
	return h
}

func TestParseHours(t *testing.T) {
	for _, bad := range [][3]string{
		{"9:00", "17:00", "UTC"}, {"24:00", "17:00", "UTC"}, {"09:60", "17:00", "UTC"},
		{"09:00", "09:00", "UTC"}, {"09:00", "17:00", "Mars/Base"}, {"09:00", "17:00", ""}, {"09:00", "17:00", "Local"},
	} {
		_, err := ParseHours(bad[0], bad[1], bad[2])
		assert.Error(t, err, "%v", bad)
	}
}

func TestActiveAndNext(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	require.NoError(t, err)
	ny, err := time.LoadLocation("America/New_York")
	require.NoError(t, err)
	at := func(loc *time.Location, y int, mo time.Month, d, hh, mm int) time.Time {
		return time.Date(y, mo, d, hh, mm, 0, 0, loc)
	}
	for _, tc := range []struct {
		name       string
		start, end string
		zone       string
		now        time.Time
		active     bool
		next       time.Time // NextActive(now)
	}{
		{"inside a day window", "09:00", "17:00", "Europe/Berlin", at(berlin, 2026, 6, 10, 12, 0), true, at(berlin, 2026, 6, 10, 12, 0)},
		{"end is exclusive", "09:00", "17:00", "Europe/Berlin", at(berlin, 2026, 6, 10, 17, 0), false, at(berlin, 2026, 6, 11, 9, 0)},
		{"before the window", "09:00", "17:00", "Europe/Berlin", at(berlin, 2026, 6, 10, 8, 59), false, at(berlin, 2026, 6, 10, 9, 0)},
		{"across midnight, late evening", "22:00", "06:00", "Europe/Berlin", at(berlin, 2026, 6, 10, 23, 30), true, at(berlin, 2026, 6, 10, 23, 30)},
		{"across midnight, early morning", "22:00", "06:00", "Europe/Berlin", at(berlin, 2026, 6, 11, 5, 59), true, at(berlin, 2026, 6, 11, 5, 59)},
		{"across midnight, asleep at noon", "22:00", "06:00", "Europe/Berlin", at(berlin, 2026, 6, 11, 12, 0), false, at(berlin, 2026, 6, 11, 22, 0)},
		// Spring forward in Berlin: 2026-03-29 02:00 CET jumps to 03:00 CEST.
		{"opening inside the gap opens at the jump", "02:30", "08:00", "Europe/Berlin", at(berlin, 2026, 3, 29, 1, 0), false,
			time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC)},
		{"gap: after the jump is active", "02:30", "08:00", "Europe/Berlin", time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC), true,
			time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC)},
		// Fall back in New York: 2026-11-01 02:00 EDT returns to 01:00 EST.
		{"overlap: opens at the first 01:30", "01:30", "05:00", "America/New_York", at(ny, 2026, 11, 1, 0, 0), false,
			time.Date(2026, 11, 1, 5, 30, 0, 0, time.UTC)},
		{"overlap: the repeated 01:15 is judged by the same clock", "01:30", "05:00", "America/New_York",
			time.Date(2026, 11, 1, 6, 15, 0, 0, time.UTC), false, time.Date(2026, 11, 1, 6, 30, 0, 0, time.UTC)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := mustHours(t, tc.start, tc.end, tc.zone)
			assert.Equal(t, tc.active, h.Active(tc.now))
			assert.True(t, tc.next.Equal(h.NextActive(tc.now)), "next %v, want %v", h.NextActive(tc.now).UTC(), tc.next.UTC())
		})
	}
}

func TestNextCheck(t *testing.T) {
	now := time.Date(2026, 6, 10, 10, 0, 0, 0, time.UTC)
	assert.Equal(t, now.Add(30*time.Second), NextCheck(now, 30*time.Second, nil), "always active")
	tokyo := mustHours(t, "22:00", "06:00", "Asia/Tokyo") // 13:00–21:00 UTC
	assert.Equal(t, time.Date(2026, 6, 10, 13, 0, 0, 0, time.UTC), NextCheck(now, time.Minute, tokyo),
		"asleep: the window's opening is later than the interval")
	in := time.Date(2026, 6, 10, 20, 59, 30, 0, time.UTC)
	assert.Equal(t, in.Add(20*time.Second), NextCheck(in, 20*time.Second, tokyo), "inside")
	assert.Equal(t, time.Date(2026, 6, 11, 13, 0, 0, 0, time.UTC), NextCheck(in, time.Minute, tokyo),
		"the interval ends after the window closes: next opening")
	assert.Equal(t, time.Date(2026, 6, 11, 14, 0, 0, 0, time.UTC), NextCheck(in, 17*time.Hour+30*time.Second, tokyo),
		"a long interval that lands inside the next window")
}
