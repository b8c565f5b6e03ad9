package wallets_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/big"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/vault"
	"github.com/agent-trading/ats/models/wallets"
	"github.com/agent-trading/ats/sandbox"
	"github.com/agent-trading/ats/venue/chain"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/contracts"
)

// sb is one real in-process sandbox (EVM chain + CLOB) shared by the
// package's tests; every test uses fresh keys, so they don't interfere.
var sb *sandbox.Sandbox

func TestMain(m *testing.M) {
	var err error
	sb, err = sandbox.Start(context.Background(), sandbox.Config{
		Addr: "127.0.0.1:0", Seed: 1, BlockInterval: 100 * time.Millisecond,
		DisableUpDown: true, Ordinary: 1, QuoteInterval: time.Hour,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "start sandbox:", err)
		os.Exit(1)
	}
	code := m.Run()
	_ = sb.Close()
	os.Exit(code)
}

func ctxT(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// syncBuffer is a log sink safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type env struct {
	svc  *wallets.Service
	st   *store.Store
	logs *syncBuffer
}

func newEnv(t *testing.T, st *store.Store) *env {
	t.Helper()
	master := make([]byte, vault.KeySize)
	_, err := rand.Read(master)
	require.NoError(t, err)
	v, err := vault.FromMasterKey(master)
	require.NoError(t, err)
	logs := &syncBuffer{}
	n := sb.Network()
	return &env{
		st:   st,
		logs: logs,
		svc: &wallets.Service{
			Store:   st,
			Vault:   v,
			Chain:   chain.New(n, sb.EVM().Client(), chain.Options{ReceiptPoll: 10 * time.Millisecond, ReceiptTimeout: 30 * time.Second}),
			CLOB:    clob.NewClient(clob.ConfigFor(n)),
			Network: n,
			Audit:   &audit.Service{Store: st},
			Logger:  slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		},
	}
}

func (e *env) user(t *testing.T) string {
	t.Helper()
	u := &models.User{Email: models.NewID("u") + "@example.com", PasswordHash: "not-a-login"}
	require.NoError(t, e.st.CreateUser(ctxT(t), u))
	return u.ID
}

func newKey(t testing.TB) (*ecdsa.PrivateKey, string, common.Address) {
	t.Helper()
	k, err := crypto.GenerateKey()
	require.NoError(t, err)
	return k, hex.EncodeToString(crypto.FromECDSA(k)), crypto.PubkeyToAddress(k.PublicKey)
}

func transactor(t testing.TB, key *ecdsa.PrivateKey) *bind.TransactOpts {
	t.Helper()
	ctx := ctxT(t)
	require.NoError(t, sb.EVM().Fund(ctx, crypto.PubkeyToAddress(key.PublicKey), nil, big.NewInt(params.Ether)))
	o, err := bind.NewKeyedTransactorWithChainID(key, big.NewInt(sb.Network().ChainID))
	require.NoError(t, err)
	o.Context = ctx
	return o
}

// deploySafe deploys key's 1-of-1 Safe through the sandbox Safe factory.
func deploySafe(t testing.TB, key *ecdsa.PrivateKey) common.Address {
	t.Helper()
	n := sb.Network()
	owner := crypto.PubkeyToAddress(key.PublicKey)
	f, err := contracts.NewSafeFactory(n.SafeFactory, sb.EVM().Client())
	require.NoError(t, err)
	tx, err := f.CreateProxy(transactor(t, key), owner)
	require.NoError(t, err)
	_, err = sb.EVM().WaitMined(ctxT(t), tx.Hash())
	require.NoError(t, err)
	return chain.DeriveSafeAddress(n, owner)
}

