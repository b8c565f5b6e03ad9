package wallets

import (
	"context"
	"crypto/ecdsa"
	"math/big"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	decredecdsa "github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/vault"
	"github.com/agent-trading/ats/venue/chain"
	"github.com/agent-trading/ats/venue/clob"
)

// Signer signs orders, L1 headers, Safe transactions and chain
// transactions for one wallet. It is both a clob.OrderSigner and a
// chain.Signer.
//
// It holds no key material: every signature reloads the wallet row, opens
// the sealed key, signs and wipes the plaintext before returning. So a
// deleted or replaced wallet stops signing at once (Conflict,
// "wallet_changed"), and a Signer that outlives its use (in a cache, a
// closure, a log line) exposes nothing.
type Signer struct {
	svc      *Service
	userID   string
	walletID string
	addr     common.Address
}

var (
	_ clob.OrderSigner = (*Signer)(nil)
	_ chain.Signer     = (*Signer)(nil)
)

func (s *Service) signerFor(w *models.Wallet) *Signer {
	return &Signer{svc: s, userID: w.UserID, walletID: w.ID, addr: common.HexToAddress(w.EOAAddress)}
}

// Signer returns the signer of userID's current wallet.
func (s *Service) Signer(ctx context.Context, userID string) (*Signer, error) {
	w, err := s.walletRow(ctx, userID)
	if err != nil {
		return nil, err
	}
	return s.signerFor(w), nil
}

// Address is the EOA that signs.
func (g *Signer) Address() common.Address { return g.addr }

// String names the signer by address only.
func (g *Signer) String() string { return "wallets.Signer(" + g.addr.Hex() + ")" }

// GoString keeps %#v from printing the service it points to.
func (g *Signer) GoString() string { return g.String() }

// withKey opens the wallet's key for the duration of fn. The key is held
// as a fixed-size secp256k1 scalar (decred's, the one go-ethereum signs
// with when built without cgo), which Zero really overwrites: an
// ecdsa.PrivateKey would hold it in a big.Int whose words survive
// SetInt64(0), and go-ethereum's crypto.Sign copies it once more through
// D.Bytes() without wiping the copy.
func (g *Signer) withKey(ctx context.Context, fn func(*secp256k1.PrivateKey) error) error {
	w, err := g.svc.Store.WalletByUser(ctx, g.userID)
	if errs.Is(err, errs.NotFound) || (err == nil && w.ID != g.walletID) {
		return errs.E(errs.Conflict, "the wallet was replaced or removed; retry with the current wallet").
			WithCode(errs.CodeWalletChanged)
	}
	if err != nil {
		return err
	}
	raw, err := g.svc.Vault.Open(vault.WalletKey(g.userID, w.ID),
		vault.Sealed{Ciphertext: w.KeyCiphertext, Nonce: w.KeyNonce, KeyVersion: w.KeyVersion})
	if err != nil {
		return err
	}
	var key secp256k1.PrivateKey
	overflow := len(raw) != 32 || key.Key.SetByteSlice(raw)
	clear(raw)
	defer key.Zero()
	if overflow || key.Key.IsZero() {
		return errs.E(errs.Internal, "the stored wallet key is corrupt")
	}
	pub := key.PubKey().SerializeUncompressed()
	if common.BytesToAddress(crypto.Keccak256(pub[1:])[12:]) != g.addr {
		return errs.E(errs.Internal, "the stored wallet key does not match the wallet address")
	}
	return fn(&key)
}

// zeroKey overwrites an ecdsa key's private scalar (import and demo
// seeding, where go-ethereum hands one out): the big.Int's words
// themselves, since SetInt64(0) only shortens the slice and leaves them in
// memory, then the value.
func zeroKey(k *ecdsa.PrivateKey) {
	if k != nil && k.D != nil {
		clear(k.D.Bits())
		k.D.SetInt64(0)
	}
}

// signDigest returns r‖s‖v with v in {27, 28}.
func signDigest(key *secp256k1.PrivateKey, digest []byte) ([]byte, error) {
	if len(digest) != 32 {
		return nil, errs.Ef(errs.Internal, "sign: digest is %d bytes, want 32", len(digest))
	}
	// [27+recovery id, R, S] for an uncompressed public key.
	compact := decredecdsa.SignCompact(key, digest, false)
	sig := make([]byte, 65)
	copy(sig, compact[1:])
	sig[64] = compact[0]
	return sig, nil
}

// SignTypedDataHash implements clob.OrderSigner.
func (g *Signer) SignTypedDataHash(ctx context.Context, digest common.Hash) ([]byte, error) {
	return g.SignHash(ctx, digest.Bytes())
}

// SignHash implements chain.Signer.
func (g *Signer) SignHash(ctx context.Context, hash []byte) ([]byte, error) {
	var sig []byte
	err := g.withKey(ctx, func(k *secp256k1.PrivateKey) (err error) {
		sig, err = signDigest(k, hash)
		return err
	})
	return sig, err
}

// SignTx implements chain.Signer.
func (g *Signer) SignTx(ctx context.Context, tx *types.Transaction, chainID *big.Int) (*types.Transaction, error) {
	var signed *types.Transaction
	err := g.withKey(ctx, func(k *secp256k1.PrivateKey) (err error) {
		signed, err = signTx(k, tx, chainID)
		return err
	})
	return signed, err
}

// signTx is types.SignTx with the signature made by signDigest.
func signTx(k *secp256k1.PrivateKey, tx *types.Transaction, chainID *big.Int) (*types.Transaction, error) {
	signer := types.LatestSignerForChainID(chainID)
	h := signer.Hash(tx)
	sig, err := signDigest(k, h[:])
	if err != nil {
		return nil, err
	}
	sig[64] -= 27 // types wants the recovery id
	signed, err := tx.WithSignature(signer, sig)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, err, "sign transaction")
	}
	return signed, nil
}
