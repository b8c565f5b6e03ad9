package workflows_test

import (
	"context"
	"sync"
	"testing"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

// sibling creates another active agent of p's user: the two share the
// user's wallet.
func (e *placeEnv) sibling(t *testing.T, p orders.Principal) orders.Principal {
	t.Helper()
	a := &models.Agent{UserID: p.UserID, Name: "sibling", Scopes: "read trade cancel"}
	if err := e.st.CreateAgent(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	return orders.Principal{AgentID: a.ID, UserID: p.UserID, ClientAddr: "203.0.113.9"}
}

// holds gives p an open position of micro shares of token at 0.40.
func (e *placeEnv) holds(t *testing.T, p orders.Principal, token string, micro int64) *models.Position {
	t.Helper()
	pos := &models.Position{AgentID: p.AgentID, UserID: p.UserID, TokenID: token, ConditionID: e.market.ConditionID,
		Outcome: "Yes", SizeMicro: micro, AvgEntryMicro: 400_000, Status: models.PositionOpen}
	if err := e.st.SavePosition(context.Background(), pos); err != nil {
		t.Fatal(err)
	}
	return pos
}

// TestSellOnlyOwnShares performs the shared-wallet attack: agent A holds
// 10 shares, which the user's wallet holds for it (the wallet holds 100);
// agent B of the same user, holding nothing, tries to sell them. B is
// refused (409 insufficient_position, audited as denied) and A's position
// is untouched. A may sell its own shares, but its live sells together
// never exceed what it holds, also when sent at the same time.
func TestSellOnlyOwnShares(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		e := newPlaceEnv(t, st)
		e.svc.Audit = &audit.Service{Store: st}
		yes := e.market.TokenIDs[0]
		a := e.agent(t, 0)
		b := e.sibling(t, a)
		posA := e.holds(t, a, yes, 10_000_000)
		sell := func(size string) orders.PlaceRequest {
			return orders.PlaceRequest{TokenID: yes, Side: orders.SideSell, Price: d("0.5"), Size: d(size)}
		}
		refused := func(t *testing.T, p orders.Principal, r orders.PlaceRequest) {
			t.Helper()
			_, err := e.desk.Place(ctx, p, r)
			if !errs.Is(err, errs.Conflict) || errs.CodeOf(err) != errs.CodeInsufficientPosition {
				t.Fatalf("sell of %s by %s: %v (code %q), want Conflict %s", r.Size, p.AgentID, err, errs.CodeOf(err), errs.CodeInsufficientPosition)
			}
		}

		// The attack, and its dry run.
		refused(t, b, sell("10"))
		dry := sell("10")
		dry.DryRun = true
		refused(t, b, dry)
		dust := sell("0.01")
		dust.Type = orders.TypeFAK // no minimum size
		refused(t, b, dust)
		if n, err := st.CountOrders(ctx, store.OrderFilter{AgentID: b.AgentID}); err != nil || n != 0 {
			t.Fatalf("agent B has %d orders (%v)", n, err)
		}
		got, err := st.PositionForAgent(ctx, a.AgentID, posA.ID)
		if err != nil || got.SizeMicro != 10_000_000 || got.Status != models.PositionOpen {
			t.Fatalf("A's position after B's attempts: %+v %v", got, err)
		}
		page, err := e.svc.Audit.List(ctx, audit.Filter{AgentID: b.AgentID, Action: "order.place"})
		if err != nil || len(page.Entries) != 2 || page.Entries[0].Result != audit.Denied || page.Entries[1].Result != audit.Denied {
			t.Fatalf("B's refused sells audited as %+v (%v), want 2 denied entries (the dry run is not audited)", page.Entries, err)
		}

		// A's own sells: 5 (resting), then 6 is more than the 5 left, 5 is
		// not; nothing is left after that.
		if _, err := e.desk.Place(ctx, a, sell("5")); err != nil {
			t.Fatalf("A sells 5 of its 10: %v", err)
		}
		refused(t, a, sell("6"))
		if _, err := e.desk.Place(ctx, a, sell("5")); err != nil {
			t.Fatalf("A sells its last 5: %v", err)
		}
		refused(t, a, dust)

		// Two sells of a whole position at once: the user's lock lets one
		// through.
		c := e.sibling(t, a)
		e.holds(t, c, e.market.TokenIDs[1], 8_000_000)
		var wg sync.WaitGroup
		results := make([]error, 4)
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, results[i] = e.desk.Place(ctx, c, orders.PlaceRequest{TokenID: e.market.TokenIDs[1], Side: orders.SideSell, Price: d("0.5"), Size: d("8")})
			}()
		}
		wg.Wait()
		ok := 0
		for _, err := range results {
			switch {
			case err == nil:
				ok++
			case errs.CodeOf(err) != errs.CodeInsufficientPosition:
				t.Fatalf("concurrent sell: %v", err)
			}
		}
		if ok != 1 {
			t.Fatalf("%d of the concurrent sells of the whole position went through, want 1", ok)
		}
	})
}

