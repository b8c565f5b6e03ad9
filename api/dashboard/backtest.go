package dashboard

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/api/ratelimit"
	"github.com/agent-trading/ats/models/backtesting"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/strategies"
)

// Backtester runs backtests: *backtesting.Service, the service behind
// POST /api/agent/v1/strategies/backtest.
type Backtester interface {
	Run(ctx context.Context, r backtesting.Request) (*backtesting.Result, error)
}

var errNoBacktests = errs.E(errs.Transient, "backtests are not available on this server")

// BacktestsPerMinute is how many backtests a user may run from the
// dashboard in a minute: each costs the venue's history reads and up to a
// couple of seconds of CPU.
const BacktestsPerMinute = 10

// LimitBacktests is Deps.BacktestLimit over a rate limiter: perMinute
// backtests per user (BacktestsPerMinute when 0).
func LimitBacktests(l *ratelimit.Limiter, perMinute int) func(ctx context.Context, userID string) error {
	if perMinute <= 0 {
		perMinute = BacktestsPerMinute
	}
	return func(ctx context.Context, userID string) error {
		d, err := l.Allow(ctx, userID, perMinute)
		if err != nil {
			return err
		}
		if !d.Allowed {
			wait := d.RetryAfter(time.Now())
			e := errs.E(errs.RateLimited, "You have run too many backtests in the last minute. Try again in "+waitWords(wait)+".").
				WithCode(errs.CodeRateLimited)
			e.RetryAfterSeconds = wait
			return e
		}
		return nil
	}
}

// The windows offered: the last day, the last week, or a custom from–to
// of at most 30 days (the service refuses longer).
const (
	windowDay    = "day"
	windowWeek   = "week"
	windowCustom = "custom"
	// formTime is an <input type="datetime-local">'s value, read as UTC.
	formTime = "2006-01-02T15:04"
)

// backtestForm is the backtest form as posted (and shown again).
type backtestForm struct {
	Window, From, To, Balance string
	// The try page's strategy: type, token, config (JSON) and budget.
	Type, Token, Config, MaxBudget string
}

// backtestView is the backtest section: its form, and the result or the
// refusal of the last run.
type backtestView struct {
	Form   backtestForm
	Error  string
	Result *backtestResult
	Types  []string
	// Example configs by type for the try page (its placeholders).
	Examples map[string]string
}

// backtestResult is a backtest drawn as a live strategy is: the same
// chart (simulated marks) and the same executions table.
type backtestResult struct {
	R             *backtesting.Result
	Chart, Narrow *strategyChart
	// DrawdownPct is the maximum drawdown in percent of its peak.
	DrawdownPct decimal.Decimal
}

// backtestTypes are the types the try page offers: every type a strategy
// may have.
var backtestTypes = []string{strategies.TypePriceAlert, strategies.TypeRecurringBuy, strategies.TypeBuyLowSellHigh, strategies.TypeCopyTrade}

// backtestExamples are a config of each type, without the market (the
// token is its own field).
var backtestExamples = map[string]string{
	strategies.TypePriceAlert:     `{"side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.35,"size":10}`,
	strategies.TypeRecurringBuy:   `{"amountPerInterval":5,"intervalMs":3600000,"priceLimit":0.6}`,
	strategies.TypeBuyLowSellHigh: `{"buyBelow":0.45,"sellAbove":0.6,"sizePerTrade":5}`,
	strategies.TypeCopyTrade:      `{"targetAddress":"0x…","sizingMode":"fixed","fixedAmount":5}`,
}

// defaultForm is the form before a run: the last week, and a starting
// balance of the budget (100 USDC without one).
func defaultForm(budget decimal.Decimal) backtestForm {
	bal := decimal.NewFromInt(100)
	if budget.IsPositive() {
		bal = budget
	}
	now := time.Now().UTC()
	return backtestForm{Window: windowWeek, Balance: bal.String(),
		From: now.Add(-24 * time.Hour).Format(formTime), To: now.Format(formTime)}
}

