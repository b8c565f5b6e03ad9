package pricefeed

import (
	"fmt"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/venue/ws"
)

// BenchmarkConditions: one price event on a token carrying n conditions,
// as strategies place them: buy-low triggers (best ask or mid at or below
// a threshold under the market) and sell-high triggers (at or above one
// over it), plus ten that the event meets. The event moves the best ask
// between 0.50 and 0.90, so the evaluation, not the callbacks, is measured.
func BenchmarkConditions(b *testing.B) {
	for _, n := range []int{100, 10_000} {
		b.Run(fmt.Sprintf("conditions=%d", n), func(b *testing.B) {
			f := New(Config{})
			s := f.Subscribe("t")
			defer s.Close()
			f.Apply(book("t", []ws.Level{lv("0.450", "1")}, []ws.Level{lv("0.900", "1")}))
			var fires int
			for i := range n {
				th := decimal.New(int64(1+i%400), -3) // 0.001 … 0.400: below the market
				op := AtOrBelow
				if i%2 == 1 {
					op = AtOrAbove
					th = decimal.New(int64(950+i%49), -3) // 0.950 … 0.998: above it
				}
				if i < 10 {
					op, th = AtOrBelow, decimal.New(60, -2) // met at 0.50
				}
				field := BestAsk
				if i%4 >= 2 {
					field = Mid
				}
				if _, err := f.When(Condition{TokenID: "t", Field: field, Op: op, Threshold: th}, func(Fire) { fires++ }); err != nil {
					b.Fatal(err)
				}
			}
			a, c := change("t", ws.Sell, "0.500", "1"), change("t", ws.Sell, "0.500", "0")
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if i%2 == 0 {
					f.Apply(a)
				} else {
					f.Apply(c)
				}
			}
			b.ReportMetric(float64(fires)/float64(b.N), "fires/op")
		})
	}
}

// BenchmarkFanout: one price event delivered to n consumers of a token.
func BenchmarkFanout(b *testing.B) {
	for _, n := range []int{1, 1_000} {
		b.Run(fmt.Sprintf("consumers=%d", n), func(b *testing.B) {
			f := New(Config{})
			for range n {
				defer f.Subscribe("t").Close()
			}
			f.Apply(book("t", []ws.Level{lv("0.10", "1")}, []ws.Level{lv("0.90", "1")}))
			a, c := change("t", ws.Buy, "0.20", "1"), change("t", ws.Buy, "0.20", "0")
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if i%2 == 0 {
					f.Apply(a)
				} else {
					f.Apply(c)
				}
			}
		})
	}
}
