package backtesting

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/venue/clob"
)

// records is an in-memory venue record: price paths, markets, market
// trades and wallet trades (a real fake of Source).
type records struct {
	prices  map[string][]clob.PricePoint
	markets map[string]*Market
	trades  map[string][]Trade // by condition id
	wallets map[string][]Trade
}

func (r *records) PriceHistory(_ context.Context, token string, from, to time.Time) ([]clob.PricePoint, error) {
	var out []clob.PricePoint
	for _, p := range r.prices[token] {
		if !p.Time.Before(from) && !p.Time.After(to) {
			out = append(out, p)
		}
	}
	return out, nil
}

func (r *records) Market(_ context.Context, token string) (*Market, error) {
	if m, ok := r.markets[token]; ok {
		return m, nil
	}
	return nil, errs.E(errs.NotFound, "unknown token").WithCode(errs.CodeTokenNotFound)
}

func (r *records) MarketTrades(_ context.Context, cond string, from, to time.Time) ([]Trade, time.Time, error) {
	return between(r.trades[cond], from, to), from, nil
}

func (r *records) WalletTrades(_ context.Context, w string, from, to time.Time) ([]Trade, error) {
	return between(r.wallets[strings.ToLower(w)], from, to), nil
}

func between(ts []Trade, from, to time.Time) []Trade {
	var out []Trade
	for _, t := range ts {
		if !t.Time.Before(from) && !t.Time.After(to) {
			out = append(out, t)
		}
	}
	return out
}

const (
	tok   = "1001"
	other = "1002"
	cond  = "0xc0"
)

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// path is a price path, one point every step from t0.
func path(step time.Duration, prices ...string) []clob.PricePoint {
	out := make([]clob.PricePoint, len(prices))
	for i, p := range prices {
		out[i] = clob.PricePoint{Time: t0.Add(time.Duration(i) * step), Price: d(p)}
	}
	return out
}

func market() *Market {
	return &Market{TokenID: tok, ConditionID: cond, Question: "Will it?", Outcome: "Yes", Tick: d("0.01"), Spread: d("0.02")}
}

func budget(s string) *strategies.Dec { return strategies.D(d(s)) }

// exec is an execution worked out by hand.
type exec struct {
	at                int // minutes after t0
	kind, side        string
	price, size       string
	filled, avg, amnt string
	status            string
}

