package wallets

import (
	"bytes"
	"context"
	"crypto/rand"
	"math/big"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/vault"
)

// zeroKey overwrites the scalar's memory, not just its value: big.Int's
// SetInt64(0) alone keeps the old words in the backing array.
func TestZeroKeyOverwritesTheScalar(t *testing.T) {
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	words := k.D.Bits() // the backing array the key lives in
	if len(words) == 0 || words[0] == 0 {
		t.Fatal("a key with no words")
	}
	zeroKey(k)
	if k.D.Sign() != 0 {
		t.Fatal("the value survived")
	}
	for i, w := range words[:cap(words)] {
		if w != 0 {
			t.Fatalf("word %d of the key is still in memory", i)
		}
	}
}

// The signing path that wipes its key signs exactly like go-ethereum.
func TestSignaturesMatchGoEthereum(t *testing.T) {
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	var priv secp256k1.PrivateKey
	priv.Key.SetByteSlice(crypto.FromECDSA(k))
	digest := crypto.Keccak256([]byte("order digest"))

	got, err := signDigest(&priv, digest)
	if err != nil {
		t.Fatal(err)
	}
	want, err := crypto.Sign(digest, k)
	if err != nil {
		t.Fatal(err)
	}
	want[64] += 27
	if !bytes.Equal(got, want) {
		t.Fatalf("signature %x, go-ethereum %x", got, want)
	}

	to := common.HexToAddress("0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E")
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: big.NewInt(137), Nonce: 3, GasTipCap: big.NewInt(2), GasFeeCap: big.NewInt(40), Gas: 60000, To: &to, Value: big.NewInt(0), Data: []byte{1, 2}})
	mine, err := signTx(&priv, tx, big.NewInt(137))
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := types.SignTx(tx, types.LatestSignerForChainID(big.NewInt(137)), k)
	if err != nil {
		t.Fatal(err)
	}
	if mine.Hash() != theirs.Hash() {
		t.Fatal("transaction signatures differ")
	}
	from, err := types.Sender(types.LatestSignerForChainID(big.NewInt(137)), mine)
	if err != nil || from != crypto.PubkeyToAddress(k.PublicKey) {
		t.Fatalf("sender %s %v", from, err)
	}
}

// The key a signature was made with is zero once withKey returns.
func TestSignerWipesTheKeyAfterUse(t *testing.T) {
	st := storetest.NewSQLite(t)
	master := make([]byte, vault.KeySize)
	if _, err := rand.Read(master); err != nil {
		t.Fatal(err)
	}
	v, err := vault.FromMasterKey(master)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	u := &models.User{Email: "wipe@example.com", PasswordHash: "x"}
	if err := st.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	addr := crypto.PubkeyToAddress(k.PublicKey)
	w := &models.Wallet{ID: models.NewID(models.PrefixWallet), UserID: u.ID, Kind: models.WalletEOA,
		EOAAddress: addr.Hex(), FunderAddress: addr.Hex()}
	sealed, err := v.Seal(vault.WalletKey(u.ID, w.ID), crypto.FromECDSA(k))
	if err != nil {
		t.Fatal(err)
	}
	w.KeyCiphertext, w.KeyNonce, w.KeyVersion = sealed.Ciphertext, sealed.Nonce, sealed.KeyVersion
	if err := st.UpsertWallet(ctx, w); err != nil {
		t.Fatal(err)
	}
	svc := &Service{Store: st, Vault: v}
	g, err := svc.Signer(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	var used *secp256k1.PrivateKey
	if err := g.withKey(ctx, func(key *secp256k1.PrivateKey) error { used = key; return nil }); err != nil {
		t.Fatal(err)
	}
	if !used.Key.IsZero() {
		t.Fatal("the key survived its use")
	}
	sig, err := g.SignHash(ctx, crypto.Keccak256([]byte("x")))
	if err != nil {
		t.Fatal(err)
	}
	sig[64] -= 27
	pub, err := crypto.SigToPub(crypto.Keccak256([]byte("x")), sig)
	if err != nil || crypto.PubkeyToAddress(*pub) != addr {
		t.Fatalf("signature recovers to %v %v", pub, err)
	}
}
