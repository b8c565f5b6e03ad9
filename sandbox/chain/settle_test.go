package chain

import (
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/contracts"
)

// Topic hashes of polymarket-protocol.md §7.6.
var (
	topicOrderFilledV2       = common.HexToHash("0xd543adfd945773f1a62f74f0ee55a5e3b9b1a28262980ba90b1a89f2ea84d8ee")
	topicOrdersMatchedV2     = common.HexToHash("0x174b3811690657c217184f89418266767c87e4805d09680c39fc9c031c0cab7c")
	topicTransferSingle      = common.HexToHash("0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62")
	topicTransferBatch       = common.HexToHash("0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb")
	topicPayoutRedemption    = common.HexToHash("0x2682012a4a4f1973119f1c9b90745d1bd91fa2bab387344f044cb3586864d18d")
	topicConditionResolution = common.HexToHash("0xb44d84d3289691f71497564b85d4233648d9dbae8cbdbb4329f301c3a0185894")
)

func TestEventTopicsMatchReference(t *testing.T) {
	ex, _ := contracts.ExchangeMetaData.GetAbi()
	ctf, _ := contracts.ConditionalTokensMetaData.GetAbi()
	tests := []struct {
		name string
		got  common.Hash
		want common.Hash
	}{
		{"OrderFilled", ex.Events["OrderFilled"].ID, topicOrderFilledV2},
		{"OrdersMatched", ex.Events["OrdersMatched"].ID, topicOrdersMatchedV2},
		{"TransferSingle", ctf.Events["TransferSingle"].ID, topicTransferSingle},
		{"TransferBatch", ctf.Events["TransferBatch"].ID, topicTransferBatch},
		{"PayoutRedemption", ctf.Events["PayoutRedemption"].ID, topicPayoutRedemption},
		{"ConditionResolution", ctf.Events["ConditionResolution"].ID, topicConditionResolution},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s topic %s, want %s", tc.name, tc.got, tc.want)
		}
	}
}

