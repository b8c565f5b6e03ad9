package orders

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/venue/clob"
)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func TestNormalize(t *testing.T) {
	ok := PlaceRequest{TokenID: "123", Side: "BUY", Price: d("0.5"), Size: d("10")}
	tests := []struct {
		name     string
		mod      func(*PlaceRequest)
		wantCode string
		check    func(*testing.T, PlaceRequest)
	}{
		{"defaults to LIMIT", func(*PlaceRequest) {}, "", func(t *testing.T, r PlaceRequest) {
			if r.Type != TypeLimit {
				t.Fatalf("type %q", r.Type)
			}
		}},
		{"case-insensitive side and type", func(r *PlaceRequest) { r.Side, r.Type = " sell ", "fok" }, "", func(t *testing.T, r PlaceRequest) {
			if r.Side != SideSell || r.Type != TypeFOK {
				t.Fatalf("%q %q", r.Side, r.Type)
			}
		}},
		{"missing token", func(r *PlaceRequest) { r.TokenID = " " }, "invalid_token_id", nil},
		{"token not a number", func(r *PlaceRequest) { r.TokenID = "0xabc" }, "invalid_token_id", nil},
		{"bad side", func(r *PlaceRequest) { r.Side = "HOLD" }, "invalid_side", nil},
		{"bad type", func(r *PlaceRequest) { r.Type = "GTD" }, "invalid_order_type", nil},
		{"price below 0.01", func(r *PlaceRequest) { r.Price = d("0.009") }, "invalid_price", nil},
		{"price above 0.99", func(r *PlaceRequest) { r.Price = d("0.991") }, "invalid_price", nil},
		{"price bounds inclusive", func(r *PlaceRequest) { r.Price = d("0.99") }, "", nil},
		{"zero size", func(r *PlaceRequest) { r.Size = d("0") }, "invalid_size", nil},
		{"negative size", func(r *PlaceRequest) { r.Size = d("-1") }, "invalid_size", nil},
		{"size beyond exact micro-units", func(r *PlaceRequest) { r.Size = d("1e13") }, "invalid_size", nil},
		{"size above the maximum", func(r *PlaceRequest) { r.Size = d("1000000000.01") }, "invalid_size", nil},
		{"size at the maximum", func(r *PlaceRequest) { r.Size = d("1000000000") }, "", nil},
		{"buy with sub-cent size", func(r *PlaceRequest) { r.Size = d("1.005") }, "invalid_size", nil},
		{"sell with dust is floored", func(r *PlaceRequest) { r.Side, r.Size = "SELL", d("9.999912") }, "", func(t *testing.T, r PlaceRequest) {
			if !r.Size.Equal(d("9.99")) {
				t.Fatalf("size %s", r.Size)
			}
		}},
		{"sell of dust only", func(r *PlaceRequest) { r.Side, r.Size = "SELL", d("0.004") }, "invalid_size", nil},
		{"float-noise size is the size", func(r *PlaceRequest) { r.Size = d("10.000000000000002") }, "", func(t *testing.T, r PlaceRequest) {
			if !r.Size.Equal(d("10")) || r.Size.Exponent() < -2 {
				t.Fatalf("size %s", r.Size)
			}
		}},
		{"float-noise size below the hundredth", func(r *PlaceRequest) { r.Size = d("2.9999999999999996") }, "", func(t *testing.T, r PlaceRequest) {
			if !r.Size.Equal(d("3")) {
				t.Fatalf("size %s", r.Size)
			}
		}},
		{"float-noise sell is not floored a cent", func(r *PlaceRequest) { r.Side, r.Size = "SELL", d("2.9999999999999996") }, "", func(t *testing.T, r PlaceRequest) {
			if !r.Size.Equal(d("3")) {
				t.Fatalf("size %s", r.Size)
			}
		}},
		{"float-noise price bound", func(r *PlaceRequest) { r.Price = d("0.9900000000000001") }, "", func(t *testing.T, r PlaceRequest) {
			if !r.Price.Equal(d("0.99")) {
				t.Fatalf("price %s", r.Price)
			}
		}},
		{"size a millionth off is refused", func(r *PlaceRequest) { r.Size = d("10.000001") }, "invalid_size", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := ok
			tc.mod(&r)
			_, err := normalize(&r)
			if tc.wantCode == "" {
				if err != nil {
					t.Fatal(err)
				}
				if tc.check != nil {
					tc.check(t, r)
				}
				return
			}
			if !errs.Is(err, errs.Invalid) || errs.CodeOf(err) != tc.wantCode {
				t.Fatalf("err %v (code %q), want Invalid %q", err, errs.CodeOf(err), tc.wantCode)
			}
		})
	}
}

