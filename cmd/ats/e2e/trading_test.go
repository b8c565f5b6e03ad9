package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/sandbox/exchange"
	"github.com/agent-trading/ats/workflows"
)

// TestOrderLifecycleAgainstTheSandbox drives the order endpoints end to end
// against the real sandbox venue, Temporal and the worker: a resting limit
// order is listed and cancelled (previousStatus OPEN) and a second cancel
// is refused; a FOK that cannot fill entirely fails and holds no budget; a
// marketable order fills and is recorded with its fills.
func TestOrderLifecycleAgainstTheSandbox(t *testing.T) {
	e, tr, m := newTradingTest(t, tradingOpts{}, "Will the lifecycle test pass")
	yes := m.TokenIDs[0]

	// A BUY far below the book rests.
	status, body := e.call(t, tr.key, "POST", "/orders", map[string]any{"tokenId": yes, "side": "BUY", "price": 0.2, "size": 10})
	if status != http.StatusOK {
		t.Fatalf("place limit: %d %s", status, body)
	}
	rest := dataOrder(t, body)
	if rest.Status != models.OrderOpen || !strings.HasPrefix(rest.ID, "ord_") || !strings.HasPrefix(rest.PolyOrderID, "0x") ||
		rest.MarketQuestion != "Will the lifecycle test pass" || rest.Outcome != "Yes" || rest.Price.String() != "0.2" || rest.Size.String() != "10" {
		t.Fatalf("resting order: %+v", rest)
	}
	status, body = e.call(t, tr.key, "GET", "/orders?status=OPEN", nil)
	var listed []apiOrder
	if status != http.StatusOK || json.Unmarshal(body["data"], &listed) != nil || len(listed) != 1 || listed[0].ID != rest.ID {
		t.Fatalf("list open: %d %s", status, body)
	}
	var sync struct {
		Enabled bool `json:"enabled"`
		Updated int  `json:"updated"`
	}
	if json.Unmarshal(body["sync"], &sync) != nil || !sync.Enabled || sync.Updated != 0 {
		t.Fatalf("sync member: %s", body["sync"])
	}
	// While it rests, the order holds 2 USDC of budget.
	status, body = e.call(t, tr.key, "GET", "/budget", nil)
	if status != http.StatusOK || !strings.Contains(string(body["data"]), `"used":2`) {
		t.Fatalf("budget while resting: %d %s", status, body["data"])
	}

	status, body = e.call(t, tr.key, "DELETE", "/orders/"+rest.ID, nil)
	if status != http.StatusOK {
		t.Fatalf("cancel: %d %s", status, body)
	}
	c := dataOrder(t, body)
	if c.ID != rest.ID || c.Status != models.OrderCancelled || c.PreviousStatus != models.OrderOpen {
		t.Fatalf("cancel answer: %+v", c)
	}
	status, body = e.call(t, tr.key, "DELETE", "/orders/"+rest.ID, nil)
	if status != http.StatusConflict || string(body["success"]) != "false" || !strings.Contains(string(body["code"]), "order_not_cancellable") {
		t.Fatalf("second cancel: %d %s", status, body)
	}
	status, body = e.call(t, tr.key, "GET", "/orders/"+rest.ID, nil)
	if status != http.StatusOK || dataOrder(t, body).Status != models.OrderCancelled {
		t.Fatalf("get cancelled: %d %s", status, body)
	}
	e.awaitWorkflowDone(t, workflows.WorkflowID(workflows.KindOrder, rest.ID))
	e.recordHistory(t, workflows.WorkflowID(workflows.KindOrder, rest.ID))

	// A FOK for more than the book holds at its price (and that the
	// wallet can pay for) fails and holds nothing. The market makers
	// re-quote every 2 s, so ask for twice the depth read here, as far as
	// the demo wallet affords (a margin of 5 shares was outgrown under load).
	limit := decimal.RequireFromString("0.55")
	depth := e.askDepth(t, yes, limit)
	fokSize := decimal.Min(depth.Mul(decimal.NewFromInt(2)).Ceil(), decimal.NewFromInt(900).Div(limit).Floor())
	if fokSize.LessThan(depth.Add(decimal.NewFromInt(5))) {
		t.Fatalf("the book holds %s shares up to %s: too deep for the demo wallet to test an unfillable FOK", depth, limit)
	}
	status, body = e.call(t, tr.key, "POST", "/orders", map[string]any{"tokenId": yes, "side": "BUY", "price": limit, "size": fokSize, "type": "FOK"})
	if status != http.StatusOK {
		t.Fatalf("unfillable FOK: %d %s", status, body)
	}
	if o := dataOrder(t, body); o.Status != models.OrderFailed || o.FilledSize.String() != "0" {
		t.Fatalf("unfillable FOK: %+v", o)
	}
	totals, err := e.store.BudgetTotals(context.Background(), tr.userID, tr.agentID)
	if err != nil {
		t.Fatal(err)
	}
	if totals.AgentHeldMicro != 0 || totals.AgentUsedMicro != 0 {
		t.Fatalf("budget after cancel and failed FOK: %+v", totals)
	}

	// A marketable BUY fills at once.
	status, body = e.call(t, tr.key, "POST", "/orders", map[string]any{"tokenId": yes, "side": "BUY", "price": 0.6, "size": 5, "type": "MARKET"})
	if status != http.StatusOK {
		t.Fatalf("market buy: %d %s", status, body)
	}
	mk := dataOrder(t, body)
	if mk.Status != models.OrderFilled || mk.FilledSize.String() != "5" {
		t.Fatalf("market buy: %+v", mk)
	}
	fills, err := e.store.ListFills(context.Background(), mk.ID)
	if err != nil || len(fills) == 0 {
		t.Fatalf("fills of the market buy: %v %v", fills, err)
	}
	// Placements are audited: accepted ones as success, the refused and
	// failed ones too.
	page, err := e.svc.Audit.List(context.Background(), audit.Filter{UserID: tr.userID, Action: "order.place"})
	if err != nil || len(page.Entries) < 3 {
		t.Fatalf("order.place audit entries: %+v %v", page, err)
	}

	// An order stored PENDING whose workflow never started (the API died
	// in between) is picked up by the stale-order sweep and placed.
	ctx := context.Background()
	orphan := e.orphanOrder(t, tr, yes)
	if n, err := e.svc.OrderDesk.ResumeStale(ctx, time.Now().Add(2*time.Minute), time.Minute); err != nil || n != 1 {
		t.Fatalf("ResumeStale = %d, %v", n, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		o, err := e.store.OrderByID(ctx, orphan.ID)
		if err != nil {
			t.Fatal(err)
		}
		if o.Status == models.OrderOpen {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("orphaned order still %s", o.Status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestPositionsAgainstTheSandbox: a market buy fills, the position appears
// with the fill's average entry and a P&L consistent with the current
// price; closing it sells the whole position through the order path and
// the position is closed.
func TestPositionsAgainstTheSandbox(t *testing.T) {
	e, tr, m := newTradingTest(t, tradingOpts{}, "Will positions add up")
	yes := m.TokenIDs[0]

	status, body := e.call(t, tr.key, "POST", "/orders", map[string]any{"tokenId": yes, "side": "BUY", "price": 0.7, "size": 10, "type": "MARKET"})
	if status != http.StatusOK {
		t.Fatalf("market buy: %d %s", status, body)
	}
	buy := dataOrder(t, body)
	if buy.Status != models.OrderFilled || buy.FilledSize.String() != "10" {
		t.Fatalf("market buy: %+v", buy)
	}

	type position struct {
		ID     string `json:"id"`
		Status string `json:"status"`
		Market struct {
			Question string `json:"question"`
			Outcome  string `json:"outcome"`
		} `json:"market"`
		Size          json.Number `json:"size"`
		AvgEntryPrice json.Number `json:"avgEntryPrice"`
		CurrentPrice  json.Number `json:"currentPrice"`
		CurrentValue  json.Number `json:"currentValue"`
		PnL           struct {
			Unrealized        json.Number `json:"unrealized"`
			UnrealizedPercent json.Number `json:"unrealizedPercent"`
		} `json:"pnl"`
	}
	var list struct {
		Positions []position `json:"positions"`
		Summary   struct {
			TotalPositions     int         `json:"totalPositions"`
			TotalUnrealizedPnl json.Number `json:"totalUnrealizedPnl"`
			TotalValue         json.Number `json:"totalValue"`
		} `json:"summary"`
	}
	status, body = e.call(t, tr.key, "GET", "/positions?source=clob", nil)
	if status != http.StatusOK || json.Unmarshal(body["data"], &list) != nil || len(list.Positions) != 1 {
		t.Fatalf("positions: %d %s", status, body)
	}
	p := list.Positions[0]
	dec := func(n json.Number) decimal.Decimal { return decimal.RequireFromString(n.String()) }
	wantPnl := dec(p.CurrentPrice).Sub(dec(buy.AvgFillPrice)).Mul(decimal.NewFromInt(10))
	if !strings.HasPrefix(p.ID, "pos_") || p.Size.String() != "10" || p.AvgEntryPrice.String() != buy.AvgFillPrice.String() ||
		p.Market.Question != "Will positions add up" || p.Market.Outcome != "Yes" || !dec(p.PnL.Unrealized).Equal(wantPnl) ||
		list.Summary.TotalPositions != 1 || !dec(list.Summary.TotalValue).Equal(dec(p.CurrentValue)) {
		t.Fatalf("position %+v (want unrealized %s) summary %+v", p, wantPnl, list.Summary)
	}

	status, body = e.call(t, tr.key, "POST", "/positions/"+p.ID+"/close", map[string]any{})
	if status != http.StatusOK {
		t.Fatalf("close: %d %s", status, body)
	}
	var closed struct {
		Order struct {
			ID           string      `json:"id"`
			Status       string      `json:"status"`
			Side         string      `json:"side"`
			FilledSize   json.Number `json:"filledSize"`
			AvgFillPrice json.Number `json:"avgFillPrice"`
		} `json:"order"`
		Position struct {
			ID       string `json:"id"`
			IsClosed bool   `json:"isClosed"`
		} `json:"position"`
		Execution struct {
			Proceeds   json.Number `json:"proceeds"`
			Pnl        json.Number `json:"pnl"`
			PnlPercent json.Number `json:"pnlPercent"`
		} `json:"execution"`
	}
	if err := json.Unmarshal(body["data"], &closed); err != nil {
		t.Fatal(err)
	}
	proceeds := dec(closed.Order.FilledSize).Mul(dec(closed.Order.AvgFillPrice))
	if closed.Order.Side != "SELL" || closed.Order.Status != models.OrderFilled || closed.Order.FilledSize.String() != "10" ||
		closed.Position.ID != p.ID || !closed.Position.IsClosed || !dec(closed.Execution.Proceeds).Equal(proceeds) ||
		!dec(closed.Execution.Pnl).Equal(proceeds.Sub(dec(buy.AvgFillPrice).Mul(decimal.NewFromInt(10)))) {
		fills, _ := e.store.TokenFills(context.Background(), tr.agentID, yes)
		pos, _ := e.store.PositionByToken(context.Background(), tr.agentID, yes)
		t.Fatalf("close answer: %s\nfills %+v\nposition %+v", body["data"], fills, pos)
	}
	status, body = e.call(t, tr.key, "GET", "/positions", nil)
	if status != http.StatusOK || json.Unmarshal(body["data"], &list) != nil || len(list.Positions) != 0 {
		t.Fatalf("open positions after the close: %d %s", status, body)
	}
}

// TestSubmitReconcilesBeforeReposting: a placement attempt that posted the
// order but died before recording the answer (the order is still PENDING
// with its signed order stored) is retried: the retry finds the order on
// the venue by its hash and adopts it instead of posting it again.
func TestSubmitReconcilesBeforeReposting(t *testing.T) {
	e, tr, m := newTradingTest(t, tradingOpts{noWorker: true}, "Will the retry be safe")
	ctx := context.Background()
	o := &models.Order{AgentID: tr.agentID, UserID: tr.userID, WalletID: tr.wallet.ID, TokenID: m.TokenIDs[0], Side: "BUY",
		Type: "GTC", RequestType: "LIMIT", PriceMicro: 300_000, SizeMicro: 5_000_000, ReservedMicro: 1_500_000}
	o.ID = models.NewID(models.PrefixOrder)
	if _, err := e.svc.Budget.ReserveWith(ctx, tr.agentID, tr.userID, o.ReservedMicro, o.ID,
		func(tx *store.Store) error { return tx.CreateOrder(ctx, o) }); err != nil {
		t.Fatal(err)
	}
	first, err := e.svc.Orders.Submit(ctx, o.ID)
	if err != nil || first.Status != models.OrderOpen || first.PolyOrderID == "" {
		t.Fatalf("first submit: %+v %v", first, err)
	}
	// The attempt "dies" after the post: the row still says PENDING.
	pending := models.OrderPending
	if err := e.store.UpdateOrder(ctx, o.ID, nil, store.OrderUpdate{Status: &pending}); err != nil {
		t.Fatal(err)
	}
	again, err := e.svc.Orders.Submit(ctx, o.ID)
	if err != nil || again.Status != models.OrderOpen || again.PolyOrderID != first.PolyOrderID {
		t.Fatalf("retried submit: %+v %v", again, err)
	}
	venue := e.sb.Venue().Engine().Orders(exchange.OrderFilter{Maker: common.HexToAddress(tr.wallet.Address), TokenID: m.TokenIDs[0]})
	if len(venue) != 1 || !strings.EqualFold(venue[0].ID, first.PolyOrderID) {
		t.Fatalf("the venue holds %d orders of the wallet in the token, want exactly the one posted", len(venue))
	}
}

// TestRedeemAgainstTheSandbox: approvals are idempotent; a bought position
// becomes redeemable when its market resolves, and redeeming raises the
// wallet's collateral by exactly the winning shares; the position is
// settled and a second redeem redeems nothing.
func TestRedeemAgainstTheSandbox(t *testing.T) {
	e, tr, m := newTradingTest(t, tradingOpts{}, "Will redemption pay")
	yes := m.TokenIDs[0]

	// The demo wallet approved everything when it was seeded.
	status, body := e.call(t, tr.key, "POST", "/wallet/approve", map[string]any{"token": "all"})
	if status != http.StatusOK || strings.Contains(string(body["data"]), `"status":"approved"`) ||
		!strings.Contains(string(body["data"]), `"transactionHashes":[]`) {
		t.Fatalf("approve all on an approved wallet: %d %s", status, body)
	}

	status, body = e.call(t, tr.key, "POST", "/orders", map[string]any{"tokenId": yes, "side": "BUY", "price": 0.7, "size": 10, "type": "MARKET"})
	if status != http.StatusOK || dataOrder(t, body).Status != models.OrderFilled {
		t.Fatalf("market buy: %d %s", status, body)
	}
	e.control(t, "/control/markets/"+m.ConditionID+"/resolve", `{"winner":"Yes"}`, nil)

	type pos struct {
		ID     string      `json:"id"`
		Status string      `json:"status"`
		Size   json.Number `json:"size"`
	}
	var list struct {
		Positions []pos `json:"positions"`
	}
	status, body = e.call(t, tr.key, "GET", "/positions?status=redeemable", nil)
	if status != http.StatusOK || json.Unmarshal(body["data"], &list) != nil || len(list.Positions) != 1 || list.Positions[0].Size.String() != "10" {
		t.Fatalf("redeemable positions: %d %s", status, body)
	}
	posID := list.Positions[0].ID

	balance := func() decimal.Decimal {
		status, body := e.call(t, tr.key, "GET", "/balance", nil)
		var b struct {
			USDC json.Number `json:"usdc"`
		}
		if status != http.StatusOK || json.Unmarshal(body["data"], &b) != nil {
			t.Fatalf("balance: %d %s", status, body)
		}
		return decimal.RequireFromString(b.USDC.String())
	}
	before := balance()
	status, body = e.call(t, tr.key, "POST", "/settlements/redeem", nil)
	if status != http.StatusOK {
		t.Fatalf("redeem: %d %s", status, body)
	}
	var red struct {
		Redeemed []struct {
			PositionID string      `json:"positionId"`
			Shares     json.Number `json:"shares"`
			Payout     json.Number `json:"payout"`
			TxHash     string      `json:"txHash"`
		} `json:"redeemed"`
		TotalPayout json.Number `json:"totalPayout"`
	}
	if err := json.Unmarshal(body["data"], &red); err != nil || len(red.Redeemed) != 1 || red.Redeemed[0].PositionID != posID ||
		red.Redeemed[0].Payout.String() != "10" || red.TotalPayout.String() != "10" || red.Redeemed[0].TxHash == "" {
		t.Fatalf("redeem answer: %s", body["data"])
	}
	if got := balance().Sub(before); !got.Equal(decimal.NewFromInt(10)) {
		t.Fatalf("collateral rose by %s, want exactly the 10 winning shares", got)
	}
	status, body = e.call(t, tr.key, "GET", "/positions?status=settled", nil)
	if status != http.StatusOK || json.Unmarshal(body["data"], &list) != nil || len(list.Positions) != 1 || list.Positions[0].ID != posID {
		t.Fatalf("settled positions: %d %s", status, body)
	}
	status, body = e.call(t, tr.key, "POST", "/settlements/redeem", nil)
	if status != http.StatusOK || !strings.Contains(string(body["data"]), `"redeemed":[]`) {
		t.Fatalf("second redeem: %d %s", status, body)
	}
}
