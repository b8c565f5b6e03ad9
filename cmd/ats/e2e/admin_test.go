package e2e

import (
	"context"
	"os/exec"
	"slices"
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
	f := newAdminFixture(t, "limits@example.com", "busy bot")
	ctx, a, u := context.Background(), f.agent, f.user
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
		out, err := f.admin(t, tc.args...)
		if (err == nil) != tc.ok || !strings.Contains(out, tc.want) {
			t.Errorf("%s: err %v, output %q; want ok=%v containing %q", tc.name, err, out, tc.ok, tc.want)
		}
	}

	s := f.open(t)
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

// adminFixture is a data dir holding one user with one agent, for admin
// commands run by the built binary.
type adminFixture struct {
	dir   string
	user  *models.User
	agent *models.Agent
}

func newAdminFixture(t *testing.T, email, agentName string) *adminFixture {
	t.Helper()
	f := &adminFixture{dir: t.TempDir()}
	s := f.open(t)
	f.user = &models.User{Email: email, PasswordHash: "x"}
	if err := s.CreateUser(context.Background(), f.user); err != nil {
		t.Fatal(err)
	}
	f.agent = &models.Agent{UserID: f.user.ID, Name: agentName, Scopes: "read"}
	if err := s.CreateAgent(context.Background(), f.agent); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	return f
}

