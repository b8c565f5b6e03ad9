package device_test

import (
	"context"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/device"
	"github.com/agent-trading/ats/api/openapi/openapitest"
	"github.com/agent-trading/ats/api/ratelimit"
	"github.com/agent-trading/ats/api/ratelimit/redistest"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/agents/agentstest"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/intent/intenttest"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/throttle"
	"github.com/agent-trading/ats/models/users"
	"github.com/agent-trading/ats/workflows"
)

// recorderLinks is the device flow of svc with decisions recorded without
// Temporal; the workflow path is TestDeviceFlowOnDevServer.
func recorderLinks(t *testing.T, svc *agents.Service) *workflows.DeviceLinks {
	return &workflows.DeviceLinks{Agents: svc, Runs: agentstest.RecorderRuns{Rec: &agents.Recorder{Store: svc.Store, Intents: intenttest.Keys(t)}}}
}

// cheapUsers is the users service with cheap password hashing and its
// own failure counter (on clock now; nil = time.Now), so that no test
// shares attempts with another.
func cheapUsers(s *store.Store, now func() time.Time) *users.Service {
	return &users.Service{Store: s, Audit: &audit.Service{Store: s}, Attempts: throttle.NewMemory(now),
		Argon2: secret.Argon2Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1, SaltLen: 16, KeyLen: 32}}
}