// deployDeposit deploys key's deposit wallet through the sandbox factory.
func deployDeposit(t testing.TB, key *ecdsa.PrivateKey) common.Address {
	t.Helper()
	n := sb.Network()
	owner := crypto.PubkeyToAddress(key.PublicKey)
	f, err := contracts.NewDepositWalletFactory(n.DepositWalletFactory, sb.EVM().Client())
	require.NoError(t, err)
	tx, err := f.Deploy(transactor(t, key), owner)
	require.NoError(t, err)
	_, err = sb.EVM().WaitMined(ctxT(t), tx.Hash())
	require.NoError(t, err)
	addr, err := f.WalletOf(&bind.CallOpts{Context: ctxT(t)}, owner)
	require.NoError(t, err)
	require.NotEqual(t, common.Address{}, addr)
	return addr
}

func auditEntries(t *testing.T, e *env, userID string) []audit.Record {
	t.Helper()
	p, err := e.svc.Audit.List(ctxT(t), audit.Filter{UserID: userID, Limit: 500})
	require.NoError(t, err)
	return p.Entries
}

func requireCode(t *testing.T, err error, kind errs.Kind, code string) {
	t.Helper()
	require.Error(t, err)
	require.Equal(t, kind, errs.KindOf(err), "error: %v", err)
	require.Equal(t, code, errs.CodeOf(err), "error: %v", err)
}

func TestImportKinds(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		n := sb.Network()
		for _, tc := range []struct {
			name     string
			funder   func(key *ecdsa.PrivateKey, owner common.Address) string
			kind     string
			wtype    string
			sigType  int
			isFunder bool // the trading address is the funder, not the EOA
		}{
			{"eoa without address", func(*ecdsa.PrivateKey, common.Address) string { return "" }, models.WalletEOA, "eoa", 0, false},
			{"eoa with its own address", func(_ *ecdsa.PrivateKey, o common.Address) string { return strings.ToLower(o.Hex()) }, models.WalletEOA, "eoa", 0, false},
			{"proxy not yet deployed", func(_ *ecdsa.PrivateKey, o common.Address) string { return chain.DeriveProxyAddress(n, o).Hex() }, models.WalletProxy, "proxy", 1, true},
			{"safe deployed", func(k *ecdsa.PrivateKey, _ common.Address) string { return deploySafe(t, k).Hex() }, models.WalletSafe, "proxy", 2, true},
			{"deposit wallet", func(k *ecdsa.PrivateKey, _ common.Address) string { return deployDeposit(t, k).Hex() }, models.WalletDeposit, "proxy", 3, true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				ctx := ctxT(t)
				uid := e.user(t)
				key, keyHex, owner := newKey(t)
				funder := tc.funder(key, owner)
				want := owner
				if tc.isFunder {
					want = common.HexToAddress(funder)
				}
				w, err := e.svc.Import(ctx, uid, "0x"+keyHex, funder, "127.0.0.1")
				require.NoError(t, err)
				require.Equal(t, tc.kind, w.Kind)
				require.Equal(t, tc.wtype, w.WalletType)
				require.Equal(t, tc.sigType, w.SignatureType)
				require.Equal(t, want.Hex(), w.Address)
				require.Equal(t, owner.Hex(), w.EOAAddress)
				require.False(t, w.HasAPICredentials)

				got, err := e.svc.Get(ctx, uid)
				require.NoError(t, err)
				require.Equal(t, w, got)

				addr, wt, err := e.svc.TradingWallet(ctx, uid)
				require.NoError(t, err)
				require.Equal(t, want, addr)
				require.Equal(t, tc.wtype, wt)

				cw, err := e.svc.ChainWallet(ctx, uid)
				require.NoError(t, err)
				require.Equal(t, tc.kind, cw.Kind.String())
				require.Equal(t, owner, cw.Owner)
				require.Equal(t, want, cw.Maker())

				// The vault-backed signer signs as the key.
				sg, err := e.svc.Signer(ctx, uid)
				require.NoError(t, err)
				digest := crypto.Keccak256Hash([]byte(tc.name))
				sig, err := sg.SignTypedDataHash(ctx, digest)
				require.NoError(t, err)
				require.Len(t, sig, 65)
				sig[64] -= 27
				pub, err := crypto.SigToPub(digest.Bytes(), sig)
				require.NoError(t, err)
				require.Equal(t, owner, crypto.PubkeyToAddress(*pub))

				entries := auditEntries(t, e, uid)
				require.Len(t, entries, 1)
				require.Equal(t, audit.ActionWalletImport, entries[0].Action)
				require.Equal(t, audit.Success, entries[0].Result)
				require.Equal(t, w.ID, entries[0].Target)
				require.Equal(t, "127.0.0.1", entries[0].ClientAddr)
			})
		}
	})
}

