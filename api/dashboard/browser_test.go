package dashboard_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/api/dashboard/dashboardtest"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/users"
)

func browserCookie(t *testing.T, b *dashboardtest.Browser) string {
	t.Helper()
	res, err := chromedp.Call(b.Ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{b.Base}})
	require.NoError(t, err)
	for _, c := range res.Cookies {
		if c.Name == cookie {
			return c.Value
		}
	}
	return ""
}

// TestRefusalsInTheBrowser checks in headless Chromium what must be
// refused: a form whose CSRF token was removed, a session id planted
// before sign-in (not kept after it), a wrong TOTP code, and repeated
// wrong passwords (the account locks).
func TestRefusalsInTheBrowser(t *testing.T) {
	dashboardtest.ChromiumPath(t)
	e := newEnv(t, users.SignupOpen)
	c := e.signUp("alice@example.com", "correct horse battery")
	secret, _ := enrolTOTP(t, e, c)
	e.signUp("bob@example.com", "correct horse battery")
	b := dashboardtest.NewBrowser(t, e.url)

	// A form without its CSRF token is refused.
	b.Open("/signin")
	b.Do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#signin-form input[name=csrf_token]').remove()`))
	b.Fill("email", "bob@example.com")
	b.Fill("password", "correct horse battery")
	b.Do(chromedp.Click(chromedp.ID("signin-submit")), chromedp.WaitVisible(chromedp.ID("error-page")))
	b.See("did not come from this site")
	b.Open("/")
	if p := b.Path(); !strings.HasPrefix(p, "/signin") {
		t.Fatalf("signed in without a CSRF token: at %s", p)
	}

	// A session id planted before sign-in is not kept after it.
	attacker := e.client()
	require.Equal(t, http.StatusOK, attacker.Submit("/signin", "/signin/passkey/options", nil).Status)
	planted := attacker.Cookie(cookie)
	_, err := chromedp.Call(b.Ctx, network.SetCookie, network.SetCookieParams{Name: cookie, Value: planted, URL: b.Base, Path: "/"})
	require.NoError(t, err)
	require.Equal(t, planted, browserCookie(t, b))
	b.Open("/signin")
	b.Fill("email", "bob@example.com")
	b.Fill("password", "correct horse battery")
	b.Click("#signin-submit", "/")
	if after := browserCookie(t, b); after == planted || after == "" {
		t.Fatalf("the session id was kept across sign-in")
	}
	if r := attacker.Get("/"); r.Status != http.StatusSeeOther {
		t.Fatalf("the planted id is signed in: %d", r.Status)
	}
	b.Click(".who form button", "/signin")

	// A wrong TOTP code is refused; the right one passes.
	b.Open("/signin")
	b.Fill("email", "alice@example.com")
	b.Fill("password", "correct horse battery")
	b.Click("#signin-submit", "/signin/second-factor")
	b.Fill("code", "000000")
	b.Do(chromedp.Click(chromedp.ID("code-submit")), chromedp.WaitVisible(chromedp.ID("form-error")))
	b.See("that code is not right")
	e.clock.Add(30e9)
	code, err := totp.GenerateCode(secret, e.clock.Now())
	require.NoError(t, err)
	b.Fill("code", code)
	b.Click("#code-submit", "/")
	b.Click(".who form button", "/signin")

	// Repeated wrong passwords lock the account, even for the right one.
	for i := 0; i < users.FreeAccountFailures; i++ {
		b.Open("/signin")
		b.Fill("email", "bob@example.com")
		b.Fill("password", "wrong horse battery")
		b.Do(chromedp.Click(chromedp.ID("signin-submit")), chromedp.WaitVisible(chromedp.ID("form-error")))
	}
	b.Open("/signin")
	b.Fill("email", "bob@example.com")
	b.Fill("password", "correct horse battery")
	b.Do(chromedp.Click(chromedp.ID("signin-submit")), chromedp.WaitVisible(chromedp.ID("form-error")))
	b.See("Too many failed attempts. Try again in")
}

// TestLivePagesInTheBrowser: the orders page, left open in Chromium,
// shows an order committed meanwhile, and its cancellation, without a
// reload; it says it is live; a region the user is typing in is left
// alone.
func TestLivePagesInTheBrowser(t *testing.T) {
	dashboardtest.ChromiumPath(t)
	e, _ := newTradingViews(t)
	e.signUp("alice@example.com", "correct horse battery")
	u, err := e.store.UserByEmail(context.Background(), "alice@example.com")
	require.NoError(t, err)
	b := dashboardtest.NewBrowser(t, e.url)
	b.Open("/signin")
	b.Fill("email", "alice@example.com")
	b.Fill("password", "correct horse battery")
	b.Click("#signin-submit", "/")
	b.Open("/orders")
	b.Do(chromedp.WaitVisible(chromedp.CSS(`#live-status[data-state="live"]`)))
	b.Do(chromedp.Evaluate[chromedp.Void](`window.__page = 42`))
	_, _, open, _ := seedTrades(t, e.store, u.ID)
	b.Do(chromedp.WaitVisible(chromedp.ID("row-" + open.ID)))
	cancelled := models.OrderCancelled
	require.NoError(t, e.store.UpdateOrder(context.Background(), open.ID, nil, store.OrderUpdate{Status: &cancelled}))
	b.Do(chromedp.WaitVisible(chromedp.CSS("#row-" + open.ID + " .badge.CANCELLED")))
	if p := dashboardtest.Run(b, chromedp.Evaluate[int](`window.__page || 0`)); p != 42 {
		t.Fatal("the page was reloaded")
	}
	b.See("Live · updated", "bot", "65¢")
}
