package dashboard_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/api/dashboard"
	"github.com/agent-trading/ats/api/dashboard/dashboardtest"
	"github.com/agent-trading/ats/api/ratelimit"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/users"
)

var confirmRE = regexp.MustCompile(`name="confirm" value="([^"]+)"`)

// requestLink is an agent asking for a link from addr.
func (e *env) requestLink(name, addr string) agents.DeviceAuthorization {
	e.t.Helper()
	a, err := e.links.RequestDevice(context.Background(), name, addr)
	require.NoError(e.t, err)
	return a
}

// poll is the agent's token poll: "" when it got its key, else the error
// code.
func (e *env) poll(a agents.DeviceAuthorization) string {
	e.t.Helper()
	_, err := e.agents.PollDeviceToken(context.Background(), a.DeviceCode, "203.0.113.7")
	if err == nil {
		return ""
	}
	return errs.CodeOf(err)
}

// linkStatus is the stored status of a's link.
func (e *env) linkStatus(a agents.DeviceAuthorization) string {
	e.t.Helper()
	code, _ := agents.NormalizeUserCode(a.UserCode)
	l, err := e.store.DeviceLinkByUserCode(context.Background(), code)
	require.NoError(e.t, err)
	return l.Status
}

// review opens the review of code and returns the page and the form that
// decides it (CSRF and confirm tokens, the code).
func review(t *testing.T, c *dashboardtest.Client, code string) (dashboardtest.Response, url.Values) {
	t.Helper()
	p := c.Get("/link?code=" + url.QueryEscape(code))
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	m := confirmRE.FindStringSubmatch(p.Body)
	require.NotNil(t, m, p.Body)
	return p, url.Values{"csrf_token": {dashboardtest.CSRF(t, p.Body)}, "code": {code}, "confirm": {html.UnescapeString(m[1])}}
}