func TestSettle(t *testing.T) {
	c := newTestChain(t)
	ctx := ctxT(t)
	b := bindAll(t, c)
	n := c.Network()
	for _, negRisk := range []bool{false, true} {
		name := "normal"
		if negRisk {
			name = "neg-risk"
		}
		t.Run(name, func(t *testing.T) {
			m, err := c.PrepareMarket(ctx, crypto.Keccak256Hash([]byte("settle "+name)), negRisk)
			if err != nil {
				t.Fatal(err)
			}
			mm := c.MarketMaker()
			mma := address(mm)
			if err := c.SplitTo(ctx, mm, m.ConditionID, big.NewInt(100_000_000)); err != nil {
				t.Fatal(err)
			}
			// A second maker: an outside wallet also holding YES.
			ow := c.OutsideWallets()[1]
			owa := address(ow)
			if err := c.SplitTo(ctx, ow, m.ConditionID, big.NewInt(10_000_000)); err != nil {
				t.Fatal(err)
			}
			buyer := address(c.OutsideWallets()[0])
			yes := m.TokenIDs[0]
			op := address(c.Operator())
			before := map[common.Address]*big.Int{
				buyer: collBalance(t, b, buyer), mma: collBalance(t, b, mma), owa: collBalance(t, b, owa), op: collBalance(t, b, op),
			}
			// Buyer takes 30 YES @0.60 from the MM and 10 YES @0.62 from the
			// outside wallet: pays 18 + 6.2 = 24.2 pUSD for 40 shares. The
			// MM's fill pays a 0.1 pUSD fee; the taker pays 0.5 shares.
			match := Match{
				Taker: Fill{OrderHash: crypto.Keccak256Hash([]byte("taker")), Maker: buyer, Side: Buy, TokenID: yes,
					MakerAmount: big.NewInt(24_200_000), TakerAmount: big.NewInt(40_000_000), Fee: big.NewInt(500_000),
					Builder: crypto.Keccak256Hash([]byte("builder")), Metadata: crypto.Keccak256Hash([]byte("meta"))},
				Makers: []Fill{
					{OrderHash: crypto.Keccak256Hash([]byte("m1")), Maker: mma, Side: Sell, TokenID: yes,
						MakerAmount: big.NewInt(30_000_000), TakerAmount: big.NewInt(18_000_000), Fee: big.NewInt(100_000)},
					{OrderHash: crypto.Keccak256Hash([]byte("m2")), Maker: owa, Side: Sell, TokenID: yes,
						MakerAmount: big.NewInt(10_000_000), TakerAmount: big.NewInt(6_200_000)},
				},
			}
			hash, err := c.Settle(ctx, negRisk, match)
			if err != nil {
				t.Fatal(err)
			}
			diff := func(a common.Address) int64 {
				return new(big.Int).Sub(collBalance(t, b, a), before[a]).Int64()
			}
			if d := diff(buyer); d != -24_200_000 {
				t.Errorf("buyer collateral change %d", d)
			}
			if d := diff(mma); d != 17_900_000 {
				t.Errorf("mm collateral change %d", d)
			}
			if d := diff(owa); d != 6_200_000 {
				t.Errorf("outside collateral change %d", d)
			}
			if d := diff(op); d != 100_000 {
				t.Errorf("fee receiver collateral change %d", d)
			}
			wantBig(t, "buyer yes", tokBalance(t, b, buyer, yes), 39_500_000)
			wantBig(t, "fee yes", tokBalance(t, b, op, yes), 500_000)
			wantBig(t, "mm yes", tokBalance(t, b, mma, yes), 70_000_000)
			wantBig(t, "outside yes", tokBalance(t, b, owa, yes), 0)
			exAddr := n.ExchangeFor(negRisk)
			wantBig(t, "exchange keeps collateral", collBalance(t, b, exAddr), 0)
			wantBig(t, "exchange keeps tokens", tokBalance(t, b, exAddr, yes), 0)

			rcpt, err := c.Client().TransactionReceipt(ctx, hash)
			if err != nil {
				t.Fatal(err)
			}
			ex, err := contracts.NewExchangeFilterer(exAddr, c.Client())
			if err != nil {
				t.Fatal(err)
			}
			var fills []*contracts.ExchangeOrderFilled
			var matched []*contracts.ExchangeOrdersMatched
			for _, l := range rcpt.Logs {
				if l.Address != exAddr {
					continue
				}
				switch l.Topics[0] {
				case topicOrderFilledV2:
					f, err := ex.ParseOrderFilled(*l)
					if err != nil {
						t.Fatal(err)
					}
					fills = append(fills, f)
				case topicOrdersMatchedV2:
					mt, err := ex.ParseOrdersMatched(*l)
					if err != nil {
						t.Fatal(err)
					}
					matched = append(matched, mt)
				default:
					t.Errorf("unexpected exchange log %s", l.Topics[0])
				}
			}
			if len(fills) != 3 || len(matched) != 1 {
				t.Fatalf("got %d OrderFilled, %d OrdersMatched", len(fills), len(matched))
			}
			wantFills := []struct {
				hash         [32]byte
				maker, taker common.Address
				side         uint8
				mk, tk, fee  int64
			}{
				{match.Makers[0].OrderHash, mma, buyer, 1, 30_000_000, 18_000_000, 100_000},
				{match.Makers[1].OrderHash, owa, buyer, 1, 10_000_000, 6_200_000, 0},
				{match.Taker.OrderHash, buyer, exAddr, 0, 24_200_000, 40_000_000, 500_000},
			}
			for i, w := range wantFills {
				f := fills[i]
				if f.OrderHash != w.hash || f.Maker != w.maker || f.Taker != w.taker || f.Side != w.side ||
					f.TokenId.Cmp(yes) != 0 || f.MakerAmountFilled.Int64() != w.mk || f.TakerAmountFilled.Int64() != w.tk ||
					f.Fee.Int64() != w.fee {
					t.Errorf("fill %d = %+v", i, f)
				}
				// topic2 is the maker: the copy-trading filter.
				if common.BytesToAddress(f.Raw.Topics[2].Bytes()) != w.maker {
					t.Errorf("fill %d topic2 %s", i, f.Raw.Topics[2])
				}
			}
			if fills[2].Builder != match.Taker.Builder || fills[2].Metadata != match.Taker.Metadata {
				t.Errorf("builder/metadata not echoed")
			}
			mt := matched[0]
			if mt.TakerOrderHash != match.Taker.OrderHash || mt.TakerOrderMaker != buyer || mt.Side != 0 ||
				mt.TokenId.Cmp(yes) != 0 || mt.MakerAmountFilled.Int64() != 24_200_000 || mt.TakerAmountFilled.Int64() != 40_000_000 {
				t.Errorf("orders matched = %+v", mt)
			}
		})
	}
}

