package store

import (
	"context"
	"time"

	"gorm.io/gorm/clause"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
)

// SecondFactorPolicy is how failed second factors lock an account: Free
// attempts per Window (a fixed window opened by the first), the Free-th and
// every later one locking the account for Lock(n), n being the attempt's
// number in the window.
type SecondFactorPolicy struct {
	Window time.Duration
	Free   int64
	Lock   func(n int64) time.Duration
}

// SecondFactorTurn is one attempt at an account's second factor, counted
// before the factor is checked.
type SecondFactorTurn struct {
	UserID string
	// Wait is how long the account stays locked when the attempt was
	// refused (nothing was counted then); 0 when it may go ahead.
	Wait time.Duration
	// N is the attempt's number in the window.
	N int64
	// set is the lock this attempt set, prev the one it replaced, so that
	// a refund undoes exactly this attempt.
	set, prev *time.Time
}

// Allowed reports whether the attempt may be checked.
func (t SecondFactorTurn) Allowed() bool { return t.Wait <= 0 }

// TakeSecondFactorTurn counts an attempt at userID's second factor before
// it is checked, in one transaction with the row locked (FOR UPDATE on
// PostgreSQL; SQLite's write lock, taken at BEGIN IMMEDIATE): while the
// account is locked the attempt is refused (Wait) and nothing is counted;
// otherwise it counts as a failure at once, and the Free-th or a later one
// locks the account before its code is even checked. So concurrent
// guesses are serialised on the row and never together get more than
// p.Free checks before the lock, on any number of API instances. A
// success clears the count (ClearSecondFactorFailures); an attempt that
// ended without checking anything is refunded (RefundSecondFactorTurn).
func (s *Store) TakeSecondFactorTurn(ctx context.Context, userID string, p SecondFactorPolicy) (SecondFactorTurn, error) {
	turn := SecondFactorTurn{UserID: userID}
	err := s.Tx(ctx, func(tx *Store) error {
		now := tx.now()
		row, err := tx.lockSecondFactorRow(ctx, userID, now)
		if err != nil {
			return err
		}
		if row.LockedUntil != nil && now.Before(*row.LockedUntil) {
			turn.Wait = row.LockedUntil.Sub(now)
			return nil
		}
		if !now.Before(row.WindowEnds) {
			row.Failures, row.WindowEnds = 0, now.Add(p.Window)
		}
		row.Failures++
		turn.N = row.Failures
		if row.Failures >= p.Free {
			until := now.Add(p.Lock(row.Failures))
			turn.set, turn.prev = &until, row.LockedUntil
			row.LockedUntil = &until
		}
		return tx.saveSecondFactorRow(ctx, row)
	})
	return turn, err
}

// RefundSecondFactorTurn takes back an allowed attempt that checked
// nothing (the store or the vault failed): its count, and its lock while
// no later attempt replaced it.
func (s *Store) RefundSecondFactorTurn(ctx context.Context, t SecondFactorTurn) error {
	if !t.Allowed() {
		return nil
	}
	return s.Tx(ctx, func(tx *Store) error {
		row, err := tx.lockSecondFactorRow(ctx, t.UserID, tx.now())
		if err != nil {
			return err
		}
		if row.Failures > 0 {
			row.Failures--
		}
		if t.set != nil && row.LockedUntil != nil && row.LockedUntil.Equal(*t.set) {
			row.LockedUntil = t.prev
		}
		return tx.saveSecondFactorRow(ctx, row)
	})
}

// ClearSecondFactorFailures forgets userID's failed second factors and
// lock, after a second factor was accepted.
func (s *Store) ClearSecondFactorFailures(ctx context.Context, userID string) error {
	err := s.db.WithContext(ctx).Where("user_id = ?", userID).Delete(&models.SecondFactorFailures{}).Error
	return mapErr(err, "second-factor failures")
}

// SecondFactorFailures returns userID's count (zero without a row).
func (s *Store) SecondFactorFailures(ctx context.Context, userID string) (models.SecondFactorFailures, error) {
	var row models.SecondFactorFailures
	err := s.db.WithContext(ctx).Where("user_id = ?", userID).Take(&row).Error
	if err != nil {
		if err = mapErr(err, "second-factor failures"); errs.Is(err, errs.NotFound) {
			return models.SecondFactorFailures{UserID: userID}, nil
		}
		return row, err
	}
	return row, nil
}

// lockSecondFactorRow returns userID's row, created empty if missing and
// locked for the rest of the transaction on PostgreSQL (on SQLite the
// transaction holds the database's write lock from its start).
func (s *Store) lockSecondFactorRow(ctx context.Context, userID string, now time.Time) (*models.SecondFactorFailures, error) {
	db := s.db.WithContext(ctx)
	if err := db.Clauses(clause.OnConflict{DoNothing: true}).
		Create(&models.SecondFactorFailures{UserID: userID, WindowEnds: now}).Error; err != nil {
		return nil, mapErr(err, "second-factor failures")
	}
	q := db.Where("user_id = ?", userID)
	if s.dialect == Postgres {
		q = q.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	var row models.SecondFactorFailures
	if err := q.Take(&row).Error; err != nil {
		return nil, mapErr(err, "second-factor failures")
	}
	return &row, nil
}

func (s *Store) saveSecondFactorRow(ctx context.Context, row *models.SecondFactorFailures) error {
	err := s.db.WithContext(ctx).Model(&models.SecondFactorFailures{}).Where("user_id = ?", row.UserID).
		Updates(map[string]any{"failures": row.Failures, "window_ends": row.WindowEnds, "locked_until": row.LockedUntil}).Error
	return mapErr(err, "second-factor failures")
}
