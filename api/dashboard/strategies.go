package dashboard

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/venue/clob"
)

// PriceHistory reads a token's past prices for the strategy chart;
// markets.Service implements it.
type PriceHistory interface {
	PriceHistory(ctx context.Context, token string, from, to time.Time) ([]clob.PricePoint, error)
}

var errNoStrategies = errs.E(errs.Transient, "strategies are not available on this server")

// strategyActor is the signed-in user acting on their strategies: a pause
// or cancel made here is the user's (the heartbeat reports it to the
// agent).
func strategyActor(c *gin.Context) strategies.Actor {
	return strategies.Actor{By: strategies.ByUser, UserID: userOf(c).ID, ClientAddr: c.ClientIP()}
}

type strategyFilter struct{ Status, Type, Agent string }

type strategiesData struct {
	Filter     strategyFilter
	Statuses   []string
	Types      []string
	Agents     []agents.Agent
	AgentNames map[string]string
	Strategies []strategies.Strategy
	// Backtests: the try page is served.
	Backtests bool
}

var (
	strategyStatuses = []string{strategies.StatusActive, strategies.StatusPaused, strategies.StatusError,
		strategies.StatusCompleted, strategies.StatusCancelled}
	strategyTypes = []string{strategies.TypePriceAlert, strategies.TypeRecurringBuy, strategies.TypeBuyLowSellHigh}
)

// agentNames maps the user's agents' ids to their names.
func (h *handler) agentNames(c *gin.Context) ([]agents.Agent, map[string]string, error) {
	list, err := h.d.Agents.List(c.Request.Context(), userOf(c).ID)
	if err != nil {
		return nil, nil, err
	}
	names := make(map[string]string, len(list))
	for _, a := range list {
		names[a.ID] = a.Name
	}
	return list, names, nil
}

func (h *handler) strategiesPage(c *gin.Context) {
	if h.d.Strategies == nil {
		h.fail(c, errNoStrategies)
		return
	}
	d := strategiesData{Statuses: strategyStatuses, Types: strategyTypes, Backtests: h.d.Backtests != nil,
		Filter: strategyFilter{Status: c.Query("status"), Type: c.Query("type"), Agent: c.Query("agent")}}
	// Unknown filter values are ignored rather than refused: they come
	// from a link or a bookmark, and the whole list is the useful answer.
	if !slices.Contains(strategyStatuses, d.Filter.Status) {
		d.Filter.Status = ""
	}
	if !slices.Contains(strategyTypes, d.Filter.Type) {
		d.Filter.Type = ""
	}
	var err error
	if d.Agents, d.AgentNames, err = h.agentNames(c); err != nil {
		h.fail(c, err)
		return
	}
	if _, ok := d.AgentNames[d.Filter.Agent]; !ok {
		d.Filter.Agent = ""
	}
	d.Strategies, err = h.d.Strategies.List(c.Request.Context(), strategyActor(c),
		strategies.ListFilter{Status: d.Filter.Status, Type: d.Filter.Type, AgentID: d.Filter.Agent})
	if err != nil {
		h.fail(c, err)
		return
	}
	h.render(c, http.StatusOK, "strategies", view{Title: "Strategies", Nav: "strategies", Live: "strategies", Data: d})
}

type strategyData struct {
	S          strategies.Strategy
	AgentName  string
	Config     []configField
	Chart      *strategyChart
	Narrow     *strategyChart
	PriceNote  string
	Extend     []extendOption
	TemporalUI string
	// TokenInConfig: the config names the token, so it is not repeated.
	TokenInConfig bool
	// Backtest is the backtest form and its last result (nil: backtests
	// are not available on this server).
	Backtest *backtestView
}

// configField is one setting of a strategy: its config key (what the
// agent sent), a label in words and its value in words.
type configField struct{ Name, Label, Value string }

type extendOption struct {
	Hours int
	Label string
}

// extendOptions are the expiries offered: from now, up to the 30 days a
// strategy may be extended to at once.
var extendOptions = []extendOption{{24, "1 day"}, {72, "3 days"}, {168, "7 days"}, {336, "14 days"}, {720, "30 days"}}

// findStrategy loads the signed-in user's strategy :id (another user's is
// not found).
func (h *handler) findStrategy(c *gin.Context) (strategies.Strategy, error) {
	if h.d.Strategies == nil {
		return strategies.Strategy{}, errNoStrategies
	}
	id := c.Param("id")
	if !models.HasPrefix(id, models.PrefixStrategy) {
		return strategies.Strategy{}, errs.E(errs.NotFound, "strategy not found")
	}
	return h.d.Strategies.Get(c.Request.Context(), strategyActor(c), id)
}

func (h *handler) strategyPage(c *gin.Context) {
	h.renderStrategy(c, http.StatusOK, "")
}