// open opens (and migrates) the fixture's database.
func (f *adminFixture) open(t *testing.T) *store.Store {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, store.Config{DataDir: f.dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

// admin runs `ats admin agent ARGS…` on the fixture's data dir.
func (f *adminFixture) admin(t *testing.T, args ...string) (string, error) {
	args = append(append([]string{"admin", "agent"}, args...), "--data-dir", f.dir, "--log-level", "error")
	cmd := exec.Command(buildATS(t), args...)
	cmd.Env = append(cmd.Environ(), "ATS_DATABASE_URL=")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestAdminAgentBudget runs `ats admin agent budget`: limits are set and
// cleared one at a time (the others kept), printed, stored; malformed
// amounts, percentages out of (0, 100], unknown names and an empty change
// are refused with a clear message and change nothing.
func TestAdminAgentBudget(t *testing.T) {
	f := newAdminFixture(t, "budget@example.com", "spender")
	base := []string{"budget", "--email", "budget@example.com", "--agent", "spender"}
	for _, tc := range []struct {
		name string
		args []string
		ok   bool
		want string
	}{
		{"fixed limit", []string{"--fixed-limit", "25"}, true, "fixed_limit 25 USDC, budget_percent unset, max_position_value unset"},
		{"percent and max position", []string{"--budget-percent", "12.5", "--max-position-value", "100.5"}, true,
			"fixed_limit 25 USDC, budget_percent 12.5%, max_position_value 100.5 USDC"},
		{"clear two", []string{"--clear", "fixed_limit", "--clear", "budget_percent"}, true,
			"fixed_limit unset, budget_percent unset, max_position_value 100.5 USDC"},
		{"amount not a number", []string{"--fixed-limit", "lots"}, false, "--fixed-limit must be a positive USDC amount"},
		{"negative amount", []string{"--max-position-value", "-3"}, false, "--max-position-value must be a positive USDC amount"},
		{"too many decimals", []string{"--fixed-limit", "1.0000001"}, false, "at most 6 decimals"},
		{"percent zero", []string{"--budget-percent", "0"}, false, "above 0 and at most 100"},
		{"percent above 100", []string{"--budget-percent", "101"}, false, "above 0 and at most 100"},
		{"unknown name", []string{"--clear", "daily"}, false, `cannot clear "daily"`},
		{"set and clear", []string{"--fixed-limit", "5", "--clear", "fixed_limit"}, false, "both set and cleared"},
		{"nothing", nil, false, "nothing to change"},
	} {
		out, err := f.admin(t, append(append([]string{}, base...), tc.args...)...)
		if (err == nil) != tc.ok || !strings.Contains(out, tc.want) {
			t.Errorf("%s: err %v, output %q; want ok=%v containing %q", tc.name, err, out, tc.ok, tc.want)
		}
	}
	s := f.open(t)
	defer s.Close()
	got, err := s.AgentByID(context.Background(), f.agent.ID)
	if err != nil || got.BudgetLimitMicro != nil || got.BudgetPercentBps != nil || got.MaxPositionValueMicro == nil || *got.MaxPositionValueMicro != 100_500_000 {
		t.Fatalf("stored agent %+v %v", got, err)
	}
}

func TestAdminAgentHeartbeat(t *testing.T) {
	f := newAdminFixture(t, "beats@example.com", "night owl")
	ctx, a := context.Background(), f.agent
	base := []string{"heartbeat", "--email", "beats@example.com", "--agent"}
	for _, tc := range []struct {
		name string
		args []string
		ok   bool
		want string
	}{
		{"interval only", append(slices.Clone(base), "night owl", "--interval", "30s"), true, "every 30s, always active"},
		{"hours across midnight", append(slices.Clone(base), a.ID, "--active-hours", "22:00-06:00", "--timezone", "Asia/Tokyo"), true,
			"every 30s, active 22:00-06:00 Asia/Tokyo"},
		{"too short", append(slices.Clone(base), a.ID, "--interval", "5s"), false, "between 10000"},
		{"too long", append(slices.Clone(base), a.ID, "--interval", "25h"), false, "between 10000"},
		{"hours without zone", append(slices.Clone(base), a.ID, "--active-hours", "09:00-17:00"), false, "go together"},
		{"unknown zone", append(slices.Clone(base), a.ID, "--active-hours", "09:00-17:00", "--timezone", "Mars/Olympus"), false, "IANA"},
		{"malformed hours", append(slices.Clone(base), a.ID, "--active-hours", "9-17", "--timezone", "UTC"), false, "HH:MM"},
		{"always and hours", append(slices.Clone(base), a.ID, "--always", "--active-hours", "09:00-17:00", "--timezone", "UTC"), false, "exclude"},
		{"nothing named", append(slices.Clone(base), a.ID), false, "--interval"},
		{"unknown agent", append(slices.Clone(base), "nobody", "--interval", "1m"), false, "not found"},
		{"hours kept when the interval changes", append(slices.Clone(base), a.ID, "--interval", "2m"), true,
			"every 2m0s, active 22:00-06:00 Asia/Tokyo"},
	} {
		out, err := f.admin(t, tc.args...)
		if (err == nil) != tc.ok || !strings.Contains(out, tc.want) {
			t.Errorf("%s: err %v, output %q; want ok=%v containing %q", tc.name, err, out, tc.ok, tc.want)
		}
	}
	s := f.open(t)
	defer s.Close()
	got, err := s.AgentByID(ctx, a.ID)
	if err != nil || got.HeartbeatIntervalMs != 120_000 || got.ActiveHoursTimezone == nil || *got.ActiveHoursTimezone != "Asia/Tokyo" {
		t.Fatalf("stored agent %+v %v", got, err)
	}
	page, err := (&audit.Service{Store: s}).List(ctx, audit.Filter{AgentID: a.ID, Action: audit.ActionAgentUpdate})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Entries) != 3 {
		t.Fatalf("%d audit entries, want 3: %+v", len(page.Entries), page.Entries)
	}
	for _, e := range page.Entries {
		if e.ClientAddr != "cli" || !strings.Contains(string(e.Detail), `"setting":"heartbeat"`) {
			t.Fatalf("audit entry %+v %s", e, e.Detail)
		}
	}
	if _, err := f.admin(t, append(slices.Clone(base), a.ID, "--always")...); err != nil {
		t.Fatal(err)
	}
	if got, err = s.AgentByID(ctx, a.ID); err != nil || got.ActiveHoursStart != nil || got.HeartbeatIntervalMs != 120_000 {
		t.Fatalf("after --always: %+v %v", got, err)
	}
}
