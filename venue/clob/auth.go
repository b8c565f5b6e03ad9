package clob

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"math/big"
	"net/http"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agent-trading/ats/venue"
)

// Header names of L1 and L2 authentication. http.Header canonicalises them
// ("Poly_address"); HTTP header names are case-insensitive on the wire.
const (
	HeaderAddress    = "POLY_ADDRESS"
	HeaderSignature  = "POLY_SIGNATURE"
	HeaderTimestamp  = "POLY_TIMESTAMP"
	HeaderNonce      = "POLY_NONCE"
	HeaderAPIKey     = "POLY_API_KEY"
	HeaderPassphrase = "POLY_PASSPHRASE"
)

// ClobAuthMessage is the fixed attestation signed in L1 authentication.
const ClobAuthMessage = "This message attests that I control the given wallet"

var (
	clobAuthDomainTypehash = crypto.Keccak256Hash([]byte("EIP712Domain(string name,string version,uint256 chainId)"))
	clobAuthTypehash       = crypto.Keccak256Hash([]byte("ClobAuth(address address,string timestamp,uint256 nonce,string message)"))
	clobAuthMessageHash    = crypto.Keccak256Hash([]byte(ClobAuthMessage))
)

// ClobAuthDomainSeparator is the separator of {name: "ClobAuthDomain",
// version: "1", chainId} (no verifying contract).
func ClobAuthDomainSeparator(chainID int64) common.Hash {
	var buf [4 * 32]byte
	copy(buf[0:32], clobAuthDomainTypehash[:])
	copy(buf[32:64], crypto.Keccak256([]byte("ClobAuthDomain")))
	copy(buf[64:96], crypto.Keccak256([]byte("1")))
	big.NewInt(chainID).FillBytes(buf[96:128])
	return crypto.Keccak256Hash(buf[:])
}

// ClobAuthDigest is the EIP-712 digest an L1 header signature covers. ts is
// unix seconds, signed as its decimal string.
func ClobAuthDigest(chainID int64, addr common.Address, ts int64, nonce uint64) common.Hash {
	var buf [5 * 32]byte
	copy(buf[0:32], clobAuthTypehash[:])
	copy(buf[32+12:64], addr[:])
	copy(buf[64:96], crypto.Keccak256([]byte(strconv.FormatInt(ts, 10))))
	new(big.Int).SetUint64(nonce).FillBytes(buf[96:128])
	copy(buf[128:160], clobAuthMessageHash[:])
	return typedDataDigest(ClobAuthDomainSeparator(chainID), crypto.Keccak256Hash(buf[:]))
}

// L1Headers builds the ClobAuth headers (POLY_ADDRESS, POLY_SIGNATURE,
// POLY_TIMESTAMP, POLY_NONCE) used to create or derive API keys.
func L1Headers(ctx context.Context, s OrderSigner, chainID int64, ts int64, nonce uint64) (http.Header, error) {
	addr := s.Address()
	sig, err := s.SignTypedDataHash(ctx, ClobAuthDigest(chainID, addr, ts, nonce))
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set(HeaderAddress, addr.Hex())
	h.Set(HeaderSignature, "0x"+common.Bytes2Hex(sig))
	h.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	h.Set(HeaderNonce, strconv.FormatUint(nonce, 10))
	return h, nil
}

func errL1() *venue.Error {
	return venue.E(venue.Unauthorized, "Invalid L1 Request headers").WithCode("invalid_l1_headers")
}

// VerifyL1 checks ClobAuth headers for chainID and returns the proven
// address, nonce (0 when POLY_NONCE is absent, as the venue defaults it) and
// timestamp. Timestamp freshness is the caller's policy. Errors are
// Unauthorized with the venue's message.
func VerifyL1(h http.Header, chainID int64) (addr common.Address, nonce uint64, ts int64, err error) {
	a := h.Get(HeaderAddress)
	if !common.IsHexAddress(a) {
		return common.Address{}, 0, 0, errL1()
	}
	addr = common.HexToAddress(a)
	ts, perr := strconv.ParseInt(h.Get(HeaderTimestamp), 10, 64)
	if perr != nil || ts < 0 {
		return common.Address{}, 0, 0, errL1()
	}
	if n := h.Get(HeaderNonce); n != "" {
		if nonce, perr = strconv.ParseUint(n, 10, 64); perr != nil {
			return common.Address{}, 0, 0, errL1()
		}
	}
	sig, perr := decodeHex(h.Get(HeaderSignature))
	if perr != nil {
		return common.Address{}, 0, 0, errL1()
	}
	got, rerr := RecoverDigest(ClobAuthDigest(chainID, addr, ts, nonce), sig)
	if rerr != nil || got != addr {
		return common.Address{}, 0, 0, errL1().WithCause(rerr)
	}
	return addr, nonce, ts, nil
}

// Creds are L2 API credentials. Secret and Passphrase are secrets: String,
// GoString and LogValue redact them, so a Creds printed or logged by mistake
// leaks only the key id.
type Creds struct {
	Key        string
	Secret     string
	Passphrase string
}

