package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

func TestLinkingStore(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u := &models.User{Email: "link@example.com", PasswordHash: "x"}
		if err := s.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		a := &models.Agent{UserID: u.ID, Name: "bot", Scopes: "read trade"}
		if err := s.CreateAgent(ctx, a); err != nil {
			t.Fatal(err)
		}
		if !models.HasPrefix(a.ID, models.PrefixAgent) || a.Status != models.AgentActive || a.RateLimitPerMinute != models.DefaultRateLimitPerMinute {
			t.Fatalf("defaults not applied: %+v", a)
		}
		if err := s.CreateAgent(ctx, &models.Agent{UserID: u.ID}); errs.KindOf(err) != errs.Invalid {
			t.Fatalf("nameless agent: %v", err)
		}
		k := &models.APIKey{AgentID: a.ID, UserID: u.ID, Hash: "h1", DisplayPrefix: "ll_x…"}
		if err := s.CreateAPIKey(ctx, k); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateAPIKey(ctx, &models.APIKey{AgentID: a.ID, UserID: u.ID, Hash: "h1"}); errs.KindOf(err) != errs.Conflict {
			t.Fatalf("duplicate hash: %v", err)
		}
		gk, ga, err := s.AgentKeyByHash(ctx, "h1")
		if err != nil || gk.ID != k.ID || ga.ID != a.ID {
			t.Fatalf("AgentKeyByHash = %v %v %v", gk, ga, err)
		}

		lim, pct := int64(5_000_000), int32(2500)
		if err := s.UpdateAgentBudget(ctx, u.ID, a.ID, store.AgentSettings{BudgetLimitMicro: &lim, BudgetPercentBps: &pct}); err != nil {
			t.Fatal(err)
		}
		start, end, tz := "09:00", "17:00", "Europe/Paris"
		if err := s.UpdateAgentHeartbeat(ctx, u.ID, a.ID, store.AgentSettings{HeartbeatIntervalMs: 60000, ActiveHoursStart: &start, ActiveHoursEnd: &end, ActiveHoursTimezone: &tz}); err != nil {
			t.Fatal(err)
		}
		got, err := s.AgentByID(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if *got.BudgetLimitMicro != lim || *got.BudgetPercentBps != pct || got.MaxPositionValueMicro != nil ||
			got.HeartbeatIntervalMs != 60000 || *got.ActiveHoursTimezone != tz {
			t.Fatalf("settings not stored: %+v", got)
		}
		// nil clears.
		if err := s.UpdateAgentBudget(ctx, u.ID, a.ID, store.AgentSettings{}); err != nil {
			t.Fatal(err)
		}
		if got, _ = s.AgentByID(ctx, a.ID); got.BudgetLimitMicro != nil || got.BudgetPercentBps != nil {
			t.Fatalf("budget not cleared: %+v", got)
		}
		if err := s.UpdateAgentHeartbeat(ctx, u.ID, a.ID, store.AgentSettings{}); errs.KindOf(err) != errs.Invalid {
			t.Fatalf("zero interval: %v", err)
		}
		if err := s.UpdateAgentBudget(ctx, "usr_other", a.ID, store.AgentSettings{}); errs.KindOf(err) != errs.NotFound {
			t.Fatalf("other user's agent: %v", err)
		}
		if err := s.UpdateAgentStatus(ctx, u.ID, a.ID, models.AgentRevoked); err != nil {
			t.Fatal(err)
		}
		if err := s.UpdateAgentBudget(ctx, u.ID, a.ID, store.AgentSettings{}); errs.KindOf(err) != errs.Conflict {
			t.Fatalf("revoked agent: %v", err)
		}
	})
}

// Revocation is final even against concurrent pauses and resumes: each of
// them is a single conditional statement, so one that read "active" before
// the revoke committed cannot overwrite "revoked" afterwards.
func TestAgentStatusRevokeIsFinalUnderRace(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u := &models.User{Email: "race@example.com", PasswordHash: "x"}
		if err := s.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		for round := range 8 {
			a := &models.Agent{UserID: u.ID, Name: fmt.Sprintf("racer-%d", round), Scopes: "read"}
			if err := s.CreateAgentWithKey(ctx, a, &models.APIKey{Hash: fmt.Sprintf("race-hash-%d", round)}); err != nil {
				t.Fatal(err)
			}
			start := make(chan struct{})
			var wg sync.WaitGroup
			unexpected := make(chan error, 64)
			for w := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					for j := range 6 {
						status := []string{models.AgentPaused, models.AgentActive}[(w+j)%2]
						if err := s.UpdateAgentStatus(ctx, u.ID, a.ID, status); err != nil && errs.KindOf(err) != errs.Conflict {
							unexpected <- err
						}
					}
				}()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if err := s.UpdateAgentStatus(ctx, u.ID, a.ID, models.AgentRevoked); err != nil {
					unexpected <- err
				}
			}()
			close(start)
			wg.Wait()
			close(unexpected)
			for err := range unexpected {
				t.Fatalf("round %d: %v", round, err)
			}
			k, got, err := s.AgentKeyByHash(ctx, fmt.Sprintf("race-hash-%d", round))
			if err != nil || got.Status != models.AgentRevoked || got.RevokedAt == nil || k.RevokedAt == nil {
				t.Fatalf("round %d: agent %+v key %+v %v", round, got, k, err)
			}
			// And afterwards, deterministically: no way back, revoking again
			// is a no-op, someone else's agent is NotFound.
			for _, status := range []string{models.AgentActive, models.AgentPaused} {
				if err := s.UpdateAgentStatus(ctx, u.ID, a.ID, status); errs.KindOf(err) != errs.Conflict || errs.CodeOf(err) != "agent_revoked" {
					t.Fatalf("%s after revoke: %v", status, err)
				}
			}
			if err := s.UpdateAgentStatus(ctx, u.ID, a.ID, models.AgentRevoked); err != nil {
				t.Fatalf("revoke twice: %v", err)
			}
			if err := s.UpdateAgentStatus(ctx, "usr_other", a.ID, models.AgentPaused); errs.KindOf(err) != errs.NotFound {
				t.Fatalf("someone else's agent: %v", err)
			}
		}
	})
}
