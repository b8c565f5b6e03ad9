package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// behavedStrategy is a strategy answer with what issue 25 added: the
// market it names and, per execution, what its order filled and where.
type behavedStrategy struct {
	ID               string          `json:"id"`
	Status           string          `json:"status"`
	EndedReason      *string         `json:"endedReason"`
	TokenID          string          `json:"tokenId"`
	Config           json.RawMessage `json:"config"`
	BudgetUsed       json.Number     `json:"budgetUsed"`
	NextEvaluationAt *time.Time      `json:"nextEvaluationAt"`
	Market           *apiMarket      `json:"market"`
	Executions       []struct {
		Seq          int         `json:"seq"`
		Time         time.Time   `json:"time"`
		Kind         string      `json:"kind"`
		Reason       string      `json:"reason"`
		OrderID      *string     `json:"orderId"`
		OrderStatus  *string     `json:"orderStatus"`
		TokenID      *string     `json:"tokenId"`
		Price        json.Number `json:"price"`
		Size         json.Number `json:"size"`
		FilledSize   json.Number `json:"filledSize"`
		AvgFillPrice json.Number `json:"avgFillPrice"`
		Amount       json.Number `json:"amount"`
		Market       *apiMarket  `json:"market"`
	} `json:"executions"`
}

type apiMarket struct {
	Question string     `json:"question"`
	Outcome  string     `json:"outcome"`
	Slug     string     `json:"slug"`
	EndDate  *time.Time `json:"endDate"`
}

func behaved(t testing.TB, b map[string]json.RawMessage) behavedStrategy {
	t.Helper()
	var d struct {
		Strategy behavedStrategy `json:"strategy"`
	}
	if err := json.Unmarshal(b["data"], &d); err != nil {
		t.Fatalf("data.strategy: %v in %s", err, b["data"])
	}
	return d.Strategy
}

func (e *tradingEnv) getBehaved(t testing.TB, tr trader, id string) behavedStrategy {
	t.Helper()
	status, b := e.call(t, tr.key, "GET", "/strategies/"+id, nil)
	if status != http.StatusOK {
		t.Fatalf("get %s: %d %s", id, status, b)
	}
	return behaved(t, b)
}

// awaitBehaved polls the strategy until ok holds (limit at most).
func (e *tradingEnv) awaitBehaved(t testing.TB, tr trader, id, what string, limit time.Duration, ok func(behavedStrategy) bool) behavedStrategy {
	t.Helper()
	return awaitStrategyState(t, id, what, limit, 200*time.Millisecond,
		func() behavedStrategy { return e.getBehaved(t, tr, id) }, ok)
}

func num(t testing.TB, n json.Number) decimal.Decimal {
	t.Helper()
	d, err := decimal.NewFromString(n.String())
	if err != nil {
		t.Fatalf("%q: %v", n, err)
	}
	return d
}

