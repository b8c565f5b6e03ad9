package agents_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/intent"
	"github.com/agent-trading/ats/models/intent/intenttest"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

// inProcessLinker records what would reach the device-link workflow.
type inProcessLinker struct {
	rec     *agents.Recorder
	mu      sync.Mutex
	started []string
	issued  []string
}

func (l *inProcessLinker) note(list *[]string, linkID string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	*list = append(*list, linkID)
}

// deviceFlow is the agent service with the device flow driven in process,
// in the steps workflows.DeviceLinks takes: the decisions are recorded
// with the real Recorder, as the device-link workflow's activities would,
// without a Temporal server (the workflow is tested in package workflows,
// the whole walk end to end in api/device).
type deviceFlow struct {
	*agents.Service
	linker *inProcessLinker
}

func (f *deviceFlow) RequestDevice(ctx context.Context, name, addr string) (agents.DeviceAuthorization, error) {
	l, err := f.CreateDeviceLink(ctx, name, addr)
	if err != nil {
		return agents.DeviceAuthorization{}, err
	}
	f.linker.note(&f.linker.started, l.ID)
	return l.Authorization, nil
}

func (f *deviceFlow) PollDeviceToken(ctx context.Context, code, addr string) (agents.IssuedKey, error) {
	k, err := f.Service.PollDeviceToken(ctx, code, addr)
	if err == nil {
		f.linker.note(&f.linker.issued, k.LinkID)
	}
	return k, err
}

func (f *deviceFlow) ApproveDevice(ctx context.Context, userID, code, addr string) (agents.LinkedAgent, error) {
	l, err := f.DecidableLink(ctx, userID, code, addr, audit.ActionDeviceApprove)
	if err != nil {
		return agents.LinkedAgent{}, err
	}
	rec := f.linker.rec
	agentID, err := rec.ApproveDeviceLink(ctx, l.ID, userID, addr, "", agents.DecisionProof(rec.Intents, intent.DeviceApprove, l.ID, userID, addr))
	if err != nil {
		return agents.LinkedAgent{}, f.DecisionErr(ctx, l.ID, err)
	}
	return agents.LinkedAgent{LinkID: l.ID, AgentID: agentID, AgentName: l.AgentName}, nil
}

func (f *deviceFlow) DenyDevice(ctx context.Context, userID, code, addr string) error {
	l, err := f.DecidableLink(ctx, userID, code, addr, audit.ActionDeviceDeny)
	if err != nil {
		return err
	}
	rec := f.linker.rec
	if err := rec.DenyDeviceLink(ctx, l.ID, userID, addr, agents.DecisionProof(rec.Intents, intent.DeviceDeny, l.ID, userID, addr)); err != nil {
		return f.DecisionErr(ctx, l.ID, err)
	}
	return nil
}

