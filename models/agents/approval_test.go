package agents_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/intent"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

// TestApprovalSetsABudget: a new link's approval records a budget. The
// default (an approval that names none, and a decision recorded before
// approvals carried one) is a fixed limit of 25 USDC; another limit is
// applied as chosen; no limit only when chosen explicitly, and the audit
// log records each choice. The budget is part of what the proof vouches
// for: a decision whose budget was changed on its way (to no limit, say)
// is refused and creates no agent.
func TestApprovalSetsABudget(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		svc, _, userID := setup(t, s)
		rec := svc.linker.rec
		link := func(name string) string {
			t.Helper()
			auth, err := svc.RequestDevice(ctx, name, "10.0.0.1")
			if err != nil {
				t.Fatal(err)
			}
			l, err := svc.DecidableLink(ctx, userID, auth.UserCode, "10.0.0.2", audit.ActionDeviceApprove)
			if err != nil {
				t.Fatal(err)
			}
			return l.ID
		}
		approve := func(linkID, field, proofField string) (string, error) {
			return rec.ApproveDeviceLink(ctx, linkID, userID, "10.0.0.2", field, agents.ApprovalProof(rec.Intents, linkID, userID, "10.0.0.2", proofField))
		}
		limitOf := func(agentID string) *int64 {
			t.Helper()
			a, err := s.AgentByID(ctx, agentID)
			if err != nil {
				t.Fatal(err)
			}
			return a.BudgetLimitMicro
		}
		budgetAudited := func(agentID string) map[string]any {
			t.Helper()
			page, err := (&audit.Service{Store: s}).List(ctx, audit.Filter{AgentID: agentID, Action: audit.ActionDeviceApprove})
			if err != nil || len(page.Entries) != 1 {
				t.Fatalf("approval audited %d times (%v)", len(page.Entries), err)
			}
			var d struct{ Budget map[string]any }
			if err := json.Unmarshal(page.Entries[0].Detail, &d); err != nil {
				t.Fatal(err)
			}
			return d.Budget
		}

		def := agents.DefaultApprovalBudget().Field()
		for _, tc := range []struct {
			name, field string
			want        int64 // 0: no limit
			audited     map[string]any
			mode        string
		}{
			{"the default", def, 25_000_000, map[string]any{"fixed_limit": "25"}, models.ModePaper},
			{"a decision from before budgets", "", 25_000_000, map[string]any{"fixed_limit": "25"}, models.ModeLive},
			{"a decision from before modes", "fixed:7500000", 7_500_000, map[string]any{"fixed_limit": "7.5"}, models.ModeLive},
			{"a chosen limit", agents.ApprovalBudget{FixedLimitMicro: 7_500_000}.Field(), 7_500_000, map[string]any{"fixed_limit": "7.5"}, models.ModePaper},
			{"no limit chosen", agents.ApprovalBudget{NoLimit: true}.Field(), 0, map[string]any{"no_limit": true}, models.ModePaper},
			{"live chosen", agents.ApprovalBudget{Mode: models.ModeLive}.Field(), 25_000_000, map[string]any{"fixed_limit": "25"}, models.ModeLive},
		} {
			id, err := approve(link(tc.name), tc.field, tc.field)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if a, err := s.AgentByID(ctx, id); err != nil || a.Mode != tc.mode {
				t.Fatalf("%s: the agent's mode is %q (%v), want %s", tc.name, a.Mode, err, tc.mode)
			}
			got := limitOf(id)
			if tc.want == 0 && got != nil || tc.want != 0 && (got == nil || *got != tc.want) {
				t.Fatalf("%s: the agent's fixed limit is %v, want %d", tc.name, got, tc.want)
			}
			if a := budgetAudited(id); len(a) != len(tc.audited) || a["fixed_limit"] != tc.audited["fixed_limit"] || a["no_limit"] != tc.audited["no_limit"] {
				t.Fatalf("%s: audited budget %v, want %v", tc.name, a, tc.audited)
			}
		}

		// The proof covers the budget.
		tampered := link("tampered")
		for _, field := range []string{"none", "fixed:1000000000000000", "", "live;fixed:25000000", "fixed:25000000"} {
			if _, err := approve(tampered, field, def); errs.CodeOf(err) != errs.CodeUnvouchedRequest {
				t.Fatalf("a decision whose budget became %q: %v", field, err)
			}
		}
		if _, err := rec.ApproveDeviceLink(ctx, tampered, userID, "10.0.0.2", "none",
			agents.DecisionProof(rec.Intents, intent.DeviceApprove, tampered, userID, "10.0.0.2")); errs.CodeOf(err) != errs.CodeUnvouchedRequest {
			t.Fatalf("no limit under a proof without a budget: %v", err)
		}
		if l, err := s.DeviceLinkByID(ctx, tampered); err != nil || l.AgentID != nil {
			t.Fatalf("the tampered link: %+v %v", l, err)
		}
	})
}

// TestApprovalBudgetForm reads the /link page's budget fields.
func TestApprovalBudgetForm(t *testing.T) {
	for _, tc := range []struct {
		name    string
		limit   string
		sent    bool
		noLimit bool
		want    agents.ApprovalBudget
		code    string
	}{
		{"prefilled", "25", true, false, agents.ApprovalBudget{FixedLimitMicro: 25_000_000}, ""},
		{"edited", "1,250.5", true, false, agents.ApprovalBudget{FixedLimitMicro: 1_250_500_000}, ""},
		{"no limit ticked", "25", true, true, agents.ApprovalBudget{NoLimit: true}, ""},
		{"a form without the field", "", false, false, agents.DefaultApprovalBudget(), ""},
		{"emptied", " ", true, false, agents.ApprovalBudget{}, errs.CodeInvalidBudget},
		{"zero", "0", true, false, agents.ApprovalBudget{}, errs.CodeInvalidBudget},
		{"negative", "-5", true, false, agents.ApprovalBudget{}, errs.CodeInvalidBudget},
		{"not a number", "lots", true, false, agents.ApprovalBudget{}, errs.CodeInvalidBudget},
	} {
		got, err := agents.ApprovalBudgetForm(tc.limit, tc.sent, tc.noLimit)
		if errs.CodeOf(err) != tc.code || err == nil && got != tc.want {
			t.Errorf("%s: %+v %v, want %+v %q", tc.name, got, err, tc.want, tc.code)
		}
	}
	if agents.DefaultApprovalBudget().String() != "a fixed limit of 25 USDC, trading paper money" ||
		(agents.ApprovalBudget{NoLimit: true, Mode: models.ModeLive}).String() != "no limit, trading real money" {
		t.Fatal("the budgets in words")
	}
}

// TestParseMode reads the mode of the /link page and --mode.
func TestParseMode(t *testing.T) {
	for in, want := range map[string]string{"": models.ModePaper, "paper": models.ModePaper, " LIVE ": models.ModeLive} {
		if got, err := agents.ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q %v, want %s", in, got, err, want)
		}
	}
	if _, err := agents.ParseMode("real"); errs.CodeOf(err) != errs.CodeInvalidMode {
		t.Errorf("ParseMode(real): %v", err)
	}
}
