package vault_test

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/vault"
)

func key(b byte) []byte { return bytes.Repeat([]byte{b}, vault.KeySize) }

func newVault(t *testing.T) *vault.Vault {
	t.Helper()
	v, err := vault.FromMasterKey(key(7))
	require.NoError(t, err)
	return v
}

var secretKey = []byte("0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")

func TestSealOpenRoundTrip(t *testing.T) {
	v := newVault(t)
	b := vault.WalletKey("usr_1", "wal_1")
	s, err := v.Seal(b, secretKey)
	require.NoError(t, err)
	assert.Equal(t, 1, s.KeyVersion)
	assert.Len(t, s.Nonce, vault.NonceSize)
	assert.False(t, bytes.Contains(s.Ciphertext, secretKey), "ciphertext does not contain the plaintext")
	got, err := v.Open(b, s)
	require.NoError(t, err)
	assert.Equal(t, secretKey, got)

	empty, err := v.Seal(b, nil)
	require.NoError(t, err)
	got, err = v.Open(b, empty)
	require.NoError(t, err)
	assert.Empty(t, got)
}

func TestSealIsRandomized(t *testing.T) {
	v := newVault(t)
	b := vault.WalletKey("usr_1", "wal_1")
	s1, err := v.Seal(b, secretKey)
	require.NoError(t, err)
	s2, err := v.Seal(b, secretKey)
	require.NoError(t, err)
	assert.NotEqual(t, s1.Nonce, s2.Nonce)
	assert.NotEqual(t, s1.Ciphertext, s2.Ciphertext)
}

func TestTamperingFails(t *testing.T) {
	v := newVault(t)
	b := vault.WalletKey("usr_1", "wal_1")
	s, err := v.Seal(b, secretKey)
	require.NoError(t, err)

	flip := func(p []byte, i int) []byte {
		c := bytes.Clone(p)
		c[i] ^= 0x01
		return c
	}
	type tc struct {
		name string
		b    vault.Binding
		s    vault.Sealed
	}
	var tests []tc
	// Every single byte of ciphertext (incl. tag) and nonce.
	for i := range s.Ciphertext {
		tests = append(tests, tc{"ciphertext byte", b, vault.Sealed{Ciphertext: flip(s.Ciphertext, i), Nonce: s.Nonce, KeyVersion: 1}})
	}
	for i := range s.Nonce {
		tests = append(tests, tc{"nonce byte", b, vault.Sealed{Ciphertext: s.Ciphertext, Nonce: flip(s.Nonce, i), KeyVersion: 1}})
	}
	tests = append(tests,
		tc{"truncated ciphertext", b, vault.Sealed{Ciphertext: s.Ciphertext[:len(s.Ciphertext)-1], Nonce: s.Nonce, KeyVersion: 1}},
		tc{"short nonce", b, vault.Sealed{Ciphertext: s.Ciphertext, Nonce: s.Nonce[:8], KeyVersion: 1}},
		tc{"other wallet", vault.WalletKey("usr_1", "wal_2"), s},
		tc{"other user", vault.WalletKey("usr_2", "wal_1"), s},
		tc{"other purpose", vault.VenueCreds("usr_1", "wal_1"), s},
		// Moving characters between fields must not produce the same AAD.
		tc{"shifted fields", vault.Binding{Purpose: "wallet-key|usr_1", UserID: "wal_1"}, s},
		tc{"unknown key version", b, vault.Sealed{Ciphertext: s.Ciphertext, Nonce: s.Nonce, KeyVersion: 2}},
	)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Open(tt.b, tt.s)
			require.Error(t, err)
			assert.Nil(t, got)
			assert.NotContains(t, err.Error(), string(secretKey))
		})
	}

	t.Run("wrong master key", func(t *testing.T) {
		other, err := vault.FromMasterKey(key(8))
		require.NoError(t, err)
		_, err = other.Open(b, s)
		require.Error(t, err)
	})
	t.Run("binding needs purpose and user", func(t *testing.T) {
		_, err := v.Seal(vault.Binding{Purpose: "x"}, secretKey)
		require.Error(t, err)
		_, err = v.Open(vault.Binding{UserID: "usr_1"}, s)
		require.Error(t, err)
	})
}

func TestRotation(t *testing.T) {
	old, err := vault.New(1, map[int][]byte{1: key(1)})
	require.NoError(t, err)
	b := vault.TOTPSecret("usr_1")
	s1, err := old.Seal(b, []byte("JBSWY3DPEHPK3PXP"))
	require.NoError(t, err)

	rotated, err := vault.New(2, map[int][]byte{1: key(1), 2: key(2)})
	require.NoError(t, err)
	assert.True(t, rotated.NeedsReseal(s1))
	got, err := rotated.Open(b, s1)
	require.NoError(t, err, "old ciphertexts still open after rotation")
	assert.Equal(t, "JBSWY3DPEHPK3PXP", string(got))

	s2, err := rotated.Reseal(b, s1)
	require.NoError(t, err)
	assert.Equal(t, 2, s2.KeyVersion)
	assert.False(t, rotated.NeedsReseal(s2))

	_, err = old.Open(b, s2)
	require.Error(t, err, "the old keyring lacks version 2")

	// A ciphertext relabelled with another version does not open: the
	// version is part of the additional data, and the keys differ.
	_, err = rotated.Open(b, vault.Sealed{Ciphertext: s2.Ciphertext, Nonce: s2.Nonce, KeyVersion: 1})
	require.Error(t, err)
	same, err := vault.New(2, map[int][]byte{1: key(2), 2: key(2)})
	require.NoError(t, err)
	_, err = same.Open(b, vault.Sealed{Ciphertext: s2.Ciphertext, Nonce: s2.Nonce, KeyVersion: 1})
	require.Error(t, err, "even under the same key bytes, the version is authenticated")
}

