package orders

import (
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/vault"
	"github.com/agent-trading/ats/models/wallets"
	"github.com/agent-trading/ats/sandbox"
	"github.com/agent-trading/ats/sandbox/exchange"
	vchain "github.com/agent-trading/ats/venue/chain"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/micro"
)

// TestStatusChangesCountedOnce drives orders through the real lifecycle
// against the sandbox venue and checks the status changes the store
// reports after each step (the process counts them in
// ats_orders_status_changes_total): every committed change of status once,
// in its new status; a step that leaves the status as it was (a repeated
// sync, a retried failure) nothing.
func TestStatusChangesCountedOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the sandbox venue and its EVM chain")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sb, err := sandbox.Start(ctx, sandbox.Config{Addr: "127.0.0.1:0", Seed: 7, BlockInterval: 100 * time.Millisecond,
		QuoteInterval: time.Hour, Ordinary: 1, DisableUpDown: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = sb.Close() })

	st := storetest.NewSQLite(t)
	changes := storetest.CountStatusChanges(st)
	master := make([]byte, vault.KeySize)
	_, err = rand.Read(master)
	require.NoError(t, err)
	v, err := vault.FromMasterKey(master)
	require.NoError(t, err)
	n := sb.Network()
	ch := vchain.New(n, sb.EVM().Client(), vchain.Options{ReceiptPoll: 10 * time.Millisecond})
	cl := clob.NewClient(clob.ConfigFor(n))
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	ws := &wallets.Service{Store: st, Vault: v, Chain: ch, CLOB: cl, Network: n, Audit: &audit.Service{Store: st}, Logger: quiet}
	f := newCancelFixture(t, st)
	svc := f.svc
	svc.Wallets, svc.CLOB, svc.Chain, svc.Network = ws, cl, ch, n
	w, err := ws.SeedDemo(ctx, sb.EVM(), f.p.UserID)
	require.NoError(t, err)

	m := sb.Venue().Markets()[0]
	tok := m.TokenIDs[0]
	book, err := cl.OrderBook(ctx, tok)
	require.NoError(t, err)
	require.NotEmpty(t, book.Bids)
	require.NotEmpty(t, book.Asks)
	// The best bid, one tick above the makers' and below their ask, so an
	// outside sell at that price fills this order first.
	bid := book.Bids[len(book.Bids)-1].Price.Add(book.TickSize.Decimal())
	require.True(t, bid.LessThan(book.Asks[len(book.Asks)-1].Price), "the book leaves a tick of spread: %+v", book)

	newOrder := func(t *testing.T, reqType string, price decimal.Decimal, size int64) *models.Order {
		t.Helper()
		priceMicro, err := micro.Round(price)
		require.NoError(t, err)
		o := &models.Order{ID: models.NewID(models.PrefixOrder), AgentID: f.p.AgentID, UserID: f.p.UserID, WalletID: w.ID,
			TokenID: tok, ConditionID: m.ConditionID, Side: SideBuy, Type: "GTC", RequestType: reqType,
			PriceMicro: priceMicro, SizeMicro: size * models.MicroPerUnit, Status: models.OrderPending}
		o.ReservedMicro = micro.Mul(o.PriceMicro, o.SizeMicro)
		_, err = svc.Budget.ReserveWith(ctx, f.p.AgentID, f.p.UserID, o.ReservedMicro, o.ID,
			func(tx *store.Store) error { return tx.CreateOrder(ctx, o) })
		require.NoError(t, err)
		return o
	}
	// step runs one lifecycle step and checks what it counted.
	step := func(t *testing.T, what string, run func() (Order, error), wantStatus string, counted map[string]int) {
		t.Helper()
		changes.Take()
		got, err := run()
		require.NoError(t, err, what)
		require.Equal(t, wantStatus, got.Status, what)
		if counted == nil {
			counted = map[string]int{}
		}
		require.Equal(t, counted, changes.Take(), what)
	}

	t.Run("resting, synced, filled", func(t *testing.T) {
		o := newOrder(t, TypeLimit, bid, 10)
		step(t, "resting post", func() (Order, error) { return svc.Submit(ctx, o.ID) }, models.OrderOpen,
			map[string]int{models.OrderOpen: 1})
		step(t, "submit again", func() (Order, error) { return svc.Submit(ctx, o.ID) }, models.OrderOpen, nil)
		for range 2 {
			step(t, "sync, nothing new", func() (Order, error) { return svc.Sync(ctx, o.ID) }, models.OrderOpen, nil)
		}
		seller := sb.Chain().OutsideWallets()[0]
		_, err := sb.Venue().OutsideTrade(ctx, seller, tok, exchange.Sell, uint64(o.PriceMicro), uint64(o.SizeMicro))
		require.NoError(t, err)
		// The trade is the venue's at once; its settlement may take a block.
		changes.Take()
		var got Order
		require.Eventually(t, func() bool {
			got, err = svc.Sync(ctx, o.ID)
			return err == nil && got.Status == models.OrderFilled
		}, 30*time.Second, 100*time.Millisecond, "the order fills: %+v %v", got, err)
		require.Equal(t, map[string]int{models.OrderFilled: 1}, changes.Take(), "the fill")
		step(t, "sync after the fill", func() (Order, error) { return svc.Sync(ctx, o.ID) }, models.OrderFilled, nil)
	})

	t.Run("cancelled", func(t *testing.T) {
		o := newOrder(t, TypeLimit, bid, 10)
		step(t, "resting post", func() (Order, error) { return svc.Submit(ctx, o.ID) }, models.OrderOpen,
			map[string]int{models.OrderOpen: 1})
		cancel := func() (Order, error) { _, got, err := svc.CancelAtVenue(ctx, o.ID); return got, err }
		step(t, "cancelled at the venue", cancel, models.OrderCancelled, map[string]int{models.OrderCancelled: 1})
		step(t, "cancel retried", cancel, models.OrderCancelled, nil)
		step(t, "sync after the cancel", func() (Order, error) { return svc.Sync(ctx, o.ID) }, models.OrderCancelled, nil)
	})

	t.Run("cancelled while pending", func(t *testing.T) {
		o := newOrder(t, TypeLimit, bid, 10)
		cancel := func() (Order, error) { _, got, err := svc.CancelPending(ctx, o.ID); return got, err }
		step(t, "cancelled", cancel, models.OrderCancelled, map[string]int{models.OrderCancelled: 1})
		step(t, "cancel retried", cancel, models.OrderCancelled, nil)
	})

	t.Run("refused", func(t *testing.T) {
		// A market order capped far below the ask: the book cannot fill
		// it, so it is refused before it is posted.
		o := newOrder(t, TypeMarket, decimal.RequireFromString("0.01"), 10)
		step(t, "refused", func() (Order, error) { return svc.Submit(ctx, o.ID) }, models.OrderFailed,
			map[string]int{models.OrderFailed: 1})
		step(t, "submit again", func() (Order, error) { return svc.Submit(ctx, o.ID) }, models.OrderFailed, nil)
	})

	t.Run("abandoned", func(t *testing.T) {
		o := newOrder(t, TypeLimit, bid, 10)
		step(t, "abandoned", func() (Order, error) { return svc.Abandon(ctx, o.ID) }, models.OrderFailed,
			map[string]int{models.OrderFailed: 1})
		step(t, "abandoned again", func() (Order, error) { return svc.Abandon(ctx, o.ID) }, models.OrderFailed, nil)
	})
}
