package workflows_test

import (
	"context"
	"sync"
	"testing"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

// TestNothingIsPlacedForAStoppedAgent: the order service refuses every
// order in the name of a paused or revoked agent, SELLs as well as BUYs
// (only BUYs were checked, in the budget reservation): the API's orders
// and closes, a strategy's orders and a copy trade's copies all come
// through Accept, so this is the one check that binds them. Refused
// 409 agent_inactive, audited as denied, nothing stored; a dry run is
// refused too. The user's own order for the agent (a close from the
// dashboard, Principal.ByUser) is not bound by the agent's status. Sells
// racing with a pause are each either accepted before it or refused
// after it: every order accepted is there for the pause's caller to see.
func TestNothingIsPlacedForAStoppedAgent(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		e := newPlaceEnv(t, st)
		e.svc.Audit = &audit.Service{Store: st}
		ag := &agents.Service{Store: st}
		yes := e.market.TokenIDs[0]
		p := e.agent(t, 0)
		e.holds(t, p, yes, 60_000_000)
		sell := orders.PlaceRequest{TokenID: yes, Side: orders.SideSell, Price: d("0.6"), Size: d("5")}
		buy := orders.PlaceRequest{TokenID: yes, Side: orders.SideBuy, Price: d("0.4"), Size: d("5")}
		dry := func(r orders.PlaceRequest) orders.PlaceRequest { r.DryRun = true; return r }
		count := func() int64 {
			t.Helper()
			n, err := st.CountOrders(ctx, store.OrderFilter{AgentID: p.AgentID})
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		refused := func(what string) {
			t.Helper()
			before := count()
			for _, r := range []orders.PlaceRequest{sell, buy, dry(sell), dry(buy)} {
				if _, err := e.desk.Place(ctx, p, r); !errs.Is(err, errs.Conflict) || errs.CodeOf(err) != errs.CodeAgentInactive {
					t.Fatalf("%s: %s (dry run %v) placed for the agent: %v", what, r.Side, r.DryRun, err)
				}
			}
			if n := count(); n != before {
				t.Fatalf("%s: %d orders stored", what, n-before)
			}
		}

		if _, err := ag.Pause(ctx, p.UserID, p.AgentID, "test"); err != nil {
			t.Fatal(err)
		}
		refused("paused")
		// The user's close of the agent's position is theirs.
		user := p
		user.ByUser = true
		if _, err := e.desk.Place(ctx, user, sell); err != nil {
			t.Fatalf("the user's sell for a paused agent: %v", err)
		}
		if _, err := ag.Resume(ctx, p.UserID, p.AgentID, "test"); err != nil {
			t.Fatal(err)
		}
		if _, err := e.desk.Place(ctx, p, sell); err != nil {
			t.Fatalf("a resumed agent's sell: %v", err)
		}

		// Sells racing with a pause.
		var wg sync.WaitGroup
		results := make([]error, 8)
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, results[i] = e.desk.Place(ctx, p, sell)
			}()
		}
		if _, err := ag.Pause(ctx, p.UserID, p.AgentID, "test"); err != nil {
			t.Fatal(err)
		}
		paused := count()
		wg.Wait()
		accepted := 0
		for _, err := range results {
			switch {
			case err == nil:
				accepted++
			case errs.CodeOf(err) != errs.CodeAgentInactive:
				t.Fatalf("a racing sell: %v", err)
			}
		}
		// Every sell accepted was stored before the pause committed.
		if n := count(); n != paused || int(n) != 2+accepted {
			t.Fatalf("%d orders after the pause returned, %d after the racing sells ended, %d accepted", paused, n, accepted)
		}
		refused("paused again")

		if _, err := ag.Revoke(ctx, p.UserID, p.AgentID, "test"); err != nil {
			t.Fatal(err)
		}
		refused("revoked")
		page, err := e.svc.Audit.List(ctx, audit.Filter{AgentID: p.AgentID, Action: audit.ActionOrderPlace, Result: audit.Denied, Limit: 100})
		if want := 3*2 + len(results) - accepted; err != nil || len(page.Entries) != want {
			t.Fatalf("denied placements audited: %d (%v), want %d (dry runs are not audited)", len(page.Entries), err, want)
		}
		a, err := st.AgentByID(ctx, p.AgentID)
		if err != nil || a.Status != models.AgentRevoked {
			t.Fatalf("agent %+v %v", a, err)
		}
	})
}
