package orders

import (
	"fmt"

	"github.com/shopspring/decimal"
)

// FloatNoise is how far a number may lie from a valid value and still be
// taken as that value. Agents compute prices and amounts in binary
// floating point: 0.1 + 0.2 arrives as 0.30000000000000004 and
// 0.02 + 6 × 0.001 as 0.026000000000000002. Such a number means the valid
// value next to it, and is used as that value; a number further away than
// this (0.305 on a 0.01 tick, 10.005 shares) is a real mistake and is
// refused, naming the valid values on either side.
var FloatNoise = decimal.New(1, -9)

// Snap returns the multiple of step nearest to d and true when d is
// within FloatNoise of it (d itself being a multiple included); otherwise
// d and false. step must be positive.
func Snap(d, step decimal.Decimal) (decimal.Decimal, bool) {
	if step.Sign() <= 0 {
		return d, false
	}
	n := d.Div(step).Round(0).Mul(step)
	if d.Sub(n).Abs().LessThanOrEqual(FloatNoise) {
		return n, true
	}
	return d, false
}

// SnapPlaces is Snap to a number of decimal places (2: a size in shares,
// 6: an amount in USDC).
func SnapPlaces(d decimal.Decimal, places int32) (decimal.Decimal, bool) {
	return Snap(d, decimal.New(1, -places))
}

// Around returns the multiples of step on either side of d (equal when d
// is one): the valid values an error names.
func Around(d, step decimal.Decimal) (lo, hi decimal.Decimal) {
	q := d.Div(step)
	return q.Floor().Mul(step), q.Ceil().Mul(step)
}

// Nearest describes the valid values on either side of d, for an error
// message: "the nearest valid values are 0.3 and 0.31".
func Nearest(d, step decimal.Decimal) string {
	lo, hi := Around(d, step)
	return fmt.Sprintf("the nearest valid values are %s and %s", lo.String(), hi.String())
}

// cent is the venue's size step: whole hundredths of a share.
var cent = decimal.New(1, -2)
