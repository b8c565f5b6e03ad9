package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

func ptr[T any](v T) *T { return &v }

func TestOrdersAndFills(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		clock := t0
		s.SetClock(func() time.Time { return clock })
		mk := func(agent, key string) *models.Order {
			o := &models.Order{
				AgentID: agent, UserID: "usr_1", WalletID: "wal_1", TokenID: "123", Side: "BUY", Type: "GTC",
				PriceMicro: 550_000, SizeMicro: 10 * models.MicroPerUnit, ReservedMicro: 5_500_000,
			}
			if key != "" {
				o.IdempotencyKey = ptr(key)
			}
			require.NoError(t, s.CreateOrder(ctx, o))
			clock = clock.Add(time.Second)
			return o
		}
		o1 := mk("agt_1", "idem-1")
		o2 := mk("agt_1", "")
		o3 := mk("agt_1", "") // two orders without a key are fine
		o4 := mk("agt_2", "idem-1")
		assert.True(t, models.HasPrefix(o1.ID, models.PrefixOrder))
		assert.Equal(t, models.OrderPending, o1.Status)

		dup := &models.Order{AgentID: "agt_1", UserID: "usr_1", TokenID: "1", Side: "BUY", Type: "GTC", IdempotencyKey: ptr("idem-1")}
		assert.Equal(t, errs.Conflict, errs.KindOf(s.CreateOrder(ctx, dup)), "key reused by the same agent")
		assert.Equal(t, errs.Invalid, errs.KindOf(s.CreateOrder(ctx, &models.Order{AgentID: "a"})))

		t.Run("lookups", func(t *testing.T) {
			tests := []struct {
				name    string
				get     func() (*models.Order, error)
				wantID  string
				wantErr errs.Kind
			}{
				{"by id", func() (*models.Order, error) { return s.OrderByID(ctx, o2.ID) }, o2.ID, 0},
				{"for agent", func() (*models.Order, error) { return s.OrderForAgent(ctx, "agt_1", o1.ID) }, o1.ID, 0},
				{"other agent's", func() (*models.Order, error) { return s.OrderForAgent(ctx, "agt_2", o1.ID) }, "", errs.NotFound},
				{"idempotency key", func() (*models.Order, error) { return s.OrderByIdempotencyKey(ctx, "agt_2", "idem-1") }, o4.ID, 0},
				{"unknown key", func() (*models.Order, error) { return s.OrderByIdempotencyKey(ctx, "agt_1", "nope") }, "", errs.NotFound},
				{"empty venue id", func() (*models.Order, error) { return s.OrderByVenueID(ctx, "") }, "", errs.NotFound},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					got, err := tt.get()
					if tt.wantErr != 0 {
						assert.Equal(t, tt.wantErr, errs.KindOf(err))
						return
					}
					require.NoError(t, err)
					assert.Equal(t, tt.wantID, got.ID)
					assert.Equal(t, int64(550_000), got.PriceMicro)
				})
			}
		})

		t.Run("updates", func(t *testing.T) {
			active := []string{models.OrderPending, models.OrderOpen, models.OrderPartiallyFilled}
			tests := []struct {
				name    string
				id      string
				from    []string
				upd     store.OrderUpdate
				wantErr errs.Kind
			}{
				{"open", o1.ID, []string{models.OrderPending}, store.OrderUpdate{Status: ptr(models.OrderOpen), VenueOrderID: ptr("0xabc")}, 0},
				{"partial fill", o1.ID, active, store.OrderUpdate{Status: ptr(models.OrderPartiallyFilled), FilledSizeMicro: ptr(int64(4_000_000)), AvgFillPriceMicro: ptr(int64(540_000))}, 0},
				{"cancel", o2.ID, active, store.OrderUpdate{Status: ptr(models.OrderCancelled), ReservedMicro: ptr(int64(0))}, 0},
				{"cancel again", o2.ID, active, store.OrderUpdate{Status: ptr(models.OrderCancelled)}, errs.Conflict},
				{"fail", o3.ID, nil, store.OrderUpdate{Status: ptr(models.OrderFailed), FailureReason: ptr("venue rejected")}, 0},
				{"missing", "ord_nope", active, store.OrderUpdate{Status: ptr(models.OrderOpen)}, errs.NotFound},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					err := s.UpdateOrder(ctx, tt.id, tt.from, tt.upd)
					if tt.wantErr != 0 {
						assert.Equal(t, tt.wantErr, errs.KindOf(err), "err: %v", err)
						return
					}
					require.NoError(t, err)
					got, err := s.OrderByID(ctx, tt.id)
					require.NoError(t, err)
					assert.Equal(t, *tt.upd.Status, got.Status)
				})
			}
			got, err := s.OrderByVenueID(ctx, "0xabc")
			require.NoError(t, err)
			assert.Equal(t, o1.ID, got.ID)
			assert.Equal(t, int64(4_000_000), got.FilledSizeMicro)
			assert.Equal(t, int64(540_000), got.AvgFillPriceMicro)
			assert.Equal(t, int64(5_500_000), got.ReservedMicro, "untouched field kept")
			filled := t0.Add(time.Hour)
			require.NoError(t, s.UpdateOrder(ctx, o1.ID, nil, store.OrderUpdate{Status: ptr(models.OrderFilled), FilledAt: &filled}))
			got, err = s.OrderByID(ctx, o1.ID)
			require.NoError(t, err)
			require.NotNil(t, got.FilledAt)
			assert.True(t, got.FilledAt.Equal(filled))
			err = s.UpdateOrder(ctx, o2.ID, active, store.OrderUpdate{})
			assert.Equal(t, "order_state", errs.CodeOf(err))
		})

		t.Run("list", func(t *testing.T) {
			tests := []struct {
				name string
				f    store.OrderFilter
				want []string
			}{
				{"agent newest first", store.OrderFilter{AgentID: "agt_1"}, []string{o3.ID, o2.ID, o1.ID}},
				{"status", store.OrderFilter{AgentID: "agt_1", Statuses: []string{models.OrderCancelled, models.OrderFailed}}, []string{o3.ID, o2.ID}},
				{"limit offset", store.OrderFilter{AgentID: "agt_1", Limit: 1, Offset: 1}, []string{o2.ID}},
				{"token", store.OrderFilter{TokenID: "123", AgentID: "agt_2"}, []string{o4.ID}},
				{"none", store.OrderFilter{AgentID: "agt_9"}, nil},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					got, err := s.ListOrders(ctx, tt.f)
					require.NoError(t, err)
					var ids []string
					for _, o := range got {
						ids = append(ids, o.ID)
					}
					assert.Equal(t, tt.want, ids)
				})
			}
		})

		t.Run("fills are idempotent", func(t *testing.T) {
			f := &models.Fill{OrderID: o1.ID, VenueTradeID: "trade-1", PriceMicro: 540_000, SizeMicro: 4_000_000, Time: t0}
			created, err := s.AddFill(ctx, f)
			require.NoError(t, err)
			assert.True(t, created)
			created, err = s.AddFill(ctx, &models.Fill{OrderID: o1.ID, VenueTradeID: "trade-1", PriceMicro: 1, SizeMicro: 1, Time: t0})
			require.NoError(t, err)
			assert.False(t, created, "replayed trade absorbed")

			// Concurrent replays of one trade: exactly one row.
			var wg sync.WaitGroup
			results := make(chan bool, 8)
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c, err := s.AddFill(ctx, &models.Fill{OrderID: o1.ID, VenueTradeID: "trade-2", PriceMicro: 550_000, SizeMicro: 6_000_000, Time: t0.Add(time.Second)})
					assert.NoError(t, err)
					results <- c
				}()
			}
			wg.Wait()
			close(results)
			n := 0
			for c := range results {
				if c {
					n++
				}
			}
			assert.Equal(t, 1, n)

			fills, err := s.ListFills(ctx, o1.ID)
			require.NoError(t, err)
			require.Len(t, fills, 2)
			assert.Equal(t, "trade-1", fills[0].VenueTradeID)
			assert.Equal(t, int64(540_000), fills[0].PriceMicro)
			_, err = s.AddFill(ctx, &models.Fill{OrderID: o1.ID})
			assert.Equal(t, errs.Invalid, errs.KindOf(err))
			_, err = s.AddFill(ctx, &models.Fill{OrderID: "ord_missing", VenueTradeID: "t"})
			assert.Error(t, err, "foreign key to orders")
		})
	})
}

