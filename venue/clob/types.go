package clob

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/venue"
)

// Side is the order side as signed (uint8 in the EIP-712 struct).
type Side uint8

// Order sides. The numeric values are the signed ones.
const (
	Buy  Side = 0
	Sell Side = 1
)

// String returns "BUY" or "SELL", the wire form.
func (s Side) String() string {
	switch s {
	case Buy:
		return "BUY"
	case Sell:
		return "SELL"
	}
	return fmt.Sprintf("Side(%d)", uint8(s))
}

// ParseSide accepts "BUY"/"SELL" in any letter case.
func ParseSide(s string) (Side, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "BUY":
		return Buy, nil
	case "SELL":
		return Sell, nil
	}
	return 0, venue.Ef(venue.Invalid, "invalid side %q (want BUY or SELL)", s).WithCode("invalid_side")
}

// Valid reports whether s is BUY or SELL.
func (s Side) Valid() bool { return s == Buy || s == Sell }

// MarshalJSON encodes the side as "BUY"/"SELL", as the venue expects.
func (s Side) MarshalJSON() ([]byte, error) {
	if !s.Valid() {
		return nil, fmt.Errorf("clob: invalid side %d", uint8(s))
	}
	return []byte(`"` + s.String() + `"`), nil
}

// UnmarshalJSON decodes "BUY"/"SELL".
func (s *Side) UnmarshalJSON(b []byte) error {
	var str string
	if err := json.Unmarshal(b, &str); err != nil {
		return venue.E(venue.Invalid, "side must be \"BUY\" or \"SELL\"").WithCode("invalid_side").WithCause(err)
	}
	v, err := ParseSide(str)
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// OrderType is the time-in-force of a posted order.
type OrderType string

// Order types accepted by the venue.
const (
	GTC OrderType = "GTC" // good till cancelled
	GTD OrderType = "GTD" // good till the order's expiration
	FOK OrderType = "FOK" // fill completely at once or reject
	FAK OrderType = "FAK" // fill what is possible at once, cancel the rest
)

// Valid reports whether t is one of the four venue order types.
func (t OrderType) Valid() bool {
	switch t {
	case GTC, GTD, FOK, FAK:
		return true
	}
	return false
}

// Marketable reports whether the type executes immediately or not at all
// (FOK/FAK), which is what the venue's stricter amount precision applies to.
func (t OrderType) Marketable() bool { return t == FOK || t == FAK }

// ParseOrderType accepts the four types in any letter case.
func ParseOrderType(s string) (OrderType, error) {
	t := OrderType(strings.ToUpper(strings.TrimSpace(s)))
	if !t.Valid() {
		return "", venue.Ef(venue.Invalid, "invalid order type %q (want GTC, GTD, FOK or FAK)", s).WithCode("invalid_order_type")
	}
	return t, nil
}

// SignatureType is how an order's signature is verified (V2 has 0..3).
type SignatureType = uint8

// Signature types of the V2 order.
const (
	SigEOA        SignatureType = 0 // maker = signer = EOA
	SigPolyProxy  SignatureType = 1 // maker = Polymarket proxy of the EOA signer
	SigGnosisSafe SignatureType = 2 // maker = Gnosis Safe of the EOA signer
	SigPoly1271   SignatureType = 3 // maker = signer = deposit wallet; ERC-7739 wrapped signature
)

// TickSize is a market's minimum price increment, in its canonical decimal
// spelling ("0.01"). Only the six venue tick sizes are valid.
type TickSize string

// The tick sizes the V2 client knows (clob-v2 §4).
const (
	Tick01    TickSize = "0.1"
	Tick001   TickSize = "0.01"
	Tick0005  TickSize = "0.005"
	Tick00025 TickSize = "0.0025"
	Tick0001  TickSize = "0.001"
	Tick00001 TickSize = "0.0001"
)

// RoundingConfig is the number of decimal places for price, size (shares)
// and the derived amount at a tick size.
type RoundingConfig struct {
	Price, Size, Amount int32
}

var roundingConfig = map[TickSize]RoundingConfig{
	Tick01:    {Price: 1, Size: 2, Amount: 3},
	Tick001:   {Price: 2, Size: 2, Amount: 4},
	Tick0005:  {Price: 3, Size: 2, Amount: 5},
	Tick00025: {Price: 4, Size: 2, Amount: 6},
	Tick0001:  {Price: 3, Size: 2, Amount: 5},
	Tick00001: {Price: 4, Size: 2, Amount: 6},
}

// ParseTickSize normalises a tick given as a decimal string ("0.010", ".01")
// to its canonical TickSize; unknown ticks are Invalid.
func ParseTickSize(s string) (TickSize, error) {
	d, err := decimal.NewFromString(strings.TrimSpace(s))
	if err != nil {
		return "", venue.Ef(venue.Invalid, "invalid tick size %q", s).WithCode("invalid_tick_size")
	}
	return TickSizeFromDecimal(d)
}

// TickSizeFromDecimal maps a decimal to its canonical TickSize.
func TickSizeFromDecimal(d decimal.Decimal) (TickSize, error) {
	for t := range roundingConfig {
		if t.Decimal().Equal(d) {
			return t, nil
		}
	}
	return "", venue.Ef(venue.Invalid, "invalid tick size %s", d.String()).WithCode("invalid_tick_size")
}

// Valid reports whether t is one of the venue tick sizes.
func (t TickSize) Valid() bool { _, ok := roundingConfig[t]; return ok }

// Config returns the rounding configuration; zero for an invalid tick.
func (t TickSize) Config() RoundingConfig { return roundingConfig[t] }

// Decimal returns the tick as a decimal (zero for an invalid tick).
func (t TickSize) Decimal() decimal.Decimal {
	d, err := decimal.NewFromString(string(t))
	if err != nil {
		return decimal.Zero
	}
	return d
}

// String returns the canonical spelling.
func (t TickSize) String() string { return string(t) }

// UnmarshalJSON accepts the tick as a JSON number or string (the venue
// returns a number from /tick-size and strings in books).
func (t *TickSize) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "" || s == "null" {
		*t = "" // absent: callers fall back to /tick-size
		return nil
	}
	v, err := ParseTickSize(s)
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// Smaller reports whether t is a finer tick than u.
func (t TickSize) Smaller(u TickSize) bool { return t.Decimal().LessThan(u.Decimal()) }
