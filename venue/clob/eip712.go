package clob

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/binary"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/network"
)

// Exchange EIP-712 constants (clob-v2 §3).
const (
	// ExchangeDomainName is the EIP-712 domain name of every CTF exchange.
	ExchangeDomainName = "Polymarket CTF Exchange"
	// DomainVersionV2 is the domain version of the CLOB V2 exchanges.
	DomainVersionV2 = "2"
	// DomainVersionV3 is the domain version of ExchangeV3 ("Protocol V2").
	DomainVersionV3 = "3"
	// OrderTypeString is the EIP-712 encodeType of the V2 order (186 bytes).
	OrderTypeString = "Order(uint256 salt,address maker,address signer,uint256 tokenId,uint256 makerAmount,uint256 takerAmount,uint8 side,uint8 signatureType,uint256 timestamp,bytes32 metadata,bytes32 builder)"
	// typedDataSignTypeString is the ERC-7739 wrapper type for POLY_1271.
	typedDataSignTypeString = "TypedDataSign(Order contents,string name,string version,uint256 chainId,address verifyingContract,bytes32 salt)" + OrderTypeString
	// DepositWalletName and DepositWalletVersion are the deposit wallet's
	// own EIP-712 name/version, which the ERC-7739 wrapper signs over.
	DepositWalletName    = "DepositWallet"
	DepositWalletVersion = "1"
	// Poly1271SignatureLen is the length of a type-3 wrapped signature:
	// 65 + 32 + 32 + 186 + 2.
	Poly1271SignatureLen = 65 + 32 + 32 + len(OrderTypeString) + 2
)

var (
	eip712DomainTypehash  = crypto.Keccak256Hash([]byte("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"))
	orderTypehash         = crypto.Keccak256Hash([]byte(OrderTypeString))
	typedDataSignTypehash = crypto.Keccak256Hash([]byte(typedDataSignTypeString))
	depositWalletNameHash = crypto.Keccak256Hash([]byte(DepositWalletName))
	depositWalletVerHash  = crypto.Keccak256Hash([]byte(DepositWalletVersion))
)

// OrderTypehash returns keccak256(OrderTypeString).
func OrderTypehash() common.Hash { return orderTypehash }

// EIP712Domain is an exchange EIP-712 domain with its separator computed once.
type EIP712Domain struct {
	Name              string
	Version           string
	ChainID           int64
	VerifyingContract common.Address
	separator         common.Hash
}

// Domain returns the exchange domain for chainID, contract and version
// ("2" for the CLOB V2 exchanges, "3" for ExchangeV3).
func Domain(chainID int64, verifyingContract common.Address, version string) EIP712Domain {
	d := EIP712Domain{Name: ExchangeDomainName, Version: version, ChainID: chainID, VerifyingContract: verifyingContract}
	var buf [5 * 32]byte
	copy(buf[0:32], eip712DomainTypehash[:])
	copy(buf[32:64], crypto.Keccak256([]byte(d.Name)))
	copy(buf[64:96], crypto.Keccak256([]byte(d.Version)))
	big.NewInt(chainID).FillBytes(buf[96:128])
	copy(buf[128+12:160], verifyingContract[:])
	d.separator = crypto.Keccak256Hash(buf[:])
	return d
}

// NetworkDomain is the V2 exchange domain that verifies orders of a market
// on network n (the neg-risk exchange for neg-risk markets).
func NetworkDomain(n network.Network, negRisk bool) EIP712Domain {
	return Domain(n.ChainID, n.ExchangeFor(negRisk), DomainVersionV2)
}

// Separator returns the EIP-712 domain separator.
func (d EIP712Domain) Separator() common.Hash {
	if d.separator == (common.Hash{}) {
		return Domain(d.ChainID, d.VerifyingContract, d.Version).separator
	}
	return d.separator
}

func putUint(dst []byte, x *big.Int) error {
	if x == nil {
		return nil // the buffer is already zero
	}
	if x.Sign() < 0 || x.BitLen() > 256 {
		return fmt.Errorf("clob: value out of uint256 range")
	}
	x.FillBytes(dst)
	return nil
}

