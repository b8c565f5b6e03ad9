package dashboard_test

import (
	"context"
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/api/dashboard"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/positions"
	"github.com/agent-trading/ats/models/positions/positionstest"
	"github.com/agent-trading/ats/models/users"
	"github.com/agent-trading/ats/venue/clob"
)

// TestPaperAndLiveApart: a user with a live agent and a paper agent, each
// with an order, an open position and (the paper one) a strategy. Every
// paper order, position and strategy carries the paper badge on the
// orders, positions and strategies pages and on its own page, the live
// ones none; the positions page totals live and paper apart, and the
// overview shows the live figures (value = wallet cash + live positions
// only) with the paper balance and paper P&L in a card of their own.
func TestPaperAndLiveApart(t *testing.T) {
	venue := positionstest.NewVenue()
	condLive, condPaper := positionstest.ConditionID("live"), positionstest.ConditionID("paper")
	venue.AddMarket(condLive, "Will the live market resolve?", clob.Tick001, "71", "72")
	venue.AddMarket(condPaper, "Will the paper market resolve?", clob.Tick001, "81", "82")
	e := newEnvWith(t, users.SignupOpen, func(d *dashboard.Deps) {
		st := d.Portfolio.Store
		d.Positions = &positions.Service{Store: st, Prices: positionstest.NewPrices(map[string]string{"71": "0.50", "81": "0.90"}),
			Resolutions: positionstest.NewChain(), Books: venue, Markets: venue}
		d.Portfolio.Positions = d.Positions
		d.Orders = &orders.Service{Store: st}
	})
	c := e.signUp("pat@example.com", "correct horse battery")
	uid, liveID := e.agentFor("pat@example.com", "real-bot")
	_, paperID := e.agentFor("pat@example.com", "practice-bot")
	ctx := context.Background()
	require.NoError(t, e.store.DB().Model(&models.Agent{}).Where("id = ?", paperID).Update("mode", models.ModePaper).Error)

	order := func(agentID, mode, token, cond string) *models.Order {
		o := &models.Order{AgentID: agentID, UserID: uid, WalletID: "wal_1", TokenID: token, ConditionID: cond, MarketQuestion: "Q " + mode,
			Outcome: "Yes", Side: "BUY", Type: "GTC", RequestType: "LIMIT", PriceMicro: 400_000, SizeMicro: 10_000_000, Mode: mode}
		require.NoError(t, e.store.CreateOrder(ctx, o))
		return o
	}
	liveOrder, paperOrder := order(liveID, models.ModeLive, "71", condLive), order(paperID, models.ModePaper, "81", condPaper)
	// 10 shares each at 0.40: live worth $5 (+$1), paper worth $9 (+$5).
	for _, p := range []*models.Position{
		{AgentID: liveID, UserID: uid, TokenID: "71", ConditionID: condLive, Question: "Will the live market resolve?", Outcome: "Yes", SizeMicro: 10_000_000, AvgEntryMicro: 400_000},
		{AgentID: paperID, UserID: uid, TokenID: "81", ConditionID: condPaper, Question: "Will the paper market resolve?", Outcome: "Yes", SizeMicro: 10_000_000, AvgEntryMicro: 400_000},
	} {
		require.NoError(t, e.store.SavePosition(ctx, p))
	}
	paperStrategy := e.createStrategy(uid, paperID, "PRICE_ALERT", `{"tokenId":"1001","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.35,"size":10,"orderType":"LIMIT"}`)
	liveStrategy := e.createStrategy(uid, liveID, "PRICE_ALERT", `{"tokenId":"1001","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.30,"size":10,"orderType":"LIMIT"}`)
	assert.Equal(t, models.ModePaper, paperStrategy.Mode)
	assert.Equal(t, models.ModeLive, liveStrategy.Mode)

	const badge = `<span class="badge paper"`
	until := func(body, id, end string) string {
		t.Helper()
		i := indexOf(body, id)
		require.GreaterOrEqual(t, i, 0, "%s is listed", id)
		n := indexOf(body[i:], end)
		require.GreaterOrEqual(t, n, 0)
		return body[i : i+n]
	}
	rowOf := func(body, id string) string {
		t.Helper()
		i := indexOf(body, id)
		require.GreaterOrEqual(t, i, 0, "%s is listed", id)
		end := indexOf(body[i:], "</tr>")
		require.GreaterOrEqual(t, end, 0)
		return body[i : i+end]
	}
	r := c.Get("/orders")
	require.Equal(t, http.StatusOK, r.Status, r.Body)
	assert.Contains(t, rowOf(r.Body, `id="row-`+paperOrder.ID), badge)
	assert.NotContains(t, rowOf(r.Body, `id="row-`+liveOrder.ID), badge)

	r = c.Get("/strategies")
	require.Equal(t, http.StatusOK, r.Status, r.Body)
	assert.Contains(t, rowOf(r.Body, `/strategies/`+paperStrategy.ID), badge)
	assert.NotContains(t, rowOf(r.Body, `/strategies/`+liveStrategy.ID), badge)

	r = c.Get("/orders/" + paperOrder.ID)
	assert.Contains(t, r.Body, `id="order-mode"`)
	assert.NotContains(t, c.Get("/orders/"+liveOrder.ID).Body, `id="order-mode"`)
	assert.Contains(t, c.Get("/strategies/"+paperStrategy.ID).Body, `id="strategy-mode"`)
	assert.NotContains(t, c.Get("/strategies/"+liveStrategy.ID).Body, `id="strategy-mode"`)

	r = c.Get("/positions")
	require.Equal(t, http.StatusOK, r.Status, r.Body)
	body := html.UnescapeString(r.Body)
	assert.Contains(t, rowOf(body, "Will the paper market resolve?"), badge)
	assert.NotContains(t, rowOf(body, "Will the live market resolve?"), badge)
	live, paper := until(body, `id="positions-total-live"`, "</p>"), until(body, `id="positions-total-paper"`, "</p>")
	assert.Contains(t, live, "$5.00")
	assert.Contains(t, live, "+$1.00")
	assert.Contains(t, paper, "$9.00")
	assert.Contains(t, paper, "+$5.00")
	assert.NotContains(t, body, "$14.00", "no total mixes paper with live")

	r = c.Get("/")
	require.Equal(t, http.StatusOK, r.Status, r.Body)
	body = html.UnescapeString(r.Body)
	assert.Contains(t, body, `<div class="stat" id="positions-value">$5.00</div>`, "the live positions only")
	assert.Contains(t, body, `id="paper-totals"`)
	assert.Contains(t, body, `<dd id="paper-balance">$1,000.00</dd>`, "the default paper balance")
	assert.Contains(t, body, `id="paper-positions-value">$9.00`)
	assert.NotContains(t, body, "$14.00", "no total mixes paper with live")
	assert.Contains(t, rowOf(body, "Will the paper market resolve?"), badge)
	assert.NotContains(t, rowOf(body, "Will the live market resolve?"), badge)
}

func indexOf(s, sub string) int { return strings.Index(s, sub) }
