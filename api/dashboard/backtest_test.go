package dashboard_test

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/api/dashboard"
	"github.com/agent-trading/ats/api/dashboard/dashboardtest"
	"github.com/agent-trading/ats/api/ratelimit"
	strategyapi "github.com/agent-trading/ats/api/strategies"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/backtesting"
	"github.com/agent-trading/ats/models/changes"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/strategies/strategiestest"
	"github.com/agent-trading/ats/models/users"
	"github.com/agent-trading/ats/venue/clob"
)

// recorded is the venue's record of one market, a real fake of
// backtesting.Source: a price path set by the test, no trades.
type recorded struct{ prices []clob.PricePoint }

func (r *recorded) PriceHistory(_ context.Context, token string, from, to time.Time) ([]clob.PricePoint, error) {
	var out []clob.PricePoint
	for _, p := range r.prices {
		if token == strategiestest.Token && !p.Time.Before(from) && !p.Time.After(to) {
			out = append(out, p)
		}
	}
	return out, nil
}

func (r *recorded) Market(_ context.Context, token string) (*backtesting.Market, error) {
	if token != strategiestest.Token {
		return nil, errs.E(errs.NotFound, "unknown token").WithCode(errs.CodeTokenNotFound)
	}
	return &backtesting.Market{TokenID: token, ConditionID: "0xc0", Question: "Will it rain?", Outcome: "Yes",
		Tick: decimal.New(1, -2), Spread: decimal.New(2, -2), MinSize: decimal.NewFromInt(1)}, nil
}

func (r *recorded) MarketTrades(_ context.Context, _ string, from, _ time.Time) ([]backtesting.Trade, time.Time, error) {
	return nil, from, nil
}

func (r *recorded) WalletTrades(context.Context, string, time.Time, time.Time) ([]backtesting.Trade, error) {
	return nil, nil
}

// swing is a price path over the last day, every 10 minutes: it falls
// through the band's buy level, climbs through its sell level and falls
// again.
func swing(now time.Time) []clob.PricePoint {
	start := now.Add(-22 * time.Hour).Truncate(time.Minute)
	levels := []string{"0.50", "0.47", "0.44", "0.41", "0.43", "0.52", "0.58", "0.62", "0.66", "0.60", "0.50", "0.42", "0.40", "0.48"}
	var out []clob.PricePoint
	for i := 0; i < 120; i++ {
		out = append(out, clob.PricePoint{Time: start.Add(time.Duration(i) * 10 * time.Minute),
			Price: decimal.RequireFromString(levels[(i/8)%len(levels)])})
	}
	return out
}

// pageRow is one simulated execution as the page shows it.
type pageRow struct {
	Seq                     int
	Time                    time.Time
	Side                    string
	Price, Size, FilledSize decimal.Decimal
}

var rowRE = regexp.MustCompile(`<tr data-seq="(\d+)" data-time="([^"]+)" data-side="([^"]*)" data-price="([^"]*)" data-size="([^"]*)" data-filled="([^"]*)">`)

func pageRows(t *testing.T, body string) []pageRow {
	t.Helper()
	var out []pageRow
	for _, m := range rowRE.FindAllStringSubmatch(body, -1) {
		seq, _ := strconv.Atoi(m[1])
		at, err := time.Parse(time.RFC3339, html.UnescapeString(m[2]))
		require.NoError(t, err)
		out = append(out, pageRow{Seq: seq, Time: at, Side: m[3], Price: decimal.RequireFromString(m[4]),
			Size: decimal.RequireFromString(m[5]), FilledSize: decimal.RequireFromString(m[6])})
	}
	return out
}

