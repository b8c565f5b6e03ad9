package dashboard

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/sessions"
	"github.com/agent-trading/ats/models/users"
)

const (
	ctxSession = "dashboard.session"
	ctxUser    = "dashboard.user"
	csrfField  = "csrf_token"
	csrfHeader = "X-CSRF-Token"
)

func sessionOf(c *gin.Context) *sessions.Session {
	if v, ok := c.Get(ctxSession); ok {
		return v.(*sessions.Session)
	}
	return nil
}

func userOf(c *gin.Context) *users.User {
	if v, ok := c.Get(ctxUser); ok {
		return v.(*users.User)
	}
	return nil
}

// loadSession finds the visitor's session from the cookie and, when it is
// signed in, its user. A stale cookie is simply ignored (and replaced when
// a page needs a session).
func (h *handler) loadSession(c *gin.Context) {
	ck, err := c.Request.Cookie(h.cookieName)
	if err != nil || ck.Value == "" {
		c.Next()
		return
	}
	sess, err := h.d.Sessions.Lookup(c.Request.Context(), ck.Value)
	if err != nil {
		if !errs.Is(err, errs.NotFound) {
			h.fail(c, err)
			c.Abort()
			return
		}
		c.Next()
		return
	}
	c.Set(ctxSession, sess)
	if sess.UserID != "" {
		u, err := h.d.Users.Get(c.Request.Context(), sess.UserID)
		if err == nil {
			c.Set(ctxUser, &u)
		} else if !errs.Is(err, errs.NotFound) {
			h.fail(c, err)
			c.Abort()
			return
		}
	}
	c.Next()
}

// ensureSession returns the visitor's session, starting an anonymous one
// (and setting its cookie) when there is none. Only a step that must be
// remembered on the server (a passkey or OpenID round trip) calls it:
// pages and their forms need no session row (see formToken), so a visitor
// who only looks costs the database nothing.
func (h *handler) ensureSession(c *gin.Context) (*sessions.Session, error) {
	if s := sessionOf(c); s != nil {
		return s, nil
	}
	s, token, err := h.d.Sessions.Start(c.Request.Context(), c.ClientIP(), c.Request.UserAgent())
	if err != nil {
		return nil, err
	}
	h.setCookie(c, token)
	c.Set(ctxSession, s)
	return s, nil
}

// formToken is the CSRF token the page's forms carry: the session's, or
// for a visitor without one the random token of the pre-session cookie
// (set here when missing). A sign-in form needs a token before there is
// anything to keep on the server, and a cookie costs no database row; the
// session is created by the step that has something to remember, the
// sign-in at the latest.
func (h *handler) formToken(c *gin.Context) string {
	if s := sessionOf(c); s != nil {
		return s.CSRFToken
	}
	if t := h.preSessionToken(c); t != "" {
		return t
	}
	t := sessions.RandomToken()
	http.SetCookie(c.Writer, &http.Cookie{Name: h.preCookieName, Value: t, Path: "/", HttpOnly: true,
		Secure: h.secure, SameSite: http.SameSiteLaxMode})
	// Later renders of this response use the same token.
	c.Request.AddCookie(&http.Cookie{Name: h.preCookieName, Value: t})
	return t
}

// preSessionToken is the visitor's pre-session CSRF token, "" when the
// cookie is missing or not a token.
func (h *handler) preSessionToken(c *gin.Context) string {
	ck, err := c.Request.Cookie(h.preCookieName)
	if err != nil {
		return ""
	}
	if raw, err := base64.RawURLEncoding.DecodeString(ck.Value); err != nil || len(raw) != 32 {
		return ""
	}
	return ck.Value
}

// setCookie sets the session cookie: HttpOnly (script cannot read it),
// SameSite=Lax (sent on top-level navigations, which an OpenID provider's
// redirect back is, but not on cross-site subrequests or POSTs), Secure
// behind https. It lives as long as the browser session; the server
// decides expiry.
func (h *handler) setCookie(c *gin.Context, token string) {
	http.SetCookie(c.Writer, &http.Cookie{Name: h.cookieName, Value: token, Path: "/", HttpOnly: true,
		Secure: h.secure, SameSite: http.SameSiteLaxMode})
}

