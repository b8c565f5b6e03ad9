package users_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/users"
)

// cheap argon2 parameters keep the tests fast; DefaultArgon2 is covered in
// models/secret.
var cheap = secret.Argon2Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1, SaltLen: 16, KeyLen: 32}

func newService(s *store.Store) *users.Service {
	return &users.Service{Store: s, Audit: &audit.Service{Store: s}, Argon2: cheap}
}

func TestValidateEmail(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"alice@example.com", "alice@example.com", true},
		{"  Alice@Example.COM ", "alice@example.com", true},
		{"a.b+tag@sub.example.org", "a.b+tag@sub.example.org", true},
		{"", "", false},
		{"alice", "", false},
		{"alice@", "", false},
		{"@example.com", "", false},
		{"alice@localhost", "", false},
		{"Alice <alice@example.com>", "", false},
		{"alice@example.com, bob@example.com", "", false},
		{"alice@.example.com", "", false},
		{strings.Repeat("a", 250) + "@example.com", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := users.ValidateEmail(tt.in)
			if !tt.ok {
				assert.Equal(t, errs.Invalid, errs.KindOf(err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestValidatePassword(t *testing.T) {
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{"min", "12345678", true},
		{"too short", "1234567", false},
		{"multibyte counts characters", "ééééééé", false},
		{"multibyte ok", "éééééééé", true},
		{"max", strings.Repeat("x", 256), true},
		{"too long", strings.Repeat("x", 257), false},
		{"invalid utf8", "abcdefg\xff", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := users.ValidatePassword(tt.in)
			if tt.ok {
				assert.NoError(t, err)
			} else {
				assert.Equal(t, errs.Invalid, errs.KindOf(err))
			}
		})
	}
}

func TestCreate(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		svc := newService(s)
		u, err := svc.Create(ctx, "Alice@Example.com", "correct horse")
		require.NoError(t, err)
		assert.Equal(t, "alice@example.com", u.Email)
		assert.False(t, u.TwoFactorEnabled)

		rec, err := s.UserByID(ctx, u.ID)
		require.NoError(t, err)
		assert.NotContains(t, rec.PasswordHash, "correct horse")
		ok, err := secret.VerifyPassword(rec.PasswordHash, "correct horse")
		require.NoError(t, err)
		assert.True(t, ok)

		got, err := svc.Get(ctx, u.ID)
		require.NoError(t, err)
		assert.Equal(t, u.Email, got.Email)

		tests := []struct {
			name     string
			email    string
			password string
			kind     errs.Kind
			msg      string
		}{
			{"duplicate", "alice@example.com", "another password", errs.Conflict, "a user with this email already exists"},
			{"duplicate other case", "ALICE@example.com", "another password", errs.Conflict, "a user with this email already exists"},
			{"bad email", "alice", "another password", errs.Invalid, "a valid email address is required"},
			{"short password", "bob@example.com", "short", errs.Invalid, "the password must be 8 to 256 characters long"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := svc.Create(ctx, tt.email, tt.password)
				require.Error(t, err)
				assert.Equal(t, tt.kind, errs.KindOf(err))
				assert.Equal(t, tt.msg, errs.PublicMessage(err))
			})
		}

		page, err := svc.Audit.List(ctx, audit.Filter{Action: audit.ActionUserCreate})
		require.NoError(t, err)
		require.Len(t, page.Entries, 1, "one successful sign-up audited")
		assert.Equal(t, u.ID, page.Entries[0].UserID)
	})
}

func TestAuthenticate(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		svc := newService(s)
		const pw = "correct horse battery"
		u, err := svc.Create(ctx, "alice@example.com", pw)
		require.NoError(t, err)

		tests := []struct {
			name       string
			email      string
			password   string
			wantErr    bool
			wantResult string
			wantUser   string
			wantReason string
		}{
			{"success", "alice@example.com", pw, false, audit.Success, u.ID, ""},
			{"email case", " ALICE@example.com", pw, false, audit.Success, u.ID, ""},
			{"wrong password", "alice@example.com", "wrong horse battery", true, audit.Failure, u.ID, "wrong_password"},
			{"unknown email", "mallory@example.com", pw, true, audit.Failure, "", "unknown_email"},
			{"empty password", "alice@example.com", "", true, audit.Failure, u.ID, "wrong_password"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := svc.Authenticate(ctx, tt.email, tt.password, "203.0.113.7")
				if tt.wantErr {
					require.Error(t, err)
					assert.Equal(t, errs.Unauthorized, errs.KindOf(err))
					assert.Equal(t, "invalid email or password", errs.PublicMessage(err), "same answer for unknown email and wrong password")
				} else {
					require.NoError(t, err)
					assert.Equal(t, u.ID, got.ID)
				}
				page, err := svc.Audit.List(ctx, audit.Filter{Action: audit.ActionUserLogin, Limit: 1})
				require.NoError(t, err)
				require.Len(t, page.Entries, 1)
				last := page.Entries[0]
				assert.Equal(t, tt.wantResult, last.Result)
				assert.Equal(t, tt.wantUser, last.UserID)
				assert.Equal(t, "203.0.113.7", last.ClientAddr)
				if tt.wantReason != "" {
					assert.Contains(t, string(last.Detail), tt.wantReason)
				}
				if tt.password != "" {
					assert.NotContains(t, string(last.Detail), tt.password)
				}
			})
		}
		page, err := svc.Audit.List(ctx, audit.Filter{Action: audit.ActionUserLogin})
		require.NoError(t, err)
		assert.Len(t, page.Entries, len(tests), "one audit entry per attempt")
	})
}

func TestAuthenticatePasswordlessAccount(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		svc := newService(s)
		// A passkey/social-only account has no password hash.
		require.NoError(t, s.CreateUser(ctx, &models.User{Email: "social@example.com"}))
		for _, pw := range []string{"", "anything at all"} {
			_, err := svc.Authenticate(ctx, "social@example.com", pw, "")
			assert.Equal(t, errs.Unauthorized, errs.KindOf(err))
		}
		page, err := svc.Audit.List(ctx, audit.Filter{Action: audit.ActionUserLogin})
		require.NoError(t, err)
		require.Len(t, page.Entries, 2)
		assert.Contains(t, string(page.Entries[0].Detail), "no_password_set")
	})
}

func TestAuthenticateUpgradesHash(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		old := newService(s)
		u, err := old.Create(ctx, "alice@example.com", "correct horse")
		require.NoError(t, err)

		stronger := cheap
		stronger.Iterations = 2
		svc := &users.Service{Store: s, Audit: old.Audit, Argon2: stronger}
		_, err = svc.Authenticate(ctx, "alice@example.com", "correct horse", "")
		require.NoError(t, err)
		rec, err := s.UserByID(ctx, u.ID)
		require.NoError(t, err)
		assert.False(t, secret.NeedsRehashWith(rec.PasswordHash, stronger), "rehashed with the new parameters")
		_, err = svc.Authenticate(ctx, "alice@example.com", "correct horse", "")
		require.NoError(t, err, "the upgraded hash verifies")
	})
}
