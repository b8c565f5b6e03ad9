package pricefeed

import (
	"sort"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/venue/ws"
)

// ladder is one side of a book, best level first.
type ladder struct {
	levels []ws.Level
	bids   bool // descending prices
}

func (l *ladder) better(a, b decimal.Decimal) bool {
	if l.bids {
		return a.GreaterThan(b)
	}
	return a.LessThan(b)
}

// set makes size the level's total at price (zero removes it).
func (l *ladder) set(price, size decimal.Decimal) {
	i := sort.Search(len(l.levels), func(i int) bool { return !l.better(l.levels[i].Price, price) })
	found := i < len(l.levels) && l.levels[i].Price.Equal(price)
	switch {
	case size.IsZero() && found:
		l.levels = append(l.levels[:i], l.levels[i+1:]...)
	case size.IsZero():
	case found:
		l.levels[i].Size = size
	default:
		l.levels = append(l.levels, ws.Level{})
		copy(l.levels[i+1:], l.levels[i:])
		l.levels[i] = ws.Level{Price: price, Size: size}
	}
}

func (l *ladder) replace(levels []ws.Level) {
	l.levels = append(l.levels[:0], levels...)
	sort.SliceStable(l.levels, func(i, j int) bool { return l.better(l.levels[i].Price, l.levels[j].Price) })
	// Zero-size levels are not levels.
	out := l.levels[:0]
	for _, lv := range l.levels {
		if lv.Size.IsPositive() {
			out = append(out, lv)
		}
	}
	l.levels = out
}

func (l *ladder) best() decimal.NullDecimal {
	if len(l.levels) == 0 {
		return decimal.NullDecimal{}
	}
	return decimal.NewNullDecimal(l.levels[0].Price)
}

func (l *ladder) copyLevels() []ws.Level { return append([]ws.Level(nil), l.levels...) }