func (h *handler) clearCookie(c *gin.Context) {
	http.SetCookie(c.Writer, &http.Cookie{Name: h.cookieName, Value: "", Path: "/", HttpOnly: true,
		Secure: h.secure, SameSite: http.SameSiteLaxMode, MaxAge: -1})
}

// maskedCSRF renders the session's CSRF token with a fresh one-time pad
// (pad || pad XOR token), so the token never appears twice the same in
// compressed responses (BREACH).
func maskedCSRF(token string) string {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return ""
	}
	pad := make([]byte, len(raw))
	_, _ = rand.Read(pad)
	out := make([]byte, 2*len(raw))
	copy(out, pad)
	for i := range raw {
		out[len(raw)+i] = pad[i] ^ raw[i]
	}
	return base64.RawURLEncoding.EncodeToString(out)
}

func csrfMatches(sessionToken, masked string) bool {
	want, err := base64.RawURLEncoding.DecodeString(sessionToken)
	if err != nil || len(want) == 0 {
		return false
	}
	got, err := base64.RawURLEncoding.DecodeString(masked)
	if err != nil || len(got) != 2*len(want) {
		return false
	}
	n := len(want)
	plain := make([]byte, n)
	for i := 0; i < n; i++ {
		plain[i] = got[i] ^ got[n+i]
	}
	return subtle.ConstantTimeCompare(plain, want) == 1
}

// csrf refuses a cross-origin state change (Fetch metadata, Origin: Go's
// CrossOriginProtection) and then any request whose synchronizer token
// (form field or, for script calls, header) does not match its session's.
func (h *handler) csrf(c *gin.Context) {
	if err := h.cop.Check(c.Request); err != nil {
		h.forbidden(c)
		return
	}
	sess := sessionOf(c)
	tok := c.GetHeader(csrfHeader)
	if tok == "" {
		tok = c.PostForm(csrfField)
	}
	ok := tok != "" && sess != nil && csrfMatches(sess.CSRFToken, tok)
	if !ok && tok != "" && !sess.SignedIn() {
		// A form rendered before the visitor had a session carries the
		// pre-session cookie's token (formToken). Never once signed in:
		// a signed-in session's forms carry its own token.
		pre := h.preSessionToken(c)
		ok = pre != "" && csrfMatches(pre, tok)
	}
	if !ok {
		h.forbidden(c)
		return
	}
	c.Next()
}

func (h *handler) forbidden(c *gin.Context) {
	c.Set("dashboard.error_kind", "csrf")
	if wantsJSON(c) {
		c.AbortWithStatusJSON(http.StatusForbidden, gin.H{"success": false, "message": "this request did not come from a dashboard page; reload the page and try again"})
		return
	}
	h.render(c, http.StatusForbidden, "error", view{Title: "Refused", Narrow: true, Data: errorData{
		Heading: "That did not work", Message: "This form has expired or did not come from this site. Go back, reload the page and try again.", Back: "/",
	}})
	c.Abort()
}

// requireUser sends a visitor who is not signed in to the sign-in page.
func (h *handler) requireUser(c *gin.Context) {
	if userOf(c) != nil {
		c.Next()
		return
	}
	if wantsJSON(c) {
		c.AbortWithStatusJSON(http.StatusUnauthorized, gin.H{"success": false, "message": "sign in first"})
		return
	}
	next := ""
	if c.Request.Method == http.MethodGet {
		next = c.Request.URL.RequestURI()
	}
	c.Redirect(http.StatusSeeOther, "/signin"+nextQuery(next))
	c.Abort()
}

func nextQuery(next string) string {
	if safeNext(next) == "" || next == "/" {
		return ""
	}
	return "?next=" + urlQueryEscape(next)
}

// safeNext accepts only a local absolute path, so "next" can never send
// someone to another site.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") ||
		strings.ContainsAny(next, "\r\n\t") || len(next) > 512 {
		return ""
	}
	return next
}

func wantsJSON(c *gin.Context) bool {
	return strings.HasPrefix(c.GetHeader("Content-Type"), "application/json")
}

