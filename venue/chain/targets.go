package chain

import (
	"fmt"
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agent-trading/ats/venue/micro"
)

// The conditional-token (ERC-1155) transfer events: every movement of
// outcome tokens, trades' legs included.
var (
	ctfEventsABI = mustABI(`[
	{"type":"event","name":"TransferSingle","anonymous":false,"inputs":[{"name":"operator","type":"address","indexed":true},{"name":"from","type":"address","indexed":true},{"name":"to","type":"address","indexed":true},{"name":"id","type":"uint256","indexed":false},{"name":"value","type":"uint256","indexed":false}]},
	{"type":"event","name":"TransferBatch","anonymous":false,"inputs":[{"name":"operator","type":"address","indexed":true},{"name":"from","type":"address","indexed":true},{"name":"to","type":"address","indexed":true},{"name":"ids","type":"uint256[]","indexed":false},{"name":"values","type":"uint256[]","indexed":false}]}
	]`)
	// TransferSingleTopic and TransferBatchTopic are topic0 of the CTF's
	// ERC-1155 transfer events.
	TransferSingleTopic = ctfEventsABI.Events["TransferSingle"].ID
	TransferBatchTopic  = ctfEventsABI.Events["TransferBatch"].ID
)

// TargetVenue names the contracts a copied wallet's activity is read from.
type TargetVenue struct {
	// Exchanges emit OrderFilled (the CTF exchange and the neg-risk one).
	Exchanges []common.Address
	// ConditionalTokens emits the ERC-1155 transfers.
	ConditionalTokens common.Address
}

// TargetQueries are the log filters of a set of copied wallets: their own
// orders' OrderFilled on the exchanges (topic2, the order's maker, is the
// wallet) together with the CTF transfers out of them (topic2 is `from` as
// well), and the CTF transfers into them (topic3, `to`). Two subscriptions
// per watcher, however many strategies copy the wallets.
func (v TargetVenue) TargetQueries(targets []common.Address) []ethereum.FilterQuery {
	if len(targets) == 0 {
		return nil
	}
	ts := makerTopics(targets)
	return []ethereum.FilterQuery{
		{
			Addresses: append(slices.Clone(v.Exchanges), v.ConditionalTokens),
			Topics:    [][]common.Hash{{OrderFilledTopic, TransferSingleTopic, TransferBatchTopic}, nil, ts},
		},
		{
			Addresses: []common.Address{v.ConditionalTokens},
			Topics:    [][]common.Hash{{TransferSingleTopic, TransferBatchTopic}, nil, nil, ts},
		},
	}
}

// TargetEvent is what one log says about a copied wallet.
type TargetEvent struct {
	TxHash   common.Hash
	LogIndex uint
	Block    uint64
	// Trade is set for the wallet's own order filled on an exchange.
	Trade *Fill
	// Skip is why a log that moved the wallet's outcome tokens is not a
	// trade (a split, merge, redemption or plain transfer); TokenID is the
	// (first) token it moved.
	Skip    string
	TokenID string
	// Ignore is true for a log that is only the other side of a record
	// kept elsewhere: the CTF leg of an exchange trade (its OrderFilled is
	// the trade), or a fill whose maker is not the wallet.
	Ignore bool
}

// ClassifyTargetLog reads a log matched by TargetQueries as an event of
// target. An OrderFilled whose maker is target is the target's trade (its
// side, size and price); a CTF transfer between target and an exchange is
// the leg of a trade and ignored; any other CTF transfer is not a trade:
// minted to the wallet (a split, or a neg-risk conversion), burned from it
// (a merge or a redemption), or moved to or from another address.
func (v TargetVenue) ClassifyTargetLog(l types.Log, target common.Address) (TargetEvent, error) {
	ev := TargetEvent{TxHash: l.TxHash, LogIndex: l.Index, Block: l.BlockNumber}
	if len(l.Topics) == 0 {
		return ev, fmt.Errorf("log %s:%d has no topics", l.TxHash.Hex(), l.Index)
	}
	switch l.Topics[0] {
	case OrderFilledTopic:
		f, err := DecodeFill(l)
		if err != nil {
			return ev, err
		}
		if f.Maker != target || !slices.Contains(v.Exchanges, f.Exchange) {
			ev.Ignore = true
			return ev, nil
		}
		ev.Trade = &f
		return ev, nil
	case TransferSingleTopic, TransferBatchTopic:
	default:
		ev.Ignore = true
		return ev, nil
	}
	if l.Address != v.ConditionalTokens || len(l.Topics) != 4 {
		ev.Ignore = true
		return ev, nil
	}
	from := common.BytesToAddress(l.Topics[2].Bytes())
	to := common.BytesToAddress(l.Topics[3].Bytes())
	ids, values, err := decodeTransfer(l)
	if err != nil {
		return ev, err
	}
	if len(ids) > 0 {
		ev.TokenID = ids[0].String()
	}
	var zero common.Address
	switch {
	case from != target && to != target:
		ev.Ignore = true
	case slices.Contains(v.Exchanges, from) || slices.Contains(v.Exchanges, to):
		ev.Ignore = true // a trade's leg: its OrderFilled is the record
	case from == zero:
		ev.Skip = "tokens minted to the target (a split of collateral, or a neg-risk conversion): " + amounts(ids, values)
	case to == zero:
		ev.Skip = "tokens burned from the target (a merge or a redemption): " + amounts(ids, values)
	case from == target && to == target:
		ev.Skip = "the target moved tokens to itself: " + amounts(ids, values)
	case from == target:
		ev.Skip = fmt.Sprintf("a transfer of tokens from the target to %s: %s", to.Hex(), amounts(ids, values))
	default:
		ev.Skip = fmt.Sprintf("a transfer of tokens to the target from %s: %s", from.Hex(), amounts(ids, values))
	}
	return ev, nil
}

func decodeTransfer(l types.Log) (ids, values []*big.Int, err error) {
	if l.Topics[0] == TransferSingleTopic {
		vals, err := ctfEventsABI.Unpack("TransferSingle", l.Data)
		if err != nil || len(vals) != 2 {
			return nil, nil, fmt.Errorf("decode TransferSingle %s:%d: %v", l.TxHash.Hex(), l.Index, err)
		}
		id, ok1 := vals[0].(*big.Int)
		v, ok2 := vals[1].(*big.Int)
		if !ok1 || !ok2 {
			return nil, nil, fmt.Errorf("decode TransferSingle %s:%d: unexpected field values", l.TxHash.Hex(), l.Index)
		}
		return []*big.Int{id}, []*big.Int{v}, nil
	}
	vals, err := ctfEventsABI.Unpack("TransferBatch", l.Data)
	if err != nil || len(vals) != 2 {
		return nil, nil, fmt.Errorf("decode TransferBatch %s:%d: %v", l.TxHash.Hex(), l.Index, err)
	}
	ids, ok1 := vals[0].([]*big.Int)
	values, ok2 := vals[1].([]*big.Int)
	if !ok1 || !ok2 || len(ids) != len(values) {
		return nil, nil, fmt.Errorf("decode TransferBatch %s:%d: unexpected field values", l.TxHash.Hex(), l.Index)
	}
	return ids, values, nil
}

// amounts describes what a transfer moved: "10 of token 123, 10 of token 456".
func amounts(ids, values []*big.Int) string {
	out := ""
	for i := range ids {
		if i > 0 {
			out += ", "
		}
		if i == 3 {
			return out + fmt.Sprintf("and %d more", len(ids)-3)
		}
		out += micro.DecimalBig(values[i]).String() + " of token " + ids[i].String()
	}
	return out
}