// TestStrategySellsOnlyItsOwnShares: the strategies of one agent share
// the agent's position, and one that sells only its own shares
// (OwnSharesOnly: BUY_LOW_SELL_HIGH) sells only what its own orders
// bought (their fills, less what its sells filled and what its live sells
// offer), under the same lock as the agent's check, which still caps the
// agent's total (and alone caps a PRICE_ALERT's SELL of the agent's
// shares).
func TestStrategySellsOnlyItsOwnShares(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		e := newPlaceEnv(t, st)
		yes := e.market.TokenIDs[0]
		p := e.agent(t, 0)
		// The agent holds 12: strategy A bought 5, B bought 5 (3 more of
		// B's buy is still open), the agent itself 2.
		e.holds(t, p, yes, 12_000_000)
		bought := func(strategy string, size, filled int64, status string) {
			t.Helper()
			sid := strategy
			o := &models.Order{AgentID: p.AgentID, UserID: p.UserID, WalletID: "wal_1", TokenID: yes, Side: orders.SideBuy, Type: "FOK",
				RequestType: orders.TypeMarket, PriceMicro: 400_000, SizeMicro: size, FilledSizeMicro: filled, AvgFillPriceMicro: 400_000,
				Status: status, StrategyID: &sid}
			if err := st.CreateOrder(ctx, o); err != nil {
				t.Fatal(err)
			}
		}
		bought("str_a", 5_000_000, 5_000_000, models.OrderFilled)
		bought("str_b", 8_000_000, 5_000_000, models.OrderPartiallyFilled)
		sell := func(strategy, size string) error {
			_, err := e.desk.Place(ctx, p, orders.PlaceRequest{TokenID: yes, Side: orders.SideSell, Type: orders.TypeFAK,
				Price: d("0.5"), Size: d(size), StrategyID: strategy, OwnSharesOnly: strategy != "" && strategy != "str_alert"})
			return err
		}
		steps := []struct {
			name, strategy, size string
			ok                   bool
		}{
			{"A sells more than it bought (the agent holds enough)", "str_a", "5.01", false},
			{"a strategy that bought nothing sells", "str_c", "1", false},
			{"A sells what it bought", "str_a", "5", true},
			{"A sells again while its sell still offers those shares", "str_a", "0.01", false},
			{"B sells part of what its buy filled (not what is still open)", "str_b", "3", true},
			{"B sells the rest of its fills", "str_b", "2", true},
			{"B sells beyond its fills", "str_b", "0.01", false},
			{"a PRICE_ALERT SELL sells 1 of the agent's shares (no cap of its own)", "str_alert", "1", true},
			{"the agent sells its own last 1", "", "1", true},
			{"the agent sells beyond its position", "", "0.01", false},
			{"a PRICE_ALERT SELL beyond the agent's position", "str_alert", "0.01", false},
		}
		for _, s := range steps {
			err := sell(s.strategy, s.size)
			switch {
			case s.ok && err != nil:
				t.Fatalf("%s: %v", s.name, err)
			case !s.ok && errs.CodeOf(err) != errs.CodeInsufficientPosition:
				t.Fatalf("%s: %v, want %s", s.name, err, errs.CodeInsufficientPosition)
			}
		}
	})
}