func TestPositions(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		end := t0.Add(48 * time.Hour)
		p := &models.Position{AgentID: "agt_1", UserID: "usr_1", TokenID: "tok-1", Question: "Q?", Outcome: "Yes",
			SizeMicro: 10_000_000, AvgEntryMicro: 500_000, NegRisk: true, EndDate: &end}
		require.NoError(t, s.SavePosition(ctx, p))
		id := p.ID
		assert.True(t, models.HasPrefix(id, models.PrefixPosition))
		assert.Equal(t, models.PositionOpen, p.Status)

		// Saving again under a fresh struct keeps the ID; zero values are written.
		p2 := &models.Position{AgentID: "agt_1", UserID: "usr_1", TokenID: "tok-1", Question: "Q?", Outcome: "Yes",
			SizeMicro: 0, AvgEntryMicro: 500_000, RealizedPnlMicro: 1_200_000, Status: models.PositionClosed}
		require.NoError(t, s.SavePosition(ctx, p2))
		assert.Equal(t, id, p2.ID)
		got, err := s.PositionForAgent(ctx, "agt_1", id)
		require.NoError(t, err)
		assert.Zero(t, got.SizeMicro)
		assert.Equal(t, int64(1_200_000), got.RealizedPnlMicro)
		assert.Equal(t, models.PositionClosed, got.Status)
		assert.False(t, got.NegRisk)
		assert.Nil(t, got.EndDate)

		require.NoError(t, s.SavePosition(ctx, &models.Position{AgentID: "agt_1", UserID: "usr_1", TokenID: "tok-2", SizeMicro: 1}))
		require.NoError(t, s.SavePosition(ctx, &models.Position{AgentID: "agt_2", UserID: "usr_1", TokenID: "tok-1", SizeMicro: 1}))

		tests := []struct {
			name     string
			agent    string
			statuses []string
			want     int
		}{
			{"all", "agt_1", nil, 2},
			{"open", "agt_1", []string{models.PositionOpen}, 1},
			{"closed or settled", "agt_1", []string{models.PositionClosed, models.PositionSettled}, 1},
			{"other agent", "agt_2", nil, 1},
			{"nobody", "agt_9", nil, 0},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := s.ListPositions(ctx, tt.agent, tt.statuses...)
				require.NoError(t, err)
				assert.Len(t, got, tt.want)
			})
		}
		_, err = s.PositionForAgent(ctx, "agt_2", id)
		assert.Equal(t, errs.NotFound, errs.KindOf(err))
		_, err = s.PositionByToken(ctx, "agt_1", "tok-9")
		assert.Equal(t, errs.NotFound, errs.KindOf(err))
		assert.Equal(t, errs.Invalid, errs.KindOf(s.SavePosition(ctx, &models.Position{AgentID: "agt_1"})))
	})
}

