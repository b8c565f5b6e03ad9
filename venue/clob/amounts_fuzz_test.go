package clob

import (
	"math/big"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/micro"
)

var fuzzTicks = []TickSize{Tick01, Tick001, Tick0005, Tick00025, Tick0001, Tick00001}

// ratUnits is x·10^6 as an exact rational.
func ratUnits(x decimal.Decimal) *big.Rat {
	return new(big.Rat).Mul(x.Rat(), big.NewRat(1_000_000, 1))
}

// within reports whether |units - want| < 10^(6-amountDP) base units, the
// precision of the amount decimals.
func within(units *big.Int, want *big.Rat, amountDP int32) bool {
	diff := new(big.Rat).Sub(new(big.Rat).SetInt(units), want)
	step := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(6-amountDP)), nil)
	return diff.Abs(diff).Cmp(new(big.Rat).SetInt(step)) < 0
}

// fuzzOrder turns fuzz inputs into an order's side, tick (one of
// fuzzTicks) and two decimal fields; ok is false when a field does not
// parse, an input the builders never get.
func fuzzOrder(buy bool, tickIdx uint8, xS, yS string) (side Side, tick TickSize, x, y decimal.Decimal, ok bool) {
	x, err1 := decimal.NewFromString(xS)
	y, err2 := decimal.NewFromString(yS)
	if err1 != nil || err2 != nil {
		return side, tick, x, y, false
	}
	side = Sell
	if buy {
		side = Buy
	}
	return side, fuzzTicks[int(tickIdx)%len(fuzzTicks)], x, y, true
}

// accepted checks the verdict of builder fn on an order (side, fields a
// and b, tick): it refuses, with an Invalid error, exactly the orders that
// are not valid. It reports whether the order was accepted.
func accepted(t *testing.T, fn string, side Side, a, b string, tick TickSize, valid bool, err error) bool {
	t.Helper()
	if err != nil {
		if valid || !venue.Is(err, venue.Invalid) {
			t.Fatalf("%s(%v, %s, %s, %s): %v", fn, side, a, b, tick, err)
		}
		return false
	}
	if !valid {
		t.Fatalf("%s(%v, %s, %s, %s) accepted an invalid order", fn, side, a, b, tick)
	}
	return true
}

// noSmallerLegs checks that the order with its what (size or amount)
// larger by more cents was accepted (err) and that neither of its legs
// (bigMaker, bigTaker) is below the legs of the original (maker, taker).
func noSmallerLegs(t *testing.T, what string, more uint32, maker, taker, bigMaker, bigTaker *big.Int, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("a larger %s was refused: %v", what, err)
	}
	if bigMaker.Cmp(maker) < 0 || bigTaker.Cmp(taker) < 0 {
		t.Fatalf("%s +%d cents: legs %s/%s fell below %s/%s", what, more, bigMaker, bigTaker, maker, taker)
	}
}

// FuzzComputeLimitAmounts drives the GTC/GTD builder with arbitrary
// prices and sizes: it never panics, refuses exactly what the rules refuse
// (with an Invalid error), signs the shares leg exactly (size floored to
// the cent of a share) and the collateral leg within the amount precision
// of shares × price, and a larger size never gives smaller legs.
func FuzzComputeLimitAmounts(f *testing.F) {
	f.Add(true, uint8(1), "0.5", "10", uint32(1))
	f.Add(false, uint8(3), "0.1234", "33.339", uint32(7))
	f.Add(true, uint8(2), "0.005", "1e-3", uint32(0))
	f.Add(false, uint8(0), "0.95", "1e30", uint32(100))
	f.Add(true, uint8(5), "0.0001", "0.01", uint32(9))
	f.Add(true, uint8(1), "1e-10000", "1e10000", uint32(1))
	f.Fuzz(func(t *testing.T, buy bool, tickIdx uint8, priceS, sizeS string, more uint32) {
		side, tick, price, size, ok := fuzzOrder(buy, tickIdx, priceS, sizeS)
		if !ok {
			return
		}
		cfg, td := tick.Config(), tick.Decimal()
		p, q := price.Round(cfg.Price), size.RoundFloor(cfg.Size)
		valid := !price.LessThan(td) && !price.GreaterThan(one.Sub(td)) && OnTick(p, tick) && q.Sign() > 0

		a, err := ComputeLimitAmounts(side, price, size, tick)
		if !accepted(t, "ComputeLimitAmounts", side, priceS, sizeS, tick, valid, err) {
			return
		}
		if !a.Price.Equal(p) || !a.Shares.Equal(q) {
			t.Fatalf("price %s size %s, want %s %s", a.Price, a.Shares, p, q)
		}
		shares, collateral := a.Taker, a.Maker
		if side == Sell {
			shares, collateral = a.Maker, a.Taker
		}
		if shares.Cmp(q.Shift(micro.Decimals).BigInt()) != 0 || !SharesOf(side, a.Maker, a.Taker).Equal(q) {
			t.Fatalf("shares leg %s for %s shares", shares, q)
		}
		if collateral.Sign() <= 0 || !within(collateral, ratUnits(q.Mul(p)), cfg.Amount) {
			t.Fatalf("collateral leg %s for %s × %s at %d amount decimals", collateral, q, p, cfg.Amount)
		}

		bigger, err := ComputeLimitAmounts(side, price, size.Add(decimal.New(int64(more), -2)), tick)
		noSmallerLegs(t, "size", more, a.Maker, a.Taker, bigger.Maker, bigger.Taker, err)
	})
}

