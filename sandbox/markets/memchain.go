package markets

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agent-trading/ats/sandbox/exchange"
	"github.com/agent-trading/ats/venue"
)

// MemChain is an in-memory chain for the venue: conditions and position ids
// derived as the conditional-tokens contract derives them, balances and
// settlement in an exchange.MemLedger. It runs the venue without an EVM
// (fast tests, paper trading); it does not verify signatures on settlement,
// which the CLOB layer has already done.
type MemChain struct {
	*exchange.MemLedger
	mu       sync.Mutex
	oracle   common.Address
	mm       *ecdsa.PrivateKey
	outside  []*ecdsa.PrivateKey
	resolved map[common.Hash]int
	tokens   map[common.Hash][2]string
}

// NewMemChain returns a chain whose market maker and outside wallets are
// derived from seed and funded with collateral and approvals.
func NewMemChain(seed int64) *MemChain {
	c := &MemChain{
		MemLedger: exchange.NewMemLedger(),
		oracle:    common.HexToAddress("0x0000000000000000000000000000000000000a11"),
		resolved:  map[common.Hash]int{},
		tokens:    map[common.Hash][2]string{},
	}
	key := func(label string) *ecdsa.PrivateKey {
		k, err := crypto.ToECDSA(crypto.Keccak256([]byte(fmt.Sprintf("sandbox-memchain-%d-%s", seed, label))))
		if err != nil {
			panic(err) // a keccak digest is a valid key with overwhelming probability
		}
		return k
	}
	c.mm = key("market-maker")
	for i := range 3 {
		c.outside = append(c.outside, key(fmt.Sprintf("outside-%d", i)))
	}
	for _, k := range append([]*ecdsa.PrivateKey{c.mm}, c.outside...) {
		a := crypto.PubkeyToAddress(k.PublicKey)
		c.Credit(a, "", 10_000_000*exchange.One)
		c.Approve(a, 1<<62, true)
	}
	return c
}

// PositionIDs derives the two position ids of a binary condition the way the
// conditional-tokens contract does for a collection with no parent.
func PositionIDs(collateral common.Address, conditionID common.Hash) [2]*big.Int {
	var out [2]*big.Int
	for i := range 2 {
		indexSet := common.LeftPadBytes(big.NewInt(int64(1)<<i).Bytes(), 32)
		collection := crypto.Keccak256(conditionID.Bytes(), indexSet)
		pos := crypto.Keccak256(collateral.Bytes(), collection)
		out[i] = new(big.Int).SetBytes(pos)
	}
	return out
}

// PrepareMarket implements Chain.
func (c *MemChain) PrepareMarket(_ context.Context, questionID common.Hash, _ bool) (PreparedMarket, error) {
	cond := crypto.Keccak256Hash(c.oracle.Bytes(), questionID.Bytes(), common.LeftPadBytes([]byte{2}, 32))
	ids := PositionIDs(common.HexToAddress("0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB"), cond)
	c.mu.Lock()
	c.tokens[cond] = [2]string{ids[0].String(), ids[1].String()}
	c.mu.Unlock()
	return PreparedMarket{ConditionID: cond, TokenIDs: ids}, nil
}

// Resolve implements Chain.
func (c *MemChain) Resolve(_ context.Context, conditionID common.Hash, _ bool, winner int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.tokens[conditionID]; !ok {
		return venue.E(venue.NotFound, "condition not prepared")
	}
	if _, done := c.resolved[conditionID]; done {
		return venue.E(venue.Conflict, "condition already resolved")
	}
	c.resolved[conditionID] = winner
	return nil
}

// SplitTo implements Chain.
func (c *MemChain) SplitTo(_ context.Context, key *ecdsa.PrivateKey, conditionID common.Hash, _ bool, amount uint64) error {
	c.mu.Lock()
	toks, ok := c.tokens[conditionID]
	c.mu.Unlock()
	if !ok {
		return venue.E(venue.NotFound, "condition not prepared")
	}
	a := crypto.PubkeyToAddress(key.PublicKey)
	if c.Balance(a, "") < amount {
		return venue.E(venue.Rejected, "insufficient collateral to split")
	}
	c.Debit(a, "", amount)
	c.Credit(a, toks[0], amount)
	c.Credit(a, toks[1], amount)
	return nil
}

// Fund implements Chain; native currency has no meaning without an EVM and
// is ignored.
func (c *MemChain) Fund(_ context.Context, addr common.Address, collateral uint64, _ *big.Int) error {
	c.Credit(addr, "", collateral)
	return nil
}

// MarketMaker implements Chain.
func (c *MemChain) MarketMaker() *ecdsa.PrivateKey { return c.mm }

// OutsideWallets implements Chain.
func (c *MemChain) OutsideWallets() []*ecdsa.PrivateKey { return c.outside }
