package dashboard

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/positions"
	"github.com/agent-trading/ats/workflows"
)

// The user's brakes on what is on the book (workflows.Controls): cancel an
// order, cancel all of an agent's, close a position, stop everything.
// Each is a CSRF-protected form post; stop everything, like revoke, also
// wants a fresh second factor. The services audit each.

// backTo is the page a control returns to: a local path of the form's
// "back" field when it names one of the pages the controls sit on, else
// fallback.
func backTo(c *gin.Context, fallback string) string {
	b := safeNext(c.PostForm("back"))
	for _, p := range []string{"/orders", "/positions", "/agents/"} {
		if strings.HasPrefix(b, p) {
			return b
		}
	}
	return fallback
}

// withDone adds ?done=key (or &done=key) to a local path.
func withDone(path, key string) string {
	u, err := url.Parse(path)
	if err != nil {
		return path
	}
	q := u.Query()
	q.Set("done", key)
	u.RawQuery = q.Encode()
	return u.String()
}

func (h *handler) orderCancel(c *gin.Context) {
	if h.d.Orders == nil {
		h.fail(c, errNoVenue)
		return
	}
	back := backTo(c, "/orders")
	if _, err := h.d.Controls.CancelOrder(c.Request.Context(), userOf(c).ID, c.Param("id"), c.ClientIP()); err != nil {
		h.fail(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, withDone(back, "order-cancelled"))
}

func (h *handler) agentOrdersCancel(c *gin.Context) {
	if h.d.Orders == nil {
		h.fail(c, errNoVenue)
		return
	}
	id := c.Param("id")
	if !models.HasPrefix(id, models.PrefixAgent) {
		h.fail(c, errs.E(errs.NotFound, "agent not found"))
		return
	}
	back := backTo(c, "/orders?agent="+url.QueryEscape(id))
	rep, err := h.d.Controls.CancelAgentOrders(c.Request.Context(), userOf(c).ID, id, c.ClientIP())
	if err == nil && len(rep.Failed) > 0 {
		err = errs.Ef(errs.Transient, "%d order(s) cancelled; %d could not be: %s", rep.Cancelled, len(rep.Failed), failures(rep.Failed))
	}
	if err != nil {
		h.fail(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, withDone(back, "orders-cancelled"))
}

// failures lists the first few failed cancels for a message.
func failures(fs []workflows.CancelFailure) string {
	var parts []string
	for i, f := range fs {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(fs)-i))
			break
		}
		parts = append(parts, f.OrderID+" ("+f.Reason+")")
	}
	return strings.Join(parts, ", ")
}

// positionsOf is the positions page of the query's agent (the user's).
func positionsOf(c *gin.Context) string {
	if a := c.Query("agent"); models.HasPrefix(a, models.PrefixAgent) {
		return "/positions?agent=" + url.QueryEscape(a)
	}
	return "/positions"
}

// positionConfirm asks before closing the position of the query's agent
// at market, naming what it sells.
func (h *handler) positionConfirm(c *gin.Context) {
	if h.d.Positions == nil {
		h.fail(c, errNoVenue)
		return
	}
	ctx, id := c.Request.Context(), c.Param("id")
	a, err := h.d.Agents.Get(ctx, userOf(c).ID, c.Query("agent"))
	if err != nil {
		h.fail(c, err)
		return
	}
	list, err := h.d.Positions.List(ctx, a.ID, positions.FilterAll, false)
	if err != nil {
		h.fail(c, err)
		return
	}
	var pos *positions.Item
	for i := range list.Positions {
		if list.Positions[i].ID == id {
			pos = &list.Positions[i]
		}
	}
	if pos == nil {
		h.fail(c, errs.E(errs.NotFound, "position not found").WithCode(errs.CodePositionNotFound))
		return
	}
	q := url.Values{"agent": {a.ID}}
	h.render(c, http.StatusOK, "confirm", view{Title: "Close the position?", Nav: "positions", Narrow: true, Data: confirmData{
		Heading: "Close " + pos.Question + " (" + pos.Outcome + ")?", Button: "Close at market", Danger: true,
		Action: "/positions/" + url.PathEscape(id) + "/close?" + q.Encode(), Back: positionsOf(c),
		Message: "Its " + pos.Size.String() + " shares are sold now at the best bids on the book: a MARKET order through the normal " +
			"order path, in the name of " + a.Name + " (whatever its status) and recorded as yours. Shares its open sell orders already offer are left to them.",
	}})
}

func (h *handler) positionClose(c *gin.Context) {
	if h.d.Positions == nil {
		h.fail(c, errNoVenue)
		return
	}
	res, err := h.d.Controls.ClosePosition(c.Request.Context(), userOf(c).ID, c.Param("id"), c.ClientIP(), positions.CloseRequest{})
	if err != nil {
		h.fail(c, err)
		return
	}
	done := "position-closed"
	if !res.IsClosed {
		done = "position-closing"
	}
	c.Redirect(http.StatusSeeOther, withDone(positionsOf(c), done))
}

type stopData struct {
	Done   bool
	Report workflows.StopReport
}

// stopPage asks before stopping everything, after a fresh second factor.
func (h *handler) stopPage(c *gin.Context) {
	if !h.fresh(c, "/stop") {
		return
	}
	h.render(c, http.StatusOK, "stop", view{Title: "Stop everything?", Narrow: true, Data: stopData{}})
}

// stop pauses every agent and strategy of the user and cancels every open
// order, then shows what it did.
func (h *handler) stop(c *gin.Context) {
	if !h.fresh(c, "/stop") {
		return
	}
	rep, err := h.d.Controls.StopEverything(c.Request.Context(), userOf(c).ID, c.ClientIP())
	if err != nil {
		h.fail(c, err)
		return
	}
	h.render(c, http.StatusOK, "stop", view{Title: "Stopped", Narrow: true, Data: stopData{Done: true, Report: rep}})
}
