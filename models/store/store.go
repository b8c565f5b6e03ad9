// Package store is the service's persistence layer: one *Store over either
// an embedded SQLite file or PostgreSQL, versioned migrations, and explicit
// repository methods. Every error it returns is classified with models/errs:
// a missing row is NotFound, a unique violation Conflict, a lost or busy
// connection Transient, anything else Internal.
//
// GORM records (package models) go in and out of the store but never leave
// a service as JSON; services map them to DTOs.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/glebarez/sqlite"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/agent-trading/ats/models/errs"
)

// Dialect names the database engine behind a Store.
type Dialect string

// The supported dialects.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// Config selects and configures the database.
type Config struct {
	// URL is empty for the embedded SQLite database in DataDir, or a
	// postgres:// (postgresql://) URL.
	URL string
	// DataDir holds ats.db when URL is empty; created if missing.
	DataDir string
	// Logger receives slow-query and error logs; nil = slog.Default().
	Logger *slog.Logger
}

// Store is a handle on the database. It is safe for concurrent use. The
// *Store passed to a Tx callback is bound to that transaction.
type Store struct {
	db      *gorm.DB
	sqlDB   *sql.DB
	dialect Dialect
	// clock is the time source for every timestamp the store or GORM
	// (autoCreateTime/autoUpdateTime) sets; shared with Tx-bound copies and
	// replaceable in tests.
	clock *clock
	// heartbeatWrites queues this process's heartbeat claims on SQLite,
	// whose one writer otherwise makes colliding heartbeats wait in
	// SQLite's busy handler (sleeps of 1, 2, 5… ms) instead of in turn.
	heartbeatWrites *sync.Mutex
	// committed, in a Tx-bound copy, collects what must happen only once
	// the transaction commits (afterCommit); nil outside a transaction.
	committed *[]func()
	// orderStatus is told of each committed change of an order's status
	// (OnOrderStatus); shared with Tx-bound copies.
	orderStatus *atomic.Pointer[func(status string)]
	// url is the PostgreSQL URL (ListenChanges opens its own connection).
	url string
	// changes are told of each committed change a user may watch
	// (OnChange); shared with Tx-bound copies.
	changes *atomic.Pointer[[]func(Change)]
	// onEvent runs in the transaction of every appended agent event
	// (OnEvent); shared with Tx-bound copies.
	onEvent *atomic.Pointer[EventHook]
}

// clock is a swappable time source.
type clock struct {
	f atomic.Pointer[func() time.Time]
}

func newClock() *clock {
	c := &clock{}
	c.set(time.Now)
	return c
}

func (c *clock) set(f func() time.Time) { c.f.Store(&f) }

// now is in UTC with microsecond precision: both databases keep
// microseconds, so values read back compare equal to the values written.
func (c *clock) now() time.Time { return (*c.f.Load())().UTC().Truncate(time.Microsecond) }

//go:embed migrations/postgres/*.sql migrations/sqlite/*.sql
var migrationsFS embed.FS

// sqliteBusyTimeout is how long a SQLite writer waits for the write lock
// before failing with SQLITE_BUSY (mapped to Transient). Writers are short,
// so waiting this long means something is wrong.
const sqliteBusyTimeout = 10 * time.Second

// Open connects to the database described by cfg. It does not migrate; call
// Migrate. The returned store must be closed.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	clk := newClock()
	gcfg := &gorm.Config{
		// Single statements are atomic already; multi-statement work uses Tx.
		SkipDefaultTransaction: true,
		NowFunc:                clk.now,
		Logger:                 newGormLogger(log),
	}

	var (
		dial    gorm.Dialector
		dialect Dialect
	)
	switch {
	case cfg.URL == "":
		if cfg.DataDir == "" {
			return nil, errs.E(errs.Invalid, "a data directory is required for the embedded database")
		}
		if strings.ContainsAny(cfg.DataDir, "?#") {
			// The driver splits the DSN at the first '?'.
			return nil, errs.E(errs.Invalid, "the data directory path must not contain '?' or '#'")
		}
		if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
			return nil, errs.Wrap(errs.Internal, err, "cannot create the data directory")
		}
		dial = sqlite.Open(sqliteDSN(filepath.Join(cfg.DataDir, "ats.db")))
		dialect = SQLite
	case strings.HasPrefix(cfg.URL, "postgres://") || strings.HasPrefix(cfg.URL, "postgresql://"):
		dial = postgres.Open(cfg.URL)
		dialect = Postgres
	default:
		return nil, errs.E(errs.Invalid, "the database URL must be empty (embedded SQLite) or start with postgres://")
	}

	db, err := gorm.Open(dial, gcfg)
	if err != nil {
		return nil, mapErr(err, "database")
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, errs.Wrap(errs.Internal, err, "database error")
	}
	if dialect == SQLite {
		// WAL lets readers proceed alongside the single writer; a handful
		// of connections is plenty for one file.
		sqlDB.SetMaxOpenConns(8)
		sqlDB.SetMaxIdleConns(8)
	} else {
		sqlDB.SetMaxOpenConns(20)
		sqlDB.SetMaxIdleConns(10)
		sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	}
	s := &Store{db: db, sqlDB: sqlDB, dialect: dialect, clock: clk, heartbeatWrites: &sync.Mutex{},
		orderStatus: &atomic.Pointer[func(string)]{}, url: cfg.URL, changes: &atomic.Pointer[[]func(Change)]{},
		onEvent: &atomic.Pointer[EventHook]{}}
	if err := s.Ping(ctx); err != nil {
		_ = sqlDB.Close()
		return nil, err
	}
	return s, nil
}

