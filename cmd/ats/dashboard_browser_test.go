package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/pquerna/otp/totp"
)

// TestDashboardInTheBrowser drives the dashboard in headless Chromium
// through the real server (sandbox venue and chain, Temporal, worker,
// SQLite): sign-up, TOTP enrolment, sign-in with TOTP, backup codes (each
// once), a passkey on a virtual authenticator, passwordless sign-in with
// it, social login through the sandbox OpenID provider (linked to the
// account by its verified email after signing in, then signing in
// directly with a passkey as the second factor), wallet import, an agent
// linked by the device flow, a budget set here that the agent API then
// enforces, pause (the key gets 401) and resume. With ATS_SCREENSHOTS set
// it saves the pages for docs/dashboard.md.
func TestDashboardInTheBrowser(t *testing.T) {
	chromiumPath(t)
	if testing.Short() {
		t.Skip("starts the sandbox, Temporal and a browser")
	}
	e := newTradingEnv(t, tradingOpts{dashboard: true})
	b := newBrowser(t, e.publicURL)
	const email, password = "trader@sandbox.test", "correct horse battery staple"

	// Sign up.
	b.open("/signup")
	b.screenshot("signup")
	b.fill("email", email)
	b.fill("password", password)
	b.click("#signup-submit", "/?done=welcome")
	b.see("Overview", "Welcome")

	// Enrol TOTP: the test is the authenticator app.
	b.open("/security")
	b.click("#enable-2fa", "/security/2fa")
	secret := b.text("#totp-secret")
	b.screenshot("totp-setup")
	b.fill("code", totpCode(t, secret, time.Now()))
	b.click("#totp-confirm", "/security/2fa/confirm")
	b.see("Save them now")
	codes := run(b, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('#backup-codes li')).map(e => e.textContent)`))
	if len(codes) != 10 {
		t.Fatalf("backup codes: %q", codes)
	}

	signOut := func() {
		t.Helper()
		b.open("/")
		b.click(".who form button", "/signin")
	}
	passwordStep := func() {
		t.Helper()
		b.open("/signin")
		b.fill("email", email)
		b.fill("password", password)
		b.click("#signin-submit", "/signin/second-factor")
	}
	second := func(code, want string) {
		t.Helper()
		b.fill("code", code)
		b.click("#code-submit", want)
	}
	refused := func(code string) {
		t.Helper()
		b.fill("code", code)
		b.do(chromedp.Click(chromedp.ID("code-submit")), chromedp.WaitVisible(chromedp.ID("form-error")))
	}

	// Sign in with TOTP. The enrolment spent this time step's code; the
	// next step's is accepted (clock skew allowance) and is new.
	signOut()
	passwordStep()
	b.screenshot("second-factor")
	second(totpCode(t, secret, time.Now().Add(30*time.Second)), "/")
	b.see("Overview")

	// A backup code works once and only once.
	signOut()
	passwordStep()
	second(codes[0], "/")
	signOut()
	passwordStep()
	refused(codes[0])
	b.see("that code is not right")
	second(codes[1], "/")

	// Register a passkey on a virtual platform authenticator, name it,
	// and sign in with it alone.
	b.addAuthenticator()
	b.open("/security")
	b.fill("passkey-name", "Laptop")
	b.click("#passkey-add", "/security?done=passkey")
	b.see("Passkey added")
	if v := run(b, chromedp.Value(chromedp.CSS(`input[name="name"]`))); v != "Laptop" {
		t.Fatalf("passkey name: %q", v)
	}
	signOut()
	b.open("/signin")
	b.screenshot("signin")
	b.click("#passkey-signin", "/")
	b.see("Overview")
	if who := b.text(".who"); !strings.Contains(who, email) {
		t.Fatalf("signed in with the passkey as %q", who)
	}

	// Social login through the sandbox OpenID provider: the identity's
	// verified email is the account's, so it links after signing in to
	// the account (password + backup code), then signs in by itself.
	signOut()
	b.open("/signin")
	b.click("#oidc-sandbox", "/oidc/authorize")
	b.fill("email", email)
	b.click("#custom-signin", "/auth/identity")
	b.see("An account for", "sign in to that account once")
	b.fill("password", password)
	b.click("#link-signin-form button", "/signin/second-factor")
	second(codes[2], "/security?done=linked")
	b.see("Identity linked", "sandbox")
	signOut()
	b.open("/signin")
	b.click("#oidc-sandbox", "/oidc/authorize")
	b.fill("email", email)
	b.click("#custom-signin", "/signin/second-factor")
	b.click("#passkey-verify", "/")
	b.see("Overview")

	// Import a wallet (the session's second factor is fresh). The key is
	// never shown again.
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	keyHex := hex.EncodeToString(crypto.FromECDSA(key))
	addr := crypto.PubkeyToAddress(key.PublicKey).Hex()
	e.control(t, "/control/wallets/"+addr+"/fund", `{"usdc": 1000, "native": 1}`, nil)
	b.open("/wallet")
	b.fill("private_key", keyHex)
	b.click("#wallet-submit", "/wallet?done=wallet")
	b.see("Wallet saved", addr, "eoa", "$1,000.00")
	if html := run(b, chromedp.OuterHTML(chromedp.CSS("html"))); strings.Contains(strings.ToLower(html), keyHex) {
		t.Fatal("the wallet page shows the private key")
	}
	b.screenshot("wallet")

	// An agent links by the device flow.
	apiKey, agentID := e.linkAgentAs(t, email, "research-agent")
	b.open("/agents")
	b.see("research-agent", "active")

	// Set a budget here; the agent API enforces it.
	b.open("/agents/" + agentID)
	b.fill("fixed_limit", "5")
	b.click("#budget-submit", "/agents/"+agentID+"?done=budget")
	b.see("Budget saved")
	var bud struct {
		USDC      json.Number `json:"usdc"`
		LimitedBy string      `json:"limitedBy"`
	}
	e.agentData(t, apiKey, "GET", "/budget", nil, http.StatusOK, &bud)
	if bud.USDC.String() != "5" || bud.LimitedBy != "fixed_limit" {
		t.Fatalf("budget after setting a 5 USDC limit: %+v", bud)
	}
	e.agentData(t, apiKey, "POST", "/wallet/approve", map[string]any{"token": "all"}, http.StatusOK, nil)
	m := e.newMarket(t, "Will the dashboard ship this week", "0.5")
	e.agentData(t, apiKey, "POST", "/orders", map[string]any{"tokenId": m.TokenIDs[0], "side": "BUY", "price": 0.6, "size": 4, "type": "MARKET"}, http.StatusOK, nil)
	status, body := e.call(t, apiKey, "POST", "/orders", map[string]any{"tokenId": m.TokenIDs[0], "side": "BUY", "price": 0.5, "size": 20})
	if status != http.StatusConflict || !strings.Contains(string(body["code"]), "budget_exceeded") {
		t.Fatalf("an order beyond the budget: %d %s", status, body)
	}

	// Pause: the key is refused; resume: it works again.
	b.open("/agents/" + agentID)
	b.click("#agent-pause", "/agents/"+agentID+"/confirm/pause")
	b.click("#confirm-submit", "/agents/"+agentID+"?done=paused")
	if s, _ := e.call(t, apiKey, "GET", "/me", nil); s != http.StatusUnauthorized {
		t.Fatalf("paused agent's key: %d", s)
	}
	b.click("#agent-resume", "/agents/"+agentID+"?done=resumed")
	if s, _ := e.call(t, apiKey, "GET", "/me", nil); s != http.StatusOK {
		t.Fatalf("resumed agent's key: %d", s)
	}
	b.screenshot("agent")

	// The pages with data, for the docs.
	b.open("/")
	b.see("research-agent", "Will the dashboard ship this week")
	b.screenshot("overview")
	b.open("/agents")
	b.screenshot("agents")
	b.open("/orders?agent=" + agentID)
	b.see("FILLED")
	b.screenshot("orders")
	b.open("/positions?agent=" + agentID)
	b.screenshot("positions")
	b.open("/audit")
	b.see("agent.pause", "user.login", "wallet.import")
	b.screenshotTop("activity")
	b.open("/security")
	b.see("sandbox", "7 of 10 backup codes left")
	b.screenshot("security")
}

func totpCode(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCode(secret, at)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// linkAgentAs links an agent named name to the user through the device
// flow: the agent asks for a code, the user approves it (the service
// path the /link page uses), the agent collects its key.
func (e *tradingEnv) linkAgentAs(t *testing.T, email, name string) (key, agentID string) {
	t.Helper()
	var dev struct {
		Data struct {
			DeviceCode string `json:"device_code"`
			UserCode   string `json:"user_code"`
		} `json:"data"`
	}
	postJSON(t, e.api.URL+"/api/auth/device", `{"agent_name":"`+name+`"}`, http.StatusOK, &dev)
	linked, err := e.svc.agents.ApproveDeviceByEmail(context.Background(), email, dev.Data.UserCode)
	if err != nil {
		t.Fatal(err)
	}
	var tok struct {
		Data struct {
			APIKey string `json:"api_key"`
		} `json:"data"`
	}
	getJSON(t, e.api.URL+"/api/auth/device/token?device_code="+dev.Data.DeviceCode, "", http.StatusOK, &tok)
	return tok.Data.APIKey, linked.AgentID
}

// agentData calls the agent API and decodes data into out, failing unless
// the status is want.
func (e *tradingEnv) agentData(t *testing.T, key, method, path string, body any, want int, out any) {
	t.Helper()
	status, resp := e.call(t, key, method, path, body)
	if status != want {
		t.Fatalf("%s %s: %d %s", method, path, status, resp)
	}
	if out != nil {
		if err := json.Unmarshal(resp["data"], out); err != nil {
			t.Fatalf("%s %s data: %v", method, path, err)
		}
	}
}