func (f *deviceFlow) ApproveDeviceByEmail(ctx context.Context, email, code string) (agents.LinkedAgent, error) {
	userID, err := f.UserIDByEmail(ctx, email)
	if err != nil {
		return agents.LinkedAgent{}, err
	}
	return f.ApproveDevice(ctx, userID, code, agents.ClientAddrCLI)
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

func setup(t *testing.T, s *store.Store) (*deviceFlow, *clock, string) {
	t.Helper()
	clk := &clock{t: time.Now().UTC()}
	s.SetClock(clk.Now)
	u := &models.User{Email: strings.ToLower(t.Name()[:4]) + "@example.com", PasswordHash: "x"}
	if err := s.CreateUser(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	svc := &deviceFlow{
		Service: &agents.Service{Store: s, BaseURL: "https://ats.example/", Now: clk.Now},
		linker:  &inProcessLinker{rec: &agents.Recorder{Store: s, Intents: intenttest.Keys(t)}},
	}
	return svc, clk, u.ID
}

func wantCode(t *testing.T, err error, kind errs.Kind, code string) {
	t.Helper()
	if errs.KindOf(err) != kind || errs.CodeOf(err) != code {
		t.Fatalf("error = %v (kind %v, code %q), want kind %v code %q", err, errs.KindOf(err), errs.CodeOf(err), kind, code)
	}
}

func TestDeviceFlow(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		svc, clk, userID := setup(t, s)

		auth, err := svc.RequestDevice(ctx, "  my bot-1_v.2 ", "10.0.0.1")
		if err != nil {
			t.Fatal(err)
		}
		if len(auth.UserCode) != 9 || auth.UserCode[4] != '-' || strings.ContainsAny(auth.UserCode, "AEIOU01LY") {
			t.Fatalf("user code %q", auth.UserCode)
		}
		if auth.VerificationURI != "https://ats.example/link" || auth.VerificationURIComplete != "https://ats.example/link?code="+auth.UserCode ||
			auth.ExpiresIn != 900 || auth.Interval != 5 || len(auth.DeviceCode) < 40 {
			t.Fatalf("authorization %+v", auth)
		}
		l, err := s.DeviceLinkByUserCode(ctx, auth.UserCode)
		if err != nil || l.DeviceCodeHash == auth.DeviceCode || l.DeviceCodeHash != agents.HashDeviceCode(auth.DeviceCode) || l.AgentName != "my bot-1_v.2" {
			t.Fatalf("stored link %+v, %v", l, err)
		}

		_, err = svc.PollDeviceToken(ctx, auth.DeviceCode, "a")
		wantCode(t, err, errs.Invalid, errs.CodeAuthorizationPending)
		clk.Advance(time.Second)
		_, err = svc.PollDeviceToken(ctx, auth.DeviceCode, "a")
		wantCode(t, err, errs.Invalid, errs.CodeSlowDown)
		clk.Advance(6 * time.Second)
		_, err = svc.PollDeviceToken(ctx, auth.DeviceCode, "a")
		wantCode(t, err, errs.Invalid, errs.CodeAuthorizationPending)
		_, err = svc.PollDeviceToken(ctx, "not-a-code", "a")
		wantCode(t, err, errs.Invalid, errs.CodeInvalidGrant)
		_, err = svc.PollDeviceToken(ctx, strings.Repeat("A", len(auth.DeviceCode)), "a")
		wantCode(t, err, errs.Invalid, errs.CodeInvalidGrant)

		// Approve with a code typed sloppily.
		typed := strings.ToLower(strings.ReplaceAll(auth.UserCode, "-", " "))
		linked, err := svc.ApproveDevice(ctx, userID, typed, "10.0.0.2")
		if err != nil {
			t.Fatal(err)
		}
		if !models.HasPrefix(linked.AgentID, models.PrefixAgent) || linked.AgentName != "my bot-1_v.2" {
			t.Fatalf("linked %+v", linked)
		}
		_, err = svc.ApproveDevice(ctx, userID, auth.UserCode, "10.0.0.2")
		wantCode(t, err, errs.Conflict, errs.CodeCodeAlreadyUsed)

		// Concurrent polls: exactly one gets the key.
		clk.Advance(10 * time.Second)
		var wg sync.WaitGroup
		keys := make(chan agents.IssuedKey, 4)
		errsCh := make(chan error, 4)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				k, err := svc.PollDeviceToken(ctx, auth.DeviceCode, "a")
				if err != nil {
					errsCh <- err
					return
				}
				keys <- k
			}()
		}
		wg.Wait()
		close(keys)
		close(errsCh)
		var got []agents.IssuedKey
		for k := range keys {
			got = append(got, k)
		}
		if len(got) != 1 {
			t.Fatalf("%d polls got a key, want 1", len(got))
		}
		for err := range errsCh {
			if c := errs.CodeOf(err); c != errs.CodeAlreadyIssued && c != errs.CodeSlowDown {
				t.Fatalf("losing poll: %v", err)
			}
		}
		k := got[0]
		if !secret.ValidAPIKeyFormat(k.APIKey) || k.AgentID != linked.AgentID || k.TokenType != "Bearer" ||
			strings.Join(k.Scopes, " ") != "read trade cancel redeem" {
			t.Fatalf("issued %+v", k)
		}
		clk.Advance(10 * time.Second)
		_, err = svc.PollDeviceToken(ctx, auth.DeviceCode, "a")
		wantCode(t, err, errs.Invalid, errs.CodeAlreadyIssued)
		// The workflow is told once, by the one poll that issued the key.
		if lk := svc.linker; len(lk.issued) != 1 || lk.issued[0] != l.ID {
			t.Fatalf("key-issued notices %v, want [%s]", lk.issued, l.ID)
		}

		key, agent, err := s.AgentKeyByHash(ctx, secret.HashAPIKey(k.APIKey))
		if err != nil || agent.ID != linked.AgentID || key.UserID != userID {
			t.Fatalf("stored key %v %v %v", key, agent, err)
		}
		// A new agent is never unlimited: the approval's default fixed limit.
		if agent.HeartbeatIntervalMs != agents.DefaultLinkHeartbeatIntervalMs || agent.BudgetLimitMicro == nil ||
			*agent.BudgetLimitMicro != agents.DefaultApprovalFixedLimitMicro || agent.ActiveHoursStart != nil {
			t.Fatalf("agent defaults %+v", agent)
		}

		// Audit trail, and no secret in it.
		page, err := (&audit.Service{Store: s}).List(ctx, audit.Filter{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		actions := map[string]int{}
		for _, e := range page.Entries {
			actions[e.Action]++
			if strings.Contains(string(e.Detail), k.APIKey) || strings.Contains(string(e.Detail), auth.DeviceCode) {
				t.Fatalf("audit entry %s holds a secret", e.Action)
			}
		}
		for _, a := range []string{agents.ActionDeviceRequest, audit.ActionDeviceApprove, audit.ActionAgentLink, agents.ActionKeyIssue} {
			if actions[a] != 1 {
				t.Errorf("audit action %s recorded %d times, want 1 (all: %v)", a, actions[a], actions)
			}
		}
	})
}

