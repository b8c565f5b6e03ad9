// Package vault encrypts secrets at rest: wallet private keys, venue API
// credentials, TOTP secrets.
//
// Each secret is sealed with AES-256-GCM under a fresh random 96-bit nonce.
// The additional authenticated data binds the ciphertext to what it is for
// (a Binding: purpose, user, object) and to the key version, so a
// ciphertext copied onto another row, another user or another purpose fails
// to open instead of yielding a valid secret. Keys are versioned for
// rotation: Seal always uses the current version, Open uses the version
// stored with the ciphertext.
//
// All keys derive from one 32-byte master key (LoadMasterKey) via
// DeriveKey, so other subsystems (Temporal payload codec, session signing)
// get independent keys from the same secret.
package vault

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"strconv"

	"github.com/agent-trading/ats/models/errs"
)

// KeySize is the size of the master key and of every derived key: AES-256.
const KeySize = 32

// NonceSize is the GCM standard nonce size. Random 96-bit nonces are safe
// for far more than 2^32 encryptions under one key at the volumes a user
// wallet vault sees, and rotation bounds the count anyway.
const NonceSize = 12

// Purposes for DeriveKey. Each names one independent key; never reuse a
// purpose string for a different use.
const (
	PurposeVault            = "ats/vault/v1"
	PurposeTemporalPayloads = "ats/temporal-payload-codec/v1"
	PurposeSessions         = "ats/dashboard-sessions/v1"
)

// Binding says what a ciphertext is for. All three parts go into the AEAD
// additional data; Purpose and UserID are required.
type Binding struct {
	Purpose  string // e.g. "wallet-key"
	UserID   string
	ObjectID string // e.g. the wallet ID; "" when the secret belongs to the user itself
}

// Binding purposes used by the service.
const (
	BindWalletKey  = "wallet-key"
	BindVenueCreds = "venue-creds"
	BindTOTPSecret = "totp-secret"
)

// WalletKey binds a wallet's private key.
func WalletKey(userID, walletID string) Binding {
	return Binding{Purpose: BindWalletKey, UserID: userID, ObjectID: walletID}
}

// VenueCreds binds a wallet's venue API credentials.
func VenueCreds(userID, walletID string) Binding {
	return Binding{Purpose: BindVenueCreds, UserID: userID, ObjectID: walletID}
}

// TOTPSecret binds a user's 2FA secret.
func TOTPSecret(userID string) Binding {
	return Binding{Purpose: BindTOTPSecret, UserID: userID}
}

// String renders the binding for logs ("wallet-key|usr_…|wal_…"); it holds
// no secret.
func (b Binding) String() string { return b.Purpose + "|" + b.UserID + "|" + b.ObjectID }

// aad encodes the binding and key version unambiguously: every part is
// length-prefixed, so no choice of IDs can make two bindings collide.
func (b Binding) aad(version int) []byte {
	out := []byte("ats-vault-aad/v1")
	for _, p := range []string{b.Purpose, b.UserID, b.ObjectID, strconv.Itoa(version)} {
		out = binary.BigEndian.AppendUint32(out, uint32(len(p)))
		out = append(out, p...)
	}
	return out
}

// Sealed is an encrypted secret as stored: ciphertext (with the GCM tag),
// nonce, and the version of the key that sealed it.
type Sealed struct {
	Ciphertext []byte
	Nonce      []byte
	KeyVersion int
}

// Vault seals and opens secrets with a keyring. It is safe for concurrent
// use.
type Vault struct {
	current int
	aeads   map[int]cipher.AEAD
}