// FuzzMarketAmounts drives the FOK/FAK builders: no panic; the maker leg
// is the amount floored to the cent, exactly; the taker leg is within the
// amount precision of amount ÷ price (BUY) or amount × price (SELL);
// MarketableAmounts floors it to four decimals and no further; a larger
// amount never gives smaller legs.
func FuzzMarketAmounts(f *testing.F) {
	f.Add(true, uint8(1), "10", "0.5", uint32(1))
	f.Add(false, uint8(3), "33.339", "0.1234", uint32(7))
	f.Add(true, uint8(4), "1", "0.007", uint32(0))
	f.Add(true, uint8(2), "1e30", "0.995", uint32(3))
	f.Add(false, uint8(0), "1e10000", "1e-10000", uint32(1))
	f.Fuzz(func(t *testing.T, buy bool, tickIdx uint8, amountS, priceS string, more uint32) {
		side, tick, amount, price, ok := fuzzOrder(buy, tickIdx, amountS, priceS)
		if !ok {
			return
		}
		cfg, td := tick.Config(), tick.Decimal()
		p, q := price.RoundFloor(cfg.Price), amount.RoundFloor(cfg.Size)
		valid := !price.LessThan(td) && !price.GreaterThan(one.Sub(td)) && q.Sign() > 0

		maker, taker, err := BuildMarketAmounts(side, amount, price, tick)
		if !accepted(t, "BuildMarketAmounts", side, amountS, priceS, tick, valid, err) {
			return
		}
		if maker.Cmp(q.Shift(micro.Decimals).BigInt()) != 0 {
			t.Fatalf("maker leg %s for amount %s", maker, q)
		}
		want := new(big.Rat).Mul(ratUnits(q), p.Rat())
		if side == Buy {
			want = new(big.Rat).Quo(ratUnits(q), p.Rat())
		}
		if taker.Sign() <= 0 || !within(taker, want, cfg.Amount) {
			t.Fatalf("taker leg %s, want about %s", taker, want.FloatString(6))
		}

		mMaker, mTaker, err := MarketableAmounts(side, amount, price, tick)
		switch {
		case err != nil:
			if taker.Cmp(big.NewInt(100)) >= 0 || !venue.Is(err, venue.Invalid) {
				t.Fatalf("MarketableAmounts refused taker %s: %v", taker, err)
			}
		case mMaker.Cmp(maker) != 0 || new(big.Int).Rem(mTaker, big.NewInt(100)).Sign() != 0 ||
			mTaker.Cmp(taker) > 0 || new(big.Int).Sub(taker, mTaker).Cmp(big.NewInt(100)) >= 0:
			t.Fatalf("MarketableAmounts %s/%s from %s/%s", mMaker, mTaker, maker, taker)
		case CheckMarketablePrecision(side, mMaker, mTaker) != nil:
			t.Fatalf("MarketableAmounts %s/%s breaks the venue's precision rule", mMaker, mTaker)
		}

		bMaker, bTaker, err := BuildMarketAmounts(side, amount.Add(decimal.New(int64(more), -2)), price, tick)
		noSmallerLegs(t, "amount", more, maker, taker, bMaker, bTaker, err)
	})
}
