package positions_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/positions"
	"github.com/agent-trading/ats/models/positions/positionstest"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/venue/clob"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

type env struct {
	st     *store.Store
	svc    *positions.Service
	prices *positionstest.Prices
	chain  *positionstest.Chain
	venue  *positionstest.Venue
	placer *positionstest.Placer
	clock  time.Time
	mu     sync.Mutex
}

// Markets of the tests: A, B, C, D, each with a Yes and a No token.
var (
	condA, condB, condC, condD = positionstest.ConditionID("A"), positionstest.ConditionID("B"),
		positionstest.ConditionID("C"), positionstest.ConditionID("D")
)

func newEnv(t *testing.T, st *store.Store) *env {
	e := &env{st: st, prices: positionstest.NewPrices(nil), chain: positionstest.NewChain(), venue: positionstest.NewVenue(), clock: t0}
	e.venue.AddMarket(condA, "Will A?", clob.Tick001, "101", "102")
	e.venue.AddMarket(condB, "Will B?", clob.Tick001, "201", "202")
	e.venue.AddMarket(condC, "Will C?", clob.Tick001, "301", "302")
	e.venue.AddMarket(condD, "Will D?", clob.Tick0001, "401", "402")
	e.svc = &positions.Service{Store: st, Prices: e.prices, Resolutions: e.chain, Books: e.venue, Markets: e.venue,
		Now: e.now}
	e.placer = &positionstest.Placer{Store: st, Venue: e.venue, Positions: e.svc}
	return e
}

func (e *env) now() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.clock
}

func (e *env) advance(d time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.clock = e.clock.Add(d)
}

// principal creates a user and returns an agent of it.
func (e *env) principal(t *testing.T) orders.Principal {
	t.Helper()
	u := &models.User{Email: models.NewID("u") + "@example.com"}
	require.NoError(t, e.st.CreateUser(context.Background(), u))
	return orders.Principal{AgentID: models.NewID("agt"), UserID: u.ID}
}

// buy places a filled BUY through the fake placer (which recomputes).
func (e *env) buy(t *testing.T, p orders.Principal, token, price, size string) {
	t.Helper()
	res, err := e.placer.Place(context.Background(), p, orders.PlaceRequest{TokenID: token, Side: orders.SideBuy,
		Type: orders.TypeLimit, Price: decimal.RequireFromString(price), Size: decimal.RequireFromString(size)})
	require.NoError(t, err)
	require.Equal(t, models.OrderFilled, res.Order.Status)
}

func (e *env) position(t *testing.T, p orders.Principal, token string) *models.Position {
	t.Helper()
	pos, err := e.st.PositionByToken(context.Background(), p.AgentID, token)
	require.NoError(t, err)
	return pos
}

// addFill records an order with one fill directly in the store (the order
// workflow's job), without recomputing.
func addFill(t *testing.T, st *store.Store, p orders.Principal, token, side string, at time.Time, price, size, fee int64) {
	t.Helper()
	ctx := context.Background()
	o := &models.Order{AgentID: p.AgentID, UserID: p.UserID, WalletID: "wal_1", TokenID: token, Side: side, Type: "GTC",
		ConditionID: condA, MarketQuestion: "Will A?", Outcome: "Yes", PriceMicro: price, SizeMicro: size,
		Status: models.OrderFilled, FilledSizeMicro: size}
	require.NoError(t, st.CreateOrder(ctx, o))
	_, err := st.AddFill(ctx, &models.Fill{OrderID: o.ID, VenueTradeID: "t-" + o.ID, PriceMicro: price, SizeMicro: size, FeeMicro: fee, Time: at})
	require.NoError(t, err)
}

