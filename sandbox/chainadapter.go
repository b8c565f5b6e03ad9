package sandbox

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	schain "github.com/agent-trading/ats/sandbox/chain"
	"github.com/agent-trading/ats/sandbox/exchange"
	"github.com/agent-trading/ats/sandbox/markets"
	"github.com/agent-trading/ats/venue"
	vchain "github.com/agent-trading/ats/venue/chain"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/network"
)

// evmChain adapts the sandbox EVM chain to the venue: reads through the
// venue client (balances, allowances, approvals, exactly what a Polygon
// client would read) and writes through the chain's operator helpers
// (matchOrders settlement, condition preparation and resolution, splits,
// minting).
type evmChain struct {
	c   *schain.Chain
	cl  *vchain.Client
	net network.Network
}

var _ markets.Chain = (*evmChain)(nil)

func newEVMChain(c *schain.Chain, n network.Network) *evmChain {
	return &evmChain{c: c, cl: vchain.New(n, c.Client(), vchain.Options{}), net: n}
}

// Funds implements exchange.Ledger.
func (a *evmChain) Funds(ctx context.Context, owner common.Address, tokenID string, negRisk bool) (*big.Int, *big.Int, error) {
	spender := a.net.ExchangeFor(negRisk)
	if tokenID == "" {
		bal, err := a.cl.CollateralBalance(ctx, owner)
		if err != nil {
			return nil, nil, err
		}
		allow, err := a.cl.CollateralAllowance(ctx, owner, spender)
		if err != nil {
			return nil, nil, err
		}
		return bal, allow, nil
	}
	id, ok := new(big.Int).SetString(tokenID, 10)
	if !ok {
		return nil, nil, venue.E(venue.Invalid, "Invalid token id")
	}
	bal, err := a.cl.OutcomeBalance(ctx, owner, id)
	if err != nil {
		return nil, nil, err
	}
	approved, err := a.cl.IsApprovedForAll(ctx, owner, spender)
	if err != nil {
		return nil, nil, err
	}
	if !approved {
		return bal, new(big.Int), nil
	}
	return bal, bal, nil
}

func fillOf(o *exchange.Order, side exchange.Side, makerAmount, takerAmount uint64) (schain.Fill, error) {
	tok, ok := new(big.Int).SetString(o.TokenID, 10)
	if !ok {
		return schain.Fill{}, venue.E(venue.Invalid, "Invalid token id")
	}
	f := schain.Fill{
		OrderHash: common.HexToHash(o.ID), Maker: o.Maker, Side: schain.Side(side), TokenID: tok,
		MakerAmount: new(big.Int).SetUint64(makerAmount), TakerAmount: new(big.Int).SetUint64(takerAmount),
	}
	if so, ok := o.Signed.(clob.Order); ok {
		f.Builder, f.Metadata = so.Builder, so.Metadata
	}
	return f, nil
}

// Settle implements exchange.Settler with the exchange's matchOrders: each
// order's fill in its own orientation (what its maker gives, what it gets).
func (a *evmChain) Settle(ctx context.Context, m exchange.Match) (exchange.Settlement, error) {
	taker, err := fillOf(m.Taker, m.Taker.Side, m.TakerFillAmount, m.TakerReceives)
	if err != nil {
		return exchange.Settlement{}, err
	}
	sm := schain.Match{Taker: taker}
	for _, f := range m.Makers {
		gets := f.Collateral // a SELL maker gets collateral
		if f.Order.Side == exchange.Buy {
			gets = f.Shares
		}
		mf, err := fillOf(f.Order, f.Order.Side, f.MakerFillAmount, gets)
		if err != nil {
			return exchange.Settlement{}, err
		}
		sm.Makers = append(sm.Makers, mf)
	}
	h, err := a.c.Settle(ctx, m.Market.NegRisk, sm)
	if err != nil {
		return exchange.Settlement{}, err
	}
	return exchange.Settlement{TxHash: h}, nil
}

// PrepareMarket implements markets.Chain.
func (a *evmChain) PrepareMarket(ctx context.Context, questionID common.Hash, negRisk bool) (markets.PreparedMarket, error) {
	m, err := a.c.PrepareMarket(ctx, questionID, negRisk)
	if venue.Is(err, venue.Conflict) && a.c.Restored() {
		// Prepared by an earlier run that stopped before it recorded the
		// listing: the venue lists it now.
		m, err = a.c.MarketFor(questionID, negRisk), nil
	}
	if err != nil {
		return markets.PreparedMarket{}, err
	}
	return markets.PreparedMarket{ConditionID: m.ConditionID, TokenIDs: m.TokenIDs}, nil
}

// Resolve implements markets.Chain.
func (a *evmChain) Resolve(ctx context.Context, conditionID common.Hash, _ bool, winner int) error {
	return a.c.Resolve(ctx, conditionID, winner)
}

// SplitTo implements markets.Chain.
func (a *evmChain) SplitTo(ctx context.Context, key *ecdsa.PrivateKey, conditionID common.Hash, _ bool, amount uint64) error {
	return a.c.SplitTo(ctx, key, conditionID, new(big.Int).SetUint64(amount))
}

// Fund implements markets.Chain.
func (a *evmChain) Fund(ctx context.Context, addr common.Address, collateral uint64, nativeWei *big.Int) error {
	return a.c.Fund(ctx, addr, new(big.Int).SetUint64(collateral), nativeWei)
}

// MarketMaker implements markets.Chain.
func (a *evmChain) MarketMaker() *ecdsa.PrivateKey { return a.c.MarketMaker() }

// OutsideWallets implements markets.Chain.
func (a *evmChain) OutsideWallets() []*ecdsa.PrivateKey { return a.c.OutsideWallets() }

// FindSettlement implements exchange.SettlementFinder.
func (a *evmChain) FindSettlement(ctx context.Context, negRisk bool, takerOrderID string, since time.Time) (exchange.Settlement, bool, error) {
	tx, block, found, err := a.c.FindSettlement(ctx, negRisk, common.HexToHash(takerOrderID), since)
	if err != nil || !found {
		return exchange.Settlement{}, false, err
	}
	return exchange.Settlement{TxHash: tx, Block: block}, true, nil
}
