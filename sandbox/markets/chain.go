// Package markets is the sandbox venue's living market: a seeded,
// reproducible catalogue of realistic markets, each prepared on the sandbox
// chain and listed on the matching engine; synthetic market makers quoting
// both outcomes around a fair price that follows a seeded random walk; and
// the crypto up/down series that roll with real time and resolve from the
// sandbox's own price path.
package markets

import (
	"context"
	"crypto/ecdsa"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agent-trading/ats/sandbox/exchange"
)

// PreparedMarket is a condition prepared on chain with its two position ids.
type PreparedMarket struct {
	ConditionID common.Hash
	TokenIDs    [2]*big.Int
}

// Chain is what the venue needs from the sandbox chain. sandbox/chain's
// Chain implements it through a thin adapter in package sandbox; MemChain
// implements it in memory.
type Chain interface {
	exchange.Ledger
	exchange.Settler
	// PrepareMarket prepares a binary condition for questionID.
	PrepareMarket(ctx context.Context, questionID common.Hash, negRisk bool) (PreparedMarket, error)
	// Resolve reports the payout with outcome winnerIndex winning.
	Resolve(ctx context.Context, conditionID common.Hash, negRisk bool, winnerIndex int) error
	// SplitTo splits collateral held by key's address into amount of both
	// outcome tokens (the market maker's inventory).
	SplitTo(ctx context.Context, key *ecdsa.PrivateKey, conditionID common.Hash, negRisk bool, amountMicro uint64) error
	// Fund mints collateral to addr and, when nativeWei is non-nil, sends
	// it that much gas currency.
	Fund(ctx context.Context, addr common.Address, collateralMicro uint64, nativeWei *big.Int) error
	// MarketMaker is the funded, approved key the synthetic makers trade from.
	MarketMaker() *ecdsa.PrivateKey
	// OutsideWallets are funded, approved keys for outside trades.
	OutsideWallets() []*ecdsa.PrivateKey
}
