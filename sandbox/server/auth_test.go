package server

import (
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/sandbox/persist"
)

// TestKeysSurviveACrash creates and deletes API keys with a journal, then
// reopens the key store from what a crash leaves on disk: the created keys
// authenticate and derive, the deleted one stays deleted.
func TestKeysSurviveACrash(t *testing.T) {
	fs := vfs.NewCrashableMem()
	st, err := persist.Open("state", persist.Options{FS: fs})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	ks := newKeyStore(st)
	alice, bob := common.HexToAddress("0xa11ce"), common.HexToAddress("0xb0b")
	now := time.Unix(1_800_000_000, 0).UTC()
	a0, ok, err := ks.create(alice, 0, now)
	require.NoError(t, err)
	require.True(t, ok)
	a1, _, err := ks.create(alice, 1, now)
	require.NoError(t, err)
	b0, _, err := ks.create(bob, 0, now)
	require.NoError(t, err)
	require.NoError(t, ks.remove(a1.Key))
	_, ok, err = ks.create(alice, 0, now)
	require.NoError(t, err)
	assert.False(t, ok, "a second create of the same nonce is refused")

	st2, err := persist.Open("state", persist.Options{FS: fs.CrashClone(vfs.CrashCloneCfg{})})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st2.Close() })
	ks2 := newKeyStore(st2)
	require.NoError(t, ks2.restore())
	for _, c := range []struct {
		addr  common.Address
		nonce uint64
		want  string
	}{{alice, 0, a0.Key}, {bob, 0, b0.Key}} {
		got, ok := ks2.derive(c.addr, c.nonce)
		require.True(t, ok, "%s/%d", c.addr, c.nonce)
		assert.Equal(t, c.want, got.Key)
		k, ok := ks2.lookup(c.want)
		require.True(t, ok)
		assert.Equal(t, c.addr, k.address)
	}
	got, _ := ks2.derive(alice, 0)
	assert.Equal(t, a0, got, "the secret and passphrase come back too")
	_, ok = ks2.derive(alice, 1)
	assert.False(t, ok, "the deleted key stays deleted")
	_, ok = ks2.lookup(a1.Key)
	assert.False(t, ok)
	assert.Equal(t, []string{a0.Key}, ks2.keysOf(alice))
}
