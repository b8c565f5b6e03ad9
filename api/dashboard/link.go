package dashboard

import (
	"net/http"
	"net/url"

	"github.com/gin-gonic/gin"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/sessions"
)

// The /link page: a user enters (or follows a link with) the code their
// agent shows, sees the request (RFC 8628 section 5.4: which agent, when,
// from which address, for which scopes) and decides. Nothing is decided
// on a GET. The decision is a POST of the review page: the dashboard's
// CSRF token, the review's confirm token (models/agents' intent proof of
// kind device-link/review) and a signed-in user. A visitor who is not
// signed in signs in on the page itself: the password goes through the
// one sign-in throttle (users.Service.SignIn); with two-step verification
// on, the second factor follows on the dashboard's page and brings the
// user back to the review, now signed in, to decide.

type linkData struct {
	Code   string
	Email  string
	Review *agents.LinkReview
	// ClientAddr and SameAddr put the request next to the viewer.
	ClientAddr string
	SameAddr   bool
	Scopes     []scopeView
	// Next is this review's address, where sign-in returns to.
	Next string
	// FixedLimit and NoLimit are the budget fields as shown (prefilled
	// with the default, or as the user sent them); DefaultLimit is the
	// service's default.
	FixedLimit, DefaultLimit string
	NoLimit                  bool
	// Live is the mode as sent (paper, the default, otherwise).
	Live bool
	// PaperNamesakes are the signed-in user's paper agents of the
	// requesting agent's name, which approving it as Live revokes.
	PaperNamesakes []models.Agent
}

type scopeView struct{ Name, Text string }

func (h *handler) linkPage(c *gin.Context) {
	code := c.Query("code")
	if code == "" {
		h.renderLink(c, http.StatusOK, linkData{}, "")
		return
	}
	if _, ok := agents.NormalizeUserCode(code); !ok && len(code) > 16 {
		code = ""
	}
	d := linkData{Code: code}
	if err := h.review(c, &d); err != nil {
		status, msg := h.describe(c, err)
		h.renderLink(c, status, linkData{Code: code}, msg)
		return
	}
	h.renderLink(c, http.StatusOK, d, "")
}

// review puts the review of d.Code on d, or returns why there is none.
// Unknown codes count as guesses against the viewer's address.
func (h *handler) review(c *gin.Context, d *linkData) error {
	ip := c.ClientIP()
	r, err := h.d.Agents.ReviewDevice(c.Request.Context(), d.Code, ip)
	if err != nil {
		return err
	}
	d.Review, d.ClientAddr, d.SameAddr = &r, ip, r.RequestAddr == ip
	if u := userOf(c); u != nil {
		if d.PaperNamesakes, err = agents.PaperNamesakes(c.Request.Context(), h.d.Agents.Store, u.ID, r.AgentName); err != nil {
			return err
		}
	}
	d.Next = "/link?code=" + url.QueryEscape(r.UserCode)
	for _, s := range r.Scopes {
		d.Scopes = append(d.Scopes, scopeView{Name: s, Text: agents.ScopeDescriptions[s]})
	}
	return nil
}

func (h *handler) renderLink(c *gin.Context, status int, d linkData, msg string) {
	d.DefaultLimit = agents.DefaultApprovalFixedLimit()
	if c.Request.Method == http.MethodPost {
		d.FixedLimit, d.NoLimit = c.PostForm("fixed_limit"), c.PostForm("no_limit") == "yes"
		d.Live = c.PostForm("mode") == "live"
	} else {
		d.FixedLimit = d.DefaultLimit
	}
	h.render(c, status, "link", view{Title: "Link an agent", Nav: "agents", Narrow: true, Error: msg, Data: d})
}

// linkDecide serves POST /link, the review page's form.
func (h *handler) linkDecide(c *gin.Context) {
	ctx, ip := c.Request.Context(), c.ClientIP()
	code, action := c.PostForm("code"), c.PostForm("action")
	d := linkData{Code: code, Email: c.PostForm("email")}
	// The page's own token first: a pre-filled code and a password
	// decide nothing without having shown this very request.
	if err := h.d.Agents.Confirmed(ctx, code, c.PostForm("confirm")); err != nil {
		h.linkFailed(c, d, err)
		return
	}
	if action != "approve" && action != "deny" {
		h.linkFailed(c, d, errs.E(errs.Invalid, "Choose Approve or Deny."))
		return
	}
	u := userOf(c)
	if u == nil {
		su, err := h.d.Users.SignIn(ctx, d.Email, c.PostForm("password"), ip)
		if err != nil {
			h.linkFailed(c, d, err)
			return
		}
		next := "/link?code=" + url.QueryEscape(code)
		if su.TwoFactorEnabled {
			// The second factor, then back to this review to decide.
			h.beginSecondFactor(c, sessionOf(c), su.ID, sessions.MethodPassword, next)
			return
		}
		if _, err := h.completeSignIn(c, sessionOf(c), su.ID, sessions.MethodPassword, false, next); err != nil {
			h.fail(c, err)
			return
		}
		u = &su
	}
	if action == "deny" {
		if err := h.d.Links.DenyDevice(ctx, u.ID, code, ip); err != nil {
			h.linkFailed(c, d, err)
			return
		}
		c.Redirect(http.StatusSeeOther, "/agents?done=link-denied")
		return
	}
	limit, sent := c.GetPostForm("fixed_limit")
	budget, err := agents.ApprovalBudgetForm(limit, sent, c.PostForm("no_limit") == "yes")
	if err == nil {
		budget.Mode, err = agents.ParseMode(c.PostForm("mode"))
	}
	if err != nil {
		h.linkFailed(c, d, err)
		return
	}
	linked, err := h.d.Links.ApproveDevice(ctx, u.ID, code, ip, budget)
	if err != nil {
		h.linkFailed(c, d, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/agents/"+linked.AgentID+"?done=link-approved")
}

// linkFailed shows err next to the request it is about, so the user can
// try again (the code form when the request can no longer be shown).
func (h *handler) linkFailed(c *gin.Context, d linkData, err error) {
	status, msg := h.describe(c, err)
	if e, ok := errs.As(err); ok && e.Kind == errs.Internal {
		h.fail(c, err)
		return
	}
	if d.Code != "" && h.review(c, &d) != nil {
		d.Review = nil
	}
	h.renderLink(c, status, d, msg)
}
