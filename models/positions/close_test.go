package positions_test

import (
	"context"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/positions"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

func dec(s string) *decimal.Decimal {
	d := decimal.RequireFromString(s)
	return &d
}

func TestClose(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		e := newEnv(t, st)

		// Every case holds 10 shares of token 101 bought at 0.40, against
		// bids 4 @ 0.55 and 10 @ 0.50 (tick 0.01) unless it sets others.
		tests := []struct {
			name string
			req  positions.CloseRequest
			bids [][2]string
			// The order sent to the placer.
			wantType, wantPrice string
			// The outcome.
			status, filled, avg   string
			closed                bool
			proceeds, pnl, pnlPct string
			wantErr               errs.Kind
			wantCode              string
			token                 string // default 101
			size, entry           string // default 10 @ 0.40
		}{
			{name: "market by default sells into every bid", wantType: "MARKET", wantPrice: "0.01",
				status: "FILLED", filled: "10", avg: "0.52", closed: true, proceeds: "5.2", pnl: "1.2", pnlPct: "30"},
			{name: "fok at the best bid, not enough there", req: positions.CloseRequest{Type: "fok"}, wantType: "FOK", wantPrice: "0.55",
				status: "CANCELLED", filled: "0", avg: "0", proceeds: "0", pnl: "0", pnlPct: "0"},
			{name: "fok at the best bid, enough there", req: positions.CloseRequest{Type: "FOK"}, bids: [][2]string{{"0.55", "20"}},
				wantType: "FOK", wantPrice: "0.55", status: "FILLED", filled: "10", avg: "0.55", closed: true,
				proceeds: "5.5", pnl: "1.5", pnlPct: "37.5"},
			// 0.55 × 0.98 = 0.539, down to the tick: 0.53; only the 0.55 bid crosses.
			{name: "limit with default slippage rests the rest", req: positions.CloseRequest{Type: "LIMIT"}, wantType: "LIMIT", wantPrice: "0.53",
				status: "PARTIALLY_FILLED", filled: "4", avg: "0.55", proceeds: "2.2", pnl: "0.6", pnlPct: "37.5"},
			// 0.55 × 0.9 = 0.495 → 0.49.
			{name: "limit with slippage 0.1", req: positions.CloseRequest{Type: "LIMIT", Slippage: dec("0.1")}, wantType: "LIMIT", wantPrice: "0.49",
				status: "FILLED", filled: "10", avg: "0.52", closed: true, proceeds: "5.2", pnl: "1.2", pnlPct: "30"},
			{name: "limit with zero slippage sells at the bid", req: positions.CloseRequest{Type: "LIMIT", Slippage: dec("0")}, wantType: "LIMIT", wantPrice: "0.55",
				status: "PARTIALLY_FILLED", filled: "4", avg: "0.55", proceeds: "2.2", pnl: "0.6", pnlPct: "37.5"},
			{name: "limit never below the tick", req: positions.CloseRequest{Type: "LIMIT", Slippage: dec("1")}, wantType: "LIMIT", wantPrice: "0.01",
				status: "FILLED", filled: "10", avg: "0.52", closed: true, proceeds: "5.2", pnl: "1.2", pnlPct: "30"},
			// Tick 0.001 market D: 0.5555 × 0.98 = 0.54439 → 0.544.
			{name: "limit rounds to a finer tick", token: "401", req: positions.CloseRequest{Type: "LIMIT"}, bids: [][2]string{{"0.5555", "100"}},
				wantType: "LIMIT", wantPrice: "0.544", status: "FILLED", filled: "10", avg: "0.5555", closed: true,
				proceeds: "5.555", pnl: "1.555", pnlPct: "38.88"},
			// Tick 0.001 market D: the worst price is still the API's 0.01,
			// never the tick, or the order path would refuse the close.
			{name: "market on a finer tick floors at 0.01", token: "401", bids: [][2]string{{"0.032", "100"}},
				wantType: "MARKET", wantPrice: "0.01", status: "FILLED", filled: "10", avg: "0.032", closed: true,
				proceeds: "0.32", pnl: "-3.68", pnlPct: "-92"},
			{name: "limit on a finer tick never below 0.01", token: "401", req: positions.CloseRequest{Type: "LIMIT", Slippage: dec("1")},
				bids: [][2]string{{"0.032", "100"}}, wantType: "LIMIT", wantPrice: "0.01", status: "FILLED", filled: "10", avg: "0.032",
				closed: true, proceeds: "0.32", pnl: "-3.68", pnlPct: "-92"},
			{name: "a loss", req: positions.CloseRequest{Type: "FOK"}, bids: [][2]string{{"0.3", "10"}}, entry: "0.40",
				wantType: "FOK", wantPrice: "0.3", status: "FILLED", filled: "10", avg: "0.3", closed: true,
				proceeds: "3", pnl: "-1", pnlPct: "-25"},
			{name: "market without bids", bids: [][2]string{}, wantErr: errs.Conflict, wantCode: errs.CodeNoBids},
			{name: "fok without bids", req: positions.CloseRequest{Type: "FOK"}, bids: [][2]string{{"0.5", "0"}}, wantErr: errs.Conflict, wantCode: errs.CodeNoBids},
			{name: "unknown type", req: positions.CloseRequest{Type: "FAK"}, wantErr: errs.Invalid, wantCode: errs.CodeInvalidClose},
			{name: "slippage above 1", req: positions.CloseRequest{Type: "LIMIT", Slippage: dec("1.5")}, wantErr: errs.Invalid, wantCode: errs.CodeInvalidClose},
			{name: "negative slippage", req: positions.CloseRequest{Slippage: dec("-0.1")}, wantErr: errs.Invalid, wantCode: errs.CodeInvalidClose},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				token, size, entry := tt.token, tt.size, tt.entry
				if token == "" {
					token = "101"
				}
				if size == "" {
					size = "10"
				}
				if entry == "" {
					entry = "0.40"
				}
				p := e.principal(t)
				e.buy(t, p, token, entry, size)
				if tt.bids != nil {
					e.venue.SetBids(token, tt.bids...)
				} else {
					e.venue.SetBids(token, [2]string{"0.50", "10"}, [2]string{"0.55", "4"})
				}
				pos := e.position(t, p, token)
				before := len(e.placer.Requests())

				res, err := e.close(ctx, p, pos.ID, tt.req)
				if tt.wantErr != 0 {
					require.Error(t, err)
					assert.Equal(t, tt.wantErr, errs.KindOf(err), "%v", err)
					assert.Equal(t, tt.wantCode, errs.CodeOf(err))
					assert.Len(t, e.placer.Requests(), before, "nothing placed")
					return
				}
				require.NoError(t, err)
				reqs := e.placer.Requests()
				require.Len(t, reqs, before+1)
				sent := reqs[before]
				assert.Equal(t, orders.SideSell, sent.Side)
				assert.Equal(t, tt.wantType, sent.Type)
				assert.Equal(t, tt.wantPrice, sent.Price.String())
				assert.Equal(t, size, sent.Size.String(), "the whole position")
				assert.Equal(t, token, sent.TokenID)

				assert.Equal(t, pos.ID, res.PositionID)
				assert.Equal(t, tt.status, res.Order.Status)
				assert.Equal(t, tt.filled, res.Order.FilledSize.String())
				assert.Equal(t, tt.avg, res.Order.AvgFillPrice.String())
				assert.Equal(t, tt.closed, res.IsClosed)
				assert.Equal(t, tt.proceeds, res.Execution.Proceeds.String())
				assert.Equal(t, tt.pnl, res.Execution.Pnl.String())
				assert.Equal(t, tt.pnlPct, res.Execution.PnlPercent.String())
				assert.Nil(t, res.Preview)

				after := e.position(t, p, token)
				assert.Equal(t, tt.closed, after.SizeMicro == 0)
				if tt.closed {
					assert.Equal(t, models.PositionClosed, after.Status)
				}
			})
		}

		t.Run("dry run previews and places nothing", func(t *testing.T) {
			p := e.principal(t)
			e.buy(t, p, "101", "0.40", "10")
			e.venue.SetBids("101", [2]string{"0.60", "100"})
			pos := e.position(t, p, "101")
			res, err := e.close(ctx, p, pos.ID, positions.CloseRequest{Type: "LIMIT", DryRun: true})
			require.NoError(t, err)
			require.NotNil(t, res.Preview)
			assert.Equal(t, "0.58", res.Preview.Price.String()) // 0.60 × 0.98 = 0.588 → 0.58
			assert.Equal(t, "10", res.Preview.Size.String())
			assert.Equal(t, "SELL", res.Preview.Side)
			assert.Equal(t, "5.8", res.Preview.Proceeds.String())
			assert.Empty(t, res.Order.ID)
			assert.False(t, res.IsClosed)
			assert.Equal(t, pos.ID, res.PositionID)
			reqs := e.placer.Requests()
			assert.True(t, reqs[len(reqs)-1].DryRun)
			got, err := st.ListOrders(ctx, store.OrderFilter{AgentID: p.AgentID})
			require.NoError(t, err)
			assert.Len(t, got, 1, "only the buy")
			assert.Equal(t, *pos, *e.position(t, p, "101"))
		})

		t.Run("refusals", func(t *testing.T) {
			p := e.principal(t)
			e.buy(t, p, "101", "0.40", "10")
			e.venue.SetBids("101", [2]string{"0.60", "100"})
			pos := e.position(t, p, "101")
			other := e.principal(t)

			_, err := e.close(ctx, other, pos.ID, positions.CloseRequest{})
			assert.Equal(t, errs.NotFound, errs.KindOf(err), "another agent's position")
			assert.Equal(t, errs.CodePositionNotFound, errs.CodeOf(err))
			_, err = e.close(ctx, p, "pos_nope", positions.CloseRequest{})
			assert.Equal(t, errs.NotFound, errs.KindOf(err))
			_, err = e.close(ctx, p, "ord_x", positions.CloseRequest{})
			assert.Equal(t, errs.NotFound, errs.KindOf(err))

			_, err = e.close(ctx, p, pos.ID, positions.CloseRequest{})
			require.NoError(t, err)
			_, err = e.close(ctx, p, pos.ID, positions.CloseRequest{})
			assert.Equal(t, errs.Conflict, errs.KindOf(err))
			assert.Equal(t, errs.CodePositionClosed, errs.CodeOf(err))
			assert.Contains(t, err.Error(), "position is already closed")

			q := e.principal(t)
			e.buy(t, q, "102", "0.40", "10")
			r := e.position(t, q, "102")
			r.Status = models.PositionRedeemable
			require.NoError(t, st.SavePosition(ctx, r))
			_, err = e.close(ctx, q, r.ID, positions.CloseRequest{})
			assert.Equal(t, errs.Conflict, errs.KindOf(err))
			assert.Equal(t, errs.CodePositionResolved, errs.CodeOf(err))
		})

		t.Run("shares already offered by open sells are not sold twice", func(t *testing.T) {
			p := e.principal(t)
			e.buy(t, p, "101", "0.40", "10")
			e.venue.SetBids("101", [2]string{"0.50", "100"})
			pos := e.position(t, p, "101")
			// A resting sell of 3 (above every bid).
			_, err := e.placer.Place(ctx, p, orders.PlaceRequest{TokenID: "101", Side: orders.SideSell, Type: orders.TypeLimit,
				Price: decimal.RequireFromString("0.9"), Size: decimal.NewFromInt(3)})
			require.NoError(t, err)
			before := len(e.placer.Requests())
			res, err := e.close(ctx, p, pos.ID, positions.CloseRequest{Type: "LIMIT", Slippage: dec("0")})
			require.NoError(t, err)
			reqs := e.placer.Requests()
			require.Len(t, reqs, before+1)
			assert.Equal(t, "7", reqs[before].Size.String(), "the shares the resting sell does not offer")
			assert.False(t, res.IsClosed, "the resting sell still holds 3")

			// Everything left is offered by the resting sell: nothing to close.
			_, err = e.close(ctx, p, pos.ID, positions.CloseRequest{})
			assert.Equal(t, errs.Conflict, errs.KindOf(err), "%v", err)
			assert.Equal(t, errs.CodePositionInOrders, errs.CodeOf(err))
			assert.Len(t, e.placer.Requests(), before+1, "nothing placed")
			assert.Equal(t, int64(3*M), e.position(t, p, "101").SizeMicro)
		})

		t.Run("a failing placement is passed on", func(t *testing.T) {
			p := e.principal(t)
			e.buy(t, p, "101", "0.40", "10")
			e.venue.SetBids("101", [2]string{"0.60", "100"})
			pos := e.position(t, p, "101")
			e.placer.FailWith = errs.E(errs.VenueRejected, "not enough allowance").WithCode("allowance")
			defer func() { e.placer.FailWith = nil }()
			_, err := e.close(ctx, p, pos.ID, positions.CloseRequest{})
			assert.Equal(t, errs.VenueRejected, errs.KindOf(err))
			assert.Equal(t, "allowance", errs.CodeOf(err))
			assert.Equal(t, int64(10*M), e.position(t, p, "101").SizeMicro)
		})

		t.Run("idempotent retry answers with the first order", func(t *testing.T) {
			p := e.principal(t)
			e.buy(t, p, "101", "0.40", "10")
			e.venue.SetBids("101", [2]string{"0.60", "100"})
			pos := e.position(t, p, "101")
			first, err := e.close(ctx, p, pos.ID, positions.CloseRequest{IdempotencyKey: "close-1"})
			require.NoError(t, err)
			require.True(t, first.IsClosed)
			n := len(e.placer.Requests())
			again, err := e.close(ctx, p, pos.ID, positions.CloseRequest{IdempotencyKey: "close-1"})
			require.NoError(t, err)
			assert.Len(t, e.placer.Requests(), n, "not placed twice")
			assert.Equal(t, first.Order.ID, again.Order.ID)
			assert.Equal(t, first.Order.FilledSize.String(), again.Order.FilledSize.String())
			assert.Equal(t, first.Execution, again.Execution)
			assert.True(t, again.IsClosed)

			q := e.principal(t)
			e.buy(t, q, "102", "0.40", "1")
			e.buy(t, q, "101", "0.40", "1")
			pq := e.position(t, q, "102")
			_, err = e.placer.Place(ctx, q, orders.PlaceRequest{TokenID: "101", Side: "SELL", Type: "FOK",
				Price: decimal.RequireFromString("0.5"), Size: decimal.NewFromInt(1), IdempotencyKey: "k"})
			require.NoError(t, err)
			_, err = e.close(ctx, q, pq.ID, positions.CloseRequest{IdempotencyKey: "k"})
			assert.Equal(t, errs.Conflict, errs.KindOf(err), "key used for another token")
		})
	})
}
