package dashboard

import (
	"encoding/csv"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/notify"
	"github.com/agent-trading/ats/models/portfolio"
	"github.com/agent-trading/ats/models/positions"
	"github.com/agent-trading/ats/models/store"
)

// ---- the views across agents: orders, fills, positions ----

// filterData is the filter form of the views across agents: agent,
// status, market and dates, as chosen (Query) and offered.
type filterData struct {
	Agents   []agents.Agent
	Markets  []store.Market
	Statuses []string
	// Agent, Status, Market, From and To are the chosen values as the
	// form shows them (From and To as YYYY-MM-DD).
	Agent, Status, Market, From, To string
	// Query is the page's query, for links that keep the filter.
	Query url.Values
	Any   bool
}

// pageSize is how many rows a view shows; exports take up to exportRows.
const (
	pageSize   = 100
	exportRows = 1000
)

// filters reads the views' filter from the query. Unknown agents and
// markets are ignored rather than refused (a bookmark of a revoked
// agent still shows the whole list); a malformed date is the one error.
func (h *handler) filters(c *gin.Context, statuses []string) (filterData, portfolio.Query, error) {
	ctx, uid := c.Request.Context(), userOf(c).ID
	d := filterData{Statuses: statuses, Query: url.Values{}}
	var q portfolio.Query
	var err error
	if d.Agents, err = h.d.Agents.List(ctx, uid); err != nil {
		return d, q, err
	}
	if d.Markets, err = h.d.Portfolio.Markets(ctx, uid); err != nil {
		return d, q, err
	}
	if a := c.Query("agent"); slices.ContainsFunc(d.Agents, func(x agents.Agent) bool { return x.ID == a }) {
		d.Agent, q.AgentID = a, a
	}
	if st := c.Query("status"); slices.Contains(statuses, st) {
		d.Status, q.Status = st, st
	}
	if m := c.Query("market"); slices.ContainsFunc(d.Markets, func(x store.Market) bool { return x.ConditionID == m }) {
		d.Market, q.ConditionID = m, m
	}
	var fe fieldErrors
	day := func(field string) time.Time {
		v := strings.TrimSpace(c.Query(field))
		if v == "" {
			return time.Time{}
		}
		t, err := time.Parse("2006-01-02", v)
		if err != nil {
			fe.add(field, "Give the date as YYYY-MM-DD, or leave it empty.")
			return time.Time{}
		}
		return t
	}
	if q.From = day("from"); !q.From.IsZero() {
		d.From = q.From.Format("2006-01-02")
	}
	if to := day("to"); !to.IsZero() {
		// "To" is the last day shown: up to the end of it.
		d.To, q.To = to.Format("2006-01-02"), to.AddDate(0, 0, 1)
	}
	if !q.From.IsZero() && !q.To.IsZero() && !q.From.Before(q.To) {
		fe.add("to", "The last day must be on or after the first.")
	}
	for k, v := range map[string]string{"agent": d.Agent, "status": d.Status, "market": d.Market, "from": d.From, "to": d.To} {
		if v != "" {
			d.Query.Set(k, v)
		}
	}
	d.Any = len(d.Query) > 0
	q.Limit = pageSize
	if c.Query("format") == "csv" {
		q.Limit = exportRows
	}
	return d, q, fe.err()
}

type ordersData struct {
	Filter filterData
	Orders []portfolio.OrderRow
	More   bool
	// Live counts the listed orders that can still trade: with an agent
	// chosen, the page offers to cancel all of that agent's.
	Live int
}