func TestLinkPage(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		us := cheapUsers(s, nil)
		u, err := us.Create(ctx, "page@example.com", password)
		if err != nil {
			t.Fatal(err)
		}
		tfa, err := us.Create(ctx, "tfa@example.com", password)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.DB().Model(&models.User{}).Where("id = ?", tfa.ID).Update("totp_enabled", true).Error; err != nil {
			t.Fatal(err)
		}
		svc := recorderLinks(t, &agents.Service{Store: s, Users: us, BaseURL: "http://x"})
		hs := httptest.NewServer(api.New(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{Routes: []api.Routes{device.Routes(svc, device.Config{})}}))
		defer hs.Close()

		post := func(v url.Values, hdr map[string]string) (int, string) {
			req, _ := http.NewRequest("POST", hs.URL+"/link", strings.NewReader(v.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			for k, x := range hdr {
				req.Header.Set(k, x)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		same := map[string]string{"Origin": hs.URL}
		a, err := svc.RequestDevice(ctx, "page bot", "1.2.3.4")
		if err != nil {
			t.Fatal(err)
		}
		confirm := confirmOf(t, hs.URL, a.UserCode)
		good := url.Values{"code": {a.UserCode}, "confirm": {confirm}, "email": {"page@example.com"}, "password": {password}, "action": {"approve"}}

		for _, tc := range []struct {
			name   string
			hdr    map[string]string
			form   url.Values
			status int
			text   string
		}{
			{"no origin", nil, good, 403, "submitted from the link page"},
			{"foreign origin", map[string]string{"Origin": "http://evil.example"}, good, 403, "submitted from the link page"},
			{"foreign referer", map[string]string{"Referer": "http://evil.example/link"}, good, 403, "submitted from the link page"},
			{"cross-site fetch", map[string]string{"Origin": hs.URL, "Sec-Fetch-Site": "cross-site"}, good, 403, "submitted from the link page"},
			{"no action", same, url.Values{"code": {a.UserCode}, "confirm": {confirm}}, 400, "Choose Approve or Deny"},
			{"two-factor account", same, url.Values{"code": {a.UserCode}, "confirm": {confirm}, "email": {"tfa@example.com"}, "password": {password}, "action": {"approve"}}, 403, "two-factor"},
			{"same-origin referer approves", map[string]string{"Referer": hs.URL + "/link?code=x"}, good, 200, "Approved"},
			{"used code", same, good, 409, "already been used"},
		} {
			status, body := post(tc.form, tc.hdr)
			if status != tc.status || !strings.Contains(body, tc.text) {
				t.Errorf("%s: %d, want %d with %q:\n%s", tc.name, status, tc.status, tc.text, body)
			}
		}
		l, err := s.DeviceLinkByUserCode(ctx, a.UserCode)
		if err != nil || l.Status != models.DeviceLinkApproved || *l.UserID != u.ID {
			t.Fatalf("link %+v %v", l, err)
		}

		// Wrong passwords from one address: 10 failures, then 429. (Each
		// for another account: one account is locked sooner, see
		// TestLinkPasswordGuessing.)
		other, err := svc.RequestDevice(ctx, "another bot", "1.2.3.4")
		if err != nil {
			t.Fatal(err)
		}
		next := url.Values{"code": {other.UserCode}, "confirm": {confirmOf(t, hs.URL, other.UserCode)}, "email": {"page@example.com"}, "password": {password}, "action": {"approve"}}
		for i := range agents.DefaultMaxGuessFailures {
			bad := url.Values{"code": {other.UserCode}, "confirm": next["confirm"], "email": {fmt.Sprintf("guess%d@example.com", i)}, "password": {"wrong password!"}, "action": {"approve"}}
			if status, _ := post(bad, same); status != 401 {
				t.Fatalf("failure %d: %d", i, status)
			}
		}
		if status, body := post(next, same); status != 429 || !strings.Contains(body, "too many failed attempts") {
			t.Fatalf("after 10 failures: %d %s", status, body)
		}

		// The GET form escapes what it echoes (a code that cannot be one is
		// unknown).
		resp, err := http.Get(hs.URL + "/link?code=%22%3E%3Cscript%3E")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 404 || !strings.Contains(string(b), "unknown code") || strings.Contains(string(b), "<script>") ||
			resp.Header.Get("X-Frame-Options") != "DENY" {
			t.Fatalf("form: %d %s", resp.StatusCode, b)
		}
	})
}

// The device endpoints and both methods of the /link page count against
// one per-address budget: a page that could be fetched without limit would
// let a client probe codes (GET /link?code=…) or load the server freely.
func TestDeviceRoutesRateLimitedPerAddress(t *testing.T) {
	s := storetest.NewSQLite(t)
	us := cheapUsers(s, nil)
	svc := recorderLinks(t, &agents.Service{Store: s, Users: us, BaseURL: "http://x"})
	l := ratelimit.New(ratelimit.NewMemoryStore(), ratelimit.Options{})
	const limit = 4
	h := openapitest.Handler(t, api.New(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{Routes: []api.Routes{
		device.Routes(svc, device.Config{Limit: ratelimit.PerClientIP(l.Scope("device"), limit)}),
	}}))
	do := func(method, path, addr string) *httptest.ResponseRecorder {
		var body io.Reader
		if method == "POST" {
			body = strings.NewReader(url.Values{"action": {"approve"}}.Encode())
		}
		req := httptest.NewRequest(method, path, body)
		req.RemoteAddr = addr + ":40000"
		if method == "POST" {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	for i := range limit {
		w := do("GET", "/link?code=BCDF-GHJK", "10.1.1.1")
		if w.Code != http.StatusNotFound || // an unknown code, shown as such
			w.Header().Get(ratelimit.HeaderLimit) != fmt.Sprint(limit) ||
			w.Header().Get(ratelimit.HeaderRemaining) != fmt.Sprint(limit-1-i) {
			t.Fatalf("GET /link #%d: %d, headers %v", i+1, w.Code, w.Header())
		}
	}
	for _, r := range []struct{ method, path string }{
		{"GET", "/link"}, {"POST", "/link"}, {"GET", "/api/auth/device/token?device_code=x"}, {"POST", "/api/auth/device"},
	} {
		w := do(r.method, r.path, "10.1.1.1")
		if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" || !strings.Contains(w.Body.String(), `"retryAfter"`) {
			t.Errorf("%s %s over the limit: %d %v %s", r.method, r.path, w.Code, w.Header(), w.Body)
		}
	}
	// Another address has its own budget.
	if w := do("GET", "/link", "10.2.2.2"); w.Code != 200 {
		t.Fatalf("GET /link from another address: %d", w.Code)
	}
}

// linkInstance is one API instance serving /link whose failure counters
// are attempts (shared with other instances when it is a Redis counter).
func linkInstance(t *testing.T, s *store.Store, attempts throttle.Counter) (http.Handler, *workflows.DeviceLinks) {
	t.Helper()
	us := cheapUsers(s, nil)
	us.Attempts = attempts
	svc := recorderLinks(t, &agents.Service{Store: s, Users: us, BaseURL: "http://x", Attempts: attempts})
	return api.New(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{Routes: []api.Routes{device.Routes(svc, device.Config{})}}), svc
}

// submit posts the /link form to h from client address addr, as the page
// itself would (same origin).
func submit(h http.Handler, addr string, form url.Values) *httptest.ResponseRecorder {
	req := httptest.NewRequest("POST", "/link", strings.NewReader(form.Encode()))
	req.RemoteAddr = net.JoinHostPort(addr, "40000")
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://"+req.Host)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// confirmRE finds the confirm token on the confirmation page.
var confirmRE = regexp.MustCompile(`name="confirm" value="([A-Za-z0-9_-]+)"`)

// confirmOf opens the confirmation page of code on the server at base and
// returns its confirm token.
func confirmOf(t *testing.T, base, code string) string {
	t.Helper()
	resp, err := http.Get(base + "/link?code=" + url.QueryEscape(code))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	m := confirmRE.FindSubmatch(b)
	if resp.StatusCode != 200 || m == nil {
		t.Fatalf("confirmation page of %s: %d %s", code, resp.StatusCode, b)
	}
	return string(m[1])
}

// pendingReview is a fresh pending link of svc and its review.
func pendingReview(t *testing.T, svc *workflows.DeviceLinks) agents.LinkReview {
	t.Helper()
	ctx := context.Background()
	a, err := svc.RequestDevice(ctx, "guessed bot", "192.0.2.50")
	if err != nil {
		t.Fatal(err)
	}
	r, err := svc.Agents.ReviewDevice(ctx, a.UserCode, "192.0.2.50")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// decide is the form of a decision on r's link as email.
func decide(r agents.LinkReview, email, pw string) url.Values {
	return url.Values{"code": {r.UserCode}, "confirm": {r.Confirm}, "email": {email}, "password": {pw}, "action": {"approve"}}
}

// TestLinkPasswordGuessing performs the /link guessing attacks over HTTP:
// rotating IPv6 addresses within one /64 (one account each) is limited
// like one address; guessing one account's password from ever new
// addresses locks the account with a backoff (429, Retry-After) that even
// its right password does not pass; and with two API instances on one
// Redis, spreading the guesses over both gains nothing.
func TestLinkPasswordGuessing(t *testing.T) {
	s := storetest.NewSQLite(t)
	ctx := context.Background()
	if _, err := cheapUsers(s, nil).Create(ctx, "owner@example.com", password); err != nil {
		t.Fatal(err)
	}
	refused := func(t *testing.T, w *httptest.ResponseRecorder, what string) {
		t.Helper()
		if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" || !strings.Contains(w.Body.String(), "too many failed attempts") {
			t.Fatalf("%s: %d %v\n%s", what, w.Code, w.Header(), w.Body)
		}
	}

	t.Run("rotating IPv6 addresses of one /64", func(t *testing.T) {
		h, svc := linkInstance(t, s, throttle.NewMemory(nil))
		r := pendingReview(t, svc)
		for i := range users.MaxAddrFailures {
			if w := submit(h, fmt.Sprintf("2001:db8:77:1::%x", i+1), decide(r, fmt.Sprintf("g%d@example.com", i), "not it")); w.Code != 401 {
				t.Fatalf("guess %d: %d", i+1, w.Code)
			}
		}
		good := decide(r, "owner@example.com", password)
		refused(t, submit(h, "2001:db8:77:1:aaaa:bbbb:cccc:dddd", good), "the right password from the same /64")
		if w := submit(h, "2001:db8:77:2::1", good); w.Code != 200 || !strings.Contains(w.Body.String(), "Approved") {
			t.Fatalf("from another /64: %d %s", w.Code, w.Body)
		}
	})

	t.Run("one account from many addresses", func(t *testing.T) {
		h, svc := linkInstance(t, s, throttle.NewMemory(nil))
		r := pendingReview(t, svc)
		for i := range users.FreeAccountFailures {
			if w := submit(h, fmt.Sprintf("198.51.100.%d", i+1), decide(r, "owner@example.com", "not it")); w.Code != 401 {
				t.Fatalf("guess %d: %d", i+1, w.Code)
			}
		}
		w := submit(h, "203.0.113.200", decide(r, "owner@example.com", password))
		refused(t, w, "the account's right password after 5 failures")
		if w.Header().Get("Retry-After") != "30" {
			t.Fatalf("Retry-After %q, want the 30 s base backoff", w.Header().Get("Retry-After"))
		}
	})

	t.Run("two instances on one Redis", func(t *testing.T) {
		srv := redistest.Start(t)
		keys := intenttest.Keys(t, 0x17) // every instance derives them from the one master key
		instance := func() (http.Handler, *workflows.DeviceLinks) {
			rs, err := ratelimit.NewRedisStore(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = rs.Close() })
			h, svc := linkInstance(t, s, ratelimit.New(rs, ratelimit.Options{}).Scope("attempts").Failures())
			svc.Agents.Intents = keys
			return h, svc
		}
		ha, svcA := instance()
		hb, _ := instance()
		both := []http.Handler{ha, hb}
		r := pendingReview(t, svcA)
		// The account's guesses alternate between the instances.
		for i := range users.FreeAccountFailures {
			if w := submit(both[i%2], fmt.Sprintf("198.51.100.%d", 100+i), decide(r, "owner@example.com", "not it")); w.Code != 401 {
				t.Fatalf("guess %d: %d %s", i+1, w.Code, w.Body)
			}
		}
		good := decide(r, "owner@example.com", password)
		refused(t, submit(ha, "203.0.113.201", good), "instance A after guesses on both")
		refused(t, submit(hb, "203.0.113.202", good), "instance B after guesses on both")
		// So do one network's guesses at other accounts.
		for i := range users.MaxAddrFailures {
			if w := submit(both[i%2], fmt.Sprintf("2001:db8:88:1::%x", i+1), decide(r, fmt.Sprintf("r%d@example.com", i), "not it")); w.Code != 401 {
				t.Fatalf("network guess %d: %d", i+1, w.Code)
			}
		}
		refused(t, submit(hb, "2001:db8:88:1::ffff", decide(r, "r99@example.com", "not it")), "the /64 after guesses on both instances")
	})
}

// TestLinkConfirmation is the remote-phishing case of RFC 8628 section
// 5.4: someone sends the user a verification_uri_complete of their own
// agent. Opening it decides nothing: it shows which agent asks, when, from
// which address (next to the user's own) and with which scopes, and warns.
// The pre-filled code with the user's password, posted without that
// page's confirm token (or with another link's), approves nothing; only
// the confirmation page's own form does.
func TestLinkConfirmation(t *testing.T) {
	s := storetest.NewSQLite(t)
	ctx := context.Background()
	h, svc := linkInstance(t, s, throttle.NewMemory(nil))
	if _, err := svc.Agents.Users.Create(ctx, "victim@example.com", password); err != nil {
		t.Fatal(err)
	}
	phish, err := svc.RequestDevice(ctx, "helpful assistant", "198.51.100.66")
	if err != nil {
		t.Fatal(err)
	}
	other, err := svc.RequestDevice(ctx, "other bot", "198.51.100.67")
	if err != nil {
		t.Fatal(err)
	}
	status := func() string {
		t.Helper()
		l, err := s.DeviceLinkByUserCode(ctx, phish.UserCode)
		if err != nil {
			t.Fatal(err)
		}
		return l.Status
	}

	u, err := url.Parse(phish.VerificationURIComplete)
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("GET", u.RequestURI(), nil)
	req.RemoteAddr = "203.0.113.5:443"
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	page := w.Body.String()
	for _, want := range []string{
		"helpful assistant", phish.UserCode, "198.51.100.66", "you are connecting from 203.0.113.5",
		"Approve only if you started linking this agent yourself", "just now",
		"read</strong>: " + agents.ScopeDescriptions[agents.ScopeRead], "trade</strong>: " + html.EscapeString(agents.ScopeDescriptions[agents.ScopeTrade]),
		"cancel</strong>", "redeem</strong>", `name="confirm"`, "Approve helpful assistant",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the confirmation page lacks %q", want)
		}
	}
	if w.Code != 200 || t.Failed() {
		t.Fatalf("GET %s: %d\n%s", u.RequestURI(), w.Code, page)
	}
	if st := status(); st != models.DeviceLinkPending {
		t.Fatalf("opening the link made it %s", st)
	}
	confirm := confirmRE.FindStringSubmatch(page)[1]

	withConfirm := func(token string) url.Values {
		return url.Values{"code": {phish.UserCode}, "confirm": {token}, "email": {"victim@example.com"}, "password": {password}, "action": {"approve"}}
	}
	otherReview, err := svc.Agents.ReviewDevice(ctx, other.UserCode, "203.0.113.5")
	if err != nil {
		t.Fatal(err)
	}
	for name, token := range map[string]string{"no confirm token": "", "another link's token": otherReview.Confirm, "a made-up token": "AAAA" + confirm[4:]} {
		w := submit(h, "203.0.113.5", withConfirm(token))
		if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "review the request on the link page") {
			t.Fatalf("%s: %d %s", name, w.Code, w.Body)
		}
		if st := status(); st != models.DeviceLinkPending {
			t.Fatalf("%s approved the link (%s)", name, st)
		}
	}
	if w := submit(h, "203.0.113.5", withConfirm(confirm)); w.Code != 200 || !strings.Contains(w.Body.String(), html.EscapeString(`Agent "helpful assistant" is linked`)) {
		t.Fatalf("the confirmation page's own form: %d %s", w.Code, w.Body)
	}
	if st := status(); st != models.DeviceLinkApproved {
		t.Fatalf("after the confirmed approval the link is %s", st)
	}

	// Unknown codes on the page count as guesses from the address.
	for i := range agents.DefaultMaxGuessFailures {
		req := httptest.NewRequest("GET", fmt.Sprintf("/link?code=BCDF-GH%c%c", "BCDFGHJKMNPQ"[i], 'K'), nil)
		req.RemoteAddr = "192.0.2.99:1"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusNotFound {
			t.Fatalf("unknown code %d: %d", i+1, w.Code)
		}
	}
	req = httptest.NewRequest("GET", "/link?code="+other.UserCode, nil)
	req.RemoteAddr = "192.0.2.99:1"
	w = httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusTooManyRequests {
		t.Fatalf("after %d unknown codes: %d", agents.DefaultMaxGuessFailures, w.Code)
	}
}
