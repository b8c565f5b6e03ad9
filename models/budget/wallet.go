package budget

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agent-trading/ats/models/errs"
)

// WalletInfo is a user's trading wallet with its live collateral balance.
type WalletInfo struct {
	// Address holds the funds (the venue maker: proxy/Safe address, or the
	// EOA itself).
	Address common.Address
	// Type is the API's walletType: "proxy" or "eoa".
	Type            string
	CollateralMicro int64
}

// WalletFinder finds the user's trading wallet: the address holding the
// funds and its type ("proxy" or "eoa"). A user without one is
// errs.NotFound. models/wallets.Service implements it.
type WalletFinder interface {
	TradingWallet(ctx context.Context, userID string) (common.Address, string, error)
}

// CollateralReader reads an address's collateral (pUSD/USDC) balance in
// micro-units; venue/chain.Client implements it.
type CollateralReader interface {
	CollateralBalance(ctx context.Context, addr common.Address) (*big.Int, error)
}

// ChainWallets reads wallet balances live from chain. It implements
// WalletBalancer and the account API's wallet reader.
type ChainWallets struct {
	Wallets WalletFinder
	Chain   CollateralReader
}

// errNoWallet is the one answer for a user without a trading wallet.
var errNoWallet = errs.E(errs.NotFound, "no trading wallet: import a wallet in the dashboard first").WithCode(errs.CodeNoWallet)

// Wallet returns the user's trading wallet and its balance.
func (w ChainWallets) Wallet(ctx context.Context, userID string) (WalletInfo, error) {
	addr, kind, err := w.Wallets.TradingWallet(ctx, userID)
	if e, ok := errs.As(err); ok && e.Kind == errs.NotFound && e.Code != errs.CodeNoWallet {
		// A finder's generic "not found": say what the user has to do.
		return WalletInfo{}, errNoWallet
	}
	if err != nil {
		return WalletInfo{}, err
	}
	bal, err := w.Chain.CollateralBalance(ctx, addr)
	if err != nil {
		if _, ok := errs.As(err); !ok {
			err = errs.Wrap(errs.Transient, err, "the chain is unavailable; retry later")
		}
		return WalletInfo{}, err
	}
	return WalletInfo{Address: addr, Type: kind, CollateralMicro: saturate(bal)}, nil
}

// WalletBalance implements WalletBalancer.
func (w ChainWallets) WalletBalance(ctx context.Context, userID string) (int64, error) {
	info, err := w.Wallet(ctx, userID)
	return info.CollateralMicro, err
}
