package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/glebarez/go-sqlite"
	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"

	"github.com/agent-trading/ats/models/errs"
)

// SQLite result codes the store classifies (https://sqlite.org/rescode.html).
const (
	sqliteBusy             = 5
	sqliteLocked           = 6
	sqliteConstraintPK     = 1555 // SQLITE_CONSTRAINT_PRIMARYKEY
	sqliteConstraintUnique = 2067 // SQLITE_CONSTRAINT_UNIQUE
)

// MapError classifies a database error for callers that use DB() directly;
// what names the object for the client-safe message ("agent", "order").
func MapError(err error, what string) error { return mapErr(err, what) }

// mapErr classifies err. Already-classified errors pass through untouched so
// that errors returned from a Tx callback keep their kind.
func mapErr(err error, what string) error {
	if err == nil {
		return nil
	}
	if _, ok := errs.As(err); ok {
		return err
	}
	if what == "" {
		what = "record"
	}
	switch {
	case errors.Is(err, gorm.ErrRecordNotFound):
		return errs.Wrap(errs.NotFound, err, what+" not found")
	case isUniqueViolation(err):
		return errs.Wrap(errs.Conflict, err, what+" already exists")
	case isTransient(err):
		return errs.Wrap(errs.Transient, err, "the database is temporarily unavailable")
	default:
		return errs.Wrap(errs.Internal, err, "database error")
	}
}

func isUniqueViolation(err error) bool {
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return true
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "23505"
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() == sqliteConstraintUnique || se.Code() == sqliteConstraintPK
	}
	return false
}

func isTransient(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return true
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch {
		case strings.HasPrefix(pg.Code, "08"), // connection exception
			pg.Code == "40001", // serialization_failure
			pg.Code == "40P01", // deadlock_detected
			pg.Code == "53300", // too_many_connections
			pg.Code == "57P01", // admin_shutdown
			pg.Code == "57P02", // crash_shutdown
			pg.Code == "57P03": // cannot_connect_now
			return true
		}
		return false
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || pgconn.Timeout(err) {
		return true
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		c := se.Code() & 0xff // primary result code
		return c == sqliteBusy || c == sqliteLocked
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe)
}
