package store

import (
	"context"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
)

// SealedColumns names where one kind of vault-sealed secret is stored.
// Key is the table's key column ("id" when empty).
type SealedColumns struct {
	Table, Ciphertext, Nonce, Version string
	Key                               string
}

// The sealed secrets of the schema: a master-key rotation re-seals each.
var (
	WalletKeyColumns  = SealedColumns{"wallets", "key_ciphertext", "key_nonce", "key_version", ""}
	VenueCredsColumns = SealedColumns{"wallets", "api_creds_ciphertext", "api_creds_nonce", "api_creds_key_version", ""}
	TOTPSecretColumns = SealedColumns{"users", "totp_secret_ciphertext", "totp_secret_nonce", "totp_key_version", ""}
	// WebhookSecretColumns hold the users' webhook signing secrets.
	WebhookSecretColumns = SealedColumns{"notification_settings", "webhook_secret_ciphertext", "webhook_secret_nonce",
		"webhook_secret_key_version", "user_id"}
)

// WalletsAfter returns up to n wallets with an id above afterID, by id:
// pages through every wallet without holding them all.
func (s *Store) WalletsAfter(ctx context.Context, afterID string, n int) ([]models.Wallet, error) {
	var out []models.Wallet
	err := s.db.WithContext(ctx).Where("id > ?", afterID).Order("id").Limit(n).Find(&out).Error
	return out, mapErr(err, "wallet")
}

// UsersWithTOTPAfter returns up to n users holding a sealed 2FA secret
// with an id above afterID, by id.
func (s *Store) UsersWithTOTPAfter(ctx context.Context, afterID string, n int) ([]models.User, error) {
	var out []models.User
	err := s.db.WithContext(ctx).Where("id > ? AND totp_secret_ciphertext IS NOT NULL AND length(totp_secret_ciphertext) > 0", afterID).
		Order("id").Limit(n).Find(&out).Error
	return out, mapErr(err, "user")
}

// ReplaceSealed stores a re-sealed secret in row id of c, only if the row
// still holds the ciphertext old: a secret a running process replaced in
// the meantime (venue credentials re-derived) is Conflict, never
// overwritten with the older value.
func (s *Store) ReplaceSealed(ctx context.Context, c SealedColumns, id string, old, ciphertext, nonce []byte, version int) error {
	key := c.Key
	if key == "" {
		key = "id"
	}
	res := s.db.WithContext(ctx).Table(c.Table).Where(key+" = ? AND "+c.Ciphertext+" = ?", id, old).
		Updates(map[string]any{c.Ciphertext: ciphertext, c.Nonce: nonce, c.Version: version, "updated_at": s.now()})
	if res.Error != nil {
		return mapErr(res.Error, c.Table)
	}
	if res.RowsAffected == 0 {
		return errs.Ef(errs.Conflict, "the %s secret of %s changed while it was re-sealed", c.Table, id)
	}
	return nil
}
