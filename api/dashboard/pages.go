package dashboard

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/portfolio"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/wallets"
	"github.com/agent-trading/ats/venue/micro"
)

var errNoVenue = errs.E(errs.Transient, "trading is not configured on this server")

type overviewData struct {
	portfolio.Overview
	Chart, NarrowChart *chart
	// Strategies are the running ones (not completed or cancelled), with
	// their agents' names; StrategiesOn is false without a strategy
	// service.
	StrategiesOn bool
	Strategies   []strategies.Strategy
	AgentNames   map[string]string
	// PaperBalanceMicro (when HasPaperBalance) is the user's paper money,
	// shown apart from the wallet's cash.
	HasPaperBalance   bool
	PaperBalanceMicro int64
}

func (h *handler) overview(c *gin.Context) {
	ov, err := h.d.Portfolio.Overview(c.Request.Context(), userOf(c).ID)
	if err != nil {
		h.fail(c, err)
		return
	}
	var now *decimal.Decimal
	if ov.HasNowPnL {
		now = &ov.NowPnL
	}
	d := overviewData{Overview: ov, Chart: newChart(ov.Series, ov.Now, now), NarrowChart: newNarrowChart(ov.Series, ov.Now, now)}
	if h.d.Orders != nil && ov.Paper.Any {
		if b, err := h.d.Orders.PaperBalance(c.Request.Context(), userOf(c).ID); err == nil {
			d.HasPaperBalance, d.PaperBalanceMicro = true, b
		}
	}
	if h.d.Strategies != nil {
		d.StrategiesOn, d.AgentNames = true, map[string]string{}
		for _, a := range ov.Agents {
			d.AgentNames[a.ID] = a.Name
		}
		all, err := h.d.Strategies.List(c.Request.Context(), strategyActor(c), strategies.ListFilter{})
		if err != nil {
			h.fail(c, err)
			return
		}
		for _, s := range all {
			if !strategies.Final(s.Status) {
				d.Strategies = append(d.Strategies, s)
			}
		}
	}
	h.render(c, http.StatusOK, "overview", view{Title: "Overview", Nav: "overview",
		Live: "orders fills positions prices strategies agents wallet", Data: d})
}

// ---- wallet ----

type walletData struct {
	Wallet       *wallets.Wallet
	HasBalance   bool
	BalanceMicro int64
	NeedStepUp   bool
	Address      string
	// NeedTwoFactor: importing a key needs two-step verification, which
	// the user has not turned on (the page says why and links to it).
	NeedTwoFactor bool
	// PaperBalanceMicro is the user's paper money (docs/paper-trading.md);
	// HasPaper whether it could be read.
	HasPaper          bool
	PaperBalanceMicro int64
	PaperDefault      string
}

func (h *handler) walletData(c *gin.Context) (walletData, error) {
	ctx, uid := c.Request.Context(), userOf(c).ID
	d := walletData{NeedStepUp: h.needStepUp(c)}
	if h.d.Wallets != nil && h.d.Wallets.RequireTwoFactor && !userOf(c).TwoFactorEnabled {
		d.NeedTwoFactor = true
	}
	if h.d.Orders != nil {
		if b, err := h.d.Orders.PaperBalance(ctx, uid); err == nil {
			d.HasPaper, d.PaperBalanceMicro = true, b
		}
		d.PaperDefault = micro.Decimal(models.DefaultPaperBalanceMicro).String()
	}
	if h.d.Wallets == nil {
		return d, errNoVenue
	}
	w, err := h.d.Wallets.Get(ctx, uid)
	switch {
	case err == nil:
		d.Wallet = &w
	case !errs.Is(err, errs.NotFound):
		return d, err
	}
	if d.Wallet != nil && h.d.Portfolio.Wallet != nil {
		if info, err := h.d.Portfolio.Wallet.Wallet(ctx, uid); err == nil {
			d.HasBalance, d.BalanceMicro = true, info.CollateralMicro
		}
	}
	return d, nil
}

