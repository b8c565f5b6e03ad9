package dashboard_test

import (
	"context"
	"crypto/rand"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/dashboard"
	"github.com/agent-trading/ats/api/dashboard/dashboardtest"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/agents/agentstest"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/identities"
	"github.com/agent-trading/ats/models/intent/intenttest"
	"github.com/agent-trading/ats/models/passkeys"
	"github.com/agent-trading/ats/models/portfolio"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/sessions"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/strategies/strategiestest"
	"github.com/agent-trading/ats/models/throttle"
	"github.com/agent-trading/ats/models/users"
	"github.com/agent-trading/ats/models/vault"
	"github.com/agent-trading/ats/sandbox/githubprovider"
	"github.com/agent-trading/ats/sandbox/oidcprovider"
	"github.com/agent-trading/ats/workflows"
)

var cheap = secret.Argon2Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1, SaltLen: 16, KeyLen: 32}

// clock is a settable time source shared by the services under test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type env struct {
	t     *testing.T
	url   string
	store *store.Store
	users *users.Service
	clock *clock
	idp   *oidcprovider.Provider
	// agents and links run the device flow (decisions recorded without
	// Temporal); strategies runs changes through the real engine.
	agents     *agents.Service
	links      *workflows.DeviceLinks
	strategies *workflows.StrategyDesk
	engine     *strategies.Engine
	prices     *fakePrices
}

// operatorEmail is the operator account of the test server, whose
// strategy pages link to temporalUI.
const (
	operatorEmail = "ops@example.com"
	temporalUI    = "http://temporal-ui.test:8233"
)

const cookie = "ats_session"

func newEnv(t *testing.T, mode users.SignupMode) *env {
	t.Helper()
	return newEnvWith(t, mode, nil)
}

// newEnvWith is newEnv with deps changed by change before the dashboard
// is built.
func newEnvWith(t *testing.T, mode users.SignupMode, change func(*dashboard.Deps)) *env {
	t.Helper()
	st := storetest.NewSQLite(t)
	master := make([]byte, 32)
	_, _ = rand.Read(master)
	vlt, err := vault.FromMasterKey(master)
	require.NoError(t, err)
	clk := &clock{t: time.Now()}
	au := &audit.Service{Store: st}
	// Its own failure counter on the test's clock: no test shares
	// attempts with another, and locks expire as the clock moves.
	us := &users.Service{Store: st, Audit: au, Argon2: cheap, Vault: vlt, Now: clk.Now, Attempts: throttle.NewMemory(clk.Now)}

	// The sandbox OpenID provider, as `ats dev` runs it.
	idpSrv := httptest.NewUnstartedServer(nil)
	idp, err := oidcprovider.New(oidcprovider.Config{Issuer: "http://" + idpSrv.Listener.Addr().String() + "/oidc"})
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/oidc/", http.StripPrefix("/oidc", idp.Handler()))
	// And the sandbox's GitHub.
	mux.Handle("/github/", http.StripPrefix("/github", githubprovider.New(githubprovider.Config{}).Handler()))
	idpSrv.Config.Handler = mux
	idpSrv.Start()
	t.Cleanup(idpSrv.Close)

	srv := httptest.NewUnstartedServer(nil)
	// Passkeys need a domain name: browse the loopback listener as localhost.
	base := "http://localhost:" + strings.TrimPrefix(srv.Listener.Addr().String(), "127.0.0.1:")
	pk, err := passkeys.New(st, au, passkeys.Config{RPID: "localhost", Origins: []string{base}})
	require.NoError(t, err)
	ids, err := identities.New(st, au, base, []identities.ProviderConfig{{Name: "sandbox", Issuer: idp.Issuer(),
		ClientID: oidcprovider.DefaultClientID, ClientSecret: oidcprovider.DefaultClientSecret},
		identities.GitHubProvider(strings.TrimSuffix(idp.Issuer(), "/oidc")+"/github", githubprovider.DefaultClientID, githubprovider.DefaultClientSecret)})
	require.NoError(t, err)
	ag := &agents.Service{Store: st, Users: us}
	links := &workflows.DeviceLinks{Agents: ag, Runs: agentstest.RecorderRuns{Rec: &agents.Recorder{Store: st, Intents: intenttest.Keys(t)}}}
	engine := strategiestest.New(t, st, nil).Engine
	strat := &workflows.StrategyDesk{Runs: strategiestest.Direct{Engine: engine}, Strategies: &strategies.Service{Store: st, Resolver: strategiestest.Resolver{}}}
	prices := &fakePrices{}
	deps := dashboard.Deps{
		Users: us, Sessions: &sessions.Service{Store: st, Audit: au, Now: clk.Now},
		Passkeys: pk, Identities: ids, Agents: ag, Portfolio: &portfolio.Service{Store: st, Agents: ag}, Audit: au,
		Links: links, Strategies: strat, Prices: prices,
	}
	if change != nil {
		change(&deps)
	}
	routes, err := dashboard.Routes(dashboard.Config{PublicURL: base, Signup: mode, Operators: []string{operatorEmail}, TemporalUI: temporalUI}, deps)
	require.NoError(t, err)
	srv.Config.Handler = api.NewServer(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{Routes: []api.Routes{routes}})
	// The service's deadlines, short: answers must fit in them, the live
	// stream lifts its own.
	srv.Config.WriteTimeout, srv.Config.ReadHeaderTimeout = 5*time.Second, 5*time.Second
	srv.Start()
	t.Cleanup(srv.Close)
	return &env{t: t, url: base, store: st, users: us, clock: clk, idp: idp, agents: ag, links: links, strategies: strat, engine: engine, prices: prices}
}

