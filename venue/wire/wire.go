// Package wire holds the lenient JSON encodings the venue's APIs use:
// numbers sent as numbers or numeric strings, booleans as strings.
package wire

import (
	"encoding/json"
	"strings"

	"github.com/shopspring/decimal"
)

// Decimal parses a JSON value that the venues send either as a number or
// as a numeric string; null, "" and absent values are zero.
func Decimal(raw json.RawMessage) (decimal.Decimal, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" || s == `""` {
		return decimal.Zero, nil
	}
	s = strings.Trim(s, `"`)
	return decimal.NewFromString(strings.TrimSpace(s))
}

// LooseDecimal is a decimal that decodes from a JSON number, a numeric
// string, "" or null (the last two as zero). Use .Decimal for arithmetic.
type LooseDecimal struct{ decimal.Decimal }

// UnmarshalJSON implements json.Unmarshaler.
func (d *LooseDecimal) UnmarshalJSON(b []byte) error {
	v, err := Decimal(b)
	if err != nil {
		return err
	}
	d.Decimal = v
	return nil
}

// MarshalJSON encodes the decimal as a string.
func (d LooseDecimal) MarshalJSON() ([]byte, error) { return d.Decimal.MarshalJSON() }

// LooseInt64 decodes an integer sent as a number or string ("" = 0).
type LooseInt64 int64

// UnmarshalJSON implements json.Unmarshaler.
func (n *LooseInt64) UnmarshalJSON(b []byte) error {
	v, err := Decimal(b)
	if err != nil {
		return err
	}
	*n = LooseInt64(v.IntPart())
	return nil
}

// LooseBool decodes a bool sent as true/false or "true"/"false" (null = false).
type LooseBool bool

// UnmarshalJSON implements json.Unmarshaler.
func (v *LooseBool) UnmarshalJSON(b []byte) error {
	s := strings.Trim(strings.TrimSpace(string(b)), `"`)
	*v = LooseBool(strings.EqualFold(s, "true") || s == "1")
	return nil
}
