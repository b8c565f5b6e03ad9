package vault

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"io/fs"
	"os"

	"github.com/agent-trading/ats/models/errs"
)

// LoadMasterKey returns the 32-byte master key from file (when file is not
// empty) or else from env, the base64 value of ATS_MASTER_KEY as the caller
// read it. The file holds the key base64-encoded (what
// GenerateMasterKeyFile writes, surrounding whitespace ignored) or as 32 raw
// bytes. With neither set it is errs.Invalid: the API server and the worker
// refuse to start without a key. Errors never include key material.
func LoadMasterKey(file, env string) ([]byte, error) {
	switch {
	case file != "":
		raw, err := os.ReadFile(file)
		if err != nil {
			return nil, errs.Wrap(errs.Invalid, err, "cannot read the master key file")
		}
		if k, ok := decodeKey(bytes.TrimSpace(raw)); ok {
			return k, nil
		}
		if len(raw) == KeySize {
			return raw, nil
		}
		return nil, errs.E(errs.Invalid, "the master key file must hold 32 bytes, raw or base64-encoded")
	case env != "":
		if k, ok := decodeKey([]byte(env)); ok {
			return k, nil
		}
		return nil, errs.E(errs.Invalid, "ATS_MASTER_KEY must be 32 bytes, base64-encoded")
	default:
		return nil, errs.E(errs.Invalid, "no master key: set --master-key-file or ATS_MASTER_KEY")
	}
}

func decodeKey(b []byte) ([]byte, bool) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		k := make([]byte, enc.DecodedLen(len(b)))
		n, err := enc.Decode(k, b)
		if err == nil && n == KeySize {
			return k[:n], true
		}
	}
	return nil, false
}

// GenerateMasterKeyFile writes a fresh random master key, base64-encoded,
// to a new file at path with mode 0600 and returns it. An existing file is
// never overwritten (errs.Conflict): replacing a master key makes every
// sealed secret unreadable.
func GenerateMasterKeyFile(path string) ([]byte, error) {
	key := make([]byte, KeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, errs.Wrap(errs.Internal, err, "cannot generate a master key")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil, errs.Wrap(errs.Conflict, err, "the master key file exists already")
	}
	if err != nil {
		return nil, errs.Wrap(errs.Internal, err, "cannot create the master key file")
	}
	_, werr := f.WriteString(base64.StdEncoding.EncodeToString(key) + "\n")
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		_ = os.Remove(path)
		return nil, errs.Wrap(errs.Internal, err, "cannot write the master key file")
	}
	return key, nil
}

// EnsureMasterKeyFile loads the master key at path, generating the file
// first when it does not exist (what `ats dev` does with its data dir).
func EnsureMasterKeyFile(path string) ([]byte, error) {
	k, err := GenerateMasterKeyFile(path)
	if errs.Is(err, errs.Conflict) {
		return LoadMasterKey(path, "")
	}
	return k, err
}