func TestImportRefused(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		n := sb.Network()
		key, keyHex, owner := newKey(t)
		otherKey, _, other := newKey(t)
		otherDeposit := deployDeposit(t, otherKey)
		curveN := crypto.S256().Params().N
		for _, tc := range []struct {
			name   string
			key    string
			funder string
			kind   errs.Kind
			code   string
		}{
			{"key too short", keyHex[:62], "", errs.Invalid, "invalid_private_key"},
			{"key too long", keyHex + "00", "", errs.Invalid, "invalid_private_key"},
			{"key not hex", "zz" + keyHex[2:], "", errs.Invalid, "invalid_private_key"},
			{"empty key", "", "", errs.Invalid, "invalid_private_key"},
			{"zero key", strings.Repeat("0", 64), "", errs.Invalid, "invalid_private_key"},
			{"key off the curve order", hex.EncodeToString(curveN.Bytes()), "", errs.Invalid, "invalid_private_key"},
			{"malformed address", keyHex, "0x1234", errs.Invalid, "invalid_address"},
			{"zero address", keyHex, common.Address{}.Hex(), errs.Invalid, "invalid_address"},
			{"random address", keyHex, common.BytesToAddress(crypto.Keccak256([]byte("nobody"))[:20]).Hex(), errs.Invalid, "wallet_not_owned"},
			{"another key's address", keyHex, other.Hex(), errs.Invalid, "wallet_not_owned"},
			{"another key's proxy", keyHex, chain.DeriveProxyAddress(n, other).Hex(), errs.Invalid, "wallet_not_owned"},
			{"another key's safe", keyHex, chain.DeriveSafeAddress(n, other).Hex(), errs.Invalid, "wallet_not_owned"},
			{"another key's deposit wallet", keyHex, otherDeposit.Hex(), errs.Invalid, "wallet_not_owned"},
			{"a contract that is no wallet", keyHex, n.Exchange.Hex(), errs.Invalid, "wallet_not_owned"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				ctx := ctxT(t)
				uid := e.user(t)
				_, err := e.svc.Import(ctx, uid, tc.key, tc.funder, "10.0.0.1")
				requireCode(t, err, tc.kind, tc.code)
				if tc.key != "" {
					require.NotContains(t, strings.ToLower(err.Error()), strings.ToLower(tc.key))
				}
				_, err = e.svc.Get(ctx, uid)
				requireCode(t, err, errs.NotFound, "no_wallet")
				entries := auditEntries(t, e, uid)
				require.Len(t, entries, 1)
				require.Equal(t, audit.Failure, entries[0].Result)
				require.Contains(t, string(entries[0].Detail), tc.code)
			})
		}
		_ = key
		_ = owner
	})
}

func sealedKey(t *testing.T, st *store.Store, uid string) (string, vault.Sealed) {
	t.Helper()
	w, err := st.WalletByUser(ctxT(t), uid)
	require.NoError(t, err)
	return w.ID, vault.Sealed{Ciphertext: w.KeyCiphertext, Nonce: w.KeyNonce, KeyVersion: w.KeyVersion}
}