func TestBacktestByHand(t *testing.T) {
	tests := []struct {
		name     string
		typ      string
		config   string
		budget   string
		prices   []clob.PricePoint
		mkt      func(*Market)
		trades   []Trade
		wallet   []Trade
		want     []exec
		status   string
		ended    string
		balance  string
		realized string
		unreal   string
		maxDD    string
		fills    int
		used     string
		warn     string
	}{
		{
			// Asks (price + 0.01): 0.51 0.46 0.41 0.39 0.43. The alert
			// (ask ≤ 0.40) fires at minute 3 and buys 10 at the ask,
			// 0.39, within its bound 0.42; then it is done.
			name: "price alert", typ: strategies.TypePriceAlert, budget: "50",
			config: `{"tokenId":"1001","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":"0.40","size":"10","orderType":"MARKET"}`,
			prices: path(time.Minute, "0.50", "0.45", "0.40", "0.38", "0.42"),
			want:   []exec{{at: 3, kind: "action", side: "BUY", price: "0.42", size: "10", filled: "10", avg: "0.39", amnt: "3.9", status: "FILLED"}},
			status: "COMPLETED", ended: strategies.EndFired, balance: "96.1", realized: "0", unreal: "0.3", maxDD: "0.1", fills: 1, used: "3.9",
		},
		{
			// Every hour (points every 30 min), $5 up to the ask + 0.02:
			// minute 0 buys 9.80 at 0.51 ($4.998), minute 60 16.12 at
			// 0.31 ($4.9972), minute 120 what $2.0048 pays at its bound
			// 0.28 (7.16) at 0.26; $0.1432 left is under $1: done.
			name: "recurring buy", typ: strategies.TypeRecurringBuy, budget: "12",
			config: `{"tokenId":"1001","amountPerInterval":"5","interval":"1h"}`,
			prices: path(30*time.Minute, "0.50", "0.40", "0.30", "0.20", "0.25", "0.30"),
			want: []exec{
				{at: 0, kind: "action", side: "BUY", price: "0.53", size: "9.8", filled: "9.8", avg: "0.51", amnt: "4.998", status: "FILLED"},
				{at: 60, kind: "action", side: "BUY", price: "0.33", size: "16.12", filled: "16.12", avg: "0.31", amnt: "4.9972", status: "FILLED"},
				{at: 120, kind: "action", side: "BUY", price: "0.28", size: "7.16", filled: "7.16", avg: "0.26", amnt: "1.8616", status: "FILLED"},
			},
			status: "COMPLETED", ended: strategies.EndBudget, balance: "88.1432", realized: "0", unreal: "-1.9328", fills: 3, used: "11.8568",
			// Equity from 100: at minute 90 90.0048 + 25.92 × 0.20.
			maxDD: "4.8112",
		},
		{
			// Buy 10 at ask ≤ 0.40, sell at bid ≥ 0.60: buys at 0.39
			// (minute 1), sells at 0.61 (minute 3), buys again at 0.40
			// (minute 4) and holds 10 at the end (mark 0.55).
			name: "buy low sell high", typ: strategies.TypeBuyLowSellHigh, budget: "100",
			config: `{"tokenId":"1001","buyBelow":"0.40","sellAbove":"0.60","sizePerTrade":"10"}`,
			prices: path(time.Minute, "0.50", "0.38", "0.45", "0.62", "0.39", "0.55"),
			want: []exec{
				{at: 1, kind: "action", side: "BUY", price: "0.4", size: "10", filled: "10", avg: "0.39", amnt: "3.9", status: "FILLED"},
				{at: 3, kind: "action", side: "SELL", price: "0.6", size: "10", filled: "10", avg: "0.61", amnt: "0", status: "FILLED"},
				{at: 4, kind: "action", side: "BUY", price: "0.4", size: "10", filled: "10", avg: "0.4", amnt: "4", status: "FILLED"},
			},
			status: "ACTIVE", balance: "98.2", realized: "2.2", unreal: "1.5", maxDD: "0.1", fills: 3, used: "7.9",
		},
		{
			// 50 shares traded in minute 1: a buy takes at most 10% (5 of
			// its 10); the rest is killed. It holds 5, so it may not buy
			// another lot (maxOpenSize 10) and waits to sell.
			name: "volume cap", typ: strategies.TypeBuyLowSellHigh, budget: "100",
			config: `{"tokenId":"1001","buyBelow":"0.40","sellAbove":"0.60","sizePerTrade":"10"}`,
			prices: path(time.Minute, "0.50", "0.38", "0.39"),
			trades: []Trade{{Time: t0.Add(70 * time.Second), TokenID: tok, ConditionID: cond, Side: "BUY", Size: d("50"), Price: d("0.39")}},
			want: []exec{
				{at: 1, kind: "action", side: "BUY", price: "0.4", size: "10", filled: "5", avg: "0.39", amnt: "1.95", status: "CANCELLED"},
			},
			status: "ACTIVE", balance: "98.05", realized: "0", unreal: "0", maxDD: "0.05", fills: 1, used: "1.95",
		},
		{
			// The alert buys 10 at 0.39; the market resolves Yes after
			// the last point: 10 shares pay $10.
			name: "resolved in the window", typ: strategies.TypePriceAlert, budget: "50",
			config: `{"tokenId":"1001","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":"0.40","size":"10","orderType":"MARKET"}`,
			prices: path(time.Minute, "0.38", "0.90"),
			mkt:    func(m *Market) { m.Closed, m.Resolved, m.Won = true, true, true },
			want:   []exec{{at: 0, kind: "action", side: "BUY", price: "0.42", size: "10", filled: "10", avg: "0.39", amnt: "3.9", status: "FILLED"}},
			status: "COMPLETED", ended: strategies.EndFired, balance: "106.1", realized: "6.1", unreal: "0", maxDD: "0.1", fills: 1, used: "3.9",
			warn: "resolved in the window",
		},
		{
			// The target buys 100 at 0.40 and sells 50 at 0.60; 10% of
			// each is copied at its price (within the 0.02 slippage).
			name: "copy trade", typ: strategies.TypeCopyTrade, budget: "100",
			config: `{"targetAddress":"0x00000000000000000000000000000000000000aa","sizingMode":"proportional","proportionPct":"10","copySells":true}`,
			wallet: []Trade{
				{Time: t0.Add(time.Minute), TokenID: tok, ConditionID: cond, Side: "BUY", Size: d("100"), Price: d("0.40"), TxHash: "0x01"},
				{Time: t0.Add(5 * time.Minute), TokenID: tok, ConditionID: cond, Side: "SELL", Size: d("50"), Price: d("0.60"), TxHash: "0x02"},
			},
			prices: path(time.Minute, "0.40", "0.40", "0.50", "0.55", "0.60", "0.60", "0.65"),
			want: []exec{
				{at: 1, kind: "action", side: "BUY", price: "0.42", size: "10", filled: "10", avg: "0.4", amnt: "4", status: "FILLED"},
				{at: 5, kind: "action", side: "SELL", price: "0.58", size: "5", filled: "5", avg: "0.6", amnt: "0", status: "FILLED"},
			},
			status: "ACTIVE", balance: "99", realized: "1", unreal: "1.25", maxDD: "0", fills: 2, used: "4",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := market()
			if tc.mkt != nil {
				tc.mkt(m)
			}
			src := &records{prices: map[string][]clob.PricePoint{tok: tc.prices}, markets: map[string]*Market{tok: m},
				trades: map[string][]Trade{cond: tc.trades}, wallets: map[string][]Trade{"0x00000000000000000000000000000000000000aa": tc.wallet}}
			svc := &Service{Source: src, Now: func() time.Time { return t0.Add(24 * time.Hour) }}
			res, err := svc.Run(context.Background(), Request{Type: tc.typ, Config: json.RawMessage(tc.config), MaxBudget: budget(tc.budget),
				From: t0, To: t0.Add(3 * time.Hour), StartingBalance: d("100")})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Executions) != len(tc.want) {
				for _, e := range res.Executions {
					t.Logf("%s %s %s %s %s: %s", e.Time.Format("15:04"), e.Kind, e.Side, e.Size, e.Price, e.Reason)
				}
				t.Fatalf("%d executions, want %d", len(res.Executions), len(tc.want))
			}
			for i, w := range tc.want {
				e := res.Executions[i]
				got := []string{e.Time.Format(time.RFC3339), e.Kind, e.Side, e.Price.String(), e.Size.String(), e.FilledSize.String(),
					e.AvgFillPrice.String(), e.Amount.String(), e.OrderStatus}
				exp := []string{t0.Add(time.Duration(w.at) * time.Minute).Format(time.RFC3339), w.kind, w.side, w.price, w.size, w.filled, w.avg, w.amnt, w.status}
				if strings.Join(got, " ") != strings.Join(exp, " ") {
					t.Errorf("execution %d: %v\nwant %v (%s)", i+1, got, exp, e.Reason)
				}
				if e.Seq != i+1 {
					t.Errorf("execution %d has seq %d", i+1, e.Seq)
				}
			}
			checks := [][3]string{
				{"status", res.Status, tc.status}, {"ended", res.EndedReason, tc.ended},
				{"balance", res.FinalBalance.String(), d(tc.balance).String()},
				{"realized", res.RealizedPnL.String(), d(tc.realized).String()},
				{"unrealized", res.UnrealizedPnL.String(), d(tc.unreal).String()},
				{"max drawdown", res.MaxDrawdown.String(), d(tc.maxDD).String()},
				{"budget used", res.BudgetUsed.String(), d(tc.used).String()},
			}
			for _, c := range checks {
				if c[1] != c[2] {
					t.Errorf("%s = %s, want %s", c[0], c[1], c[2])
				}
			}
			if res.Trades != tc.fills {
				t.Errorf("trades = %d, want %d", res.Trades, tc.fills)
			}
			if tc.warn != "" && !strings.Contains(strings.Join(res.Warnings, "\n"), tc.warn) {
				t.Errorf("no warning %q in %q", tc.warn, res.Warnings)
			}
		})
	}
}