func TestDeviceDenyExpireAndGuesses(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		svc, clk, userID := setup(t, s)

		denied, err := svc.RequestDevice(ctx, "deny-me", "a")
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.DenyDevice(ctx, userID, denied.UserCode, "a"); err != nil {
			t.Fatal(err)
		}
		_, err = svc.PollDeviceToken(ctx, denied.DeviceCode, "a")
		wantCode(t, err, errs.Invalid, errs.CodeAccessDenied)
		_, err = svc.ApproveDevice(ctx, userID, denied.UserCode, "a")
		wantCode(t, err, errs.Conflict, errs.CodeCodeAlreadyUsed)

		late, err := svc.RequestDevice(ctx, "late", "a")
		if err != nil {
			t.Fatal(err)
		}
		clk.Advance(agents.DefaultDeviceCodeTTL)
		_, err = svc.PollDeviceToken(ctx, late.DeviceCode, "a")
		wantCode(t, err, errs.Invalid, errs.CodeExpiredToken)
		_, err = svc.ApproveDevice(ctx, userID, late.UserCode, "a")
		wantCode(t, err, errs.Conflict, errs.CodeExpiredToken)
		// The workflow's expiry activity is idempotent and skips decided links.
		rec := &agents.Recorder{Store: s, Intents: intenttest.Keys(t)}
		for range 2 {
			if err := rec.ExpireDeviceLink(ctx, mustLink(t, s, late.UserCode).ID); err != nil {
				t.Fatal(err)
			}
		}
		if err := rec.ExpireDeviceLink(ctx, mustLink(t, s, denied.UserCode).ID); err != nil {
			t.Fatal(err)
		}
		if st := mustLink(t, s, denied.UserCode).Status; st != models.DeviceLinkDenied {
			t.Fatalf("denied link became %s", st)
		}

		// Wrong codes: 10 failures, then 429 for this user (any address).
		for i := range agents.DefaultMaxGuessFailures {
			_, err := svc.ApproveDevice(ctx, userID, "BCDF-GHJK", "addr-"+string(rune('a'+i)))
			wantCode(t, err, errs.NotFound, errs.CodeInvalidUserCode)
		}
		fresh, err := svc.RequestDevice(ctx, "fresh", "a")
		if err != nil {
			t.Fatal(err)
		}
		_, err = svc.ApproveDevice(ctx, userID, fresh.UserCode, "other")
		wantCode(t, err, errs.RateLimited, "too_many_attempts")
		if e, _ := errs.As(err); e.RetryAfterSeconds <= 0 {
			t.Fatalf("no retry-after: %+v", e)
		}
		clk.Advance(agents.DefaultGuessWindow)
		fresh, err = svc.RequestDevice(ctx, "fresh", "a")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.ApproveDevice(ctx, userID, fresh.UserCode, "other"); err != nil {
			t.Fatalf("after the window: %v", err)
		}
		_, err = svc.ApproveDevice(ctx, userID, "!!", "x")
		wantCode(t, err, errs.NotFound, errs.CodeInvalidUserCode)

		// Admin path by email.
		adm, err := svc.RequestDevice(ctx, "admin-linked", "a")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.ApproveDeviceByEmail(ctx, "nobody@example.com", adm.UserCode); errs.KindOf(err) != errs.NotFound {
			t.Fatalf("unknown email: %v", err)
		}
		u, _ := s.UserByID(ctx, userID)
		if _, err := svc.ApproveDeviceByEmail(ctx, "  "+strings.ToUpper(u.Email), adm.UserCode); err != nil {
			t.Fatal(err)
		}
	})
}

