// Package settlementstest builds the real settlement stack for tests: the
// in-process sandbox chain sealing blocks, the venue chain client, a
// migrated SQLite store, the wallet service with a fresh vault and the
// settlements service over them. The only stand-in is ChainMarkets, which
// answers the CLOB's market lookup from the markets the test prepared on
// the chain (the sandbox CLOB lists only its own catalogue).
package settlementstest

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/hex"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/settlements"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/vault"
	"github.com/agent-trading/ats/models/wallets"
	sbchain "github.com/agent-trading/ats/sandbox/chain"
	"github.com/agent-trading/ats/venue/chain"
	"github.com/agent-trading/ats/venue/clob"
)

// Env is one settlement stack.
type Env struct {
	Chain   *sbchain.Chain
	Client  *chain.Client
	Store   *store.Store
	Wallets *wallets.Service
	Markets *ChainMarkets
	// Tests call the Service's steps directly (workflows.Settlements runs them through the workflows).
	Service *settlements.Service
}

// shared is the process's sandbox chain: started on first use and kept
// until the test binary exits. Tests share it safely because every test
// uses fresh keys and markets, and one bootstrap per package keeps the
// suites fast on a small machine.
var shared struct {
	once sync.Once
	ch   *sbchain.Chain
	err  error
}

// New builds the stack on the process's shared sandbox chain (sealing a
// block every 20 ms) and a fresh SQLite store closed when t ends.
func New(t testing.TB) *Env {
	t.Helper()
	shared.once.Do(func() {
		shared.ch, shared.err = sbchain.New(sbchain.Config{BlockInterval: 20 * time.Millisecond})
		if shared.err == nil {
			shared.ch.Start(context.Background())
		}
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return NewOn(t, shared.ch, storetest.NewSQLite(t))
}

// NewOn builds the stack on an existing chain and store.
func NewOn(t testing.TB, ch *sbchain.Chain, st *store.Store) *Env {
	t.Helper()
	master := make([]byte, vault.KeySize)
	if _, err := rand.Read(master); err != nil {
		t.Fatal(err)
	}
	v, err := vault.FromMasterKey(master)
	if err != nil {
		t.Fatal(err)
	}
	client := chain.New(ch.Network(), ch.Client(), chain.Options{ReceiptPoll: 10 * time.Millisecond, ReceiptTimeout: 30 * time.Second})
	aud := &audit.Service{Store: st}
	ws := &wallets.Service{Store: st, Vault: v, Chain: client, Network: ch.Network(), Audit: aud}
	mk := &ChainMarkets{markets: map[string]clob.Market{}}
	return &Env{
		Chain: ch, Client: client, Store: st, Wallets: ws, Markets: mk,
		Service: &settlements.Service{Store: st, Wallets: ws, Chain: client, Markets: mk, Audit: aud},
	}
}

// User is a user with an imported EOA wallet and one linked agent.
type User struct {
	UserID  string
	AgentID string
	// APIKey is the agent's plaintext key (for HTTP tests).
	APIKey string
	Key    *ecdsa.PrivateKey
	Maker  common.Address
}

// Ctx is a context bounded to a minute and cancelled when t ends.
func Ctx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// User creates a user whose imported EOA wallet holds gas and
// collateralMicro of collateral, and an agent with every scope.
func (e *Env) User(t testing.TB, collateralMicro int64) User {
	t.Helper()
	return e.newUser(t, collateralMicro, new(big.Int).Mul(big.NewInt(10), big.NewInt(params.Ether)))
}

// BrokeUser is User with a wallet holding neither gas nor collateral.
func (e *Env) BrokeUser(t testing.TB) User {
	t.Helper()
	return e.newUser(t, 0, nil)
}

func (e *Env) newUser(t testing.TB, collateralMicro int64, gasWei *big.Int) User {
	t.Helper()
	ctx := Ctx(t)
	u := &models.User{Email: models.NewID("u") + "@example.com", PasswordHash: "not-a-login"}
	if err := e.Store.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	maker := crypto.PubkeyToAddress(key.PublicKey)
	if collateralMicro > 0 || gasWei != nil {
		if err := e.Chain.Fund(ctx, maker, big.NewInt(collateralMicro), gasWei); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Wallets.Import(ctx, u.ID, hex.EncodeToString(crypto.FromECDSA(key)), "", "127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	plain, hash, prefix := secret.NewAPIKey()
	a := &models.Agent{UserID: u.ID, Name: "settler", Scopes: "read trade cancel redeem"}
	if err := e.Store.CreateAgentWithKey(ctx, a, &models.APIKey{Hash: hash, DisplayPrefix: prefix}); err != nil {
		t.Fatal(err)
	}
	return User{UserID: u.ID, AgentID: a.ID, APIKey: plain, Key: key, Maker: maker}
}

// Agent links another agent, with every scope, to u's user: the returned
// User shares u's wallet and differs in AgentID and APIKey.
func (e *Env) Agent(t testing.TB, u User) User {
	t.Helper()
	plain, hash, prefix := secret.NewAPIKey()
	a := &models.Agent{UserID: u.UserID, Name: "settler " + models.NewID("a"), Scopes: "read trade cancel redeem"}
	if err := e.Store.CreateAgentWithKey(Ctx(t), a, &models.APIKey{Hash: hash, DisplayPrefix: prefix}); err != nil {
		t.Fatal(err)
	}
	u.AgentID, u.APIKey = a.ID, plain
	return u
}

// Market prepares a binary market on the chain and lists it in Markets.
func (e *Env) Market(t testing.TB, name string, negRisk bool) sbchain.Market {
	t.Helper()
	m, err := e.Chain.PrepareMarket(Ctx(t), crypto.Keccak256Hash([]byte(name)), negRisk)
	if err != nil {
		t.Fatal(err)
	}
	e.Markets.Add(clob.Market{
		ConditionID: strings.ToLower(common.Hash(m.ConditionID).Hex()), Question: name, NegRisk: negRisk,
		Tokens: []clob.MarketToken{{TokenID: m.TokenIDs[0].String(), Outcome: "Yes"}, {TokenID: m.TokenIDs[1].String(), Outcome: "No"}},
	})
	return m
}

// Split gives u's wallet sharesMicro of both outcome tokens of m, paid
// with collateral minted to it.
func (e *Env) Split(t testing.TB, u User, m sbchain.Market, sharesMicro int64) {
	t.Helper()
	if err := e.Chain.SplitTo(Ctx(t), u.Key, m.ConditionID, big.NewInt(sharesMicro)); err != nil {
		t.Fatal(err)
	}
}

// Position stores u's agent's open position of sizeMicro shares of
// outcome (0 = Yes, 1 = No) of m.
func (e *Env) Position(t testing.TB, u User, m sbchain.Market, outcome int, sizeMicro int64) *models.Position {
	t.Helper()
	p := &models.Position{
		AgentID: u.AgentID, UserID: u.UserID, TokenID: m.TokenIDs[outcome].String(),
		ConditionID: strings.ToLower(common.Hash(m.ConditionID).Hex()), Question: "q", Outcome: []string{"Yes", "No"}[outcome],
		SizeMicro: sizeMicro, AvgEntryMicro: 500_000, Status: models.PositionOpen, NegRisk: m.NegRisk,
	}
	if err := e.Store.SavePosition(Ctx(t), p); err != nil {
		t.Fatal(err)
	}
	return p
}

// Collateral is addr's collateral balance (micro).
func (e *Env) Collateral(t testing.TB, addr common.Address) int64 {
	t.Helper()
	b, err := e.Client.CollateralBalance(Ctx(t), addr)
	if err != nil {
		t.Fatal(err)
	}
	return b.Int64()
}

// Nonce is addr's transaction count: how many transactions it sent.
func (e *Env) Nonce(t testing.TB, addr common.Address) uint64 {
	t.Helper()
	n, err := e.Chain.Client().NonceAt(Ctx(t), addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// ChainMarkets answers settlements.MarketSource from markets the test
// prepared on the sandbox chain.
type ChainMarkets struct {
	mu      sync.Mutex
	markets map[string]clob.Market
}

// Add lists m.
func (c *ChainMarkets) Add(m clob.Market) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.markets[strings.ToLower(m.ConditionID)] = m
}

// Market implements settlements.MarketSource.
func (c *ChainMarkets) Market(_ context.Context, conditionID string) (*clob.Market, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.markets[strings.ToLower(conditionID)]
	if !ok {
		return nil, errs.E(errs.NotFound, "market not found")
	}
	return &m, nil
}
