// Package secret generates and checks the service's credentials: agent API
// keys (high-entropy bearer tokens stored as SHA-256 hashes) and user
// passwords (argon2id).
package secret

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"io"
)

// API key shape: "ll_" followed by 64 characters from [A-Za-z0-9].
const (
	APIKeyPrefix     = "ll_"
	apiKeyRandomLen  = 64
	APIKeyLen        = len(APIKeyPrefix) + apiKeyRandomLen
	apiKeyAlphabet   = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	displayPrefixLen = 4
)

// NewAPIKey returns a fresh key, the hash to store (HashAPIKey) and a display
// prefix ("ll_AbCd…") safe to show in dashboards and logs. The plaintext is
// shown to the agent once and never stored.
func NewAPIKey() (plaintext, hash, displayPrefix string) {
	plaintext = newAPIKey(rand.Reader)
	return plaintext, HashAPIKey(plaintext), DisplayPrefix(plaintext)
}

// newAPIKey draws the 64 characters by rejection sampling: a byte is used
// only when below 248 (the largest multiple of 62 that fits), so every
// character is exactly uniform — 64 × log2(62) ≈ 381 bits of entropy.
func newAPIKey(r io.Reader) string {
	const n = len(apiKeyAlphabet)
	const limit = 256 - 256%n
	out := make([]byte, 0, APIKeyLen)
	out = append(out, APIKeyPrefix...)
	buf := make([]byte, 2*apiKeyRandomLen)
	for len(out) < APIKeyLen {
		if _, err := io.ReadFull(r, buf); err != nil {
			// crypto/rand.Reader does not fail on supported platforms; a
			// key from a failed reader must never be issued.
			panic("secret: random source failed: " + err.Error())
		}
		for _, b := range buf {
			if int(b) >= limit {
				continue
			}
			out = append(out, apiKeyAlphabet[int(b)%n])
			if len(out) == APIKeyLen {
				break
			}
		}
	}
	return string(out)
}

// HashAPIKey is the stored form of a key: lowercase hex SHA-256. A fast
// unsalted hash is right here — unlike passwords, keys carry ~381 bits of
// entropy, so brute force is hopeless and the hash must support lookup.
func HashAPIKey(plaintext string) string {
	sum := sha256.Sum256([]byte(plaintext))
	return hex.EncodeToString(sum[:])
}

// DisplayPrefix is the human-recognisable stub of a key: the "ll_" prefix,
// its first 4 random characters and an ellipsis. It reveals 24 of 381 bits.
func DisplayPrefix(plaintext string) string {
	end := len(APIKeyPrefix) + displayPrefixLen
	if len(plaintext) < end {
		end = len(plaintext)
	}
	return plaintext[:end] + "…"
}

// ValidAPIKeyFormat reports whether s looks like an API key (prefix, length,
// alphabet), so malformed bearer tokens are rejected without a database
// lookup.
func ValidAPIKeyFormat(s string) bool {
	if len(s) != APIKeyLen || s[:len(APIKeyPrefix)] != APIKeyPrefix {
		return false
	}
	for i := len(APIKeyPrefix); i < len(s); i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// Equal compares two secrets (hashes, codes) in time independent of where
// they differ.
func Equal(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// RandomToken returns 32 bytes from crypto/rand, base64url without
// padding: session and CSRF tokens, invite codes, OpenID Connect state and
// nonce, PKCE verifiers.
func RandomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
