package store

import (
	"context"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
)

// ---- sessions ----

// CreateSession inserts a session row (ID is the caller's token hash).
func (s *Store) CreateSession(ctx context.Context, us *models.UserSession) error {
	now := s.now()
	us.CreatedAt, us.LastSeenAt = now, now
	us.ExpiresAt = utc(us.ExpiresAt)
	us.SecondFactorAt = utcPtr(us.SecondFactorAt)
	return mapErr(s.db.WithContext(ctx).Create(us).Error, "session")
}

// SessionByID returns the session whose token hashes to id, expired or not.
func (s *Store) SessionByID(ctx context.Context, id string) (*models.UserSession, error) {
	var us models.UserSession
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&us).Error; err != nil {
		return nil, mapErr(err, "session")
	}
	return &us, nil
}

// TouchSession records activity and the new idle expiry.
func (s *Store) TouchSession(ctx context.Context, id string, expires time.Time) error {
	res := s.db.WithContext(ctx).Model(&models.UserSession{}).Where("id = ?", id).
		Updates(map[string]any{"last_seen_at": s.now(), "expires_at": utc(expires)})
	return rowsOrNotFound(res.Error, res.RowsAffected, "session")
}

// SetSessionState replaces the session's pending-step JSON.
func (s *Store) SetSessionState(ctx context.Context, id, state string) error {
	res := s.db.WithContext(ctx).Model(&models.UserSession{}).Where("id = ?", id).Update("state", state)
	return rowsOrNotFound(res.Error, res.RowsAffected, "session")
}

// SetSessionSecondFactor records a second factor verified at t.
func (s *Store) SetSessionSecondFactor(ctx context.Context, id string, t time.Time) error {
	res := s.db.WithContext(ctx).Model(&models.UserSession{}).Where("id = ?", id).Update("second_factor_at", utc(t))
	return rowsOrNotFound(res.Error, res.RowsAffected, "session")
}

// DeleteSession removes one session; a missing one is not an error.
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	return mapErr(s.db.WithContext(ctx).Where("id = ?", id).Delete(&models.UserSession{}).Error, "session")
}

// DeleteUserSession removes userID's session id; another user's is NotFound.
func (s *Store) DeleteUserSession(ctx context.Context, userID, id string) error {
	res := s.db.WithContext(ctx).Where("id = ? AND user_id = ? AND user_id <> ''", id, userID).Delete(&models.UserSession{})
	return rowsOrNotFound(res.Error, res.RowsAffected, "session")
}

// DeleteUserSessions removes every session of userID except keepID ("" =
// none) and returns how many went.
func (s *Store) DeleteUserSessions(ctx context.Context, userID, keepID string) (int64, error) {
	if userID == "" {
		return 0, errs.E(errs.Internal, "delete sessions without a user")
	}
	res := s.db.WithContext(ctx).Where("user_id = ? AND id <> ?", userID, keepID).Delete(&models.UserSession{})
	return res.RowsAffected, mapErr(res.Error, "session")
}

// ListUserSessions returns userID's unexpired sessions, most recently
// active first.
func (s *Store) ListUserSessions(ctx context.Context, userID string, now time.Time) ([]models.UserSession, error) {
	var out []models.UserSession
	err := s.db.WithContext(ctx).Where("user_id = ? AND user_id <> '' AND expires_at > ?", userID, utc(now)).
		Order("last_seen_at DESC").Order("id").Limit(200).Find(&out).Error
	return out, mapErr(err, "session")
}

// PurgeExpiredSessions deletes sessions that expired before now.
func (s *Store) PurgeExpiredSessions(ctx context.Context, now time.Time) (int64, error) {
	res := s.db.WithContext(ctx).Where("expires_at <= ?", utc(now)).Delete(&models.UserSession{})
	return res.RowsAffected, mapErr(res.Error, "session")
}

// ---- TOTP and backup codes ----

// SetPendingTOTPSecret stores a new, not yet confirmed, TOTP secret. A user
// whose 2FA is on is Conflict: it must be turned off first.
func (s *Store) SetPendingTOTPSecret(ctx context.Context, userID string, ct, nonce []byte, keyVersion int) error {
	res := s.db.WithContext(ctx).Model(&models.User{}).Where("id = ? AND totp_enabled = ?", userID, false).
		Updates(map[string]any{"totp_secret_ciphertext": ct, "totp_secret_nonce": nonce, "totp_key_version": keyVersion,
			"totp_last_step": 0, "updated_at": s.now()})
	if res.Error != nil {
		return mapErr(res.Error, "user")
	}
	if res.RowsAffected == 0 {
		return errs.E(errs.Conflict, "two-factor authentication is already on").WithCode(errs.CodeTwoFactorEnabled)
	}
	return nil
}

