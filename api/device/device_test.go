package device_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/agentauth"
	"github.com/agent-trading/ats/api/device"
	"github.com/agent-trading/ats/api/logging"
	"github.com/agent-trading/ats/api/openapi/openapitest"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/intent"
	"github.com/agent-trading/ats/models/intent/intenttest"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/users"
	"github.com/agent-trading/ats/worker"
	"github.com/agent-trading/ats/worker/codec"
	"github.com/agent-trading/ats/worker/devserver"
	"github.com/agent-trading/ats/worker/devserver/devservertest"
	"github.com/agent-trading/ats/worker/replaytest"
	"github.com/agent-trading/ats/workflows"
)

// syncBuffer collects every log line of the test (API, store, worker).
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type env struct {
	t      *testing.T
	store  *store.Store
	svc    *agents.Service
	links  *workflows.DeviceLinks
	clk    *clock
	srv    *httptest.Server
	tc     client.Client // codec-aware
	raw    client.Client // sees what the Temporal server stores
	logs   *syncBuffer
	email  string
	userID string
}

const password = "correct horse battery"

// newEnv starts the Temporal dev server (TEMPORAL_CLI), a worker with the
// real activities, a SQLite store and the HTTP server with the device and
// agent routes.
func newEnv(t *testing.T) *env {
	t.Helper()
	bin := devservertest.Binary(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	logs := &syncBuffer{}
	logger := logging.NewLogger(logs, slog.LevelDebug, true)

	srv, err := devserver.Start(ctx, devserver.Options{Binary: bin, UIPort: -1, LogLevel: "error"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	tc, err := worker.Dial(ctx, worker.ClientConfig{HostPort: srv.FrontendAddr(), CodecKey: replaytest.HistoryCodecKey, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tc.Close)
	raw, err := client.DialContext(ctx, client.Options{HostPort: srv.FrontendAddr()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(raw.Close)

	st, err := store.Open(ctx, store.Config{DataDir: t.TempDir(), Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	keys := intenttest.Keys(t)
	w, err := worker.NewWithLogger(tc, worker.Deps{Housekeeper: st, DeviceLinks: &agents.Recorder{Store: st, Intents: keys}}, logger)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)

	aud := &audit.Service{Store: st}
	us := &users.Service{Store: st, Audit: aud, Argon2: secret.Argon2Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1, SaltLen: 16, KeyLen: 32}}
	email := "owner@example.com"
	u, err := us.Create(ctx, email, password)
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{t: time.Now().UTC()}
	svc := &agents.Service{Store: st, Users: us, Now: clk.Now}
	links := &workflows.DeviceLinks{Agents: svc, Runs: workflows.DeviceLinkClient{Client: tc, Intents: keys}}
	server := api.NewServer(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{
		Logger: logger,
		Routes: []api.Routes{device.Routes(links, device.Config{}), agentauth.Routes(agentauth.Middleware(st, nil))},
	})
	hs := httptest.NewServer(openapitest.Handler(t, server))
	t.Cleanup(hs.Close)
	svc.BaseURL = hs.URL
	return &env{t: t, store: st, svc: svc, links: links, clk: clk, srv: hs, tc: tc, raw: raw, logs: logs, email: email, userID: u.ID}
}

type reply struct {
	status int
	body   map[string]any
	raw    string
}

func (e *env) do(method, path, key string, body io.Reader, hdr map[string]string) reply {
	e.t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := reply{status: resp.StatusCode, raw: string(b)}
	_ = json.Unmarshal(b, &r.body)
	return r
}

func (e *env) requestLink(name string) agents.DeviceAuthorization {
	e.t.Helper()
	r := e.do("POST", "/api/auth/device", "", strings.NewReader(fmt.Sprintf(`{"agent_name":%q}`, name)), map[string]string{"Content-Type": "application/json"})
	if r.status != 200 || r.body["success"] != true {
		e.t.Fatalf("POST /api/auth/device = %d %s", r.status, r.raw)
	}
	var out struct{ Data agents.DeviceAuthorization }
	if err := json.Unmarshal([]byte(r.raw), &out); err != nil {
		e.t.Fatal(err)
	}
	return out.Data
}

func (e *env) poll(code string) reply {
	e.t.Helper()
	return e.do("GET", "/api/auth/device/token?device_code="+url.QueryEscape(code), "", nil, nil)
}

func wantRFC(t *testing.T, r reply, code string) {
	t.Helper()
	if r.status != http.StatusBadRequest || r.body["success"] != false || r.body["error"] != code || r.body["message"] == "" {
		t.Fatalf("got %d %s, want 400 error %q", r.status, r.raw, code)
	}
}

func (e *env) me(key string) reply {
	e.t.Helper()
	return e.do("GET", "/api/agent/v1/me", key, nil, nil)
}

func (e *env) linkForm(v url.Values, origin string) reply {
	e.t.Helper()
	hdr := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	if origin != "" {
		hdr["Origin"] = origin
	}
	return e.do("POST", "/link", "", strings.NewReader(v.Encode()), hdr)
}

func TestDeviceFlowOnDevServer(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()

	t.Run("validation", func(t *testing.T) {
		for _, body := range []string{`{"agent_name":""}`, `{"agent_name":"bad<name>"}`, `{"agent_name":"` + strings.Repeat("x", 65) + `"}`, `{}`} {
			r := e.do("POST", "/api/auth/device", "", strings.NewReader(body), map[string]string{"Content-Type": "application/json"})
			if r.status != 400 || r.body["code"] != "invalid_agent_name" {
				t.Errorf("%s: %d %s", body, r.status, r.raw)
			}
		}
		wantRFC(t, e.do("GET", "/api/auth/device/token", "", nil, nil), "invalid_request")
		wantRFC(t, e.poll("nope"), errs.CodeInvalidGrant)
	})

	t.Run("pending and slow_down", func(t *testing.T) {
		a := e.requestLink("pending bot")
		if a.ExpiresIn != 900 || a.Interval != 5 || a.VerificationURIComplete != e.srv.URL+"/link?code="+a.UserCode {
			t.Fatalf("authorization %+v", a)
		}
		wantRFC(t, e.poll(a.DeviceCode), errs.CodeAuthorizationPending)
		wantRFC(t, e.poll(a.DeviceCode), errs.CodeSlowDown)
		e.clk.Advance(5 * time.Second)
		wantRFC(t, e.poll(a.DeviceCode), errs.CodeAuthorizationPending)
	})

	t.Run("expired", func(t *testing.T) {
		a := e.requestLink("late bot")
		e.clk.Advance(agents.DefaultDeviceCodeTTL)
		wantRFC(t, e.poll(a.DeviceCode), errs.CodeExpiredToken)
		if _, err := e.links.ApproveDeviceByEmail(ctx, e.email, a.UserCode, agents.ApprovalBudget{}); err == nil || !strings.Contains(err.Error(), "expired") {
			t.Fatalf("approval of an expired code: %v", err)
		}
	})

	t.Run("workflow expiry", func(t *testing.T) {
		// A real timer on the dev server: a 2-second link expires by itself.
		short := &workflows.DeviceLinks{Agents: &agents.Service{Store: e.store, Users: e.svc.Users, DeviceCodeTTL: 2 * time.Second}, Runs: e.links.Runs}
		a, err := short.RequestDevice(ctx, "short", "test")
		if err != nil {
			t.Fatal(err)
		}
		l, _ := e.store.DeviceLinkByUserCode(ctx, a.UserCode)
		var res workflows.DeviceLinkResult
		if err := e.tc.GetWorkflow(ctx, workflows.WorkflowID(workflows.KindDeviceLink, l.ID), "").Get(ctx, &res); err != nil {
			t.Fatal(err)
		}
		if l, _ = e.store.DeviceLinkByID(ctx, l.ID); res.State != workflows.DeviceLinkStateExpired || l.Status != models.DeviceLinkExpired {
			t.Fatalf("result %+v, link %s", res, l.Status)
		}
		_, err = short.PollDeviceToken(ctx, a.DeviceCode, "test")
		if c := errs.CodeOf(err); c != errs.CodeExpiredToken {
			t.Fatalf("poll after workflow expiry: %v", err)
		}
	})

	t.Run("approved but never collected", func(t *testing.T) {
		// A real timer again: the agent never polls after the approval, so
		// at the expiry the workflow revokes the agent it created.
		short := &workflows.DeviceLinks{Agents: &agents.Service{Store: e.store, Users: e.svc.Users, DeviceCodeTTL: 2 * time.Second}, Runs: e.links.Runs}
		a, err := short.RequestDevice(ctx, "forgetful", "test")
		if err != nil {
			t.Fatal(err)
		}
		linked, err := short.ApproveDeviceByEmail(ctx, e.email, a.UserCode, agents.ApprovalBudget{})
		if err != nil {
			t.Fatal(err)
		}
		var res workflows.DeviceLinkResult
		if err := e.tc.GetWorkflow(ctx, workflows.WorkflowID(workflows.KindDeviceLink, linked.LinkID), "").Get(ctx, &res); err != nil {
			t.Fatal(err)
		}
		if res.State != workflows.DeviceLinkStateExpired || res.AgentID != linked.AgentID {
			t.Fatalf("result %+v, want expired with agent %s", res, linked.AgentID)
		}
		if ag, err := e.store.AgentByID(ctx, linked.AgentID); err != nil || ag.Status != models.AgentRevoked {
			t.Fatalf("agent %+v %v, want revoked", ag, err)
		}
		wantRFC(t, e.poll(a.DeviceCode), errs.CodeExpiredToken)
	})

	t.Run("link page denies", func(t *testing.T) {
		a := e.requestLink("deny bot")
		form := e.do("GET", "/link?code="+strings.ToLower(a.UserCode), "", nil, nil)
		if form.status != 200 || !strings.Contains(form.raw, `value="`+a.UserCode+`"`) || !strings.Contains(form.raw, "deny bot") {
			t.Fatalf("form %d %s", form.status, form.raw)
		}
		confirm := confirmOf(t, e.srv.URL, a.UserCode)
		v := url.Values{"code": {a.UserCode}, "confirm": {confirm}, "email": {e.email}, "password": {password}, "action": {"deny"}}
		if r := e.linkForm(v, ""); r.status != 403 {
			t.Fatalf("POST without Origin = %d", r.status)
		}
		if r := e.linkForm(v, "https://evil.example"); r.status != 403 {
			t.Fatalf("cross-origin POST = %d", r.status)
		}
		bad := url.Values{"code": {a.UserCode}, "confirm": {confirm}, "email": {e.email}, "password": {"wrong password"}, "action": {"deny"}}
		if r := e.linkForm(bad, e.srv.URL); r.status != 401 || !strings.Contains(r.raw, "invalid email or password") {
			t.Fatalf("wrong password = %d %s", r.status, r.raw)
		}
		if r := e.do("GET", "/link?code=BCDF-BCDF", "", nil, nil); r.status != 404 || !strings.Contains(r.raw, "unknown code") {
			t.Fatalf("wrong code = %d %s", r.status, r.raw)
		}
		wrong := url.Values{"code": {"BCDF-BCDF"}, "confirm": {confirm}, "email": {e.email}, "password": {password}, "action": {"approve"}}
		if r := e.linkForm(wrong, e.srv.URL); r.status != 400 || !strings.Contains(r.raw, "review the request") {
			t.Fatalf("a decision on a code without its review = %d %s", r.status, r.raw)
		}
		if r := e.linkForm(v, e.srv.URL); r.status != 200 || !strings.Contains(r.raw, "Denied") {
			t.Fatalf("deny = %d %s", r.status, r.raw)
		}
		e.clk.Advance(10 * time.Second)
		wantRFC(t, e.poll(a.DeviceCode), errs.CodeAccessDenied)
		if r := e.linkForm(v, e.srv.URL); r.status != 409 || !strings.Contains(r.raw, "already been used") {
			t.Fatalf("second decision = %d %s", r.status, r.raw)
		}
	})

	// The attack: anyone who reaches Temporal sends the approve
	// update for a pending link, naming a user (user ids are readable from
	// the UserId search attribute). However the update is made — plaintext
	// as `temporal workflow update execute --input '{"user_id":…}'` sends
	// it, through a client that has the payload codec, with a made-up or
	// foreign proof, or with the victim's genuine approval of another link
	// copied from history — no agent is created and the agent's poll never
	// gets a key.
	t.Run("forged approvals through Temporal never yield a key", func(t *testing.T) {
		victim := e.userID
		target := e.requestLink("attacker bot")
		l, err := e.store.DeviceLinkByUserCode(ctx, target.UserCode)
		if err != nil {
			t.Fatal(err)
		}
		wfID := workflows.WorkflowID(workflows.KindDeviceLink, l.ID)
		send := func(c client.Client, arg any) error {
			h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
				WorkflowID: wfID, UpdateName: workflows.DeviceLinkUpdateApprove, Args: []any{arg},
				WaitForStage: client.WorkflowUpdateStageCompleted,
			})
			if err != nil {
				return err
			}
			var agentID string
			if err := h.Get(ctx, &agentID); err != nil {
				return err
			}
			return fmt.Errorf("approved: agent %s", agentID)
		}

		// The victim approves a link of their own; its history holds the
		// approval (and its proof), which an operator with the codec — or
		// anyone, still encrypted — can read.
		own := e.requestLink("victim bot")
		victimLink, err := e.links.ApproveDeviceByEmail(ctx, e.email, own.UserCode, agents.ApprovalBudget{})
		if err != nil {
			t.Fatal(err)
		}
		var copied *commonpb.Payload
		hist := replaytest.History(t, ctx, e.raw, workflows.WorkflowID(workflows.KindDeviceLink, victimLink.LinkID), "")
		for _, ev := range hist.Events {
			if a := ev.GetWorkflowExecutionUpdateAcceptedEventAttributes(); a != nil {
				copied = a.GetAcceptedRequest().GetInput().GetArgs().GetPayloads()[0]
			}
		}
		if copied == nil {
			t.Fatal("no approval in the victim link's history")
		}
		keys := intenttest.Keys(t) // the service's
		genuine := agents.DecisionProof(keys, intent.DeviceApprove, victimLink.LinkID, victim, agents.ClientAddrCLI)
		for _, f := range []struct {
			name string
			c    client.Client
			arg  any
		}{
			{"plaintext user id (the reported attack)", e.raw, map[string]string{"user_id": victim}},
			{"the victim's encrypted approval of another link, copied from history", e.raw, converter.NewRawValue(copied)},
			{"user id through the codec", e.tc, workflows.DeviceLinkDecision{UserID: victim, ClientAddr: "203.0.113.9"}},
			{"a made-up proof", e.tc, workflows.DeviceLinkDecision{UserID: victim, Proof: strings.Repeat("A", 43)}},
			{"a proof under another key", e.tc, workflows.DeviceLinkDecision{UserID: victim,
				Proof: agents.DecisionProof(intenttest.Keys(t, 0x66), intent.DeviceApprove, l.ID, victim, "")}},
			{"the genuine proof of another link", e.tc, workflows.DeviceLinkDecision{UserID: victim, ClientAddr: agents.ClientAddrCLI, Proof: genuine}},
			{"a deny proof of this link as an approval", e.tc, workflows.DeviceLinkDecision{UserID: victim,
				Proof: agents.DecisionProof(keys, intent.DeviceDeny, l.ID, victim, "")}},
		} {
			err := send(f.c, f.arg)
			if err == nil || strings.HasPrefix(err.Error(), "approved") {
				t.Fatalf("%s: %v", f.name, err)
			}
			t.Logf("%s: refused: %v", f.name, err)
			e.clk.Advance(5 * time.Second)
			wantRFC(t, e.poll(target.DeviceCode), errs.CodeAuthorizationPending)
		}
		if l, err = e.store.DeviceLinkByID(ctx, l.ID); err != nil || l.Status != models.DeviceLinkPending || l.AgentID != nil {
			t.Fatalf("link after the forgeries: %+v %v", l, err)
		}
		list, err := e.store.ListAgentsByUser(ctx, victim)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range list {
			if a.Name == "attacker bot" {
				t.Fatalf("an agent was created for the forged approval: %+v", a)
			}
		}
		// The link still works for its rightful decider.
		if err := e.links.DenyDeviceByEmail(ctx, e.email, target.UserCode); err != nil {
			t.Fatal(err)
		}
		e.clk.Advance(5 * time.Second)
		wantRFC(t, e.poll(target.DeviceCode), errs.CodeAccessDenied)
	})

	var issuedKey, agentID, linkID, deviceCode string
	t.Run("end to end", func(t *testing.T) {
		a := e.requestLink("e2e bot")
		deviceCode = a.DeviceCode
		wantRFC(t, e.poll(a.DeviceCode), errs.CodeAuthorizationPending)
		linked, err := e.links.ApproveDeviceByEmail(ctx, e.email, a.UserCode, agents.ApprovalBudget{})
		if err != nil {
			t.Fatal(err)
		}
		linkID, agentID = linked.LinkID, linked.AgentID
		e.clk.Advance(5 * time.Second)
		r := e.poll(a.DeviceCode)
		data, _ := r.body["data"].(map[string]any)
		key, _ := data["api_key"].(string)
		if r.status != 200 || !strings.HasPrefix(key, "ll_") || len(key) != 3+64 || data["agent_id"] != agentID ||
			data["agent_name"] != "e2e bot" || data["token_type"] != "Bearer" || fmt.Sprint(data["scopes"]) != "[read trade cancel redeem]" {
			t.Fatalf("token = %d %s", r.status, r.raw)
		}
		issuedKey = key
		e.clk.Advance(5 * time.Second)
		again := e.poll(a.DeviceCode)
		wantRFC(t, again, errs.CodeAlreadyIssued)
		if strings.Contains(again.raw, key) {
			t.Fatal("second poll repeated the key")
		}

		me := e.me(key)
		md, _ := me.body["data"].(map[string]any)
		if me.status != 200 || md["agentId"] != agentID || md["name"] != "e2e bot" || md["status"] != "active" {
			t.Fatalf("/me = %d %s", me.status, me.raw)
		}
		if _, err := e.svc.Pause(ctx, e.userID, agentID, "test"); err != nil {
			t.Fatal(err)
		}
		if r := e.me(key); r.status != 401 || r.body["code"] != "agent_paused" {
			t.Fatalf("paused /me = %d %s", r.status, r.raw)
		}
		if _, err := e.svc.Resume(ctx, e.userID, "e2e bot", "test"); err != nil {
			t.Fatal(err)
		}
		if r := e.me(key); r.status != 200 {
			t.Fatalf("resumed /me = %d %s", r.status, r.raw)
		}
		if _, err := e.svc.Revoke(ctx, e.userID, agentID, "test"); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.Resume(ctx, e.userID, agentID, "test"); err == nil {
			t.Fatal("resume after revoke succeeded")
		}
		for range 2 {
			if r := e.me(key); r.status != 401 || r.body["code"] != "key_revoked" {
				t.Fatalf("revoked /me = %d %s", r.status, r.raw)
			}
		}
		var res workflows.DeviceLinkResult
		if err := e.tc.GetWorkflow(ctx, workflows.WorkflowID(workflows.KindDeviceLink, linkID), "").Get(ctx, &res); err != nil {
			t.Fatal(err)
		}
		if res.State != workflows.DeviceLinkStateApproved || res.AgentID != agentID {
			t.Fatalf("workflow result %+v", res)
		}
		// The upserted search attributes reach visibility.
		query := fmt.Sprintf(`AgentId = %q AND UserId = %q AND WorkflowKind = "device-link"`, agentID, e.userID)
		deadline := time.Now().Add(20 * time.Second)
		for {
			resp, err := e.tc.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Query: query})
			if err == nil && resp.GetCount() == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("workflow not visible by %s: %v %v", query, resp, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	})

	t.Run("key checks", func(t *testing.T) {
		for _, tc := range []struct {
			name, header string
			code         string
		}{
			{"no header", "", "missing_api_key"},
			{"basic auth", "Basic dXNlcjpwYXNz", "missing_api_key"},
			{"malformed", "Bearer ll_short", "invalid_api_key"},
			{"unknown", "Bearer ll_" + strings.Repeat("a", 64), "invalid_api_key"},
		} {
			hdr := map[string]string{}
			if tc.header != "" {
				hdr["Authorization"] = tc.header
			}
			r := e.do("GET", "/api/agent/v1/me", "", nil, hdr)
			if r.status != 401 || r.body["code"] != tc.code || r.body["success"] != false {
				t.Errorf("%s: %d %s", tc.name, r.status, r.raw)
			}
		}
		// A key whose agent lacks the read scope is authenticated but
		// forbidden.
		plain, hash, prefix := secret.NewAPIKey()
		a := &models.Agent{UserID: e.userID, Name: "trade only", Scopes: "trade"}
		if err := e.store.CreateAgentWithKey(ctx, a, &models.APIKey{Hash: hash, DisplayPrefix: prefix}); err != nil {
			t.Fatal(err)
		}
		if r := e.me(plain); r.status != 403 || r.body["code"] != "insufficient_scope" {
			t.Fatalf("scope check = %d %s", r.status, r.raw)
		}
		k, _, err := e.store.AgentKeyByHash(ctx, hash)
		if err != nil || k.LastUsedAt == nil {
			t.Fatalf("last used not touched: %+v %v", k, err)
		}
	})

	t.Run("the key is nowhere", func(t *testing.T) {
		if issuedKey == "" {
			t.Skip("end to end did not issue a key")
		}
		secrets := map[string]string{"API key": issuedKey, "device code": deviceCode}
		// Every table, every column.
		dump := dumpDatabase(t, e.store)
		if !strings.Contains(dump, secret.HashAPIKey(issuedKey)) || !strings.Contains(dump, agentID) {
			t.Fatal("the database dump is missing the key hash: the search would prove nothing")
		}
		// The logs: API access logs, store and worker logs.
		logs := e.logs.String()
		if !strings.Contains(logs, "/api/auth/device/token") {
			t.Fatal("the captured logs lack the token requests: the search would prove nothing")
		}
		// The workflow history, raw and decoded.
		hist := replaytest.History(t, context.Background(), e.raw, workflows.WorkflowID(workflows.KindDeviceLink, linkID), "")
		rawBytes, err := proto.Marshal(hist)
		if err != nil {
			t.Fatal(err)
		}
		rawJSON, err := protojson.Marshal(hist)
		if err != nil {
			t.Fatal(err)
		}
		decoded := decodeHistory(t, hist)
		if !strings.Contains(decoded, agentID) || !strings.Contains(decoded, e.userID) {
			t.Fatalf("decoded history lacks the agent and user ids: the search would prove nothing:\n%s", decoded)
		}
		if strings.Contains(string(rawBytes), agentID) && !strings.Contains(string(rawJSON), "AgentId") {
			t.Fatal("agent id in plaintext outside search attributes")
		}
		for what, s := range secrets {
			for where, text := range map[string]string{
				"database": dump, "logs": logs, "raw history": string(rawBytes), "raw history JSON": string(rawJSON), "decoded history": decoded,
			} {
				if strings.Contains(text, s) {
					t.Errorf("the %s appears in the %s", what, where)
				}
			}
		}
		if p := os.Getenv("ATS_RECORD_HISTORY"); p != "" {
			replaytest.WriteHistory(t, p, hist)
		}
	})
}

// decodeHistory decrypts every payload of the history with the codec key
// and renders the whole history, payloads as JSON text, for searching.
func decodeHistory(t *testing.T, h *historypb.History) string {
	t.Helper()
	cd, err := codec.New(replaytest.HistoryCodecKey)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	plain := converter.GetDefaultDataConverter()
	h = proto.Clone(h).(*historypb.History)
	for _, ev := range h.Events {
		for _, p := range payloadsOf(ev) {
			dec, err := cd.Decode([]*commonpb.Payload{p})
			if err != nil {
				t.Fatalf("decode payload of event %d: %v", ev.GetEventId(), err)
			}
			var v any
			if err := plain.FromPayload(dec[0], &v); err == nil {
				b, _ := json.Marshal(v)
				out.Write(b)
				out.WriteByte('\n')
			}
			out.Write(dec[0].GetData())
			out.WriteByte('\n')
		}
		b, _ := protojson.Marshal(ev)
		out.Write(b)
		out.WriteByte('\n')
	}
	return out.String()
}

func payloadsOf(ev *historypb.HistoryEvent) []*commonpb.Payload {
	var ps []*commonpb.Payload
	add := func(p *commonpb.Payloads) { ps = append(ps, p.GetPayloads()...) }
	add(ev.GetWorkflowExecutionStartedEventAttributes().GetInput())
	add(ev.GetWorkflowExecutionCompletedEventAttributes().GetResult())
	add(ev.GetActivityTaskScheduledEventAttributes().GetInput())
	add(ev.GetActivityTaskCompletedEventAttributes().GetResult())
	if u := ev.GetWorkflowExecutionUpdateAcceptedEventAttributes(); u != nil {
		add(u.GetAcceptedRequest().GetInput().GetArgs())
	}
	if u := ev.GetWorkflowExecutionUpdateCompletedEventAttributes(); u != nil {
		add(u.GetOutcome().GetSuccess())
	}
	return ps
}

// dumpDatabase renders every row of every table of the SQLite database.
func dumpDatabase(t *testing.T, s *store.Store) string {
	t.Helper()
	db := s.DB()
	var tables []string
	if err := db.Raw(`SELECT name FROM sqlite_master WHERE type = 'table'`).Scan(&tables).Error; err != nil {
		t.Fatal(err)
	}
	if len(tables) < 10 {
		t.Fatalf("only %d tables: %v", len(tables), tables)
	}
	var out strings.Builder
	for _, tb := range tables {
		rows, err := db.Raw(`SELECT * FROM "` + tb + `"`).Rows()
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&out, "%s:", tb)
			for _, v := range vals {
				if b, ok := v.([]byte); ok {
					v = string(b)
				}
				fmt.Fprintf(&out, " %v", v)
			}
			out.WriteByte('\n')
		}
		_ = rows.Close()
	}
	return out.String()
}
