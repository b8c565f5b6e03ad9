// Package storetest runs store-backed tests against every supported
// database.
//
// EachDB runs a test body twice, as subtests "sqlite" and "postgres", each on
// a fresh, migrated database. SQLite lives in t.TempDir(). PostgreSQL needs
// ATS_TEST_DATABASE_URL to point at a server where the URL's user may create
// databases; the harness creates one database per subtest and drops it
// afterwards. Without the variable the harness starts a throwaway cluster
// from the installed server binaries (autopg.go); without those the postgres
// subtest is skipped — unless CI is set, where it fails, because CI must
// exercise both databases.
// pgtest.sh in this directory starts a disposable local server.
package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	// The pgx database/sql driver, for the admin connection that creates
	// and drops the per-test databases.
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/store"
)

// EnvDatabaseURL names the variable holding the PostgreSQL server URL.
const EnvDatabaseURL = "ATS_TEST_DATABASE_URL"

// EachDB runs body as the subtests "sqlite" and "postgres", each with its own
// fresh, migrated store (closed, and for PostgreSQL dropped, at cleanup).
func EachDB(t *testing.T, body func(t *testing.T, s *store.Store)) {
	t.Helper()
	t.Run(string(store.SQLite), func(t *testing.T) {
		body(t, NewSQLite(t))
	})
	t.Run(string(store.Postgres), func(t *testing.T) {
		body(t, NewPostgres(t))
	})
}

// NewSQLite returns a fresh migrated SQLite store in t.TempDir().
func NewSQLite(t testing.TB) *store.Store {
	t.Helper()
	report(t, store.SQLite)
	return openMigrated(t, store.Config{DataDir: t.TempDir(), Logger: quietLogger()})
}

// EnvReport names a file to which every store test appends "<dialect>
// <test name>", so that CI can say (and check) that both databases ran:
// go test shows nothing of passing tests without -v.
const EnvReport = "ATS_TEST_DB_REPORT"

func report(t testing.TB, d store.Dialect) {
	path := os.Getenv(EnvReport)
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatalf("%s: %v", EnvReport, err)
	}
	defer f.Close()
	// One short line per write stays atomic under O_APPEND across the
	// parallel test processes.
	fmt.Fprintf(f, "%s %s\n", d, t.Name())
}

// NewPostgres returns a store on a fresh migrated PostgreSQL database, or
// skips (fails under CI) when ATS_TEST_DATABASE_URL is unset.
func NewPostgres(t testing.TB) *store.Store {
	t.Helper()
	base := os.Getenv(EnvDatabaseURL)
	if base == "" {
		if u, err := autoPostgres(); err == nil {
			base = u
		} else if os.Getenv("CI") == "" {
			t.Skipf("PostgreSQL tests skipped: %v; set %s to a server URL", err, EnvDatabaseURL)
		}
	}
	if base == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not set: CI must run the PostgreSQL tests (start a server with models/store/storetest/pgtest.sh)", EnvDatabaseURL)
		}
		t.Skipf("PostgreSQL tests skipped: set %s to a server URL (e.g. export %s=$(models/store/storetest/pgtest.sh start))", EnvDatabaseURL, EnvDatabaseURL)
	}
	dbURL := CreateDatabase(t, base)
	report(t, store.Postgres)
	return openMigrated(t, store.Config{URL: dbURL, Logger: quietLogger()})
}

// CreateDatabase creates a uniquely named database on the server at base and
// returns its URL; it is dropped (connections terminated) at cleanup.
func CreateDatabase(t testing.TB, base string) string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s is not a URL: %v", EnvDatabaseURL, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("open admin connection: %v", err)
	}
	// The random part is lowercase base32, a valid unquoted identifier.
	name := "ats_test_" + strings.TrimPrefix(models.NewID("t"), "t_")
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		_ = admin.Close()
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name)); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
		_ = admin.Close()
	})
	u.Path = "/" + name
	return u.String()
}

func openMigrated(t testing.TB, cfg store.Config) *store.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := store.Open(ctx, cfg)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	// Registered after CreateDatabase's cleanup, so it runs first: the
	// store's connections close before the database is dropped.
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return s
}

// quietLogger drops the store's logs unless ATS_TEST_LOG is set, keeping
// expected-failure tests readable.
func quietLogger() *slog.Logger {
	if os.Getenv("ATS_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}
