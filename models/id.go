// Package models holds the service's persistent records (GORM models) and
// the helpers every layer shares to name them.
//
// The records are storage shapes: they carry hashes and ciphertexts and are
// never serialised to clients. Services convert them to DTOs at their edge.
// Money, prices and sizes are int64 micro-units (6 decimals: 1 USDC =
// 1_000_000, 1 share = 1_000_000, price 0.55 = 550_000); times are UTC.
package models

import (
	"crypto/rand"
	"encoding/base32"
	"strings"
)

// ID prefixes. An ID is "<prefix>_<26 lowercase base32 characters>", so its
// kind is visible in logs and URLs and a key of one kind can never be
// mistaken for another.
const (
	PrefixUser              = "usr"
	PrefixCredential        = "crd"
	PrefixWallet            = "wal"
	PrefixAgent             = "agt"
	PrefixAPIKey            = "key"
	PrefixDeviceLink        = "dl"
	PrefixOrder             = "ord"
	PrefixFill              = "fil"
	PrefixPosition          = "pos"
	PrefixStrategy          = "str"
	PrefixStrategyExecution = "sxe"
	PrefixHeartbeat         = "hb"
	PrefixAudit             = "aud"
	PrefixNotification      = "ntf"
	PrefixWebhookDelivery   = "whd"
)

// idEncoding is unpadded lowercase base32: URL-safe, case-insensitive and
// free of characters that need quoting anywhere.
var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// NewID returns a fresh random identifier "<prefix>_<random>" carrying 128
// bits from crypto/rand (collisions are not a practical concern). A prefix
// that already ends in "_" is used as is.
func NewID(prefix string) string {
	var b [16]byte
	// crypto/rand.Read never returns an error on supported platforms; it
	// aborts the program instead of handing out predictable bytes.
	_, _ = rand.Read(b[:])
	if !strings.HasSuffix(prefix, "_") {
		prefix += "_"
	}
	return prefix + idEncoding.EncodeToString(b[:])
}

// HasPrefix reports whether id is of the kind named by prefix (as passed to
// NewID), e.g. HasPrefix("wal_abc", PrefixWallet).
func HasPrefix(id, prefix string) bool {
	if !strings.HasSuffix(prefix, "_") {
		prefix += "_"
	}
	return len(id) > len(prefix) && strings.HasPrefix(id, prefix)
}
