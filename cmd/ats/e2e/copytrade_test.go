package e2e

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/cmd/ats/internal/app"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/venue/micro"
)

// outsideTrade has the sandbox's first outside wallet trade through the
// book (POST /control/trades) and returns its transaction hashes.
func (e *tradingEnv) outsideTrade(t testing.TB, token, side, size, price string) []string {
	t.Helper()
	var res struct {
		Address string   `json:"address"`
		Status  string   `json:"status"`
		Hashes  []string `json:"transactionsHashes"`
	}
	e.control(t, "/control/trades", fmt.Sprintf(`{"tokenId":%q,"side":%q,"size":%s,"price":%s}`, token, side, size, price), &res)
	if len(res.Hashes) == 0 {
		t.Fatalf("the outside %s of %s at %s did not trade: %+v", side, size, price, res)
	}
	return res.Hashes
}

// outsideAddress is the wallet outsideTrade trades from.
func (e *tradingEnv) outsideAddress(t testing.TB) string {
	t.Helper()
	ks := e.sb.Venue().Chain().OutsideWallets()
	if len(ks) == 0 {
		t.Fatal("the sandbox has no outside wallet")
	}
	return crypto.PubkeyToAddress(ks[0].PublicKey).Hex()
}

func (e *tradingEnv) createCopy(t testing.TB, tr trader, target string, config map[string]any) string {
	t.Helper()
	config["targetAddress"] = target
	return e.createStrategy(t, tr, map[string]any{"type": "COPY_TRADE", "maxBudget": 100, "config": config}).ID
}

// copyRows are the target's events recorded for a strategy, oldest first.
func (e *tradingEnv) copyRows(t testing.TB, id string) []models.CopyTrade {
	t.Helper()
	var rows []models.CopyTrade
	if err := e.store.DB().Where("strategy_id = ?", id).Order("block, log_index").Find(&rows).Error; err != nil {
		t.Fatal(err)
	}
	return rows
}