func TestRecompute(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		e := newEnv(t, st)
		clock := t0
		st.SetClock(func() time.Time { return clock })
		p := e.principal(t)

		addFill(t, st, p, "101", "BUY", t0, 400_000, 10*M, 0)
		addFill(t, st, p, "101", "BUY", t0.Add(time.Second), 700_000, 5*M, 0)
		require.NoError(t, e.svc.Recompute(ctx, p.AgentID, p.UserID, "101"))
		pos := e.position(t, p, "101")
		assert.True(t, models.HasPrefix(pos.ID, models.PrefixPosition))
		assert.Equal(t, models.PositionOpen, pos.Status)
		assert.Equal(t, int64(15*M), pos.SizeMicro)
		assert.Equal(t, int64(500_000), pos.AvgEntryMicro)
		assert.Equal(t, condA, pos.ConditionID)
		assert.Equal(t, "Will A?", pos.Question)
		assert.Equal(t, "Yes", pos.Outcome)
		assert.Equal(t, p.UserID, pos.UserID)

		t.Run("replay writes nothing", func(t *testing.T) {
			clock = clock.Add(time.Hour)
			require.NoError(t, e.svc.Recompute(ctx, p.AgentID, p.UserID, "101"))
			again := e.position(t, p, "101")
			assert.Equal(t, pos.UpdatedAt, again.UpdatedAt)
			assert.Equal(t, *pos, *again)
		})

		t.Run("sold out is closed with the same id", func(t *testing.T) {
			addFill(t, st, p, "101", "SELL", t0.Add(2*time.Second), 600_000, 15*M, 0)
			require.NoError(t, e.svc.Recompute(ctx, p.AgentID, p.UserID, "101"))
			closed := e.position(t, p, "101")
			assert.Equal(t, pos.ID, closed.ID)
			assert.Equal(t, models.PositionClosed, closed.Status)
			assert.Zero(t, closed.SizeMicro)
			assert.Equal(t, int64(1_500_000), closed.RealizedPnlMicro)
			assert.Equal(t, int64(500_000), closed.AvgEntryMicro, "a closed position keeps its entry price")

			addFill(t, st, p, "101", "BUY", t0.Add(3*time.Second), 200_000, M, 0)
			require.NoError(t, e.svc.Recompute(ctx, p.AgentID, p.UserID, "101"))
			reopened := e.position(t, p, "101")
			assert.Equal(t, pos.ID, reopened.ID)
			assert.Equal(t, models.PositionOpen, reopened.Status)
			assert.Equal(t, int64(200_000), reopened.AvgEntryMicro)
		})

		t.Run("resolution statuses are kept; full redemption settles", func(t *testing.T) {
			q := e.principal(t)
			addFill(t, st, q, "102", "BUY", t0, 300_000, 10*M, 0)
			require.NoError(t, e.svc.Recompute(ctx, q.AgentID, q.UserID, "102"))
			r := e.position(t, q, "102")
			r.Status = models.PositionRedeemable
			require.NoError(t, st.SavePosition(ctx, r))
			require.NoError(t, e.svc.Recompute(ctx, q.AgentID, q.UserID, "102"))
			assert.Equal(t, models.PositionRedeemable, e.position(t, q, "102").Status)

			// The settlements service records a redemption of 4 shares.
			r = e.position(t, q, "102")
			r.RedeemedSizeMicro, r.PayoutMicro = 4*M, 4*M
			require.NoError(t, st.SavePosition(ctx, r))
			require.NoError(t, e.svc.Recompute(ctx, q.AgentID, q.UserID, "102"))
			r = e.position(t, q, "102")
			assert.Equal(t, models.PositionRedeemable, r.Status)
			assert.Equal(t, int64(6*M), r.SizeMicro)
			assert.Equal(t, int64(2_800_000), r.RealizedPnlMicro)

			r.RedeemedSizeMicro, r.PayoutMicro = 10*M, 10*M
			require.NoError(t, st.SavePosition(ctx, r))
			require.NoError(t, e.svc.Recompute(ctx, q.AgentID, q.UserID, "102"))
			r = e.position(t, q, "102")
			assert.Equal(t, models.PositionSettled, r.Status)
			assert.Zero(t, r.SizeMicro)
			assert.Equal(t, int64(7*M), r.RealizedPnlMicro)
		})

		t.Run("a fill synced after a full redemption is redeemed with it", func(t *testing.T) {
			q := e.principal(t)
			addFill(t, st, q, "102", "BUY", t0, 300_000, 10*M, 0)
			require.NoError(t, e.svc.Recompute(ctx, q.AgentID, q.UserID, "102"))
			r := e.position(t, q, "102")
			at := t0.Add(time.Hour)
			r.Status, r.RedeemedSizeMicro, r.PayoutMicro, r.RedeemedAt = models.PositionSettled, 10*M, 10*M, &at
			require.NoError(t, st.SavePosition(ctx, r))
			require.NoError(t, e.svc.Recompute(ctx, q.AgentID, q.UserID, "102"))
			require.Zero(t, e.position(t, q, "102").SizeMicro)

			// A buy matched before the resolution, synced only now.
			addFill(t, st, q, "102", "BUY", t0.Add(time.Minute), 200_000, 5*M, 0)
			require.NoError(t, e.svc.Recompute(ctx, q.AgentID, q.UserID, "102"))
			r = e.position(t, q, "102")
			assert.Equal(t, models.PositionSettled, r.Status)
			assert.Zero(t, r.SizeMicro, "no shares left that could never be redeemed")
			assert.Equal(t, int64(15*M), r.RedeemedSizeMicro)
			assert.Equal(t, int64(15*M), r.PayoutMicro, "at the redemption's 1 per share")
			assert.Equal(t, int64(11*M), r.RealizedPnlMicro, "15 paid for 3 + 1")

			// A partial redemption (the wallet held fewer shares) is left as it is.
			w := e.principal(t)
			addFill(t, st, w, "101", "BUY", t0, 300_000, 10*M, 0)
			require.NoError(t, e.svc.Recompute(ctx, w.AgentID, w.UserID, "101"))
			r = e.position(t, w, "101")
			r.Status, r.RedeemedSizeMicro, r.PayoutMicro, r.RedeemedAt = models.PositionRedeemable, 4*M, 4*M, &at
			require.NoError(t, st.SavePosition(ctx, r))
			addFill(t, st, w, "101", "BUY", t0.Add(time.Minute), 200_000, 5*M, 0)
			require.NoError(t, e.svc.Recompute(ctx, w.AgentID, w.UserID, "101"))
			assert.Equal(t, int64(11*M), e.position(t, w, "101").SizeMicro)
		})

		t.Run("token without fills", func(t *testing.T) {
			require.NoError(t, e.svc.Recompute(ctx, p.AgentID, p.UserID, "999"))
			_, err := st.PositionByToken(ctx, p.AgentID, "999")
			assert.Equal(t, errs.NotFound, errs.KindOf(err))
		})

		t.Run("bad arguments", func(t *testing.T) {
			assert.Equal(t, errs.Invalid, errs.KindOf(e.svc.Recompute(ctx, "", p.UserID, "101")))
			assert.Equal(t, errs.NotFound, errs.KindOf(e.svc.Recompute(ctx, p.AgentID, "usr_unknown", "101")))
		})

		t.Run("recompute all", func(t *testing.T) {
			q := e.principal(t)
			addFill(t, st, q, "201", "BUY", t0, 500_000, 2*M, 0)
			addFill(t, st, q, "202", "BUY", t0, 500_000, 3*M, 0)
			require.NoError(t, e.svc.RecomputeAll(ctx, q.AgentID, q.UserID))
			assert.Equal(t, int64(2*M), e.position(t, q, "201").SizeMicro)
			assert.Equal(t, int64(3*M), e.position(t, q, "202").SizeMicro)
		})
	})
}