// TestStrategyBehavioursAgainstTheSandbox drives issue 25's strategy
// behaviours through the HTTP API, the worker, Temporal and the sandbox
// venue: a RECURRING_BUY larger than the top level buys across levels
// within priceLimit; one larger than the book within its bound is a
// partial buy, recorded as such and not an error; configs that could never
// trade are refused at create; pause and resume keep the interval; an
// expiry is reported once by the heartbeat; numbers with float noise are
// accepted and normalised while genuinely off-tick ones are refused; and
// every strategy answer names its market.
func TestStrategyBehavioursAgainstTheSandbox(t *testing.T) {
	e, tr, m := newTradingTest(t, tradingOpts{}, "Will strategies behave")
	e.withStrategyFeed(t)
	yes := m.TokenIDs[0]
	const question = "Will strategies behave"
	half := decimal.RequireFromString("0.5")

	t.Run("recurring buy walks the book within priceLimit", func(t *testing.T) {
		// The makers quote 100 shares one tick above the fair price, 250
		// two ticks above, 500 four: $100 is more than the top level holds.
		e.setPrice(t, yes, "0.5")
		e.awaitQuoted(t, yes, half)
		s := e.createStrategy(t, tr, map[string]any{"type": "RECURRING_BUY", "maxBudget": 200, "config": map[string]any{
			"tokenId": yes, "amountPerInterval": 100, "interval": "1h", "priceLimit": 0.53}})
		got := e.awaitBehaved(t, tr, s.ID, "bought", 30*time.Second, func(s behavedStrategy) bool {
			return len(s.Executions) == 1 && s.Executions[0].FilledSize.String() != "" && s.Executions[0].FilledSize.String() != "0"
		})
		x := got.Executions[0]
		require.Equal(t, "action", x.Kind, "%+v", x)
		filled, avg := num(t, x.FilledSize), num(t, x.AvgFillPrice)
		t.Logf("filled %s shares at an average of %s (%s)", filled, avg, x.Reason)
		assert.True(t, filled.GreaterThan(decimal.NewFromInt(100)), "filled %s: no more than the top level", filled)
		assert.True(t, avg.LessThanOrEqual(decimal.RequireFromString("0.53")), "average %s: within priceLimit", avg)
		assert.Contains(t, x.Reason, "walking the book up to 0.53 (priceLimit 0.53)")
		assert.NotContains(t, x.Reason, "partial", "the book held the whole buy within priceLimit")
		assert.Equal(t, "0.53", x.Price.String(), "the order's worst price is priceLimit")
		require.NotNil(t, x.Market)
		assert.Equal(t, question, x.Market.Question)
		assert.Equal(t, "Yes", x.Market.Outcome)
		assert.Equal(t, "ACTIVE", got.Status)
		e.call(t, tr.key, "DELETE", "/strategies/"+s.ID, nil)
	})

	t.Run("a partial buy is a buy, not an error", func(t *testing.T) {
		// Within 0.52 the book holds at most 350 shares (about $181):
		// $300 buys what is there.
		e.setPrice(t, yes, "0.5")
		e.awaitQuoted(t, yes, half)
		s := e.createStrategy(t, tr, map[string]any{"type": "RECURRING_BUY", "maxBudget": 400, "config": map[string]any{
			"tokenId": yes, "amountPerInterval": 300, "interval": "1h", "priceLimit": 0.52}})
		got := e.awaitBehaved(t, tr, s.ID, "bought", 30*time.Second, func(s behavedStrategy) bool {
			// FILLED, or CANCELLED once the venue killed the rest.
			return len(s.Executions) == 1 && s.Executions[0].OrderStatus != nil &&
				(*s.Executions[0].OrderStatus == "FILLED" || *s.Executions[0].OrderStatus == "CANCELLED") &&
				s.Executions[0].FilledSize.String() != "" && s.Executions[0].FilledSize.String() != "0"
		})
		x := got.Executions[0]
		assert.Equal(t, "action", x.Kind, "%+v", x)
		assert.Contains(t, x.Reason, "partial buy: the book offers only")
		spent := num(t, x.Amount)
		assert.True(t, spent.LessThan(decimal.NewFromInt(300)) && spent.IsPositive(), "spent %s", spent)
		assert.Equal(t, "ACTIVE", got.Status)
		status, b := e.call(t, tr.key, "GET", "/strategies/"+s.ID, nil)
		require.Equal(t, http.StatusOK, status)
		assert.EqualValues(t, 0, mustInt(t, b, "consecutiveErrors"))
		e.call(t, tr.key, "DELETE", "/strategies/"+s.ID, nil)
	})

	t.Run("configs that can never trade are refused at create", func(t *testing.T) {
		for _, tc := range []struct {
			body map[string]any
			says string
		}{
			{map[string]any{"type": "PRICE_ALERT", "maxBudget": 5, "config": map[string]any{"tokenId": yes, "side": "BUY",
				"triggerCondition": "PRICE_LTE", "triggerPrice": 0.35, "size": 100}}, "is more than maxBudget $5"},
			{map[string]any{"type": "BUY_LOW_SELL_HIGH", "maxBudget": 50, "config": map[string]any{"tokenId": yes,
				"buyBelow": 0.4, "sellAbove": 0.6, "sizePerTrade": 3}}, "below the market's minimum order size of 5 shares"},
			{map[string]any{"type": "RECURRING_BUY", "maxBudget": 0.5, "config": map[string]any{"tokenId": yes,
				"amountPerInterval": 5, "interval": "1h"}}, "below the venue's $1 minimum"},
		} {
			status, b := e.call(t, tr.key, "POST", "/strategies", tc.body)
			assert.Equal(t, http.StatusBadRequest, status, "%s", b)
			assert.Equal(t, `"strategy_infeasible"`, string(b["code"]), "%s", b)
			assert.Contains(t, string(b["message"]), tc.says)
		}
	})

	t.Run("pause and resume keep the interval", func(t *testing.T) {
		e.setPrice(t, yes, "0.5")
		e.awaitQuoted(t, yes, half)
		s := e.createStrategy(t, tr, map[string]any{"type": "RECURRING_BUY", "maxBudget": 20, "config": map[string]any{
			"tokenId": yes, "amountPerInterval": 2, "interval": "1h"}})
		got := e.awaitBehaved(t, tr, s.ID, "bought", 30*time.Second, func(s behavedStrategy) bool { return len(s.Executions) == 1 })
		require.Equal(t, "action", got.Executions[0].Kind, "%+v", got.Executions[0])
		bought := got.Executions[0].Time
		status, b := e.call(t, tr.key, "POST", "/strategies/"+s.ID+"/pause", nil)
		require.Equal(t, http.StatusOK, status, "%s", b)
		status, b = e.call(t, tr.key, "POST", "/strategies/"+s.ID+"/resume", nil)
		require.Equal(t, http.StatusOK, status, "%s", b)
		resumed := behaved(t, b)
		require.NotNil(t, resumed.NextEvaluationAt)
		assert.WithinDuration(t, bought.Add(time.Hour), *resumed.NextEvaluationAt, 2*time.Second, "next buy at the last buy + the interval")
		time.Sleep(2 * time.Second)
		assert.Len(t, e.getBehaved(t, tr, s.ID).Executions, 1, "no second buy within the interval")
		e.call(t, tr.key, "DELETE", "/strategies/"+s.ID, nil)
	})

	t.Run("expiry is reported once", func(t *testing.T) {
		e.heartbeat(t, tr.key, "") // the key's cursor: what came before is reported
		s := e.createStrategy(t, tr, map[string]any{"type": "PRICE_ALERT", "maxBudget": 5, "config": map[string]any{
			"tokenId": yes, "side": "BUY", "triggerCondition": "PRICE_LTE", "triggerPrice": 0.05, "size": 30}})
		e.heartbeat(t, tr.key, "")
		status, b := e.call(t, tr.key, "PATCH", "/strategies/"+s.ID, map[string]any{"expiresAt": time.Now().Add(3 * time.Second).UTC().Format(time.RFC3339Nano)})
		require.Equal(t, http.StatusOK, status, "%s", b)
		got := e.awaitBehaved(t, tr, s.ID, "expired", 30*time.Second, func(s behavedStrategy) bool { return s.Status == "CANCELLED" })
		require.NotNil(t, got.EndedReason)
		assert.Equal(t, "expired", *got.EndedReason)
		var v struct {
			Count  int `json:"count"`
			Events []struct {
				StrategyID string         `json:"strategyId"`
				By         string         `json:"by"`
				Details    map[string]any `json:"details"`
			} `json:"events"`
		}
		d := e.heartbeat(t, tr.key, "")
		d.action(t, "STRATEGY_CANCELLED", &v)
		require.Equal(t, 1, v.Count)
		assert.Equal(t, s.ID, v.Events[0].StrategyID)
		assert.Equal(t, "system", v.Events[0].By)
		assert.Equal(t, "expired", v.Events[0].Details["reason"])
		assert.NotContains(t, e.heartbeat(t, tr.key, "").types(), "STRATEGY_CANCELLED", "reported once")
	})

	t.Run("float noise is normalised, off-tick refused", func(t *testing.T) {
		// 0.02 + 6 × 0.001 and 10 + 2e-15, as a float64 client sends them.
		status, _, raw := e.send(t, tr.key, "POST", "/strategies", `{"type":"PRICE_ALERT","maxBudget":19.999999999999996,"config":{"tokenId":"`+yes+
			`","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.026000000000000002,"size":40.00000000000001}}`)
		require.Equal(t, http.StatusOK, status, "%s", raw)
		var created struct {
			Data struct {
				Strategy struct {
					ID        string          `json:"id"`
					Config    json.RawMessage `json:"config"`
					MaxBudget json.Number     `json:"maxBudget"`
				} `json:"strategy"`
			} `json:"data"`
		}
		require.NoError(t, json.Unmarshal(raw, &created))
		c := created.Data.Strategy
		assert.Contains(t, string(c.Config), `"triggerPrice":0.026`)
		assert.Contains(t, string(c.Config), `"size":40`)
		assert.NotContains(t, string(c.Config), "0.026000000000000002")
		assert.Equal(t, "20", c.MaxBudget.String())
		// PATCH, the same rule.
		status, _, raw = e.send(t, tr.key, "PATCH", "/strategies/"+c.ID, `{"config":{"triggerPrice":0.030000000000000002}}`)
		require.Equal(t, http.StatusOK, status, "%s", raw)
		assert.Contains(t, string(raw), `"triggerPrice":0.03,`)
		// Genuinely too precise: refused, naming the values around it.
		status, _, raw = e.send(t, tr.key, "PATCH", "/strategies/"+c.ID, `{"config":{"triggerPrice":0.0261234567}}`)
		assert.Equal(t, http.StatusBadRequest, status)
		assert.Contains(t, string(raw), "0.026123 and 0.026124")
		e.call(t, tr.key, "DELETE", "/strategies/"+c.ID, nil)

		// Orders: 0.1 + 0.2 is the 0.3 tick; 0.305 is not a tick.
		status, _, raw = e.send(t, tr.key, "POST", "/orders", `{"tokenId":"`+yes+`","side":"BUY","price":0.30000000000000004,"size":10.000000000000002,"type":"LIMIT","dryRun":true}`)
		require.Equal(t, http.StatusOK, status, "%s", raw)
		assert.Contains(t, string(raw), `"price":0.3,`)
		assert.Contains(t, string(raw), `"size":10,`)
		status, _, raw = e.send(t, tr.key, "POST", "/orders", `{"tokenId":"`+yes+`","side":"BUY","price":0.305,"size":10,"type":"LIMIT","dryRun":true}`)
		assert.Equal(t, http.StatusBadRequest, status)
		assert.Contains(t, string(raw), "invalid_tick_size")
		assert.Contains(t, string(raw), "the nearest valid values are 0.3 and 0.31")
		status, _, raw = e.send(t, tr.key, "POST", "/orders", `{"tokenId":"`+yes+`","side":"BUY","price":0.3,"size":10.005,"type":"LIMIT","dryRun":true}`)
		assert.Equal(t, http.StatusBadRequest, status)
		assert.Contains(t, string(raw), "10 and 10.01")
	})

	t.Run("every strategy answer names its market", func(t *testing.T) {
		status, b := e.call(t, tr.key, "POST", "/strategies", map[string]any{"type": "BUY_LOW_SELL_HIGH", "maxBudget": 10, "config": map[string]any{
			"tokenId": yes, "buyBelow": 0.1, "sellAbove": 0.9, "sizePerTrade": 10}})
		require.Equal(t, http.StatusOK, status, "%s", b)
		created := behaved(t, b)
		require.NotNil(t, created.Market, "create names the market")
		assert.Equal(t, question, created.Market.Question)
		assert.Equal(t, "Yes", created.Market.Outcome)
		assert.Equal(t, strings.ToLower(strings.ReplaceAll(question, " ", "-")), created.Market.Slug)
		require.NotNil(t, created.Market.EndDate)
		assert.True(t, created.Market.EndDate.After(time.Now()))
		status, b = e.call(t, tr.key, "GET", "/strategies", nil)
		require.Equal(t, http.StatusOK, status)
		var list []behavedStrategy
		require.NoError(t, json.Unmarshal(b["data"], &list))
		require.NotEmpty(t, list)
		for _, s := range list {
			if assert.NotNil(t, s.Market, "listed strategy %s names no market", s.ID) {
				assert.Equal(t, question, s.Market.Question)
			}
			for _, x := range e.getBehaved(t, tr, s.ID).Executions {
				if assert.NotNil(t, x.Market, "execution %d of %s names no market", x.Seq, s.ID) {
					assert.Equal(t, question, x.Market.Question)
				}
			}
		}
		for _, path := range []string{"/pause", "/resume"} {
			status, b = e.call(t, tr.key, "POST", "/strategies/"+created.ID+path, nil)
			require.Equal(t, http.StatusOK, status, "%s", b)
			assert.NotNil(t, behaved(t, b).Market, "%s names the market", path)
		}
		status, b = e.call(t, tr.key, "DELETE", "/strategies/"+created.ID, nil)
		require.Equal(t, http.StatusOK, status)
		assert.NotNil(t, behaved(t, b).Market, "cancel names the market")
	})
}