// sqliteDSN builds the SQLite connection string. Every connection gets:
// WAL journaling (readers never block the writer), a busy timeout (a
// writer waits for the lock instead of failing), foreign keys, and
// BEGIN IMMEDIATE transactions — a deferred transaction that reads first
// and writes later can fail with SQLITE_BUSY without waiting when another
// writer got in between; taking the write lock up front makes concurrent
// writers queue instead. Times are written in SQLite's own format, which
// sorts chronologically as text as long as every stored time is UTC — so
// the store normalises all times to UTC before writing.
func sqliteDSN(path string) string {
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", sqliteBusyTimeout.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	// Do not add _time_format: glebarez/go-sqlite v1.21 stops reading
	// parameters after it, silently dropping _txlock. Its default write
	// format is already SQLite's sortable "2006-01-02 15:04:05.999999999-07:00".
	q.Set("_txlock", "immediate")
	// No "file:" prefix: the driver then cuts the parameters off at the '?'
	// and opens the path verbatim, so spaces and '%' in it are harmless.
	return path + "?" + q.Encode()
}

// Dialect reports the database engine.
func (s *Store) Dialect() Dialect { return s.dialect }

// DB exposes the GORM handle for queries the store has no method for yet.
// Errors from it must go through MapError, and every time written through
// it must be UTC (SQLite compares times as text).
func (s *Store) DB() *gorm.DB { return s.db }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	return mapErr(s.sqlDB.PingContext(ctx), "database")
}

// Close releases the connections. Call it on the store Open returned, never
// on the one a Tx callback receives (they share the pool).
func (s *Store) Close() error {
	return mapErr(s.sqlDB.Close(), "database")
}

// Tx runs fn in one database transaction: committed when fn returns nil,
// rolled back otherwise (and on panic). The *Store handed to fn is bound to
// the transaction; use it, not the outer store, inside fn. Nested Tx calls
// on the bound store run in a savepoint.
func (s *Store) Tx(ctx context.Context, fn func(*Store) error) error {
	var committed []func()
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		inner := *s
		inner.db = tx
		inner.committed = &committed
		return fn(&inner)
	})
	if err == nil {
		for _, f := range committed {
			s.afterCommit(f)
		}
		return nil
	}
	if _, ok := errs.As(err); ok {
		return err
	}
	return mapErr(err, "database")
}

// afterCommit runs f once what s has written is committed: at once outside
// a transaction, after the outermost commit inside one (a nested Tx hands
// its list to the enclosing one), never when it rolls back.
func (s *Store) afterCommit(f func()) {
	if s.committed == nil {
		f()
		return
	}
	*s.committed = append(*s.committed, f)
}

// Migrate applies all pending migrations and returns the resulting schema
// version. It is idempotent, and safe to run from several processes at once
// on PostgreSQL (a session advisory lock serialises them).
func (s *Store) Migrate(ctx context.Context) (int64, error) {
	p, err := s.migrationProvider()
	if err != nil {
		return 0, err
	}
	if _, err := p.Up(ctx); err != nil {
		// goose wraps with %w, so the driver error is still classifiable.
		return 0, errs.Wrap(errs.KindOf(mapErr(err, "database")), err, "database migration failed")
	}
	v, err := p.GetDBVersion(ctx)
	if err != nil {
		return 0, mapErr(err, "database")
	}
	return v, nil
}

// SchemaVersion reports the applied schema version and the newest version
// this binary knows, e.g. for a readiness check.
func (s *Store) SchemaVersion(ctx context.Context) (current, latest int64, err error) {
	p, err := s.migrationProvider()
	if err != nil {
		return 0, 0, err
	}
	current, latest, err = p.GetVersions(ctx)
	if err != nil {
		return 0, 0, mapErr(err, "database")
	}
	return current, latest, nil
}