func (h *handler) renderStrategy(c *gin.Context, status int, msg string) {
	h.renderStrategyWith(c, status, msg, nil)
}

// renderStrategyWith shows the strategy with bt, a backtest just run (nil:
// the backtest form, empty).
func (h *handler) renderStrategyWith(c *gin.Context, status int, msg string, bt *backtestView) {
	s, err := h.findStrategy(c)
	if err != nil {
		h.fail(c, err)
		return
	}
	_, names, err := h.agentNames(c)
	if err != nil {
		h.fail(c, err)
		return
	}
	d := strategyData{S: s, AgentName: names[s.AgentID], Config: configFields(s.Type, s.Config), Extend: extendOptions}
	d.TokenInConfig = slices.ContainsFunc(d.Config, func(f configField) bool { return f.Name == "tokenId" })
	d.Chart, d.Narrow, d.PriceNote = h.strategyCharts(c, s)
	if h.operator(c) {
		d.TemporalUI = h.workflowURL(s.ID)
	}
	if h.d.Backtests != nil {
		if bt == nil {
			bt = &backtestView{Form: defaultForm(s.MaxBudget)}
		}
		d.Backtest = bt
	}
	h.render(c, status, "strategy", view{Title: "Strategy " + s.ID, Nav: "strategies", Error: msg, Live: "strategies orders fills", Data: d})
}

// settingLabels name a strategy's config keys in words.
var settingLabels = map[string]string{
	"tokenId": "Token", "marketQuery": "Market search", "outcome": "Outcome",
	"side": "Side", "triggerCondition": "Trigger", "triggerPrice": "Trigger price", "size": "Shares",
	"orderType": "Order type", "priceLimit": "Price limit",
	"amountPerInterval": "Amount each interval", "intervalMs": "Every", "interval": "Every", "maxTotalAmount": "Total spending cap",
	"buyBelow": "Buy at or below", "sellAbove": "Sell at or above", "sizePerTrade": "Shares per trade", "maxOpenSize": "Most shares held",
	"targetAddress": "Wallet copied", "sizingMode": "Copy size", "fixedAmount": "Amount per copy", "proportionPct": "Share of the target's size",
	"copySells": "Copy sells", "maxPositionSize": "Most shares per token", "tokenFilter": "Only tokens",
}

// settingValue says a config value in words: conditions and order types
// as a trader says them, USDC amounts in dollars, intervals as durations.
func settingValue(key string, raw json.RawMessage) string {
	v := strings.Trim(string(raw), `"`)
	switch key {
	case "triggerCondition":
		switch v {
		case strategies.PriceLTE:
			return "price at or below the trigger price"
		case strategies.PriceGTE:
			return "price at or above the trigger price"
		}
	case "orderType":
		switch v {
		case strategies.OrderMarket:
			return "market (takes what the book holds within the price limit)"
		case strategies.OrderLimit:
			return "limit (rests at the trigger price)"
		case strategies.OrderFOK:
			return "fill or kill (all or nothing within the price limit)"
		}
	case "amountPerInterval", "maxTotalAmount", "fixedAmount":
		if d, err := decimal.NewFromString(v); err == nil {
			return usd(d)
		}
	case "intervalMs":
		if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
			return (time.Duration(ms) * time.Millisecond).String()
		}
	case "proportionPct":
		return v + "%"
	case "copySells":
		if v == "true" {
			return "yes"
		}
		return "no, buys only"
	case "side":
		return strings.ToLower(v)
	}
	return v
}

// configFields lists a strategy's stored configuration as labelled
// settings, in the order of its type's fields.
func configFields(typ string, raw json.RawMessage) []configField {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	order := strategies.ConfigFields(typ)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(order, k) {
			order = append(order, k)
		}
	}
	out := make([]configField, 0, len(m))
	for _, k := range order {
		v, ok := m[k]
		if !ok {
			continue
		}
		label := settingLabels[k]
		if label == "" {
			label = k
		}
		out = append(out, configField{Name: k, Label: label, Value: settingValue(k, v)})
	}
	return out
}

// chartSpan is the period the strategy chart shows: from its creation (at
// most a week back) to its end or now.
func chartSpan(s strategies.Strategy, now time.Time) (time.Time, time.Time) {
	to := now
	if strategies.Final(s.Status) && s.UpdatedAt.Before(now) {
		to = s.UpdatedAt
	}
	from := s.CreatedAt
	if to.Sub(from) > 7*24*time.Hour {
		from = to.Add(-7 * 24 * time.Hour)
	}
	if to.Sub(from) < 10*time.Minute {
		from = to.Add(-10 * time.Minute)
	}
	return from, to
}