func mustInt(t testing.TB, b map[string]json.RawMessage, field string) int {
	t.Helper()
	var d struct {
		Strategy map[string]json.RawMessage `json:"strategy"`
	}
	require.NoError(t, json.Unmarshal(b["data"], &d))
	var n int
	require.NoError(t, json.Unmarshal(d.Strategy[field], &n), "%s", d.Strategy[field])
	return n
}

// TestPriceAlertFollowsUpDownWindows: a PRICE_ALERT on the 15-minute
// up/down marketQuery "btc 15m up" keeps working across a window roll. The
// sandbox lists btc 15m windows that each trade a minute, one after
// another, with the live venue's slugs: when the strategy's window ends,
// the strategy moves to the next one (an execution naming both windows),
// its conditions wait on the new window's Up token, and a fall of its
// price there fires it: its order is placed on the new window and it
// completes. An alert on the first window's tokenId cannot move on: it
// ends CANCELLED (market_closed) with its window, reported once by the
// heartbeat.
func TestPriceAlertFollowsUpDownWindows(t *testing.T) {
	e, tr, _ := newTradingTest(t, tradingOpts{upDown: []string{"btc 15m"}, upDownWindow: time.Minute}, "Will windows roll")
	e.withStrategyFeed(t)
	s := e.createStrategy(t, tr, map[string]any{"type": "PRICE_ALERT", "maxBudget": 5, "config": map[string]any{
		"marketQuery": "btc 15m up", "side": "BUY", "triggerCondition": "PRICE_LTE", "triggerPrice": 0.05, "size": 30}})
	first := e.getBehaved(t, tr, s.ID)
	require.NotNil(t, first.Market)
	require.NotNil(t, first.Market.EndDate)
	assert.Equal(t, "Up", first.Market.Outcome)
	assert.True(t, strings.HasPrefix(first.Market.Slug, "btc-updown-15m-"), first.Market.Slug)
	t.Logf("on %s (%s) until %s", first.Market.Slug, first.Market.Question, first.Market.EndDate)
	// The same window named by its tokenId: it cannot move on, so it ends
	// (CANCELLED, market_closed) when the window stops trading, and the
	// heartbeat says so, once.
	fixed := e.createStrategy(t, tr, map[string]any{"type": "PRICE_ALERT", "maxBudget": 5, "config": map[string]any{
		"tokenId": first.TokenID, "side": "BUY", "triggerCondition": "PRICE_LTE", "triggerPrice": 0.05, "size": 30}})
	e.heartbeat(t, tr.key, "") // the key's cursor: what came before is reported

	moved := e.awaitBehaved(t, tr, s.ID, "moved to the next window", time.Until(*first.Market.EndDate)+90*time.Second,
		func(s behavedStrategy) bool { return s.TokenID != first.TokenID })
	require.Equal(t, "ACTIVE", moved.Status, "%+v", moved)
	require.NotNil(t, moved.Market)
	assert.NotEqual(t, first.Market.Slug, moved.Market.Slug)
	assert.True(t, strings.HasPrefix(moved.Market.Slug, "btc-updown-15m-"), moved.Market.Slug)
	require.NotEmpty(t, moved.Executions)
	roll := moved.Executions[0]
	assert.Equal(t, "skip", roll.Kind)
	assert.Contains(t, roll.Reason, fmt.Sprintf("moved there from %q", first.Market.Question))
	require.NotNil(t, roll.Market)
	assert.Equal(t, moved.Market.Slug, roll.Market.Slug)
	t.Logf("moved to %s: %s", moved.Market.Slug, roll.Reason)

	ended := e.awaitBehaved(t, tr, fixed.ID, "ended with its window", 90*time.Second,
		func(s behavedStrategy) bool { return s.Status != "ACTIVE" })
	require.Equal(t, "CANCELLED", ended.Status, "%+v", ended)
	require.NotNil(t, ended.EndedReason)
	assert.Equal(t, "market_closed", *ended.EndedReason)
	require.NotEmpty(t, ended.Executions)
	assert.Equal(t, "skip", ended.Executions[0].Kind)
	assert.Contains(t, ended.Executions[0].Reason, "the strategy ends")
	require.NotNil(t, ended.Market)
	assert.Equal(t, first.Market.Slug, ended.Market.Slug, "it stayed on its window")
	var hb struct {
		Count  int `json:"count"`
		Events []struct {
			StrategyID string         `json:"strategyId"`
			By         string         `json:"by"`
			Details    map[string]any `json:"details"`
		} `json:"events"`
	}
	d := e.heartbeat(t, tr.key, "")
	d.action(t, "STRATEGY_CANCELLED", &hb)
	require.Equal(t, 1, hb.Count, "%+v", hb)
	assert.Equal(t, fixed.ID, hb.Events[0].StrategyID)
	assert.Equal(t, "system", hb.Events[0].By)
	assert.Equal(t, "market_closed", hb.Events[0].Details["reason"])
	assert.NotContains(t, e.heartbeat(t, tr.key, "").types(), "STRATEGY_CANCELLED", "reported once")

	// The new window's price falls to 0.03 (asks from 0.04): the alert
	// fires there.
	e.setPrice(t, moved.TokenID, "0.03")
	done := e.awaitBehaved(t, tr, s.ID, "fired", 60*time.Second, func(s behavedStrategy) bool { return s.Status == "COMPLETED" })
	x := done.Executions[0]
	require.Equal(t, "action", x.Kind, "%+v", x)
	require.NotNil(t, x.TokenID)
	assert.Equal(t, moved.TokenID, *x.TokenID, "the order is on the new window")
	require.NotNil(t, x.Market)
	assert.Equal(t, moved.Market.Slug, x.Market.Slug)
	assert.Equal(t, "30", x.FilledSize.String())
}
