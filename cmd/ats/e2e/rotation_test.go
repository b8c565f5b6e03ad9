package e2e

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
	"go.temporal.io/sdk/converter"

	"github.com/agent-trading/ats/cmd/ats/internal/app"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/rotation"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/vault"
)

// Rotating the master key end to end: secrets sealed under the old key
// open; `ats admin master-key rotate` re-seals every one; afterwards the
// new key alone opens them and the old key alone opens none; a second run
// changes nothing; and a process given the old key as its previous one
// still reads the Temporal payloads written under it.
func TestMasterKeyRotation(t *testing.T) {
	bin := buildATS(t)
	dir := t.TempDir()
	oldFile, newFile := filepath.Join(dir, "old.key"), filepath.Join(dir, "new.key")
	oldKey, err := vault.GenerateMasterKeyFile(oldFile)
	if err != nil {
		t.Fatal(err)
	}
	newKey, err := vault.GenerateMasterKeyFile(newFile)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, store.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}

	// Secrets as the services seal them under the old key: two users'
	// wallet keys and venue credentials, and a 2FA secret.
	oldVault, err := vault.FromMasterKey(oldKey)
	if err != nil {
		t.Fatal(err)
	}
	type secret struct {
		cols     store.SealedColumns
		binding  vault.Binding
		rowID    string
		plain    []byte
		readBack func() vault.Sealed
	}
	var secrets []secret
	seal := func(b vault.Binding, plain string) vault.Sealed {
		s, err := oldVault.Seal(b, []byte(plain))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for i := range 2 {
		u := &models.User{Email: models.NewID("rot") + "@example.com", PasswordHash: "x"}
		if err := st.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		w := &models.Wallet{ID: models.NewID(models.PrefixWallet), UserID: u.ID, Kind: models.WalletEOA, EOAAddress: "0x1", FunderAddress: "0x1"}
		k := seal(vault.WalletKey(u.ID, w.ID), "wallet key "+u.ID)
		c := seal(vault.VenueCreds(u.ID, w.ID), `{"key":"k","secret":"s`+u.ID+`"}`)
		w.KeyCiphertext, w.KeyNonce, w.KeyVersion = k.Ciphertext, k.Nonce, k.KeyVersion
		w.APICredsCiphertext, w.APICredsNonce, w.APICredsKeyVersion = c.Ciphertext, c.Nonce, c.KeyVersion
		if err := st.UpsertWallet(ctx, w); err != nil {
			t.Fatal(err)
		}
		walletRow := func(cols store.SealedColumns) func() vault.Sealed {
			return func() vault.Sealed {
				got, err := st.WalletByUser(ctx, u.ID)
				if err != nil {
					t.Fatal(err)
				}
				if cols == store.WalletKeyColumns {
					return vault.Sealed{Ciphertext: got.KeyCiphertext, Nonce: got.KeyNonce, KeyVersion: got.KeyVersion}
				}
				return vault.Sealed{Ciphertext: got.APICredsCiphertext, Nonce: got.APICredsNonce, KeyVersion: got.APICredsKeyVersion}
			}
		}
		secrets = append(secrets,
			secret{store.WalletKeyColumns, vault.WalletKey(u.ID, w.ID), w.ID, []byte("wallet key " + u.ID), walletRow(store.WalletKeyColumns)},
			secret{store.VenueCredsColumns, vault.VenueCreds(u.ID, w.ID), w.ID, []byte(`{"key":"k","secret":"s` + u.ID + `"}`), walletRow(store.VenueCredsColumns)})
		if i == 0 {
			s := seal(vault.TOTPSecret(u.ID), "JBSWY3DPEHPK3PXP")
			if err := st.DB().Model(&models.User{}).Where("id = ?", u.ID).Updates(map[string]any{
				"totp_secret_ciphertext": s.Ciphertext, "totp_secret_nonce": s.Nonce, "totp_key_version": s.KeyVersion,
			}).Error; err != nil {
				t.Fatal(err)
			}
			secrets = append(secrets, secret{store.TOTPSecretColumns, vault.TOTPSecret(u.ID), u.ID, []byte("JBSWY3DPEHPK3PXP"), func() vault.Sealed {
				got, err := st.UserByID(ctx, u.ID)
				if err != nil {
					t.Fatal(err)
				}
				return vault.Sealed{Ciphertext: got.TOTPSecretCiphertext, Nonce: got.TOTPSecretNonce, KeyVersion: got.TOTPKeyVersion}
			}})
		}
	}
	opens := func(keys ...[]byte) int {
		v, err := vault.FromMasterKeys(keys[0], keys[1:]...)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, s := range secrets {
			if got, err := v.Open(s.binding, s.readBack()); err == nil {
				if !bytes.Equal(got, s.plain) {
					t.Fatalf("%s opened to %q", s.binding, got)
				}
				n++
			}
		}
		return n
	}
	if opens(oldKey) != len(secrets) || opens(newKey) != 0 {
		t.Fatal("before the rotation the old key must open everything and the new one nothing")
	}

	// A workflow payload written before the rotation.
	oldProcess := app.MasterKeys{Current: oldKey}
	cd, err := oldProcess.Codec()
	if err != nil {
		t.Fatal(err)
	}
	payload, err := converter.WithDataConverterSerializationContext(cd.DataConverter(),
		converter.WorkflowSerializationContext{Namespace: "default", WorkflowID: "order/ord_before"}).ToPayload("written before the rotation")
	if err != nil {
		t.Fatal(err)
	}

	rotate := func() string {
		t.Helper()
		out, err := exec.Command(bin, "admin", "master-key", "rotate", "--new-key-file", newFile,
			"--master-key-file", oldFile, "--data-dir", dir, "--log-level", "error").CombinedOutput()
		if err != nil {
			t.Fatalf("rotate: %v\n%s", err, out)
		}
		return string(out)
	}
	out := rotate()
	if !strings.Contains(out, "re-sealed 5 secret(s)") || !strings.Contains(out, "wallet-key 2, venue-creds 2, totp-secret 1") ||
		!strings.Contains(out, "--previous-master-key-file") {
		t.Fatalf("first rotation: %s", out)
	}
	if opens(newKey) != len(secrets) || opens(oldKey) != 0 {
		t.Fatalf("after the rotation the new key opens %d and the old %d of %d", opens(newKey), opens(oldKey), len(secrets))
	}
	for _, k := range [][]byte{oldKey, newKey} {
		if bytes.Contains(dbBytes(t, dir), k) {
			t.Fatal("a master key is in the database")
		}
	}
	if out := rotate(); !strings.Contains(out, "re-sealed 0 secret(s)") || !strings.Contains(out, "5 already were") {
		t.Fatalf("second rotation: %s", out)
	}
	page, err := (&audit.Service{Store: st}).List(ctx, audit.Filter{Action: rotation.ActionRotate})
	if err != nil || len(page.Entries) != 2 {
		t.Fatalf("audit of the rotations: %+v %v", page, err)
	}
	// The same key as new and current is refused.
	if out, err := exec.Command(bin, "admin", "master-key", "rotate", "--new-key-file", newFile,
		"--master-key-file", newFile, "--data-dir", dir).CombinedOutput(); err == nil || !strings.Contains(string(out), "is the current one") {
		t.Fatalf("rotating to the current key: %v %s", err, out)
	}

	// Processes restart with the new key; with the old one as their
	// previous key they read payloads written before the rotation.
	decodes := func(args ...string) error {
		t.Helper()
		var decErr error
		cliApp := &cli.App{Flags: []cli.Flag{app.MasterKeyFlag(), app.PreviousMasterKeyFlag(), app.DataDirFlag()}, Action: func(c *cli.Context) error {
			keys, err := app.LoadMasterKeys(c, false)
			if err != nil {
				return err
			}
			cd, err := keys.Codec()
			if err != nil {
				return err
			}
			var s string
			decErr = converter.WithDataConverterSerializationContext(cd.DataConverter(),
				converter.WorkflowSerializationContext{Namespace: "default", WorkflowID: "order/ord_before"}).FromPayload(payload, &s)
			if decErr == nil && s != "written before the rotation" {
				t.Fatalf("decoded %q", s)
			}
			return nil
		}}
		t.Setenv("ATS_MASTER_KEY", "")
		t.Setenv("ATS_PREVIOUS_MASTER_KEY", "")
		if err := cliApp.Run(append([]string{"ats"}, args...)); err != nil {
			t.Fatal(err)
		}
		return decErr
	}
	if err := decodes("--master-key-file", newFile); err == nil {
		t.Fatal("the new key alone decoded a payload of the old one")
	}
	if err := decodes("--master-key-file", newFile, "--previous-master-key-file", oldFile); err != nil {
		t.Fatalf("with the previous key configured: %v", err)
	}
}

func dbBytes(t *testing.T, dir string) []byte {
	t.Helper()
	var all []byte
	for _, f := range []string{"ats.db", "ats.db-wal"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}
