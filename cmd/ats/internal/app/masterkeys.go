package app

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/intent"
	"github.com/agent-trading/ats/models/vault"
	"github.com/agent-trading/ats/worker/codec"
)

const flagPreviousMasterKeyFile = "previous-master-key-file"

// PreviousMasterKeyFlag is --previous-master-key-file, the keys a rotation
// replaced, which still open what was written under them.
func PreviousMasterKeyFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: flagPreviousMasterKeyFile, EnvVars: []string{"ATS_PREVIOUS_MASTER_KEY_FILE"},
		Usage: "file of a master key used before a rotation (repeatable); keeps Temporal payloads and not yet re-sealed secrets " +
			"written under it readable. The key itself may instead be given in ATS_PREVIOUS_MASTER_KEY (base64; comma-separated for several)"}
}

// MasterKeys are a process's master key and the ones it replaced, which
// still open what was written under them until histories age out.
type MasterKeys struct {
	Current  []byte
	previous [][]byte
}

// Codec is the Temporal payload codec the keys derive: it seals with the
// current key and opens with any of them.
func (k MasterKeys) Codec() (*codec.Codec, error) {
	return codec.FromMasterKeys(k.Current, k.previous...)
}

func (k MasterKeys) vault() (*vault.Vault, error) {
	return vault.FromMasterKeys(k.Current, k.previous...)
}

func (k MasterKeys) intents() (*intent.Keys, error) {
	return intent.FromMaster(k.Current, k.previous...)
}

// opsToken is the operator token `ats dev` uses when none is configured:
// derived from the master key, so it is the same across restarts.
func (k MasterKeys) devOpsToken() string {
	return encodeToken(vault.DeriveKey(k.Current, vault.PurposeOpsToken))
}

// LoadMasterKeys reads the master key from --master-key-file or
// ATS_MASTER_KEY (in dev mode a missing key is generated into the data
// dir) and the previous ones from --previous-master-key-file or
// ATS_PREVIOUS_MASTER_KEY.
func LoadMasterKeys(c *cli.Context, dev bool) (MasterKeys, error) {
	cur, err := loadMasterKey(c, dev)
	if err != nil {
		return MasterKeys{}, err
	}
	prev, err := previousMasterKeys(c)
	if err != nil {
		return MasterKeys{}, err
	}
	k := MasterKeys{Current: cur}
	for _, p := range prev {
		if !bytes.Equal(p, cur) {
			k.previous = append(k.previous, p)
		}
	}
	return k, nil
}

func previousMasterKeys(c *cli.Context) ([][]byte, error) {
	var out [][]byte
	for _, f := range c.StringSlice(flagPreviousMasterKeyFile) {
		k, err := vault.LoadMasterKey(f, "")
		if err != nil {
			return nil, errs.Wrap(errs.Invalid, err, "previous master key "+f+": "+errs.PublicMessage(err))
		}
		out = append(out, k)
	}
	for i, v := range strings.Split(os.Getenv("ATS_PREVIOUS_MASTER_KEY"), ",") {
		if v = strings.TrimSpace(v); v == "" {
			continue
		}
		k, err := vault.LoadMasterKey("", v)
		if err != nil {
			return nil, errs.Ef(errs.Invalid, "ATS_PREVIOUS_MASTER_KEY item %d must be 32 bytes, base64-encoded", i+1)
		}
		out = append(out, k)
	}
	return out, nil
}

// loadMasterKey reads the key from --master-key-file or ATS_MASTER_KEY. In
// dev mode a missing key is generated into the data dir.
func loadMasterKey(c *cli.Context, dev bool) ([]byte, error) {
	if f := c.String(flagMasterKeyFile); f != "" || masterKeyEnv() != "" {
		return vault.LoadMasterKey(f, masterKeyEnv())
	}
	if !dev {
		return nil, errs.E(errs.Invalid, "no master key: set --master-key-file or ATS_MASTER_KEY (base64 of 32 random bytes)")
	}
	dir := c.String(flagDataDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	return vault.EnsureMasterKeyFile(filepath.Join(dir, MasterKeyFileName))
}
