package dashboard_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/api/dashboard/dashboardtest"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/users"
)

// wrongCode is a six-digit code no step within the skew accepts now.
func wrongCode(t *testing.T, secret string, now time.Time) string {
	t.Helper()
	for n := 1; ; n++ {
		c := fmt.Sprintf("%06d", n*104729%1000000)
		ok := true
		for _, d := range []time.Duration{-30 * time.Second, 0, 30 * time.Second} {
			want, err := totp.GenerateCode(secret, now.Add(d))
			require.NoError(t, err)
			ok = ok && want != c
		}
		if ok {
			return c
		}
	}
}

// TestSecondFactorGuessingAcrossPasswordSuccesses performs the reported
// attack over HTTP: a new browser signs in with the right password, then
// tries 4 wrong codes, 5 times over (20 wrong codes). The account's second
// factor is checked 5 times in all; every later code, the right one
// included, is refused 429 until the lock runs out. A step-up (the
// confirmation before revoking an agent or turning 2FA off) counts in the
// same per-account count: its failures lock the sign-in's second step too.
func TestSecondFactorGuessingAcrossPasswordSuccesses(t *testing.T) {
	e := newEnv(t, users.SignupOpen)
	e.store.SetClock(e.clock.Now)
	const email, pw = "alice@example.com", "correct horse battery"
	owner := e.signUp(email, pw)
	sec, _ := enrolTOTP(t, e, owner)
	e.clock.Add(30 * time.Second) // past the enrolment's code

	secondStep := func() *dashboardtest.Client {
		t.Helper()
		c := e.client()
		r := signIn(t, c, email, pw)
		require.Equal(t, http.StatusSeeOther, r.Status, "the password is never locked by second-factor failures: %s", r.Body)
		require.Equal(t, "/signin/second-factor", r.Location)
		return c
	}
	send := func(c *dashboardtest.Client, code string) dashboardtest.Response {
		t.Helper()
		page := c.Get("/signin/second-factor")
		require.Equal(t, http.StatusOK, page.Status)
		return c.Post("/signin/second-factor", url.Values{"csrf_token": {dashboardtest.CSRF(t, page.Body)}, "code": {code}})
	}

	checked, refused := 0, 0
	for range 5 {
		c := secondStep()
		for range 4 {
			switch r := send(c, wrongCode(t, sec, e.clock.Now())); r.Status {
			case http.StatusUnauthorized:
				checked++
			case http.StatusTooManyRequests:
				refused++
				assert.Contains(t, strings.ToLower(r.Body), "too many failed attempts")
			default:
				t.Fatalf("a wrong code: %d %s", r.Status, r.Body)
			}
		}
	}
	assert.Equal(t, users.FreeSecondFactorFailures, checked, "codes checked across 5 password successes")
	assert.Equal(t, 20-users.FreeSecondFactorFailures, refused)
	c := secondStep()
	right, err := totp.GenerateCode(sec, e.clock.Now())
	require.NoError(t, err)
	assert.Equal(t, http.StatusTooManyRequests, send(c, right).Status, "the right code while locked")
	denied, err := (&audit.Service{Store: e.store}).List(context.Background(),
		audit.Filter{Action: audit.ActionUserLogin, Result: audit.Denied, Limit: 100})
	require.NoError(t, err)
	assert.Len(t, denied.Entries, refused+1)
	assert.Contains(t, string(denied.Entries[0].Detail), `"method":"second_factor"`)

	e.clock.Add(users.SecondFactorBackoffBase + time.Second)
	right, err = totp.GenerateCode(sec, e.clock.Now())
	require.NoError(t, err)
	r := send(c, right)
	require.Equal(t, http.StatusSeeOther, r.Status, "the lock ran out: %s", r.Body)
	require.Equal(t, http.StatusOK, c.Get("/").Status)

	// Step-ups count with the sign-in's second step (the address's own
	// limit has run out meanwhile).
	e.clock.Add(users.AddrFailureWindow)
	for i := range users.FreeSecondFactorFailures {
		r := c.Submit("/security", "/reauth", url.Values{"code": {wrongCode(t, sec, e.clock.Now())}, "next": {"/security"}})
		require.Equal(t, http.StatusUnauthorized, r.Status, "wrong step-up code %d", i+1)
	}
	right, err = totp.GenerateCode(sec, e.clock.Now())
	require.NoError(t, err)
	r = c.Submit("/security", "/reauth", url.Values{"code": {right}, "next": {"/security"}})
	assert.Equal(t, http.StatusTooManyRequests, r.Status, "the step-up is locked")
	assert.Equal(t, http.StatusTooManyRequests, send(secondStep(), right).Status, "and so is the sign-in's second step")
	e.clock.Add(users.SecondFactorBackoffBase + time.Second)
	right, err = totp.GenerateCode(sec, e.clock.Now())
	require.NoError(t, err)
	r = c.Submit("/security", "/reauth", url.Values{"code": {right}, "next": {"/security"}})
	assert.Equal(t, http.StatusSeeOther, r.Status, "%s", r.Body)
	assert.Equal(t, "/security", r.Location)
}
