package rotation_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/rotation"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/vault"
)

func master(b byte) []byte { return bytes.Repeat([]byte{b}, vault.KeySize) }

func TestRotate(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		old, err := vault.FromMasterKey(master(1))
		if err != nil {
			t.Fatal(err)
		}
		u := &models.User{Email: "rot@example.com", PasswordHash: "x"}
		if err := s.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		w := &models.Wallet{ID: models.NewID(models.PrefixWallet), UserID: u.ID, Kind: models.WalletEOA, EOAAddress: "0x1", FunderAddress: "0x1"}
		k, _ := old.Seal(vault.WalletKey(u.ID, w.ID), []byte("key"))
		w.KeyCiphertext, w.KeyNonce, w.KeyVersion = k.Ciphertext, k.Nonce, k.KeyVersion
		if err := s.UpsertWallet(ctx, w); err != nil { // no venue credentials yet
			t.Fatal(err)
		}
		totp, _ := old.Seal(vault.TOTPSecret(u.ID), []byte("JBSWY3DP"))
		if err := s.DB().Model(&models.User{}).Where("id = ?", u.ID).Updates(map[string]any{
			"totp_secret_ciphertext": totp.Ciphertext, "totp_secret_nonce": totp.Nonce, "totp_key_version": totp.KeyVersion}).Error; err != nil {
			t.Fatal(err)
		}
		other := &models.User{Email: "no2fa@example.com", PasswordHash: "x"}
		if err := s.CreateUser(ctx, other); err != nil {
			t.Fatal(err)
		}
		// A webhook's signing secret is re-sealed too (its row is keyed by
		// the user, not an id of its own).
		hook, _ := old.Seal(vault.WebhookSecret(other.ID), []byte("whsec_x"))
		if err := s.SaveNotificationSettings(ctx, &models.NotificationSettings{UserID: other.ID, Kinds: "fill", WebhookURL: "https://h.example/x",
			WebhookSecretCiphertext: hook.Ciphertext, WebhookSecretNonce: hook.Nonce, WebhookSecretKeyVersion: hook.KeyVersion}); err != nil {
			t.Fatal(err)
		}

		v, err := vault.FromMasterKeys(master(2), master(1))
		if err != nil {
			t.Fatal(err)
		}
		rep, err := rotation.Rotate(ctx, s, v, "cli")
		if err != nil {
			t.Fatal(err)
		}
		if rep.Resealed[vault.BindWalletKey] != 1 || rep.Resealed[vault.BindTOTPSecret] != 1 || rep.Resealed[vault.BindWebhookSecret] != 1 ||
			rep.Total() != 3 || rep.Current != 0 || rep.Changed != 0 {
			t.Fatalf("report %+v", rep)
		}
		newOnly, _ := vault.FromMasterKeys(master(2))
		ns, err := s.NotificationSettingsOf(ctx, other.ID)
		if err != nil {
			t.Fatal(err)
		}
		if pt, err := newOnly.Open(vault.WebhookSecret(other.ID), vault.Sealed{Ciphertext: ns.WebhookSecretCiphertext, Nonce: ns.WebhookSecretNonce,
			KeyVersion: ns.WebhookSecretKeyVersion}); err != nil || string(pt) != "whsec_x" {
			t.Fatalf("webhook secret under the new key: %q %v", pt, err)
		}
		got, _ := s.WalletByUser(ctx, u.ID)
		if pt, err := newOnly.Open(vault.WalletKey(u.ID, w.ID), vault.Sealed{Ciphertext: got.KeyCiphertext, Nonce: got.KeyNonce, KeyVersion: got.KeyVersion}); err != nil || string(pt) != "key" {
			t.Fatalf("wallet key under the new key: %q %v", pt, err)
		}
		if rep, err = rotation.Rotate(ctx, s, v, "cli"); err != nil || rep.Total() != 0 || rep.Current != 3 {
			t.Fatalf("second run %+v %v", rep, err)
		}
		// A secret replaced meanwhile is never overwritten with the older
		// value.
		err = s.ReplaceSealed(ctx, store.WalletKeyColumns, w.ID, k.Ciphertext, []byte("x"), []byte("y"), 1)
		if errs.KindOf(err) != errs.Conflict {
			t.Fatalf("replacing a stale ciphertext: %v", err)
		}
		// A secret no given key opens stops the rotation with an error.
		if _, err := rotation.Rotate(ctx, s, old, "cli"); err == nil {
			t.Fatal("rotated with a vault that cannot open the secrets")
		}
	})
}
