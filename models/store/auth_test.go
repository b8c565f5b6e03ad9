package store_test

import (
	"context"
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

func TestSessionStore(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		now := time.Now().UTC()
		live := &models.UserSession{ID: "h1", UserID: "usr_a", CSRFToken: "c", ExpiresAt: now.Add(time.Hour)}
		old := &models.UserSession{ID: "h2", UserID: "usr_a", CSRFToken: "c", ExpiresAt: now.Add(-time.Minute)}
		other := &models.UserSession{ID: "h3", UserID: "usr_b", CSRFToken: "c", ExpiresAt: now.Add(time.Hour)}
		anon := &models.UserSession{ID: "h4", CSRFToken: "c", ExpiresAt: now.Add(time.Hour)}
		for _, x := range []*models.UserSession{live, old, other, anon} {
			require.NoError(t, s.CreateSession(ctx, x))
		}
		require.Equal(t, errs.Conflict, errs.KindOf(s.CreateSession(ctx, &models.UserSession{ID: "h1", CSRFToken: "c", ExpiresAt: now})))

		got, err := s.SessionByID(ctx, "h1")
		require.NoError(t, err)
		assert.Equal(t, "usr_a", got.UserID)
		require.NoError(t, s.SetSessionState(ctx, "h1", `{"flash":"x"}`))
		sf := now.Add(-time.Second)
		require.NoError(t, s.SetSessionSecondFactor(ctx, "h1", sf))
		got, _ = s.SessionByID(ctx, "h1")
		assert.Equal(t, `{"flash":"x"}`, got.State)
		assert.WithinDuration(t, sf, *got.SecondFactorAt, time.Millisecond)

		list, err := s.ListUserSessions(ctx, "usr_a", now)
		require.NoError(t, err)
		require.Len(t, list, 1, "expired sessions are not listed")
		list, _ = s.ListUserSessions(ctx, "", now)
		assert.Empty(t, list, "anonymous sessions belong to nobody")

		assert.Equal(t, errs.NotFound, errs.KindOf(s.DeleteUserSession(ctx, "usr_b", "h1")), "another user's session")
		n, err := s.PurgeExpiredSessions(ctx, now)
		require.NoError(t, err)
		assert.EqualValues(t, 1, n)
		n, err = s.DeleteUserSessions(ctx, "usr_a", "")
		require.NoError(t, err)
		assert.EqualValues(t, 1, n)
		_, err = s.SessionByID(ctx, "h3")
		assert.NoError(t, err, "other users keep their sessions")
	})
}

func TestTOTPAndBackupCodeStore(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u := &models.User{Email: "totp@example.com", PasswordHash: "x"}
		require.NoError(t, s.CreateUser(ctx, u))
		assert.Equal(t, errs.Conflict, errs.KindOf(s.EnableTOTP(ctx, u.ID, 5)), "no secret yet")
		require.NoError(t, s.SetPendingTOTPSecret(ctx, u.ID, []byte("ct"), []byte("nonce"), 1))
		require.NoError(t, s.EnableTOTP(ctx, u.ID, 100))
		assert.Equal(t, errs.Conflict, errs.KindOf(s.SetPendingTOTPSecret(ctx, u.ID, []byte("ct"), []byte("n"), 1)), "on already")

		assert.Equal(t, errs.Conflict, errs.KindOf(s.AdvanceTOTPStep(ctx, u.ID, 100)), "the enrolment's step is spent")
		require.NoError(t, s.AdvanceTOTPStep(ctx, u.ID, 101))
		assert.Equal(t, errs.Conflict, errs.KindOf(s.AdvanceTOTPStep(ctx, u.ID, 101)), "replayed")
		assert.Equal(t, errs.Conflict, errs.KindOf(s.AdvanceTOTPStep(ctx, u.ID, 99)), "older")

		require.NoError(t, s.ReplaceBackupCodes(ctx, u.ID, []models.BackupCode{{CodeHash: "a"}, {CodeHash: "b"}}))
		var wg sync.WaitGroup
		var ok, refused int
		var mu sync.Mutex
		for i := 0; i < 4; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := s.UseBackupCode(ctx, u.ID, "a")
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					ok++
				} else if errs.Is(err, errs.NotFound) {
					refused++
				}
			}()
		}
		wg.Wait()
		assert.Equal(t, 1, ok, "a backup code is spent once, even concurrently")
		assert.Equal(t, 3, refused)
		n, err := s.UnusedBackupCodes(ctx, u.ID)
		require.NoError(t, err)
		assert.EqualValues(t, 1, n)

		require.NoError(t, s.DisableTOTP(ctx, u.ID))
		got, _ := s.UserByID(ctx, u.ID)
		assert.False(t, got.TOTPEnabled)
		assert.Empty(t, got.TOTPSecretCiphertext)
		n, _ = s.UnusedBackupCodes(ctx, u.ID)
		assert.Zero(t, n, "backup codes go with 2FA")
	})
}

