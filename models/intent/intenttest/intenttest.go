// Package intenttest provides intent keys for tests.
package intenttest

import (
	"bytes"
	"testing"

	"github.com/agent-trading/ats/models/intent"
)

// Keys returns intent keys derived from a fixed test master key (seed
// picks which), the same on every call, so a test's signer and verifier
// agree.
func Keys(t testing.TB, seed ...byte) *intent.Keys {
	t.Helper()
	b := byte(0x42)
	if len(seed) > 0 {
		b = seed[0]
	}
	k, err := intent.FromMaster(bytes.Repeat([]byte{b}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return k
}