func TestImportReplayReplaceDelete(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		ctx := ctxT(t)
		n := sb.Network()
		uid := e.user(t)
		_, keyA, ownerA := newKey(t)
		_, keyB, ownerB := newKey(t)

		w1, err := e.svc.Import(ctx, uid, keyA, chain.DeriveProxyAddress(n, ownerA).Hex(), "")
		require.NoError(t, err)
		id1, sealed1 := sealedKey(t, st, uid)
		signer1, err := e.svc.Signer(ctx, uid)
		require.NoError(t, err)

		// A replayed import (even spelled differently) is idempotent.
		w2, err := e.svc.Import(ctx, uid, "0X"+strings.ToUpper(keyA)+"\n", strings.ToLower(chain.DeriveProxyAddress(n, ownerA).Hex()), "")
		require.NoError(t, err)
		require.Equal(t, w1, w2)
		id2, sealed2 := sealedKey(t, st, uid)
		require.Equal(t, id1, id2)
		require.Equal(t, sealed1, sealed2)

		// The same key under another account is a conflict.
		_, err = e.svc.Import(ctx, e.user(t), keyA, "", "")
		requireCode(t, err, errs.Conflict, "wallet_in_use")

		// Same key, another address (EOA instead of proxy) replaces.
		w3, err := e.svc.Import(ctx, uid, keyA, "", "")
		require.NoError(t, err)
		require.NotEqual(t, w1.ID, w3.ID)
		require.Equal(t, models.WalletEOA, w3.Kind)

		// A different key replaces; the old ciphertext doesn't open under
		// the new wallet's binding, and the old signer stops signing.
		w4, err := e.svc.Import(ctx, uid, keyB, "", "")
		require.NoError(t, err)
		require.Equal(t, ownerB.Hex(), w4.Address)
		id4, sealed4 := sealedKey(t, st, uid)
		require.NotEqual(t, sealed1.Ciphertext, sealed4.Ciphertext)
		_, err = e.svc.Vault.Open(vault.WalletKey(uid, id4), sealed1)
		require.Error(t, err)
		_, err = signer1.SignHash(ctx, make([]byte, 32))
		requireCode(t, err, errs.Conflict, "wallet_changed")

		entries := auditEntries(t, e, uid)
		require.Len(t, entries, 4) // newest first
		require.Contains(t, string(entries[0].Detail), `"replaced_wallet_id":"`+w3.ID+`"`)
		require.Contains(t, string(entries[1].Detail), `"replaced_wallet_id":"`+w1.ID+`"`)
		require.Contains(t, string(entries[2].Detail), `"unchanged":true`)

		// Delete erases the row and its ciphertext.
		require.NoError(t, e.svc.Delete(ctx, uid, "192.0.2.1"))
		_, err = st.WalletByUser(ctx, uid)
		require.True(t, errs.Is(err, errs.NotFound))
		var rows int64
		require.NoError(t, st.DB().Model(&models.Wallet{}).Where("id IN ?", []string{id1, id4}).Count(&rows).Error)
		require.Zero(t, rows)
		_, _, err = e.svc.TradingWallet(ctx, uid)
		requireCode(t, err, errs.NotFound, "no_wallet")
		requireCode(t, e.svc.Delete(ctx, uid, ""), errs.NotFound, "no_wallet")
		entries = auditEntries(t, e, uid)
		require.Equal(t, audit.ActionWalletDelete, entries[0].Action)
		require.Equal(t, id4, entries[0].Target)
		require.Equal(t, "192.0.2.1", entries[0].ClientAddr)
	})
}