// readBacktestForm reads the window and the balance posted.
func readBacktestForm(c *gin.Context) backtestForm {
	return backtestForm{Window: c.PostForm("window"), From: strings.TrimSpace(c.PostForm("from")), To: strings.TrimSpace(c.PostForm("to")),
		Balance: strings.TrimSpace(c.PostForm("balance")), Type: c.PostForm("type"), Token: strings.TrimSpace(c.PostForm("token")),
		Config: strings.TrimSpace(c.PostForm("config")), MaxBudget: strings.TrimSpace(c.PostForm("maxBudget"))}
}

func windowErr(msg string) error {
	return errs.E(errs.Invalid, msg).WithCode(errs.CodeInvalidBacktestWindow)
}

// request builds the backtest of f's window and balance; the service
// checks the rest (order, the future, 30 days) with the API's words.
func (f backtestForm) request(typ string, cfg json.RawMessage, budget decimal.Decimal) (backtesting.Request, error) {
	r := backtesting.Request{Type: typ, Config: cfg, MaxBudget: strategies.D(budget)}
	now := time.Now().UTC().Truncate(time.Minute)
	switch f.Window {
	case windowDay:
		r.From, r.To = now.Add(-24*time.Hour), now
	case windowWeek:
		r.From, r.To = now.Add(-7*24*time.Hour), now
	case windowCustom:
		from, err1 := time.Parse(formTime, f.From)
		to, err2 := time.Parse(formTime, f.To)
		if err1 != nil || err2 != nil {
			return r, windowErr("Give the custom window's start and end as dates and times (UTC).")
		}
		r.From, r.To = from, to
	default:
		return r, windowErr("Choose the window to replay: the last day, the last week, or a custom one.")
	}
	bal, err := decimal.NewFromString(f.Balance)
	if err != nil {
		return r, windowErr("Give the starting balance in USDC, as 100 or 250.50.")
	}
	r.StartingBalance = bal
	return r, nil
}

// runBacktest runs r for the signed-in user (their per-minute limit
// first) and draws it; a refusal comes back in words.
func (h *handler) runBacktest(c *gin.Context, r backtesting.Request) (*backtestResult, int, string) {
	if h.d.Backtests == nil {
		return nil, http.StatusServiceUnavailable, "Backtests are not available on this server."
	}
	if h.d.BacktestLimit != nil {
		if err := h.d.BacktestLimit(c.Request.Context(), userOf(c).ID); err != nil {
			status, msg := h.describe(c, err)
			return nil, status, msg
		}
	}
	res, err := h.d.Backtests.Run(c.Request.Context(), r)
	if err != nil {
		status, msg := h.describe(c, err)
		return nil, status, msg
	}
	// The config as the service normalised it is the one run; thresholds
	// read from the config as the live chart reads them.
	ths := thresholds(r.Type, r.Config)
	execs := res.Executions
	return &backtestResult{R: res, DrawdownPct: res.MaxDrawdownPct.Shift(2),
		Chart:  layoutStrategyChart(res.Prices, execs, ths, nil, res.From, res.To, &strategyChart{chartBox: wideBox, Simulated: true}),
		Narrow: layoutStrategyChart(res.Prices, execs, ths, nil, res.From, res.To, &strategyChart{chartBox: narrowBox, Simulated: true}),
	}, http.StatusOK, ""
}

// strategyBacktest runs strategy :id's current config over the window
// posted, and shows the strategy page with the result (or the refusal).
func (h *handler) strategyBacktest(c *gin.Context) {
	s, err := h.findStrategy(c)
	if err != nil {
		h.fail(c, err)
		return
	}
	bt := &backtestView{Form: readBacktestForm(c)}
	r, err := bt.Form.request(s.Type, s.Config, s.MaxBudget)
	status := http.StatusOK
	if err != nil {
		status, bt.Error = h.describe(c, err)
	} else {
		bt.Result, status, bt.Error = h.runBacktest(c, r)
	}
	h.renderStrategyWith(c, status, "", bt)
}