// strategyCharts draws the token's price over the strategy's life with its
// executions on it. Without price history (no venue, or the venue did not
// answer) the executions are still drawn, and the note says why the line
// is missing.
func (h *handler) strategyCharts(c *gin.Context, s strategies.Strategy) (wide, narrow *strategyChart, note string) {
	from, to := chartSpan(s, time.Now().UTC())
	var prices []clob.PricePoint
	switch {
	case h.d.Prices == nil:
		note = "Price history is not available on this server."
	case s.TokenID == "":
		note = "The strategy has no market yet."
	default:
		var err error
		if prices, err = h.d.Prices.PriceHistory(c.Request.Context(), s.TokenID, from, to); err != nil {
			_, msg := h.describe(c, err)
			note = "The price history could not be read: " + msg
			prices = nil
		}
	}
	// Executions that traded are marked at what they paid.
	var ids []string
	for _, e := range s.Executions {
		if e.OrderID != "" {
			ids = append(ids, e.OrderID)
		}
	}
	fills, err := h.d.Portfolio.FillPrices(c.Request.Context(), userOf(c).ID, s.AgentID, ids)
	if err != nil {
		_, msg := h.describe(c, err)
		note += " The fill prices could not be read: " + msg
	}
	ths := thresholds(s.Type, s.Config)
	wide = layoutStrategyChart(prices, s.Executions, ths, fills, from, to, &strategyChart{chartBox: wideBox})
	narrow = layoutStrategyChart(prices, s.Executions, ths, fills, from, to, &strategyChart{chartBox: narrowBox})
	return wide, narrow, strings.TrimSpace(note)
}

// strategyAct runs a pause, resume, cancel or extension of strategy :id
// as the user, then goes back to the strategy with a notice, or shows it
// again with the error.
func (h *handler) strategyAct(c *gin.Context, done string, act func(ctx context.Context, a strategies.Actor, id string) (strategies.Strategy, error)) {
	var err error = errNoStrategies
	if h.d.Strategies != nil {
		_, err = act(c.Request.Context(), strategyActor(c), c.Param("id"))
	}
	if err != nil {
		status, msg := h.describe(c, err)
		h.renderStrategy(c, status, msg)
		return
	}
	c.Redirect(http.StatusSeeOther, "/strategies/"+c.Param("id")+"?done="+done)
}

func (h *handler) strategyPause(c *gin.Context) {
	h.strategyAct(c, "strategy-paused", h.d.Strategies.Pause)
}

func (h *handler) strategyResume(c *gin.Context) {
	h.strategyAct(c, "strategy-resumed", h.d.Strategies.Resume)
}

func (h *handler) strategyCancel(c *gin.Context) {
	h.strategyAct(c, "strategy-cancelled", h.d.Strategies.Cancel)
}

func (h *handler) strategyExtend(c *gin.Context) {
	hours, err := strconv.Atoi(c.PostForm("hours"))
	if err != nil || !slices.ContainsFunc(extendOptions, func(o extendOption) bool { return o.Hours == hours }) {
		h.renderStrategy(c, http.StatusBadRequest, "Choose how long the strategy should run from now.")
		return
	}
	h.strategyAct(c, "strategy-extended", func(ctx context.Context, a strategies.Actor, id string) (strategies.Strategy, error) {
		return h.d.Strategies.Extend(ctx, a, id, time.Now().Add(time.Duration(hours)*time.Hour))
	})
}

// strategyConfirm asks before cancelling, which is final.
func (h *handler) strategyConfirm(c *gin.Context) {
	s, err := h.findStrategy(c)
	if err != nil {
		h.fail(c, err)
		return
	}
	back := "/strategies/" + s.ID
	d := confirmData{Heading: "Cancel this " + strings.ReplaceAll(strings.ToLower(s.Type), "_", " ") + "?", Button: "Cancel strategy",
		Danger: true, Action: back + "/cancel", Back: back,
		Message: "It stops for good and places no more orders; its orders already on the book stay there. Its agent is told at its next heartbeat."}
	h.render(c, http.StatusOK, "confirm", view{Title: d.Heading, Nav: "strategies", Narrow: true, Data: d})
}

// operator reports whether the signed-in user is one of the service's
// operators (Config.Operators), who may follow a strategy to its run in
// the Temporal Web UI.
func (h *handler) operator(c *gin.Context) bool {
	u := userOf(c)
	return u != nil && h.cfg.TemporalUI != "" && h.operators[strings.ToLower(u.Email)]
}

// workflowURL is the Web UI's list of the runs of workflow id (the
// strategy id), so the operator lands on it whatever its run id.
func (h *handler) workflowURL(id string) string {
	ns := h.cfg.TemporalNamespace
	if ns == "" {
		ns = "default"
	}
	return strings.TrimRight(h.cfg.TemporalUI, "/") + "/namespaces/" + url.PathEscape(ns) +
		"/workflows?query=" + url.QueryEscape(`WorkflowId="`+id+`"`)
}