func TestCreds(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		ctx := ctxT(t)
		uid := e.user(t)
		_, keyHex, owner := newKey(t)
		_, err := e.svc.Import(ctx, uid, keyHex, chain.DeriveProxyAddress(sb.Network(), owner).Hex(), "")
		require.NoError(t, err)

		c1, err := e.svc.Creds(ctx, uid)
		require.NoError(t, err)
		require.NotEmpty(t, c1.Key)
		require.NotEmpty(t, c1.Secret)
		w, err := e.svc.Get(ctx, uid)
		require.NoError(t, err)
		require.True(t, w.HasAPICredentials)
		row, err := st.WalletByUser(ctx, uid)
		require.NoError(t, err)
		require.NotContains(t, string(row.APICredsCiphertext), c1.Secret)

		// The credentials authenticate L2 calls at the venue.
		_, err = e.svc.CLOB.WithCreds(c1, owner).GetOpenOrders(ctx, clob.OpenOrderParams{})
		require.NoError(t, err)

		// Cached sealed: the second call returns the stored copy unchanged.
		c2, err := e.svc.Creds(ctx, uid)
		require.NoError(t, err)
		require.Equal(t, c1, c2)
		row2, err := st.WalletByUser(ctx, uid)
		require.NoError(t, err)
		require.Equal(t, row.APICredsCiphertext, row2.APICredsCiphertext)

		// Invalidated credentials are derived again (freshly sealed).
		require.NoError(t, e.svc.InvalidateCreds(ctx, uid))
		w, err = e.svc.Get(ctx, uid)
		require.NoError(t, err)
		require.False(t, w.HasAPICredentials)
		c3, err := e.svc.Creds(ctx, uid)
		require.NoError(t, err)
		require.Equal(t, c1.Key, c3.Key)
		row3, err := st.WalletByUser(ctx, uid)
		require.NoError(t, err)
		require.NotEqual(t, row.APICredsCiphertext, row3.APICredsCiphertext)

		// Replacing the wallet drops the old credentials with it.
		_, keyB, _ := newKey(t)
		_, err = e.svc.Import(ctx, uid, keyB, "", "")
		require.NoError(t, err)
		w, err = e.svc.Get(ctx, uid)
		require.NoError(t, err)
		require.False(t, w.HasAPICredentials)
		require.NoError(t, e.svc.InvalidateCreds(ctx, e.user(t)), "no wallet is not an error")
	})
}

// Trading answers from one read what Get, Signer and Creds answer, and
// no wallet as they do.
func TestTrading(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		ctx := ctxT(t)
		uid := e.user(t)
		_, _, _, err := e.svc.Trading(ctx, uid)
		require.Equal(t, errs.CodeNoWallet, errs.CodeOf(err))
		_, keyHex, owner := newKey(t)
		_, err = e.svc.Import(ctx, uid, keyHex, chain.DeriveProxyAddress(sb.Network(), owner).Hex(), "")
		require.NoError(t, err)

		// The first call derives and stores the credentials, as Creds does.
		_, _, first, err := e.svc.Trading(ctx, uid)
		require.NoError(t, err)
		w, signer, creds, err := e.svc.Trading(ctx, uid)
		require.NoError(t, err)
		c, err := e.svc.Creds(ctx, uid)
		require.NoError(t, err)
		require.Equal(t, c, first)
		require.Equal(t, c, creds)
		got, err := e.svc.Get(ctx, uid)
		require.NoError(t, err)
		require.Equal(t, got, w)
		s2, err := e.svc.Signer(ctx, uid)
		require.NoError(t, err)
		require.Equal(t, owner, signer.Address())
		require.Equal(t, s2.Address(), signer.Address())
	})
}

func requireDemoReady(t *testing.T, e *env, uid string, w wallets.Wallet) {
	t.Helper()
	ctx := ctxT(t)
	require.Equal(t, models.WalletProxy, w.Kind)
	require.Equal(t, "proxy", w.WalletType)
	owner := common.HexToAddress(w.EOAAddress)
	require.Equal(t, chain.DeriveProxyAddress(sb.Network(), owner).Hex(), w.Address)
	addr, wt, err := e.svc.TradingWallet(ctx, uid)
	require.NoError(t, err)
	require.Equal(t, w.Address, addr.Hex())
	require.Equal(t, "proxy", wt)
	bal, err := e.svc.Chain.CollateralBalance(ctx, addr)
	require.NoError(t, err)
	require.Equal(t, wallets.DemoCollateralMicro.String(), bal.String())
	gas, err := e.svc.Chain.NativeBalance(ctx, owner)
	require.NoError(t, err)
	require.Positive(t, gas.Sign())
	code, err := sb.EVM().Client().CodeAt(ctx, addr, nil)
	require.NoError(t, err)
	require.NotEmpty(t, code, "the proxy wallet is deployed")
	req, err := e.svc.Chain.RequiredApprovals(chain.ApproveAll)
	require.NoError(t, err)
	for _, a := range req {
		ok, err := e.svc.Chain.IsApproved(ctx, addr, a)
		require.NoError(t, err)
		require.True(t, ok, "approval %s → %s", a.Token, a.Spender.Hex())
	}
}