func (e *env) client() *dashboardtest.Client { return dashboardtest.New(e.t, e.url) }

// signUp creates an account through the sign-up form and returns the
// signed-in client.
func (e *env) signUp(email, password string) *dashboardtest.Client {
	e.t.Helper()
	c := e.client()
	r := c.Submit("/signup", "/signup", url.Values{"email": {email}, "password": {password}})
	require.Equal(e.t, http.StatusSeeOther, r.Status, r.Body)
	require.Equal(e.t, "/?done=welcome", r.Location)
	return c
}

func signIn(t *testing.T, c *dashboardtest.Client, email, password string) dashboardtest.Response {
	t.Helper()
	return c.Submit("/signin", "/signin", url.Values{"email": {email}, "password": {password}})
}

func TestSignUpSignInSignOut(t *testing.T) {
	e := newEnv(t, users.SignupOpen)
	c := e.signUp("alice@example.com", "correct horse battery")
	home := c.Get("/")
	require.Equal(t, http.StatusOK, home.Status)
	assert.Contains(t, home.Body, "Overview")
	assert.Contains(t, home.Body, "alice@example.com")

	r := c.Post("/signout", url.Values{"csrf_token": {dashboardtest.CSRF(t, home.Body)}})
	require.Equal(t, http.StatusSeeOther, r.Status)
	assert.Equal(t, "/signin?done=signed-out", r.Location)
	r = c.Get("/")
	assert.Equal(t, http.StatusSeeOther, r.Status, "signed out: the overview sends to sign-in")
	assert.Equal(t, "/signin", r.Location)

	bad := signIn(t, c, "alice@example.com", "wrong horse battery")
	assert.Equal(t, http.StatusUnauthorized, bad.Status)
	assert.Contains(t, bad.Body, "invalid email or password")
	ok := signIn(t, c, "alice@example.com", "correct horse battery")
	require.Equal(t, http.StatusSeeOther, ok.Status)
	assert.Equal(t, http.StatusOK, c.Get("/").Status)

	// Every page of the signed-in dashboard renders.
	for _, p := range []string{"/wallet", "/agents", "/orders", "/positions", "/audit", "/security"} {
		r := c.Get(p)
		if p == "/wallet" {
			// No venue in this test server: the page says so.
			assert.Equal(t, http.StatusServiceUnavailable, r.Status, p)
			continue
		}
		assert.Equal(t, http.StatusOK, r.Status, p)
	}
	// The activity is in words, not the log's keys.
	a := c.Get("/audit")
	assert.Contains(t, a.Body, "Sign-in")
	assert.Contains(t, a.Body, "With a password · wrong password")
	assert.NotContains(t, a.Body, "wrong_password")
}

func TestSecurityHeaders(t *testing.T) {
	e := newEnv(t, users.SignupOpen)
	resp, err := http.Get(e.url + "/signin")
	require.NoError(t, err)
	resp.Body.Close()
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "form-action 'self' " + strings.TrimSuffix(e.idp.Issuer(), "/oidc")} {
		assert.Contains(t, csp, want)
	}
	assert.NotContains(t, csp, "unsafe-inline")
	assert.Equal(t, "DENY", resp.Header.Get("X-Frame-Options"))
	ck := resp.Cookies()
	require.Len(t, ck, 1)
	assert.True(t, ck[0].HttpOnly)
	assert.Equal(t, http.SameSiteLaxMode, ck[0].SameSite)
	assert.False(t, ck[0].Secure, "plain http public URL")
}

