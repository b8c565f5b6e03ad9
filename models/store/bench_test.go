package store_test

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

// TestConcurrentMigratePostgres starts several migrations of one fresh
// database at once, as several replicas starting together would: the
// advisory lock must serialise them and all must succeed.
func TestConcurrentMigratePostgres(t *testing.T) {
	base := os.Getenv(storetest.EnvDatabaseURL)
	if base == "" {
		storetest.NewPostgres(t) // skips, or fails under CI
		return
	}
	url := storetest.CreateDatabase(t, base)
	ctx := context.Background()
	var stores []*store.Store
	for range 4 {
		s, err := store.Open(ctx, store.Config{URL: url})
		require.NoError(t, err)
		stores = append(stores, s)
	}
	t.Cleanup(func() {
		for _, s := range stores {
			_ = s.Close()
		}
	})
	var wg sync.WaitGroup
	versions := make([]int64, len(stores))
	errsOut := make([]error, len(stores))
	for i, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			versions[i], errsOut[i] = s.Migrate(ctx)
		}()
	}
	wg.Wait()
	for i := range stores {
		require.NoError(t, errsOut[i])
		require.Equal(t, versions[0], versions[i])
	}
}

// BenchmarkAgentKeyByHash measures the per-request API key lookup.
func BenchmarkAgentKeyByHash(b *testing.B) {
	for _, open := range []struct {
		name string
		fn   func(testing.TB) *store.Store
	}{{"sqlite", storetest.NewSQLite}, {"postgres", storetest.NewPostgres}} {
		b.Run(open.name, func(b *testing.B) {
			s := open.fn(b)
			ctx := context.Background()
			u := &models.User{Email: "bench@example.com", PasswordHash: "h"}
			require.NoError(b, s.CreateUser(ctx, u))
			_, hash, prefix := secret.NewAPIKey()
			require.NoError(b, s.CreateAgentWithKey(ctx, &models.Agent{UserID: u.ID, Name: "bench"}, &models.APIKey{Hash: hash, DisplayPrefix: prefix}))
			b.ResetTimer()
			for b.Loop() {
				if _, _, err := s.AgentKeyByHash(ctx, hash); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAppendAudit measures audit writes from concurrent goroutines
// (on SQLite they serialise on the write lock).
func BenchmarkAppendAudit(b *testing.B) {
	for _, open := range []struct {
		name string
		fn   func(testing.TB) *store.Store
	}{{"sqlite", storetest.NewSQLite}, {"postgres", storetest.NewPostgres}} {
		b.Run(open.name, func(b *testing.B) {
			s := open.fn(b)
			ctx := context.Background()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := s.AppendAudit(ctx, &models.AuditLog{UserID: "usr_1", Action: "order.place", Result: models.AuditSuccess}); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
