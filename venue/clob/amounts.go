package clob

import (
	"math/big"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/micro"
)

var one = decimal.NewFromInt(1)

// ValidatePrice checks tick ≤ price ≤ 1−tick with the official client's
// message. It does not check that price is a multiple of the tick.
func ValidatePrice(price decimal.Decimal, tick TickSize) error {
	if !tick.Valid() {
		return venue.Ef(venue.Invalid, "invalid tick size (%s)", string(tick)).WithCode("invalid_tick_size")
	}
	t := tick.Decimal()
	if price.LessThan(t) || price.GreaterThan(one.Sub(t)) {
		return venue.Ef(venue.Invalid, "invalid price (%s), min: %s - max: %s", price.String(), t.String(), one.Sub(t).String()).
			WithCode("invalid_price")
	}
	return nil
}

// OnTick reports whether price is a whole multiple of tick.
func OnTick(price decimal.Decimal, tick TickSize) bool {
	t := tick.Decimal()
	return !t.IsZero() && price.Mod(t).IsZero()
}

// dp returns the number of decimal places of x in its shortest form.
func dp(x decimal.Decimal) int32 {
	e := x.Exponent()
	if e >= 0 {
		return 0
	}
	// Strip trailing zeros of the coefficient.
	c := new(big.Int).Abs(x.Coefficient())
	ten, r := big.NewInt(10), new(big.Int)
	for e < 0 && c.Sign() != 0 {
		q, m := new(big.Int).QuoRem(c, ten, r)
		if m.Sign() != 0 {
			break
		}
		c = q
		e++
	}
	if c.Sign() == 0 {
		return 0
	}
	return -e
}

// fitAmount applies the client's "roundUp(amount+4), then roundDown(amount)"
// step to an exact rational r = num/den, returning a decimal with at most
// amountDP places. Using the exact quotient (not a float or a truncated
// decimal) is what makes every golden vector reproduce.
func fitAmount(num, den *big.Int, amountDP int32) decimal.Decimal {
	scale := func(k int32) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), nil) }
	// Does r have more than amountDP decimals? i.e. is r*10^amountDP not an integer.
	n := new(big.Int).Mul(num, scale(amountDP))
	if new(big.Int).Rem(n, den).Sign() == 0 {
		return decimal.NewFromBigInt(new(big.Int).Quo(n, den), -amountDP)
	}
	// ceil(r, amountDP+4)
	k := amountDP + 4
	n = new(big.Int).Mul(num, scale(k))
	q, m := new(big.Int).QuoRem(n, den, new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	up := decimal.NewFromBigInt(q, -k)
	if dp(up) > amountDP {
		return up.RoundFloor(amountDP)
	}
	return up
}

// LimitAmounts are the raw (human) amounts of an order plus base units.
type LimitAmounts struct {
	Price  decimal.Decimal // the price actually signed (rounded)
	Shares decimal.Decimal // floored size
	Maker  *big.Int
	Taker  *big.Int
}

// BuildLimitAmounts computes the maker/taker base units of a GTC/GTD order
// exactly as the official client (clob-v2 §4): price rounded half-up to the
// tick's price decimals, size floored to 2 decimals, notional fitted to the
// amount decimals. It additionally rejects prices outside [tick, 1−tick],
// prices that are not on the tick after rounding (possible for 0.005 and
// 0.0025 ticks, which the venue would refuse) and sizes that floor to zero.
func BuildLimitAmounts(side Side, price, size decimal.Decimal, tick TickSize) (maker, taker *big.Int, err error) {
	a, err := ComputeLimitAmounts(side, price, size, tick)
	if err != nil {
		return nil, nil, err
	}
	return a.Maker, a.Taker, nil
}

// ComputeLimitAmounts is BuildLimitAmounts returning the rounded price and size too.
func ComputeLimitAmounts(side Side, price, size decimal.Decimal, tick TickSize) (LimitAmounts, error) {
	if !side.Valid() {
		return LimitAmounts{}, venue.E(venue.Invalid, "invalid side").WithCode("invalid_side")
	}
	if err := ValidatePrice(price, tick); err != nil {
		return LimitAmounts{}, err
	}
	cfg := tick.Config()
	p := price.Round(cfg.Price) // half away from zero == half-up for positive prices
	if !OnTick(p, tick) {
		return LimitAmounts{}, venue.Ef(venue.Invalid, "price (%s) breaks minimum tick size rule: %s", p.String(), string(tick)).WithCode("invalid_tick_size")
	}
	q := size.RoundFloor(cfg.Size)
	if q.Sign() <= 0 {
		return LimitAmounts{}, venue.Ef(venue.Invalid, "invalid size (%s): must be at least 0.01 shares", size.String()).WithCode("invalid_size")
	}
	prod := q.Mul(p)
	r := fitAmount(ratPartsPair(prod, cfg.Amount))
	out := LimitAmounts{Price: p, Shares: q}
	if side == Buy {
		out.Maker, out.Taker = micro.TruncateBig(r), micro.TruncateBig(q)
	} else {
		out.Maker, out.Taker = micro.TruncateBig(q), micro.TruncateBig(r)
	}
	return out, nil
}