func TestSeedDemo(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		ctx := ctxT(t)
		uid := e.user(t)
		w1, err := e.svc.SeedDemo(ctx, sb.EVM(), uid)
		require.NoError(t, err)
		requireDemoReady(t, e, uid, w1)
		id1, sealed1 := sealedKey(t, st, uid)

		// Re-running keeps the same wallet and doesn't fund twice.
		w2, err := e.svc.SeedDemo(ctx, sb.EVM(), uid)
		require.NoError(t, err)
		require.Equal(t, w1.ID, w2.ID)
		require.Equal(t, w1.Address, w2.Address)
		requireDemoReady(t, e, uid, w2)
		id2, sealed2 := sealedKey(t, st, uid)
		require.Equal(t, id1, id2)
		require.Equal(t, sealed1, sealed2)

		// A topped-down wallet is topped up to the demo amount again.
		require.NoError(t, sb.EVM().Fund(ctx, common.HexToAddress(w1.Address), big.NewInt(5), nil))
		bal, err := e.svc.Chain.CollateralBalance(ctx, common.HexToAddress(w1.Address))
		require.NoError(t, err)
		require.Equal(t, new(big.Int).Add(wallets.DemoCollateralMicro, big.NewInt(5)).String(), bal.String(),
			"more than the demo amount is left alone")
	})
}

// TestSeedDemoFreshChain is `ats dev --demo` run twice on the same data dir:
// the second run has a brand-new sandbox chain but must end with the same
// wallet, deployed, funded and approved again.
func TestSeedDemoFreshChain(t *testing.T) {
	st := storetest.NewSQLite(t)
	e := newEnv(t, st)
	ctx := ctxT(t)
	uid := e.user(t)
	w1, err := e.svc.SeedDemo(ctx, sb.EVM(), uid)
	require.NoError(t, err)

	fresh, err := sandbox.Start(ctx, sandbox.Config{
		Addr: "127.0.0.1:0", Seed: 2, BlockInterval: 100 * time.Millisecond,
		DisableUpDown: true, Ordinary: 1, QuoteInterval: time.Hour,
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = fresh.Close() })
	svc2 := *e.svc
	svc2.Chain = chain.New(fresh.Network(), fresh.EVM().Client(), chain.Options{ReceiptPoll: 10 * time.Millisecond})
	svc2.Network = fresh.Network()
	w2, err := svc2.SeedDemo(ctx, fresh.EVM(), uid)
	require.NoError(t, err)
	require.Equal(t, w1.ID, w2.ID)
	require.Equal(t, w1.Address, w2.Address)
	bal, err := svc2.Chain.CollateralBalance(ctx, common.HexToAddress(w2.Address))
	require.NoError(t, err)
	require.Equal(t, wallets.DemoCollateralMicro.String(), bal.String())
}

func TestSeedDemoRefusesLiveNetwork(t *testing.T) {
	st := storetest.NewSQLite(t)
	e := newEnv(t, st)
	live := *e.svc
	live.Network.Name = "polygon"
	_, err := live.SeedDemo(ctxT(t), sb.EVM(), e.user(t))
	require.True(t, errs.Is(err, errs.Invalid), "got %v", err)
}

