package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"

	"github.com/agent-trading/ats/models/errs"
)

func TestMapErr(t *testing.T) {
	classified := errs.E(errs.Forbidden, "nope")
	tests := []struct {
		name string
		err  error
		want errs.Kind
		msg  string
	}{
		{"not found", gorm.ErrRecordNotFound, errs.NotFound, "thing not found"},
		{"wrapped not found", fmt.Errorf("x: %w", gorm.ErrRecordNotFound), errs.NotFound, "thing not found"},
		{"pg unique", &pgconn.PgError{Code: "23505"}, errs.Conflict, "thing already exists"},
		{"gorm duplicated", gorm.ErrDuplicatedKey, errs.Conflict, "thing already exists"},
		{"pg fk", &pgconn.PgError{Code: "23503"}, errs.Internal, "internal error"},
		{"pg connection", &pgconn.PgError{Code: "08006"}, errs.Transient, "the database is temporarily unavailable"},
		{"pg serialization", &pgconn.PgError{Code: "40001"}, errs.Transient, "the database is temporarily unavailable"},
		{"pg shutdown", &pgconn.PgError{Code: "57P01"}, errs.Transient, "the database is temporarily unavailable"},
		{"bad conn", driver.ErrBadConn, errs.Transient, "the database is temporarily unavailable"},
		{"deadline", context.DeadlineExceeded, errs.Transient, "the database is temporarily unavailable"},
		{"plain", errors.New("syntax error"), errs.Internal, "internal error"},
		{"already classified", classified, errs.Forbidden, "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mapErr(tt.err, "thing")
			if errs.KindOf(got) != tt.want {
				t.Fatalf("kind = %v, want %v (err %v)", errs.KindOf(got), tt.want, got)
			}
			if m := errs.PublicMessage(got); m != tt.msg {
				t.Fatalf("message = %q, want %q", m, tt.msg)
			}
			if !errors.Is(got, tt.err) {
				t.Fatalf("cause lost: %v", got)
			}
		})
	}
	if mapErr(nil, "x") != nil {
		t.Fatal("nil must stay nil")
	}
}