// view is what every page template receives.
type view struct {
	Title, Nav   string
	Narrow       bool
	User         *users.User
	CSRF         string
	Flash, Error string
	// Fields are a form's errors by field name, shown next to the field
	// (aria-invalid); Form is what was posted, so the fields keep what
	// the user typed.
	Fields       map[string]string
	Form         url.Values
	Providers    []string
	PasskeysOn   bool
	NavItems     []NavItem
	AssetVersion string
	// Live lists the topics whose changes refresh the page's live regions
	// without a reload ("" for a page that does not update live); Updated
	// is when the page's data was read.
	Live    string
	Updated time.Time
	// Unread counts the user's unread notifications (the navigation's
	// badge).
	Unread int64
	// Explorer is the network's block explorer (transaction links).
	Explorer string
	// NoSession renders a page without forms for a visitor who has no
	// session without giving them anything to keep (error pages: a
	// crawler's 404 sets no cookie).
	NoSession bool
	Data      any
}

type errorData struct{ Heading, Message, Back string }

// render executes page with v, filling what every page needs.
func (h *handler) render(c *gin.Context, status int, page string, v view) {
	t := h.pages[page]
	if t == nil {
		h.fail(c, errs.Ef(errs.Internal, "no dashboard page %q", page))
		return
	}
	switch {
	case v.NoSession && sessionOf(c) == nil:
		// A page with no form (an error page): no pre-session cookie for
		// a crawler either; a token the visitor already has is kept.
		if t := h.preSessionToken(c); t != "" {
			v.CSRF = maskedCSRF(t)
		}
	default:
		v.CSRF = maskedCSRF(h.formToken(c))
	}
	if v.User == nil {
		v.User = userOf(c)
	}
	if v.User != nil && h.d.Notify != nil {
		// The badge is a count; a failure to read it only hides it.
		v.Unread, _ = h.d.Notify.Unread(c.Request.Context(), v.User.ID)
	}
	if v.Updated.IsZero() {
		v.Updated = time.Now().UTC()
	}
	v.Explorer = h.cfg.ExplorerURL
	v.NavItems, v.AssetVersion, v.PasskeysOn = Nav, h.assetVer, h.d.Passkeys != nil
	if h.d.Identities != nil {
		v.Providers = h.d.Identities.Providers()
	}
	if v.Flash == "" {
		v.Flash = notices[c.Query("done")]
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		api.LoggerFrom(c).ErrorContext(c.Request.Context(), "dashboard render", "page", page, "error", err)
		c.String(http.StatusInternalServerError, "Something went wrong; request id "+api.RequestID(c))
		return
	}
	c.Data(status, "text/html; charset=utf-8", buf.Bytes())
}

// notices are the confirmations a redirect can ask for (?done=…); fixed
// texts, so a link cannot put words in the page.
var notices = map[string]string{
	"password":      "Your password was changed. Your other sessions were signed out.",
	"2fa-on":        "Two-step verification is on.",
	"2fa-off":       "Two-step verification is off.",
	"passkey":       "Passkey added.",
	"passkey-name":  "Passkey renamed.",
	"passkey-gone":  "Passkey removed.",
	"linked":        "Identity linked: you can sign in with it from now on.",
	"unlinked":      "Identity unlinked.",
	"session-gone":  "That session was signed out.",
	"wallet":        "Wallet saved. The private key is stored encrypted and will not be shown again.",
	"wallet-gone":   "Wallet deleted.",
	"paper-balance": "Paper balance saved.",
	"budget":        "Budget saved.",
	"heartbeat":     "Heartbeat settings saved.",
	"rate-limit":    "Rate limit saved.",
	"paused":        "Agent paused: its key is refused and its strategies are paused until you resume it.",
	"resumed":       "Agent resumed, with the strategies paused with it.",
	"revoked":       "Agent revoked. Its key no longer works; its strategies and open orders are cancelled.",
	"signed-out":    "You are signed out.",
	"everywhere":    "You were signed out everywhere.",
	"welcome":       "Welcome! Your account is ready.",

	"link-approved": "Approved: the agent is linked and receives its key on its next poll. Set its budget below.",
	"link-denied":   "Denied: the agent will not get access.",

	"strategy-paused":    "Strategy paused. Its agent is told at its next heartbeat.",
	"strategy-resumed":   "Strategy resumed.",
	"strategy-cancelled": "Strategy cancelled. Its agent is told at its next heartbeat.",
	"strategy-extended":  "Expiry extended.",

	"order-cancelled":    "Order cancelled.",
	"orders-cancelled":   "The agent's open orders were cancelled.",
	"position-closed":    "Position closed: its shares were sold.",
	"position-closing":   "Close order placed: what it did not sell yet is still shown.",
	"notifications":      "Notification settings saved.",
	"notifications-read": "All notifications marked read.",
	"secret-rotated":     "New signing secret made: update your receiver, deliveries are signed with it from now on.",
}

