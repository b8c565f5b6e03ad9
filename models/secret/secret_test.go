package secret

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewAPIKey(t *testing.T) {
	seen := map[string]bool{}
	for range 200 {
		k, h, prefix := NewAPIKey()
		require.True(t, ValidAPIKeyFormat(k), k)
		assert.Len(t, k, 67)
		assert.True(t, strings.HasPrefix(k, "ll_"))
		assert.Equal(t, HashAPIKey(k), h)
		assert.Len(t, h, 64)
		assert.Equal(t, k[:7]+"…", prefix)
		assert.False(t, seen[k], "duplicate key")
		seen[k] = true
	}
}

// TestAPIKeyRejectionSampling feeds a fixed byte stream and checks that bytes
// at or above 248 are skipped and the rest map modulo 62.
func TestAPIKeyRejectionSampling(t *testing.T) {
	var src []byte
	want := "ll_"
	for i := 0; len(want) < APIKeyLen; i++ {
		b := byte(i % 256)
		src = append(src, b)
		if b < 248 {
			want += string(apiKeyAlphabet[int(b)%62])
		}
	}
	// Pad so every ReadFull succeeds.
	src = append(src, bytes.Repeat([]byte{0}, 256)...)
	got := newAPIKey(bytes.NewReader(src))
	assert.Equal(t, want, got)
}

// TestAPIKeyDistribution is a coarse uniformity check: over many keys every
// alphabet character appears, and none is wildly over-represented (a
// modulo-biased generator over-weights the first 8 characters by ~25%).
func TestAPIKeyDistribution(t *testing.T) {
	counts := map[byte]int{}
	const keys = 2000
	for range keys {
		k, _, _ := NewAPIKey()
		for i := 3; i < len(k); i++ {
			counts[k[i]]++
		}
	}
	require.Len(t, counts, 62)
	mean := float64(keys*64) / 62
	for c, n := range counts {
		// ±12% of ~2065 per character is > 5 standard deviations.
		assert.InDelta(t, mean, float64(n), mean*0.12, "character %q", c)
	}
	// The first 8 alphabet characters together vs the next 8.
	first, second := 0, 0
	for i := 0; i < 8; i++ {
		first += counts[apiKeyAlphabet[i]]
		second += counts[apiKeyAlphabet[8+i]]
	}
	assert.InDelta(t, 1.0, float64(first)/float64(second), 0.08)
}

func TestHashAPIKey(t *testing.T) {
	// FIPS 180-2 test vectors.
	assert.Equal(t, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", HashAPIKey("abc"))
	assert.Equal(t, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", HashAPIKey(""))
	assert.NotEqual(t, HashAPIKey("ll_a"), HashAPIKey("ll_b"))
}

func TestValidAPIKeyFormat(t *testing.T) {
	good, _, _ := NewAPIKey()
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"generated", good, true},
		{"empty", "", false},
		{"prefix only", "ll_", false},
		{"short", good[:66], false},
		{"long", good + "A", false},
		{"wrong prefix", "xx_" + good[3:], false},
		{"upper prefix", "LL_" + good[3:], false},
		{"symbol", good[:10] + "-" + good[11:], false},
		{"non-ascii", good[:10] + "é" + good[12:], false},
		{"space", good[:10] + " " + good[11:], false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ValidAPIKeyFormat(tt.in))
		})
	}
}

func TestEqual(t *testing.T) {
	assert.True(t, Equal("abc", "abc"))
	assert.False(t, Equal("abc", "abd"))
	assert.False(t, Equal("abc", "abcd"))
	assert.True(t, Equal("", ""))
}

// cheap keeps the password tests fast; the default parameters are covered
// once in TestHashPasswordDefault.
var cheap = Argon2Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1, SaltLen: 16, KeyLen: 32}

func TestHashPasswordDefault(t *testing.T) {
	h, err := HashPassword("correct horse battery staple")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(h, "$argon2id$v=19$m=65536,t=2,p=1$"), h)
	assert.NotContains(t, h, "correct horse")
	ok, err := VerifyPassword(h, "correct horse battery staple")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.False(t, NeedsRehash(h))
}

func TestVerifyPassword(t *testing.T) {
	h, err := HashPasswordWith("s3cret-pass", cheap)
	require.NoError(t, err)
	h2, err := HashPasswordWith("s3cret-pass", cheap)
	require.NoError(t, err)
	assert.NotEqual(t, h, h2, "salted")

	tests := []struct {
		name    string
		hash    string
		pw      string
		want    bool
		wantErr bool
	}{
		{"match", h, "s3cret-pass", true, false},
		{"other salt match", h2, "s3cret-pass", true, false},
		{"wrong", h, "s3cret-pasS", false, false},
		{"empty", h, "", false, false},
		{"too long", h, strings.Repeat("a", MaxPasswordBytes+1), false, false},
		{"not phc", "plaintext", "x", false, true},
		{"bcrypt", "$2a$10$abcdefghijklmnopqrstuu", "x", false, true},
		{"argon2i", strings.Replace(h, "argon2id", "argon2i", 1), "s3cret-pass", false, true},
		{"bad version", strings.Replace(h, "v=19", "v=16", 1), "s3cret-pass", false, true},
		{"huge memory", strings.Replace(h, "m=64,", "m=99999999,", 1), "s3cret-pass", false, true},
		{"zero iterations", strings.Replace(h, "t=1,", "t=0,", 1), "s3cret-pass", false, true},
		{"bad salt", strings.Join(append(strings.Split(h, "$")[:4], "!!", strings.Split(h, "$")[5]), "$"), "s3cret-pass", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, err := VerifyPassword(tt.hash, tt.pw)
			if tt.wantErr {
				require.Error(t, err)
				assert.NotContains(t, err.Error(), tt.pw)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, ok)
		})
	}

	// A tampered hash value never verifies.
	parts := strings.Split(h, "$")
	k := []byte(parts[5])
	k[0] ^= 1
	if k[0] == '$' || k[0] > 'z' {
		k[0] = 'A'
	}
	parts[5] = string(k)
	ok, err := VerifyPassword(strings.Join(parts, "$"), "s3cret-pass")
	if err == nil {
		assert.False(t, ok)
	}

	_, err = HashPasswordWith(strings.Repeat("a", MaxPasswordBytes+1), cheap)
	require.Error(t, err)
}

func TestNeedsRehash(t *testing.T) {
	h, err := HashPasswordWith("pw", cheap)
	require.NoError(t, err)
	assert.True(t, NeedsRehash(h))
	assert.True(t, NeedsRehash("garbage"))
}

func BenchmarkHashPassword(b *testing.B) {
	for b.Loop() {
		if _, err := HashPassword("correct horse battery staple"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNewAPIKey(b *testing.B) {
	for b.Loop() {
		NewAPIKey()
	}
}