// TestLinkPage: /link as a dashboard page. The review shows the request
// and decides nothing; a decision needs the page's CSRF and confirm
// tokens and a signed-in user; a user without 2FA signs in on the page
// itself, one with 2FA gives the second factor on the dashboard's page
// and comes back to the review, signed in, to decide.
func TestLinkPage(t *testing.T) {
	e := newEnv(t, users.SignupOpen)
	alice := e.signUp("alice@example.com", "correct horse battery")
	bobC := e.signUp("bob@example.com", "correct horse battery")
	secret, _ := enrolTOTP(t, e, bobC)
	signOut(t, alice)
	signOut(t, bobC)

	// The code form, and a review that decides nothing.
	c := e.client()
	form := c.Get("/link")
	require.Equal(t, http.StatusOK, form.Status)
	assert.Contains(t, form.Body, `id="code-entry"`)
	a := e.requestLink("research-bot", "203.0.113.7")
	page, decide := review(t, c, strings.ToLower(a.UserCode))
	for _, want := range []string{"research-bot", a.UserCode, "203.0.113.7", "you are connecting from", "trade", "Approve only if you started linking", "Sign in to decide"} {
		assert.Contains(t, page.Body, want)
	}
	assert.Equal(t, models.DeviceLinkPending, e.linkStatus(a))

	// Refused: no CSRF token; no confirm token (the code and password
	// alone); another link's token; no action.
	creds := url.Values{"email": {"alice@example.com"}, "password": {"correct horse battery"}, "action": {"approve"}}
	with := func(base url.Values, extra url.Values) url.Values {
		out := url.Values{}
		for k, v := range base {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	r := c.Post("/link", with(creds, url.Values{"code": {a.UserCode}, "confirm": decide["confirm"]}))
	assert.Equal(t, http.StatusForbidden, r.Status, "no CSRF token")
	r = c.Post("/link", with(creds, url.Values{"code": {a.UserCode}, "csrf_token": decide["csrf_token"]}))
	assert.Equal(t, http.StatusBadRequest, r.Status, "no confirm token")
	assert.Contains(t, r.Body, "review the request")
	other := e.requestLink("other-bot", "203.0.113.8")
	_, otherForm := review(t, e.client(), other.UserCode)
	r = c.Post("/link", with(creds, url.Values{"code": {a.UserCode}, "csrf_token": decide["csrf_token"], "confirm": otherForm["confirm"]}))
	assert.Equal(t, http.StatusBadRequest, r.Status, "another link's confirm token")
	r = c.Post("/link", with(decide, url.Values{"email": creds["email"], "password": creds["password"]}))
	assert.Equal(t, http.StatusBadRequest, r.Status, "no action")
	assert.Equal(t, models.DeviceLinkPending, e.linkStatus(a))

	// A wrong password: refused next to the request, still pending.
	r = c.Post("/link", with(decide, url.Values{"email": creds["email"], "password": {"wrong horse battery"}, "action": {"approve"}}))
	assert.Equal(t, http.StatusUnauthorized, r.Status)
	assert.Contains(t, r.Body, "research-bot")
	assert.Equal(t, models.DeviceLinkPending, e.linkStatus(a))

	// Alice (no 2FA) signs in on the page and approves at once; she is
	// now signed in to the dashboard, on the new agent's page.
	r = c.Post("/link", with(decide, creds))
	require.Equal(t, http.StatusSeeOther, r.Status, r.Body)
	require.True(t, strings.HasPrefix(r.Location, "/agents/agt_"), r.Location)
	assert.Contains(t, c.Follow(r).Body, "Approved: the agent is linked")
	assert.Equal(t, "", e.poll(a), "the agent gets its key")

	// Bob (2FA): the password, then the second factor, then back to the
	// review, signed in, where he denies.
	b := e.client()
	bl := e.requestLink("suspicious-bot", "198.51.100.9")
	_, decide = review(t, b, bl.UserCode)
	r = b.Post("/link", with(decide, url.Values{"email": {"bob@example.com"}, "password": {"correct horse battery"}, "action": {"approve"}}))
	require.Equal(t, http.StatusSeeOther, r.Status, r.Body)
	assert.Equal(t, "/signin/second-factor", r.Location)
	assert.Equal(t, models.DeviceLinkPending, e.linkStatus(bl), "the password alone decides nothing for a 2FA user")
	sf := b.Get("/signin/second-factor")
	require.Equal(t, http.StatusOK, sf.Status)
	wrong := b.Post("/signin/second-factor", url.Values{"csrf_token": {dashboardtest.CSRF(t, sf.Body)}, "code": {"000000"}})
	assert.Equal(t, http.StatusUnauthorized, wrong.Status)
	e.clock.Add(30 * time.Second)
	code, err := totp.GenerateCode(secret, e.clock.Now())
	require.NoError(t, err)
	r = b.Post("/signin/second-factor", url.Values{"csrf_token": {dashboardtest.CSRF(t, sf.Body)}, "code": {code}})
	require.Equal(t, http.StatusSeeOther, r.Status, r.Body)
	assert.Equal(t, "/link?code="+url.QueryEscape(bl.UserCode), r.Location)
	page, decide = review(t, b, bl.UserCode)
	assert.Contains(t, page.Body, "Signed in as <strong>bob@example.com</strong>")
	assert.NotContains(t, page.Body, `name="password"`)
	decide.Set("action", "deny")
	r = b.Post("/link", decide)
	require.Equal(t, http.StatusSeeOther, r.Status, r.Body)
	assert.Equal(t, "/agents?done=link-denied", r.Location)
	assert.Equal(t, errs.CodeAccessDenied, e.poll(bl))

	// Signed in, a decided link cannot be decided again.
	gone := b.Get("/link?code=" + bl.UserCode)
	assert.NotEqual(t, http.StatusOK, gone.Status)
	assert.Contains(t, gone.Body, `id="code-entry"`)

	// The decisions are in the users' activity.
	assert.Contains(t, b.Get("/audit").Body, "Link denied")
}

// TestLinkPageLimitedPerAddress: the per-address limit of the device
// endpoints (Deps.LinkLimit) runs before both methods of the dashboard's
// /link, so codes cannot be probed freely.
func TestLinkPageLimitedPerAddress(t *testing.T) {
	l := ratelimit.New(ratelimit.NewMemoryStore(), ratelimit.Options{})
	e := newEnvWith(t, users.SignupOpen, func(d *dashboard.Deps) { d.LinkLimit = ratelimit.PerClientIP(l, 3) })
	c := e.client()
	for i := 0; i < 3; i++ {
		require.Equal(t, http.StatusOK, c.Get("/link").Status)
	}
	assert.Equal(t, http.StatusTooManyRequests, c.Get("/link?code=BCDF-GHJK").Status)
	assert.Equal(t, http.StatusTooManyRequests, c.Post("/link", url.Values{"code": {"BCDF-GHJK"}}).Status)
	assert.Equal(t, http.StatusOK, c.Get("/signin").Status, "other pages are not limited by it")
}

// TestLinkPageOpenIDSignIn: a visitor who signs in with an OpenID
// provider from the review comes back to it, signed in, to decide.
func TestLinkPageOpenIDSignIn(t *testing.T) {
	e := newEnv(t, users.SignupOpen)
	// carol's account uses the sandbox provider only.
	created := e.client()
	r := viaSandbox(t, created, "/signin", nil, "carol@example.com", true)
	require.Equal(t, "/auth/identity", r.Location)
	r = created.Submit("/auth/identity", "/auth/identity", url.Values{"action": {"create"}})
	require.Equal(t, "/?done=welcome", r.Location)

	a := e.requestLink("research-bot", "203.0.113.7")
	c := e.client()
	page, _ := review(t, c, a.UserCode)
	assert.Contains(t, page.Body, `id="link-oidc-sandbox"`)
	back := viaSandbox(t, c, "/link?code="+a.UserCode, url.Values{"next": {"/link?code=" + a.UserCode}}, "carol@example.com", true)
	require.Equal(t, http.StatusSeeOther, back.Status, back.Body)
	assert.Equal(t, "/link?code="+url.QueryEscape(a.UserCode), back.Location)
	page, decide := review(t, c, a.UserCode)
	assert.Contains(t, page.Body, "Signed in as <strong>carol@example.com</strong>")
	decide.Set("action", "approve")
	r = c.Post("/link", decide)
	require.Equal(t, http.StatusSeeOther, r.Status, r.Body)
	assert.True(t, strings.HasPrefix(r.Location, "/agents/agt_"), r.Location)
	assert.Equal(t, models.DeviceLinkApproved, e.linkStatus(a))

	// Only a local path is a place to return to.
	signOut(t, c)
	r = viaSandbox(t, c, "/signin", url.Values{"next": {"//evil.example/link"}}, "carol@example.com", true)
	assert.Equal(t, "/", r.Location)
}
