package secret

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"

	"github.com/agent-trading/ats/models/errs"
)

// Argon2Params are argon2id cost parameters.
type Argon2Params struct {
	MemoryKiB   uint32
	Iterations  uint32
	Parallelism uint8
	SaltLen     uint32
	KeyLen      uint32
}

// DefaultArgon2 is tuned for a 2-core server: 64 MiB, 2 passes, 1 lane
// (exceeds OWASP's 19 MiB / t=2 / p=1 minimum). One lane keeps a login on
// one core, so two concurrent logins don't starve the other work; 64 MiB
// makes GPU/ASIC guessing expensive while 8 logins in flight stay around
// 512 MiB. A hash took ~270 ms on the shared 2-core dev box under load
// (BenchmarkHashPassword); an idle core does it in roughly 100 ms.
// Raising it later is safe: VerifyPassword reads the parameters from the
// stored string and NeedsRehash flags old hashes.
var DefaultArgon2 = Argon2Params{MemoryKiB: 64 * 1024, Iterations: 2, Parallelism: 1, SaltLen: 16, KeyLen: 32}

// Upper bounds on parameters read from a stored hash, so a corrupted or
// planted hash cannot make verification allocate gigabytes.
const (
	maxMemoryKiB   = 1024 * 1024
	maxIterations  = 16
	maxParallelism = 16
	maxKeyLen      = 128
	// MaxPasswordBytes caps password input; argon2 hashes any length but
	// there is no reason to accept megabytes.
	MaxPasswordBytes = 1024
)

var b64 = base64.RawStdEncoding

// HashPassword hashes password with argon2id and DefaultArgon2 into the PHC
// string format: $argon2id$v=19$m=65536,t=2,p=1$<salt>$<hash>.
func HashPassword(password string) (string, error) {
	return HashPasswordWith(password, DefaultArgon2)
}

// HashPasswordWith is HashPassword with explicit parameters.
func HashPasswordWith(password string, p Argon2Params) (string, error) {
	if len(password) > MaxPasswordBytes {
		return "", errs.Ef(errs.Invalid, "the password must be at most %d bytes", MaxPasswordBytes)
	}
	salt := make([]byte, p.SaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", errs.Wrap(errs.Internal, err, "cannot hash the password")
	}
	key := argon2.IDKey([]byte(password), salt, p.Iterations, p.MemoryKiB, p.Parallelism, p.KeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.MemoryKiB, p.Iterations, p.Parallelism, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// VerifyPassword reports whether password matches the encoded hash. The
// comparison is constant-time. A malformed hash is an error (Internal: it
// means corrupted data, not a wrong password).
func VerifyPassword(encoded, password string) (bool, error) {
	p, salt, want, err := parsePHC(encoded)
	if err != nil {
		return false, err
	}
	if len(password) > MaxPasswordBytes {
		return false, nil
	}
	got := argon2.IDKey([]byte(password), salt, p.Iterations, p.MemoryKiB, p.Parallelism, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// NeedsRehash reports whether encoded was made with parameters other than
// DefaultArgon2 (or is unreadable), so a successful login should store a
// fresh hash.
func NeedsRehash(encoded string) bool { return NeedsRehashWith(encoded, DefaultArgon2) }

// NeedsRehashWith is NeedsRehash against explicit target parameters d.
func NeedsRehashWith(encoded string, d Argon2Params) bool {
	p, salt, key, err := parsePHC(encoded)
	if err != nil {
		return true
	}
	return p.MemoryKiB != d.MemoryKiB || p.Iterations != d.Iterations || p.Parallelism != d.Parallelism ||
		uint32(len(salt)) != d.SaltLen || uint32(len(key)) != d.KeyLen
}

func parsePHC(encoded string) (Argon2Params, []byte, []byte, error) {
	bad := errs.E(errs.Internal, "the stored password hash is malformed")
	// "", "argon2id", "v=19", "m=..,t=..,p=..", salt, hash
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return Argon2Params{}, nil, nil, bad
	}
	var v int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &v); err != nil || v != argon2.Version {
		return Argon2Params{}, nil, nil, bad
	}
	var p Argon2Params
	if n, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.MemoryKiB, &p.Iterations, &p.Parallelism); err != nil || n != 3 {
		return Argon2Params{}, nil, nil, bad
	}
	if p.MemoryKiB == 0 || p.MemoryKiB > maxMemoryKiB || p.Iterations == 0 || p.Iterations > maxIterations ||
		p.Parallelism == 0 || p.Parallelism > maxParallelism || p.MemoryKiB < 8*uint32(p.Parallelism) {
		return Argon2Params{}, nil, nil, bad
	}
	salt, err := b64.DecodeString(parts[4])
	if err != nil || len(salt) < 8 {
		return Argon2Params{}, nil, nil, bad
	}
	key, err := b64.DecodeString(parts[5])
	if err != nil || len(key) < 16 || len(key) > maxKeyLen {
		return Argon2Params{}, nil, nil, bad
	}
	p.SaltLen, p.KeyLen = uint32(len(salt)), uint32(len(key))
	return p, salt, key, nil
}
