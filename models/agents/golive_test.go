package agents_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

// TestLiveApprovalRevokesThePaperAgent: a paper agent never becomes live
// by itself; going live is a new approval under the same name, which
// revokes the user's paper agents of that name (case and spaces aside)
// in the approval's own transaction, each audited (agent.revoke, reason
// went_live, naming the live agent) and named in the approval's audit
// entry. A paper approval of the same name, a live one of another name,
// another user's paper agent and a live namesake are left alone.
func TestLiveApprovalRevokesThePaperAgent(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		svc, _, userID := setup(t, s)
		rec := svc.linker.rec
		approve := func(user, name, mode string) string {
			t.Helper()
			auth, err := svc.RequestDevice(ctx, name, "10.0.0.1")
			if err != nil {
				t.Fatal(err)
			}
			l, err := svc.DecidableLink(ctx, user, auth.UserCode, "10.0.0.2", audit.ActionDeviceApprove)
			if err != nil {
				t.Fatal(err)
			}
			field := agents.ApprovalBudget{Mode: mode}.Resolved().Field()
			id, err := rec.ApproveDeviceLink(ctx, l.ID, user, "10.0.0.2", field, agents.ApprovalProof(rec.Intents, l.ID, user, "10.0.0.2", field))
			if err != nil {
				t.Fatal(err)
			}
			return id
		}
		status := func(id string) string {
			t.Helper()
			a, err := s.AgentByID(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			return a.Status
		}
		other := &models.User{Email: "other-golive@example.com", PasswordHash: "x"}
		if err := s.CreateUser(ctx, other); err != nil {
			t.Fatal(err)
		}

		paper := approve(userID, "trader", models.ModePaper)
		secondPaper := approve(userID, "trader", models.ModePaper)
		otherPaper := approve(other.ID, "trader", models.ModePaper)
		elsewhere := approve(userID, "scout", models.ModePaper)
		if status(paper) != models.AgentActive || status(secondPaper) != models.AgentActive {
			t.Fatal("a paper approval of the same name revoked a paper agent")
		}
		if names, err := agents.PaperNamesakes(ctx, s, userID, "  TRADER "); err != nil || len(names) != 2 {
			t.Fatalf("paper namesakes %v %v", names, err)
		}
		approve(userID, "scout-live", models.ModeLive)
		if status(elsewhere) != models.AgentActive {
			t.Fatal("a live approval of another name revoked a paper agent")
		}

		live := approve(userID, " Trader", models.ModeLive)
		for _, id := range []string{paper, secondPaper} {
			if status(id) != models.AgentRevoked {
				t.Fatalf("paper agent %s is %s after the live approval", id, status(id))
			}
			page, err := (&audit.Service{Store: s}).List(ctx, audit.Filter{AgentID: id, Action: audit.ActionAgentRevoke})
			if err != nil || len(page.Entries) != 1 {
				t.Fatalf("revocation audited %d times (%v)", len(page.Entries), err)
			}
			var d map[string]any
			if err := json.Unmarshal(page.Entries[0].Detail, &d); err != nil {
				t.Fatal(err)
			}
			if d["reason"] != "went_live" || d["live_agent"] != live || d["to"] != models.AgentRevoked {
				t.Fatalf("revocation audit %v", d)
			}
		}
		if status(live) != models.AgentActive || status(otherPaper) != models.AgentActive || status(elsewhere) != models.AgentActive {
			t.Fatal("the live agent, another user's paper agent or a paper agent of another name was touched")
		}
		page, err := (&audit.Service{Store: s}).List(ctx, audit.Filter{AgentID: live, Action: audit.ActionDeviceApprove})
		if err != nil || len(page.Entries) != 1 {
			t.Fatalf("approval audited %d times (%v)", len(page.Entries), err)
		}
		var d struct {
			Mode    string   `json:"mode"`
			Revoked []string `json:"revoked_paper_agents"`
		}
		if err := json.Unmarshal(page.Entries[0].Detail, &d); err != nil {
			t.Fatal(err)
		}
		if d.Mode != models.ModeLive || len(d.Revoked) != 2 {
			t.Fatalf("approval audit %+v", d)
		}
		// A second live approval of the name finds nothing left to revoke.
		again := approve(userID, "trader", models.ModeLive)
		if status(live) != models.AgentActive || status(again) != models.AgentActive {
			t.Fatal("a live namesake was revoked")
		}
	})
}