// TestRecomputeConcurrent records 20 fills of one token from 20 goroutines,
// each recomputing after its insert as the order service does: whatever the
// interleaving, the stored position must be the fold of all fills.
func TestRecomputeConcurrent(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		e := newEnv(t, st)
		p := e.principal(t)
		const n = 20
		var wg sync.WaitGroup
		errc := make(chan error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// 15 buys of 1–15 shares, then 5 sells of 2 shares (later
				// timestamps, so nothing is sold short).
				side, size, price := "BUY", int64(i+1)*M, int64(300_000+i*10_000)
				if i >= 15 {
					side, size, price = "SELL", 2*M, 700_000
				}
				o := &models.Order{AgentID: p.AgentID, UserID: p.UserID, WalletID: "wal_1", TokenID: "101", Side: side,
					Type: "GTC", ConditionID: condA, PriceMicro: price, SizeMicro: size}
				if err := st.CreateOrder(ctx, o); err != nil {
					errc <- err
					return
				}
				if _, err := st.AddFill(ctx, &models.Fill{OrderID: o.ID, VenueTradeID: fmt.Sprint("t", i),
					PriceMicro: price, SizeMicro: size, Time: t0.Add(time.Duration(i) * time.Second)}); err != nil {
					errc <- err
					return
				}
				errc <- e.svc.Recompute(ctx, p.AgentID, p.UserID, "101")
			}()
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			require.NoError(t, err)
		}
		fills, err := st.TokenFills(ctx, p.AgentID, "101")
		require.NoError(t, err)
		require.Len(t, fills, n)
		want := positions.Fold(fills, 0, 0)
		got := e.position(t, p, "101")
		assert.Equal(t, want, positions.Folded{SizeMicro: got.SizeMicro, AvgEntryMicro: got.AvgEntryMicro, RealizedPnlMicro: got.RealizedPnlMicro})
		assert.Equal(t, int64((120-10)*M), got.SizeMicro, "1+…+15 bought, 5×2 sold")
		assert.Equal(t, models.PositionOpen, got.Status)
		all, err := st.ListPositions(ctx, p.AgentID)
		require.NoError(t, err)
		assert.Len(t, all, 1, "one position per token")
	})
}

