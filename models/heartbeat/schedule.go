package heartbeat

import (
	"time"
	// Active hours name IANA zones; embedded so minimal images without
	// zoneinfo still know them.
	_ "time/tzdata"

	"github.com/agent-trading/ats/models/errs"
)

// Hours is a key's active-hours window: from Start to End ("HH:MM", wall
// clock) in Zone. End before Start is a window across midnight
// ("22:00"–"06:00").
//
// The window is judged by the wall clock of the zone, minute by minute:
// an instant is active when its local time of day t satisfies
// Start <= t < End (or, across midnight, t >= Start || t < End). On the
// days clocks change this means:
//   - spring forward (a gap, e.g. 02:00–03:00 does not exist): a window
//     that would open inside the gap opens when the gap ends (the clock
//     jumps into the window); one that would close inside it closes at the
//     jump. Windows are that much shorter that day.
//   - fall back (an overlap, e.g. 01:00–02:00 happens twice): both passes
//     are judged by the same wall clock, so a window edge inside the
//     overlap is crossed twice. A window opening at 01:30 opens at the
//     first 01:30, closes when the clock goes back to 01:00, and opens
//     again at the second 01:30; one closing at 01:30 closes, reopens for
//     the repeated 01:00–01:30 and closes again.
type Hours struct {
	Start, End int // minutes after local midnight
	Zone       *time.Location
}

// ParseHours parses a window; the store holds only validated ones, so an
// error here is Internal.
func ParseHours(start, end, zone string) (*Hours, error) {
	s, okS := parseHHMM(start)
	e, okE := parseHHMM(end)
	if !okS || !okE || s == e {
		return nil, errs.Ef(errs.Internal, "stored active hours %q-%q are malformed", start, end)
	}
	loc, err := time.LoadLocation(zone)
	if err != nil || zone == "" || zone == "Local" {
		return nil, errs.Ef(errs.Internal, "stored active-hours zone %q is unknown", zone)
	}
	return &Hours{Start: s, End: e, Zone: loc}, nil
}

func parseHHMM(v string) (int, bool) {
	if len(v) != 5 || v[2] != ':' {
		return 0, false
	}
	d := func(c byte) (int, bool) { return int(c - '0'), c >= '0' && c <= '9' }
	h1, a := d(v[0])
	h2, b := d(v[1])
	m1, c := d(v[3])
	m2, e := d(v[4])
	h, m := h1*10+h2, m1*10+m2
	if !a || !b || !c || !e || h > 23 || m > 59 {
		return 0, false
	}
	return h*60 + m, true
}

// Active reports whether t is inside the window. A nil window is always
// active.
func (h *Hours) Active(t time.Time) bool {
	if h == nil {
		return true
	}
	l := t.In(h.Zone)
	m := l.Hour()*60 + l.Minute()
	if h.Start < h.End {
		return m >= h.Start && m < h.End
	}
	return m >= h.Start || m < h.End
}

// NextActive returns the first instant at or after t inside the window
// (t itself when active).
func (h *Hours) NextActive(t time.Time) time.Time {
	if h.Active(t) {
		return t
	}
	l := t.In(h.Zone)
	var best time.Time
	for day := 0; day <= 2; day++ {
		for _, o := range h.openings(l.Year(), l.Month(), l.Day()+day) {
			if !o.Before(t) && (best.IsZero() || o.Before(best)) {
				best = o
			}
		}
		if !best.IsZero() {
			return best.UTC()
		}
	}
	// Unreachable for a valid window (one opens every day); stay safe.
	return t.Add(24 * time.Hour).UTC()
}

// openings are the instants the window opens on a local date: Start on
// that date; the end of a clock-change gap Start falls in; both
// occurrences of a Start inside an overlap.
func (h *Hours) openings(y int, mo time.Month, d int) []time.Time {
	c := time.Date(y, mo, d, h.Start/60, h.Start%60, 0, 0, h.Zone)
	wall := func(t time.Time) int { l := t.In(h.Zone); return l.Hour()*60 + l.Minute() }
	if wall(c) != h.Start {
		// Start does not exist that day (a gap): the window opens at the
		// jump, which begins the zone period c is in.
		begin, _ := c.ZoneBounds()
		return []time.Time{begin}
	}
	out := []time.Time{c}
	for _, shift := range []time.Duration{-time.Hour, -30 * time.Minute, 30 * time.Minute, time.Hour} {
		if e := c.Add(shift); wall(e) == h.Start && e.In(h.Zone).Day() == c.In(h.Zone).Day() {
			out = append(out, e) // the other occurrence of an overlapped time
		}
	}
	return out
}

// NextCheck is the heartbeat's suggested next call: the interval after
// now, or, when that instant is outside the window, the window's next
// opening after it.
func NextCheck(now time.Time, interval time.Duration, h *Hours) time.Time {
	return h.NextActive(now.Add(interval)).UTC()
}
