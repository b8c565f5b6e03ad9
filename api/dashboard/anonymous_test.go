package dashboard_test

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/api/dashboard/dashboardtest"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/users"
)

// TestLookingCostsNoSession: 300 requests of a visitor without a cookie
// (sign-in, sign-up and link pages, unknown paths, redirects) write no
// session row: the pages' forms carry the token of a pre-session cookie.
// The sign-in posted with it works and creates the one session; the token
// is refused with another visitor's cookie, and once signed in a
// pre-session token is no longer accepted.
func TestLookingCostsNoSession(t *testing.T) {
	e := newEnv(t, users.SignupOpen)
	e.signUp("alice@example.com", "correct horse battery")
	rows := func() int64 {
		t.Helper()
		var n int64
		require.NoError(t, e.store.DB().Model(&models.UserSession{}).Where("user_id = ?", "").Count(&n).Error)
		return n
	}
	require.Zero(t, rows())
	paths := []string{"/signin", "/signup", "/link", "/link?code=BCDF-GHJK", "/nope", "/", "/signin/second-factor",
		"/auth/identity", "/static/app.css"}
	for i := range 300 {
		resp, err := http.Get(e.url + paths[i%len(paths)])
		require.NoError(t, err)
		resp.Body.Close()
	}
	assert.Zero(t, rows(), "300 cookie-less requests wrote no anonymous session")

	a, b := e.client(), e.client()
	pageA := a.Get("/signin")
	require.Equal(t, http.StatusOK, pageA.Status)
	require.NotEmpty(t, a.Cookie("ats_csrf"))
	assert.Empty(t, a.Cookie(cookie), "no session for looking")
	b.Get("/signin")
	r := b.Post("/signin", url.Values{"csrf_token": {dashboardtest.CSRF(t, pageA.Body)},
		"email": {"alice@example.com"}, "password": {"correct horse battery"}})
	assert.Equal(t, http.StatusForbidden, r.Status, "a's token with b's cookie")
	r = a.Post("/signin", url.Values{"email": {"alice@example.com"}, "password": {"correct horse battery"}})
	assert.Equal(t, http.StatusForbidden, r.Status, "no token")
	r = a.Post("/signin", url.Values{"csrf_token": {dashboardtest.CSRF(t, pageA.Body)},
		"email": {"alice@example.com"}, "password": {"correct horse battery"}})
	require.Equal(t, http.StatusSeeOther, r.Status, r.Body)
	require.NotEmpty(t, a.Cookie(cookie))
	assert.Equal(t, http.StatusOK, a.Get("/").Status)
	assert.Zero(t, rows(), "the sign-in's session is the user's")

	// Signed in, only the session's own token is accepted.
	raw, err := base64.RawURLEncoding.DecodeString(a.Cookie("ats_csrf"))
	require.NoError(t, err)
	masked := base64.RawURLEncoding.EncodeToString(append(make([]byte, len(raw)), raw...))
	r = a.Post("/signout", url.Values{"csrf_token": {masked}})
	assert.Equal(t, http.StatusForbidden, r.Status, "the pre-session token once signed in")
	assert.Equal(t, http.StatusOK, a.Get("/").Status)

	// A step that keeps something (a passkey sign-in begun) starts the one
	// anonymous session it needs.
	c := e.client()
	require.Equal(t, http.StatusOK, c.Submit("/signin", "/signin/passkey/options", nil).Status)
	assert.Equal(t, int64(1), rows())
}

// TestStaticRefusesInvalidPaths: a path no file system accepts is the
// client's error (400), not the server's (it was 500).
func TestStaticRefusesInvalidPaths(t *testing.T) {
	e := newEnv(t, users.SignupOpen)
	for _, tt := range []struct {
		path   string
		status int
	}{
		{"/static/app.css", http.StatusOK},
		{"/static/%ff%fe", http.StatusBadRequest},
		{"/static/a/%c0%af", http.StatusBadRequest},
		{"/static/nope.css", http.StatusNotFound},
	} {
		resp, err := http.Get(e.url + tt.path)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, tt.status, resp.StatusCode, tt.path)
	}
}