// TestNoSecretLeaks runs every operation, success and failure paths, and
// scans what leaves the service — DTO JSON, errors, log lines, audit
// entries — for the private key, its ciphertext and the API secret.
func TestNoSecretLeaks(t *testing.T) {
	st := storetest.NewSQLite(t)
	e := newEnv(t, st)
	ctx := ctxT(t)
	uid := e.user(t)
	key, keyHex, owner := newKey(t)
	var out []string
	record := func(v any, err error) {
		b, jerr := json.Marshal(v)
		require.NoError(t, jerr)
		out = append(out, string(b), fmt.Sprintf("%v %+v %#v", v, v, v))
		if err != nil {
			out = append(out, err.Error(), errs.PublicMessage(err), fmt.Sprintf("%+v %#v", err, err))
		}
	}

	record(e.svc.Import(ctx, uid, keyHex[:63]+"g", "", "")) // malformed
	record(e.svc.Import(ctx, uid, keyHex, common.HexToAddress("0x01").Hex(), ""))
	record(e.svc.Import(ctx, uid, keyHex, deploySafe(t, key).Hex(), ""))
	record(e.svc.Import(ctx, uid, "0x"+keyHex, chain.DeriveSafeAddress(sb.Network(), owner).Hex(), "")) // replay
	_, sealed := sealedKey(t, st, uid)
	record(e.svc.Get(ctx, uid))
	sg, err := e.svc.Signer(ctx, uid)
	require.NoError(t, err)
	record(sg, err)
	cw, err := e.svc.ChainWallet(ctx, uid)
	record(cw, err)
	creds, err := e.svc.Creds(ctx, uid)
	require.NoError(t, err)
	_, credsSealed := func() (string, []byte) {
		w, err := st.WalletByUser(ctx, uid)
		require.NoError(t, err)
		return w.ID, w.APICredsCiphertext
	}()
	require.NoError(t, sb.EVM().Fund(ctx, owner, nil, big.NewInt(params.Ether)))
	record(e.svc.Chain.Approve(ctx, cw, chain.ApproveUSDC))
	record(e.svc.Import(ctx, e.user(t), keyHex, "", "")) // conflict
	require.NoError(t, e.svc.Delete(ctx, uid, ""))
	record(e.svc.Get(ctx, uid))
	p, err := e.svc.Audit.List(ctx, audit.Filter{Limit: 500})
	require.NoError(t, err)
	record(p, nil)
	out = append(out, e.logs.String())
	require.NotEmpty(t, e.logs.String())

	haystack := strings.ToLower(strings.Join(out, "\n"))
	for name, needle := range map[string]string{
		"key hex":              keyHex,
		"key base64":           base64.StdEncoding.EncodeToString(crypto.FromECDSA(key)),
		"key decimal":          key.D.String(),
		"ciphertext hex":       hex.EncodeToString(sealed.Ciphertext),
		"ciphertext base64":    base64.StdEncoding.EncodeToString(sealed.Ciphertext),
		"creds ciphertext hex": hex.EncodeToString(credsSealed),
		"creds ciphertext b64": base64.StdEncoding.EncodeToString(credsSealed),
		"api key":              creds.Key,
		"api secret":           creds.Secret,
		"api passphrase":       creds.Passphrase,
	} {
		require.NotEmpty(t, needle, name)
		require.NotContains(t, haystack, strings.ToLower(needle), name)
	}
}

// TestDemoWalletTrades is the point of the demo: the seeded proxy wallet,
// its vault-backed signer and its derived credentials buy at the sandbox
// venue, and the trade settles on chain against the wallet's collateral.
func TestDemoWalletTrades(t *testing.T) {
	st := storetest.NewSQLite(t)
	e := newEnv(t, st)
	ctx := ctxT(t)
	uid := e.user(t)
	w, err := e.svc.SeedDemo(ctx, sb.EVM(), uid)
	require.NoError(t, err)
	creds, err := e.svc.Creds(ctx, uid)
	require.NoError(t, err)
	sg, err := e.svc.Signer(ctx, uid)
	require.NoError(t, err)
	mkts := sb.Venue().Markets()
	require.NotEmpty(t, mkts)
	tr := &clob.Trader{
		Client:        e.svc.CLOB.WithCreds(creds, sg.Address()),
		Network:       sb.Network(),
		Signer:        sg,
		SignatureType: clob.SignatureType(w.SignatureType),
		Funder:        common.HexToAddress(w.Address),
	}
	placed, err := tr.PlaceMarketOrder(ctx, clob.MarketOrderArgs{
		TokenID: mkts[0].TokenIDs[0], Side: clob.Buy, Amount: decimal.NewFromInt(5),
	})
	require.NoError(t, err)
	require.True(t, placed.Response.Accepted(), "%+v", placed.Response)
	require.Eventually(t, func() bool {
		bal, err := e.svc.Chain.CollateralBalance(ctx, common.HexToAddress(w.Address))
		return err == nil && bal.Cmp(wallets.DemoCollateralMicro) < 0
	}, 30*time.Second, 100*time.Millisecond, "the fill settles against the proxy wallet")
}