func TestSettleRejections(t *testing.T) {
	c := newTestChain(t)
	ctx := ctxT(t)
	b := bindAll(t, c)
	m, err := c.PrepareMarket(ctx, crypto.Keccak256Hash([]byte("rejections")), false)
	if err != nil {
		t.Fatal(err)
	}
	yes := m.TokenIDs[0]
	mm := address(c.MarketMaker())
	if err := c.SplitTo(ctx, c.MarketMaker(), m.ConditionID, big.NewInt(5_000_000)); err != nil {
		t.Fatal(err)
	}
	buyer := address(c.OutsideWallets()[0])
	// A funded wallet that never approved anything.
	stranger := newKey(t)
	sa := address(stranger)
	if err := c.Fund(ctx, sa, big.NewInt(50_000_000), big.NewInt(1e18)); err != nil {
		t.Fatal(err)
	}
	if err := c.SplitTo(ctx, stranger, m.ConditionID, big.NewInt(5_000_000)); err != nil {
		t.Fatal(err)
	}
	buy := func(taker common.Address, makers ...Fill) Match {
		var give, get int64
		for _, f := range makers {
			give += f.MakerAmount.Int64()
			get += f.TakerAmount.Int64()
		}
		return Match{
			Taker:  Fill{OrderHash: [32]byte{1}, Maker: taker, Side: Buy, TokenID: yes, MakerAmount: big.NewInt(get), TakerAmount: big.NewInt(give)},
			Makers: makers,
		}
	}
	sell := func(maker common.Address, shares, usdc int64) Fill {
		return Fill{OrderHash: [32]byte{2}, Maker: maker, Side: Sell, TokenID: yes, MakerAmount: big.NewInt(shares), TakerAmount: big.NewInt(usdc)}
	}
	tests := []struct {
		name      string
		match     Match
		kind      venue.Category
		code      string
		account   common.Address
		token     *big.Int
		allowance bool
	}{
		{"maker lacks tokens", buy(buyer, sell(mm, 6_000_000, 3_000_000)), venue.Rejected, CodeInsufficientBalance, mm, yes, false},
		{"maker not approved", buy(buyer, sell(sa, 1_000_000, 500_000)), venue.Rejected, CodeInsufficientAllowance, sa, yes, true},
		{"taker lacks allowance", buy(sa, sell(mm, 1_000_000, 500_000)), venue.Rejected, CodeInsufficientAllowance, sa, big.NewInt(0), true},
		{"taker lacks collateral", buy(buyer, sell(mm, 1_000_000, 900_000_000_000)), venue.Rejected, CodeInsufficientBalance, buyer, big.NewInt(0), false},
		{"unbalanced", Match{Taker: sell(buyer, 1, 1), Makers: []Fill{sell(mm, 1, 1)}}, venue.Rejected, CodeReverted, common.Address{}, nil, false},
		{"no makers", Match{Taker: sell(buyer, 1, 1)}, venue.Invalid, "", common.Address{}, nil, false},
		{"nil amount", Match{Taker: Fill{Maker: buyer, TokenID: yes}, Makers: []Fill{sell(mm, 1, 1)}}, venue.Invalid, "", common.Address{}, nil, false},
	}
	mmYes := tokBalance(t, b, mm, yes)
	buyerColl := collBalance(t, b, buyer)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Settle(ctx, false, tc.match)
			if venue.CategoryOf(err) != tc.kind || venue.CodeOf(err) != tc.code {
				t.Fatalf("err %v (kind %s code %q)", err, venue.CategoryOf(err), venue.CodeOf(err))
			}
			if tc.token == nil {
				return
			}
			var fe *FundsError
			if !errors.As(err, &fe) {
				t.Fatalf("no FundsError in %v", err)
			}
			if fe.Account != tc.account || fe.TokenID.Cmp(tc.token) != 0 || fe.Allowance != tc.allowance {
				t.Errorf("funds error %+v", fe)
			}
			if msg := venue.MessageOf(err); msg != "not enough balance / allowance" {
				t.Errorf("public message %q", msg)
			}
		})
	}
	wantBig(t, "mm yes untouched", tokBalance(t, b, mm, yes), mmYes.Int64())
	wantBig(t, "buyer collateral untouched", collBalance(t, b, buyer), buyerColl.Int64())
}

