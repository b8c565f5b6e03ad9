package agents_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

func TestParseBudgetValues(t *testing.T) {
	usdc := []struct {
		in   string
		want int64 // 0 = refused
	}{
		{"25", 25_000_000}, {"12.5", 12_500_000}, {" 0.000001 ", 1}, {"1000000000", 1_000_000_000_000_000},
		{"0", 0}, {"-1", 0}, {"0.0000001", 0}, {"1000000000.01", 0}, {"ten", 0}, {"", 0}, {"1e3", 1_000_000_000},
	}
	for _, tc := range usdc {
		got, err := agents.ParseUSDC("--fixed-limit", tc.in)
		if tc.want == 0 {
			if errs.KindOf(err) != errs.Invalid || errs.CodeOf(err) != "invalid_budget" {
				t.Errorf("ParseUSDC(%q) = %d, %v; want invalid_budget", tc.in, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseUSDC(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	pct := []struct {
		in   string
		want int32
	}{
		{"25", 2500}, {"100", 10000}, {"0.01", 1}, {"12.5", 1250},
		{"0", 0}, {"100.01", 0}, {"-5", 0}, {"0.001", 0}, {"half", 0},
	}
	for _, tc := range pct {
		got, err := agents.ParsePercent("--budget-percent", tc.in)
		if tc.want == 0 {
			if errs.KindOf(err) != errs.Invalid {
				t.Errorf("ParsePercent(%q) = %d, %v; want Invalid", tc.in, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParsePercent(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

// TestUpdateBudget: a change sets the limits it names and keeps the
// others, a clear removes one, each change is audited with the limits
// before and after; contradictory, unknown and empty changes are refused
// and leave the limits alone.
func TestUpdateBudget(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		svc, _, userID := setup(t, s)
		a := &models.Agent{UserID: userID, Name: "spender", Scopes: "read trade"}
		if err := s.CreateAgent(ctx, a); err != nil {
			t.Fatal(err)
		}
		i64 := func(v int64) *int64 { return &v }
		i32 := func(v int32) *int32 { return &v }
		steps := []struct {
			name    string
			ch      agents.BudgetChange
			want    agents.Budget
			refused bool
		}{
			{name: "fixed limit", ch: agents.BudgetChange{FixedLimitMicro: i64(25_000_000)},
				want: agents.Budget{FixedLimitMicro: i64(25_000_000)}},
			{name: "percent keeps the fixed limit", ch: agents.BudgetChange{PercentBps: i32(5000)},
				want: agents.Budget{FixedLimitMicro: i64(25_000_000), PercentBps: i32(5000)}},
			{name: "max position value and a new fixed limit", ch: agents.BudgetChange{FixedLimitMicro: i64(10_000_000), MaxPositionValueMicro: i64(7_000_000)},
				want: agents.Budget{FixedLimitMicro: i64(10_000_000), PercentBps: i32(5000), MaxPositionValueMicro: i64(7_000_000)}},
			{name: "clear the percent", ch: agents.BudgetChange{Clear: []string{agents.LimitBudgetPercent}},
				want: agents.Budget{FixedLimitMicro: i64(10_000_000), MaxPositionValueMicro: i64(7_000_000)}},
			{name: "set and clear the same", ch: agents.BudgetChange{FixedLimitMicro: i64(1), Clear: []string{agents.LimitFixed}}, refused: true},
			{name: "unknown name", ch: agents.BudgetChange{Clear: []string{"daily_limit"}}, refused: true},
			{name: "nothing", refused: true},
			{name: "zero amount", ch: agents.BudgetChange{MaxPositionValueMicro: i64(0)}, refused: true},
			{name: "percent above 100", ch: agents.BudgetChange{PercentBps: i32(10001)}, refused: true},
			{name: "clear the rest", ch: agents.BudgetChange{Clear: []string{agents.LimitFixed, agents.LimitMaxPositionValue}}},
		}
		audited := 0
		var last agents.Budget
		for _, st := range steps {
			got, err := svc.UpdateBudget(ctx, userID, "spender", "cli", st.ch)
			if st.refused {
				if errs.KindOf(err) != errs.Invalid || errs.CodeOf(err) != "invalid_budget" {
					t.Fatalf("%s: %v, want invalid_budget", st.name, err)
				}
				stored, _ := svc.Get(ctx, userID, a.ID)
				if !sameBudget(stored.Budget, last) {
					t.Fatalf("%s: a refused change altered the budget to %+v", st.name, stored.Budget)
				}
				continue
			}
			if err != nil || !sameBudget(got.Budget, st.want) {
				t.Fatalf("%s: %+v %v, want %+v", st.name, got.Budget, err, st.want)
			}
			audited++
			last = st.want
		}
		page, err := (&audit.Service{Store: s}).List(ctx, audit.Filter{AgentID: a.ID, Action: audit.ActionAgentUpdate})
		if err != nil || len(page.Entries) != audited {
			t.Fatalf("%d audit entries (%v), want %d", len(page.Entries), err, audited)
		}
		// The last change names what it removed.
		found := false
		for _, e := range page.Entries {
			var d struct {
				Setting string        `json:"setting"`
				From    agents.Budget `json:"from"`
				To      agents.Budget `json:"to"`
			}
			if err := json.Unmarshal(e.Detail, &d); err != nil || d.Setting != "budget" || e.ClientAddr != "cli" || e.UserID != userID {
				t.Fatalf("audit entry %+v %s (%v)", e, e.Detail, err)
			}
			if sameBudget(d.To, agents.Budget{}) {
				found = sameBudget(d.From, agents.Budget{FixedLimitMicro: i64(10_000_000), MaxPositionValueMicro: i64(7_000_000)})
			}
		}
		if !found {
			t.Fatalf("no audit entry records clearing the fixed limit and the max position value: %+v", page.Entries)
		}
	})
}

func sameBudget(a, b agents.Budget) bool {
	eq64 := func(x, y *int64) bool { return x == nil && y == nil || x != nil && y != nil && *x == *y }
	eq32 := func(x, y *int32) bool { return x == nil && y == nil || x != nil && y != nil && *x == *y }
	return eq64(a.FixedLimitMicro, b.FixedLimitMicro) && eq32(a.PercentBps, b.PercentBps) && eq64(a.MaxPositionValueMicro, b.MaxPositionValueMicro)
}
