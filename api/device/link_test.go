package device_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/device"
	"github.com/agent-trading/ats/api/ratelimit"
	"github.com/agent-trading/ats/api/ratelimit/redistest"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/throttle"
	"github.com/agent-trading/ats/models/users"
)

// recorderLinker applies decisions through the real Recorder without a
// Temporal server, so the page's own rules (CSRF, passwords, limits) are
// tested on every run; the workflow path is TestDeviceFlowOnDevServer.
type recorderLinker struct{ rec *agents.Recorder }

func (recorderLinker) StartDeviceLink(context.Context, string, time.Time) error { return nil }
func (recorderLinker) DeviceKeyIssued(context.Context, string) error            { return nil }
func (l recorderLinker) ApproveDeviceLink(ctx context.Context, id, user, addr string) (string, error) {
	return l.rec.ApproveDeviceLink(ctx, id, user, addr)
}
func (l recorderLinker) DenyDeviceLink(ctx context.Context, id, user, addr string) error {
	return l.rec.DenyDeviceLink(ctx, id, user, addr)
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
		svc := &agents.Service{Store: s, Linker: recorderLinker{&agents.Recorder{Store: s}}, Users: us, BaseURL: "http://x"}
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
		good := url.Values{"code": {a.UserCode}, "email": {"page@example.com"}, "password": {password}, "action": {"approve"}}

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
			{"no action", same, url.Values{"code": {a.UserCode}}, 400, "Choose Approve or Deny"},
			{"two-factor account", same, url.Values{"code": {a.UserCode}, "email": {"tfa@example.com"}, "password": {password}, "action": {"approve"}}, 403, "two-factor"},
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
		for i := range agents.DefaultMaxGuessFailures {
			bad := url.Values{"code": {"BCDF-GHJK"}, "email": {fmt.Sprintf("guess%d@example.com", i)}, "password": {"wrong password!"}, "action": {"approve"}}
			if status, _ := post(bad, same); status != 401 {
				t.Fatalf("failure %d: %d", i, status)
			}
		}
		if status, body := post(good, same); status != 429 || !strings.Contains(body, "too many failed attempts") {
			t.Fatalf("after 10 failures: %d %s", status, body)
		}

		// The GET form escapes what it echoes.
		resp, err := http.Get(hs.URL + "/link?code=%22%3E%3Cscript%3E")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || strings.Contains(string(b), "<script>") || resp.Header.Get("X-Frame-Options") != "DENY" {
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
	svc := &agents.Service{Store: s, Linker: recorderLinker{&agents.Recorder{Store: s}}, Users: us, BaseURL: "http://x"}
	l := ratelimit.New(ratelimit.NewMemoryStore(), ratelimit.Options{})
	const limit = 4
	h := api.New(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{Routes: []api.Routes{
		device.Routes(svc, device.Config{Limit: ratelimit.PerClientIP(l.Scope("device"), limit)}),
	}})
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
		if w.Code != 200 || w.Header().Get(ratelimit.HeaderLimit) != fmt.Sprint(limit) ||
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
func linkInstance(t *testing.T, s *store.Store, attempts throttle.Counter) (http.Handler, *agents.Service) {
	t.Helper()
	us := cheapUsers(s, nil)
	us.Attempts = attempts
	svc := &agents.Service{Store: s, Linker: recorderLinker{&agents.Recorder{Store: s}}, Users: us, BaseURL: "http://x", Attempts: attempts}
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

func wrongPassword(email string) url.Values {
	return url.Values{"code": {"BCDF-GHJK"}, "email": {email}, "password": {"not the password"}, "action": {"approve"}}
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
	approve := func(t *testing.T, svc *agents.Service) url.Values {
		t.Helper()
		a, err := svc.RequestDevice(ctx, "guessed bot", "192.0.2.50")
		if err != nil {
			t.Fatal(err)
		}
		return url.Values{"code": {a.UserCode}, "email": {"owner@example.com"}, "password": {password}, "action": {"approve"}}
	}
	refused := func(t *testing.T, w *httptest.ResponseRecorder, what string) {
		t.Helper()
		if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" || !strings.Contains(w.Body.String(), "too many failed attempts") {
			t.Fatalf("%s: %d %v\n%s", what, w.Code, w.Header(), w.Body)
		}
	}

	t.Run("rotating IPv6 addresses of one /64", func(t *testing.T) {
		h, svc := linkInstance(t, s, throttle.NewMemory(nil))
		for i := range users.MaxAddrFailures {
			if w := submit(h, fmt.Sprintf("2001:db8:77:1::%x", i+1), wrongPassword(fmt.Sprintf("g%d@example.com", i))); w.Code != 401 {
				t.Fatalf("guess %d: %d", i+1, w.Code)
			}
		}
		good := approve(t, svc)
		refused(t, submit(h, "2001:db8:77:1:aaaa:bbbb:cccc:dddd", good), "the right password from the same /64")
		if w := submit(h, "2001:db8:77:2::1", good); w.Code != 200 || !strings.Contains(w.Body.String(), "Approved") {
			t.Fatalf("from another /64: %d %s", w.Code, w.Body)
		}
	})

	t.Run("one account from many addresses", func(t *testing.T) {
		h, svc := linkInstance(t, s, throttle.NewMemory(nil))
		for i := range users.FreeAccountFailures {
			if w := submit(h, fmt.Sprintf("198.51.100.%d", i+1), wrongPassword("owner@example.com")); w.Code != 401 {
				t.Fatalf("guess %d: %d", i+1, w.Code)
			}
		}
		w := submit(h, "203.0.113.200", approve(t, svc))
		refused(t, w, "the account's right password after 5 failures")
		if w.Header().Get("Retry-After") != "30" {
			t.Fatalf("Retry-After %q, want the 30 s base backoff", w.Header().Get("Retry-After"))
		}
	})

	t.Run("two instances on one Redis", func(t *testing.T) {
		srv := redistest.Start(t)
		instance := func() (http.Handler, *agents.Service) {
			rs, err := ratelimit.NewRedisStore(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = rs.Close() })
			return linkInstance(t, s, ratelimit.New(rs, ratelimit.Options{}).Scope("attempts").Failures())
		}
		ha, svcA := instance()
		hb, _ := instance()
		both := []http.Handler{ha, hb}
		// The account's guesses alternate between the instances.
		for i := range users.FreeAccountFailures {
			if w := submit(both[i%2], fmt.Sprintf("198.51.100.%d", 100+i), wrongPassword("owner@example.com")); w.Code != 401 {
				t.Fatalf("guess %d: %d", i+1, w.Code)
			}
		}
		good := approve(t, svcA)
		refused(t, submit(ha, "203.0.113.201", good), "instance A after guesses on both")
		refused(t, submit(hb, "203.0.113.202", good), "instance B after guesses on both")
		// So do one network's guesses at other accounts.
		for i := range users.MaxAddrFailures {
			if w := submit(both[i%2], fmt.Sprintf("2001:db8:88:1::%x", i+1), wrongPassword(fmt.Sprintf("r%d@example.com", i))); w.Code != 401 {
				t.Fatalf("network guess %d: %d", i+1, w.Code)
			}
		}
		refused(t, submit(hb, "2001:db8:88:1::ffff", wrongPassword("r99@example.com")), "the /64 after guesses on both instances")
	})
}