// paperBalance sets (amount) or resets (reset=yes: the default) the
// user's paper balance.
func (h *handler) paperBalance(c *gin.Context) {
	if h.d.Orders == nil {
		h.fail(c, errNoVenue)
		return
	}
	amount := int64(models.DefaultPaperBalanceMicro)
	if c.PostForm("reset") != "yes" {
		v := strings.TrimSpace(strings.ReplaceAll(c.PostForm("paper_balance"), ",", ""))
		m, err := agents.ParseUSDC("The paper balance", v)
		if err != nil {
			d, derr := h.walletData(c)
			if derr != nil {
				h.fail(c, derr)
				return
			}
			h.formError(c, "wallet", view{Title: "Wallet", Nav: "wallet", Data: d}, err)
			return
		}
		amount = m
	}
	if err := h.d.Orders.SetPaperBalance(c.Request.Context(), userOf(c).ID, amount, c.ClientIP()); err != nil {
		h.fail(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/wallet?done=paper-balance")
}

func (h *handler) walletPage(c *gin.Context) {
	d, err := h.walletData(c)
	if err != nil {
		h.fail(c, err)
		return
	}
	// The balance moves with fills and redemptions (positions); the
	// wallet itself when it is imported or replaced, here or elsewhere.
	h.render(c, http.StatusOK, "wallet", view{Title: "Wallet", Nav: "wallet", Live: "wallet fills positions", Data: d})
}

// walletImport imports or replaces the wallet. The key is never echoed,
// not even into the form after an error.
func (h *handler) walletImport(c *gin.Context) {
	if h.d.Wallets == nil {
		h.fail(c, errNoVenue)
		return
	}
	if !h.fresh(c, "/wallet") {
		return
	}
	_, err := h.d.Wallets.Import(c.Request.Context(), userOf(c).ID, c.PostForm("private_key"), c.PostForm("proxy_address"), c.ClientIP())
	if err != nil {
		d, derr := h.walletData(c)
		if derr != nil {
			h.fail(c, derr)
			return
		}
		d.Address = c.PostForm("proxy_address")
		// The message goes next to the field it is about.
		var fe fieldErrors
		switch errs.CodeOf(err) {
		case errs.CodeInvalidPrivateKey:
			fe.add("private_key", errs.PublicMessage(err))
		case errs.CodeInvalidAddress, errs.CodeWalletNotOwned, errs.CodeSafeThreshold:
			fe.add("proxy_address", errs.PublicMessage(err))
		}
		if len(fe.order) > 0 {
			err = errs.Wrap(errs.KindOf(err), &fe, errs.PublicMessage(err))
		}
		h.formError(c, "wallet", view{Title: "Wallet", Nav: "wallet", Data: d}, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/wallet?done=wallet")
}

func (h *handler) walletDelete(c *gin.Context) {
	if h.d.Wallets == nil {
		h.fail(c, errNoVenue)
		return
	}
	if !h.fresh(c, "/wallet") {
		return
	}
	if c.PostForm("confirm") != "yes" {
		h.fail(c, errs.E(errs.Invalid, "tick the box to confirm deleting the wallet"))
		return
	}
	if err := h.d.Wallets.Delete(c.Request.Context(), userOf(c).ID, c.ClientIP()); err != nil {
		h.fail(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/wallet?done=wallet-gone")
}

// ---- agents ----

func (h *handler) agentsPage(c *gin.Context) {
	rows, err := h.d.Portfolio.AgentRows(c.Request.Context(), userOf(c).ID)
	if err != nil {
		h.fail(c, err)
		return
	}
	h.render(c, http.StatusOK, "agents", view{Title: "Agents", Nav: "agents", Data: map[string]any{"Agents": rows}})
}

type agentData struct {
	Agent agents.Agent
	Row   portfolio.AgentRow
	Zones []string
}

// zones offered in the time zone field; any IANA name is accepted.
var zones = []string{"UTC", "Europe/London", "Europe/Berlin", "Europe/Paris", "America/New_York", "America/Chicago",
	"America/Los_Angeles", "America/Sao_Paulo", "Asia/Tokyo", "Asia/Singapore", "Asia/Kolkata", "Australia/Sydney"}

// agentRow finds the signed-in user's agent :id (another user's is not
// found).
func (h *handler) agentRow(c *gin.Context) (portfolio.AgentRow, error) {
	id := c.Param("id")
	if !models.HasPrefix(id, models.PrefixAgent) {
		return portfolio.AgentRow{}, errs.E(errs.NotFound, "agent not found")
	}
	rows, err := h.d.Portfolio.AgentRows(c.Request.Context(), userOf(c).ID)
	if err != nil {
		return portfolio.AgentRow{}, err
	}
	for _, r := range rows {
		if r.ID == id {
			return r, nil
		}
	}
	return portfolio.AgentRow{}, errs.E(errs.NotFound, "agent not found")
}

func (h *handler) agentPage(c *gin.Context) {
	r, err := h.agentRow(c)
	if err != nil {
		h.fail(c, err)
		return
	}
	h.render(c, http.StatusOK, "agent", view{Title: r.Name, Nav: "agents", Live: "agents orders fills", Data: agentData{Agent: r.Agent, Row: r, Zones: zones}})
}

// agentSaved answers a settings form: back to the agent page with a
// notice, or the page again with the error next to its field and the
// form as the user filled it in.
func (h *handler) agentSaved(c *gin.Context, err error, done string) {
	if err == nil {
		c.Redirect(http.StatusSeeOther, "/agents/"+c.Param("id")+"?done="+done)
		return
	}
	r, rerr := h.agentRow(c)
	if rerr != nil {
		h.fail(c, rerr)
		return
	}
	h.formError(c, "agent", view{Title: r.Name, Nav: "agents", Data: agentData{Agent: r.Agent, Row: r, Zones: zones}}, err)
}

// maxBudgetUSDC is the largest budget amount the service accepts.
var maxBudgetUSDC = decimal.NewFromInt(1_000_000_000)

// amountField reads an optional USDC amount of the budget form ("" =
// unset; thousands separators and a leading $ allowed) as micro-USDC; a
// bad one is an error of field, in the form's words.
func amountField(fe *fieldErrors, field, label, v string) *int64 {
	v = strings.TrimPrefix(strings.TrimSpace(strings.ReplaceAll(v, ",", "")), "$")
	if v == "" {
		return nil
	}
	d, err := decimal.NewFromString(v)
	if err != nil || !d.IsPositive() || d.GreaterThan(maxBudgetUSDC) || d.Exponent() < -6 {
		fe.add(field, label+" must be an amount in USDC above 0 and at most 1,000,000,000, such as 25 or 12.50; leave it empty for no limit.")
		return nil
	}
	m, err := agents.ParseUSDC(label, d.String())
	if err != nil {
		fe.add(field, errs.PublicMessage(err))
		return nil
	}
	return &m
}

// percentField reads the optional budget percent ("" = unset; a trailing
// "%" allowed) as basis points.
func percentField(fe *fieldErrors, v string) *int32 {
	v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "%"))
	if v == "" {
		return nil
	}
	bps, err := agents.ParsePercent("The budget percent", v)
	if err != nil {
		fe.add("budget_percent", "The budget percent must be a number above 0 and at most 100, such as 25 or 12.5; leave it empty for no limit.")
		return nil
	}
	return &bps
}

func (h *handler) agentBudget(c *gin.Context) {
	var fe fieldErrors
	b := agents.Budget{
		FixedLimitMicro:       amountField(&fe, "fixed_limit", "The fixed limit", c.PostForm("fixed_limit")),
		PercentBps:            percentField(&fe, c.PostForm("budget_percent")),
		MaxPositionValueMicro: amountField(&fe, "max_position_value", "The max position value", c.PostForm("max_position_value")),
	}
	err := fe.err()
	if err == nil {
		_, err = h.d.Agents.SetBudget(c.Request.Context(), userOf(c).ID, c.Param("id"), c.ClientIP(), b)
	}
	h.agentSaved(c, err, "budget")
}

func (h *handler) agentHeartbeat(c *gin.Context) {
	var fe fieldErrors
	secs, err := strconv.ParseInt(strings.TrimSpace(c.PostForm("interval_seconds")), 10, 64)
	if err != nil || secs < agents.MinHeartbeatIntervalMs/1000 || secs > agents.MaxHeartbeatIntervalMs/1000 {
		fe.add("interval_seconds", "The interval must be a whole number of seconds from 10 to 86400 (one day).")
	}
	hb := agents.Heartbeat{IntervalMs: secs * 1000}
	if c.PostForm("always") != "yes" {
		start, end, tz := strings.TrimSpace(c.PostForm("start")), strings.TrimSpace(c.PostForm("end")), strings.TrimSpace(c.PostForm("timezone"))
		if _, err := time.Parse("15:04", start); err != nil {
			fe.add("start", "Give the time the agent starts checking in as HH:MM, or tick “Always active”.")
		}
		if _, err := time.Parse("15:04", end); err != nil {
			fe.add("end", "Give the time the agent stops checking in as HH:MM, or tick “Always active”.")
		} else if end == start {
			fe.add("end", "The end must differ from the start.")
		}
		if _, err := time.LoadLocation(tz); err != nil || tz == "" || tz == "Local" {
			fe.add("timezone", "Give a time zone name such as Europe/Berlin or America/New_York.")
		}
		hb.ActiveHours = &agents.ActiveHours{Start: start, End: end, Timezone: tz}
	}
	err = fe.err()
	if err == nil {
		_, err = h.d.Agents.SetHeartbeat(c.Request.Context(), userOf(c).ID, c.Param("id"), c.ClientIP(), hb)
	}
	h.agentSaved(c, err, "heartbeat")
}

func (h *handler) agentRateLimit(c *gin.Context) {
	var fe fieldErrors
	n, err := strconv.Atoi(strings.TrimSpace(c.PostForm("per_minute")))
	if err != nil || n < agents.MinRateLimitPerMinute || n > agents.MaxRateLimitPerMinute {
		fe.add("per_minute", "The rate limit must be a whole number of requests per minute from 1 to 10000.")
	}
	err = fe.err()
	if err == nil {
		_, err = h.d.Agents.SetRateLimit(c.Request.Context(), userOf(c).ID, c.Param("id"), c.ClientIP(), n)
	}
	h.agentSaved(c, err, "rate-limit")
}

type confirmData struct {
	Heading, Message, Button, Action, Back string
	Danger                                 bool
}

// agentConfirm asks before pausing or revoking (revoking, being final,
// also wants a fresh second factor).
func (h *handler) agentConfirm(c *gin.Context) {
	r, err := h.agentRow(c)
	if err != nil {
		h.fail(c, err)
		return
	}
	back := "/agents/" + r.ID
	var d confirmData
	switch c.Param("action") {
	case "pause":
		d = confirmData{Heading: "Pause " + r.Name + "?", Button: "Pause agent",
			Message: "Its key is refused (401) and nothing is placed in its name until you resume it; its active strategies pause with it " +
				"and resume with it. Its open orders stay on the book (cancel them on the Orders page)."}
	case "revoke":
		if !h.fresh(c, back+"/confirm/revoke") {
			return
		}
		d = confirmData{Heading: "Revoke " + r.Name + "?", Button: "Revoke for good", Danger: true,
			Message: "Its key stops working at once and for good, its strategies are cancelled and its open orders are cancelled on the venue. " +
				"Its positions stay yours (close them on the Positions page). To use the agent again, link it anew."}
	default:
		h.fail(c, errs.E(errs.NotFound, "no such action"))
		return
	}
	d.Action, d.Back = back+"/"+c.Param("action"), back
	h.render(c, http.StatusOK, "confirm", view{Title: d.Heading, Nav: "agents", Narrow: true, Data: d})
}

func (h *handler) agentPause(c *gin.Context) {
	_, err := h.d.Controls.PauseAgent(c.Request.Context(), userOf(c).ID, c.Param("id"), c.ClientIP())
	h.agentSaved(c, err, "paused")
}

func (h *handler) agentResume(c *gin.Context) {
	_, err := h.d.Controls.ResumeAgent(c.Request.Context(), userOf(c).ID, c.Param("id"), c.ClientIP())
	h.agentSaved(c, err, "resumed")
}

func (h *handler) agentRevoke(c *gin.Context) {
	if !h.fresh(c, "/agents/"+c.Param("id")+"/confirm/revoke") {
		return
	}
	_, err := h.d.Controls.RevokeAgent(c.Request.Context(), userOf(c).ID, c.Param("id"), c.ClientIP())
	h.agentSaved(c, err, "revoked")
}

// ---- audit ----

func (h *handler) auditPage(c *gin.Context) {
	f := audit.Filter{UserID: userOf(c).ID, Limit: 50, Cursor: c.Query("cursor")}
	if a := c.Query("agent"); a != "" && models.HasPrefix(a, models.PrefixAgent) {
		f.AgentID = a
	}
	page, err := h.d.Audit.List(c.Request.Context(), f)
	if err != nil {
		h.fail(c, err)
		return
	}
	h.render(c, http.StatusOK, "audit", view{Title: "Activity", Nav: "audit",
		Data: map[string]any{"Entries": page.Entries, "Next": page.NextCursor, "Agent": f.AgentID}})
}
