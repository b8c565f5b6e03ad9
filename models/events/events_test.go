package events_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/events"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	// The strategy types events may carry are the registry's.
	_ "github.com/agent-trading/ats/models/strategies"
)

func strategyEvent(agent string, typ events.Type, by events.Actor) events.Event {
	return events.Event{AgentID: agent, UserID: "usr_1", Type: typ, StrategyID: "str_1",
		StrategyType: models.StrategyRecurringBuy, By: by, Summary: "bought 5 USDC of Yes",
		Details: map[string]any{"amount": 5}}
}

func TestAppendValidates(t *testing.T) {
	s := storetest.NewSQLite(t)
	ctx := context.Background()
	ok := strategyEvent("agt_1", events.StrategyExecuted, "")
	for _, tc := range []struct {
		name string
		edit func(*events.Event)
	}{
		{"no agent", func(e *events.Event) { e.AgentID = "" }},
		{"fill through Append", func(e *events.Event) { e.Type = events.OrderFill }},
		{"unknown type", func(e *events.Event) { e.Type = "NOPE" }},
		{"no strategy", func(e *events.Event) { e.StrategyID = "" }},
		{"no summary", func(e *events.Event) { e.Summary = "" }},
		{"bad strategy type", func(e *events.Event) { e.StrategyType = "GRID" }},
		{"pause without actor", func(e *events.Event) { e.Type = events.StrategyPaused }},
		{"cancel without actor", func(e *events.Event) { e.Type = events.StrategyCancelled }},
		{"unknown actor", func(e *events.Event) { e.By = "robot" }},
		{"details not JSON", func(e *events.Event) { e.Details = map[string]any{"f": func() {}} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := ok
			tc.edit(&e)
			_, err := events.Append(ctx, s, e)
			assert.Equal(t, errs.Invalid, errs.KindOf(err), "%v", err)
		})
	}
	got, err := events.Append(ctx, s, ok)
	require.NoError(t, err)
	assert.EqualValues(t, 1, got.Seq)
	assert.False(t, got.Time.IsZero())
}

// TestAppendInCallersTransaction: an event appended in a transaction that
// rolls back never existed; a committed one is claimed with its data.
func TestAppendInCallersTransaction(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		boom := errors.New("boom")
		err := s.Tx(ctx, func(tx *store.Store) error {
			if _, err := events.Append(ctx, tx, strategyEvent("agt_1", events.StrategyError, "")); err != nil {
				return err
			}
			return boom
		})
		require.ErrorIs(t, err, boom)
		require.NoError(t, s.Tx(ctx, func(tx *store.Store) error {
			_, err := events.Append(ctx, tx, strategyEvent("agt_1", events.StrategyPaused, events.ByUser))
			return err
		}))
		c, err := s.ClaimHeartbeat(ctx, "key_1", "agt_1", true, nil, 10)
		require.NoError(t, err)
		require.Len(t, c.Events, 1)
		e := events.FromRecord(c.Events[0])
		assert.EqualValues(t, 1, e.Seq, "the rolled-back append left no gap")
		assert.Equal(t, events.StrategyPaused, e.Type)
		assert.Equal(t, events.ByUser, e.By)
		assert.Equal(t, "str_1", e.StrategyID)
		assert.EqualValues(t, 5, e.Details["amount"])
	})
}

// TestFillsAreLogged: store.AddFill logs each new fill once; a replayed
// trade adds nothing.
func TestFillsAreLogged(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		o := &models.Order{AgentID: "agt_1", UserID: "usr_1", WalletID: "wal_1", TokenID: "123", Side: "BUY", Type: "GTC",
			PriceMicro: 500_000, SizeMicro: 10 * models.MicroPerUnit}
		require.NoError(t, s.CreateOrder(ctx, o))
		for _, id := range []string{"t1", "t2", "t1"} {
			_, err := s.AddFill(ctx, &models.Fill{OrderID: o.ID, VenueTradeID: id, PriceMicro: 500_000, SizeMicro: models.MicroPerUnit})
			require.NoError(t, err)
		}
		c, err := s.ClaimHeartbeat(ctx, "key_1", "agt_1", true, nil, 10)
		require.NoError(t, err)
		require.Len(t, c.Events, 2)
		for _, e := range c.Events {
			assert.Equal(t, models.EventOrderFill, e.Type)
			assert.Equal(t, o.ID, e.OrderID)
			assert.NotEmpty(t, e.FillID)
		}
		assert.NotEqual(t, c.Events[0].FillID, c.Events[1].FillID)
	})
}