// BenchmarkSignerSignHash measures one vault-backed signature: wallet row
// read, AES-GCM open, ECDSA sign, wipe — the price of never caching the key.
func BenchmarkSignerSignHash(b *testing.B) {
	st := storetest.NewSQLite(b)
	master := make([]byte, vault.KeySize)
	_, _ = rand.Read(master)
	v, err := vault.FromMasterKey(master)
	require.NoError(b, err)
	n := sb.Network()
	svc := &wallets.Service{Store: st, Vault: v, Network: n,
		Chain: chain.New(n, sb.EVM().Client(), chain.Options{})}
	ctx := context.Background()
	u := &models.User{Email: "bench@example.com", PasswordHash: "x"}
	require.NoError(b, st.CreateUser(ctx, u))
	_, keyHex, _ := newKey(b)
	_, err = svc.Import(ctx, u.ID, keyHex, "", "")
	require.NoError(b, err)
	sg, err := svc.Signer(ctx, u.ID)
	require.NoError(b, err)
	digest := crypto.Keccak256([]byte("bench"))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sg.SignHash(ctx, digest); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCredsConcurrent: callers racing on the first derivation all get the
// same credentials, and one sealed copy ends up stored.
func TestCredsConcurrent(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		ctx := ctxT(t)
		uid := e.user(t)
		_, keyHex, _ := newKey(t)
		_, err := e.svc.Import(ctx, uid, keyHex, "", "")
		require.NoError(t, err)
		const n = 4
		got := make([]clob.Creds, n)
		errc := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { got[i], errc[i] = e.svc.Creds(ctx, uid) })
		}
		wg.Wait()
		for i := range n {
			require.NoError(t, errc[i])
			require.Equal(t, got[0], got[i])
		}
		stored, err := e.svc.Creds(ctx, uid)
		require.NoError(t, err)
		require.Equal(t, got[0], stored)
	})
}

// TestImportRequiresTwoFactor: with RequireTwoFactor, an account without
// two-step verification cannot put a key in — refused with
// two_factor_required and a reason, audited, nothing stored — and can once
// it turns two-step verification on.
func TestImportRequiresTwoFactor(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		e.svc.RequireTwoFactor = true
		ctx := ctxT(t)
		uid := e.user(t)
		_, keyHex, _ := newKey(t)
		_, err := e.svc.Import(ctx, uid, keyHex, "", "10.0.0.7")
		require.Equal(t, errs.CodeTwoFactorRequired, errs.CodeOf(err), "err %v", err)
		require.Equal(t, errs.Forbidden, errs.KindOf(err))
		require.Contains(t, errs.PublicMessage(err), "two-step verification")
		_, err = e.svc.Get(ctx, uid)
		require.True(t, errs.Is(err, errs.NotFound), "a wallet was stored: %v", err)
		entries, _, err := st.ListAudit(ctx, store.AuditFilter{UserID: uid, Action: audit.ActionWalletImport})
		require.NoError(t, err)
		require.Len(t, entries, 1)
		require.Equal(t, audit.Failure, entries[0].Result)
		require.Contains(t, entries[0].Detail, errs.CodeTwoFactorRequired)

		require.NoError(t, st.DB().Model(&models.User{}).Where("id = ?", uid).Update("totp_enabled", true).Error)
		w, err := e.svc.Import(ctx, uid, keyHex, "", "10.0.0.7")
		require.NoError(t, err)
		require.Equal(t, "eoa", w.Kind)
	})
}
