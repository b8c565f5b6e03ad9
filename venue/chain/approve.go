package chain

import (
	"context"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"

	"github.com/agent-trading/ats/venue"
)

// ApproveToken selects which trading approvals to grant.
type ApproveToken string

// The approval sets of POST /wallet/approve.
const (
	// ApproveUSDC lets both exchanges and the neg-risk adapter spend collateral.
	ApproveUSDC ApproveToken = "USDC"
	// ApproveCTF lets both exchanges, the neg-risk adapter and the redeem
	// contracts move outcome tokens.
	ApproveCTF ApproveToken = "CTF"
	// ApproveNegRisk is both tokens for the neg-risk exchange and adapter.
	ApproveNegRisk ApproveToken = "NEG_RISK"
	// ApproveAll is every approval trading and redeeming need.
	ApproveAll ApproveToken = "all"
)

// ParseApproveToken accepts the API's token names, case-insensitively.
func ParseApproveToken(s string) (ApproveToken, error) {
	for _, t := range []ApproveToken{ApproveUSDC, ApproveCTF, ApproveNegRisk, ApproveAll} {
		if strings.EqualFold(s, string(t)) {
			return t, nil
		}
	}
	return "", venue.Ef(venue.Invalid, "unknown approval token %q (want USDC, CTF, NEG_RISK or all)", s).WithCode("invalid_token")
}

// Asset names used in Approval.Token.
const (
	AssetCollateral = "USDC"
	AssetCTF        = "CTF"
)

// Approval is one (asset, spender) approval.
type Approval struct {
	// Token is AssetCollateral or AssetCTF.
	Token   string         `json:"token"`
	Spender common.Address `json:"spender"`
	// TxHash is the transaction that granted it; zero for AlreadyApproved.
	TxHash common.Hash `json:"tx_hash,omitempty"`
}

// ApproveResult says what Approve did.
type ApproveResult struct {
	Approved        []Approval `json:"approved"`
	AlreadyApproved []Approval `json:"already_approved"`
}

// unlimitedThreshold: an allowance at least this large counts as the
// unlimited approval we grant (some tokens decrement even a max allowance).
var unlimitedThreshold = new(big.Int).Lsh(big.NewInt(1), 128)

// RequiredApprovals lists the approvals a token selection stands for, in the
// order Approve grants them.
func (c *Client) RequiredApprovals(token ApproveToken) ([]Approval, error) {
	n := c.net
	var col, ctf []common.Address
	switch token {
	case ApproveUSDC:
		col = []common.Address{n.Exchange, n.NegRiskExchange, n.NegRiskAdapter}
	case ApproveCTF:
		ctf = []common.Address{n.Exchange, n.NegRiskExchange, n.NegRiskAdapter, n.RedeemNormal, n.RedeemNegRisk}
	case ApproveNegRisk:
		col = []common.Address{n.NegRiskExchange, n.NegRiskAdapter}
		ctf = []common.Address{n.NegRiskExchange, n.NegRiskAdapter, n.RedeemNegRisk}
	case ApproveAll:
		col = []common.Address{n.Exchange, n.NegRiskExchange, n.NegRiskAdapter}
		ctf = []common.Address{n.Exchange, n.NegRiskExchange, n.NegRiskAdapter, n.RedeemNormal, n.RedeemNegRisk}
	default:
		return nil, venue.Ef(venue.Invalid, "unknown approval token %q", token).WithCode("invalid_token")
	}
	var out []Approval
	seen := map[Approval]bool{}
	add := func(asset string, spenders []common.Address) {
		for _, s := range spenders {
			// The conditional-tokens contract needs no approval to redeem its
			// own tokens (it is the sandbox's normal redeem target).
			if s == (common.Address{}) || (asset == AssetCTF && s == n.ConditionalTokens) {
				continue
			}
			a := Approval{Token: asset, Spender: s}
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	add(AssetCollateral, col)
	add(AssetCTF, ctf)
	return out, nil
}

// IsApproved reports whether the maker already granted a.
func (c *Client) IsApproved(ctx context.Context, maker common.Address, a Approval) (bool, error) {
	if a.Token == AssetCollateral {
		v, err := c.CollateralAllowance(ctx, maker, a.Spender)
		if err != nil {
			return false, err
		}
		return v.Cmp(unlimitedThreshold) >= 0, nil
	}
	return c.IsApprovedForAll(ctx, maker, a.Spender)
}

// Approve grants the selected approvals from the wallet's funder, skipping
// those already in place: calling it twice sends no second transaction. It
// stops at the first failure and returns what was done so far with the error.
func (c *Client) Approve(ctx context.Context, w Wallet, token ApproveToken) (ApproveResult, error) {
	res := ApproveResult{Approved: []Approval{}, AlreadyApproved: []Approval{}}
	req, err := c.RequiredApprovals(token)
	if err != nil {
		return res, err
	}
	if err := w.validate(); err != nil {
		return res, err
	}
	maker := w.Maker()
	for _, a := range req {
		ok, err := c.IsApproved(ctx, maker, a)
		if err != nil {
			return res, err
		}
		if ok {
			res.AlreadyApproved = append(res.AlreadyApproved, a)
			continue
		}
		var cl call
		if a.Token == AssetCollateral {
			data, err := erc20ABI.Pack("approve", a.Spender, math.MaxBig256)
			if err != nil {
				return res, venue.Wrap(venue.Internal, err, "encode approve")
			}
			cl = call{to: c.net.Collateral, data: data}
		} else {
			data, err := ctfABI.Pack("setApprovalForAll", a.Spender, true)
			if err != nil {
				return res, venue.Wrap(venue.Internal, err, "encode setApprovalForAll")
			}
			cl = call{to: c.net.ConditionalTokens, data: data}
		}
		r, err := c.execute(ctx, w, cl)
		if err != nil {
			return res, err
		}
		a.TxHash = r.TxHash
		res.Approved = append(res.Approved, a)
	}
	return res, nil
}
