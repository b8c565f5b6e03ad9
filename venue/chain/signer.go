package chain

import (
	"context"
	"crypto/ecdsa"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agent-trading/ats/venue"
)

// Signer signs for one EOA. Implementations keep the key to themselves —
// production ones decrypt it only for the duration of a call — so the chain
// client never holds key material.
type Signer interface {
	// Address is the EOA the signer signs for.
	Address() common.Address
	// SignHash signs a 32-byte digest and returns r‖s‖v with v in {27, 28},
	// the form contracts (Safe, ERC-1271) verify.
	SignHash(ctx context.Context, hash []byte) ([]byte, error)
	// SignTx signs a transaction for chainID.
	SignTx(ctx context.Context, tx *types.Transaction, chainID *big.Int) (*types.Transaction, error)
}

// KeySigner is a Signer over an in-memory private key, for tests, the demo
// and the sandbox's own accounts. Its String and GoString never reveal the
// key, so it is safe to end up in a log line by accident.
type KeySigner struct {
	key  *ecdsa.PrivateKey
	addr common.Address
}

// NewKeySigner wraps key.
func NewKeySigner(key *ecdsa.PrivateKey) *KeySigner {
	return &KeySigner{key: key, addr: crypto.PubkeyToAddress(key.PublicKey)}
}

// KeySignerFromHex parses a hex private key (with or without 0x). The error
// never contains the input.
func KeySignerFromHex(hexKey string) (*KeySigner, error) {
	if len(hexKey) >= 2 && hexKey[0] == '0' && (hexKey[1] == 'x' || hexKey[1] == 'X') {
		hexKey = hexKey[2:]
	}
	key, err := crypto.HexToECDSA(hexKey)
	if err != nil {
		return nil, venue.E(venue.Invalid, "the private key is not a valid secp256k1 key")
	}
	return NewKeySigner(key), nil
}

// Address implements Signer.
func (s *KeySigner) Address() common.Address { return s.addr }

// SignHash implements Signer.
func (s *KeySigner) SignHash(_ context.Context, hash []byte) ([]byte, error) {
	if len(hash) != 32 {
		return nil, venue.Ef(venue.Internal, "sign: digest is %d bytes, want 32", len(hash))
	}
	sig, err := crypto.Sign(hash, s.key)
	if err != nil {
		return nil, venue.Wrap(venue.Internal, err, "sign digest")
	}
	sig[64] += 27
	return sig, nil
}

// SignTx implements Signer.
func (s *KeySigner) SignTx(_ context.Context, tx *types.Transaction, chainID *big.Int) (*types.Transaction, error) {
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(chainID), s.key)
	if err != nil {
		return nil, venue.Wrap(venue.Internal, err, "sign transaction")
	}
	return signed, nil
}

// String names the signer by address only.
func (s *KeySigner) String() string { return "KeySigner(" + s.addr.Hex() + ")" }

// GoString keeps %#v from dumping the key.
func (s *KeySigner) GoString() string { return s.String() }
