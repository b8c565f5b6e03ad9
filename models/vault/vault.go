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
	"fmt"
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
	PurposeVault = "ats/vault/v1"
	// PurposeTemporalPayloads keys the Temporal payload codec (the one
	// constant every codec user derives it with). Its value predates the
	// "ats/…" naming and stays: payloads in running workflows' histories are
	// sealed under it.
	PurposeTemporalPayloads = "temporal-payload-codec-v1"
	PurposeSessions         = "ats/dashboard-sessions/v1"
	// PurposeTemporalIntents keys the proofs with which the authenticated
	// paths vouch for the requests they hand to Temporal (models/intent).
	PurposeTemporalIntents = "ats/temporal-intents/v1"
	// PurposeOpsToken derives the operator token `ats dev` uses for its
	// operator listener when none is configured.
	PurposeOpsToken = "ats/ops-token/v1"
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
	// BindWebhookSecret seals a user's webhook signing secret.
	BindWebhookSecret = "webhook-secret"
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

// WebhookSecret binds a user's webhook signing secret.
func WebhookSecret(userID string) Binding {
	return Binding{Purpose: BindWebhookSecret, UserID: userID}
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
//
// A version normally names one key. The vault of a process built from its
// master keys (FromMasterKeys) has one version, 1, with several candidate
// keys: the current master key's, which seals, then the previous ones'.
// Opening tries them in order; GCM's tag tells a wrong key from the right
// one, so this never yields wrong plaintext. That lets a master-key
// rotation re-seal every secret (Refresh) without any record of which
// master key sealed what.
type Vault struct {
	current int
	aeads   map[int][]cipher.AEAD // the first of the current version's seals
}

// New builds a vault from a keyring: version → 32-byte key, with current
// the version new secrets are sealed under. Versions are positive.
func New(current int, keys map[int][]byte) (*Vault, error) {
	if _, ok := keys[current]; !ok {
		return nil, errs.Ef(errs.Invalid, "the vault keyring has no key for its current version %d", current)
	}
	v := &Vault{current: current, aeads: make(map[int][]cipher.AEAD, len(keys))}
	for ver, key := range keys {
		if ver <= 0 {
			return nil, errs.Ef(errs.Invalid, "vault key version %d is not positive", ver)
		}
		aead, err := newAEAD(key)
		if err != nil {
			return nil, errs.Wrap(errs.KindOf(err), err, fmt.Sprintf("vault key version %d", ver))
		}
		v.aeads[ver] = []cipher.AEAD{aead}
	}
	return v, nil
}

func newAEAD(key []byte) (cipher.AEAD, error) {
	if len(key) != KeySize {
		return nil, errs.Ef(errs.Invalid, "a vault key is %d bytes, want %d", len(key), KeySize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, err, "vault key setup failed")
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, err, "vault key setup failed")
	}
	return aead, nil
}

// FromMasterKey builds the single-version vault (version 1) whose key is
// DeriveKey(master, PurposeVault).
func FromMasterKey(master []byte) (*Vault, error) { return FromMasterKeys(master) }

// FromMasterKeys builds a process's vault: secrets are sealed under the
// current master key's vault key (version 1, as always) and open under it
// or under any previous master key's, so a rotation can re-seal them
// (Refresh) while every process keeps reading them.
func FromMasterKeys(current []byte, previous ...[]byte) (*Vault, error) {
	v := &Vault{current: 1, aeads: map[int][]cipher.AEAD{}}
	for _, m := range append([][]byte{current}, previous...) {
		if len(m) != KeySize {
			return nil, errs.Ef(errs.Invalid, "the master key must be %d bytes", KeySize)
		}
		aead, err := newAEAD(DeriveKey(m, PurposeVault))
		if err != nil {
			return nil, err
		}
		v.aeads[1] = append(v.aeads[1], aead)
	}
	return v, nil
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
	ct := v.aeads[v.current][0].Seal(nil, nonce, plaintext, b.aad(v.current))
	return Sealed{Ciphertext: ct, Nonce: nonce, KeyVersion: v.current}, nil
}

// Open decrypts s for binding b. Any tampering — a changed byte of the
// ciphertext or nonce, another binding, another key version — is an error,
// never garbage plaintext. The error says nothing about the secret.
func (v *Vault) Open(b Binding, s Sealed) ([]byte, error) {
	pt, _, err := v.open(b, s)
	return pt, err
}

// open also reports whether the key that opened s is the one Seal uses.
func (v *Vault) open(b Binding, s Sealed) (pt []byte, primary bool, err error) {
	if err := b.validate(); err != nil {
		return nil, false, err
	}
	aeads, ok := v.aeads[s.KeyVersion]
	if !ok {
		return nil, false, errs.Ef(errs.Internal, "cannot decrypt the secret: unknown key version %d", s.KeyVersion)
	}
	if len(s.Nonce) != NonceSize {
		return nil, false, errs.E(errs.Internal, "cannot decrypt the secret: malformed nonce")
	}
	for i, aead := range aeads {
		if pt, err = aead.Open(nil, s.Nonce, s.Ciphertext, b.aad(s.KeyVersion)); err == nil {
			return pt, s.KeyVersion == v.current && i == 0, nil
		}
	}
	return nil, false, errs.Wrap(errs.Internal, err, "cannot decrypt the secret")
}

// NeedsReseal reports whether s was sealed under an older key version and
// should be re-sealed (Reseal) as part of a rotation. Within a version
// (a rotated master key) only Refresh can tell.
func (v *Vault) NeedsReseal(s Sealed) bool { return s.KeyVersion != v.current }

// Refresh returns s re-sealed under the key Seal uses when it was sealed
// under another one (changed true), or s itself (changed false). It is the
// step of a master-key rotation, and idempotent: a refreshed secret is
// left alone the next time.
func (v *Vault) Refresh(b Binding, s Sealed) (_ Sealed, changed bool, _ error) {
	pt, primary, err := v.open(b, s)
	if err != nil {
		return Sealed{}, false, err
	}
	defer clear(pt)
	if primary {
		return s, false, nil
	}
	ns, err := v.Seal(b, pt)
	return ns, err == nil, err
}

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