// TestClaimExactlyOnce: heartbeats of one key racing with appenders each
// claim distinct events, and together every event exactly once; a
// sleeping heartbeat counts but claims nothing; another key of the agent
// has its own cursor.
func TestClaimExactlyOnce(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		const appenders, perAppender, beaters = 4, 25, 4
		var (
			mu      sync.Mutex
			claimed []int64
			beats   []int64
			wg      sync.WaitGroup
			done    = make(chan struct{})
		)
		claim := func(consume bool) error {
			c, err := s.ClaimHeartbeat(ctx, "key_1", "agt_1", consume, nil, 7)
			if err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			beats = append(beats, c.Beats)
			for _, e := range c.Events {
				claimed = append(claimed, e.Seq)
			}
			return nil
		}
		errc := make(chan error, appenders+beaters)
		for a := range appenders {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range perAppender {
					e := strategyEvent("agt_1", events.StrategyExecuted, "")
					e.Summary = fmt.Sprintf("trade %d/%d", a, i)
					if _, err := events.Append(ctx, s, e); err != nil {
						errc <- err
						return
					}
				}
			}()
		}
		var bg sync.WaitGroup
		for b := range beaters {
			bg.Add(1)
			go func() {
				defer bg.Done()
				for i := 0; ; i++ {
					select {
					case <-done:
						return
					default:
					}
					// Every third heartbeat of one goroutine is a sleeping one.
					if err := claim((i+b)%3 != 0); err != nil {
						errc <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(done)
		bg.Wait()
		close(errc)
		for err := range errc {
			require.NoError(t, err)
		}
		for { // drain what the racing heartbeats left
			n := len(claimed)
			require.NoError(t, claim(true))
			if len(claimed) == n {
				break
			}
		}
		sort.Slice(claimed, func(i, j int) bool { return claimed[i] < claimed[j] })
		require.Len(t, claimed, appenders*perAppender, "every event claimed exactly once")
		for i, seq := range claimed {
			require.EqualValues(t, i+1, seq)
		}
		sort.Slice(beats, func(i, j int) bool { return beats[i] < beats[j] })
		for i, n := range beats {
			require.EqualValues(t, i+1, n, "each heartbeat counted once")
		}

		// A second key of the agent starts from the beginning of the log.
		c, err := s.ClaimHeartbeat(ctx, "key_2", "agt_1", true, nil, 1000)
		require.NoError(t, err)
		assert.Len(t, c.Events, appenders*perAppender)
	})
}

func TestSleepingKeepsEventsAndPurge(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		now := t0
		s.SetClock(func() time.Time { return now })
		_, err := events.Append(ctx, s, strategyEvent("agt_1", events.StrategyCompleted, ""))
		require.NoError(t, err)
		c, err := s.ClaimHeartbeat(ctx, "key_1", "agt_1", false, nil, 10)
		require.NoError(t, err)
		assert.Empty(t, c.Events)
		assert.EqualValues(t, 1, c.Beats)

		now = now.Add(time.Minute)
		_, err = events.Append(ctx, s, strategyEvent("agt_1", events.StrategyCancelled, events.ByUser))
		require.NoError(t, err)
		c, err = s.ClaimHeartbeat(ctx, "key_1", "agt_1", true, nil, 1)
		require.NoError(t, err)
		require.Len(t, c.Events, 1, "the limit holds")
		assert.True(t, c.More)
		assert.Equal(t, models.EventStrategyCompleted, c.Events[0].Type, "the sleeping heartbeat left it")
		assert.EqualValues(t, 2, c.Beats)

		last, err := s.LastHeartbeats(ctx, []string{"agt_1", "agt_2"})
		require.NoError(t, err)
		assert.Equal(t, map[string]time.Time{"agt_1": now}, last)
		n, err := s.HeartbeatCount(ctx, "key_1")
		require.NoError(t, err)
		assert.EqualValues(t, 2, n)

		// Event 1 is reported, event 2 not yet: only event 1 may go.
		purged, err := s.PurgeReportedEvents(ctx, now.Add(time.Hour), t0.Add(-time.Hour))
		require.NoError(t, err)
		assert.EqualValues(t, 1, purged)
		c, err = s.ClaimHeartbeat(ctx, "key_1", "agt_1", true, nil, 10)
		require.NoError(t, err)
		require.Len(t, c.Events, 1)
		assert.Equal(t, models.EventStrategyCancelled, c.Events[0].Type)
		// After the longer period everything goes, reported (event 2) or
		// not (event 3).
		_, err = events.Append(ctx, s, strategyEvent("agt_1", events.StrategyError, ""))
		require.NoError(t, err)
		purged, err = s.PurgeReportedEvents(ctx, t0, now.Add(time.Second))
		require.NoError(t, err)
		assert.EqualValues(t, 2, purged)
	})
}

// TestReleaseClaim: a heartbeat that claimed events but could not answer
// hands them back; not when another heartbeat of the key claimed since.
func TestReleaseClaim(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		for range 2 {
			_, err := events.Append(ctx, s, strategyEvent("agt_1", events.StrategyExecuted, ""))
			require.NoError(t, err)
		}
		c, err := s.ClaimHeartbeat(ctx, "key_1", "agt_1", true, nil, 10)
		require.NoError(t, err)
		require.Len(t, c.Events, 2)
		require.NoError(t, s.ReleaseHeartbeatClaim(ctx, "key_1", c))
		again, err := s.ClaimHeartbeat(ctx, "key_1", "agt_1", true, nil, 10)
		require.NoError(t, err)
		require.Len(t, again.Events, 2, "handed back")

		_, err = events.Append(ctx, s, strategyEvent("agt_1", events.StrategyError, ""))
		require.NoError(t, err)
		failed, err := s.ClaimHeartbeat(ctx, "key_1", "agt_1", true, nil, 10)
		require.NoError(t, err)
		require.Len(t, failed.Events, 1)
		_, err = events.Append(ctx, s, strategyEvent("agt_1", events.StrategyCompleted, ""))
		require.NoError(t, err)
		later, err := s.ClaimHeartbeat(ctx, "key_1", "agt_1", true, nil, 10)
		require.NoError(t, err)
		require.Len(t, later.Events, 1)
		require.NoError(t, s.ReleaseHeartbeatClaim(ctx, "key_1", failed))
		none, err := s.ClaimHeartbeat(ctx, "key_1", "agt_1", true, nil, 10)
		require.NoError(t, err)
		assert.Empty(t, none.Events, "the cursor is not moved back under a later claim")
	})
}