func TestList(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		e := newEnv(t, st)
		p := e.principal(t)
		e.buy(t, p, "101", "0.40", "10") // A: resolves Yes → redeemable
		e.buy(t, p, "201", "0.50", "20") // B: open
		e.buy(t, p, "302", "0.60", "5")  // C: resolves Yes, holds No → settled
		e.buy(t, p, "401", "0.30", "4")  // D: open, no price → at cost
		e.venue.SetBids("201", [2]string{"0.45", "100"})
		_, err := e.close(ctx, p, e.position(t, p, "201").ID, positions.CloseRequest{}) // sells 20 at 0.45
		require.NoError(t, err)
		e.buy(t, p, "201", "0.50", "20")
		other := e.principal(t)
		e.buy(t, other, "101", "0.10", "1")
		e.prices.Set("101", "0.55")
		e.prices.Set("201", "0.45")
		e.chain.Resolve(condA, 1, 0)
		e.chain.Resolve(condC, 1, 0)

		type item struct{ token, status, size, avg, cur, value, unreal, pct string }
		tests := []struct {
			status      string
			want        []item
			total, upnl string
		}{
			{status: "", want: []item{
				{"201", "open", "20", "0.5", "0.45", "9", "-1", "-10"},
				{"401", "open", "4", "0.3", "0.3", "1.2", "0", "0"},
			}, total: "10.2", upnl: "-1"},
			{status: "redeemable", want: []item{{"101", "redeemable", "10", "0.4", "1", "10", "6", "150"}}, total: "10", upnl: "6"},
			{status: "settled", want: []item{{"302", "settled", "5", "0.6", "0", "0", "-3", "-100"}}, total: "0", upnl: "-3"},
			{status: "ALL", want: []item{
				{"101", "redeemable", "10", "0.4", "1", "10", "6", "150"},
				{"201", "open", "20", "0.5", "0.45", "9", "-1", "-10"},
				{"302", "settled", "5", "0.6", "0", "0", "-3", "-100"},
				{"401", "open", "4", "0.3", "0.3", "1.2", "0", "0"},
			}, total: "20.2", upnl: "2"},
		}
		for _, tt := range tests {
			t.Run("status "+tt.status, func(t *testing.T) {
				l, err := e.svc.List(ctx, p.AgentID, tt.status, false)
				require.NoError(t, err)
				got := make([]item, len(l.Positions))
				for i, it := range l.Positions {
					got[i] = item{it.TokenID, it.Status, it.Size.String(), it.AvgEntryPrice.String(), it.CurrentPrice.String(),
						it.CurrentValue.String(), it.Unrealized.String(), it.UnrealizedPercent.String()}
					assert.True(t, models.HasPrefix(it.ID, models.PrefixPosition))
				}
				assert.ElementsMatch(t, tt.want, got)
				assert.Equal(t, len(tt.want), l.Summary.TotalPositions)
				assert.Equal(t, tt.total, l.Summary.TotalValue.String())
				assert.Equal(t, tt.upnl, l.Summary.TotalUnrealizedPnl.String())
			})
		}

		t.Run("resolution recorded", func(t *testing.T) {
			assert.Equal(t, models.PositionRedeemable, e.position(t, p, "101").Status)
			assert.Equal(t, models.PositionSettled, e.position(t, p, "302").Status)
			l, err := e.svc.List(ctx, other.AgentID, "redeemable", false)
			require.NoError(t, err)
			require.Len(t, l.Positions, 1, "the other agent's position resolves on its own listing")
			assert.Equal(t, "Will A?", l.Positions[0].Question)
			assert.Equal(t, "Yes", l.Positions[0].Outcome)
		})

		t.Run("caching and fresh", func(t *testing.T) {
			calls := e.chain.Calls()
			_, err := e.svc.List(ctx, p.AgentID, "open", false)
			require.NoError(t, err)
			assert.Equal(t, calls, e.chain.Calls(), "unresolved conditions are cached for a few seconds")
			_, lastFresh := e.prices.Calls()
			assert.False(t, lastFresh)

			_, err = e.svc.List(ctx, p.AgentID, "open", true)
			require.NoError(t, err)
			assert.Equal(t, calls+2, e.chain.Calls(), "fresh asks the chain for B and D again")
			_, lastFresh = e.prices.Calls()
			assert.True(t, lastFresh)

			e.advance(positions.DefaultResolutionTTL)
			e.chain.Resolve(condB, 0, 1)
			l, err := e.svc.List(ctx, p.AgentID, "open", false)
			require.NoError(t, err)
			require.Len(t, l.Positions, 1, "B resolved No after the cache expired")
			assert.Equal(t, "401", l.Positions[0].TokenID)
			assert.Equal(t, models.PositionSettled, e.position(t, p, "201").Status)
		})

		t.Run("failures", func(t *testing.T) {
			_, err := e.svc.List(ctx, p.AgentID, "closed", false)
			assert.Equal(t, errs.Invalid, errs.KindOf(err))
			assert.Equal(t, "invalid_status", errs.CodeOf(err))

			e.prices.Fail(errors.New("dial tcp: connection refused"))
			_, err = e.svc.List(ctx, p.AgentID, "open", false)
			assert.Equal(t, errs.Transient, errs.KindOf(err))
			e.prices.Fail(nil)

			e.chain.Fail(errors.New("rpc down"))
			_, err = e.svc.List(ctx, p.AgentID, "open", true)
			assert.Equal(t, errs.Transient, errs.KindOf(err))
			e.chain.Fail(nil)
		})
	})
}

// close closes a position as workflows.PositionDesk does, placing with
// the env's placer.
func (e *env) close(ctx context.Context, p orders.Principal, id string, r positions.CloseRequest) (positions.CloseResult, error) {
	return positionstest.Close(ctx, e.svc, e.placer, p, id, r)
}