// apiRows are the API's answer's executions in the page's terms.
func apiRows(t *testing.T, bt strategyapi.Backtest) []pageRow {
	t.Helper()
	dec := func(n json.Number) decimal.Decimal {
		if n == "" {
			return decimal.Zero
		}
		return decimal.RequireFromString(string(n))
	}
	var out []pageRow
	for _, e := range bt.Executions {
		r := pageRow{Seq: e.Seq, Time: e.Time, Price: dec(e.Price), Size: dec(e.Size), FilledSize: dec(e.FilledSize)}
		if e.Side != nil {
			r.Side = *e.Side
		}
		out = append(out, r)
	}
	return out
}

func sameRows(t *testing.T, want, got []pageRow) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		assert.Equal(t, want[i].Seq, got[i].Seq, "row %d", i)
		assert.True(t, want[i].Time.Equal(got[i].Time), "row %d: %s vs %s", i, want[i].Time, got[i].Time)
		assert.Equal(t, want[i].Side, got[i].Side, "row %d", i)
		for _, p := range [][2]decimal.Decimal{{want[i].Price, got[i].Price}, {want[i].Size, got[i].Size}, {want[i].FilledSize, got[i].FilledSize}} {
			assert.True(t, p[0].Equal(p[1]), "row %d: %s vs %s", i, p[0], p[1])
		}
	}
}

