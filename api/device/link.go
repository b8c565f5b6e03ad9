package device

import (
	"bytes"
	"html/template"
	"net/http"
	"net/url"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/errs"
)

var linkPage = template.Must(template.New("link").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Link an agent</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: sans-serif; max-width: 28rem; margin: 3rem auto">
<h1>Link an agent</h1>
{{if .Message}}<p role="alert" style="color: {{if .OK}}green{{else}}#b00{{end}}">{{.Message}}</p>{{end}}
{{if not .Done}}
<p>Enter the code your agent shows, then sign in to approve or deny it.</p>
<form method="post" action="/link">
<p><label>Code<br><input name="code" value="{{.Code}}" autocomplete="off" required maxlength="16" placeholder="XXXX-XXXX"></label></p>
<p><label>Email<br><input name="email" type="email" value="{{.Email}}" autocomplete="username" required></label></p>
<p><label>Password<br><input name="password" type="password" autocomplete="current-password" required></label></p>
<p><button name="action" value="approve">Approve</button> <button name="action" value="deny">Deny</button></p>
</form>
{{end}}
</body></html>
`))

type linkView struct {
	Code, Email, Message string
	OK, Done             bool
}

func render(c *gin.Context, status int, v linkView) {
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

func (h *handlers) linkForm(c *gin.Context) {
	code := c.Query("code")
	if n, ok := agents.NormalizeUserCode(code); ok {
		code = n
	} else if len(code) > 16 {
		code = ""
	}
	render(c, http.StatusOK, linkView{Code: code})
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

func (h *handlers) linkSubmit(c *gin.Context) {
	if !sameOrigin(c.Request) {
		render(c, http.StatusForbidden, linkView{Message: "This form must be submitted from the link page itself."})
		return
	}
	code, email, password, action := c.PostForm("code"), c.PostForm("email"), c.PostForm("password"), c.PostForm("action")
	v := linkView{Code: code, Email: email}
	if action != "approve" && action != "deny" {
		v.Message = "Choose Approve or Deny."
		render(c, http.StatusBadRequest, v)
		return
	}
	ip := c.ClientIP()
	ctx := c.Request.Context()
	// Authenticate limits guessing per address and per account itself.
	u, err := h.svc.Users.Authenticate(ctx, email, password, ip)
	if err != nil {
		h.fail(c, v, err)
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
		if err := h.svc.DenyDevice(ctx, u.ID, code, ip); err != nil {
			h.fail(c, v, err)
			return
		}
		render(c, http.StatusOK, linkView{OK: true, Done: true, Message: "Denied. The agent will not get access."})
		return
	}
	linked, err := h.svc.ApproveDevice(ctx, u.ID, code, ip)
	if err != nil {
		h.fail(c, v, err)
		return
	}
	render(c, http.StatusOK, linkView{OK: true, Done: true,
		Message: "Approved. Agent \"" + linked.AgentName + "\" is linked and will receive its key on its next poll."})
}

// fail renders a classified error's client-safe message with its status.
func (h *handlers) fail(c *gin.Context, v linkView, err error) {
	e, ok := errs.As(err)
	if !ok || e.Kind == errs.Internal {
		api.LoggerFrom(c).ErrorContext(c.Request.Context(), "link page failed", "error", err)
		v.Message = "Something went wrong; please try again. Request id: " + api.RequestID(c)
		render(c, http.StatusInternalServerError, v)
		return
	}
	status, _ := api.StatusFor(e.Kind)
	if e.RetryAfterSeconds > 0 {
		c.Header("Retry-After", strconv.Itoa(e.RetryAfterSeconds))
	}
	v.Message = errs.PublicMessage(err)
	render(c, status, v)
}