// New builds a vault from a keyring: version → 32-byte key, with current
// the version new secrets are sealed under. Versions are positive.
func New(current int, keys map[int][]byte) (*Vault, error) {
	if _, ok := keys[current]; !ok {
		return nil, errs.Ef(errs.Invalid, "the vault keyring has no key for its current version %d", current)
	}
	v := &Vault{current: current, aeads: make(map[int]cipher.AEAD, len(keys))}
	for ver, key := range keys {
		if ver <= 0 {
			return nil, errs.Ef(errs.Invalid, "vault key version %d is not positive", ver)
		}
		if len(key) != KeySize {
			return nil, errs.Ef(errs.Invalid, "vault key version %d is %d bytes, want %d", ver, len(key), KeySize)
		}
		block, err := aes.NewCipher(key)
		if err != nil {
			return nil, errs.Wrap(errs.Internal, err, "vault key setup failed")
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, errs.Wrap(errs.Internal, err, "vault key setup failed")
		}
		v.aeads[ver] = aead
	}
	return v, nil
}

// FromMasterKey builds the single-version vault (version 1) whose key is
// DeriveKey(master, PurposeVault).
func FromMasterKey(master []byte) (*Vault, error) {
	if len(master) != KeySize {
		return nil, errs.Ef(errs.Invalid, "the master key must be %d bytes", KeySize)
	}
	return New(1, map[int][]byte{1: DeriveKey(master, PurposeVault)})
}

// CurrentVersion is the key version Seal uses.
func (v *Vault) CurrentVersion() int { return v.current }

// Seal encrypts plaintext for binding b under the current key.
func (v *Vault) Seal(b Binding, plaintext []byte) (Sealed, error) {
	if err := b.validate(); err != nil {
		return Sealed{}, err
	}
	nonce := make([]byte, NonceSize)
	if _, err := rand.Read(nonce); err != nil {
		return Sealed{}, errs.Wrap(errs.Internal, err, "cannot encrypt the secret")
	}
	ct := v.aeads[v.current].Seal(nil, nonce, plaintext, b.aad(v.current))
	return Sealed{Ciphertext: ct, Nonce: nonce, KeyVersion: v.current}, nil
}

// Open decrypts s for binding b. Any tampering — a changed byte of the
// ciphertext or nonce, another binding, another key version — is an error,
// never garbage plaintext. The error says nothing about the secret.
func (v *Vault) Open(b Binding, s Sealed) ([]byte, error) {
	if err := b.validate(); err != nil {
		return nil, err
	}
	aead, ok := v.aeads[s.KeyVersion]
	if !ok {
		return nil, errs.Ef(errs.Internal, "cannot decrypt the secret: unknown key version %d", s.KeyVersion)
	}
	if len(s.Nonce) != NonceSize {
		return nil, errs.E(errs.Internal, "cannot decrypt the secret: malformed nonce")
	}
	pt, err := aead.Open(nil, s.Nonce, s.Ciphertext, b.aad(s.KeyVersion))
	if err != nil {
		return nil, errs.Wrap(errs.Internal, err, "cannot decrypt the secret")
	}
	return pt, nil
}

// NeedsReseal reports whether s was sealed under an older key and should be
// re-sealed (Reseal) as part of a rotation.
func (v *Vault) NeedsReseal(s Sealed) bool { return s.KeyVersion != v.current }

// Reseal opens s and seals it again under the current key.
func (v *Vault) Reseal(b Binding, s Sealed) (Sealed, error) {
	pt, err := v.Open(b, s)
	if err != nil {
		return Sealed{}, err
	}
	defer clear(pt)
	return v.Seal(b, pt)
}

func (b Binding) validate() error {
	if b.Purpose == "" || b.UserID == "" {
		return errs.Ef(errs.Internal, "vault binding %q lacks a purpose or a user", b.String())
	}
	return nil
}

// DeriveKey derives the 32-byte key for purpose from the master key with
// HKDF-SHA256. Different purposes give independent keys; the same inputs
// always give the same key.
func DeriveKey(master []byte, purpose string) []byte {
	k, err := hkdf.Key(sha256.New, master, []byte("ats-master-key"), purpose, KeySize)
	if err != nil {
		// Only possible for lengths beyond 255*32 bytes.
		panic("vault: hkdf: " + err.Error())
	}
	return k
}