// String redacts the secret parts.
func (c Creds) String() string {
	return "Creds{Key:" + c.Key + " Secret:[REDACTED] Passphrase:[REDACTED]}"
}

// GoString redacts the secret parts (%#v).
func (c Creds) GoString() string { return c.String() }

// LogValue implements slog.LogValuer with the secret parts redacted.
func (c Creds) LogValue() slog.Value {
	return slog.GroupValue(slog.String("key", c.Key), slog.String("secret", "[REDACTED]"), slog.String("passphrase", "[REDACTED]"))
}

// redacted is what secret fields render as.
const redacted = "[REDACTED]"

// MarshalJSON redacts Secret and Passphrase, so credentials cannot leak
// through an API response or a Temporal payload. Persist credentials field
// by field (encrypted), never by marshalling a Creds.
func (c Creds) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Key        string `json:"key"`
		Secret     string `json:"secret"`
		Passphrase string `json:"passphrase"`
	}{c.Key, redacted, redacted})
}

// decodeSecret implements the V2 client's secret decoding: URL-safe
// alphabet mapped to the standard one, re-padded with '=', then decoded.
func decodeSecret(secret string) ([]byte, error) {
	if secret == "" {
		return nil, venue.E(venue.Unauthorized, "API secret is empty").WithCode("empty_secret")
	}
	s := strings.NewReplacer("-", "+", "_", "/").Replace(secret)
	s = strings.TrimRight(s, "=")
	if m := len(s) % 4; m != 0 {
		s += strings.Repeat("=", 4-m)
	}
	key, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, venue.E(venue.Unauthorized, "API secret is not valid base64").WithCode("invalid_secret")
	}
	return key, nil
}

// L2Signature is the HMAC of ts+method+requestPath+body under the decoded
// secret, in URL-safe base64 with padding. requestPath excludes the query.
func L2Signature(secret string, ts int64, method, requestPath string, body []byte) (string, error) {
	key, err := decodeSecret(secret)
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(strconv.FormatInt(ts, 10)))
	m.Write([]byte(method))
	m.Write([]byte(requestPath))
	m.Write(body)
	return base64.URLEncoding.EncodeToString(m.Sum(nil)), nil
}

// L2Headers builds the five L2 headers for a request. address is the EOA
// of the API key (never the funder).
func L2Headers(c Creds, address common.Address, ts int64, method, requestPath string, body []byte) (http.Header, error) {
	sig, err := L2Signature(c.Secret, ts, method, requestPath, body)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set(HeaderAddress, address.Hex())
	h.Set(HeaderSignature, sig)
	h.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	h.Set(HeaderAPIKey, c.Key)
	h.Set(HeaderPassphrase, c.Passphrase)
	return h, nil
}

// L2Request is what VerifyL2 extracts from a request's headers.
type L2Request struct {
	Address   common.Address
	APIKey    string
	Timestamp int64
}

// ParseL2 reads the non-secret L2 headers so a server can look up the
// credentials of APIKey before calling VerifyL2.
func ParseL2(h http.Header) (L2Request, error) {
	bad := venue.E(venue.Unauthorized, "Unauthorized/Invalid api key").WithCode("invalid_api_key")
	a := h.Get(HeaderAddress)
	key := h.Get(HeaderAPIKey)
	if !common.IsHexAddress(a) || key == "" || h.Get(HeaderSignature) == "" {
		return L2Request{}, bad
	}
	ts, err := strconv.ParseInt(h.Get(HeaderTimestamp), 10, 64)
	if err != nil || ts < 0 {
		return L2Request{}, bad
	}
	return L2Request{Address: common.HexToAddress(a), APIKey: key, Timestamp: ts}, nil
}

// VerifyL2 checks L2 headers against the key's credentials: key and
// passphrase match and the HMAC covers method, requestPath (no query) and
// the exact body bytes. Comparisons are constant-time. The caller checks
// that the returned address owns the key and the timestamp is fresh.
func VerifyL2(h http.Header, c Creds, method, requestPath string, body []byte) (L2Request, error) {
	bad := venue.E(venue.Unauthorized, "Unauthorized/Invalid api key").WithCode("invalid_api_key")
	r, err := ParseL2(h)
	if err != nil {
		return L2Request{}, err
	}
	if subtle.ConstantTimeCompare([]byte(r.APIKey), []byte(c.Key)) != 1 ||
		subtle.ConstantTimeCompare([]byte(h.Get(HeaderPassphrase)), []byte(c.Passphrase)) != 1 {
		return L2Request{}, bad
	}
	want, err := L2Signature(c.Secret, r.Timestamp, method, requestPath, body)
	if err != nil {
		return L2Request{}, bad.WithCause(err)
	}
	if !hmac.Equal([]byte(want), []byte(h.Get(HeaderSignature))) {
		return L2Request{}, bad
	}
	return r, nil
}