func TestBacktestRefusals(t *testing.T) {
	now := t0.Add(24 * time.Hour)
	src := &records{prices: map[string][]clob.PricePoint{}, markets: map[string]*Market{tok: market()}}
	svc := &Service{Source: src, Now: func() time.Time { return now }}
	alert := `{"tokenId":"1001","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":"0.40","size":"10","orderType":"MARKET"}`
	tests := []struct {
		name     string
		from, to time.Time
		balance  string
		typ      string
		code     string
	}{
		{"no history", t0, t0.Add(time.Hour), "100", strategies.TypePriceAlert, errs.CodeNoPriceHistory},
		{"window too long", now.Add(-31 * 24 * time.Hour), now, "100", strategies.TypePriceAlert, errs.CodeInvalidBacktestWindow},
		{"window reversed", t0.Add(time.Hour), t0, "100", strategies.TypePriceAlert, errs.CodeInvalidBacktestWindow},
		{"in the future", t0, now.Add(time.Hour), "100", strategies.TypePriceAlert, errs.CodeInvalidBacktestWindow},
		{"no balance", t0, t0.Add(time.Hour), "0", strategies.TypePriceAlert, errs.CodeInvalidBacktestWindow},
		{"bad type", t0, t0.Add(time.Hour), "100", "MOON", errs.CodeInvalidStrategyType},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := svc.Run(context.Background(), Request{Type: tc.typ, Config: json.RawMessage(alert), MaxBudget: budget("50"),
				From: tc.from, To: tc.to, StartingBalance: d(tc.balance)})
			if errs.CodeOf(err) != tc.code {
				t.Fatalf("err = %v (code %q), want code %s", err, errs.CodeOf(err), tc.code)
			}
		})
	}
}