// TestSettleRevertedOnChainIsExplained covers the race the engine cannot
// see: two matches pass estimation against the same state but only the
// first can be paid. The loser must still report the short maker.
func TestSettleRevertedOnChainIsExplained(t *testing.T) {
	c := newTestChain(t)
	ctx := ctxT(t)
	m, err := c.PrepareMarket(ctx, crypto.Keccak256Hash([]byte("race")), false)
	if err != nil {
		t.Fatal(err)
	}
	seller := c.OutsideWallets()[2]
	sa := address(seller)
	if err := c.SplitTo(ctx, seller, m.ConditionID, big.NewInt(3_000_000)); err != nil {
		t.Fatal(err)
	}
	buyer := address(c.OutsideWallets()[0])
	match := func(tag string) Match {
		return Match{
			Taker: Fill{OrderHash: crypto.Keccak256Hash([]byte("t" + tag)), Maker: buyer, Side: Buy, TokenID: m.TokenIDs[0],
				MakerAmount: big.NewInt(1_500_000), TakerAmount: big.NewInt(3_000_000)},
			Makers: []Fill{{OrderHash: crypto.Keccak256Hash([]byte("m" + tag)), Maker: sa, Side: Sell, TokenID: m.TokenIDs[0],
				MakerAmount: big.NewInt(3_000_000), TakerAmount: big.NewInt(1_500_000)}},
		}
	}
	ex, err := contracts.NewExchange(c.Network().Exchange, c.Client())
	if err != nil {
		t.Fatal(err)
	}
	sendMatch := func(mt Match) (*types.Transaction, error) {
		return c.send(ctx, c.Operator(), nil, func(o *bind.TransactOpts) (*types.Transaction, error) {
			return ex.MatchOrders(o, mt.Taker.binding(), []contracts.ExchangeFill{mt.Makers[0].binding()})
		})
	}
	if _, err := sendMatch(match("1")); err != nil {
		t.Fatal(err)
	}
	tx2, err := sendMatch(match("2"))
	if err == nil {
		// Estimated on the latest block: the second send went through and
		// must revert when mined after the first.
		rcpt, werr := c.WaitMined(ctx, tx2.Hash())
		if werr == nil {
			t.Fatal("second settlement of the same shares succeeded")
		}
		err = c.explainRevert(ctx, tx2, rcpt, werr)
		t.Log("reverted on chain; explained")
	}
	var fe *FundsError
	if !errors.As(err, &fe) || fe.Account != sa || fe.Allowance {
		t.Fatalf("want a balance FundsError for %s, got %v", sa, err)
	}
	if venue.CodeOf(err) != CodeInsufficientBalance {
		t.Errorf("code %q", venue.CodeOf(err))
	}
}