func TestStrategies(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		clock := t0
		s.SetClock(func() time.Time { return clock })
		var ids []string
		for i := range 3 {
			st := &models.Strategy{AgentID: "agt_1", UserID: "usr_1", Type: models.StrategyRecurringBuy,
				Config: fmt.Sprintf(`{"i":%d}`, i), MaxBudgetMicro: 10 * models.MicroPerUnit, Status: "active"}
			require.NoError(t, s.CreateStrategy(ctx, st))
			ids = append(ids, st.ID)
			clock = clock.Add(time.Second)
		}
		assert.True(t, models.HasPrefix(ids[0], models.PrefixStrategy))
		assert.Equal(t, errs.Invalid, errs.KindOf(s.CreateStrategy(ctx, &models.Strategy{AgentID: "agt_1"})))

		tests := []struct {
			name    string
			id      string
			from    []string
			upd     store.StrategyUpdate
			wantErr errs.Kind
		}{
			{"pause", ids[0], []string{"active"}, store.StrategyUpdate{Status: ptr("paused")}, 0},
			{"pause again", ids[0], []string{"active"}, store.StrategyUpdate{Status: ptr("paused")}, errs.Conflict},
			{"spend", ids[1], nil, store.StrategyUpdate{BudgetUsedMicro: ptr(int64(2_000_000)), ConsecutiveFailures: ptr(2), WorkflowID: ptr("wf-1")}, 0},
			{"missing", "str_nope", nil, store.StrategyUpdate{Status: ptr("paused")}, errs.NotFound},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				err := s.UpdateStrategy(ctx, tt.id, tt.from, tt.upd)
				if tt.wantErr != 0 {
					assert.Equal(t, tt.wantErr, errs.KindOf(err))
					return
				}
				require.NoError(t, err)
			})
		}
		got, err := s.StrategyForAgent(ctx, "agt_1", ids[1])
		require.NoError(t, err)
		assert.Equal(t, int64(2_000_000), got.BudgetUsedMicro)
		assert.Equal(t, 2, got.ConsecutiveFailures)
		assert.Equal(t, "wf-1", got.WorkflowID)
		assert.Equal(t, "active", got.Status)
		_, err = s.StrategyForAgent(ctx, "agt_2", ids[1])
		assert.Equal(t, errs.NotFound, errs.KindOf(err))

		list, err := s.ListStrategies(ctx, "agt_1", "active")
		require.NoError(t, err)
		require.Len(t, list, 2)
		assert.Equal(t, ids[2], list[0].ID, "newest first")
		n, err := s.CountStrategies(ctx, "agt_1", "active")
		require.NoError(t, err)
		assert.Equal(t, int64(2), n)
		n, err = s.CountStrategies(ctx, "agt_1")
		require.NoError(t, err)
		assert.Equal(t, int64(3), n)

		for i, kind := range []string{models.ExecutionSkip, models.ExecutionAction, models.ExecutionError} {
			e := &models.StrategyExecution{StrategyID: ids[1], Kind: kind, Time: t0.Add(time.Duration(i) * time.Minute), Detail: `{}`}
			if kind == models.ExecutionAction {
				e.OrderID = ptr("ord_1")
			}
			require.NoError(t, s.AddStrategyExecution(ctx, e))
		}
		execs, err := s.ListStrategyExecutions(ctx, ids[1], 2)
		require.NoError(t, err)
		require.Len(t, execs, 2)
		assert.Equal(t, models.ExecutionError, execs[0].Kind)
		assert.Equal(t, models.ExecutionAction, execs[1].Kind)
		require.NotNil(t, execs[1].OrderID)
		assert.Equal(t, "ord_1", *execs[1].OrderID)
		assert.Equal(t, errs.Invalid, errs.KindOf(s.AddStrategyExecution(ctx, &models.StrategyExecution{StrategyID: ids[1]})))
		assert.Error(t, s.AddStrategyExecution(ctx, &models.StrategyExecution{StrategyID: "str_missing", Kind: models.ExecutionSkip}), "foreign key")
	})
}

func TestHeartbeats(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		n, last, err := s.HeartbeatStats(ctx, "key_1")
		require.NoError(t, err)
		assert.Zero(t, n)
		assert.Nil(t, last)
		for i := range 3 {
			require.NoError(t, s.RecordHeartbeat(ctx, &models.Heartbeat{AgentID: "agt_1", APIKeyID: "key_1", Time: t0.Add(time.Duration(i) * time.Minute), SkillVersion: ptr(i)}))
		}
		require.NoError(t, s.RecordHeartbeat(ctx, &models.Heartbeat{AgentID: "agt_2", APIKeyID: "key_2"}))
		n, last, err = s.HeartbeatStats(ctx, "key_1")
		require.NoError(t, err)
		assert.Equal(t, int64(3), n)
		require.NotNil(t, last)
		assert.True(t, last.Time.Equal(t0.Add(2*time.Minute)))
		require.NotNil(t, last.SkillVersion)
		assert.Equal(t, 2, *last.SkillVersion)
		assert.Equal(t, errs.Invalid, errs.KindOf(s.RecordHeartbeat(ctx, &models.Heartbeat{AgentID: "a"})))
	})
}
