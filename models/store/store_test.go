package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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

func TestOpenRejectsUnknownURL(t *testing.T) {
	tests := []struct {
		name string
		cfg  store.Config
	}{
		{"mysql url", store.Config{URL: "mysql://localhost/x"}},
		{"no data dir", store.Config{}},
		{"data dir with query char", store.Config{DataDir: "/tmp/a?b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := store.Open(context.Background(), tt.cfg)
			require.Error(t, err)
			assert.Equal(t, errs.Invalid, errs.KindOf(err))
		})
	}
}

func TestOpenUnreachablePostgresIsTransient(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Port 1 on loopback refuses connections.
	_, err := store.Open(ctx, store.Config{URL: "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=2"})
	require.Error(t, err)
	assert.Equal(t, errs.Transient, errs.KindOf(err), "err: %v", err)
}

func TestMigrateIsIdempotent(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		v1, err := s.Migrate(ctx)
		require.NoError(t, err)
		v2, err := s.Migrate(ctx)
		require.NoError(t, err)
		assert.Equal(t, v1, v2)
		assert.GreaterOrEqual(t, v1, int64(1))
		cur, latest, err := s.SchemaVersion(ctx)
		require.NoError(t, err)
		assert.Equal(t, v1, cur)
		assert.Equal(t, latest, cur)
		require.NoError(t, s.Ping(ctx))
	})
}

func TestSQLiteFileInDataDir(t *testing.T) {
	// A path with a space and a percent sign, created on demand.
	dir := filepath.Join(t.TempDir(), "data dir %20", "nested")
	ctx := context.Background()
	s, err := store.Open(ctx, store.Config{DataDir: dir})
	require.NoError(t, err)
	_, err = s.Migrate(ctx)
	require.NoError(t, err)
	require.NoError(t, s.CreateUser(ctx, &models.User{Email: "persist@example.com", PasswordHash: "h"}))
	require.NoError(t, s.Close())

	// Reopening the same directory sees the same data.
	s, err = store.Open(ctx, store.Config{DataDir: dir})
	require.NoError(t, err)
	defer s.Close()
	assert.Equal(t, store.SQLite, s.Dialect())
	_, err = os.Stat(filepath.Join(dir, "ats.db"))
	require.NoError(t, err, "the database file is where the docs say")
	for pragma, want := range map[string]string{"journal_mode": "wal", "foreign_keys": "1", "busy_timeout": "10000"} {
		var got string
		require.NoError(t, s.DB().Raw("PRAGMA "+pragma).Scan(&got).Error)
		assert.Equal(t, want, got, pragma)
	}
	u, err := s.UserByEmail(ctx, "persist@example.com")
	require.NoError(t, err)
	assert.Equal(t, "persist@example.com", u.Email)
}

func TestTx(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		boom := errs.E(errs.Invalid, "boom")
		err := s.Tx(ctx, func(tx *store.Store) error {
			require.NoError(t, tx.CreateUser(ctx, &models.User{Email: "rolled@example.com", PasswordHash: "h"}))
			return boom
		})
		assert.Same(t, boom, err, "a classified error from the callback comes back unchanged")
		_, err = s.UserByEmail(ctx, "rolled@example.com")
		assert.Equal(t, errs.NotFound, errs.KindOf(err), "rolled back")

		err = s.Tx(ctx, func(tx *store.Store) error {
			return tx.CreateUser(ctx, &models.User{Email: "kept@example.com", PasswordHash: "h"})
		})
		require.NoError(t, err)
		_, err = s.UserByEmail(ctx, "kept@example.com")
		require.NoError(t, err)

		// An unclassified error is classified as Internal.
		err = s.Tx(ctx, func(*store.Store) error { return errors.New("plain") })
		assert.Equal(t, errs.Internal, errs.KindOf(err))
	})
}

// TestConcurrentWriters checks that writers contending for the database
// queue instead of failing (SQLite: BEGIN IMMEDIATE + busy_timeout).
func TestConcurrentWriters(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		const n = 16
		var wg sync.WaitGroup
		errc := make(chan error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errc <- s.Tx(ctx, func(tx *store.Store) error {
					// Read, then write: the pattern that fails with
					// SQLITE_BUSY under deferred transactions.
					if _, err := tx.UserByEmail(ctx, fmt.Sprintf("w%d@example.com", i)); !errs.Is(err, errs.NotFound) {
						return fmt.Errorf("unexpected lookup result: %v", err)
					}
					return tx.CreateUser(ctx, &models.User{Email: fmt.Sprintf("w%d@example.com", i), PasswordHash: "h"})
				})
			}()
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			require.NoError(t, err)
		}
		for i := range n {
			_, err := s.UserByEmail(ctx, fmt.Sprintf("w%d@example.com", i))
			require.NoError(t, err)
		}
	})
}