func TestFormsNeedTheCSRFToken(t *testing.T) {
	e := newEnv(t, users.SignupOpen)
	e.signUp("alice@example.com", "correct horse battery")
	c := e.client()
	page := c.Get("/signin")
	require.Equal(t, http.StatusOK, page.Status)
	form := url.Values{"email": {"alice@example.com"}, "password": {"correct horse battery"}}

	r := c.Post("/signin", form)
	assert.Equal(t, http.StatusForbidden, r.Status, "no token")
	other := e.client()
	form.Set("csrf_token", dashboardtest.CSRF(t, other.Get("/signin").Body))
	r = c.Post("/signin", form)
	assert.Equal(t, http.StatusForbidden, r.Status, "another session's token")
	form.Set("csrf_token", "AAAA"+dashboardtest.CSRF(t, page.Body)[4:])
	r = c.Post("/signin", form)
	assert.Equal(t, http.StatusForbidden, r.Status, "tampered token")

	// A cross-site form post is refused before the token is looked at.
	form.Set("csrf_token", dashboardtest.CSRF(t, page.Body))
	req, _ := http.NewRequest(http.MethodPost, e.url+"/signin", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.Header.Set("Origin", "https://evil.example")
	resp, err := c.HTTP.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)

	r = c.Post("/signin", form)
	assert.Equal(t, http.StatusSeeOther, r.Status, "the page's own token works: %s", r.Body)
}

func TestSessionIDIsNotKeptAcrossSignIn(t *testing.T) {
	e := newEnv(t, users.SignupOpen)
	e.signUp("alice@example.com", "correct horse battery")

	// The attacker gets a session id from the site (a step that keeps
	// something on the server: a passkey sign-in begun) and plants it in
	// the victim's browser.
	attacker := e.client()
	require.Equal(t, http.StatusOK, attacker.Submit("/signin", "/signin/passkey/options", nil).Status)
	planted := attacker.Cookie(cookie)
	require.NotEmpty(t, planted)
	victim := e.client()
	victim.SetCookie(cookie, planted)

	r := signIn(t, victim, "alice@example.com", "correct horse battery")
	require.Equal(t, http.StatusSeeOther, r.Status)
	after := victim.Cookie(cookie)
	assert.NotEqual(t, planted, after, "sign-in issues a new session id")
	assert.Equal(t, http.StatusOK, victim.Get("/").Status)
	// The planted id is dead: the attacker is not signed in with it.
	r = attacker.Get("/")
	assert.Equal(t, http.StatusSeeOther, r.Status)
	assert.Equal(t, "/signin", r.Location)
}

func TestLockoutEngages(t *testing.T) {
	e := newEnv(t, users.SignupOpen)
	e.signUp("alice@example.com", "correct horse battery")
	c := e.client()
	for i := 0; i < users.FreeAccountFailures-1; i++ {
		r := signIn(t, c, "alice@example.com", "wrong horse battery")
		require.Equal(t, http.StatusUnauthorized, r.Status, "attempt %d", i+1)
	}
	r := signIn(t, c, "alice@example.com", "wrong horse battery")
	assert.Equal(t, http.StatusUnauthorized, r.Status, "the failure that locks")
	r = signIn(t, c, "alice@example.com", "correct horse battery")
	assert.Equal(t, http.StatusTooManyRequests, r.Status, "locked even with the right password")
	assert.Contains(t, r.Body, "Too many failed attempts. Try again in 30 seconds.", "the lockout says how long to wait")
	denied, err := (&audit.Service{Store: e.store}).List(context.Background(), audit.Filter{Action: audit.ActionUserLogin, Result: audit.Denied})
	require.NoError(t, err)
	require.Len(t, denied.Entries, 1, "the refused attempt is audited")
	assert.Contains(t, string(denied.Entries[0].Detail), `"reason":"locked"`)
	assert.Contains(t, string(denied.Entries[0].Detail), `"method":"password"`)
	// Another address-less client for another account is not locked by it.
	e.signUp("bob@example.com", "correct horse battery")

	e.clock.Add(users.AccountBackoffBase + time.Second)
	r = signIn(t, c, "alice@example.com", "correct horse battery")
	assert.Equal(t, http.StatusSeeOther, r.Status, "the lock expires")
}

