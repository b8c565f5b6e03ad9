package exchange

import (
	"context"
	"fmt"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agent-trading/ats/venue"
)

// MemLedger is an in-memory ledger and settler: balances, allowances and
// approvals held in maps and moved by Settle exactly as the exchange
// contract moves them for a complementary (BUY vs SELL) match. It backs the
// engine when no chain is wanted (engine tests, the in-memory benchmark,
// paper trading) and is a complete implementation, not a stand-in: funds
// that are missing make Settle fail as the contract would revert.
type MemLedger struct {
	mu       sync.Mutex
	balances map[common.Address]map[string]uint64 // asset "" = collateral
	allow    map[common.Address]uint64            // collateral allowance to the exchange
	approved map[common.Address]bool              // ERC-1155 operator approval
	nonce    uint64
	block    uint64
}

// NewMemLedger returns an empty ledger.
func NewMemLedger() *MemLedger {
	return &MemLedger{
		balances: map[common.Address]map[string]uint64{},
		allow:    map[common.Address]uint64{},
		approved: map[common.Address]bool{},
	}
}

// Credit adds micro-units of an asset ("" = collateral) to owner.
func (l *MemLedger) Credit(owner common.Address, asset string, amount uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := l.balances[owner]
	if m == nil {
		m = map[string]uint64{}
		l.balances[owner] = m
	}
	m[asset] += amount
}

// Approve sets owner's collateral allowance to the exchange and its ERC-1155
// operator approval, as the two approval transactions do on chain.
func (l *MemLedger) Approve(owner common.Address, collateral uint64, tokens bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.allow[owner] = collateral
	l.approved[owner] = tokens
}

// Balance returns owner's balance of an asset.
func (l *MemLedger) Balance(owner common.Address, asset string) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.balances[owner][asset]
}

// Funds implements Ledger.
func (l *MemLedger) Funds(_ context.Context, owner common.Address, asset string, _ bool) (*big.Int, *big.Int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	bal := l.balances[owner][asset]
	var allow uint64
	switch {
	case asset == "":
		allow = l.allow[owner]
	case l.approved[owner]:
		allow = bal
	}
	return new(big.Int).SetUint64(bal), new(big.Int).SetUint64(allow), nil
}

// Settle implements Settler: it checks every leg first and only then moves
// funds, so a failing match changes nothing.
func (l *MemLedger) Settle(_ context.Context, m Match) (Settlement, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	type leg struct {
		from, to common.Address
		asset    string
		amount   uint64
	}
	var legs []leg
	t := m.Taker
	for _, f := range m.Makers {
		if f.Order.Maker == t.Maker {
			return Settlement{}, venue.E(venue.Rejected, "self trade")
		}
		if t.Side == Buy { // taker pays collateral, maker delivers shares
			legs = append(legs, leg{t.Maker, f.Order.Maker, "", f.Collateral}, leg{f.Order.Maker, t.Maker, m.TokenID, f.Shares})
		} else {
			legs = append(legs, leg{f.Order.Maker, t.Maker, "", f.Collateral}, leg{t.Maker, f.Order.Maker, m.TokenID, f.Shares})
		}
	}
	need := map[common.Address]map[string]uint64{}
	for _, g := range legs {
		if need[g.from] == nil {
			need[g.from] = map[string]uint64{}
		}
		need[g.from][g.asset] += g.amount
	}
	for who, assets := range need {
		for asset, amt := range assets {
			if l.balances[who][asset] < amt {
				return Settlement{}, venue.E(venue.Rejected, "insufficient balance").WithCause(fmt.Errorf("%s short of %s", who, assetName(asset)))
			}
			if asset == "" && l.allow[who] < amt {
				return Settlement{}, venue.E(venue.Rejected, "insufficient allowance")
			}
			if asset != "" && !l.approved[who] {
				return Settlement{}, venue.E(venue.Rejected, "exchange not approved")
			}
		}
	}
	for _, g := range legs {
		l.balances[g.from][g.asset] -= g.amount
		if g.asset == "" {
			l.allow[g.from] -= g.amount
		}
		if l.balances[g.to] == nil {
			l.balances[g.to] = map[string]uint64{}
		}
		l.balances[g.to][g.asset] += g.amount
	}
	l.nonce++
	l.block++
	h := crypto.Keccak256Hash([]byte(fmt.Sprintf("memledger-settlement-%d-%s", l.nonce, t.ID)))
	return Settlement{TxHash: h, Block: l.block}, nil
}

func assetName(a string) string {
	if a == "" {
		return "collateral"
	}
	return "token " + a
}

// Debit removes up to amount micro-units of an asset from owner.
func (l *MemLedger) Debit(owner common.Address, asset string, amount uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if m := l.balances[owner]; m != nil {
		m[asset] -= min(m[asset], amount)
	}
}