// backtestBack sends a GET of the backtest's address (a reload, the live
// refresh) to the strategy: a backtest runs only from its form.
func (h *handler) backtestBack(c *gin.Context) {
	c.Redirect(http.StatusSeeOther, "/strategies/"+c.Param("id"))
}

// tryPage is "Try a strategy": a type, a market and a config backtested
// without creating anything (agents create strategies; the user tries one
// here first). ?strategy= starts from one of the user's strategies.
func (h *handler) tryPage(c *gin.Context) {
	if h.d.Backtests == nil {
		h.fail(c, errNoBacktests)
		return
	}
	bt := &backtestView{Form: defaultForm(decimal.Zero), Types: backtestTypes, Examples: backtestExamples}
	bt.Form.Type = strategies.TypeBuyLowSellHigh
	if id := c.Query("strategy"); id != "" && h.d.Strategies != nil {
		s, err := h.d.Strategies.Get(c.Request.Context(), strategyActor(c), id)
		if err != nil {
			h.fail(c, err)
			return
		}
		bt.Form = defaultForm(s.MaxBudget)
		bt.Form.Type, bt.Form.Token, bt.Form.MaxBudget = s.Type, s.TokenID, s.MaxBudget.String()
		bt.Form.Config = string(withoutToken(s.Config))
	}
	if bt.Form.MaxBudget == "" {
		bt.Form.MaxBudget = "50"
	}
	h.render(c, http.StatusOK, "backtest", view{Title: "Try a strategy", Nav: "strategies", Data: bt})
}

// tryRun backtests the posted strategy: nothing is created or stored.
func (h *handler) tryRun(c *gin.Context) {
	if h.d.Backtests == nil {
		h.fail(c, errNoBacktests)
		return
	}
	bt := &backtestView{Form: readBacktestForm(c), Types: backtestTypes, Examples: backtestExamples}
	r, err := bt.Form.tryRequest()
	status := http.StatusOK
	if err != nil {
		status, bt.Error = h.describe(c, err)
	} else {
		bt.Result, status, bt.Error = h.runBacktest(c, r)
	}
	h.render(c, status, "backtest", view{Title: "Try a strategy", Nav: "strategies", Data: bt})
}

// tryRequest reads the try form's strategy: its config with the token
// put in (unless the config names its market itself), and its budget.
func (f backtestForm) tryRequest() (backtesting.Request, error) {
	if !slices.Contains(backtestTypes, f.Type) {
		return backtesting.Request{}, errs.E(errs.Invalid, "Choose the strategy's type.").WithCode(errs.CodeInvalidStrategyType)
	}
	var cfg map[string]json.RawMessage
	if err := json.Unmarshal([]byte(f.Config), &cfg); err != nil || cfg == nil {
		return backtesting.Request{}, errs.E(errs.Invalid, "The settings must be a JSON object, as in the example.")
	}
	_, hasQuery := cfg["marketQuery"]
	switch {
	case f.Type == strategies.TypeCopyTrade:
		// A copy follows its target's markets: no token of its own.
	case f.Token != "":
		tok, _ := json.Marshal(f.Token)
		cfg["tokenId"] = tok
	case cfg["tokenId"] == nil && !hasQuery:
		return backtesting.Request{}, errs.E(errs.Invalid, "Give the market's token id (or a marketQuery in the settings).").WithCode(errs.CodeInvalidMarketSelector)
	}
	raw, _ := json.Marshal(cfg)
	budget, err := decimal.NewFromString(f.MaxBudget)
	if err != nil || !budget.IsPositive() {
		return backtesting.Request{}, errs.E(errs.Invalid, "Give the strategy's budget in USDC, as 50.").WithCode(errs.CodeInvalidMaxBudget)
	}
	return f.request(f.Type, raw, budget)
}

// withoutToken is a config without its tokenId (the try form's own field).
func withoutToken(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	delete(m, "tokenId")
	out, _ := json.Marshal(m)
	return out
}
