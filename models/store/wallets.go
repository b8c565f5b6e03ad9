package store

import (
	"context"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
)

// UpsertWallet makes w the user's wallet, replacing any previous one (a
// user has at most one). w.ID must be set by the caller, because the sealed
// key is bound to it: reuse the current wallet's ID (WalletByUser) to update
// it in place, or a fresh models.NewID(models.PrefixWallet) to replace it.
// CreatedAt is kept when the ID is unchanged.
func (s *Store) UpsertWallet(ctx context.Context, w *models.Wallet) error {
	if w.ID == "" || w.UserID == "" {
		return errs.E(errs.Invalid, "a wallet needs an ID and a user")
	}
	if len(w.KeyCiphertext) == 0 || len(w.KeyNonce) == 0 {
		return errs.E(errs.Invalid, "a wallet needs a sealed key")
	}
	return s.Tx(ctx, func(tx *Store) error {
		now := tx.now()
		w.CreatedAt, w.UpdatedAt = now, now
		// Told only if the transaction commits (the wallet page shows it).
		tx.changed(Change{UserID: w.UserID, Topic: TopicWallet})
		old, err := tx.WalletByUser(ctx, w.UserID)
		switch {
		case errs.Is(err, errs.NotFound):
		case err != nil:
			return err
		case old.ID == w.ID:
			w.CreatedAt = old.CreatedAt
			// Select("*") writes zero values too (e.g. cleared API creds).
			err := tx.db.WithContext(ctx).Model(&models.Wallet{}).Where("id = ?", w.ID).
				Select("*").Omit("id", "created_at").Updates(w).Error
			return mapErr(err, "wallet")
		default:
			if err := tx.db.WithContext(ctx).Where("id = ?", old.ID).Delete(&models.Wallet{}).Error; err != nil {
				return mapErr(err, "wallet")
			}
		}
		return mapErr(tx.db.WithContext(ctx).Create(w).Error, "wallet")
	})
}

// WalletByUser returns the user's wallet, NotFound when none is imported.
func (s *Store) WalletByUser(ctx context.Context, userID string) (*models.Wallet, error) {
	var w models.Wallet
	if err := s.db.WithContext(ctx).Where("user_id = ?", userID).Take(&w).Error; err != nil {
		return nil, mapErr(err, "wallet")
	}
	return &w, nil
}

// DeleteWallet removes userID's wallet id; someone else's or a missing
// wallet is NotFound.
func (s *Store) DeleteWallet(ctx context.Context, userID, id string) error {
	res := s.db.WithContext(ctx).Where("id = ? AND user_id = ?", id, userID).Delete(&models.Wallet{})
	if res.Error == nil && res.RowsAffected > 0 {
		s.changed(Change{UserID: userID, Topic: TopicWallet})
	}
	return rowsOrNotFound(res.Error, res.RowsAffected, "wallet")
}
