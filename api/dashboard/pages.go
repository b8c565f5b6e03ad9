package dashboard

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/portfolio"
	"github.com/agent-trading/ats/models/positions"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/wallets"
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
}

func (h *handler) overview(c *gin.Context) {
	ov, err := h.d.Portfolio.Overview(c.Request.Context(), userOf(c).ID)
	if err != nil {
		h.fail(c, err)
		return
	}
	d := overviewData{Overview: ov, Chart: newChart(ov.Series), NarrowChart: newNarrowChart(ov.Series)}
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
	h.render(c, http.StatusOK, "overview", view{Title: "Overview", Nav: "overview", Data: d})
}

// ---- wallet ----

type walletData struct {
	Wallet       *wallets.Wallet
	HasBalance   bool
	BalanceMicro int64
	NeedStepUp   bool
	Address      string
}

func (h *handler) walletData(c *gin.Context) (walletData, error) {
	ctx, uid := c.Request.Context(), userOf(c).ID
	d := walletData{NeedStepUp: h.needStepUp(c)}
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

func (h *handler) walletPage(c *gin.Context) {
	d, err := h.walletData(c)
	if err != nil {
		h.fail(c, err)
		return
	}
	h.render(c, http.StatusOK, "wallet", view{Title: "Wallet", Nav: "wallet", Data: d})
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
	h.renderAgent(c, http.StatusOK, "")
}

func (h *handler) renderAgent(c *gin.Context, status int, msg string) {
	r, err := h.agentRow(c)
	if err != nil {
		h.fail(c, err)
		return
	}
	h.render(c, status, "agent", view{Title: r.Name, Nav: "agents", Error: msg, Data: agentData{Agent: r.Agent, Row: r, Zones: zones}})
}

// agentSaved answers a settings form: back to the agent page with a
// notice, or the page again with the error.
func (h *handler) agentSaved(c *gin.Context, err error, done string) {
	if err != nil {
		status, msg := h.describe(c, err)
		h.renderAgent(c, status, msg)
		return
	}
	c.Redirect(http.StatusSeeOther, "/agents/"+c.Param("id")+"?done="+done)
}

// parseMicro reads an optional USDC amount ("" = unset; thousands
// separators allowed) as micro-USDC, by the rules of the admin command.
func parseMicro(field, v string) (*int64, error) {
	v = strings.TrimSpace(strings.ReplaceAll(v, ",", ""))
	if v == "" {
		return nil, nil
	}
	m, err := agents.ParseUSDC(field, v)
	if err != nil {
		return nil, err
	}
	return &m, nil
}

func (h *handler) agentBudget(c *gin.Context) {
	var b agents.Budget
	var err error
	if b.FixedLimitMicro, err = parseMicro("The fixed limit", c.PostForm("fixed_limit")); err == nil {
		if b.MaxPositionValueMicro, err = parseMicro("The max position value", c.PostForm("max_position_value")); err == nil {
			b.PercentBps, err = parsePercent(c.PostForm("budget_percent"))
		}
	}
	if err == nil {
		_, err = h.d.Agents.SetBudget(c.Request.Context(), userOf(c).ID, c.Param("id"), c.ClientIP(), b)
	}
	h.agentSaved(c, err, "budget")
}

// parsePercent reads an optional percentage ("" = unset; a trailing "%"
// allowed) as basis points, by the rules of the admin command.
func parsePercent(v string) (*int32, error) {
	v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "%"))
	if v == "" {
		return nil, nil
	}
	bps, err := agents.ParsePercent("The budget percent", v)
	if err != nil {
		return nil, err
	}
	return &bps, nil
}

func (h *handler) agentHeartbeat(c *gin.Context) {
	secs, err := strconv.ParseInt(strings.TrimSpace(c.PostForm("interval_seconds")), 10, 64)
	if err != nil || secs > agents.MaxHeartbeatIntervalMs/1000 {
		h.agentSaved(c, errs.E(errs.Invalid, "the interval must be a whole number of seconds, 10 to 86400"), "")
		return
	}
	hb := agents.Heartbeat{IntervalMs: secs * 1000}
	if c.PostForm("always") != "yes" {
		hb.ActiveHours = &agents.ActiveHours{Start: c.PostForm("start"), End: c.PostForm("end"), Timezone: strings.TrimSpace(c.PostForm("timezone"))}
	}
	_, err = h.d.Agents.SetHeartbeat(c.Request.Context(), userOf(c).ID, c.Param("id"), c.ClientIP(), hb)
	h.agentSaved(c, err, "heartbeat")
}

func (h *handler) agentRateLimit(c *gin.Context) {
	n, err := strconv.Atoi(strings.TrimSpace(c.PostForm("per_minute")))
	if err != nil {
		h.agentSaved(c, errs.E(errs.Invalid, "the rate limit must be a whole number"), "")
		return
	}
	_, err = h.d.Agents.SetRateLimit(c.Request.Context(), userOf(c).ID, c.Param("id"), c.ClientIP(), n)
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

// ---- orders, positions, audit ----

type listData struct {
	Agents   []agents.Agent
	Selected string
	Orders   []orders.Order
	// Live counts the listed orders that can still trade.
	Live int
	positions.List
}

// pickAgent returns the user's agents and the one chosen by ?agent= (the
// first one by default).
func (h *handler) pickAgent(c *gin.Context) (listData, error) {
	list, err := h.d.Agents.List(c.Request.Context(), userOf(c).ID)
	if err != nil {
		return listData{}, err
	}
	d := listData{Agents: list}
	want := c.Query("agent")
	for _, a := range list {
		if a.ID == want {
			d.Selected = a.ID
		}
	}
	if d.Selected == "" && len(list) > 0 {
		if want != "" {
			return d, errs.E(errs.NotFound, "agent not found")
		}
		d.Selected = list[len(list)-1].ID // the newest agent
	}
	return d, nil
}

func (h *handler) ordersPage(c *gin.Context) {
	d, err := h.pickAgent(c)
	if err == nil && d.Selected != "" {
		if h.d.Orders == nil {
			err = errNoVenue
		} else {
			var res orders.ListResult
			res, err = h.d.Orders.List(c.Request.Context(), d.Selected, orders.ListRequest{Limit: 100})
			d.Orders = res.Orders
			for _, o := range d.Orders {
				if !o.Terminal() {
					d.Live++
				}
			}
		}
	}
	if err != nil {
		h.fail(c, err)
		return
	}
	h.render(c, http.StatusOK, "orders", view{Title: "Orders", Nav: "orders", Data: d})
}

func (h *handler) positionsPage(c *gin.Context) {
	d, err := h.pickAgent(c)
	if err == nil && d.Selected != "" {
		if h.d.Positions == nil {
			err = errNoVenue
		} else {
			d.List, err = h.d.Positions.List(c.Request.Context(), d.Selected, positions.FilterAll, false)
		}
	}
	if err != nil {
		h.fail(c, err)
		return
	}
	h.render(c, http.StatusOK, "positions", view{Title: "Positions", Nav: "positions", Data: d})
}

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