// strategyOrders are the orders a strategy placed, oldest first.
func (e *tradingEnv) strategyOrders(t testing.TB, agentID, id string) []models.Order {
	t.Helper()
	rows, err := e.store.ListOrders(context.Background(), store.OrderFilter{AgentID: agentID, Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	var out []models.Order
	for i := len(rows) - 1; i >= 0; i-- {
		if o := rows[i]; o.StrategyID != nil && *o.StrategyID == id {
			out = append(out, o)
		}
	}
	return out
}

func floor2(d decimal.Decimal) string { return d.RoundFloor(2).String() }

// TestCopyTradeAgainstTheSandbox: an outside wallet trades through the
// sandbox's book (POST /control/trades) and every COPY_TRADE following it
// places exactly one order per copyable trade with the size of its mode,
// within its caps; a sell is ignored with copySells false; a token outside
// tokenFilter is skipped; the split that mints the seller's tokens is a
// skip naming its transaction; copying the user's own wallet is refused.
func TestCopyTradeAgainstTheSandbox(t *testing.T) {
	e, tr, m := newTradingTest(t, tradingOpts{}, "Will copies follow the target")
	yes, no := m.TokenIDs[0], m.TokenIDs[1]
	target := e.outsideAddress(t)
	// A trade before any strategy exists is never copied (and warms the
	// outside wallet up: its first settlement is slow under -race).
	e.outsideTrade(t, yes, "BUY", "5", "0.6")

	for _, own := range []string{tr.wallet.Address, tr.wallet.EOAAddress} {
		status, b := e.call(t, tr.key, "POST", "/strategies", map[string]any{"type": "COPY_TRADE", "maxBudget": 10, "config": map[string]any{
			"targetAddress": own, "sizingMode": "fixed", "fixedAmount": 5, "copySells": true}})
		if status != 400 || !strings.Contains(string(b["code"]), "copy_target_own_wallet") {
			t.Fatalf("self-copy of %s: %d %s", own, status, b)
		}
	}
	fixed := e.createCopy(t, tr, target, map[string]any{"sizingMode": "fixed", "fixedAmount": 5, "copySells": true})
	half := e.createCopy(t, tr, target, map[string]any{"sizingMode": "proportional", "proportionPct": 50, "copySells": false})
	filtered := e.createCopy(t, tr, target, map[string]any{"sizingMode": "fixed", "fixedAmount": 5, "copySells": true, "tokenFilter": []string{no}})
	capped := e.createCopy(t, tr, target, map[string]any{"sizingMode": "proportional", "proportionPct": 100, "copySells": true, "maxPositionSize": 6})
	all := []string{fixed, half, filtered, capped}
	time.Sleep(300 * time.Millisecond) // the workflows load and the hub follows the target

	await := func(id string, n int) []models.CopyTrade {
		t.Helper()
		// Generous: the sandbox's chain settles slowly under -race on a
		// loaded machine (the copy itself follows its block within ms).
		deadline := time.Now().Add(4 * time.Minute)
		for {
			st, err := e.store.StrategyByID(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			rows := e.copyRows(t, id)
			if st.Executions >= n && len(rows) >= n {
				return rows
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d executions of %d recorded events, want %d (%s %s); the chain holds %d events of the target",
					id, st.Executions, len(rows), n, st.Status, st.LastError, e.targetEvents(t, target))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	// The target buys 10 YES (its BUY crosses the asks).
	t0 := time.Now()
	buyTx := e.outsideTrade(t, yes, "BUY", "10", "0.6")
	rows := await(fixed, 1)
	t.Logf("target's buy → copy recorded in %v", time.Since(t0))
	for _, id := range all {
		await(id, 1)
	}
	if len(rows) != 1 {
		t.Fatalf("the trade made before the strategy existed was recorded: %+v", rows)
	}
	buy := rows[0]
	if buy.Kind != models.CopyKindTrade || buy.Side != "BUY" || buy.TokenID != yes || buy.SharesMicro != 10e6 || !containsFold(buyTx, buy.TxHash) {
		t.Fatalf("recorded %+v, want the BUY of 10 in %v", buy, buyTx)
	}
	price := micro.Decimal(buy.PriceMicro)
	want := map[string]string{fixed: floor2(decimal.NewFromInt(5).Div(price)), half: "5", capped: "6"}
	for id, size := range want {
		os := e.strategyOrders(t, tr.agentID, id)
		if len(os) != 1 || os[0].Side != "BUY" || micro.Decimal(os[0].SizeMicro).String() != size || os[0].TokenID != yes {
			t.Fatalf("%s: orders %+v, want one BUY of %s", id, os, size)
		}
	}
	if os := e.strategyOrders(t, tr.agentID, filtered); len(os) != 0 {
		t.Fatalf("tokenFilter: %d orders", len(os))
	}
	ex, err := e.store.ListStrategyExecutions(context.Background(), filtered, 5)
	if err != nil || len(ex) != 1 || ex[0].Kind != "skip" || !strings.Contains(ex[0].Reason, "tokenFilter") || !strings.Contains(ex[0].Reason, buy.TxHash) {
		t.Fatalf("tokenFilter execution: %+v %v", ex, err)
	}

	// The target sells 5 YES (the venue's minimum size): the fixed copy
	// sells $5 worth of what it holds, the proportional one 5 of its 6,
	// the buys-only one ignores it.
	e.outsideTrade(t, yes, "SELL", "5", "0.4")
	for _, id := range all {
		await(id, 2)
	}
	sell := e.copyRows(t, fixed)[1]
	if sell.Side != "SELL" || sell.SharesMicro != 5e6 {
		t.Fatalf("recorded %+v, want the SELL of 5", sell)
	}
	fixedOrders := e.strategyOrders(t, tr.agentID, fixed)
	held := micro.Decimal(fixedOrders[0].FilledSizeMicro)
	wantSell := floor2(decimal.Min(decimal.NewFromInt(5).Div(micro.Decimal(sell.PriceMicro)), held))
	if len(fixedOrders) != 2 || fixedOrders[1].Side != "SELL" || micro.Decimal(fixedOrders[1].SizeMicro).String() != wantSell {
		t.Fatalf("fixed: orders %+v, want a SELL of %s", fixedOrders, wantSell)
	}
	if os := e.strategyOrders(t, tr.agentID, capped); len(os) != 2 || os[1].Side != "SELL" || micro.Decimal(os[1].SizeMicro).String() != "5" {
		t.Fatalf("capped: orders %+v, want a SELL of 5", os)
	}
	if os := e.strategyOrders(t, tr.agentID, half); len(os) != 1 {
		t.Fatalf("copySells false: %d orders", len(os))
	}
	ex, err = e.store.ListStrategyExecutions(context.Background(), half, 5)
	if err != nil || ex[0].Kind != "skip" || !strings.Contains(ex[0].Reason, "copySells") {
		t.Fatalf("copySells false: %+v %v", ex, err)
	}

	// The target sells NO it does not hold: the sandbox first splits
	// collateral into both tokens (a mint: not a trade, a skip naming its
	// transaction), then the sell trades. The tokenFilter strategy copies
	// that sell? It holds no NO: a skip too.
	e.outsideTrade(t, no, "SELL", "5", "0.3")
	for _, id := range all {
		await(id, 4)
	}
	rows = e.copyRows(t, filtered)
	if rows[2].Kind != models.CopyKindSkip || !strings.Contains(rows[2].Reason, "minted") || rows[3].Kind != models.CopyKindTrade || rows[3].TokenID != no {
		t.Fatalf("split then sell: %+v", rows[2:])
	}
	ex, err = e.store.ListStrategyExecutions(context.Background(), filtered, 5)
	if err != nil || ex[1].Kind != "skip" || !strings.Contains(ex[1].Reason, "not a trade") || !strings.Contains(ex[1].Reason, rows[2].TxHash) ||
		ex[0].Kind != "skip" || !strings.Contains(ex[0].Reason, "holds no shares") {
		t.Fatalf("filtered: %+v %v", ex, err)
	}

	// Exactly once: one order per copied trade and key; every recorded
	// event handled by one execution.
	for _, id := range all {
		keys := map[string]bool{}
		for _, o := range e.strategyOrders(t, tr.agentID, id) {
			if keys[*o.IdempotencyKey] || !strings.HasPrefix(*o.IdempotencyKey, "copy:"+id+":") {
				t.Fatalf("%s: order key %s twice or not a copy key", id, *o.IdempotencyKey)
			}
			keys[*o.IdempotencyKey] = true
		}
		for _, r := range e.copyRows(t, id) {
			if r.Seq == nil {
				t.Fatalf("%s: event %s:%d was never handled", id, r.TxHash, r.LogIndex)
			}
		}
	}
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// targetEvents counts what the chain holds of target (its trades and the
// other movements of its tokens), to tell a slow chain from a missed event.
func (e *tradingEnv) targetEvents(t testing.TB, target string) int {
	t.Helper()
	ctx := context.Background()
	venue := app.TargetVenue(e.vc)
	head, err := e.vc.Chain.Backend().BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, q := range venue.TargetQueries([]common.Address{common.HexToAddress(target)}) {
		q.FromBlock, q.ToBlock = big.NewInt(0), new(big.Int).SetUint64(head)
		logs, err := e.vc.Chain.Backend().FilterLogs(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range logs {
			if ev, err := venue.ClassifyTargetLog(l, common.HexToAddress(target)); err == nil && !ev.Ignore {
				n++
			}
		}
	}
	return n
}

// TestCopyOfATargetThatSellsAtOnce: the target buys and sells within the
// moment the copy of its buy takes to be placed. The copier must sell
// what its copy bought, not skip the sell because its BUY was still in
// flight when the sell arrived (a copy's execution no longer waits for its
// order's placement; the sell waits for the BUY instead).
func TestCopyOfATargetThatSellsAtOnce(t *testing.T) {
	e, tr, m := newTradingTest(t, tradingOpts{}, "Will a quick seller be copied")
	yes := m.TokenIDs[0]
	target := e.outsideAddress(t)
	e.outsideTrade(t, yes, "BUY", "5", "0.6") // warms the outside wallet up
	id := e.createCopy(t, tr, target, map[string]any{"sizingMode": "fixed", "fixedAmount": 5, "copySells": true})
	time.Sleep(300 * time.Millisecond) // the workflow loads and the hub follows the target

	e.outsideTrade(t, yes, "BUY", "10", "0.6")
	e.outsideTrade(t, yes, "SELL", "5", "0.4")
	deadline := time.Now().Add(4 * time.Minute)
	for {
		st, err := e.store.StrategyByID(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if st.Executions >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d executions, want 2 (%s %s)", st.Executions, st.Status, st.LastError)
		}
		time.Sleep(100 * time.Millisecond)
	}
	rows := e.copyRows(t, id)
	os := e.strategyOrders(t, tr.agentID, id)
	if len(rows) != 2 || len(os) != 2 || os[0].Side != "BUY" || os[1].Side != "SELL" {
		ex, _ := e.store.ListStrategyExecutions(context.Background(), id, 5)
		var got []string
		for _, o := range os {
			got = append(got, o.Side+" "+o.Status)
		}
		for _, x := range ex {
			got = append(got, fmt.Sprintf("execution %d: %s %q", x.Seq, x.Kind, x.Reason))
		}
		t.Fatalf("%d events; %d orders and executions %q: want the BUY and the SELL copied", len(rows), len(os), got)
	}
	held := micro.Decimal(os[0].FilledSizeMicro)
	want := floor2(decimal.Min(decimal.NewFromInt(5).Div(micro.Decimal(rows[1].PriceMicro)), held))
	if got := micro.Decimal(os[1].SizeMicro).String(); got != want {
		t.Fatalf("sold %s, want %s (held %s)", got, want, held)
	}
}
