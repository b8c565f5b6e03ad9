package wallets

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/venue/chain"
	"github.com/agent-trading/ats/venue/micro"
)

// Funder mints collateral and sends gas on a test chain;
// *sandbox/chain.Chain implements it.
type Funder interface {
	Fund(ctx context.Context, addr common.Address, collateralMicro *big.Int, nativeWei *big.Int) error
}

// Demo amounts: the trading wallet is topped up to DemoCollateralMicro
// (1000 pUSD) and the EOA to DemoGasWei when it has less than half of it.
var (
	DemoCollateralMicro = big.NewInt(1000 * micro.PerUnit)
	DemoGasWei          = new(big.Int).Mul(big.NewInt(10), big.NewInt(params.Ether))
)

// SeedDemo gives userID a ready-to-trade demo wallet on the sandbox chain:
// a venue proxy wallet (the kind most venue accounts have) for a key
// generated on first use and stored sealed like an imported one, with the
// trading wallet topped up to 1000 pUSD, gas for the EOA and every trading
// approval granted (the first approval deploys the proxy through the
// factory).
//
// It is idempotent: a user who already has a wallet keeps it (same key,
// same address), and only what is missing on the chain — gas, collateral
// below 1000 pUSD, approvals — is added, so re-running `ats dev --demo` on
// the same data dir against a fresh sandbox chain yields the same wallet.
// It refuses to run against a network other than the sandbox.
func (s *Service) SeedDemo(ctx context.Context, f Funder, userID string) (Wallet, error) {
	if s.Chain == nil {
		return Wallet{}, errs.E(errs.Internal, "the wallet service has no chain client")
	}
	if n := s.network(); n.Name != "sandbox" {
		return Wallet{}, errs.Ef(errs.Invalid, "demo wallets exist only on the sandbox, not on %s", n.Name)
	}
	if _, err := s.Store.WalletByUser(ctx, userID); errs.Is(err, errs.NotFound) {
		key, err := crypto.GenerateKey()
		if err != nil {
			return Wallet{}, errs.Wrap(errs.Internal, err, "generate the demo key")
		}
		owner := crypto.PubkeyToAddress(key.PublicKey)
		_, err = s.importKey(ctx, userID, key, chain.DeriveProxyAddress(s.network(), owner), "demo-seed")
		zeroKey(key)
		if err != nil {
			return Wallet{}, err
		}
	} else if err != nil {
		return Wallet{}, err
	}
	cw, err := s.ChainWallet(ctx, userID)
	if err != nil {
		return Wallet{}, err
	}
	gas, err := s.Chain.NativeBalance(ctx, cw.Owner)
	if err != nil {
		return Wallet{}, err
	}
	if gas.Cmp(new(big.Int).Rsh(DemoGasWei, 1)) < 0 {
		if err := f.Fund(ctx, cw.Owner, nil, new(big.Int).Sub(DemoGasWei, gas)); err != nil {
			return Wallet{}, err
		}
	}
	bal, err := s.Chain.CollateralBalance(ctx, cw.Maker())
	if err != nil {
		return Wallet{}, err
	}
	if bal.Cmp(DemoCollateralMicro) < 0 {
		if err := f.Fund(ctx, cw.Maker(), new(big.Int).Sub(DemoCollateralMicro, bal), nil); err != nil {
			return Wallet{}, err
		}
	}
	if _, err := s.Chain.Approve(ctx, cw, chain.ApproveAll); err != nil {
		return Wallet{}, err
	}
	s.log().InfoContext(ctx, "demo wallet ready", "user_id", userID, "address", cw.Maker().Hex(), "kind", cw.Kind.String())
	return s.Get(ctx, userID)
}