var secretRE = regexp.MustCompile(`id="totp-secret">([A-Z2-7]+)<`)
var codesRE = regexp.MustCompile(`<li>([a-z2-9]{5}-[a-z2-9]{5})</li>`)

// enrolTOTP turns on 2FA for the signed-in client and returns the secret
// and the backup codes.
func enrolTOTP(t *testing.T, e *env, c *dashboardtest.Client) (string, []string) {
	t.Helper()
	r := c.Submit("/security", "/security/2fa/setup", nil)
	require.Equal(t, http.StatusSeeOther, r.Status, r.Body)
	page := c.Follow(r)
	m := secretRE.FindStringSubmatch(page.Body)
	require.NotNil(t, m, page.Body)
	qr := c.Get("/security/2fa/qr.png")
	require.Equal(t, http.StatusOK, qr.Status)
	assert.True(t, strings.HasPrefix(qr.Body, "\x89PNG"), "a PNG QR code")

	wrong := c.Post("/security/2fa/confirm", url.Values{"csrf_token": {dashboardtest.CSRF(t, page.Body)}, "code": {"000000"}})
	assert.Equal(t, http.StatusUnauthorized, wrong.Status)
	code, err := totp.GenerateCode(m[1], e.clock.Now())
	require.NoError(t, err)
	done := c.Post("/security/2fa/confirm", url.Values{"csrf_token": {dashboardtest.CSRF(t, page.Body)}, "code": {code}})
	require.Equal(t, http.StatusOK, done.Status, done.Body)
	var codes []string
	for _, mm := range codesRE.FindAllStringSubmatch(done.Body, -1) {
		codes = append(codes, mm[1])
	}
	require.Len(t, codes, 10)
	return m[1], codes
}

func signOut(t *testing.T, c *dashboardtest.Client) {
	t.Helper()
	r := c.Submit("/", "/signout", nil)
	require.Equal(t, http.StatusSeeOther, r.Status)
}

func TestTOTPAndBackupCodes(t *testing.T) {
	e := newEnv(t, users.SignupOpen)
	c := e.signUp("alice@example.com", "correct horse battery")
	sec, codes := enrolTOTP(t, e, c)
	signOut(t, c)

	secondStep := func() dashboardtest.Response {
		c.Get("/signin")
		before := c.Cookie(cookie)
		r := signIn(t, c, "alice@example.com", "correct horse battery")
		require.Equal(t, http.StatusSeeOther, r.Status)
		require.Equal(t, "/signin/second-factor", r.Location)
		require.NotEqual(t, before, c.Cookie(cookie), "the session is renewed once the password is accepted")
		// Not signed in yet.
		require.Equal(t, http.StatusSeeOther, c.Get("/").Status)
		return c.Get("/signin/second-factor")
	}
	send := func(code string) dashboardtest.Response {
		page := c.Get("/signin/second-factor")
		return c.Post("/signin/second-factor", url.Values{"csrf_token": {dashboardtest.CSRF(t, page.Body)}, "code": {code}})
	}

	secondStep()
	// The enrolment's code was for this step: the next step's code is new.
	e.clock.Add(30 * time.Second)
	r := send("123456")
	assert.Equal(t, http.StatusUnauthorized, r.Status, "a wrong code")
	code, _ := totp.GenerateCode(sec, e.clock.Now())
	r = send(code)
	require.Equal(t, http.StatusSeeOther, r.Status, r.Body)
	assert.Equal(t, http.StatusOK, c.Get("/").Status)
	signOut(t, c)

	secondStep()
	r = send(code)
	assert.Equal(t, http.StatusUnauthorized, r.Status, "a TOTP code works once")
	assert.Contains(t, r.Body, "already used")

	r = send(codes[0])
	require.Equal(t, http.StatusSeeOther, r.Status, "a backup code")
	signOut(t, c)
	secondStep()
	r = send(codes[0])
	assert.Equal(t, http.StatusUnauthorized, r.Status, "a backup code works once")
	assert.Contains(t, r.Body, "that backup code was already used", "a reused backup code says it was used")
	r = send("aaaaa-aaaaa")
	assert.Equal(t, http.StatusUnauthorized, r.Status)
	assert.Contains(t, r.Body, "that code is not right", "an unknown code is not said to be used")
	r = send(strings.ToUpper(strings.ReplaceAll(codes[1], "-", " ")))
	assert.Equal(t, http.StatusSeeOther, r.Status, "backup codes as people type them")

	// Turning 2FA off needs a fresh second factor.
	e.clock.Add(sessions.DefaultFreshFor + time.Minute)
	r = c.Submit("/security", "/security/2fa/disable", nil)
	require.Equal(t, http.StatusSeeOther, r.Status)
	assert.Equal(t, "/reauth?next=%2Fsecurity", r.Location)
	page := c.Get(r.Location)
	require.Equal(t, http.StatusOK, page.Status)
	code, _ = totp.GenerateCode(sec, e.clock.Now())
	r = c.Post("/reauth", url.Values{"csrf_token": {dashboardtest.CSRF(t, page.Body)}, "code": {code}, "next": {"/security"}})
	require.Equal(t, http.StatusSeeOther, r.Status, r.Body)
	r = c.Submit("/security", "/security/2fa/disable", nil)
	assert.Equal(t, "/security?done=2fa-off", r.Location)
	signOut(t, c)
	r = signIn(t, c, "alice@example.com", "correct horse battery")
	assert.Equal(t, "/", r.Location, "no second step once 2FA is off")
}

