package chain

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/micro"
)

// OrderFilledTopic is topic0 of the CLOB V2 exchanges' OrderFilled event.
var OrderFilledTopic = exchangeABI.Events["OrderFilled"].ID

// Side is the side of the filled order: the V2 exchange logs the same
// uint8 the order signed, so it is the CLOB's order side.
type Side = clob.Side

// Order sides.
const (
	Buy  = clob.Buy
	Sell = clob.Sell
)

// Fill is one order's fill as logged by an exchange: every filled order —
// the taker's and each maker's — gets its own OrderFilled whose Maker is the
// order's funder.
type Fill struct {
	TxHash    common.Hash
	LogIndex  uint
	Block     uint64
	BlockHash common.Hash
	// Exchange is the contract that emitted the log.
	Exchange  common.Address
	OrderHash common.Hash
	Maker     common.Address
	// Taker is the counterparty order's maker, or the exchange itself for
	// the taker order of a match.
	Taker   common.Address
	Side    Side
	TokenID *big.Int
	// MakerAmount is what the order gave, TakerAmount what it received, in
	// base units (collateral for a BUY's maker side, shares for a SELL's).
	MakerAmount *big.Int
	TakerAmount *big.Int
	Fee         *big.Int
	// Shares and Collateral are the filled size and its value; Price is
	// Collateral/Shares rounded to six decimals.
	Shares     decimal.Decimal
	Collateral decimal.Decimal
	Price      decimal.Decimal
}

// Key identifies the log uniquely on a chain.
func (f Fill) Key() FillKey { return FillKey{TxHash: f.TxHash, LogIndex: f.LogIndex} }

// FillKey is (transaction hash, log index): the natural de-duplication key.
type FillKey struct {
	TxHash   common.Hash
	LogIndex uint
}

// DecodeFill decodes a V2 OrderFilled log.
func DecodeFill(l types.Log) (Fill, error) {
	if len(l.Topics) != 4 || l.Topics[0] != OrderFilledTopic {
		return Fill{}, fmt.Errorf("log %s:%d is not a V2 OrderFilled", l.TxHash.Hex(), l.Index)
	}
	vals, err := exchangeABI.Unpack("OrderFilled", l.Data)
	if err != nil {
		return Fill{}, fmt.Errorf("decode OrderFilled %s:%d: %w", l.TxHash.Hex(), l.Index, err)
	}
	if len(vals) != 7 {
		return Fill{}, fmt.Errorf("decode OrderFilled %s:%d: %d fields", l.TxHash.Hex(), l.Index, len(vals))
	}
	side, ok0 := vals[0].(uint8)
	token, ok1 := vals[1].(*big.Int)
	makerAmt, ok2 := vals[2].(*big.Int)
	takerAmt, ok3 := vals[3].(*big.Int)
	fee, ok4 := vals[4].(*big.Int)
	if !ok0 || !ok1 || !ok2 || !ok3 || !ok4 || side > 1 {
		return Fill{}, fmt.Errorf("decode OrderFilled %s:%d: unexpected field values", l.TxHash.Hex(), l.Index)
	}
	f := Fill{
		TxHash:      l.TxHash,
		LogIndex:    l.Index,
		Block:       l.BlockNumber,
		BlockHash:   l.BlockHash,
		Exchange:    l.Address,
		OrderHash:   l.Topics[1],
		Maker:       common.BytesToAddress(l.Topics[2].Bytes()),
		Taker:       common.BytesToAddress(l.Topics[3].Bytes()),
		Side:        Side(side),
		TokenID:     token,
		MakerAmount: makerAmt,
		TakerAmount: takerAmt,
		Fee:         fee,
	}
	// A BUY gives collateral and receives shares; a SELL the reverse.
	shares, coll := takerAmt, makerAmt
	if f.Side == Sell {
		shares, coll = makerAmt, takerAmt
	}
	f.Shares = micro.DecimalBig(shares)
	f.Collateral = micro.DecimalBig(coll)
	if shares.Sign() > 0 {
		f.Price = f.Collateral.DivRound(f.Shares, micro.Decimals)
	}
	return f, nil
}