// StructHash is the EIP-712 hashStruct of the order (the "contents hash").
func (o Order) StructHash() (common.Hash, error) {
	var buf [12 * 32]byte
	copy(buf[0:32], orderTypehash[:])
	binary.BigEndian.PutUint64(buf[32+24:64], o.Salt)
	copy(buf[64+12:96], o.Maker[:])
	copy(buf[96+12:128], o.Signer[:])
	for i, x := range []*big.Int{o.TokenID, o.MakerAmount, o.TakerAmount} {
		if err := putUint(buf[128+32*i:160+32*i], x); err != nil {
			return common.Hash{}, venue.E(venue.Invalid, "Invalid order payload: amount or token id out of range").WithCode("invalid_order_payload")
		}
	}
	buf[255] = byte(o.Side)
	buf[287] = o.SignatureType
	binary.BigEndian.PutUint64(buf[288+24:320], o.Timestamp)
	copy(buf[320:352], o.Metadata[:])
	copy(buf[352:384], o.Builder[:])
	return crypto.Keccak256Hash(buf[:]), nil
}

func typedDataDigest(sep, structHash common.Hash) common.Hash {
	var buf [66]byte
	buf[0], buf[1] = 0x19, 0x01
	copy(buf[2:34], sep[:])
	copy(buf[34:66], structHash[:])
	return crypto.Keccak256Hash(buf[:])
}

// OrderHash is the EIP-712 digest of the order under d: the venue's orderID.
func OrderHash(o Order, d EIP712Domain) (common.Hash, error) {
	sh, err := o.StructHash()
	if err != nil {
		return common.Hash{}, err
	}
	return typedDataDigest(d.Separator(), sh), nil
}

// TypedDataSignDigest is the digest the deposit wallet's owner signs for a
// POLY_1271 order (ERC-7739 TypedDataSign under the exchange domain, with
// the wallet, o.Signer, as the inner verifying contract).
func TypedDataSignDigest(o Order, d EIP712Domain) (common.Hash, error) {
	sh, err := o.StructHash()
	if err != nil {
		return common.Hash{}, err
	}
	return typedDataSignDigest(sh, o.Signer, d), nil
}

func typedDataSignDigest(contents common.Hash, wallet common.Address, d EIP712Domain) common.Hash {
	var buf [7 * 32]byte
	copy(buf[0:32], typedDataSignTypehash[:])
	copy(buf[32:64], contents[:])
	copy(buf[64:96], depositWalletNameHash[:])
	copy(buf[96:128], depositWalletVerHash[:])
	big.NewInt(d.ChainID).FillBytes(buf[128:160])
	copy(buf[160+12:192], wallet[:])
	// salt: bytes32 zero
	return typedDataDigest(d.Separator(), crypto.Keccak256Hash(buf[:]))
}

// OrderSigner signs EIP-712 digests for one address. Implementations keep
// the private key (or a handle to it) inside SignTypedDataHash so the key is
// decrypted only for the duration of a signing call.
type OrderSigner interface {
	// Address is the EOA whose key signs.
	Address() common.Address
	// SignTypedDataHash returns a 65-byte r‖s‖v signature (v = 27/28) of digest.
	SignTypedDataHash(ctx context.Context, digest common.Hash) ([]byte, error)
}

// KeySigner is an OrderSigner over an in-memory private key. Its String
// never reveals the key.
type KeySigner struct {
	key  *ecdsa.PrivateKey
	addr common.Address
}

// NewKeySigner wraps key.
func NewKeySigner(key *ecdsa.PrivateKey) *KeySigner {
	return &KeySigner{key: key, addr: crypto.PubkeyToAddress(key.PublicKey)}
}

// Address implements OrderSigner.
func (s *KeySigner) Address() common.Address { return s.addr }

// SignTypedDataHash implements OrderSigner.
func (s *KeySigner) SignTypedDataHash(_ context.Context, digest common.Hash) ([]byte, error) {
	return SignDigest(digest, s.key)
}

// String identifies the signer by address only.
func (s *KeySigner) String() string { return "KeySigner(" + s.addr.Hex() + ")" }