func TestModelQuote(t *testing.T) {
	tests := []struct {
		tick, spread, price, bid, ask string
	}{
		{"0.01", "0.02", "0.50", "0.49", "0.51"},
		{"0.01", "0", "0.50", "0.49", "0.51"},     // at least one tick: half of it rounds out to the tick
		{"0.01", "0.03", "0.505", "0.49", "0.52"}, // ±0.015, on the tick away from the price
		{"0.001", "0.004", "0.5", "0.498", "0.502"},
		{"0.01", "0.02", "0.005", "0.01", "0.02"}, // kept within [tick, 1 − tick]
		{"0.01", "0.02", "0.999", "0.98", "0.99"},
	}
	for _, tc := range tests {
		m := Model{Tick: d(tc.tick), Spread: d(tc.spread)}
		bid, ask := m.Quote(d(tc.price))
		if bid.String() != d(tc.bid).String() || ask.String() != d(tc.ask).String() {
			t.Errorf("%+v: bid %s ask %s", tc, bid, ask)
		}
	}
}

func TestMarketable(t *testing.T) {
	tests := []struct {
		name                 string
		buy                  bool
		size, limit, px, cap string
		capped, allOrNothing bool
		wantSize, wantPrice  string
	}{
		{"buy within limit", true, "10", "0.42", "0.39", "0", false, false, "10", "0.39"},
		{"buy beyond limit", true, "10", "0.42", "0.43", "0", false, false, "0", "0"},
		{"sell within limit", false, "10", "0.60", "0.61", "0", false, false, "10", "0.61"},
		{"sell beyond limit", false, "10", "0.60", "0.59", "0", false, false, "0", "0"},
		{"capped", true, "10", "0.42", "0.39", "4", true, false, "4", "0.39"},
		{"FOK over the cap", true, "10", "0.42", "0.39", "4", true, true, "0", "0"},
		{"FOK within the cap", true, "10", "0.42", "0.39", "12", true, true, "10", "0.39"},
		{"no volume", true, "10", "0.42", "0.39", "0", true, false, "0", "0"},
	}
	for _, tc := range tests {
		f := Marketable(tc.buy, d(tc.size), d(tc.limit), d(tc.px), d(tc.cap), tc.capped, tc.allOrNothing)
		if f.Size.String() != d(tc.wantSize).String() || f.Price.String() != d(tc.wantPrice).String() {
			t.Errorf("%s: %+v", tc.name, f)
		}
	}
}
