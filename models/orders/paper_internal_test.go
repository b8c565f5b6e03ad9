package orders

import (
	"testing"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/venue/clob"
)

func TestMatchBook(t *testing.T) {
	book := &clob.OrderBook{
		// Unsorted on purpose: the venue's REST book lists bids and asks
		// from the worst level in.
		Asks: []clob.PriceLevel{{Price: d("0.60"), Size: d("30")}, {Price: d("0.55"), Size: d("10")}, {Price: d("0.57"), Size: d("20")}},
		Bids: []clob.PriceLevel{{Price: d("0.48"), Size: d("40")}, {Price: d("0.50"), Size: d("15")}, {Price: d("0.49"), Size: d("5")}},
	}
	const m = models.MicroPerUnit
	tests := []struct {
		name        string
		side        clob.Side
		limit, size int64
		fills       []paperFill
		queue       int64
	}{
		{"buy inside the best ask rests behind the bids at its price", clob.Buy, 500_000, 5 * m, nil, 15 * m},
		{"buy at the best ask takes that level only", clob.Buy, 550_000, 25 * m, []paperFill{{550_000, 10 * m}}, 0},
		{"buy walks levels up to its limit", clob.Buy, 570_000, 25 * m, []paperFill{{550_000, 10 * m}, {570_000, 15 * m}}, 0},
		{"buy larger than the book takes all of it", clob.Buy, 990_000, 100 * m, []paperFill{{550_000, 10 * m}, {570_000, 20 * m}, {600_000, 30 * m}}, 0},
		{"sell walks bids best first", clob.Sell, 490_000, 18 * m, []paperFill{{500_000, 15 * m}, {490_000, 3 * m}}, 0},
		{"sell above the best bid rests behind the asks at its price", clob.Sell, 570_000, 5 * m, nil, 20 * m},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fills, queue := matchBook(book, tc.side, tc.limit, tc.size)
			if len(fills) != len(tc.fills) || queue != tc.queue {
				t.Fatalf("fills %v queue %d, want %v queue %d", fills, queue, tc.fills, tc.queue)
			}
			for i := range fills {
				if fills[i] != tc.fills[i] {
					t.Fatalf("fill %d = %v, want %v", i, fills[i], tc.fills[i])
				}
			}
		})
	}
}

func TestPaperStatus(t *testing.T) {
	tests := []struct {
		typ          string
		filled, size int64
		want         string
	}{
		{TypeLimit, 0, 10, models.OrderOpen},
		{TypeLimit, 4, 10, models.OrderPartiallyFilled},
		{TypeLimit, 10, 10, models.OrderFilled},
		{TypeFAK, 4, 10, models.OrderFilled},
		{TypeFAK, 0, 10, models.OrderFailed},
		{TypeFOK, 10, 10, models.OrderFilled},
		{TypeMarket, 0, 10, models.OrderFailed},
	}
	for _, tc := range tests {
		if got := paperStatus(tc.typ, tc.filled, tc.size); got != tc.want {
			t.Errorf("%s %d/%d: %s, want %s", tc.typ, tc.filled, tc.size, got, tc.want)
		}
	}
}