func mustLink(t *testing.T, s *store.Store, code string) *models.DeviceLink {
	t.Helper()
	l, err := s.DeviceLinkByUserCode(context.Background(), code)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestValidateAgentName(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"bot", true}, {"My Bot 2.0_x-y", true}, {strings.Repeat("a", 64), true},
		{"", false}, {"   ", false}, {strings.Repeat("a", 65), false}, {"bot<script>", false}, {"bøt", false}, {"a/b", false},
	} {
		_, err := agents.ValidateAgentName(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("ValidateAgentName(%q) = %v, want ok=%v", tc.in, err, tc.ok)
		}
		if err != nil && errs.KindOf(err) != errs.Invalid {
			t.Errorf("kind %v", errs.KindOf(err))
		}
	}
}

func TestNormalizeUserCode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"BCDF-GHJK", "BCDF-GHJK"}, {"bcdfghjk", "BCDF-GHJK"}, {" bcdf ghjk ", "BCDF-GHJK"},
		{"BCDF-GHJ", ""}, {"ABCD-GHJK", ""}, {"BCDF-GHJ0", ""}, {"BCDF-GHJKM", ""},
	} {
		got, ok := agents.NormalizeUserCode(tc.in)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("NormalizeUserCode(%q) = %q %v, want %q", tc.in, got, ok, tc.want)
		}
	}
}