func TestPasswordChangeEndsOtherSessions(t *testing.T) {
	e := newEnv(t, users.SignupOpen)
	a := e.signUp("alice@example.com", "correct horse battery")
	b := e.client()
	require.Equal(t, http.StatusSeeOther, signIn(t, b, "alice@example.com", "correct horse battery").Status)

	r := a.Submit("/security", "/security/password", url.Values{"current": {"wrong horse"}, "new": {"new horse battery"}})
	assert.Equal(t, http.StatusUnauthorized, r.Status)
	r = a.Submit("/security", "/security/password", url.Values{"current": {"correct horse battery"}, "new": {"new horse battery"}})
	require.Equal(t, http.StatusSeeOther, r.Status, r.Body)
	assert.Equal(t, http.StatusOK, a.Get("/").Status, "this session stays")
	assert.Equal(t, http.StatusSeeOther, b.Get("/").Status, "the other one is signed out")
	signOut(t, a)
	assert.Equal(t, http.StatusSeeOther, signIn(t, a, "alice@example.com", "new horse battery").Status)
}

func TestSignOutEverywhere(t *testing.T) {
	e := newEnv(t, users.SignupOpen)
	a := e.signUp("alice@example.com", "correct horse battery")
	b := e.client()
	signIn(t, b, "alice@example.com", "correct horse battery")
	sec := a.Get("/security")
	assert.Equal(t, 2, strings.Count(sec.Body, "/revoke\"")+1, "the other session is listed with a sign-out button")
	r := a.Submit("/security", "/signout/everywhere", nil)
	assert.Equal(t, "/signin?done=everywhere", r.Location)
	assert.Equal(t, http.StatusSeeOther, a.Get("/").Status)
	assert.Equal(t, http.StatusSeeOther, b.Get("/").Status)
}

func TestSignupModes(t *testing.T) {
	closed := newEnv(t, users.SignupClosed)
	c := closed.client()
	page := c.Get("/signup")
	assert.Contains(t, page.Body, "Sign-up is closed")
	r := c.Post("/signup", url.Values{"csrf_token": {dashboardtest.CSRF(t, page.Body)}, "email": {"a@example.com"}, "password": {"correct horse battery"}})
	assert.Equal(t, http.StatusForbidden, r.Status)

	inv := newEnv(t, users.SignupInvite)
	code, err := inv.users.CreateInvite(context.Background(), "bob@example.com", time.Hour)
	require.NoError(t, err)
	c = inv.client()
	r = c.Submit("/signup", "/signup", url.Values{"email": {"bob@example.com"}, "password": {"correct horse battery"}})
	assert.Equal(t, http.StatusForbidden, r.Status, "no invite")
	r = c.Submit("/signup", "/signup", url.Values{"email": {"eve@example.com"}, "password": {"correct horse battery"}, "invite": {code}})
	assert.Equal(t, http.StatusForbidden, r.Status, "the invite is for another email")
	r = c.Submit("/signup", "/signup", url.Values{"email": {"bob@example.com"}, "password": {"correct horse battery"}, "invite": {code}})
	assert.Equal(t, http.StatusSeeOther, r.Status, "the invite's email")
	d := inv.client()
	r = d.Submit("/signup", "/signup", url.Values{"email": {"bob2@example.com"}, "password": {"correct horse battery"}, "invite": {code}})
	assert.Equal(t, http.StatusForbidden, r.Status, "an invite works once")
}

