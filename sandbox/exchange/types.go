// Package exchange is the sandbox venue's matching engine: per-token order
// books with price-time priority, the four CLOB order types (GTC, GTD, FOK,
// FAK), post-only, tick and minimum-size rules, balance and allowance checks
// with reservation of open orders, and settlement of every match through an
// injected Settler (on the sandbox chain, the CTF exchange's matchOrders).
//
// All amounts are integer micro-units (6 decimals): collateral and outcome
// tokens both have 6 decimals on Polymarket, so 1 share = 1 USDC at price 1 =
// 1_000_000. Prices are micro-units of collateral per share. Nothing here
// uses floating point.
package exchange

import (
	"context"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agent-trading/ats/venue/micro"
)

// One is 1.0 in micro-units.
const One uint64 = micro.PerUnit

// Side is the side of an order from its maker's point of view.
type Side uint8

// The sides, numbered as in the signed order (BUY = 0, SELL = 1).
const (
	Buy  Side = 0
	Sell Side = 1
)

// String returns "BUY" or "SELL", the wire form.
func (s Side) String() string {
	if s == Sell {
		return "SELL"
	}
	return "BUY"
}

// OrderType is the CLOB time-in-force.
type OrderType string

// The order types the venue accepts.
const (
	GTC OrderType = "GTC" // rests until filled or cancelled
	GTD OrderType = "GTD" // rests until its expiration
	FOK OrderType = "FOK" // fills completely at once or is rejected
	FAK OrderType = "FAK" // fills what it can at once, the rest is cancelled
)

// Resting reports whether orders of this type may rest on the book.
func (t OrderType) Resting() bool { return t == GTC || t == GTD }

// Status is an order's state as the CLOB reports it.
type Status string

// Order states. The CLOB reports them in upper case on /data/orders.
const (
	StatusLive     Status = "LIVE"
	StatusMatched  Status = "MATCHED"
	StatusCanceled Status = "CANCELED"
)

// TradeStatus is the settlement state of a trade.
type TradeStatus string

// Trade states: a trade is MATCHED when the engine pairs the orders, MINED
// when the settlement transaction is in a block and CONFIRMED once that block
// is final. FAILED trades never reach the book's history as fills.
const (
	TradeMatched   TradeStatus = "MATCHED"
	TradeMined     TradeStatus = "MINED"
	TradeConfirmed TradeStatus = "CONFIRMED"
	TradeFailed    TradeStatus = "FAILED"
)

// Order is a verified order as it enters the engine. The server has already
// checked its signature and computed ID (the EIP-712 order hash).
type Order struct {
	ID      string         // 0x-prefixed EIP-712 order hash
	Owner   string         // API key of the submitter
	Maker   common.Address // funder: whose assets move
	Signer  common.Address
	TokenID string // decimal uint256
	Side    Side
	// MakerAmount is what the maker gives (collateral for BUY, shares for
	// SELL) and TakerAmount what it wants in return, both in micro-units.
	MakerAmount uint64
	TakerAmount uint64
	Type        OrderType
	Expiration  int64 // unix seconds; 0 = none (GTD only)
	PostOnly    bool
	// Signed is the signed wire order, carried untouched to the Settler so
	// the chain can verify the very signature the CLOB verified.
	Signed any
}

// Market is what the engine needs to know about a binary market.
type Market struct {
	ConditionID string
	// Tokens are the two outcome token ids (decimal), index-aligned with Outcomes.
	Tokens   [2]string
	Outcomes [2]string
	// TickMicro is the minimum tick in micro-units (0.01 = 10_000).
	TickMicro uint64
	// MinSizeMicro is the minimum resting order size in micro-shares.
	MinSizeMicro uint64
	NegRisk      bool
}

// Fill is one maker order's part of a match.
type Fill struct {
	Order *Order
	// Shares is the number of outcome-token micro-units exchanged.
	Shares uint64
	// Collateral is the collateral micro-units exchanged, at the maker's price.
	Collateral uint64
	// MakerFillAmount is the fill in the maker order's makerAmount units (as
	// the exchange contract's matchOrders takes it).
	MakerFillAmount uint64
}

// Match is one taker order against one or more resting maker orders on the
// same token: the unit of settlement.
type Match struct {
	Market  Market
	TokenID string
	Taker   *Order
	// TakerFillAmount is the taker's fill in its makerAmount units: the
	// collateral it pays (BUY) or the shares it sells (SELL).
	TakerFillAmount uint64
	// TakerReceives is what the taker gets: shares (BUY) or collateral (SELL).
	TakerReceives uint64
	Makers        []Fill
}

// Settlement is the result of settling a match on chain.
type Settlement struct {
	TxHash common.Hash
	Block  uint64
}

// Settler makes a match final; on the sandbox chain it submits the
// exchange's matchOrders as the operator. A fill is final only once Settle
// returns without error; on error the match is discarded.
type Settler interface {
	Settle(ctx context.Context, m Match) (Settlement, error)
}

// Ledger reads the on-chain funds that back orders. For collateral tokenID is
// "" and allowance is the ERC-20 allowance to the exchange of the market; for
// outcome tokens allowance is the balance when the exchange is an approved
// ERC-1155 operator and 0 otherwise.
type Ledger interface {
	Funds(ctx context.Context, owner common.Address, tokenID string, negRisk bool) (balance, allowance *big.Int, err error)
}

// Clock is the engine's notion of now; tests inject a fixed one.
type Clock func() time.Time

// OrderView is a read-only copy of an order's state.
type OrderView struct {
	Order
	ConditionID  string
	Outcome      string
	Status       Status
	PriceMicro   uint64 // the order's limit price
	SizeMicro    uint64 // original size in shares
	MatchedMicro uint64 // shares matched so far
	CreatedAt    time.Time
	TradeIDs     []string
}

// MakerOrderView is a maker's part of a trade.
type MakerOrderView struct {
	OrderID       string
	Owner         string
	Maker         common.Address
	MatchedShares uint64
	PriceMicro    uint64
	TokenID       string
	Outcome       string
	Side          Side
}

// Trade is one settled (or failed) match.
type Trade struct {
	ID           string
	TakerOrderID string
	ConditionID  string
	TokenID      string
	Outcome      string
	Side         Side // the taker's side
	SizeMicro    uint64
	PriceMicro   uint64 // the taker's average price (collateral per share)
	Owner        string
	Maker        common.Address // the taker's funder
	MakerOrders  []MakerOrderView
	Status       TradeStatus
	TxHash       common.Hash
	MatchTime    time.Time
	LastUpdate   time.Time
}

// Level is an aggregated book level.
type Level struct {
	PriceMicro uint64
	SizeMicro  uint64
}

// Book is a snapshot of one token's book. Bids are best first (descending
// price) and asks best first (ascending); the HTTP layer reverses them into
// the CLOB's wire order.
type Book struct {
	Market          Market
	TokenID         string
	Bids            []Level
	Asks            []Level
	LastTradeMicro  uint64
	LastTradeSide   Side
	HasLastTrade    bool
	Timestamp       time.Time
	AcceptingOrders bool
}

// Result is the outcome of a placed order.
type Result struct {
	OrderID string
	// Status is "live" when the order rests, "matched" when it matched on
	// entry (fully or partly).
	Status string
	// MakingMicro and TakingMicro are what the order gave and got at once.
	MakingMicro uint64
	TakingMicro uint64
	TradeIDs    []string
	TxHashes    []common.Hash
}