// fail renders a classified error as a page (or JSON for script calls):
// its status and client-safe message; internal errors only quote the
// request id.
func (h *handler) fail(c *gin.Context, err error) {
	status, msg := h.describe(c, err)
	if wantsJSON(c) {
		c.AbortWithStatusJSON(status, gin.H{"success": false, "message": msg})
		return
	}
	back := c.Request.Referer()
	if back == "" {
		back = "/"
	}
	h.render(c, status, "error", view{Title: "Error", Narrow: true, Data: errorData{Heading: "That did not work", Message: msg, Back: back}})
	c.Abort()
}

// describe maps err to a status and the message a person may see.
func (h *handler) describe(c *gin.Context, err error) (int, string) {
	e, ok := errs.As(err)
	if !ok || e.Kind == errs.Internal {
		api.LoggerFrom(c).ErrorContext(c.Request.Context(), "dashboard request failed", "error", err)
		return http.StatusInternalServerError, "Something went wrong on our side; please try again. Request id: " + api.RequestID(c)
	}
	status, _ := api.StatusFor(e.Kind)
	if e.Kind == errs.RateLimited && e.RetryAfterSeconds > 0 {
		c.Header("Retry-After", strconv.Itoa(e.RetryAfterSeconds))
		if e.Code == errs.CodeTooManyAttempts {
			return status, "Too many failed attempts. Try again in " + waitWords(e.RetryAfterSeconds) + "."
		}
	}
	return status, errs.PublicMessage(err)
}

// waitWords says how long to wait, rounded up: "30 seconds", "2 minutes".
func waitWords(secs int) string {
	switch {
	case secs <= 1:
		return "a second"
	case secs < 60:
		return strconv.Itoa(secs) + " seconds"
	case secs <= 60:
		return "a minute"
	}
	mins := (secs + 59) / 60
	if mins < 60 {
		return strconv.Itoa(mins) + " minutes"
	}
	hours := (mins + 59) / 60
	if hours == 1 {
		return "an hour"
	}
	return strconv.Itoa(hours) + " hours"
}

// formError re-renders a form page with err's message and status.
func (h *handler) formError(c *gin.Context, page string, v view, err error) {
	status, msg := h.describe(c, err)
	v.Error = msg
	var fe *fieldErrors
	if errors.As(err, &fe) {
		v.Fields = fe.fields
	}
	if v.Form == nil {
		v.Form = postedValues(c)
	}
	h.render(c, status, page, v)
}

// postedValues is what the form posted, without the fields that must
// never come back into a page (passwords, keys, codes, the CSRF token).
func postedValues(c *gin.Context) url.Values {
	_ = c.Request.ParseForm()
	out := url.Values{}
	for k, v := range c.Request.PostForm {
		switch k {
		case csrfField, "password", "current", "new", "private_key", "code", "confirm":
			continue
		}
		out[k] = v
	}
	return out
}

// fieldErrors are a form's errors by field, in the form's own words; the
// message of the whole is the first field's.
type fieldErrors struct {
	fields map[string]string
	order  []string
}

func (f *fieldErrors) add(field, msg string) {
	if f.fields == nil {
		f.fields = map[string]string{}
	}
	if _, dup := f.fields[field]; !dup {
		f.order = append(f.order, field)
	}
	f.fields[field] = msg
}

func (f *fieldErrors) Error() string {
	if len(f.order) == 1 {
		return f.fields[f.order[0]]
	}
	return "Check the marked fields: " + f.fields[f.order[0]]
}

// err is nil without errors, else an Invalid error carrying them.
func (f *fieldErrors) err() error {
	if len(f.order) == 0 {
		return nil
	}
	return errs.Wrap(errs.Invalid, f, f.Error())
}