func TestNewValidatesKeyring(t *testing.T) {
	tests := []struct {
		name    string
		current int
		keys    map[int][]byte
	}{
		{"missing current", 2, map[int][]byte{1: key(1)}},
		{"short key", 1, map[int][]byte{1: key(1)[:16]}},
		{"non-positive version", 1, map[int][]byte{1: key(1), 0: key(2)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := vault.New(tt.current, tt.keys)
			assert.Equal(t, errs.Invalid, errs.KindOf(err))
		})
	}
	_, err := vault.FromMasterKey(key(1)[:31])
	assert.Equal(t, errs.Invalid, errs.KindOf(err))
}

func TestDeriveKey(t *testing.T) {
	m := key(3)
	a := vault.DeriveKey(m, vault.PurposeVault)
	assert.Len(t, a, vault.KeySize)
	assert.Equal(t, a, vault.DeriveKey(m, vault.PurposeVault), "deterministic")
	assert.NotEqual(t, a, vault.DeriveKey(m, vault.PurposeTemporalPayloads), "purposes independent")
	assert.NotEqual(t, a, vault.DeriveKey(key(4), vault.PurposeVault), "masters independent")
	assert.NotEqual(t, m, a, "never the master itself")
}

func TestMasterKeyFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "master.key")
	k, err := vault.GenerateMasterKeyFile(path)
	require.NoError(t, err)
	assert.Len(t, k, vault.KeySize)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	_, err = vault.GenerateMasterKeyFile(path)
	assert.Equal(t, errs.Conflict, errs.KindOf(err), "never overwrites")

	ensured, err := vault.EnsureMasterKeyFile(path)
	require.NoError(t, err)
	assert.Equal(t, k, ensured)
	fresh, err := vault.EnsureMasterKeyFile(filepath.Join(dir, "new.key"))
	require.NoError(t, err)
	assert.NotEqual(t, k, fresh)

	raw := filepath.Join(dir, "raw.key")
	require.NoError(t, os.WriteFile(raw, key(9), 0o600))
	b64 := base64.StdEncoding.EncodeToString(key(5))
	bad := filepath.Join(dir, "bad.key")
	require.NoError(t, os.WriteFile(bad, []byte("not a key"), 0o600))

	tests := []struct {
		name    string
		file    string
		env     string
		want    []byte
		wantErr bool
	}{
		{"generated file", path, "", k, false},
		{"raw file", raw, "", key(9), false},
		{"file wins over env", raw, b64, key(9), false},
		{"env base64", "", b64, key(5), false},
		{"env raw base64", "", strings.TrimRight(b64, "="), key(5), false},
		{"env wrong length", "", base64.StdEncoding.EncodeToString(key(5)[:16]), nil, true},
		{"env not base64", "", "%%%", nil, true},
		{"bad file", bad, "", nil, true},
		{"missing file", filepath.Join(dir, "nope"), "", nil, true},
		{"nothing", "", "", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := vault.LoadMasterKey(tt.file, tt.env)
			if tt.wantErr {
				require.Error(t, err)
				assert.Equal(t, errs.Invalid, errs.KindOf(err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// A process's vault after a master-key rotation seals under the new key
// and opens under the old one too; Refresh moves a secret to the new key
// once and then leaves it alone.
func TestFromMasterKeysAndRefresh(t *testing.T) {
	b := vault.VenueCreds("usr_1", "wal_1")
	old, err := vault.FromMasterKey(key(1))
	require.NoError(t, err)
	s1, err := old.Seal(b, []byte("creds"))
	require.NoError(t, err)

	rotated, err := vault.FromMasterKeys(key(2), key(1))
	require.NoError(t, err)
	got, err := rotated.Open(b, s1)
	require.NoError(t, err, "the previous key still opens")
	assert.Equal(t, "creds", string(got))

	s2, changed, err := rotated.Refresh(b, s1)
	require.NoError(t, err)
	assert.True(t, changed)
	assert.NotEqual(t, s1.Ciphertext, s2.Ciphertext)
	s3, changed, err := rotated.Refresh(b, s2)
	require.NoError(t, err)
	assert.False(t, changed, "a refreshed secret is left alone")
	assert.Equal(t, s2, s3)

	newOnly, err := vault.FromMasterKeys(key(2))
	require.NoError(t, err)
	got, err = newOnly.Open(b, s2)
	require.NoError(t, err)
	assert.Equal(t, "creds", string(got))
	_, err = newOnly.Open(b, s1)
	require.Error(t, err, "without the previous key an old secret does not open")
	_, err = old.Open(b, s2)
	require.Error(t, err, "the old key does not open a refreshed secret")
	_, _, err = newOnly.Refresh(vault.VenueCreds("usr_2", "wal_1"), s2)
	require.Error(t, err, "refresh never opens under another binding")
	_, err = vault.FromMasterKeys(key(2), key(1)[:8])
	assert.Equal(t, errs.Invalid, errs.KindOf(err))
}