func TestUsers(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u := &models.User{Email: "  Alice@Example.COM ", PasswordHash: "hash"}
		require.NoError(t, s.CreateUser(ctx, u))
		assert.True(t, models.HasPrefix(u.ID, models.PrefixUser), u.ID)
		assert.Equal(t, "alice@example.com", u.Email)
		assert.Equal(t, time.UTC, u.CreatedAt.Location())

		tests := []struct {
			name    string
			get     func() (*models.User, error)
			wantErr errs.Kind
			wantID  string
		}{
			{"by email", func() (*models.User, error) { return s.UserByEmail(ctx, "alice@example.com") }, 0, u.ID},
			{"by email other case", func() (*models.User, error) { return s.UserByEmail(ctx, "ALICE@example.com") }, 0, u.ID},
			{"by id", func() (*models.User, error) { return s.UserByID(ctx, u.ID) }, 0, u.ID},
			{"unknown email", func() (*models.User, error) { return s.UserByEmail(ctx, "bob@example.com") }, errs.NotFound, ""},
			{"unknown id", func() (*models.User, error) { return s.UserByID(ctx, "usr_nope") }, errs.NotFound, ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := tt.get()
				if tt.wantErr != 0 {
					require.Error(t, err)
					assert.Equal(t, tt.wantErr, errs.KindOf(err))
					return
				}
				require.NoError(t, err)
				assert.Equal(t, tt.wantID, got.ID)
				assert.Equal(t, "hash", got.PasswordHash)
				assert.True(t, got.CreatedAt.Equal(u.CreatedAt), "created_at round-trips: %v vs %v", got.CreatedAt, u.CreatedAt)
			})
		}

		dup := &models.User{Email: "alice@EXAMPLE.com", PasswordHash: "x"}
		err := s.CreateUser(ctx, dup)
		require.Error(t, err)
		assert.Equal(t, errs.Conflict, errs.KindOf(err), "duplicate email: %v", err)

		require.NoError(t, s.UpdateUserPassword(ctx, u.ID, "new-hash"))
		got, err := s.UserByID(ctx, u.ID)
		require.NoError(t, err)
		assert.Equal(t, "new-hash", got.PasswordHash)
		assert.Equal(t, errs.NotFound, errs.KindOf(s.UpdateUserPassword(ctx, "usr_nope", "x")))

		assert.Equal(t, errs.Invalid, errs.KindOf(s.CreateUser(ctx, &models.User{Email: "  "})))
	})
}

// TestStrategyOrdersIndexed: migration 00013 indexes a strategy's orders
// on both dialects, and the two queries strategy executions run (by
// strategy; by strategy and token) can use it rather than scan orders.
func TestStrategyOrdersIndexed(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		require.True(t, s.DB().Migrator().HasIndex(&models.Order{}, "orders_strategy_token_idx"), "the index exists")
		queries := []struct {
			name, where string
			args        []any
		}{
			{"StrategyOrders", "strategy_id = ?", []any{"stg_x"}},
			{"StrategyTokenOrders", "strategy_id = ? AND token_id = ?", []any{"stg_x", "123"}},
		}
		for _, q := range queries {
			t.Run(q.name, func(t *testing.T) {
				var plan []string
				err := s.Tx(ctx, func(tx *store.Store) error {
					explain := "EXPLAIN QUERY PLAN "
					if tx.Dialect() == store.Postgres {
						// An empty table is cheapest to scan: make the
						// planner say whether the index is usable at all.
						if err := tx.DB().Exec("SET LOCAL enable_seqscan = off").Error; err != nil {
							return err
						}
						explain = "EXPLAIN "
					}
					rows, err := tx.DB().Raw(explain+"SELECT id FROM orders WHERE "+q.where+" ORDER BY created_at, id", q.args...).Rows()
					if err != nil {
						return err
					}
					defer rows.Close()
					cols, err := rows.Columns()
					if err != nil {
						return err
					}
					for rows.Next() {
						vals := make([]any, len(cols))
						for i := range vals {
							vals[i] = new(any)
						}
						if err := rows.Scan(vals...); err != nil {
							return err
						}
						plan = append(plan, fmt.Sprint(*(vals[len(vals)-1].(*any))))
					}
					return rows.Err()
				})
				require.NoError(t, err)
				assert.Contains(t, fmt.Sprint(plan), "orders_strategy_token_idx", "plan: %q", plan)
			})
		}
	})
}