var pickRE = regexp.MustCompile(`<form method="post" action="\?([^"]+)" class="card">`)

// viaSandbox starts a sign-in (or link) with the sandbox provider and
// picks email on its page; it returns the dashboard's answer to the
// callback.
func viaSandbox(t *testing.T, c *dashboardtest.Client, page string, form url.Values, email string, verified bool) dashboardtest.Response {
	t.Helper()
	return via(t, c, "sandbox", page, form, email, verified)
}

// via is viaSandbox through provider (the sandbox's OpenID provider or
// its GitHub, whose pages pick an identity alike).
func via(t *testing.T, c *dashboardtest.Client, provider, page string, form url.Values, email string, verified bool) dashboardtest.Response {
	t.Helper()
	r := c.Submit(page, "/auth/oidc/"+provider, form)
	require.Equal(t, http.StatusSeeOther, r.Status, r.Body)
	authz := c.Get(r.Location)
	require.Equal(t, http.StatusOK, authz.Status, authz.Body)
	m := pickRE.FindStringSubmatch(authz.Body)
	require.NotNil(t, m)
	q := html.UnescapeString(m[1])
	pick := url.Values{"email": {email}, "name": {"Test"}}
	if verified {
		pick.Set("verified", "on")
	}
	idpURL := strings.SplitN(r.Location, "?", 2)[0]
	cb := c.Post(idpURL+"?"+q, pick)
	require.Equal(t, http.StatusFound, cb.Status, cb.Body)
	return c.Get(cb.Location)
}

func TestOpenIDSignIn(t *testing.T) {
	e := newEnv(t, users.SignupOpen)
	c := e.client()

	// A new identity: confirm, and an account is created with it.
	r := viaSandbox(t, c, "/signin", nil, "carol@sandbox.test", true)
	require.Equal(t, http.StatusSeeOther, r.Status, r.Body)
	require.Equal(t, "/auth/identity", r.Location)
	page := c.Get("/auth/identity")
	assert.Contains(t, page.Body, "No account uses this email")
	r = c.Post("/auth/identity", url.Values{"csrf_token": {dashboardtest.CSRF(t, page.Body)}, "action": {"create"}})
	require.Equal(t, "/?done=welcome", r.Location)
	assert.Contains(t, c.Get("/").Body, "carol@sandbox.test")
	signOut(t, c)
	// Next time the identity signs straight in.
	r = viaSandbox(t, c, "/signin", nil, "carol@sandbox.test", true)
	assert.Equal(t, "/", r.Location)
	signOut(t, c)

	// An unverified email is refused.
	r = viaSandbox(t, c, "/signin", nil, "dave@sandbox.test", false)
	assert.Equal(t, http.StatusForbidden, r.Status)

	// An existing account's email links only after signing in to it.
	e.signUp("alice@sandbox.test", "correct horse battery")
	r = viaSandbox(t, c, "/signin", nil, "alice@sandbox.test", true)
	require.Equal(t, "/auth/identity", r.Location)
	page = c.Get("/auth/identity")
	assert.Contains(t, page.Body, "An account for")
	assert.Equal(t, http.StatusSeeOther, c.Get("/").Status, "not signed in by the provider alone")
	bad := c.Post("/signin", url.Values{"csrf_token": {dashboardtest.CSRF(t, page.Body)}, "email": {"alice@sandbox.test"}, "password": {"wrong horse"}})
	assert.Equal(t, http.StatusUnauthorized, bad.Status)
	r = c.Post("/signin", url.Values{"csrf_token": {dashboardtest.CSRF(t, page.Body)}, "email": {"alice@sandbox.test"}, "password": {"correct horse battery"}})
	require.Equal(t, "/security?done=linked", r.Location)
	sec := c.Get("/security")
	assert.Contains(t, sec.Body, "alice@sandbox.test")
	signOut(t, c)
	r = viaSandbox(t, c, "/signin", nil, "alice@sandbox.test", true)
	assert.Equal(t, "/", r.Location, "linked: signs in directly")

	// A forged callback (state not from this session) is refused.
	r = c.Get("/auth/oidc/sandbox/callback?state=forged&code=x")
	assert.Equal(t, http.StatusUnauthorized, r.Status)
}