func TestManageAgents(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		svc, clk, userID := setup(t, s)
		a := &models.Agent{UserID: userID, Name: "trader", Scopes: "read trade cancel redeem"}
		if err := s.CreateAgent(ctx, a); err != nil {
			t.Fatal(err)
		}
		b := &models.Agent{UserID: userID, Name: "twin"}
		c := &models.Agent{UserID: userID, Name: "twin"}
		for _, x := range []*models.Agent{b, c} {
			clk.Advance(time.Second)
			if err := s.CreateAgent(ctx, x); err != nil {
				t.Fatal(err)
			}
		}
		list, err := svc.List(ctx, userID)
		if err != nil || len(list) != 3 || list[0].ID != a.ID {
			t.Fatalf("List = %+v %v", list, err)
		}
		if _, err := svc.Pause(ctx, userID, "twin", "x"); errs.KindOf(err) != errs.Conflict {
			t.Fatalf("ambiguous name: %v", err)
		}
		if _, err := svc.Pause(ctx, "usr_someone_else", a.ID, "x"); errs.KindOf(err) != errs.NotFound {
			t.Fatalf("other user: %v", err)
		}

		steps := []struct {
			name   string
			op     func() (agents.Agent, error)
			status string
			kind   errs.Kind
		}{
			{"pause by name", func() (agents.Agent, error) { return svc.Pause(ctx, userID, "trader", "x") }, models.AgentPaused, 0},
			{"pause again", func() (agents.Agent, error) { return svc.Pause(ctx, userID, a.ID, "x") }, models.AgentPaused, 0},
			{"resume", func() (agents.Agent, error) { return svc.Resume(ctx, userID, a.ID, "x") }, models.AgentActive, 0},
			{"revoke", func() (agents.Agent, error) { return svc.Revoke(ctx, userID, a.ID, "x") }, models.AgentRevoked, 0},
			{"revoke again", func() (agents.Agent, error) { return svc.Revoke(ctx, userID, a.ID, "x") }, models.AgentRevoked, 0},
			{"resume after revoke", func() (agents.Agent, error) { return svc.Resume(ctx, userID, a.ID, "x") }, "", errs.Conflict},
			{"pause after revoke", func() (agents.Agent, error) { return svc.Pause(ctx, userID, a.ID, "x") }, "", errs.Conflict},
			{"budget after revoke", func() (agents.Agent, error) { return svc.SetBudget(ctx, userID, a.ID, "x", agents.Budget{}) }, "", errs.Conflict},
		}
		for _, st := range steps {
			got, err := st.op()
			if st.kind != 0 {
				if errs.KindOf(err) != st.kind {
					t.Fatalf("%s: %v, want %v", st.name, err, st.kind)
				}
				continue
			}
			if err != nil || got.Status != st.status {
				t.Fatalf("%s: %+v %v", st.name, got, err)
			}
		}
		// Once twin c is revoked, "twin" names the live one.
		if _, err := svc.Revoke(ctx, userID, c.ID, "x"); err != nil {
			t.Fatal(err)
		}
		if got, err := svc.Get(ctx, userID, "twin"); err != nil || got.ID != b.ID {
			t.Fatalf("twin resolves to %+v %v", got, err)
		}

		fixed, pct := int64(50*models.MicroPerUnit), int32(2500)
		got, err := svc.SetBudget(ctx, userID, b.ID, "x", agents.Budget{FixedLimitMicro: &fixed, PercentBps: &pct})
		if err != nil || *got.Budget.FixedLimitMicro != fixed || *got.Budget.PercentBps != pct || got.Budget.MaxPositionValueMicro != nil {
			t.Fatalf("SetBudget %+v %v", got, err)
		}
		for _, bad := range []agents.Budget{{FixedLimitMicro: new(int64)}, {PercentBps: ptr(int32(10001))}, {MaxPositionValueMicro: ptr(int64(-1))}} {
			if _, err := svc.SetBudget(ctx, userID, b.ID, "x", bad); errs.KindOf(err) != errs.Invalid {
				t.Fatalf("bad budget %+v: %v", bad, err)
			}
		}
		hb := agents.Heartbeat{IntervalMs: 120000, ActiveHours: &agents.ActiveHours{Start: "09:00", End: "17:30", Timezone: "America/New_York"}}
		got, err = svc.SetHeartbeat(ctx, userID, b.ID, "x", hb)
		if err != nil || got.Heartbeat.IntervalMs != 120000 || *got.Heartbeat.ActiveHours != *hb.ActiveHours {
			t.Fatalf("SetHeartbeat %+v %v", got, err)
		}
		for _, bad := range []agents.Heartbeat{
			{IntervalMs: 1000},
			{IntervalMs: 120000, ActiveHours: &agents.ActiveHours{Start: "9:00", End: "17:00", Timezone: "UTC"}},
			{IntervalMs: 120000, ActiveHours: &agents.ActiveHours{Start: "09:00", End: "17:00", Timezone: "Mars/Base"}},
			{IntervalMs: 120000, ActiveHours: &agents.ActiveHours{Start: "09:00", End: "09:00", Timezone: "UTC"}},
		} {
			if _, err := svc.SetHeartbeat(ctx, userID, b.ID, "x", bad); errs.KindOf(err) != errs.Invalid {
				t.Fatalf("bad heartbeat %+v: %v", bad, err)
			}
		}
		got, err = svc.SetHeartbeat(ctx, userID, b.ID, "x", agents.Heartbeat{IntervalMs: 300000})
		if err != nil || got.Heartbeat.ActiveHours != nil {
			t.Fatalf("clearing active hours: %+v %v", got, err)
		}

		got, err = svc.SetRateLimit(ctx, userID, "twin", "10.9.9.9", 250)
		if err != nil || got.RateLimit != 250 || got.ID != b.ID {
			t.Fatalf("SetRateLimit %+v %v", got, err)
		}
		if stored, _ := s.AgentByID(ctx, b.ID); stored.RateLimitPerMinute != 250 {
			t.Fatalf("stored limit %d", stored.RateLimitPerMinute)
		}
		for _, bad := range []int{0, -5, agents.MaxRateLimitPerMinute + 1} {
			if _, err := svc.SetRateLimit(ctx, userID, b.ID, "x", bad); errs.KindOf(err) != errs.Invalid || errs.CodeOf(err) != "invalid_rate_limit" {
				t.Fatalf("rate limit %d: %v", bad, err)
			}
		}
		if _, err := svc.SetRateLimit(ctx, userID, a.ID, "x", 10); errs.KindOf(err) != errs.Conflict {
			t.Fatalf("rate limit of a revoked agent: %v", err)
		}
		if _, err := svc.SetRateLimit(ctx, "usr_someone_else", b.ID, "x", 10); errs.KindOf(err) != errs.NotFound {
			t.Fatalf("rate limit of someone else's agent: %v", err)
		}

		page, err := (&audit.Service{Store: s}).List(ctx, audit.Filter{UserID: userID, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		count := map[string]int{}
		rateLimitEntries := 0
		for _, e := range page.Entries {
			count[e.Action]++
			if strings.Contains(string(e.Detail), `"setting":"rate_limit"`) {
				rateLimitEntries++
				if e.Action != audit.ActionAgentUpdate || e.AgentID != b.ID || e.ClientAddr != "10.9.9.9" ||
					!strings.Contains(string(e.Detail), `"per_minute":250`) || !strings.Contains(string(e.Detail), `"from_per_minute":100`) {
					t.Errorf("rate-limit audit entry %+v %s", e, e.Detail)
				}
			}
		}
		if rateLimitEntries != 1 {
			t.Errorf("%d rate-limit audit entries, want 1 (refused changes are not audited as done)", rateLimitEntries)
		}
		want := map[string]int{audit.ActionAgentPause: 2, audit.ActionAgentResume: 1, audit.ActionAgentRevoke: 3, audit.ActionAgentUpdate: 4}
		for k, v := range want {
			if count[k] != v {
				t.Errorf("audit %s = %d, want %d (%v)", k, count[k], v, count)
			}
		}
	})
}

