package device

import (
	"bytes"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/errs"
)

var linkPage = template.Must(template.New("link").Funcs(template.FuncMap{
	"utc": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Link an agent</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: sans-serif; max-width: 32rem; margin: 3rem auto">
<h1>Link an agent</h1>
{{if .Message}}<p role="alert" style="color: {{if .OK}}green{{else}}#b00{{end}}">{{.Message}}</p>{{end}}
{{if .Review}}{{with .Review}}
<p>An agent asks for access to your account. <strong>Approve only if you started linking this agent yourself,
just now.</strong> If someone sent you this link or code, deny it: approving would let them trade with your wallet.</p>
<table style="border-collapse: collapse; margin: 1rem 0">
<tr><th scope="row" style="text-align: left; padding-right: 1rem">Agent</th><td><strong>{{.AgentName}}</strong></td></tr>
<tr><th scope="row" style="text-align: left; padding-right: 1rem">Code</th><td>{{.UserCode}}</td></tr>
<tr><th scope="row" style="text-align: left; padding-right: 1rem">Requested</th><td>{{utc .RequestedAt}} ({{$.Ago}})</td></tr>
<tr><th scope="row" style="text-align: left; padding-right: 1rem">From address</th><td>{{if .RequestAddr}}{{.RequestAddr}}{{else}}unknown{{end}}{{if $.SameAddr}} (the address you are connecting from){{else}} (you are connecting from {{$.ClientAddr}}){{end}}</td></tr>
<tr><th scope="row" style="text-align: left; padding-right: 1rem; vertical-align: top">It could</th><td><ul style="margin: 0; padding-left: 1.2rem">{{range $.Scopes}}<li><strong>{{.Name}}</strong>: {{.Text}}</li>{{end}}</ul></td></tr>
<tr><th scope="row" style="text-align: left; padding-right: 1rem">Code expires</th><td>{{utc .ExpiresAt}}</td></tr>
</table>
<form method="post" action="/link">
<input type="hidden" name="code" value="{{.UserCode}}">
<input type="hidden" name="confirm" value="{{.Confirm}}">
<p>Sign in to decide:</p>
<p><label>Email<br><input name="email" type="email" value="{{$.Email}}" autocomplete="username" required></label></p>
<p><label>Password<br><input name="password" type="password" autocomplete="current-password" required></label></p>
<fieldset><legend>Spending limit</legend>
<p>If you approve, {{.AgentName}} may spend at most this much of your wallet in all (its fixed limit, prefilled with the default of
{{$.DefaultLimit}} USDC; change it later in the dashboard).</p>
<p><label>Fixed limit (USDC)<br><input name="fixed_limit" inputmode="decimal" value="{{$.FixedLimit}}"></label></p>
<p><label><input type="checkbox" name="no_limit" value="yes"{{if $.NoLimit}} checked{{end}}> No limit: the agent may spend the whole wallet balance</label></p>
</fieldset>
<fieldset><legend>Money</legend>
<p><label><input type="radio" name="mode" value="paper"{{if not $.Live}} checked{{end}}> <strong>Paper</strong>: {{.AgentName}} trades the real markets' prices with your paper balance; nothing reaches the venue or your wallet</label></p>
<p><label><input type="radio" name="mode" value="live"{{if $.Live}} checked{{end}}> <strong>Live</strong>: {{.AgentName}} trades your wallet's real money</label></p>
<p>A paper agent never becomes live: to let it trade real money, link it again and choose Live (then revoke the paper agent).</p>
</fieldset>
<p><button name="action" value="approve">Approve {{.AgentName}}</button> <button name="action" value="deny">Deny</button></p>
</form>
{{end}}{{else if not .Done}}
<p>Enter the code your agent shows. You will see which agent asks for access before you decide.</p>
<form method="get" action="/link">
<p><label>Code<br><input name="code" value="{{.Code}}" autocomplete="off" required maxlength="16" placeholder="XXXX-XXXX"></label></p>
<p><button>Continue</button></p>
</form>
{{end}}
</body></html>
`))

type linkView struct {
	Code, Email, Message string
	OK, Done             bool
	// Review is set on the confirmation page, with what it shows
	// alongside: how long ago, the viewer's own address, the scopes.
	Review          *agents.LinkReview
	Ago, ClientAddr string
	SameAddr        bool
	Scopes          []scopeView
	// The budget fields: as sent, else prefilled with the default.
	FixedLimit, DefaultLimit string
	NoLimit                  bool
	// Live is the mode as sent (paper, the default, otherwise).
	Live bool
}

type scopeView struct{ Name, Text string }

func render(c *gin.Context, status int, v linkView) {
	v.DefaultLimit = agents.DefaultApprovalFixedLimit()
	if c.Request.Method == http.MethodPost {
		v.FixedLimit, v.NoLimit = c.PostForm("fixed_limit"), c.PostForm("no_limit") == "yes"
		v.Live = c.PostForm("mode") == "live"
	} else {
		v.FixedLimit = v.DefaultLimit
	}
	var buf bytes.Buffer
	if err := linkPage.Execute(&buf, v); err != nil {
		api.Fail(c, errs.Wrap(errs.Internal, err, "render link page"))
		return
	}
	// The page takes a password: never framed (clickjacking), never
	// cached, no external resources.
	c.Header("X-Frame-Options", "DENY")
	c.Header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	c.Header("Cache-Control", "no-store")
	c.Header("Referrer-Policy", "no-referrer")
	c.Data(status, "text/html; charset=utf-8", buf.Bytes())
}

// linkForm serves GET /link. Without a code it asks for one; with a code
// (typed, or pre-filled by verification_uri_complete) it shows the
// confirmation page: which agent asks, when, from where and for what
// (RFC 8628 section 5.4). Nothing is decided on a GET: the decision is
// the form of that page, posted back with its confirm token.
func (h *handlers) linkForm(c *gin.Context) {
	code := c.Query("code")
	if code == "" {
		render(c, http.StatusOK, linkView{})
		return
	}
	if _, ok := agents.NormalizeUserCode(code); !ok && len(code) > 16 {
		code = ""
	}
	v := linkView{Code: code}
	if err := h.review(c, &v, code); err != nil {
		h.fail(c, v, err)
		return
	}
	render(c, http.StatusOK, v)
}

// review puts the confirmation page of code on v, or returns why there is
// none.
func (h *handlers) review(c *gin.Context, v *linkView, code string) error {
	ip := c.ClientIP()
	r, err := h.svc.ReviewDevice(c.Request.Context(), code, ip)
	if err != nil {
		return err
	}
	v.Review, v.ClientAddr, v.SameAddr = &r, ip, r.RequestAddr == ip
	v.Ago = ago(h.svc.Clock().Sub(r.RequestedAt))
	for _, s := range r.Scopes {
		v.Scopes = append(v.Scopes, scopeView{Name: s, Text: agents.ScopeDescriptions[s]})
	}
	return nil
}

// ago says how long ago a link was requested, in words.
func ago(d time.Duration) string {
	switch m := int(d / time.Minute); {
	case m < 1:
		return "just now"
	case m == 1:
		return "1 minute ago"
	default:
		return strconv.Itoa(m) + " minutes ago"
	}
}

// sameOrigin is the CSRF defence of the form: a browser sends Origin on
// every cross-site POST (and modern ones Sec-Fetch-Site), so a POST whose
// Origin (or, failing that, Referer) host differs from the request's Host
// — or that names neither — did not come from our page.
func sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return false
	}
	src := r.Header.Get("Origin")
	if src == "" || src == "null" {
		src = r.Header.Get("Referer")
	}
	if src == "" {
		return false
	}
	u, err := url.Parse(src)
	return err == nil && u.Host != "" && u.Host == r.Host
}

// linkSubmit serves POST /link: the decision posted by the confirmation
// page. It must come from that page (same origin, and the confirm token
// only the page of this very link carries), then the user signs in.
func (h *handlers) linkSubmit(c *gin.Context) {
	if !sameOrigin(c.Request) {
		render(c, http.StatusForbidden, linkView{Message: "This form must be submitted from the link page itself."})
		return
	}
	code, email, password, action := c.PostForm("code"), c.PostForm("email"), c.PostForm("password"), c.PostForm("action")
	v := linkView{Code: code, Email: email}
	ctx := c.Request.Context()
	if err := h.svc.Confirmed(ctx, code, c.PostForm("confirm")); err != nil {
		h.fail(c, v, err)
		return
	}
	if action != "approve" && action != "deny" {
		h.failReview(c, v, code, errs.E(errs.Invalid, "Choose Approve or Deny."))
		return
	}
	ip := c.ClientIP()
	// SignIn limits guessing per address and per account.
	u, err := h.svc.Users.SignIn(ctx, email, password, ip)
	if err != nil {
		h.failReview(c, v, code, err)
		return
	}
	if u.TwoFactorEnabled {
		// This page checks the first factor only; accounts with 2FA
		// approve from the dashboard, which asks for the second.
		v.Message = "Your account uses two-factor authentication: approve this code from the dashboard."
		render(c, http.StatusForbidden, v)
		return
	}
	if action == "deny" {
		if err := h.links.DenyDevice(ctx, u.ID, code, ip); err != nil {
			h.failReview(c, v, code, err)
			return
		}
		render(c, http.StatusOK, linkView{OK: true, Done: true, Message: "Denied. The agent will not get access."})
		return
	}
	limit, sent := c.GetPostForm("fixed_limit")
	budget, err := agents.ApprovalBudgetForm(limit, sent, c.PostForm("no_limit") == "yes")
	if err == nil {
		budget.Mode, err = agents.ParseMode(c.PostForm("mode"))
	}
	if err != nil {
		h.failReview(c, v, code, err)
		return
	}
	linked, err := h.links.ApproveDevice(ctx, u.ID, code, ip, budget)
	if err != nil {
		h.failReview(c, v, code, err)
		return
	}
	render(c, http.StatusOK, linkView{OK: true, Done: true,
		Message: "Approved. Agent \"" + linked.AgentName + "\" is linked and will receive its key on its next poll."})
}

// fail renders a classified error's client-safe message with its status.
func (h *handlers) fail(c *gin.Context, v linkView, err error) {
	if status, ok := h.message(c, &v, err); ok {
		render(c, status, v)
	}
}

// failReview is fail on the confirmation page of code: the user sees the
// message next to the request it is about, and can try again (the plain
// page when the link can no longer be shown).
func (h *handlers) failReview(c *gin.Context, v linkView, code string, err error) {
	if status, ok := h.message(c, &v, err); ok {
		if h.review(c, &v, code) != nil {
			v.Review = nil
		}
		render(c, status, v)
	}
}

// message puts err's client-safe message on v and returns its status; an
// internal error is answered here (ok false).
func (h *handlers) message(c *gin.Context, v *linkView, err error) (int, bool) {
	e, ok := errs.As(err)
	if !ok || e.Kind == errs.Internal {
		api.LoggerFrom(c).ErrorContext(c.Request.Context(), "link page failed", "error", err)
		v.Message = "Something went wrong; please try again. Request id: " + api.RequestID(c)
		render(c, http.StatusInternalServerError, *v)
		return 0, false
	}
	status, _ := api.StatusFor(e.Kind)
	if e.RetryAfterSeconds > 0 {
		c.Header("Retry-After", strconv.Itoa(e.RetryAfterSeconds))
	}
	v.Message = errs.PublicMessage(err)
	return status, true
}