// TestGitHubSignIn: GitHub's plain OAuth2 (the sandbox's GitHub) signs in
// under the same rules as an OpenID provider: GitHub's verified primary
// email creates an account after confirming, links to an existing account
// only after signing in to it, an unverified one is refused, and a
// forged callback too.
func TestGitHubSignIn(t *testing.T) {
	e := newEnv(t, users.SignupOpen)
	c := e.client()
	signin := c.Get("/signin")
	assert.Contains(t, signin.Body, "Continue with GitHub")

	r := via(t, c, "github", "/signin", nil, "octo@sandbox.test", true)
	require.Equal(t, http.StatusSeeOther, r.Status, r.Body)
	require.Equal(t, "/auth/identity", r.Location)
	page := c.Get("/auth/identity")
	assert.Contains(t, page.Body, "No account uses this email")
	r = c.Post("/auth/identity", url.Values{"csrf_token": {dashboardtest.CSRF(t, page.Body)}, "action": {"create"}})
	require.Equal(t, "/?done=welcome", r.Location)
	sec := c.Get("/security")
	assert.Contains(t, sec.Body, "GitHub")
	assert.Contains(t, sec.Body, "octo@sandbox.test")
	signOut(t, c)
	r = via(t, c, "github", "/signin", nil, "octo@sandbox.test", true)
	assert.Equal(t, "/", r.Location, "the GitHub account (its id) signs straight in")
	signOut(t, c)

	r = via(t, c, "github", "/signin", nil, "mallory@sandbox.test", false)
	assert.Equal(t, http.StatusForbidden, r.Status, "an unverified primary email is refused")

	e.signUp("alice@sandbox.test", "correct horse battery")
	r = via(t, c, "github", "/signin", nil, "alice@sandbox.test", true)
	require.Equal(t, "/auth/identity", r.Location)
	page = c.Get("/auth/identity")
	assert.Contains(t, page.Body, "An account for")
	assert.Equal(t, http.StatusSeeOther, c.Get("/").Status, "not signed in by GitHub alone")
	r = c.Post("/signin", url.Values{"csrf_token": {dashboardtest.CSRF(t, page.Body)}, "email": {"alice@sandbox.test"}, "password": {"correct horse battery"}})
	require.Equal(t, "/security?done=linked", r.Location)
	signOut(t, c)
	r = via(t, c, "github", "/signin", nil, "alice@sandbox.test", true)
	assert.Equal(t, "/", r.Location, "linked: signs in directly")

	r = c.Get("/auth/oidc/github/callback?state=forged&code=x")
	assert.Equal(t, http.StatusUnauthorized, r.Status)
}