func (s *Store) migrationProvider() (*goose.Provider, error) {
	sub, err := fs.Sub(migrationsFS, "migrations/"+string(s.dialect))
	if err != nil {
		return nil, errs.Wrap(errs.Internal, err, "database migration failed")
	}
	var (
		gd   goose.Dialect
		opts []goose.ProviderOption
	)
	switch s.dialect {
	case Postgres:
		gd = goose.DialectPostgres
		// Probe every second (the minimum; the default is 5 s) for up to
		// 5 minutes, so replicas starting together wait briefly.
		locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 300))
		if err != nil {
			return nil, errs.Wrap(errs.Internal, err, "database migration failed")
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	default:
		gd = goose.DialectSQLite3
	}
	p, err := goose.NewProvider(gd, s.sqlDB, sub, opts...)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, err, "database migration failed")
	}
	return p, nil
}

func (s *Store) now() time.Time { return s.clock.now() }

// Now is the store's clock (the one SetClock replaces), for services that
// compare stored deadlines with the time.
func (s *Store) Now() time.Time { return s.clock.now() }

// SetClock replaces the time source of the timestamps the store sets itself
// (created_at, updated_at, ...), for this store and every store derived
// from it. For tests.
func (s *Store) SetClock(now func() time.Time) { s.clock.set(now) }

// OnOrderStatus has f told, once, of every change of an order's status
// this store commits (the status entered; a write that leaves the status
// as it was is none), after the commit: the process wires its metric
// (metrics.OrderStatus) here, so the changes are counted where they
// happen. The store does not import the metrics itself: the venue's
// packages, which the metrics instrument, test against the store.
func (s *Store) OnOrderStatus(f func(status string)) { s.orderStatus.Store(&f) }

// orderStatusChanged tells the OnOrderStatus listener, once what s wrote
// is committed, that an order entered status.
func (s *Store) orderStatusChanged(status string) {
	if f := s.orderStatus.Load(); f != nil && *f != nil {
		s.afterCommit(func() { (*f)(status) })
	}
}

// utc normalises a caller-supplied time for storage.
func utc(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := utc(*t)
	return &u
}

// gormLogger forwards GORM's error and slow-query reports to slog without
// SQL parameters (they may hold hashes or ciphertexts).
type gormLogger struct {
	log   *slog.Logger
	level logger.LogLevel
}

func newGormLogger(log *slog.Logger) logger.Interface {
	return &gormLogger{log: log, level: logger.Warn}
}

func (l *gormLogger) LogMode(level logger.LogLevel) logger.Interface {
	c := *l
	c.level = level
	return &c
}

func (l *gormLogger) Info(ctx context.Context, msg string, args ...any) {
	if l.level >= logger.Info {
		l.log.InfoContext(ctx, "gorm: "+fmt.Sprintf(msg, args...))
	}
}

func (l *gormLogger) Warn(ctx context.Context, msg string, args ...any) {
	if l.level >= logger.Warn {
		l.log.WarnContext(ctx, "gorm: "+fmt.Sprintf(msg, args...))
	}
}

func (l *gormLogger) Error(ctx context.Context, msg string, args ...any) {
	if l.level >= logger.Error {
		l.log.ErrorContext(ctx, "gorm: "+fmt.Sprintf(msg, args...))
	}
}

// slowQuery is the threshold above which a statement is logged.
const slowQuery = 500 * time.Millisecond

func (l *gormLogger) Trace(ctx context.Context, begin time.Time, fc func() (string, int64), err error) {
	elapsed := time.Since(begin)
	switch {
	case err != nil && !errors.Is(err, gorm.ErrRecordNotFound) && l.level >= logger.Error:
		// Expected outcomes (duplicates, cancellations) are reported to the
		// caller as classified errors; only log what is unexpected.
		if k := errs.KindOf(mapErr(err, "")); k == errs.Internal {
			sqlText, _ := fc()
			l.log.ErrorContext(ctx, "database statement failed", "sql", statementHead(sqlText), "err", err.Error(), "elapsed", elapsed)
		}
	case elapsed > slowQuery && l.level >= logger.Warn:
		sqlText, rows := fc()
		l.log.WarnContext(ctx, "slow database statement", "sql", statementHead(sqlText), "rows", rows, "elapsed", elapsed)
	}
}

// statementHead keeps the statement's shape (verb and table) but drops the
// rendered values, which GORM inlines into the SQL text.
func statementHead(sqlText string) string {
	for _, kw := range []string{" VALUES", " WHERE", " SET"} {
		if i := strings.Index(sqlText, kw); i > 0 {
			sqlText = sqlText[:i]
		}
	}
	if len(sqlText) > 120 {
		sqlText = sqlText[:120]
	}
	return sqlText
}