// ordersPage lists the orders across agents; it reads only the service's
// own records, so it works without a venue too.
func (h *handler) ordersPage(c *gin.Context) {
	f, q, ferr := h.filters(c, portfolio.OrderStatuses)
	d := ordersData{Filter: f}
	v := view{Title: "Orders", Nav: "orders", Live: "orders fills", Data: &d}
	if ferr != nil {
		v.Form = c.Request.URL.Query()
		h.formError(c, "orders", v, ferr)
		return
	}
	rows, more, err := h.d.Portfolio.Orders(c.Request.Context(), userOf(c).ID, q)
	if err != nil {
		h.fail(c, err)
		return
	}
	if c.Query("format") == "csv" {
		h.csv(c, "orders", []string{"placed_at", "order_id", "agent", "market", "outcome", "side", "type", "price", "size",
			"filled", "avg_fill_price", "status", "failure_reason", "strategy_id", "mode"}, func(w func(...string)) {
			for _, o := range rows {
				w(o.CreatedAt.UTC().Format(time.RFC3339), o.ID, o.AgentName, o.MarketQuestion, o.Outcome, o.Side, o.Type,
					o.Price.String(), o.Size.String(), o.FilledSize.String(), o.AvgFillPrice.String(), o.Status, o.FailureReason, o.StrategyID, o.Mode)
			}
		})
		return
	}
	d.Orders, d.More = rows, more
	for _, o := range rows {
		if !o.Terminal() {
			d.Live++
		}
	}
	h.render(c, http.StatusOK, "orders", v)
}

type fillsData struct {
	Filter filterData
	Fills  []portfolio.Fill
	More   bool
	// Fees and Volume total the listed fills.
	Fees, Volume decimal.Decimal
}

func (h *handler) fillsPage(c *gin.Context) {
	f, q, ferr := h.filters(c, nil)
	d := fillsData{Filter: f}
	v := view{Title: "Fills", Nav: "fills", Live: "fills", Data: &d}
	if ferr != nil {
		v.Form = c.Request.URL.Query()
		h.formError(c, "fills", v, ferr)
		return
	}
	rows, more, err := h.d.Portfolio.Fills(c.Request.Context(), userOf(c).ID, q)
	if err != nil {
		h.fail(c, err)
		return
	}
	if c.Query("format") == "csv" {
		h.csv(c, "fills", []string{"time", "fill_id", "order_id", "agent", "market", "outcome", "side", "price", "size", "value",
			"fee", "tx_hash", "strategy_id"}, func(w func(...string)) {
			for _, f := range rows {
				w(f.Time.Format(time.RFC3339), f.ID, f.OrderID, f.AgentName, f.Market, f.Outcome, f.Side, f.Price.String(),
					f.Size.String(), f.Value.String(), f.Fee.String(), f.TxHash, f.StrategyID)
			}
		})
		return
	}
	d.Fills, d.More = rows, more
	for _, f := range rows {
		d.Fees, d.Volume = d.Fees.Add(f.Fee), d.Volume.Add(f.Value)
	}
	h.render(c, http.StatusOK, "fills", v)
}

// positionStatuses are the positions filter's choices (the API's).
var positionStatuses = []string{positions.FilterOpen, positions.FilterRedeemable, positions.FilterSettled, positions.FilterAll}

type positionsData struct {
	Filter    filterData
	Positions []portfolio.PositionRow
	// Summary totals the live positions, PaperSummary the paper ones:
	// simulated money is never added to real money.
	Summary, PaperSummary positions.Summary
	Unavailable           []string
}

func (h *handler) positionsPage(c *gin.Context) {
	f, _, ferr := h.filters(c, positionStatuses)
	d := positionsData{Filter: f}
	v := view{Title: "Positions", Nav: "positions", Live: "positions fills prices", Data: &d}
	if ferr != nil {
		v.Form = c.Request.URL.Query()
		h.formError(c, "positions", v, ferr)
		return
	}
	status := f.Status
	if status == "" {
		status = positions.FilterOpen
		d.Filter.Status = status
	}
	if h.d.Positions == nil {
		// Valuing positions needs the venue's prices.
		d.Unavailable = []string{"positions (trading is not configured on this server)"}
		h.render(c, http.StatusOK, "positions", v)
		return
	}
	rows, unavailable, err := h.d.Portfolio.PositionList(c.Request.Context(), userOf(c).ID, f.Agent, status, f.Market)
	if err != nil {
		h.fail(c, err)
		return
	}
	if c.Query("format") == "csv" {
		h.csv(c, "positions", []string{"agent", "market", "outcome", "status", "size", "avg_entry_price", "current_price",
			"value", "unrealized_pnl", "unrealized_pct", "realized_pnl", "token_id", "mode"}, func(w func(...string)) {
			for _, p := range rows {
				w(p.AgentName, p.Question, p.Outcome, p.Status, p.Size.String(), p.AvgEntryPrice.String(), p.CurrentPrice.String(),
					p.CurrentValue.String(), p.Unrealized.String(), p.UnrealizedPercent.String(), p.RealizedPnl.String(), p.TokenID, p.Mode)
			}
		})
		return
	}
	d.Positions, d.Unavailable = rows, unavailable
	d.Summary, d.PaperSummary = portfolio.SummaryByMode(rows)
	h.render(c, http.StatusOK, "positions", v)
}

