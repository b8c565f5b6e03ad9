package pricefeed

import (
	"fmt"
	"sort"

	"github.com/shopspring/decimal"
)

// Field selects which price of a token a condition watches.
type Field int

// The watched prices.
const (
	BestBid Field = iota
	BestAsk
	Mid
	Last
	numFields
)

func (f Field) String() string {
	switch f {
	case BestBid:
		return "best_bid"
	case BestAsk:
		return "best_ask"
	case Mid:
		return "mid"
	case Last:
		return "last"
	}
	return fmt.Sprintf("field(%d)", int(f))
}

// Op compares the watched price with the threshold.
type Op int

// Comparators: the price is at or above, above, at or below, below the
// threshold.
const (
	AtOrAbove Op = iota
	Above
	AtOrBelow
	Below
)

func (o Op) String() string {
	return [...]string{">=", ">", "<=", "<"}[o]
}

func (o Op) upward() bool { return o == AtOrAbove || o == Above }
func (o Op) strict() bool { return o == Above || o == Below }

// Condition is a price trigger on one token.
type Condition struct {
	TokenID   string
	Field     Field
	Op        Op
	Threshold decimal.Decimal
	// Once unregisters the condition after it first fires.
	Once bool
}

// Validate checks the condition.
func (c Condition) Validate() error {
	switch {
	case c.TokenID == "":
		return fmt.Errorf("pricefeed: a condition needs a token")
	case c.Field < 0 || c.Field >= numFields:
		return fmt.Errorf("pricefeed: unknown field %d", c.Field)
	case c.Op < AtOrAbove || c.Op > Below:
		return fmt.Errorf("pricefeed: unknown comparator %d", c.Op)
	case c.Threshold.IsNegative():
		return fmt.Errorf("pricefeed: a negative threshold can never be met")
	}
	return nil
}

// Fire is what a condition's callback receives.
type Fire struct {
	Condition Condition
	// Value is the price that met the threshold; Quote is the token's whole
	// top of book at that moment.
	Value decimal.Decimal
	Quote Quote
	// Resolved is true when the condition fired because the venue
	// announced that its market resolved (no price met it: the market no
	// longer trades, which every watcher of the token must learn).
	Resolved bool
}

// Trigger is a registered condition; Stop unregisters it.
type Trigger struct {
	f    *Feed
	cond Condition
	fn   func(Fire)
	sub  *Subscription
	id   uint64
	dead bool // guarded by the feed's mu
}

// Stop unregisters the condition and releases its hold on the token's
// stream. It is safe to call more than once and from a callback.
func (t *Trigger) Stop() {
	t.f.mu.Lock()
	live := !t.dead
	if live {
		t.dead = true
		if ts := t.f.tokens[t.cond.TokenID]; ts != nil {
			ts.conds[t.cond.Field].remove(t)
		}
	}
	t.f.mu.Unlock()
	if live {
		t.sub.Close()
	}
}

// condSet holds a field's conditions sorted by threshold, upward and
// downward apart, so an event finds the met ones by binary search: with a
// price p, the met upward conditions are a prefix (thresholds ≤ p) and the
// met downward ones a suffix (thresholds ≥ p). Thousands of conditions on
// one token cost O(log n + met) per event.
type condSet struct {
	up, down []*Trigger // each ascending by threshold, then registration
}

func (s *condSet) len() int { return len(s.up) + len(s.down) }

func (s *condSet) side(t *Trigger) *[]*Trigger {
	if t.cond.Op.upward() {
		return &s.up
	}
	return &s.down
}

func less(a, b *Trigger) bool {
	if c := a.cond.Threshold.Cmp(b.cond.Threshold); c != 0 {
		return c < 0
	}
	return a.id < b.id
}

func (s *condSet) add(t *Trigger) {
	sl := s.side(t)
	i := sort.Search(len(*sl), func(i int) bool { return less(t, (*sl)[i]) })
	*sl = append(*sl, nil)
	copy((*sl)[i+1:], (*sl)[i:])
	(*sl)[i] = t
}

func (s *condSet) remove(t *Trigger) {
	sl := s.side(t)
	i := sort.Search(len(*sl), func(i int) bool { return !less((*sl)[i], t) })
	if i < len(*sl) && (*sl)[i] == t {
		*sl = append((*sl)[:i], (*sl)[i+1:]...)
	}
}

// met appends the conditions a price meets.
func (s *condSet) met(p decimal.Decimal, out []*Trigger) []*Trigger {
	// Upward: thresholds ≤ p; at equality only the non-strict ones.
	n := sort.Search(len(s.up), func(i int) bool { return s.up[i].cond.Threshold.GreaterThan(p) })
	for _, t := range s.up[:n] {
		if t.cond.Op.strict() && t.cond.Threshold.Equal(p) {
			continue
		}
		out = append(out, t)
	}
	// Downward: thresholds ≥ p.
	m := sort.Search(len(s.down), func(i int) bool { return !s.down[i].cond.Threshold.LessThan(p) })
	for _, t := range s.down[m:] {
		if t.cond.Op.strict() && t.cond.Threshold.Equal(p) {
			continue
		}
		out = append(out, t)
	}
	return out
}
