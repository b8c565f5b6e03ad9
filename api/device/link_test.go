package device_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/device"
	"github.com/agent-trading/ats/api/openapi/openapitest"
	"github.com/agent-trading/ats/api/ratelimit"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
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

func TestLinkPage(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		us := &users.Service{Store: s, Audit: &audit.Service{Store: s},
			Argon2: secret.Argon2Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1, SaltLen: 16, KeyLen: 32}}
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

		// Wrong passwords from one address: 10 failures, then 429.
		bad := url.Values{"code": {"BCDF-GHJK"}, "email": {"page@example.com"}, "password": {"wrong password!"}, "action": {"approve"}}
		for i := range agents.DefaultMaxGuessFailures {
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
	us := &users.Service{Store: s, Audit: &audit.Service{Store: s},
		Argon2: secret.Argon2Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1, SaltLen: 16, KeyLen: 32}}
	svc := &agents.Service{Store: s, Linker: recorderLinker{&agents.Recorder{Store: s}}, Users: us, BaseURL: "http://x"}
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