// EnableTOTP turns 2FA on with the pending secret, recording the step of
// the confirming code as used.
func (s *Store) EnableTOTP(ctx context.Context, userID string, step int64) error {
	res := s.db.WithContext(ctx).Model(&models.User{}).
		Where("id = ? AND totp_enabled = ? AND totp_secret_ciphertext IS NOT NULL AND length(totp_secret_ciphertext) > 0", userID, false).
		Updates(map[string]any{"totp_enabled": true, "totp_last_step": step, "updated_at": s.now()})
	if res.Error != nil {
		return mapErr(res.Error, "user")
	}
	if res.RowsAffected == 0 {
		return errs.E(errs.Conflict, "two-factor authentication is already on, or was not set up").WithCode(errs.CodeTwoFactorState)
	}
	return nil
}

// DisableTOTP turns 2FA off, forgets the secret and deletes the backup
// codes.
func (s *Store) DisableTOTP(ctx context.Context, userID string) error {
	return s.Tx(ctx, func(tx *Store) error {
		res := tx.db.WithContext(ctx).Model(&models.User{}).Where("id = ?", userID).
			Updates(map[string]any{"totp_enabled": false, "totp_secret_ciphertext": nil, "totp_secret_nonce": nil,
				"totp_key_version": 0, "totp_last_step": 0, "updated_at": tx.now()})
		if err := rowsOrNotFound(res.Error, res.RowsAffected, "user"); err != nil {
			return err
		}
		return mapErr(tx.db.WithContext(ctx).Where("user_id = ?", userID).Delete(&models.BackupCode{}).Error, "backup code")
	})
}

// AdvanceTOTPStep accepts a code of step for userID only when step is later
// than the last accepted one (one conditional update, so a code replayed
// concurrently is accepted at most once). A replay is Conflict.
func (s *Store) AdvanceTOTPStep(ctx context.Context, userID string, step int64) error {
	res := s.db.WithContext(ctx).Model(&models.User{}).
		Where("id = ? AND totp_enabled = ? AND totp_last_step < ?", userID, true, step).
		Update("totp_last_step", step)
	if res.Error != nil {
		return mapErr(res.Error, "user")
	}
	if res.RowsAffected == 0 {
		return errs.E(errs.Conflict, "this code was already used").WithCode(errs.CodeTOTPReplayed)
	}
	return nil
}

// ReplaceBackupCodes deletes userID's backup codes and stores codes.
func (s *Store) ReplaceBackupCodes(ctx context.Context, userID string, codes []models.BackupCode) error {
	return s.Tx(ctx, func(tx *Store) error {
		if err := tx.db.WithContext(ctx).Where("user_id = ?", userID).Delete(&models.BackupCode{}).Error; err != nil {
			return mapErr(err, "backup code")
		}
		now := tx.now()
		for i := range codes {
			codes[i].ID = models.NewID(models.PrefixBackupCode)
			codes[i].UserID, codes[i].CreatedAt, codes[i].UsedAt = userID, now, nil
		}
		if len(codes) == 0 {
			return nil
		}
		return mapErr(tx.db.WithContext(ctx).Create(&codes).Error, "backup code")
	})
}

// UseBackupCode spends userID's unused code with hash; an unknown or spent
// code is NotFound.
func (s *Store) UseBackupCode(ctx context.Context, userID, hash string) error {
	res := s.db.WithContext(ctx).Model(&models.BackupCode{}).
		Where("user_id = ? AND code_hash = ? AND used_at IS NULL", userID, hash).Update("used_at", s.now())
	return rowsOrNotFound(res.Error, res.RowsAffected, "backup code")
}

// BackupCodeSpent reports whether userID has a backup code with hash that
// was used already (so a refused code can say it was used, not unknown).
func (s *Store) BackupCodeSpent(ctx context.Context, userID, hash string) (bool, error) {
	var n int64
	err := s.db.WithContext(ctx).Model(&models.BackupCode{}).
		Where("user_id = ? AND code_hash = ? AND used_at IS NOT NULL", userID, hash).Count(&n).Error
	return n > 0, mapErr(err, "backup code")
}

// UnusedBackupCodes counts userID's unspent backup codes.
func (s *Store) UnusedBackupCodes(ctx context.Context, userID string) (int64, error) {
	var n int64
	err := s.db.WithContext(ctx).Model(&models.BackupCode{}).Where("user_id = ? AND used_at IS NULL", userID).Count(&n).Error
	return n, mapErr(err, "backup code")
}

// ---- invites ----

// CreateInvite stores an invite.
func (s *Store) CreateInvite(ctx context.Context, inv *models.Invite) error {
	if inv.ID == "" {
		inv.ID = models.NewID(models.PrefixInvite)
	}
	inv.CreatedAt = s.now()
	inv.ExpiresAt = utc(inv.ExpiresAt)
	return mapErr(s.db.WithContext(ctx).Create(inv).Error, "invite")
}

