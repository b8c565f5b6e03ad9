package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/venue/dataapi"
	"github.com/agent-trading/ats/venue/network"
)

// apiBacktest is POST /strategies/backtest's answer as an agent reads it.
type apiBacktest struct {
	Status      string  `json:"status"`
	EndedReason *string `json:"endedReason"`
	Executions  []struct {
		Time         time.Time   `json:"time"`
		Kind         string      `json:"kind"`
		Side         *string     `json:"side"`
		TokenID      *string     `json:"tokenId"`
		Price        json.Number `json:"price"`
		Size         json.Number `json:"size"`
		FilledSize   json.Number `json:"filledSize"`
		AvgFillPrice json.Number `json:"avgFillPrice"`
		Amount       json.Number `json:"amount"`
		OrderStatus  *string     `json:"orderStatus"`
		Reason       string      `json:"reason"`
	} `json:"executions"`
	FinalBalance  json.Number `json:"finalBalance"`
	RealizedPnl   json.Number `json:"realizedPnl"`
	UnrealizedPnl json.Number `json:"unrealizedPnl"`
	TradeCount    int         `json:"tradeCount"`
	BudgetUsed    json.Number `json:"budgetUsed"`
	Points        int         `json:"points"`
	Warnings      []string    `json:"warnings"`
}

func (e *tradingEnv) backtest(t testing.TB, tr trader, typ string, config map[string]any, budget string, from, to time.Time) (int, apiBacktest, string) {
	t.Helper()
	status, b := e.call(t, tr.key, "POST", "/strategies/backtest", map[string]any{"type": typ, "config": config, "maxBudget": json.Number(budget),
		"from": from.UTC().Format(time.RFC3339), "to": to.UTC().Format(time.RFC3339), "startingBalance": 100})
	var d struct {
		Backtest apiBacktest `json:"backtest"`
	}
	if status == 200 {
		if err := json.Unmarshal(b["data"], &d); err != nil {
			t.Fatal(err)
		}
	}
	return status, d.Backtest, strings.Trim(string(b["code"]), `"`)
}

// recordPath sets token's recorded history (POST /control/markets/{tokenId}/history):
// prices one step apart from t0.
func (e *tradingEnv) recordPath(t testing.TB, token string, t0 time.Time, step time.Duration, prices ...string) {
	t.Helper()
	var pts []string
	for i, p := range prices {
		pts = append(pts, fmt.Sprintf(`{"time":%q,"price":%s}`, t0.Add(time.Duration(i)*step).UTC().Format(time.RFC3339), p))
	}
	e.control(t, "/control/markets/"+token+"/history", `{"points":[`+strings.Join(pts, ",")+`]}`, nil)
}