// csv answers a CSV download of name (with today's date in its file
// name): the header row, then the rows write gives.
func (h *handler) csv(c *gin.Context, name string, header []string, rows func(w func(...string))) {
	c.Header("Content-Type", "text/csv; charset=utf-8")
	c.Header("Content-Disposition", `attachment; filename="`+name+"-"+time.Now().UTC().Format("2006-01-02")+`.csv"`)
	c.Status(http.StatusOK)
	w := csv.NewWriter(c.Writer)
	_ = w.Write(header)
	rows(func(cols ...string) {
		// A cell a spreadsheet would run as a formula is quoted as text.
		for i, v := range cols {
			if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) && !numeric(v) {
				cols[i] = "'" + v
			}
		}
		_ = w.Write(cols)
	})
	w.Flush()
}

func numeric(v string) bool {
	_, err := decimal.NewFromString(v)
	return err == nil
}

type orderData struct {
	O portfolio.OrderDetail
}

func (h *handler) orderPage(c *gin.Context) {
	d, err := h.d.Portfolio.Order(c.Request.Context(), userOf(c).ID, c.Param("id"))
	if err != nil {
		h.fail(c, err)
		return
	}
	h.render(c, http.StatusOK, "order", view{Title: "Order " + d.ID, Nav: "orders", Live: "orders fills", Data: orderData{O: d}})
}

// ---- 404 and 405 as pages ----

// pageOr lets a request that wants a page (a browser's, not the API's) on
// to the dashboard's error page; any other gets api's JSON answer.
func pageOr(jsonAnswer gin.HandlerFunc) gin.HandlerFunc {
	return func(c *gin.Context) {
		p := c.Request.URL.Path
		if strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/mcp") || !strings.Contains(c.GetHeader("Accept"), "text/html") {
			jsonAnswer(c)
			c.Abort()
			return
		}
		c.Next()
	}
}

func (h *handler) notFound(c *gin.Context) {
	h.render(c, http.StatusNotFound, "error", view{Title: "Page not found", Narrow: true, NoSession: true, Data: errorData{
		Heading: "Page not found",
		Message: "There is no page at " + safeShow(c.Request.URL.Path) + ". The link may be mistyped, or what it pointed to is gone.",
		Back:    "/",
	}})
}

func (h *handler) methodNotAllowed(c *gin.Context) {
	h.render(c, http.StatusMethodNotAllowed, "error", view{Title: "Not allowed here", Narrow: true, NoSession: true, Data: errorData{
		Heading: "This page does not take that request",
		Message: "A " + c.Request.Method + " request is not what " + safeShow(c.Request.URL.Path) + " answers to. Open the page from the dashboard's navigation instead.",
		Back:    "/",
	}})
}

// safeShow shortens a requested path for the error page.
func safeShow(p string) string {
	if len(p) > 80 {
		p = p[:80] + "…"
	}
	return p
}

// ---- notifications ----

type notificationsData struct {
	Kinds      []kindChoice
	Settings   notifySettings
	List       []notifyItem
	Unread     int64
	Deliveries []models.WebhookDelivery
	ListedUpTo string
	AllowHTTP  bool
}

