package positions_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/positions"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/sandbox"
	vchain "github.com/agent-trading/ats/venue/chain"
	"github.com/agent-trading/ats/venue/clob"
)

// The production clients the lead wires satisfy the service's interfaces.
var (
	_ positions.Resolutions  = (*vchain.Client)(nil)
	_ positions.BookSource   = (*clob.Client)(nil)
	_ positions.MarketSource = (*clob.Client)(nil)
	_ positions.Midpointer   = (*clob.Client)(nil)
	_ positions.PriceSource  = (*positions.MidpointPrices)(nil)
	// (orders.Placer is workflows.OrderDesk, checked there.)
	// The order service recomputes positions through this interface.
	_ orders.PositionRecomputer = (*positions.Service)(nil)
)

// TestSandboxVenue lists positions against the real sandbox venue and chain
// through the production clients: the midpoint of the CLOB values an open
// position, and resolving the market on chain turns the winning side
// redeemable at 1 and the losing side settled at 0.
func TestSandboxVenue(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a sandbox venue with an EVM chain")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sb, err := sandbox.Start(ctx, sandbox.Config{Addr: "127.0.0.1:0", Seed: 5, QuoteInterval: time.Hour,
		Ordinary: 2, DisableUpDown: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = sb.Close() })

	cl := clob.NewClient(clob.ConfigFor(sb.Network()))
	st := storetest.NewSQLite(t)
	svc := &positions.Service{Store: st, Prices: &positions.MidpointPrices{Source: cl},
		Resolutions: vchain.New(sb.Network(), sb.EVM().Client(), vchain.Options{}), Books: cl, Markets: cl}

	var m = sb.Venue().Markets()[0]
	require.False(t, m.Resolved)
	u := &models.User{Email: "sandbox@example.com"}
	require.NoError(t, st.CreateUser(ctx, u))
	agentID := models.NewID("agt")
	for i, tok := range m.TokenIDs {
		o := &models.Order{AgentID: agentID, UserID: u.ID, WalletID: "wal_1", TokenID: tok, Side: "BUY", Type: "GTC",
			ConditionID: m.ConditionID, MarketQuestion: m.Question, Outcome: m.Outcomes[i],
			PriceMicro: 500_000, SizeMicro: 10 * M, Status: models.OrderFilled}
		require.NoError(t, st.CreateOrder(ctx, o))
		_, err := st.AddFill(ctx, &models.Fill{OrderID: o.ID, VenueTradeID: "t" + tok[:8], PriceMicro: 400_000, SizeMicro: 10 * M})
		require.NoError(t, err)
		require.NoError(t, svc.Recompute(ctx, agentID, u.ID, tok))
	}

	mid, err := cl.Midpoint(ctx, m.TokenIDs[0])
	require.NoError(t, err)
	l, err := svc.List(ctx, agentID, "open", true)
	require.NoError(t, err)
	require.Len(t, l.Positions, 2)
	assert.Equal(t, m.TokenIDs[0], l.Positions[0].TokenID)
	assert.Equal(t, mid.Round(6).String(), l.Positions[0].CurrentPrice.String(), "valued at the CLOB midpoint")
	assert.Equal(t, mid.Mul(l.Positions[0].Size).Round(6).String(), l.Positions[0].CurrentValue.String())

	_, err = sb.Venue().Resolve(ctx, m.ConditionID, m.Outcomes[0])
	require.NoError(t, err)
	l, err = svc.List(ctx, agentID, "all", true)
	require.NoError(t, err)
	require.Len(t, l.Positions, 2)
	got := map[string]positions.Item{}
	for _, it := range l.Positions {
		got[it.TokenID] = it
	}
	win, lose := got[m.TokenIDs[0]], got[m.TokenIDs[1]]
	assert.Equal(t, models.PositionRedeemable, win.Status)
	assert.Equal(t, "1", win.CurrentPrice.String())
	assert.Equal(t, "6", win.Unrealized.String(), "10 shares bought at 0.40 pay 10")
	assert.Equal(t, models.PositionSettled, lose.Status)
	assert.Equal(t, "0", lose.CurrentPrice.String())
	assert.Equal(t, "-4", lose.Unrealized.String())
}