// TestStrategyBacktest runs a strategy's config as a backtest from its
// page: the form, the result drawn on the strategy chart with simulated
// marks, the same executions as the agent API answers for the same input,
// and the refusals in words.
func TestStrategyBacktest(t *testing.T) {
	now := time.Now().UTC()
	rec := &recorded{prices: swing(now)}
	svc := &backtesting.Service{Source: rec, Resolver: strategiestest.Resolver{}}
	// The real limiter, in memory: four backtests a minute per user.
	limit := dashboard.LimitBacktests(ratelimit.New(ratelimit.NewMemoryStore(), ratelimit.Options{}).Scope("bt"), 4)
	e := newEnvWith(t, users.SignupOpen, func(d *dashboard.Deps) { d.Backtests, d.BacktestLimit = svc, limit })
	c := e.signUp("alice@example.com", "correct horse battery")
	uid, agent := e.agentFor("alice@example.com", "scalper")
	band := e.createStrategy(uid, agent, strategies.TypeBuyLowSellHigh, bandConfig)
	page := "/strategies/" + band.ID

	// The form: windows, the balance (the strategy's budget by default).
	p := c.Get(page)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	for _, want := range []string{`id="backtest-form"`, `action="` + page + `/backtest#backtest"`, `value="day"`, `value="week"`, `value="custom"`,
		`name="balance"`, `value="20"`, `href="/backtest?strategy=` + band.ID + `"`} {
		assert.Contains(t, p.Body, want)
	}
	assert.NotContains(t, p.Body, `id="backtest-result"`)

	// A custom window, the same as the API's request below.
	from, to := now.Add(-23*time.Hour).Truncate(time.Minute), now.Add(-time.Minute).Truncate(time.Minute)
	form := url.Values{"window": {"custom"}, "from": {from.Format("2006-01-02T15:04")}, "to": {to.Format("2006-01-02T15:04")}, "balance": {"100"}}
	r := c.Submit(page, page+"/backtest", form)
	require.Equal(t, http.StatusOK, r.Status, r.Body)
	body := html.UnescapeString(r.Body)
	for _, want := range []string{`id="backtest-result"`, `class="mark buy simulated"`, `class="mark sell simulated"`, `class="line"`,
		"Simulated executions", "Final balance", "Max drawdown", "Will it rain?", "fills are not capped by volume", "band-buy", "band-sell"} {
		assert.Contains(t, body, want)
	}
	// The strategy's own chart keeps its live marks (none yet) apart.
	assert.Contains(t, body, `id="schart-h"`)

	res, err := svc.Run(context.Background(), backtesting.Request{Type: band.Type, Config: band.Config, MaxBudget: strategies.D(band.MaxBudget),
		From: from, To: to, StartingBalance: decimal.NewFromInt(100)})
	require.NoError(t, err)
	api := strategyapi.BacktestDTO(res)
	want := apiRows(t, api)
	require.NotEmpty(t, want)
	var buys, sells int
	for _, w := range want {
		switch w.Side {
		case "BUY":
			buys++
		case "SELL":
			sells++
		}
	}
	require.Positive(t, buys)
	require.Positive(t, sells)
	sameRows(t, want, pageRows(t, r.Body))
	assert.Contains(t, body, `id="bt-trades">`+strconv.Itoa(api.TradeCount)+`<`)
	// Nothing was stored: the strategy has no executions, no new one exists.
	got, err := e.strategies.Get(context.Background(), strategies.Actor{By: strategies.ByUser, UserID: uid}, band.ID)
	require.NoError(t, err)
	assert.Zero(t, got.ExecutionCount)
	var n int64
	require.NoError(t, e.store.DB().Model(&models.Strategy{}).Count(&n).Error)
	assert.EqualValues(t, 1, n)

	// A reload of the result's address goes back to the strategy.
	back := c.Get(page + "/backtest")
	assert.Equal(t, http.StatusSeeOther, back.Status)
	assert.Equal(t, page, back.Location)

	// Refusals, in words, with the form kept.
	for _, tc := range []struct {
		name   string
		form   url.Values
		status int
		msg    string
	}{
		{"too long", url.Values{"window": {"custom"}, "from": {now.Add(-40 * 24 * time.Hour).Format("2006-01-02T15:04")},
			"to": {to.Format("2006-01-02T15:04")}, "balance": {"100"}}, http.StatusBadRequest, "longer than 30 days"},
		{"no history", url.Values{"window": {"custom"}, "from": {now.Add(-29 * 24 * time.Hour).Format("2006-01-02T15:04")},
			"to": {now.Add(-28 * 24 * time.Hour).Format("2006-01-02T15:04")}, "balance": {"100"}}, http.StatusNotFound, "has no price history"},
		{"day window", url.Values{"window": {"day"}, "balance": {"100"}}, http.StatusOK, ""},
		{"rate limited", url.Values{"window": {"week"}, "balance": {"100"}}, http.StatusTooManyRequests, "too many backtests"},
		{"no window", url.Values{"balance": {"100"}}, http.StatusBadRequest, "Choose the window"},
		{"bad balance", url.Values{"window": {"day"}, "balance": {"lots"}}, http.StatusBadRequest, "starting balance"},
	} {
		r := c.Submit(page, page+"/backtest", tc.form)
		assert.Equal(t, tc.status, r.Status, tc.name)
		if tc.msg != "" {
			assert.Regexp(t, `id="backtest-error">[^<]*`+regexp.QuoteMeta(tc.msg), html.UnescapeString(r.Body), tc.name)
			assert.NotContains(t, r.Body, `id="backtest-result"`, tc.name)
		} else {
			assert.Contains(t, r.Body, `id="backtest-result"`, tc.name)
		}
		assert.Contains(t, r.Body, `id="backtest-form"`, tc.name)
	}

	// Without the CSRF token nothing runs; another user's strategy is
	// not found.
	form.Del("csrf_token") // Submit put it in
	assert.Equal(t, http.StatusForbidden, c.Post(page+"/backtest", form).Status)
	bob := e.signUp("bob@example.com", "correct horse battery")
	assert.Equal(t, http.StatusNotFound, bob.Submit("/strategies", page+"/backtest", form).Status)
	assert.Equal(t, http.StatusNotFound, bob.Get("/backtest?strategy="+band.ID).Status)
}