func ptr[T any](v T) *T { return &v }

// An approved link whose key is never collected must not leave an active
// agent behind: at expiry the link expires and the agent is revoked, once.
func TestExpireUnissuedDeviceLink(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		svc, clk, userID := setup(t, s)
		rec := &agents.Recorder{Store: s, Intents: intenttest.Keys(t)}
		approved := func(name string) (agents.DeviceAuthorization, agents.LinkedAgent) {
			t.Helper()
			auth, err := svc.RequestDevice(ctx, name, "a")
			if err != nil {
				t.Fatal(err)
			}
			linked, err := svc.ApproveDevice(ctx, userID, auth.UserCode, "a")
			if err != nil {
				t.Fatal(err)
			}
			return auth, linked
		}
		agentStatus := func(id string) string {
			t.Helper()
			a, err := s.AgentByID(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			return a.Status
		}
		revokes := func(agentID string) int {
			t.Helper()
			page, err := (&audit.Service{Store: s}).List(ctx, audit.Filter{AgentID: agentID, Action: audit.ActionAgentRevoke, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			return len(page.Entries)
		}

		uncollected, lost := approved("uncollected")
		collected, kept := approved("collected")
		swept, sweptAgent := approved("swept")
		userRevoked, gone := approved("user-revoked")
		clk.Advance(6 * time.Second)
		if _, err := svc.PollDeviceToken(ctx, collected.DeviceCode, "a"); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Revoke(ctx, userID, gone.AgentID, "a"); err != nil {
			t.Fatal(err)
		}
		clk.Advance(agents.DefaultDeviceCodeTTL)
		// Housekeeping may have expired a link before its workflow's timer.
		if _, err := s.ExpireDeviceLinks(ctx, clk.Now()); err != nil {
			t.Fatal(err)
		}

		for _, tc := range []struct {
			name        string
			auth        agents.DeviceAuthorization
			linked      agents.LinkedAgent
			wantExpired bool
			wantStatus  string
			wantRevokes int
		}{
			{"key never collected", uncollected, lost, true, models.AgentRevoked, 1},
			{"key collected", collected, kept, false, models.AgentActive, 0},
			{"expired by housekeeping first", swept, sweptAgent, true, models.AgentRevoked, 1},
			{"revoked by the user first", userRevoked, gone, true, models.AgentRevoked, 1},
		} {
			t.Run(tc.name, func(t *testing.T) {
				for try := range 2 { // idempotent: a retried activity changes nothing
					expired, err := rec.ExpireUnissuedDeviceLink(ctx, tc.linked.LinkID)
					if err != nil || expired != tc.wantExpired {
						t.Fatalf("try %d: expired %v, %v; want %v", try, expired, err, tc.wantExpired)
					}
				}
				if st := agentStatus(tc.linked.AgentID); st != tc.wantStatus {
					t.Fatalf("agent %s, want %s", st, tc.wantStatus)
				}
				if n := revokes(tc.linked.AgentID); n != tc.wantRevokes {
					t.Fatalf("%d agent.revoke entries, want %d", n, tc.wantRevokes)
				}
				l, err := s.DeviceLinkByID(ctx, tc.linked.LinkID)
				if err != nil {
					t.Fatal(err)
				}
				if want := map[bool]string{true: models.DeviceLinkExpired, false: models.DeviceLinkIssued}[tc.wantExpired]; l.Status != want {
					t.Fatalf("link %s, want %s", l.Status, want)
				}
				_, err = svc.PollDeviceToken(ctx, tc.auth.DeviceCode, "a")
				want := map[bool]string{true: errs.CodeExpiredToken, false: errs.CodeAlreadyIssued}[tc.wantExpired]
				wantCode(t, err, errs.Invalid, want)
			})
		}
		if _, err := rec.ExpireUnissuedDeviceLink(ctx, "dl_missing"); errs.KindOf(err) != errs.NotFound {
			t.Fatalf("missing link: %v", err)
		}

		// The expiry racing the agent's last poll: exactly one wins, never
		// a key for a revoked agent nor an active agent without a key. The
		// poll checks the link a moment before the expiry, the worker's
		// timer fires at it.
		atExpiry := &agents.Recorder{Store: s, Intents: rec.Intents,
			Now: func() time.Time { return clk.Now().Add(agents.DefaultDeviceCodeTTL) }}
		for i := range 5 {
			auth, linked := approved(fmt.Sprintf("race-%d", i))
			var wg sync.WaitGroup
			var key agents.IssuedKey
			var pollErr, expErr error
			var expired bool
			wg.Add(2)
			go func() { defer wg.Done(); key, pollErr = svc.PollDeviceToken(ctx, auth.DeviceCode, "a") }()
			go func() { defer wg.Done(); expired, expErr = atExpiry.ExpireUnissuedDeviceLink(ctx, linked.LinkID) }()
			wg.Wait()
			if expErr != nil {
				t.Fatalf("race %d: expiry: %v", i, expErr)
			}
			issued := pollErr == nil && key.APIKey != ""
			if issued == expired || (expired && errs.CodeOf(pollErr) != errs.CodeExpiredToken) {
				t.Fatalf("race %d: key issued %v (%v), expired %v", i, issued, pollErr, expired)
			}
			if want := map[bool]string{true: models.AgentActive, false: models.AgentRevoked}[issued]; agentStatus(linked.AgentID) != want {
				t.Fatalf("race %d: issued %v, agent %s", i, issued, agentStatus(linked.AgentID))
			}
		}
	})
}