func TestInviteAndCredentialStore(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		inv := &models.Invite{CodeHash: "h", Email: "bob@example.com", ExpiresAt: time.Now().Add(time.Hour)}
		require.NoError(t, s.CreateInvite(ctx, inv))
		assert.Equal(t, errs.NotFound, errs.KindOf(s.UseInvite(ctx, "h", "eve@example.com", "usr_e")), "wrong email")
		require.NoError(t, s.UseInvite(ctx, "h", "Bob@Example.com", "usr_b"))
		assert.Equal(t, errs.NotFound, errs.KindOf(s.UseInvite(ctx, "h", "bob@example.com", "usr_b")), "used")
		require.NoError(t, s.CreateInvite(ctx, &models.Invite{CodeHash: "old", ExpiresAt: time.Now().Add(-time.Second)}))
		assert.Equal(t, errs.NotFound, errs.KindOf(s.UseInvite(ctx, "old", "x@example.com", "usr_x")), "expired")

		// Two social identities and a passkey side by side: NULL credential
		// ids do not collide in the unique index.
		prov := "sandbox"
		for i, sub := range []string{"s1", "s2"} {
			u := &models.User{Email: sub + "@example.com"}
			sub := sub
			c := &models.UserCredential{Kind: models.CredentialOAuth, OAuthProvider: &prov, OAuthSubject: &sub, OAuthEmail: u.Email}
			require.NoError(t, s.CreateUserWithCredential(ctx, u, c), "identity %d", i)
		}
		u := &models.User{Email: "pk@example.com"}
		require.NoError(t, s.CreateUser(ctx, u))
		pk := &models.UserCredential{UserID: u.ID, Kind: models.CredentialWebAuthn, WebAuthnCredentialID: []byte{1, 2, 3}, Name: "Laptop"}
		require.NoError(t, s.CreateCredential(ctx, pk))
		dup := &models.UserCredential{UserID: u.ID, Kind: models.CredentialWebAuthn, WebAuthnCredentialID: []byte{1, 2, 3}}
		assert.Equal(t, errs.Conflict, errs.KindOf(s.CreateCredential(ctx, dup)))
		sub := "s1"
		dupID := &models.UserCredential{UserID: u.ID, Kind: models.CredentialOAuth, OAuthProvider: &prov, OAuthSubject: &sub}
		assert.Equal(t, errs.Conflict, errs.KindOf(s.CreateCredential(ctx, dupID)), "an identity links to one account")

		got, err := s.CredentialByWebAuthnID(ctx, []byte{1, 2, 3})
		require.NoError(t, err)
		assert.Equal(t, pk.ID, got.ID)
		require.NoError(t, s.UpdatePasskeyUse(ctx, pk.ID, `{"x":1}`, 7))
		require.NoError(t, s.RenameCredential(ctx, u.ID, pk.ID, "Work laptop"))
		assert.Equal(t, errs.NotFound, errs.KindOf(s.RenameCredential(ctx, "usr_other", pk.ID, "x")), "another user's")
		_, err = s.DeleteCredential(ctx, u.ID, models.CredentialOAuth, pk.ID)
		assert.Equal(t, errs.NotFound, errs.KindOf(err), "wrong kind")
		del, err := s.DeleteCredential(ctx, u.ID, models.CredentialWebAuthn, pk.ID)
		require.NoError(t, err)
		assert.Equal(t, "Work laptop", del.Name)
		assert.EqualValues(t, 7, del.WebAuthnSignCount)
	})
}