// BuildMarketAmounts computes the amounts of a market (FOK/FAK) order exactly
// as the official client: price floored to the tick's decimals, amount (BUY:
// collateral to spend; SELL: shares to sell) floored to 2 decimals, the
// other leg fitted to the amount decimals. maker is the floored amount.
//
// The result can carry more decimals than the venue accepts for marketable
// orders at ticks 0.001/0.0001 (see MarketableAmounts).
func BuildMarketAmounts(side Side, amount, price decimal.Decimal, tick TickSize) (maker, taker *big.Int, err error) {
	if !side.Valid() {
		return nil, nil, venue.E(venue.Invalid, "invalid side").WithCode("invalid_side")
	}
	if err := ValidatePrice(price, tick); err != nil {
		return nil, nil, err
	}
	cfg := tick.Config()
	p := price.RoundFloor(cfg.Price)
	q := amount.RoundFloor(cfg.Size)
	if q.Sign() <= 0 {
		return nil, nil, venue.Ef(venue.Invalid, "invalid amount (%s): must be at least 0.01", amount.String()).WithCode("invalid_amount")
	}
	pNum, pDen := ratParts(p)
	qNum, qDen := ratParts(q)
	var r decimal.Decimal
	if side == Buy {
		// r = q / p = (qNum/qDen) / (pNum/pDen)
		r = fitAmount(new(big.Int).Mul(qNum, pDen), new(big.Int).Mul(qDen, pNum), cfg.Amount)
	} else {
		r = fitAmount(new(big.Int).Mul(qNum, pNum), new(big.Int).Mul(qDen, pDen), cfg.Amount)
	}
	return micro.TruncateBig(q), micro.TruncateBig(r), nil
}

// MarketableAmounts is BuildMarketAmounts followed by the venue's precision
// rule for FOK/FAK orders (maker ≤ 2 decimals, taker ≤ 4 decimals): the taker
// leg is floored to 4 decimals. Flooring the taker only makes the order
// more aggressive by less than 0.0001 of the other leg, so it stays within
// the caller's limit price semantics (a BUY receives at most 0.0001 share
// fewer, a SELL asks at most 0.0001 collateral less).
func MarketableAmounts(side Side, amount, price decimal.Decimal, tick TickSize) (maker, taker *big.Int, err error) {
	maker, taker, err = BuildMarketAmounts(side, amount, price, tick)
	if err != nil {
		return nil, nil, err
	}
	step := big.NewInt(100) // 10^(6-4)
	taker = new(big.Int).Mul(new(big.Int).Quo(taker, step), step)
	if taker.Sign() == 0 {
		return nil, nil, venue.E(venue.Invalid, "order too small: it rounds to zero").WithCode("invalid_amount")
	}
	return maker, taker, nil
}

// CheckMarketablePrecision enforces the venue's FOK/FAK precision rule on
// base-unit amounts: maker at most 2 decimals, taker at most 4 decimals.
// The error text is the venue's.
func CheckMarketablePrecision(side Side, maker, taker *big.Int) error {
	r := new(big.Int)
	if r.Rem(maker, big.NewInt(10_000)).Sign() != 0 || r.Rem(taker, big.NewInt(100)).Sign() != 0 {
		s := "buy"
		if side == Sell {
			s = "sell"
		}
		return venue.Ef(venue.Rejected, "invalid amounts, the market %s orders maker amount supports a max accuracy of 2 decimals, taker amount a max of 4 decimals", s).
			WithCode("invalid_amounts")
	}
	return nil
}

func ratPartsPair(d decimal.Decimal, amountDP int32) (num, den *big.Int, k int32) {
	num, den = ratParts(d)
	return num, den, amountDP
}

func ratParts(d decimal.Decimal) (num, den *big.Int) {
	e := d.Exponent()
	if e >= 0 {
		return new(big.Int).Mul(d.Coefficient(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(e)), nil)), big.NewInt(1)
	}
	return d.Coefficient(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-e)), nil)
}

// PriceFromAmounts is the order's implied price: BUY maker/taker (collateral
// per share), SELL taker/maker, rounded half-up to 18 decimals (exact for
// every price the builders produce). Zero amounts are Invalid.
func PriceFromAmounts(side Side, maker, taker *big.Int) (decimal.Decimal, error) {
	if maker == nil || taker == nil || maker.Sign() <= 0 || taker.Sign() <= 0 {
		return decimal.Zero, venue.E(venue.Invalid, "order amounts must be positive").WithCode("invalid_amount")
	}
	m, t := decimal.NewFromBigInt(maker, 0), decimal.NewFromBigInt(taker, 0)
	if side == Buy {
		return m.DivRound(t, 18), nil
	}
	return t.DivRound(m, 18), nil
}

// SharesOf returns the order size in shares (BUY: taker, SELL: maker).
func SharesOf(side Side, maker, taker *big.Int) decimal.Decimal {
	if side == Buy {
		return micro.DecimalBig(taker)
	}
	return micro.DecimalBig(maker)
}

// ValidateMinSize checks that a size in shares meets the market minimum
// (orderMinSize / min_order_size), with the venue's wording.
func ValidateMinSize(shares, minSize decimal.Decimal) error {
	if shares.LessThan(minSize) {
		return venue.Ef(venue.Invalid, "Size (%s) lower than the minimum: %s", shares.String(), minSize.String()).WithCode("below_min_size")
	}
	return nil
}