// TestBacktestAgainstTheSandbox runs backtests through the HTTP API over
// the sandbox venue's records: price paths of a known shape (set with the
// control API) give exactly the executions worked out by hand; a
// COPY_TRADE backtest copies the trades an outside wallet made through the
// book; a PRICE_ALERT run live over a price path set in the sandbox and
// backtested over the history it left makes the same decision; a window
// without history is refused.
func TestBacktestAgainstTheSandbox(t *testing.T) {
	e, tr, _ := newTradingTest(t, tradingOpts{}, "Will backtests replay")
	e.withStrategyFeed(t)
	// Whole minutes, well in the past: /prices-history answers the first
	// point of each minute.
	t0 := time.Now().UTC().Truncate(time.Minute).Add(-6 * time.Hour)

	type exec struct{ at, kind, side, price, size, filled, avg, amount string }
	tests := []struct {
		name, typ, budget string
		config            map[string]any
		step              time.Duration
		prices            []string
		want              []exec
		status, balance   string
	}{
		// The sandbox's makers quote one tick (0.01) either side of the
		// price: asks 0.51 0.46 0.41 0.39 0.43; the alert (ask ≤ 0.40)
		// buys 10 at 0.39 at minute 3, within its bound 0.42.
		{name: "price alert", typ: "PRICE_ALERT", budget: "50", step: time.Minute,
			config: map[string]any{"side": "BUY", "triggerCondition": "PRICE_LTE", "triggerPrice": 0.40, "size": 10, "orderType": "MARKET"},
			prices: []string{"0.50", "0.45", "0.40", "0.38", "0.42"},
			want:   []exec{{"3m", "action", "BUY", "0.42", "10", "10", "0.39", "3.9"}}, status: "COMPLETED", balance: "96.1"},
		// $5 an hour: 9.80 at 0.51, 16.12 at 0.31, then what the $2.0048
		// left pays at its bound 0.28 (7.16) at 0.26; done.
		{name: "recurring buy", typ: "RECURRING_BUY", budget: "12", step: 30 * time.Minute,
			config: map[string]any{"amountPerInterval": 5, "interval": "1h"},
			prices: []string{"0.50", "0.40", "0.30", "0.20", "0.25", "0.30"},
			want: []exec{{"0m", "action", "BUY", "0.53", "9.8", "9.8", "0.51", "4.998"}, {"60m", "action", "BUY", "0.33", "16.12", "16.12", "0.31", "4.9972"},
				{"120m", "action", "BUY", "0.28", "7.16", "7.16", "0.26", "1.8616"}}, status: "COMPLETED", balance: "88.1432"},
		// Buys 10 at 0.39, sells them at 0.61, buys 10 again at 0.40.
		{name: "buy low sell high", typ: "BUY_LOW_SELL_HIGH", budget: "100", step: time.Minute,
			config: map[string]any{"buyBelow": 0.40, "sellAbove": 0.60, "sizePerTrade": 10},
			prices: []string{"0.50", "0.38", "0.45", "0.62", "0.39", "0.55"},
			want: []exec{{"1m", "action", "BUY", "0.4", "10", "10", "0.39", "3.9"}, {"3m", "action", "SELL", "0.6", "10", "10", "0.61", "0"},
				{"4m", "action", "BUY", "0.4", "10", "10", "0.4", "4"}}, status: "ACTIVE", balance: "98.2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := e.newMarket(t, "Will the "+tc.name+" backtest replay", "0.5")
			tc.config["tokenId"] = m.TokenIDs[0]
			e.recordPath(t, m.TokenIDs[0], t0, tc.step, tc.prices...)
			status, bt, code := e.backtest(t, tr, tc.typ, tc.config, tc.budget, t0, t0.Add(3*time.Hour))
			if status != 200 {
				t.Fatalf("backtest: %d %s", status, code)
			}
			var got, want []string
			for _, x := range bt.Executions {
				got = append(got, fmt.Sprintf("%s %s %s %s %s %s %s %s", x.Time.Sub(t0).Round(time.Second).String(), x.Kind, deref(x.Side),
					x.Price, x.Size, x.FilledSize, x.AvgFillPrice, x.Amount))
			}
			for _, w := range tc.want {
				d, _ := time.ParseDuration(w.at)
				want = append(want, fmt.Sprintf("%s %s %s %s %s %s %s %s", d.String(), w.kind, w.side, w.price, w.size, w.filled, w.avg, w.amount))
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("executions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if bt.Status != tc.status || bt.FinalBalance.String() != tc.balance || bt.Points != len(tc.prices) {
				t.Fatalf("backtest: %+v", bt)
			}
		})
	}

	t.Run("no history", func(t *testing.T) {
		m := e.newMarket(t, "Will a market without a past replay", "0.5")
		status, _, code := e.backtest(t, tr, "PRICE_ALERT", map[string]any{"tokenId": m.TokenIDs[0], "side": "BUY",
			"triggerCondition": "PRICE_LTE", "triggerPrice": 0.40, "size": 10}, "50", t0, t0.Add(time.Hour))
		if status != 404 || code != "no_price_history" {
			t.Fatalf("a window before the market was listed: %d %s", status, code)
		}
	})

	t.Run("copy trade", func(t *testing.T) {
		m := e.newMarket(t, "Will the copy backtest copy", "0.5")
		from := time.Now().Add(-time.Minute)
		e.outsideTrade(t, m.TokenIDs[0], "BUY", "100", "0.53")
		e.outsideTrade(t, m.TokenIDs[0], "SELL", "50", "0.45")
		status, bt, code := e.backtest(t, tr, "COPY_TRADE", map[string]any{"targetAddress": e.outsideAddress(t), "sizingMode": "proportional",
			"proportionPct": 10, "copySells": true, "tokenFilter": []string{m.TokenIDs[0]}}, "100", from, time.Now())
		if status != 200 {
			t.Fatalf("backtest: %d %s", status, code)
		}
		// The target's fills as the venue's data API records them.
		acts, _, err := dataAPIOf(e).WalletTrades(t.Context(), addressOf(e.outsideAddress(t)), from, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		var fills []string
		for _, a := range acts {
			if a.Asset == m.TokenIDs[0] {
				fills = append(fills, a.Side+" "+a.Size.Decimal.Mul(decimal.RequireFromString("0.1")).RoundFloor(2).String()+" @ "+a.Price.Decimal.String())
			}
		}
		var copies []string
		for _, x := range bt.Executions {
			if x.Kind != "action" || deref(x.OrderStatus) != "FILLED" {
				t.Fatalf("a copy not made: %+v", x)
			}
			copies = append(copies, deref(x.Side)+" "+x.FilledSize.String()+" @ "+x.AvgFillPrice.String())
		}
		if len(fills) < 2 || strings.Join(copies, "; ") != strings.Join(fills, "; ") {
			t.Fatalf("copies %q of the target's fills %q", copies, fills)
		}
	})

	t.Run("live and backtest agree", func(t *testing.T) {
		m := e.newMarket(t, "Will the live alert and its backtest agree", "0.5")
		yes := m.TokenIDs[0]
		e.setPrice(t, yes, "0.5") // held: the price no longer walks
		start := time.Now()
		config := map[string]any{"tokenId": yes, "side": "BUY", "triggerCondition": "PRICE_LTE", "triggerPrice": 0.40, "size": 10, "orderType": "MARKET"}
		s := e.createStrategy(t, tr, map[string]any{"type": "PRICE_ALERT", "maxBudget": 50, "config": config})
		moved := time.Now()
		// Well below the trigger: an ordinary sandbox market's price
		// walks a tick now and then, and the backtest reads it at the
		// next minute.
		e.setPrice(t, yes, "0.30")
		live := e.awaitStrategy(t, tr, s.ID, "filled", func(s apiStrategy) bool {
			return s.Status == "COMPLETED" && len(s.Executions) == 1 && deref(s.Executions[0].OrderStatus) == "FILLED"
		})
		_, b := e.call(t, tr.key, "GET", "/orders/"+*live.Executions[0].OrderID, nil)
		o := dataOrder(t, b)
		// The venue's history holds the first price of each minute: the
		// move shows from the next minute on.
		next := moved.Truncate(time.Minute).Add(time.Minute)
		time.Sleep(time.Until(next.Add(5 * time.Second)))
		status, bt, code := e.backtest(t, tr, "PRICE_ALERT", config, "50", start.Add(-time.Minute), time.Now())
		if status != 200 {
			t.Fatalf("backtest: %d %s", status, code)
		}
		if len(bt.Executions) != 1 {
			pts, _ := e.svc.Orders.CLOB.PricesHistory(t.Context(), yes, start.Add(-time.Minute), time.Now(), 1)
			t.Fatalf("backtest executions: %+v over %d points (%v; moved at %s), warnings %q", bt.Executions, bt.Points, pts, moved, bt.Warnings)
		}
		// The same decision: an order of the same side, size and limit,
		// and the strategy done. (What it filled is the model's: the
		// sandbox's only recorded volume is the live run's own 10 shares,
		// of which a simulated order takes at most 10%.)
		x := bt.Executions[0]
		got := fmt.Sprintf("%s %s %s %s", x.Kind, deref(x.Side), x.Size, x.Price)
		want := fmt.Sprintf("%s %s %s %s", live.Executions[0].Kind, o.Side, o.Size, o.Price)
		if got != want || bt.Status != live.Status || deref(bt.EndedReason) != deref(live.EndedReason) {
			t.Fatalf("backtest %q (%s), live %q (%s): %s", got, bt.Status, want, live.Status, x.Reason)
		}
		if x.FilledSize.String() != "1" {
			t.Fatalf("the backtest filled %s of 10: not 10%% of the 10 shares recorded", x.FilledSize)
		}
		if x.Time.Before(moved.Truncate(time.Minute)) || !x.Time.Before(next.Add(time.Minute)) { // the first sample of the next minute
			t.Fatalf("backtest decided at %s; the price moved at %s", x.Time, moved)
		}
	})
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// dataAPIOf is a client of the env's venue's data API.
func dataAPIOf(e *tradingEnv) *dataapi.Client {
	return dataapi.New(dataapi.ConfigFor(network.Sandbox(e.sb.URL())))
}

func addressOf(hex string) common.Address { return common.HexToAddress(hex) }