func TestLevelFor(t *testing.T) {
	book := &clob.OrderBook{
		// Deliberately unsorted: the walk must not trust the wire order.
		Asks: []clob.PriceLevel{{Price: d("0.55"), Size: d("10")}, {Price: d("0.52"), Size: d("5")}, {Price: d("0.53"), Size: d("5")}},
		Bids: []clob.PriceLevel{{Price: d("0.47"), Size: d("4")}, {Price: d("0.48"), Size: d("6")}},
	}
	tests := []struct {
		name  string
		side  clob.Side
		size  string
		limit string
		want  string // "" = no match
	}{
		{"buy within the best level", clob.Buy, "5", "0.99", "0.52"},
		{"buy across levels", clob.Buy, "8", "0.99", "0.53"},
		{"buy deeper", clob.Buy, "11", "0.99", "0.55"},
		{"buy bounded by the limit", clob.Buy, "11", "0.53", ""},
		{"buy more than the book", clob.Buy, "21", "0.99", ""},
		{"sell at the best bid", clob.Sell, "6", "0.01", "0.48"},
		{"sell across bids", clob.Sell, "10", "0.01", "0.47"},
		{"sell bounded by the limit", clob.Sell, "10", "0.48", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := levelFor(book, tc.side, d(tc.size), d(tc.limit))
			if tc.want == "" {
				if !errs.Is(err, errs.VenueRejected) || errs.CodeOf(err) != "no_match" {
					t.Fatalf("got %s, %v; want no_match", got, err)
				}
				return
			}
			if err != nil || !got.Equal(d(tc.want)) {
				t.Fatalf("got %s, %v; want %s", got, err, tc.want)
			}
		})
	}
}

func TestVenueStatus(t *testing.T) {
	limit := &models.Order{RequestType: TypeLimit, SizeMicro: 10_000_000, Status: models.OrderOpen}
	fok := &models.Order{RequestType: TypeFOK, SizeMicro: 10_000_000, Status: models.OrderPending}
	fak := &models.Order{RequestType: TypeFAK, SizeMicro: 10_000_000, Status: models.OrderOpen}
	tests := []struct {
		name   string
		venue  string
		o      *models.Order
		filled int64
		want   string
	}{
		{"live unfilled", "LIVE", limit, 0, models.OrderOpen},
		{"live partially filled", "LIVE", limit, 4_000_000, models.OrderPartiallyFilled},
		{"matched in full", "MATCHED", limit, 10_000_000, models.OrderFilled},
		{"matched but trades not visible yet", "MATCHED", limit, 0, models.OrderOpen},
		{"cancelled after a partial fill", "CANCELED", limit, 4_000_000, models.OrderCancelled},
		{"cancelled unfilled", "CANCELED", limit, 0, models.OrderCancelled},
		{"cancelled by market resolution", "CANCELED_MARKET_RESOLVED", limit, 0, models.OrderCancelled},
		{"FOK matched (may receive a hair less than size)", "MATCHED", fok, 9_999_900, models.OrderFilled},
		{"FOK killed unfilled", "CANCELED", fok, 0, models.OrderFailed},
		{"FAK remainder killed", "CANCELED", fak, 3_000_000, models.OrderCancelled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := venueStatus(tc.venue, tc.o, tc.filled); got != tc.want {
				t.Fatalf("venueStatus(%s, filled %d) = %s, want %s", tc.venue, tc.filled, got, tc.want)
			}
		})
	}
}

func TestVenueType(t *testing.T) {
	for in, want := range map[string]clob.OrderType{TypeLimit: clob.GTC, TypeMarket: clob.FOK, TypeFOK: clob.FOK, TypeFAK: clob.FAK} {
		if got := venueType(in); got != want {
			t.Errorf("venueType(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestSnap(t *testing.T) {
	for _, tc := range []struct {
		in, step, want string
		ok             bool
	}{
		{"0.30000000000000004", "0.01", "0.3", true},        // 0.1 + 0.2
		{"0.026000000000000002", "0.000001", "0.026", true}, // 0.02 + 6 × 0.001
		{"0.29999999999999993", "0.001", "0.3", true},
		{"0.3", "0.01", "0.3", true},
		{"0.305", "0.01", "0.305", false},
		{"0.3000001", "0.01", "0.3000001", false},
		{"0.300000001", "0.01", "0.3", true}, // exactly 1e-9 away
		{"0.3000000011", "0.01", "0.3000000011", false},
		{"0.0261234567", "0.000001", "0.0261234567", false},
		{"7", "0.01", "7", true},
	} {
		got, ok := Snap(d(tc.in), d(tc.step))
		if ok != tc.ok || !got.Equal(d(tc.want)) {
			t.Errorf("Snap(%s, %s) = %s %v, want %s %v", tc.in, tc.step, got, ok, tc.want, tc.ok)
		}
	}
	if got := Nearest(d("0.305"), d("0.01")); got != "the nearest valid values are 0.3 and 0.31" {
		t.Errorf("Nearest: %q", got)
	}
}
