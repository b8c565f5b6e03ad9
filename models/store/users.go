package store

import (
	"context"
	"strings"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
)

// NormalizeEmail is the canonical form emails are stored and looked up in:
// trimmed and lowercased, so "Bob@Example.com " and "bob@example.com" are
// one account.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// CreateUser inserts u, filling ID (when empty) and the timestamps and
// normalising the email. A duplicate email is errs.Conflict.
func (s *Store) CreateUser(ctx context.Context, u *models.User) error {
	if u.ID == "" {
		u.ID = models.NewID(models.PrefixUser)
	}
	u.Email = NormalizeEmail(u.Email)
	if u.Email == "" {
		return errs.E(errs.Invalid, "an email is required")
	}
	now := s.now()
	u.CreatedAt, u.UpdatedAt = now, now
	return mapErr(s.db.WithContext(ctx).Create(u).Error, "user")
}

// UserByEmail finds a user by email (normalised first).
func (s *Store) UserByEmail(ctx context.Context, email string) (*models.User, error) {
	var u models.User
	err := s.db.WithContext(ctx).Where("email = ?", NormalizeEmail(email)).Take(&u).Error
	if err != nil {
		return nil, mapErr(err, "user")
	}
	return &u, nil
}

// UserByID finds a user by ID.
func (s *Store) UserByID(ctx context.Context, id string) (*models.User, error) {
	var u models.User
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&u).Error; err != nil {
		return nil, mapErr(err, "user")
	}
	return &u, nil
}

// UpdateUserPassword replaces a user's password hash.
func (s *Store) UpdateUserPassword(ctx context.Context, userID, passwordHash string) error {
	res := s.db.WithContext(ctx).Model(&models.User{}).Where("id = ?", userID).
		Updates(map[string]any{"password_hash": passwordHash, "updated_at": s.now()})
	return rowsOrNotFound(res.Error, res.RowsAffected, "user")
}

// rowsOrNotFound turns "updated nothing" into NotFound.
func rowsOrNotFound(err error, rows int64, what string) error {
	if err != nil {
		return mapErr(err, what)
	}
	if rows == 0 {
		return errs.E(errs.NotFound, what+" not found")
	}
	return nil
}