// UseInvite spends the unexpired, unused invite with hash for userID
// (whose email must match the invite's, when it names one). Anything
// else is NotFound.
func (s *Store) UseInvite(ctx context.Context, hash, email, userID string) error {
	res := s.db.WithContext(ctx).Model(&models.Invite{}).
		Where("code_hash = ? AND used_at IS NULL AND expires_at > ? AND (email = '' OR email = ?)", hash, s.now(), NormalizeEmail(email)).
		Updates(map[string]any{"used_at": s.now(), "used_by": userID})
	return rowsOrNotFound(res.Error, res.RowsAffected, "invite")
}

// ---- credentials (passkeys, social identities) ----

// CreateCredential inserts a passkey or an identity. A credential id or a
// (provider, subject) already registered is Conflict.
func (s *Store) CreateCredential(ctx context.Context, c *models.UserCredential) error {
	if c.ID == "" {
		c.ID = models.NewID(models.PrefixCredential)
	}
	c.CreatedAt = s.now()
	q := s.db.WithContext(ctx)
	if len(c.WebAuthnCredentialID) == 0 {
		// A nil []byte is bound as an empty blob (SQLite), and the unique index
		// on the credential id would then let only one identity exist:
		// leave the column NULL.
		q = q.Omit("webauthn_credential_id", "webauthn_public_key")
	}
	return mapErr(q.Create(c).Error, "credential")
}

// ListCredentials returns userID's credentials of kind, oldest first.
func (s *Store) ListCredentials(ctx context.Context, userID, kind string) ([]models.UserCredential, error) {
	var out []models.UserCredential
	err := s.db.WithContext(ctx).Where("user_id = ? AND kind = ?", userID, kind).Order("created_at").Order("id").Find(&out).Error
	return out, mapErr(err, "credential")
}

// CredentialByWebAuthnID finds a passkey by its credential id.
func (s *Store) CredentialByWebAuthnID(ctx context.Context, credID []byte) (*models.UserCredential, error) {
	return s.credentialWhere(ctx, "kind = ? AND webauthn_credential_id = ?", models.CredentialWebAuthn, credID)
}

// CredentialByOAuth finds a social identity by provider and subject.
func (s *Store) CredentialByOAuth(ctx context.Context, provider, subject string) (*models.UserCredential, error) {
	return s.credentialWhere(ctx, "kind = ? AND oauth_provider = ? AND oauth_subject = ?", models.CredentialOAuth, provider, subject)
}

func (s *Store) credentialWhere(ctx context.Context, cond string, args ...any) (*models.UserCredential, error) {
	var c models.UserCredential
	if err := s.db.WithContext(ctx).Where(cond, args...).Take(&c).Error; err != nil {
		return nil, mapErr(err, "credential")
	}
	return &c, nil
}

// UpdatePasskeyUse stores a passkey's record and counter after a sign-in.
func (s *Store) UpdatePasskeyUse(ctx context.Context, id, record string, signCount int64) error {
	res := s.db.WithContext(ctx).Model(&models.UserCredential{}).Where("id = ?", id).
		Updates(map[string]any{"webauthn_record": record, "webauthn_sign_count": signCount, "last_used_at": s.now()})
	return rowsOrNotFound(res.Error, res.RowsAffected, "credential")
}

// TouchCredential records that a credential was just used.
func (s *Store) TouchCredential(ctx context.Context, id string) error {
	res := s.db.WithContext(ctx).Model(&models.UserCredential{}).Where("id = ?", id).Update("last_used_at", s.now())
	return rowsOrNotFound(res.Error, res.RowsAffected, "credential")
}

// RenameCredential renames userID's credential id.
func (s *Store) RenameCredential(ctx context.Context, userID, id, name string) error {
	res := s.db.WithContext(ctx).Model(&models.UserCredential{}).Where("id = ? AND user_id = ?", id, userID).Update("name", name)
	return rowsOrNotFound(res.Error, res.RowsAffected, "credential")
}

// DeleteCredential deletes userID's credential id of kind and returns it.
func (s *Store) DeleteCredential(ctx context.Context, userID, kind, id string) (*models.UserCredential, error) {
	var out *models.UserCredential
	err := s.Tx(ctx, func(tx *Store) error {
		c, err := tx.credentialWhere(ctx, "id = ? AND user_id = ? AND kind = ?", id, userID, kind)
		if err != nil {
			return err
		}
		res := tx.db.WithContext(ctx).Where("id = ?", c.ID).Delete(&models.UserCredential{})
		out = c
		return rowsOrNotFound(res.Error, res.RowsAffected, "credential")
	})
	return out, err
}

// CreateUserWithCredential creates a user and their first credential
// together (a social-login sign-up has no password).
func (s *Store) CreateUserWithCredential(ctx context.Context, u *models.User, c *models.UserCredential) error {
	return s.Tx(ctx, func(tx *Store) error {
		if err := tx.CreateUser(ctx, u); err != nil {
			return err
		}
		c.UserID = u.ID
		return tx.CreateCredential(ctx, c)
	})
}