type kindChoice struct {
	Name, Label, Help string
	On                bool
}

type notifySettings struct {
	WebhookURL, Secret string
}

type notifyItem struct {
	ID, Kind, Title, Body, Link, Webhook string
	Time                                 time.Time
	Read                                 bool
	Attempts                             int
}

func (h *handler) notificationsData(c *gin.Context) (*notificationsData, error) {
	ctx, uid := c.Request.Context(), userOf(c).ID
	if h.d.Notify == nil {
		return nil, errs.E(errs.NotFound, "notifications are not available on this server")
	}
	st, err := h.d.Notify.Settings(ctx, uid)
	if err != nil {
		return nil, err
	}
	d := &notificationsData{Settings: notifySettings{WebhookURL: st.WebhookURL, Secret: st.Secret}, AllowHTTP: h.d.Notify.Delivery.AllowPrivate}
	for _, k := range notify.Kinds {
		d.Kinds = append(d.Kinds, kindChoice{Name: k.Name, Label: k.Label, Help: k.Help, On: st.Kinds[k.Name]})
	}
	list, unread, err := h.d.Notify.List(ctx, uid, 50)
	if err != nil {
		return nil, err
	}
	d.Unread = unread
	for _, n := range list {
		d.List = append(d.List, notifyItem{ID: n.ID, Kind: n.Kind, Title: n.Title, Body: n.Body, Link: n.Link,
			Webhook: n.Webhook, Time: n.Time, Read: n.Read, Attempts: n.Attempts})
	}
	if len(list) > 0 {
		d.ListedUpTo = list[0].Time.UTC().Format(time.RFC3339Nano)
	}
	if d.Deliveries, err = h.d.Notify.Deliveries(ctx, uid, 20); err != nil {
		return nil, err
	}
	return d, nil
}

func (h *handler) notificationsPage(c *gin.Context) {
	d, err := h.notificationsData(c)
	if err != nil {
		h.fail(c, err)
		return
	}
	h.render(c, http.StatusOK, "notifications", view{Title: "Notifications", Nav: "notifications", Live: "notifications", Data: d})
}

func (h *handler) notificationSettings(c *gin.Context) {
	if h.d.Notify == nil {
		h.fail(c, errs.E(errs.NotFound, "notifications are not available on this server"))
		return
	}
	_ = c.Request.ParseForm()
	kinds := c.Request.PostForm["kind"]
	url := strings.TrimSpace(c.PostForm("webhook_url"))
	rotate := c.PostForm("rotate") == "yes"
	_, err := h.d.Notify.Save(c.Request.Context(), userOf(c).ID, kinds, url, rotate, c.ClientIP())
	if err != nil {
		d, derr := h.notificationsData(c)
		if derr != nil {
			h.fail(c, derr)
			return
		}
		// The form as posted: the kinds ticked, the URL typed.
		for i := range d.Kinds {
			d.Kinds[i].On = slices.Contains(kinds, d.Kinds[i].Name)
		}
		var fe fieldErrors
		if errs.CodeOf(err) == errs.CodeInvalidWebhookURL {
			fe.add("webhook_url", errs.PublicMessage(err))
			err = errs.Wrap(errs.Invalid, &fe, fe.Error())
		}
		h.formError(c, "notifications", view{Title: "Notifications", Nav: "notifications", Data: d}, err)
		return
	}
	done := "notifications"
	if rotate {
		done = "secret-rotated"
	}
	c.Redirect(http.StatusSeeOther, "/notifications?done="+done)
}

func (h *handler) notificationsRead(c *gin.Context) {
	if h.d.Notify == nil {
		h.fail(c, errs.E(errs.NotFound, "notifications are not available on this server"))
		return
	}
	upTo, err := time.Parse(time.RFC3339Nano, c.PostForm("up_to"))
	if err != nil {
		upTo = time.Now()
	}
	if err := h.d.Notify.MarkRead(c.Request.Context(), userOf(c).ID, upTo); err != nil {
		h.fail(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/notifications?done=notifications-read")
}
