package e2e

import (
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/pquerna/otp/totp"

	"github.com/agent-trading/ats/api/dashboard/dashboardtest"
	"github.com/agent-trading/ats/models/notify"
)

// TestDashboardInTheBrowser drives the dashboard in headless Chromium
// through the real server (sandbox venue and chain, Temporal, worker,
// SQLite): sign-up, TOTP enrolment, sign-in with TOTP, backup codes (each
// once), a passkey on a virtual authenticator, passwordless sign-in with
// it, social login through the sandbox OpenID provider (linked to the
// account by its verified email after signing in, then signing in
// directly with a passkey as the second factor), wallet import, a device
// link approved on /link (signing in there with the password and the
// passkey as the second factor), a budget set here that the agent API then
// enforces, pause (the key gets 401) and resume, and a strategy the agent
// created over the API: listed, paused here by keyboard (the heartbeat
// reports STRATEGY_PAUSED), resumed, cancelled (STRATEGY_CANCELLED), with
// the operator's link to its run in the Temporal Web UI. The new pages are
// checked at a phone's width. With ATS_SCREENSHOTS set it saves the pages
// for docs/dashboard.md.
func TestDashboardInTheBrowser(t *testing.T) {
	dashboardtest.ChromiumPath(t)
	if testing.Short() {
		t.Skip("starts the sandbox, Temporal and a browser")
	}
	e := newTradingEnv(t, tradingOpts{dashboard: true})
	b := dashboardtest.NewBrowser(t, e.publicURL)
	const email, password = browserOperator, "correct horse battery staple"

	// Sign up.
	b.Open("/signup")
	b.Screenshot("signup")
	b.Fill("email", email)
	b.Fill("password", password)
	b.Click("#signup-submit", "/?done=welcome")
	b.See("Overview", "Welcome")

	// Without two-step verification a wallet's key cannot go in, and the
	// page says why.
	b.Open("/wallet")
	b.See("Turn on two-step verification before importing a private key", "a stolen password alone")
	if n := dashboardtest.Run(b, chromedp.Evaluate[int](`document.querySelectorAll('#wallet-form').length`)); n != 0 {
		t.Fatal("the wallet form is offered to an account without two-step verification")
	}

	// A page that does not exist is a page, not JSON; API clients keep
	// their JSON answer.
	b.Open("/no/such/page")
	b.See("Page not found", "/no/such/page")
	notFoundPages(t, e.publicURL)

	// Enrol TOTP: the test is the authenticator app.
	b.Open("/security")
	b.Click("#enable-2fa", "/security/2fa")
	secret := b.Text("#totp-secret")
	b.Screenshot("totp-setup")
	b.Fill("code", totpCode(t, secret, time.Now()))
	b.Click("#totp-confirm", "/security/2fa/confirm")
	b.See("Save them now")
	codes := dashboardtest.Run(b, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('#backup-codes li')).map(e => e.textContent)`))
	if len(codes) != 10 {
		t.Fatalf("backup codes: %q", codes)
	}

	signOut := func() {
		t.Helper()
		b.Open("/")
		b.Click(".who form button", "/signin")
	}
	passwordStep := func() {
		t.Helper()
		b.Open("/signin")
		b.Fill("email", email)
		b.Fill("password", password)
		b.Click("#signin-submit", "/signin/second-factor")
	}
	second := func(code, want string) {
		t.Helper()
		b.Fill("code", code)
		b.Click("#code-submit", want)
	}
	refused := func(code string) {
		t.Helper()
		b.Fill("code", code)
		b.Do(chromedp.Click(chromedp.ID("code-submit")), chromedp.WaitVisible(chromedp.ID("form-error")))
	}

	// Sign in with TOTP. The enrolment spent this time step's code; the
	// next step's is accepted (clock skew allowance) and is new.
	signOut()
	passwordStep()
	b.Screenshot("second-factor")
	second(totpCode(t, secret, time.Now().Add(30*time.Second)), "/")
	b.See("Overview")

	// A backup code works once and only once.
	signOut()
	passwordStep()
	second(codes[0], "/")
	signOut()
	passwordStep()
	refused(codes[0])
	b.See("that backup code was already used")
	second(codes[1], "/")

	// Register a passkey on a virtual platform authenticator, name it,
	// and sign in with it alone.
	b.AddAuthenticator()
	b.Open("/security")
	b.Fill("passkey-name", "Laptop")
	b.Click("#passkey-add", "/security?done=passkey")
	b.See("Passkey added")
	if v := dashboardtest.Run(b, chromedp.Value(chromedp.CSS(`input[name="name"]`))); v != "Laptop" {
		t.Fatalf("passkey name: %q", v)
	}
	signOut()
	b.Open("/signin")
	b.Screenshot("signin")
	b.Click("#passkey-signin", "/")
	b.See("Overview")
	if who := b.Text(".who"); !strings.Contains(who, email) {
		t.Fatalf("signed in with the passkey as %q", who)
	}

	// Social login through the sandbox OpenID provider: the identity's
	// verified email is the account's, so it links after signing in to
	// the account (password + backup code), then signs in by itself.
	signOut()
	b.Open("/signin")
	b.Click("#oidc-sandbox", "/oidc/authorize")
	b.Fill("email", email)
	b.Click("#custom-signin", "/auth/identity")
	b.See("An account for", "sign in to that account once")
	b.Fill("password", password)
	b.Click("#link-signin-form button", "/signin/second-factor")
	second(codes[2], "/security?done=linked")
	b.See("Identity linked", "sandbox")
	signOut()
	b.Open("/signin")
	b.Click("#oidc-sandbox", "/oidc/authorize")
	b.Fill("email", email)
	b.Click("#custom-signin", "/signin/second-factor")
	b.Click("#passkey-verify", "/")
	b.See("Overview")

	// Import a wallet (the session's second factor is fresh). The key is
	// never shown again.
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	keyHex := hex.EncodeToString(crypto.FromECDSA(key))
	addr := crypto.PubkeyToAddress(key.PublicKey).Hex()
	e.control(t, "/control/wallets/"+addr+"/fund", `{"usdc": 1000, "native": 1}`, nil)
	b.Open("/wallet")
	b.Fill("private_key", keyHex)
	b.Click("#wallet-submit", "/wallet?done=wallet")
	b.See("Wallet saved", addr, "eoa", "$1,000.00")
	// The balance follows fills, redemptions and the wallet's own changes.
	if topics := dashboardtest.Run(b, chromedp.Evaluate[string](`document.getElementById('main').dataset.live + ' ' + !!document.querySelector('#wallet-region #wallet-balance')`)); topics != "wallet fills positions true" {
		t.Fatalf("the wallet page does not follow its balance live: %q", topics)
	}
	if html := dashboardtest.Run(b, chromedp.OuterHTML(chromedp.CSS("html"))); strings.Contains(strings.ToLower(html), keyHex) {
		t.Fatal("the wallet page shows the private key")
	}
	b.Screenshot("wallet")

	// An agent asks to link and shows its link. The user, signed out,
	// opens it: the review on /link decides nothing; signing in there
	// takes the password, then the passkey as the second factor, and
	// comes back to the review, signed in, to approve.
	var dev struct {
		Data struct {
			DeviceCode              string `json:"device_code"`
			UserCode                string `json:"user_code"`
			VerificationURIComplete string `json:"verification_uri_complete"`
		} `json:"data"`
	}
	postJSON(t, e.api.URL+"/api/auth/device", `{"agent_name":"research-agent"}`, http.StatusOK, &dev)
	signOut()
	b.Open(strings.TrimPrefix(dev.Data.VerificationURIComplete, e.publicURL))
	b.See("research-agent", dev.Data.UserCode, "Approve only if you started linking", "Sign in to decide")
	b.FitsPhone()
	b.Screenshot("link")
	b.Fill("email", email)
	b.Fill("password", password)
	b.Click("#link-approve", "/signin/second-factor")
	b.Click("#passkey-verify", "/link?code=")
	b.See("Signed in as", email, "research-agent", "Paper", "Live")
	// This agent trades the wallet: the page's default is paper.
	b.Do(chromedp.Click(chromedp.CSS("#mode_live")))
	b.Click("#link-approve", "/agents/agt_")
	b.See("Approved: the agent is linked")
	agentID := strings.TrimPrefix(strings.SplitN(b.Path(), "?", 2)[0], "/agents/")
	var tok struct {
		Data struct {
			APIKey  string `json:"api_key"`
			AgentID string `json:"agent_id"`
		} `json:"data"`
	}
	getJSON(t, e.api.URL+"/api/auth/device/token?device_code="+dev.Data.DeviceCode, "", http.StatusOK, &tok)
	apiKey := tok.Data.APIKey
	if !strings.HasPrefix(apiKey, "ll_") {
		t.Fatalf("the approved agent's key: %+v", tok.Data)
	}
	b.Open("/agents")
	b.See("research-agent", "active")

	// Set a budget here; the agent API enforces it.
	b.Open("/agents/" + agentID)
	b.Fill("fixed_limit", "5")
	b.Click("#budget-submit", "/agents/"+agentID+"?done=budget")
	b.See("Budget saved")
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
	b.Open("/agents/" + agentID)
	b.Click("#agent-pause", "/agents/"+agentID+"/confirm/pause")
	b.Click("#confirm-submit", "/agents/"+agentID+"?done=paused")
	if s, _ := e.call(t, apiKey, "GET", "/me", nil); s != http.StatusUnauthorized {
		t.Fatalf("paused agent's key: %d", s)
	}
	b.Click("#agent-resume", "/agents/"+agentID+"?done=resumed")
	if s, _ := e.call(t, apiKey, "GET", "/me", nil); s != http.StatusOK {
		t.Fatalf("resumed agent's key: %d", s)
	}
	b.Screenshot("agent")

	// A form error keeps what was typed, marks the field and says it in
	// the form's words.
	b.Fill("fixed_limit", "12,5 dollars")
	b.Do(chromedp.Click(chromedp.ID("budget-submit")), chromedp.WaitVisible(chromedp.ID("fixed_limit-err")))
	b.See("The fixed limit must be an amount in USDC")
	if v := dashboardtest.Run(b, chromedp.Value(chromedp.ID("fixed_limit"))); v != "12,5 dollars" {
		t.Fatalf("the form lost the input: %q", v)
	}
	if inv := dashboardtest.Run(b, chromedp.Evaluate[string](`document.getElementById('fixed_limit').getAttribute('aria-invalid') + ' ' + document.getElementById('fixed_limit').getAttribute('aria-describedby')`)); inv != "true fixed_limit-err" {
		t.Fatalf("the field is not marked: %q", inv)
	}
	b.Screenshot("form-error")

	// The orders page follows the agent's orders live: an order placed
	// over the API appears without a reload, and its cancel too.
	b.Open("/orders")
	b.Do(chromedp.WaitVisible(chromedp.CSS(`#live-status[data-state="live"]`)))
	dashboardtest.Run(b, chromedp.Evaluate[int](`window.__page = 42`))
	var placed struct {
		Order struct {
			ID string `json:"id"`
		} `json:"order"`
	}
	e.agentData(t, apiKey, "POST", "/orders", map[string]any{"tokenId": m.TokenIDs[0], "side": "BUY", "price": 0.3, "size": 5}, http.StatusOK, &placed)
	resting := placed.Order
	b.Do(chromedp.WaitVisible(chromedp.ID("row-" + resting.ID)))
	e.agentData(t, apiKey, "DELETE", "/orders/"+resting.ID, nil, http.StatusOK, nil)
	b.Do(chromedp.WaitVisible(chromedp.CSS("#row-" + resting.ID + ` .badge.CANCELLED`)))
	if p := dashboardtest.Run(b, chromedp.Evaluate[int](`window.__page || 0`)); p != 42 {
		t.Fatal("the orders page was reloaded to show the order")
	}
	b.See("Live · updated", "cancelled", "research-agent", "30¢")
	b.VisibleAtPhone(`#orders-table td[data-label="Status"]`, `#orders-table td[data-label="Filled"]`, `#orders-table td[data-label="Price"]`)
	b.Screenshot("orders")
	// Filters and the export.
	b.Open("/orders?status=CANCELLED&agent=" + agentID)
	b.See("cancelled")
	if n := dashboardtest.Run(b, chromedp.Evaluate[int](`document.querySelectorAll('#orders-table tbody tr').length`)); n != 1 {
		t.Fatalf("the cancelled filter shows %d orders", n)
	}
	csv := dashboardtest.Run(b, chromedp.Evaluate[string](`document.getElementById('csv-export').getAttribute('href')`))
	if !strings.Contains(csv, "format=csv") || !strings.Contains(csv, "status=CANCELLED") {
		t.Fatalf("the export does not keep the filter: %s", csv)
	}

	// The order's page: its lifecycle, and who placed it.
	b.Open("/orders/" + resting.ID)
	b.See("Lifecycle", "pending", "open", "cancelled", "research-agent", "the agent itself", "No fills yet")

	// The fills list: the market order's fill, in cents, with its
	// transaction on the sandbox's explorer; and its order's page.
	b.Open("/fills")
	b.See("Will the dashboard ship this week", "BUY", "¢")
	tx := dashboardtest.Run(b, chromedp.Evaluate[string](`(document.querySelector('#fills-table td[data-label="Transaction"] a') || {}).href || ''`))
	if !strings.HasPrefix(tx, e.sb.URL()+"/explorer/tx/0x") {
		t.Fatalf("the fill's transaction links to %q, not the sandbox's explorer", tx)
	}
	if body := httpGetBody(t, tx); !strings.Contains(body, "Sandbox chain explorer") || !strings.Contains(body, "success") {
		t.Fatalf("the explorer page of %s: %s", tx, body)
	}
	b.VisibleAtPhone(`#fills-table td[data-label="Price"]`, `#fills-table td[data-label="Size"]`, `#fills-table td[data-label="Fee"]`, `#fills-table td[data-label="Transaction"]`)
	b.Screenshot("fills")
	b.Click(`#fills-table td[data-label="Market"] a`, "/orders/ord_")
	b.See("Lifecycle", "filled", "Fills", "research-agent")
	b.Screenshot("order")

	// Positions across agents, at a phone's width: price, value and P&L
	// on the card.
	b.Open("/positions")
	b.See("Will the dashboard ship this week")
	b.VisibleAtPhone(`#positions-table td[data-label="Price"]`, `#positions-table td[data-label="Value"]`, `#positions-table td[data-label="P&L"]`)

	// Notifications to a webhook: the settings page gives a signing
	// secret; a fill is posted, signed, to the receiver, and logged.
	hook := newWebhookReceiver(t)
	b.Open("/notifications")
	b.Fill("webhook_url", hook.srv.URL+"/hook")
	b.Click("#notify-save", "/notifications?done=notifications")
	b.See("Notification settings saved")
	hookSecret := b.Text("#webhook-secret")
	if !strings.HasPrefix(hookSecret, "whsec_") {
		t.Fatalf("signing secret %q", hookSecret)
	}
	e.agentData(t, apiKey, "POST", "/orders", map[string]any{"tokenId": m.TokenIDs[0], "side": "BUY", "price": 0.55, "size": 5, "type": "MARKET"}, http.StatusOK, &placed)
	filled := placed.Order
	got := hook.await(t, "fill")
	if err := notify.Verify(hookSecret, got.header.Get("X-ATS-Signature"), got.body, time.Now(), 5*time.Minute); err != nil {
		t.Fatalf("the webhook's signature does not verify: %v", err)
	}
	if err := notify.Verify("whsec_wrong", got.header.Get("X-ATS-Signature"), got.body, time.Now(), 5*time.Minute); err == nil {
		t.Fatal("the signature verifies under another secret")
	}
	var payload notify.Payload
	if err := json.Unmarshal(got.body, &payload); err != nil || payload.Type != "fill" || payload.Data["orderId"] != filled.ID ||
		!strings.HasPrefix(payload.URL, e.publicURL+"/orders/"+filled.ID) {
		t.Fatalf("the webhook's payload: %v %s", err, got.body)
	}
	b.Open("/notifications")
	// The delivery is recorded once the receiver answered, after the
	// hook above saw the request.
	b.SeeSoon("Bought", "Fills", "webhook delivered", "HTTP 200")
	b.Screenshot("notifications")

	// A strategy the agent creates over the API appears here, with its
	// agent. The user pauses it (by keyboard): the agent's heartbeat
	// reports the user's pause; resumes it; cancels it (confirmed): the
	// heartbeat reports that too. An operator account also gets the link
	// to the strategy's run in the Temporal Web UI.
	st := e.createStrategy(t, trader{key: apiKey}, map[string]any{"type": "PRICE_ALERT", "maxBudget": 2, "config": map[string]any{
		"tokenId": m.TokenIDs[0], "side": "BUY", "triggerCondition": "PRICE_LTE", "triggerPrice": 0.05, "size": 20}})
	b.Open("/strategies")
	b.See(st.ID, "research-agent", "Price alert", "active")
	b.FitsPhone()
	b.Screenshot("strategies")
	b.Open("/strategies?status=PAUSED")
	b.See("No strategies match")
	b.Open("/strategies")
	b.Click(`a[href="/strategies/`+st.ID+`"]`, "/strategies/"+st.ID)
	b.See("Price and executions", "Trigger price", "Will the dashboard ship this week", "research-agent")
	if n := dashboardtest.Run(b, chromedp.Evaluate[int](`document.querySelectorAll('svg.chart-wide path.line').length`)); n != 1 {
		t.Fatalf("the strategy chart has %d price lines", n)
	}
	ui := dashboardtest.Run(b, chromedp.Evaluate[string](`document.getElementById('temporal-link').href`))
	if want := browserTemporalUI + "/namespaces/default/workflows?query=" + url.QueryEscape(`WorkflowId="`+st.ID+`"`); ui != want {
		t.Fatalf("Temporal Web UI link %q, want %q", ui, want)
	}
	b.FitsPhone()
	b.TabTo("strategy-pause")
	b.Press("/strategies/" + st.ID + "?done=strategy-paused")
	b.See("Strategy paused", "Paused by user")
	strategyAction := func(want string) {
		t.Helper()
		for _, a := range e.heartbeat(t, apiKey, "").Actions {
			if a.Type == want {
				return
			}
		}
		t.Fatalf("the heartbeat does not report %s", want)
	}
	strategyAction("STRATEGY_PAUSED")
	b.Click("#strategy-resume", "/strategies/"+st.ID+"?done=strategy-resumed")
	b.See("Strategy resumed")
	b.Click("#strategy-cancel", "/strategies/"+st.ID+"/confirm/cancel")
	b.Click("#confirm-submit", "/strategies/"+st.ID+"?done=strategy-cancelled")
	b.See("Strategy cancelled", "cancelled")
	strategyAction("STRATEGY_CANCELLED")

	// For the docs: a strategy that trades, with its executions on the
	// chart, and running on the overview. Whether the book lets it buy
	// within the agent's 5 USDC budget is the market's business, so the
	// page is taken either way after a short wait.
	e.withStrategyFeed(t)
	band := e.createStrategy(t, trader{key: apiKey}, map[string]any{"type": "BUY_LOW_SELL_HIGH", "maxBudget": 3, "config": map[string]any{
		"tokenId": m.TokenIDs[0], "buyBelow": 0.56, "sellAbove": 0.9, "sizePerTrade": 5}})
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if _, body := e.call(t, apiKey, "GET", "/strategies/"+band.ID, nil); len(dataStrategy(t, body).Executions) > 0 {
			break
		}
	}
	b.Open("/strategies/" + band.ID)
	b.See("Buy low, sell high")
	b.Screenshot("strategy")

	// The pages with data, for the docs.
	b.Open("/")
	b.See("research-agent", "Will the dashboard ship this week")
	b.Screenshot("overview")
	b.Open("/agents")
	b.Screenshot("agents")
	b.Open("/positions?agent=" + agentID)
	b.Screenshot("positions")
	b.Open("/audit")
	b.See("Agent paused", "Sign-in", "Wallet imported", "Budget: Fixed limit $5.00 (was $25.00)", "Agent research-agent · Fixed limit $25.00")
	b.ScreenshotTop("activity")
	b.Open("/security")
	b.See("sandbox", "7 of 10 backup codes left")
	b.Screenshot("security")

	// Sign in with GitHub, through the sandbox's GitHub: a new verified
	// address creates an account once the person confirms.
	signOut()
	b.Open("/signin")
	b.Click("#oidc-github", "/github/login/oauth/authorize")
	b.Fill("gh-email", "octo@sandbox.test")
	b.Click("#github-authorize", "/auth/identity")
	b.See("GitHub", "octo@sandbox.test", "No account uses this email yet")
	b.Click("#identity-create", "/?done=welcome")
	if who := b.Text(".who"); !strings.Contains(who, "octo@sandbox.test") {
		t.Fatalf("signed in with GitHub as %q", who)
	}
}