// GoString keeps %#v from printing the key.
func (s *KeySigner) GoString() string { return s.String() }

// SignDigest signs a 32-byte digest with key, returning r‖s‖v with v = 27/28
// as ethers/viem do.
func SignDigest(digest common.Hash, key *ecdsa.PrivateKey) ([]byte, error) {
	sig, err := crypto.Sign(digest[:], key)
	if err != nil {
		return nil, venue.Wrap(venue.Internal, err, "signing failed")
	}
	sig[64] += 27
	return sig, nil
}

// RecoverDigest returns the address whose key produced sig (r‖s‖v, v = 27/28
// or 0/1) over digest. High-s signatures are rejected, as OpenZeppelin's
// ECDSA.recover on the exchange does.
func RecoverDigest(digest common.Hash, sig []byte) (common.Address, error) {
	if len(sig) != 65 {
		return common.Address{}, errInvalidSignature("signature must be 65 bytes")
	}
	s := make([]byte, 65)
	copy(s, sig)
	if s[64] >= 27 {
		s[64] -= 27
	}
	if s[64] > 1 {
		return common.Address{}, errInvalidSignature("bad recovery id")
	}
	r, ss := new(big.Int).SetBytes(s[:32]), new(big.Int).SetBytes(s[32:64])
	if !crypto.ValidateSignatureValues(s[64], r, ss, true) {
		return common.Address{}, errInvalidSignature("bad signature values")
	}
	pub, err := crypto.SigToPub(digest[:], s)
	if err != nil {
		return common.Address{}, errInvalidSignature("unrecoverable signature")
	}
	return crypto.PubkeyToAddress(*pub), nil
}

func errInvalidSignature(why string) error {
	return venue.E(venue.Rejected, "invalid signature").WithCode("invalid_signature").WithCause(fmt.Errorf("%s", why))
}

// SignOrder signs o in place with key under d (see SignOrderWith).
func SignOrder(o *Order, key *ecdsa.PrivateKey, d EIP712Domain) error {
	return SignOrderWith(context.Background(), o, NewKeySigner(key), d)
}

// SignOrderWith signs o in place. For signature types 0–2 o.Signer must be
// the signer's address; for POLY_1271 o.Signer must equal o.Maker (the
// deposit wallet) and the EOA's ERC-7739 TypedDataSign signature is wrapped
// into the 317-byte form the wallet's isValidSignature expects.
func SignOrderWith(ctx context.Context, o *Order, s OrderSigner, d EIP712Domain) error {
	if !o.Side.Valid() {
		return venue.E(venue.Invalid, "invalid side").WithCode("invalid_side")
	}
	sh, err := o.StructHash()
	if err != nil {
		return err
	}
	switch o.SignatureType {
	case SigEOA, SigPolyProxy, SigGnosisSafe:
		if o.Signer != s.Address() {
			return venue.E(venue.Invalid, "signer does not match").WithCode("signer_mismatch")
		}
		sig, err := s.SignTypedDataHash(ctx, typedDataDigest(d.Separator(), sh))
		if err != nil {
			return err
		}
		o.Signature = sig
	case SigPoly1271:
		if o.Signer != o.Maker {
			return venue.E(venue.Invalid, "POLY_1271 orders must have signer = maker (the deposit wallet)").WithCode("signer_mismatch")
		}
		inner, err := s.SignTypedDataHash(ctx, typedDataSignDigest(sh, o.Signer, d))
		if err != nil {
			return err
		}
		o.Signature = wrapPoly1271(inner, d.Separator(), sh)
	default:
		return venue.Ef(venue.Invalid, "unsupported signature type %d", o.SignatureType).WithCode("invalid_signature_type")
	}
	return nil
}

func wrapPoly1271(inner []byte, appDomainSep, contents common.Hash) []byte {
	out := make([]byte, 0, Poly1271SignatureLen)
	out = append(out, inner...)
	out = append(out, appDomainSep[:]...)
	out = append(out, contents[:]...)
	out = append(out, OrderTypeString...)
	return binary.BigEndian.AppendUint16(out, uint16(len(OrderTypeString)))
}

