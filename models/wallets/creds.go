package wallets

import (
	"context"
	"encoding/json"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/vault"
	"github.com/agent-trading/ats/venue/clob"
)

// sealedCreds is the plaintext layout of sealed API credentials.
// clob.Creds redacts itself in JSON, hence a separate type.
type sealedCreds struct {
	Key        string `json:"key"`
	Secret     string `json:"secret"`
	Passphrase string `json:"passphrase"`
}

// apiKeyNonce is the L1 nonce the service derives its credentials under.
// The venue keys credentials by (address, nonce); one fixed nonce makes
// derivation reproducible from the key alone.
const apiKeyNonce = 0

// Creds returns the venue API credentials of userID's wallet. The first
// call derives them through L1 auth (create, or derive the existing ones)
// and stores them sealed with vault.VenueCreds(user, wallet); later calls
// open the stored copy. After the venue rejects them, call InvalidateCreds
// and then Creds again.
func (s *Service) Creds(ctx context.Context, userID string) (clob.Creds, error) {
	w, err := s.walletRow(ctx, userID)
	if err != nil {
		return clob.Creds{}, err
	}
	return s.credsOf(ctx, userID, w)
}

// Trading returns, from one read of userID's wallet row, what placing an
// order needs: the wallet, its signer and its venue API credentials (as
// Get, Signer and Creds would, which read the row once each). The signer
// still reloads the row for every signature (Signer).
func (s *Service) Trading(ctx context.Context, userID string) (Wallet, *Signer, clob.Creds, error) {
	w, err := s.walletRow(ctx, userID)
	if err != nil {
		return Wallet{}, nil, clob.Creds{}, err
	}
	creds, err := s.credsOf(ctx, userID, w)
	if err != nil {
		return Wallet{}, nil, clob.Creds{}, err
	}
	return toDTO(w), s.signerFor(w), creds, nil
}

// credsOf is Creds of the wallet row w, read already.
func (s *Service) credsOf(ctx context.Context, userID string, w *models.Wallet) (clob.Creds, error) {
	if len(w.APICredsCiphertext) > 0 {
		return s.openCreds(w)
	}
	if s.CLOB == nil {
		return clob.Creds{}, errs.E(errs.Internal, "the wallet service has no venue client")
	}
	creds, err := s.CLOB.CreateOrDeriveAPIKey(ctx, s.signerFor(w), apiKeyNonce)
	if err != nil {
		return clob.Creds{}, err
	}
	plain, err := json.Marshal(sealedCreds{Key: creds.Key, Secret: creds.Secret, Passphrase: creds.Passphrase})
	if err != nil {
		return clob.Creds{}, errs.Wrap(errs.Internal, err, "encode the API credentials")
	}
	sealed, err := s.Vault.Seal(vault.VenueCreds(userID, w.ID), plain)
	clear(plain)
	if err != nil {
		return clob.Creds{}, err
	}
	err = s.updateWallet(ctx, userID, w.ID, func(cur *models.Wallet) {
		cur.APICredsCiphertext, cur.APICredsNonce, cur.APICredsKeyVersion = sealed.Ciphertext, sealed.Nonce, sealed.KeyVersion
	})
	if err != nil {
		return clob.Creds{}, err
	}
	s.log().InfoContext(ctx, "venue API credentials derived", "user_id", userID, "wallet_id", w.ID)
	return creds, nil
}

func (s *Service) openCreds(w *models.Wallet) (clob.Creds, error) {
	plain, err := s.Vault.Open(vault.VenueCreds(w.UserID, w.ID),
		vault.Sealed{Ciphertext: w.APICredsCiphertext, Nonce: w.APICredsNonce, KeyVersion: w.APICredsKeyVersion})
	if err != nil {
		return clob.Creds{}, err
	}
	defer clear(plain)
	var c sealedCreds
	if err := json.Unmarshal(plain, &c); err != nil || c.Key == "" {
		return clob.Creds{}, errs.E(errs.Internal, "the stored API credentials are corrupt")
	}
	return clob.Creds{Key: c.Key, Secret: c.Secret, Passphrase: c.Passphrase}, nil
}

// InvalidateCreds forgets the stored API credentials of userID's wallet so
// that the next Creds call derives them again. No wallet is not an error.
func (s *Service) InvalidateCreds(ctx context.Context, userID string) error {
	w, err := s.Store.WalletByUser(ctx, userID)
	if errs.Is(err, errs.NotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(w.APICredsCiphertext) == 0 {
		return nil
	}
	err = s.updateWallet(ctx, userID, w.ID, func(cur *models.Wallet) {
		cur.APICredsCiphertext, cur.APICredsNonce, cur.APICredsKeyVersion = nil, nil, 0
	})
	if errs.Is(err, errs.Conflict) {
		return nil // replaced meanwhile: the new wallet has its own credentials
	}
	if err == nil {
		s.log().InfoContext(ctx, "venue API credentials invalidated", "user_id", userID, "wallet_id", w.ID)
	}
	return err
}

// updateWallet applies fn to wallet id in a transaction, provided it is
// still the user's wallet: a wallet replaced in the meantime is left alone
// (Conflict), so a late write can never resurrect a replaced wallet.
func (s *Service) updateWallet(ctx context.Context, userID, id string, fn func(*models.Wallet)) error {
	return s.Store.Tx(ctx, func(tx *store.Store) error {
		cur, err := tx.WalletByUser(ctx, userID)
		if errs.Is(err, errs.NotFound) || (err == nil && cur.ID != id) {
			return errs.E(errs.Conflict, "the wallet was replaced or removed; retry with the current wallet").
				WithCode(errs.CodeWalletChanged)
		}
		if err != nil {
			return err
		}
		fn(cur)
		return tx.UpsertWallet(ctx, cur)
	})
}