// notFoundPages: a browser asking for a page that does not exist, or with
// a method a page does not take, gets an HTML page with the status; an
// API client gets the JSON envelope.
func notFoundPages(t *testing.T, base string) {
	t.Helper()
	for _, tc := range []struct {
		method, path, accept string
		status               int
		want                 string
	}{
		{"GET", "/no/such/page", "text/html,application/xhtml+xml", http.StatusNotFound, "Page not found"},
		{"DELETE", "/orders", "text/html", http.StatusMethodNotAllowed, "This page does not take that request"},
		{"GET", "/no/such/page", "application/json", http.StatusNotFound, `"success":false`},
		{"GET", "/api/agent/v1/nothing", "text/html", http.StatusNotFound, `"success":false`},
	} {
		req, _ := http.NewRequest(tc.method, base+tc.path, nil)
		req.Header.Set("Accept", tc.accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || !strings.Contains(string(b), tc.want) {
			t.Errorf("%s %s (Accept %s): %d %s", tc.method, tc.path, tc.accept, resp.StatusCode, b)
		}
		if strings.HasPrefix(tc.accept, "text/html") && !strings.HasPrefix(tc.path, "/api/") &&
			!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Errorf("%s %s: content type %s", tc.method, tc.path, resp.Header.Get("Content-Type"))
		}
	}
}

func httpGetBody(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// webhookReceiver is a test's webhook endpoint: it records every post.
type webhookReceiver struct {
	srv   *httptest.Server
	posts chan webhookPost
}

type webhookPost struct {
	header http.Header
	body   []byte
}

func newWebhookReceiver(t *testing.T) *webhookReceiver {
	t.Helper()
	w := &webhookReceiver{posts: make(chan webhookPost, 64)}
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		select {
		case w.posts <- webhookPost{header: r.Header.Clone(), body: b}:
		default:
		}
		rw.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(w.srv.Close)
	return w
}

// await returns the first post of event (others are skipped).
func (w *webhookReceiver) await(t *testing.T, event string) webhookPost {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case p := <-w.posts:
			if p.header.Get("X-ATS-Event") == event {
				return p
			}
		case <-deadline:
			t.Fatalf("no %s notification reached the webhook", event)
		}
	}
}

// The browser test's account is an operator of its server, whose Temporal
// Web UI is at browserTemporalUI (no UI runs: the test checks the link).
const (
	browserOperator   = "trader@sandbox.test"
	browserTemporalUI = "http://localhost:8233"
)

func totpCode(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCode(secret, at)
	if err != nil {
		t.Fatal(err)
	}
	return c
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