// TestTryAStrategy backtests settings before any strategy exists: the
// same executions as the API's answer, nothing stored, mistakes in words.
func TestTryAStrategy(t *testing.T) {
	now := time.Now().UTC()
	svc := &backtesting.Service{Source: &recorded{prices: swing(now)}, Resolver: strategiestest.Resolver{}}
	e := newEnvWith(t, users.SignupOpen, func(d *dashboard.Deps) { d.Backtests = svc })
	c := e.signUp("alice@example.com", "correct horse battery")
	uid, agent := e.agentFor("alice@example.com", "scalper")

	list := c.Get("/strategies")
	assert.Contains(t, list.Body, `href="/backtest"`)
	p := c.Get("/backtest")
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	for _, want := range []string{`id="try-form"`, `name="type"`, `name="token"`, `name="config"`, `name="maxBudget"`, `value="custom"`, "Buy low, sell high"} {
		assert.Contains(t, p.Body, want)
	}

	from, to := now.Add(-23*time.Hour).Truncate(time.Minute), now.Add(-time.Minute).Truncate(time.Minute)
	cfg := `{"buyBelow":0.45,"sellAbove":0.6,"sizePerTrade":5}`
	form := url.Values{"type": {strategies.TypeBuyLowSellHigh}, "token": {strategiestest.Token}, "config": {cfg}, "maxBudget": {"20"},
		"window": {"custom"}, "from": {from.Format("2006-01-02T15:04")}, "to": {to.Format("2006-01-02T15:04")}, "balance": {"100"}}
	r := c.Submit("/backtest", "/backtest", form)
	require.Equal(t, http.StatusOK, r.Status, r.Body)
	assert.Contains(t, r.Body, `class="mark buy simulated"`)
	assert.Contains(t, r.Body, strategiestest.Token, "the form keeps what was tried")

	res, err := svc.Run(context.Background(), backtesting.Request{Type: strategies.TypeBuyLowSellHigh,
		Config:    json.RawMessage(`{"tokenId":"` + strategiestest.Token + `","buyBelow":0.45,"sellAbove":0.6,"sizePerTrade":5}`),
		MaxBudget: strategies.D(decimal.NewFromInt(20)), From: from, To: to, StartingBalance: decimal.NewFromInt(100)})
	require.NoError(t, err)
	want := apiRows(t, strategyapi.BacktestDTO(res))
	require.NotEmpty(t, want)
	sameRows(t, want, pageRows(t, r.Body))
	var n int64
	require.NoError(t, e.store.DB().Model(&models.Strategy{}).Count(&n).Error)
	assert.Zero(t, n, "trying stores nothing")

	// Starting from a strategy: its type, token, settings and budget.
	s := e.createStrategy(uid, agent, strategies.TypePriceAlert, alertConfig)
	pre := html.UnescapeString(c.Get("/backtest?strategy=" + s.ID).Body)
	assert.Contains(t, pre, `<option value="PRICE_ALERT" selected>`)
	assert.Contains(t, pre, `"triggerPrice":`)
	assert.Contains(t, pre, `value="`+strategiestest.Token+`"`)

	for _, tc := range []struct {
		name   string
		change func(url.Values)
		status int
		msg    string
	}{
		{"not JSON", func(v url.Values) { v.Set("config", "buy low") }, http.StatusBadRequest, "must be a JSON object"},
		{"no market", func(v url.Values) { v.Del("token") }, http.StatusBadRequest, "token id"},
		{"bad type", func(v url.Values) { v.Set("type", "MARTINGALE") }, http.StatusBadRequest, "Choose the strategy's type"},
		{"bad band", func(v url.Values) { v.Set("config", `{"buyBelow":0.7,"sellAbove":0.6,"sizePerTrade":5}`) }, http.StatusBadRequest, "buyBelow"},
		{"bad budget", func(v url.Values) { v.Set("maxBudget", "-3") }, http.StatusBadRequest, "budget"},
	} {
		v := url.Values{}
		for k, x := range form {
			v[k] = x
		}
		tc.change(v)
		r := c.Submit("/backtest", "/backtest", v)
		assert.Equal(t, tc.status, r.Status, tc.name)
		assert.Regexp(t, `id="backtest-error">[^<]*`+regexp.QuoteMeta(tc.msg), html.UnescapeString(r.Body), tc.name)
	}
	form.Del("csrf_token") // Submit put it in
	assert.Equal(t, http.StatusForbidden, c.Post("/backtest", form).Status)
}

