package chain

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agent-trading/ats/venue"
)

// RedeemPosition is one market to redeem.
type RedeemPosition struct {
	ConditionID common.Hash
	NegRisk     bool
	// TokenIDs are the market's outcome token ids [yes, no]. For a neg-risk
	// market without Amounts, the wallet's whole balances of them are
	// redeemed.
	TokenIDs []*big.Int
	// Amounts are the neg-risk amounts [yes, no] in base units; ignored for
	// normal markets, which always redeem the whole balance.
	Amounts []*big.Int
}

// RedeemResult is what one redemption paid.
type RedeemResult struct {
	ConditionID common.Hash `json:"condition_id"`
	// Payout is the collateral paid to the funder, in base units.
	Payout *big.Int    `json:"payout"`
	TxHash common.Hash `json:"tx_hash"`
}

// payoutRedemptionTopic is the CTF PayoutRedemption event id.
var payoutRedemptionTopic = ctfABI.Events["PayoutRedemption"].ID

// Redeem turns resolved positions into collateral, one transaction per
// market. Every market is checked to be resolved before anything is sent:
// an unresolved one fails the whole call with Conflict "not_resolved". On a
// later failure the results so far are returned with the error.
func (c *Client) Redeem(ctx context.Context, w Wallet, positions []RedeemPosition) ([]RedeemResult, error) {
	if err := w.validate(); err != nil {
		return nil, err
	}
	if len(positions) == 0 {
		return nil, venue.E(venue.Invalid, "no positions to redeem")
	}
	for _, p := range positions {
		den, err := c.PayoutDenominator(ctx, p.ConditionID)
		if err != nil {
			return nil, err
		}
		if den.Sign() <= 0 {
			return nil, venue.E(venue.Conflict, "market is not resolved yet").WithCode(CodeNotResolved).
				WithHint("redeem after the market resolves; condition " + p.ConditionID.Hex())
		}
	}
	maker := w.Maker()
	out := make([]RedeemResult, 0, len(positions))
	for _, p := range positions {
		cl, err := c.redeemCall(ctx, maker, p)
		if err != nil {
			return out, err
		}
		r, err := c.execute(ctx, w, cl)
		if err != nil {
			return out, err
		}
		paid, err := c.paidOut(ctx, maker, p, r)
		if err != nil {
			return out, err
		}
		out = append(out, RedeemResult{ConditionID: p.ConditionID, Payout: paid, TxHash: r.TxHash})
	}
	return out, nil
}

func (c *Client) redeemCall(ctx context.Context, maker common.Address, p RedeemPosition) (call, error) {
	// Normal markets, and on Polygon since the pUSD switch neg-risk markets
	// too, redeem through the CTF's own redeemPositions signature: on the
	// conditional tokens (sandbox) or the collateral adapters (Polygon,
	// reference §7.4). Only the neg-risk adapter itself takes amounts.
	if !p.NegRisk || c.net.RedeemNegRisk != c.net.NegRiskAdapter {
		to := c.net.RedeemNormal
		if p.NegRisk {
			to = c.net.RedeemNegRisk
		}
		data, err := ctfABI.Pack("redeemPositions", c.net.Collateral, common.Hash{}, p.ConditionID,
			[]*big.Int{big.NewInt(1), big.NewInt(2)})
		if err != nil {
			return call{}, venue.Wrap(venue.Internal, err, "encode redeemPositions")
		}
		return call{to: to, data: data}, nil
	}
	amounts := p.Amounts
	if len(amounts) == 0 {
		if len(p.TokenIDs) != 2 {
			return call{}, venue.E(venue.Invalid, "a neg-risk redemption needs the market's two token ids or the amounts")
		}
		amounts = make([]*big.Int, 2)
		for i, id := range p.TokenIDs {
			b, err := c.OutcomeBalance(ctx, maker, id)
			if err != nil {
				return call{}, err
			}
			amounts[i] = b
		}
	}
	if len(amounts) != 2 {
		return call{}, venue.E(venue.Invalid, "a neg-risk redemption takes two amounts [yes, no]")
	}
	data, err := negRiskAdapterABI.Pack("redeemPositions", p.ConditionID, amounts)
	if err != nil {
		return call{}, venue.Wrap(venue.Internal, err, "encode redeemPositions")
	}
	return call{to: c.net.RedeemNegRisk, data: data}, nil
}

// paidOut is the collateral the redemption paid the maker: the CTF's
// PayoutRedemption log when the maker redeemed directly, otherwise the
// maker's collateral balance change across the redemption's block.
func (c *Client) paidOut(ctx context.Context, maker common.Address, p RedeemPosition, r *types.Receipt) (*big.Int, error) {
	if !p.NegRisk {
		for _, l := range r.Logs {
			if l.Address != c.net.ConditionalTokens || len(l.Topics) != 4 || l.Topics[0] != payoutRedemptionTopic ||
				common.BytesToAddress(l.Topics[1].Bytes()) != maker {
				continue
			}
			vals, err := ctfABI.Unpack("PayoutRedemption", l.Data)
			if err != nil || len(vals) != 3 {
				continue
			}
			if cond, ok := vals[0].([32]byte); ok && common.Hash(cond) == p.ConditionID {
				if payout, ok := vals[2].(*big.Int); ok {
					return payout, nil
				}
			}
		}
	}
	before, err := c.collateralAt(ctx, maker, new(big.Int).Sub(r.BlockNumber, big.NewInt(1)))
	if err != nil {
		return nil, err
	}
	after, err := c.collateralAt(ctx, maker, r.BlockNumber)
	if err != nil {
		return nil, err
	}
	return after.Sub(after, before), nil
}

func (c *Client) collateralAt(ctx context.Context, addr common.Address, block *big.Int) (*big.Int, error) {
	data, err := erc20ABI.Pack("balanceOf", addr)
	if err != nil {
		return nil, venue.Wrap(venue.Internal, err, "encode balanceOf")
	}
	to := c.net.Collateral
	res, err := c.b.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, block)
	if err != nil {
		return nil, classifyRPC(err, "read the collateral balance")
	}
	return new(big.Int).SetBytes(res), nil
}
