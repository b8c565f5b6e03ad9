package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/store"
)

// TestAdminAgentRateLimit runs `ats admin agent rate-limit` against a data
// dir holding one user and agent: the limit is stored and audited as the
// operator's change, out-of-range values and unknown agents are refused
// with a clear message, and `agent list` shows the limit.
func TestAdminAgentRateLimit(t *testing.T) {
	bin := buildATS(t)
	dir := t.TempDir()
	ctx := context.Background()
	open := func() *store.Store {
		t.Helper()
		s, err := store.Open(ctx, store.Config{DataDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open()
	u := &models.User{Email: "limits@example.com", PasswordHash: "x"}
	if err := s.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	a := &models.Agent{UserID: u.ID, Name: "busy bot", Scopes: "read"}
	if err := s.CreateAgent(ctx, a); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()

	admin := func(args ...string) (string, error) {
		args = append(append([]string{"admin", "agent"}, args...), "--data-dir", dir, "--log-level", "error")
		cmd := exec.Command(bin, args...)
		cmd.Env = append(cmd.Environ(), "ATS_DATABASE_URL=")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, tc := range []struct {
		name string
		args []string
		ok   bool
		want string
	}{
		{"by name", []string{"rate-limit", "--email", "limits@example.com", "--agent", "busy bot", "--per-minute", "250"}, true, "250 requests per minute"},
		{"by id", []string{"rate-limit", "--email", "limits@example.com", "--agent", a.ID, "--per-minute", "300"}, true, "300 requests per minute"},
		{"zero", []string{"rate-limit", "--email", "limits@example.com", "--agent", a.ID, "--per-minute", "0"}, false, "between 1 and 10000"},
		{"too high", []string{"rate-limit", "--email", "limits@example.com", "--agent", a.ID, "--per-minute", "10001"}, false, "between 1 and 10000"},
		{"unknown agent", []string{"rate-limit", "--email", "limits@example.com", "--agent", "nobody", "--per-minute", "10"}, false, "not found"},
		{"missing value", []string{"rate-limit", "--email", "limits@example.com", "--agent", a.ID}, false, "per-minute"},
		{"list shows it", []string{"list", "--email", "limits@example.com"}, true, "300"},
	} {
		out, err := admin(tc.args...)
		if (err == nil) != tc.ok || !strings.Contains(out, tc.want) {
			t.Errorf("%s: err %v, output %q; want ok=%v containing %q", tc.name, err, out, tc.ok, tc.want)
		}
	}

	s = open()
	defer s.Close()
	got, err := s.AgentByID(ctx, a.ID)
	if err != nil || got.RateLimitPerMinute != 300 {
		t.Fatalf("stored agent %+v %v", got, err)
	}
	page, err := (&audit.Service{Store: s}).List(ctx, audit.Filter{AgentID: a.ID, Action: audit.ActionAgentUpdate})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Entries) != 2 {
		t.Fatalf("%d audit entries, want 2 (the refused changes are not recorded as done): %+v", len(page.Entries), page.Entries)
	}
	for _, e := range page.Entries {
		if e.ClientAddr != "cli" || e.UserID != u.ID || !strings.Contains(string(e.Detail), `"setting":"rate_limit"`) {
			t.Fatalf("audit entry %+v %s", e, e.Detail)
		}
	}
}
