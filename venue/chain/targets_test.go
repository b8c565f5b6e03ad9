package chain

import (
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

func TestClassifyTargetLog(t *testing.T) {
	target := common.HexToAddress("0xA1")
	other := common.HexToAddress("0xB2")
	ctf := common.HexToAddress("0xC7")
	v := TargetVenue{Exchanges: []common.Address{testExchange, testNegRisk}, ConditionalTokens: ctf}
	pad := func(a common.Address) common.Hash { return common.BytesToHash(a.Bytes()) }
	fill := func(exchange, maker, taker common.Address, side Side) types.Log {
		// A BUY gives collateral for shares, a SELL shares for collateral.
		gave, got := big.NewInt(5_000_000), big.NewInt(10_000_000)
		if side == Sell {
			gave, got = got, gave
		}
		data, err := exchangeABI.Events["OrderFilled"].Inputs.NonIndexed().Pack(uint8(side), big.NewInt(77), gave, got,
			big.NewInt(0), [32]byte{}, [32]byte{})
		if err != nil {
			t.Fatal(err)
		}
		return types.Log{Address: exchange, Topics: []common.Hash{OrderFilledTopic, {1}, pad(maker), pad(taker)}, Data: data, BlockNumber: 9, Index: 2}
	}
	single := func(contract, from, to common.Address) types.Log {
		data, err := ctfEventsABI.Events["TransferSingle"].Inputs.NonIndexed().Pack(big.NewInt(77), big.NewInt(10_000_000))
		if err != nil {
			t.Fatal(err)
		}
		return types.Log{Address: contract, Topics: []common.Hash{TransferSingleTopic, pad(other), pad(from), pad(to)}, Data: data}
	}
	batch := func(from, to common.Address) types.Log {
		data, err := ctfEventsABI.Events["TransferBatch"].Inputs.NonIndexed().Pack([]*big.Int{big.NewInt(77), big.NewInt(78)},
			[]*big.Int{big.NewInt(10_000_000), big.NewInt(10_000_000)})
		if err != nil {
			t.Fatal(err)
		}
		return types.Log{Address: ctf, Topics: []common.Hash{TransferBatchTopic, pad(other), pad(from), pad(to)}, Data: data}
	}
	var zero common.Address
	for _, tc := range []struct {
		name  string
		log   types.Log
		trade string // side of the trade, or ""
		skip  string // a word of the skip reason, or "" (ignored)
	}{
		{"the target's taker BUY", fill(testExchange, target, testExchange, Buy), "BUY", ""},
		{"the target's resting SELL on the neg-risk exchange", fill(testNegRisk, target, other, Sell), "SELL", ""},
		{"a counterparty's fill against the target", fill(testExchange, other, target, Sell), "", ""},
		{"an OrderFilled from elsewhere", fill(other, target, testExchange, Buy), "", ""},
		{"a trade's leg from the exchange", single(ctf, testExchange, target), "", ""},
		{"a trade's leg to the exchange", single(ctf, target, testNegRisk), "", ""},
		{"a split", batch(zero, target), "", "minted"},
		{"a merge or redemption", batch(target, zero), "", "burned"},
		{"a transfer out", single(ctf, target, other), "", "from the target"},
		{"a transfer in", single(ctf, other, target), "", "to the target"},
		{"a transfer of another token contract", single(other, other, target), "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := v.ClassifyTargetLog(tc.log, target)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.trade != "":
				if ev.Trade == nil || ev.Trade.Side.String() != tc.trade || ev.Trade.Shares.String() != "10" || ev.Trade.Price.String() != "0.5" || ev.Ignore {
					t.Fatalf("%+v, want a %s of 10 at 0.5", ev, tc.trade)
				}
			case tc.skip != "":
				if ev.Trade != nil || ev.Ignore || !strings.Contains(ev.Skip, tc.skip) || ev.TokenID != "77" {
					t.Fatalf("%+v, want a skip saying %q", ev, tc.skip)
				}
			default:
				if !ev.Ignore || ev.Trade != nil || ev.Skip != "" {
					t.Fatalf("%+v, want ignored", ev)
				}
			}
		})
	}
}

func TestTargetQueriesFilterOnTheTarget(t *testing.T) {
	ctf := common.HexToAddress("0xC7")
	v := TargetVenue{Exchanges: []common.Address{testExchange, testNegRisk}, ConditionalTokens: ctf}
	if qs := v.TargetQueries(nil); qs != nil {
		t.Fatalf("no target, queries %v", qs)
	}
	target := common.HexToAddress("0xA1")
	qs := v.TargetQueries([]common.Address{target})
	if len(qs) != 2 {
		t.Fatalf("%d queries", len(qs))
	}
	if len(qs[0].Topics) != 3 || qs[0].Topics[2][0] != common.BytesToHash(target.Bytes()) || len(qs[0].Addresses) != 3 {
		t.Fatalf("maker/from query %+v", qs[0])
	}
	if len(qs[1].Topics) != 4 || qs[1].Topics[3][0] != common.BytesToHash(target.Bytes()) || qs[1].Addresses[0] != ctf {
		t.Fatalf("to query %+v", qs[1])
	}
}