// TestBacktestsOff: without the service the strategy page has no form and
// the try page says backtests are not available.
func TestBacktestsOff(t *testing.T) {
	e := newEnv(t, users.SignupOpen)
	c := e.signUp("alice@example.com", "correct horse battery")
	uid, agent := e.agentFor("alice@example.com", "scalper")
	band := e.createStrategy(uid, agent, strategies.TypeBuyLowSellHigh, bandConfig)
	p := c.Get("/strategies/" + band.ID)
	require.Equal(t, http.StatusOK, p.Status)
	assert.NotContains(t, p.Body, `id="backtest-form"`)
	assert.NotContains(t, c.Get("/strategies").Body, `href="/backtest"`)
	assert.Equal(t, http.StatusServiceUnavailable, c.Get("/backtest").Status)
}

// TestBacktestInTheBrowser runs a backtest from a strategy's page in
// headless Chromium and sees the simulated marks on its chart; the live
// refresh of the page leaves the result alone.
func TestBacktestInTheBrowser(t *testing.T) {
	dashboardtest.ChromiumPath(t)
	svc := &backtesting.Service{Source: &recorded{prices: swing(time.Now().UTC())}, Resolver: strategiestest.Resolver{}}
	hub := changes.NewHub()
	e := newEnvWith(t, users.SignupOpen, func(d *dashboard.Deps) {
		d.Backtests, d.Changes = svc, hub
		ctx, cancel := context.WithCancel(context.Background())
		done := changes.Feed(ctx, d.Portfolio.Store, hub, nil)
		t.Cleanup(func() { cancel(); <-done })
	})
	e.signUp("alice@example.com", "correct horse battery")
	uid, agent := e.agentFor("alice@example.com", "scalper")
	band := e.createStrategy(uid, agent, strategies.TypeBuyLowSellHigh, bandConfig)
	b := dashboardtest.NewBrowser(t, e.url)
	b.Open("/signin")
	b.Fill("email", "alice@example.com")
	b.Fill("password", "correct horse battery")
	b.Click("#signin-submit", "/")
	b.Open("/strategies/" + band.ID)
	b.Do(chromedp.Click(chromedp.CSS(`input[name=window][value=day]`)))
	b.Fill("bt-balance", "250")
	b.Click("#backtest-submit", "/strategies/"+band.ID+"/backtest")
	b.Do(chromedp.WaitVisible(chromedp.CSS(`#backtest-result .chart-wide g.mark.buy.simulated`)),
		chromedp.WaitVisible(chromedp.CSS(`#backtest-result .chart-wide g.mark.sell.simulated`)))
	b.See("Simulated executions", "from $250.00", "simulated buy")
	// The marks are drawn hollow: their fill is the card's, not a buy's.
	fill := dashboardtest.Run(b, chromedp.Evaluate[string](
		`getComputedStyle(document.querySelector('#backtest-result .chart-wide g.mark.buy.simulated path')).fill`))
	live := dashboardtest.Run(b, chromedp.Evaluate[string](`getComputedStyle(document.querySelector('#backtest-result')).backgroundColor`))
	if fill == "" || fill == "rgb(27, 122, 74)" {
		t.Fatalf("a simulated buy is filled as a live one: %q (card %q)", fill, live)
	}
	b.Screenshot("strategy-backtest")
	// The page's live refresh (on connecting) reads the strategy again:
	// the result stays.
	b.Do(chromedp.WaitVisible(chromedp.CSS(`#live-status[data-state="live"]`)))
	b.Do(chromedp.WaitVisible(chromedp.CSS(`#backtest-result`)))
}
