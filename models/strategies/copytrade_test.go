package strategies_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/strategies/strategiestest"
	"github.com/agent-trading/ats/venue/micro"
)

const copyTarget = "0x00000000000000000000000000000000000000A1"

type copyFx struct {
	*strategiestest.Env
	id  string
	seq int
	tx  int
}

func newCopy(t *testing.T, config string, budget string) *copyFx {
	t.Helper()
	fx := strategiestest.New(t, storetest.NewSQLite(t), nil)
	svc := &strategiestest.Desk{Runs: noRunner{}, Service: &strategies.Service{Store: fx.Store, Resolver: strategiestest.Resolver{}}}
	st, err := svc.Create(context.Background(), fx.Actor(), strategies.CreateRequest{Type: "COPY_TRADE",
		Config: json.RawMessage(config), MaxBudget: strategies.D(decimal.RequireFromString(budget))})
	if err != nil {
		t.Fatal(err)
	}
	return &copyFx{Env: fx, id: st.ID}
}

// trade records a trade of the target for the strategy, as the hub does.
func (f *copyFx) trade(t *testing.T, token, side, shares, price string) string {
	t.Helper()
	f.tx++
	tx := fmt.Sprintf("0x%064x", f.tx)
	err := f.Store.RecordCopyTrades(context.Background(), []models.CopyTrade{{StrategyID: f.id, TxHash: tx, LogIndex: 3, Target: copyTarget,
		Block: int64(f.tx), Kind: models.CopyKindTrade, TokenID: token, Side: side,
		SharesMicro: micro.Truncate(decimal.RequireFromString(shares)), PriceMicro: micro.Truncate(decimal.RequireFromString(price))}})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// next runs the next execution and returns its record.
func (f *copyFx) next(t *testing.T) (strategies.Outcome, *models.StrategyExecution, *models.Order) {
	t.Helper()
	ctx := context.Background()
	f.seq++
	out, err := f.Engine.Execute(ctx, f.id, f.seq)
	if err != nil || !out.Executed {
		t.Fatalf("execution %d: %+v %v", f.seq, out, err)
	}
	rec, err := f.Store.StrategyExecutionBySeq(ctx, f.id, f.seq)
	if err != nil {
		t.Fatal(err)
	}
	var o *models.Order
	if rec.OrderID != nil {
		if o, err = f.Store.OrderByID(ctx, *rec.OrderID); err != nil {
			t.Fatal(err)
		}
	}
	return out, rec, o
}

func TestCopySizingAndCaps(t *testing.T) {
	const fixed = `{"targetAddress":"` + copyTarget + `","sizingMode":"fixed","fixedAmount":5,"copySells":true}`
	for _, tc := range []struct {
		name, config, budget string
		// the target's trades: token, side, shares, price
		trades [][4]string
		// per execution: kind, side, size, price ("" when no order)
		want [][4]string
	}{
		{"fixed buys fixedAmount at the target's price", fixed, "100",
			[][4]string{{"11", "BUY", "100", "0.5"}},
			[][4]string{{"action", "BUY", "10", "0.52"}}},
		{"proportional buys a share of the target's size", `{"targetAddress":"` + copyTarget + `","sizingMode":"proportional","proportionPct":25,"copySells":true}`, "100",
			[][4]string{{"11", "BUY", "40", "0.3"}},
			[][4]string{{"action", "BUY", "10", "0.32"}}},
		{"sells only its own shares", fixed, "100",
			[][4]string{{"11", "BUY", "10", "0.5"}, {"11", "SELL", "100", "0.6"}, {"12", "SELL", "5", "0.6"}},
			[][4]string{{"action", "BUY", "10", "0.52"}, {"action", "SELL", "8.33", "0.58"}, {"skip", "SELL", "", ""}}},
		{"copySells false ignores sells", `{"targetAddress":"` + copyTarget + `","sizingMode":"fixed","fixedAmount":5,"copySells":false}`, "100",
			[][4]string{{"11", "BUY", "10", "0.5"}, {"11", "SELL", "10", "0.6"}},
			[][4]string{{"action", "BUY", "10", "0.52"}, {"skip", "SELL", "", ""}}},
		{"tokenFilter", `{"targetAddress":"` + copyTarget + `","sizingMode":"fixed","fixedAmount":5,"copySells":true,"tokenFilter":["12"]}`, "100",
			[][4]string{{"11", "BUY", "10", "0.5"}, {"12", "BUY", "10", "0.5"}},
			[][4]string{{"skip", "BUY", "", ""}, {"action", "BUY", "10", "0.52"}}},
		{"maxPositionSize per token", `{"targetAddress":"` + copyTarget + `","sizingMode":"proportional","proportionPct":100,"copySells":true,"maxPositionSize":15}`, "100",
			[][4]string{{"11", "BUY", "10", "0.5"}, {"11", "BUY", "10", "0.5"}, {"11", "BUY", "10", "0.5"}, {"12", "BUY", "10", "0.5"}},
			[][4]string{{"action", "BUY", "10", "0.52"}, {"action", "BUY", "5", "0.52"}, {"skip", "BUY", "", ""}, {"action", "BUY", "10", "0.52"}}},
		{"budget caps the size", fixed, "3",
			[][4]string{{"11", "BUY", "10", "0.5"}},
			[][4]string{{"action", "BUY", "5.76", "0.52"}}},
		{"slippage stays within the venue's prices", fixed, "100",
			[][4]string{{"11", "BUY", "10", "0.985"}, {"11", "SELL", "10", "0.015"}},
			[][4]string{{"action", "BUY", "5.07", "0.99"}, {"action", "SELL", "5.07", "0.01"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newCopy(t, tc.config, tc.budget)
			for i, tr := range tc.trades {
				tx := f.trade(t, tr[0], tr[1], tr[2], tr[3])
				_, rec, o := f.next(t)
				w := tc.want[i]
				if rec.Kind != w[0] || rec.Action != w[1] || !strings.Contains(rec.Reason, tx) {
					t.Fatalf("trade %d: %s %s %q, want %s %s naming %s", i, rec.Kind, rec.Action, rec.Reason, w[0], w[1], tx)
				}
				if w[2] == "" {
					if o != nil {
						t.Fatalf("trade %d: an order was placed on a skip", i)
					}
					continue
				}
				if o == nil || micro.Decimal(o.SizeMicro).String() != w[2] || micro.Decimal(o.PriceMicro).String() != w[3] || o.Side != w[1] ||
					o.TokenID != tr[0] || o.RequestType != "FAK" {
					t.Fatalf("trade %d: order %+v, want %s %s @ %s", i, o, w[1], w[2], w[3])
				}
				if *o.IdempotencyKey != strategies.CopyIdempotencyKey(f.id, tx, 3) {
					t.Fatalf("trade %d: key %s", i, *o.IdempotencyKey)
				}
			}
		})
	}
}

// Exactly once: a retried execution adopts its copy; an event recorded
// twice (two workers, a restart) is one record; nothing pending is nothing
// executed; several pending events make the state ask for more.
func TestCopyExactlyOnce(t *testing.T) {
	ctx := context.Background()
	f := newCopy(t, `{"targetAddress":"`+copyTarget+`","sizingMode":"fixed","fixedAmount":5,"copySells":true}`, "100")
	tx := f.trade(t, "11", "BUY", "10", "0.5")
	dup := []models.CopyTrade{{StrategyID: f.id, TxHash: tx, LogIndex: 3, Target: copyTarget, Block: 1, Kind: models.CopyKindTrade,
		TokenID: "11", Side: "BUY", SharesMicro: 10e6, PriceMicro: 5e5}}
	if err := f.Store.RecordCopyTrades(ctx, dup); err != nil {
		t.Fatal(err)
	}
	f.trade(t, "11", "BUY", "10", "0.5")
	out, _, o := f.next(t)
	if !out.State.Pending {
		t.Fatal("a second event is recorded: the state must say pending")
	}
	// The first execution retried (its activity ran again): answered as recorded.
	again, err := f.Engine.Execute(ctx, f.id, 1)
	if err != nil || again.OrderID != o.ID {
		t.Fatalf("retry: %+v %v", again, err)
	}
	out, _, _ = f.next(t)
	if out.State.Pending {
		t.Fatal("nothing left, yet pending")
	}
	none, err := f.Engine.Execute(ctx, f.id, 3)
	if err != nil || none.Executed {
		t.Fatalf("nothing pending executed: %+v %v", none, err)
	}
	if calls, placed := f.Placer.Counts(); calls != 2 || placed != 2 {
		t.Fatalf("place calls %d, placed %d; want 2 (the duplicate record is one)", calls, placed)
	}
	// An order placed by an attempt that died before recording is adopted.
	tx3 := f.trade(t, "11", "BUY", "10", "0.5")
	if _, err := f.Store.ClaimCopyTrade(ctx, f.id, 3); err != nil {
		t.Fatal(err)
	}
	before, _ := f.Placer.Counts()
	f.Placer.Set(func(p *strategiestest.Placer) { p.Fail = nil })
	_, err = f.Placer.Place(ctx, principal(f), placeReq(f.id, tx3))
	if err != nil {
		t.Fatal(err)
	}
	_, rec, _ := f.next(t)
	if rec.OrderID == nil || !strings.Contains(rec.Reason, "earlier attempt") {
		t.Fatalf("the earlier attempt's order was not adopted: %+v", rec)
	}
	if calls, _ := f.Placer.Counts(); calls != before+1 {
		t.Fatalf("placed again: %d calls after %d", calls, before)
	}
}

// A movement of the target's tokens that is not a trade is a skip naming
// its transaction.
func TestCopyNonTradeIsASkip(t *testing.T) {
	ctx := context.Background()
	f := newCopy(t, `{"targetAddress":"`+copyTarget+`","sizingMode":"fixed","fixedAmount":5,"copySells":true}`, "100")
	tx := fmt.Sprintf("0x%064x", 77)
	if err := f.Store.RecordCopyTrades(ctx, []models.CopyTrade{{StrategyID: f.id, TxHash: tx, LogIndex: 0, Target: copyTarget, Block: 9,
		Kind: models.CopyKindSkip, TokenID: "11", Reason: "tokens minted to the target (a split of collateral, or a neg-risk conversion): 10 of token 11"}}); err != nil {
		t.Fatal(err)
	}
	_, rec, o := f.next(t)
	if rec.Kind != "skip" || o != nil || !strings.Contains(rec.Reason, "split") || !strings.Contains(rec.Reason, tx) {
		t.Fatalf("%+v", rec)
	}
}

func principal(f *copyFx) orders.Principal {
	return orders.Principal{AgentID: f.AgentID, UserID: f.UserID}
}

func placeReq(id, tx string) orders.PlaceRequest {
	return orders.PlaceRequest{TokenID: "11", Side: "BUY", Type: orders.TypeFAK, Price: decimal.RequireFromString("0.52"),
		Size: decimal.NewFromInt(10), IdempotencyKey: strategies.CopyIdempotencyKey(id, tx, 3), StrategyID: id}
}

// A copy the book cannot fill within its price (the venue kills the FAK:
// the market moved past the target's price and the slippage) is a skip
// that links its order and leaves the strategy copying, however often it
// happens; a refusal for any other reason is an error, and three in a row
// stop the strategy in ERROR.
func TestCopyTheMarketMovedAwayFromIsASkip(t *testing.T) {
	for _, tc := range []struct {
		name, status, code string
		kind               string
	}{
		{"FAK found nothing to match", models.OrderFailed, errs.CodeFAKNoMatch, "skip"},
		{"FOK not filled", models.OrderFailed, errs.CodeFOKNotFilled, "skip"},
		{"accepted, then killed unfilled", models.OrderCancelled, "", "skip"},
		{"refused for the account", models.OrderFailed, "not_enough_balance", "error"},
		{"refused without a code", models.OrderFailed, "", "error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newCopy(t, `{"targetAddress":"`+copyTarget+`","sizingMode":"fixed","fixedAmount":5,"copySells":true}`, "100")
			f.Placer.Set(func(p *strategiestest.Placer) { p.Status, p.FailureCode = tc.status, tc.code })
			var out strategies.Outcome
			for i := 1; i <= strategies.MaxConsecutiveErrors; i++ {
				tx := f.trade(t, "11", "BUY", "20", "0.5")
				var rec *models.StrategyExecution
				var o *models.Order
				out, rec, o = f.next(t)
				if rec.Kind != tc.kind || o == nil || rec.OrderID == nil || !strings.Contains(rec.Reason, tx) {
					t.Fatalf("copy %d: %+v (order %+v)", i, rec, o)
				}
				if tc.kind == "skip" && (!strings.Contains(rec.Reason, "not copied") || !strings.Contains(rec.Reason, "0.52")) {
					t.Fatalf("copy %d: the skip does not say why: %q", i, rec.Reason)
				}
			}
			want := strategies.StatusActive
			if tc.kind == "error" {
				want = strategies.StatusError
			}
			if out.State.Status != want {
				t.Fatalf("after %d such copies the strategy is %s (%d errors), want %s", strategies.MaxConsecutiveErrors, out.State.Status, out.State.ConsecutiveErrors, want)
			}
		})
	}
}

// A copy the order path refuses as below the market's minimum size is a
// skip (a small trade of the target), any other refusal an error.
func TestCopyBelowMinimumSizeIsASkip(t *testing.T) {
	f := newCopy(t, `{"targetAddress":"`+copyTarget+`","sizingMode":"proportional","proportionPct":10,"copySells":true}`, "100")
	f.Placer.Set(func(p *strategiestest.Placer) {
		p.Fail = errs.E(errs.Invalid, "size 1 is below the minimum 5").WithCode(errs.CodeBelowMinSize)
	})
	tx := f.trade(t, "11", "BUY", "20", "0.5")
	out, rec, _ := f.next(t)
	if rec.Kind != "skip" || !strings.Contains(rec.Reason, "minimum order size") || !strings.Contains(rec.Reason, tx) || out.State.ConsecutiveErrors != 0 {
		t.Fatalf("%+v %+v", rec, out.State)
	}
	f.Placer.Set(func(p *strategiestest.Placer) {
		p.Fail = errs.E(errs.Invalid, "refused").WithCode(errs.CodeInvalidPrice)
	})
	f.trade(t, "11", "BUY", "20", "0.5")
	out, rec, _ = f.next(t)
	if rec.Kind != "error" || out.State.ConsecutiveErrors != 1 {
		t.Fatalf("%+v %+v", rec, out.State)
	}
}