func TestAgentSettings(t *testing.T) {
	e := newEnv(t, users.SignupOpen)
	c := e.signUp("alice@example.com", "correct horse battery")
	ctx := context.Background()
	u, err := e.store.UserByEmail(ctx, "alice@example.com")
	require.NoError(t, err)
	a := &models.Agent{UserID: u.ID, Name: "bot", Scopes: "read trade cancel redeem"}
	require.NoError(t, e.store.CreateAgentWithKey(ctx, a, &models.APIKey{Hash: "h", DisplayPrefix: "ll_x"}))
	page := "/agents/" + a.ID
	ag := &agents.Service{Store: e.store}

	assert.Contains(t, c.Get("/agents").Body, "bot")
	assert.Contains(t, c.Get("/").Body, `<small id="agents-linked">1 agent linked</small>`)
	r := c.Submit(page, page+"/budget", url.Values{"fixed_limit": {"12.5"}, "budget_percent": {"25"}, "max_position_value": {""}})
	require.Equal(t, page+"?done=budget", r.Location, r.Body)
	got, err := ag.Get(ctx, u.ID, a.ID)
	require.NoError(t, err)
	require.NotNil(t, got.Budget.FixedLimitMicro)
	assert.EqualValues(t, 12_500_000, *got.Budget.FixedLimitMicro)
	assert.EqualValues(t, 2500, *got.Budget.PercentBps)
	assert.Nil(t, got.Budget.MaxPositionValueMicro)

	// A form error keeps what was typed, marks the field and says it in
	// the form's words.
	r = c.Submit(page, page+"/budget", url.Values{"fixed_limit": {"-1"}, "budget_percent": {"25"}, "max_position_value": {"abc"}})
	assert.Equal(t, http.StatusBadRequest, r.Status)
	assert.Contains(t, r.Body, `<p class="field-err" id="fixed_limit-err">The fixed limit must be an amount in USDC above 0`)
	assert.Contains(t, r.Body, `<p class="field-err" id="max_position_value-err">The max position value must be an amount in USDC`)
	assert.Contains(t, r.Body, `value="-1" placeholder="no limit" aria-invalid="true" aria-describedby="fixed_limit-err"`)
	assert.Contains(t, r.Body, `value="abc" placeholder="no limit" aria-invalid="true"`)
	assert.Contains(t, r.Body, `id="budget_percent" name="budget_percent" type="text" inputmode="decimal" value="25"`)
	assert.NotContains(t, r.Body, "position_limit")
	got, _ = ag.Get(ctx, u.ID, a.ID)
	assert.EqualValues(t, 12_500_000, *got.Budget.FixedLimitMicro, "nothing saved")

	r = c.Submit(page, page+"/heartbeat", url.Values{"interval_seconds": {"900"}, "start": {"09:00"}, "end": {"17:00"}, "timezone": {"Europe/Berlin"}})
	require.Equal(t, page+"?done=heartbeat", r.Location, r.Body)
	got, _ = ag.Get(ctx, u.ID, a.ID)
	assert.EqualValues(t, 15*60_000, got.Heartbeat.IntervalMs)
	require.NotNil(t, got.Heartbeat.ActiveHours)
	assert.Equal(t, "Europe/Berlin", got.Heartbeat.ActiveHours.Timezone)
	r = c.Submit(page, page+"/heartbeat", url.Values{"interval_seconds": {"900"}, "start": {"09:00"}, "end": {"17:00"}, "timezone": {"Mars/Olympus"}})
	assert.Equal(t, http.StatusBadRequest, r.Status)
	assert.Contains(t, r.Body, `value="Mars/Olympus" aria-invalid="true" aria-describedby="timezone-err"`)
	assert.Contains(t, r.Body, "Give a time zone name such as Europe/Berlin")
	// Seconds where the form asks for seconds.
	r = c.Submit(page, page+"/heartbeat", url.Values{"interval_seconds": {"5"}, "always": {"yes"}})
	assert.Equal(t, http.StatusBadRequest, r.Status)
	assert.Contains(t, r.Body, "The interval must be a whole number of seconds from 10 to 86400")
	assert.Contains(t, r.Body, `value="5" aria-invalid="true"`)
	assert.NotContains(t, r.Body, "interval_ms")

	r = c.Submit(page, page+"/rate-limit", url.Values{"per_minute": {"30"}})
	require.Equal(t, page+"?done=rate-limit", r.Location)

	r = c.Submit(page+"/confirm/pause", page+"/pause", nil)
	require.Equal(t, page+"?done=paused", r.Location)
	got, _ = ag.Get(ctx, u.ID, a.ID)
	assert.Equal(t, models.AgentPaused, got.Status)
	r = c.Submit(page, page+"/resume", nil)
	require.Equal(t, page+"?done=resumed", r.Location)

	// Revoking wants a fresh second factor once 2FA is on.
	secret, _ := enrolTOTP(t, e, c)
	e.clock.Add(sessions.DefaultFreshFor + time.Minute)
	r = c.Get(page + "/confirm/revoke")
	require.Equal(t, "/reauth?next=%2Fagents%2F"+a.ID+"%2Fconfirm%2Frevoke", r.Location)
	reauth := c.Get(r.Location)
	code, _ := totp.GenerateCode(secret, e.clock.Now())
	r = c.Post("/reauth", url.Values{"csrf_token": {dashboardtest.CSRF(t, reauth.Body)}, "code": {code}, "next": {page + "/confirm/revoke"}})
	require.Equal(t, page+"/confirm/revoke", r.Location)
	r = c.Submit(page+"/confirm/revoke", page+"/revoke", nil)
	require.Equal(t, page+"?done=revoked", r.Location)
	got, _ = ag.Get(ctx, u.ID, a.ID)
	assert.Equal(t, models.AgentRevoked, got.Status)
	// A revoked agent is listed, but not counted as linked.
	assert.Contains(t, c.Get("/agents").Body, "bot")
	assert.Contains(t, c.Get("/").Body, `<small id="agents-linked">0 agents linked</small>`)

	// Another user's agent is not found.
	other := e.signUp("mallory@example.com", "correct horse battery")
	assert.Equal(t, http.StatusNotFound, other.Get(page).Status)
	r = other.Submit("/agents", page+"/pause", nil)
	assert.Equal(t, http.StatusNotFound, r.Status)
}