// Poly1271Parts is a parsed POLY_1271 (ERC-7739) signature.
type Poly1271Parts struct {
	Inner        []byte      // 65-byte ECDSA signature of the wallet owner
	AppDomainSep common.Hash // must be the exchange domain separator
	ContentsHash common.Hash // must be the order struct hash
	ContentsType string      // must be OrderTypeString
}

// ParsePoly1271 splits a wrapped signature into its parts, checking only the
// framing (lengths).
func ParsePoly1271(sig []byte) (Poly1271Parts, error) {
	if len(sig) < 65+64+2 {
		return Poly1271Parts{}, errInvalidSignature("POLY_1271 signature too short")
	}
	n := int(binary.BigEndian.Uint16(sig[len(sig)-2:]))
	if len(sig) != 65+64+n+2 {
		return Poly1271Parts{}, errInvalidSignature("POLY_1271 signature length mismatch")
	}
	return Poly1271Parts{
		Inner:        bytes.Clone(sig[:65]),
		AppDomainSep: common.BytesToHash(sig[65:97]),
		ContentsHash: common.BytesToHash(sig[97:129]),
		ContentsType: string(sig[129 : 129+n]),
	}, nil
}

// RecoverOrderSigner returns the EOA that signed o under d. For types 0–2
// that is ecrecover over the order hash; for POLY_1271 it unwraps the
// ERC-7739 envelope, checks that it commits to this exchange domain, this
// order and the V2 order type, and recovers the wallet owner's EOA. It does
// not check maker/signer relationships (proxy, Safe, wallet ownership),
// which need chain state; callers do that. Errors are Rejected with
// code invalid_signature.
func RecoverOrderSigner(o Order, d EIP712Domain) (common.Address, error) {
	sh, err := o.StructHash()
	if err != nil {
		return common.Address{}, err
	}
	switch o.SignatureType {
	case SigEOA, SigPolyProxy, SigGnosisSafe:
		return RecoverDigest(typedDataDigest(d.Separator(), sh), o.Signature)
	case SigPoly1271:
		p, err := ParsePoly1271(o.Signature)
		if err != nil {
			return common.Address{}, err
		}
		if p.AppDomainSep != d.Separator() {
			return common.Address{}, errInvalidSignature("POLY_1271 app domain separator mismatch")
		}
		if p.ContentsHash != sh {
			return common.Address{}, errInvalidSignature("POLY_1271 contents hash mismatch")
		}
		if p.ContentsType != OrderTypeString {
			return common.Address{}, errInvalidSignature("POLY_1271 contents type mismatch")
		}
		return RecoverDigest(typedDataSignDigest(sh, o.Signer, d), p.Inner)
	}
	return common.Address{}, venue.Ef(venue.Invalid, "unsupported signature type %d", o.SignatureType).WithCode("invalid_signature_type")
}

// VerifyOrderSignature checks that o carries a valid signature by its own
// Signer field for types 0–2 (recovered == o.Signer), or, for POLY_1271,
// that the wrapper is well formed and signed by walletOwner (the EOA that
// controls the deposit wallet o.Signer; pass the zero address to skip the
// ownership comparison and get the recovered EOA back). It returns the EOA.
func VerifyOrderSignature(o Order, d EIP712Domain, walletOwner common.Address) (common.Address, error) {
	eoa, err := RecoverOrderSigner(o, d)
	if err != nil {
		return common.Address{}, err
	}
	switch o.SignatureType {
	case SigPoly1271:
		if o.Signer != o.Maker {
			return common.Address{}, errInvalidSignature("POLY_1271 signer must equal maker")
		}
		if walletOwner != (common.Address{}) && eoa != walletOwner {
			return common.Address{}, errInvalidSignature("POLY_1271 inner signer is not the wallet owner")
		}
	default:
		if eoa != o.Signer {
			return common.Address{}, errInvalidSignature("recovered signer differs from order signer")
		}
		if o.SignatureType == SigEOA && o.Maker != o.Signer {
			return common.Address{}, errInvalidSignature("EOA orders must have maker = signer")
		}
	}
	return eoa, nil
}
