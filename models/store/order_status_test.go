package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

// TestOrderStatusChangesCounted: the store reports a change of an order's
// status (to OnOrderStatus; the process counts it in
// ats_orders_status_changes_total) when it commits, once, and only when
// the status was another: an update in the same status, a lost guard or a
// rolled-back transaction reports nothing.
func TestOrderStatusChangesCounted(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		order := func(t *testing.T) *models.Order {
			t.Helper()
			o := &models.Order{AgentID: "agt_1", UserID: "usr_1", WalletID: "wal_1", TokenID: "1", Side: "BUY", Type: "GTC",
				PriceMicro: 500_000, SizeMicro: 10_000_000, ReservedMicro: 5_000_000}
			require.NoError(t, s.CreateOrder(ctx, o))
			return o
		}
		st := func(v string) *string { return &v }
		n := func(v int64) *int64 { return &v }
		live := []string{models.OrderPending, models.OrderOpen, models.OrderPartiallyFilled}
		changes := storetest.CountStatusChanges(s)
		// step runs do and checks it reported exactly want.
		step := func(t *testing.T, what string, do func() error, wantErr bool, want map[string]int) {
			t.Helper()
			changes.Take()
			err := do()
			if wantErr {
				require.Error(t, err, what)
			} else {
				require.NoError(t, err, what)
			}
			if want == nil {
				want = map[string]int{}
			}
			assert.Equal(t, want, changes.Take(), what)
		}

		t.Run("each change once", func(t *testing.T) {
			o := order(t)
			step(t, "PENDING to OPEN", func() error {
				return s.UpdateOrder(ctx, o.ID, []string{models.OrderPending}, store.OrderUpdate{Status: st(models.OrderOpen)})
			}, false, map[string]int{models.OrderOpen: 1})
			step(t, "OPEN again (a sync that found nothing new)", func() error {
				return s.UpdateOrder(ctx, o.ID, live, store.OrderUpdate{Status: st(models.OrderOpen)})
			}, false, nil)
			step(t, "a partial fill", func() error {
				return s.UpdateOrder(ctx, o.ID, live, store.OrderUpdate{Status: st(models.OrderPartiallyFilled), FilledSizeMicro: n(2_000_000)})
			}, false, map[string]int{models.OrderPartiallyFilled: 1})
			step(t, "another partial fill, same status", func() error {
				return s.UpdateOrder(ctx, o.ID, live, store.OrderUpdate{Status: st(models.OrderPartiallyFilled), FilledSizeMicro: n(4_000_000)})
			}, false, nil)
			got, err := s.OrderByID(ctx, o.ID)
			require.NoError(t, err)
			assert.Equal(t, int64(4_000_000), got.FilledSizeMicro, "an update in the same status is applied")
			step(t, "filled, any status (no guard)", func() error {
				return s.UpdateOrder(ctx, o.ID, nil, store.OrderUpdate{Status: st(models.OrderFilled), FilledSizeMicro: n(10_000_000)})
			}, false, map[string]int{models.OrderFilled: 1})
			step(t, "filled again, no guard", func() error {
				return s.UpdateOrder(ctx, o.ID, nil, store.OrderUpdate{Status: st(models.OrderFilled)})
			}, false, nil)
			step(t, "a cancel that lost to the fill", func() error {
				err := s.UpdateOrder(ctx, o.ID, live, store.OrderUpdate{Status: st(models.OrderCancelled)})
				if !errs.Is(err, errs.Conflict) || errs.PublicMessage(err) != "the order is FILLED" {
					t.Errorf("err %v, want the order_state conflict", err)
				}
				return err
			}, true, nil)
			step(t, "a sync of the filled order from live statuses only", func() error {
				return s.UpdateOrder(ctx, o.ID, live, store.OrderUpdate{Status: st(models.OrderFilled)})
			}, true, nil)
		})

		t.Run("counted when the transaction commits", func(t *testing.T) {
			o := order(t)
			step(t, "rolled back", func() error {
				return s.Tx(ctx, func(tx *store.Store) error {
					if err := tx.UpdateOrder(ctx, o.ID, live, store.OrderUpdate{Status: st(models.OrderOpen)}); err != nil {
						return err
					}
					return errors.New("roll back")
				})
			}, true, nil)
			step(t, "committed", func() error {
				return s.Tx(ctx, func(tx *store.Store) error {
					err := tx.Tx(ctx, func(tx *store.Store) error { // a savepoint
						return tx.UpdateOrder(ctx, o.ID, live, store.OrderUpdate{Status: st(models.OrderOpen)})
					})
					if err != nil {
						return err
					}
					if got := changes.Take(); len(got) > 0 {
						t.Errorf("reported before the commit: %v", got)
					}
					return nil
				})
			}, false, map[string]int{models.OrderOpen: 1})
		})

		t.Run("ends of a pending order", func(t *testing.T) {
			o := order(t)
			step(t, "cancelled", func() error { return s.CancelPendingOrder(ctx, o.ID) }, false,
				map[string]int{models.OrderCancelled: 1})
			step(t, "cancelled again", func() error { return s.CancelPendingOrder(ctx, o.ID) }, true, nil)
			o = order(t)
			step(t, "failed", func() error { return s.FailPendingOrder(ctx, o.ID, "unreachable") }, false,
				map[string]int{models.OrderFailed: 1})
		})
	})
}
