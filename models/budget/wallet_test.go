package budget_test

import (
	"context"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/assert"

	"github.com/agent-trading/ats/models/budget"
	"github.com/agent-trading/ats/models/errs"
)

type finder struct {
	addr common.Address
	kind string
	err  error
}

func (f finder) TradingWallet(context.Context, string) (common.Address, string, error) {
	return f.addr, f.kind, f.err
}

type collateral struct {
	bal *big.Int
	err error
}

func (c collateral) CollateralBalance(context.Context, common.Address) (*big.Int, error) {
	return c.bal, c.err
}

func TestChainWallets(t *testing.T) {
	addr := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	huge, _ := new(big.Int).SetString("100000000000000000000000", 10)
	tests := []struct {
		name     string
		f        finder
		c        collateral
		want     int64
		wantKind errs.Kind
		wantCode string
	}{
		{"balance", finder{addr: addr, kind: "proxy"}, collateral{bal: big.NewInt(1_500_000)}, 1_500_000, 0, ""},
		{"saturates", finder{addr: addr, kind: "eoa"}, collateral{bal: huge}, 1<<63 - 1, 0, ""},
		{"generic not found", finder{err: errs.E(errs.NotFound, "wallet not found")}, collateral{}, 0, errs.NotFound, "no_wallet"},
		{"finder's own no_wallet", finder{err: errs.E(errs.NotFound, "none").WithCode("no_wallet")}, collateral{}, 0, errs.NotFound, "no_wallet"},
		{"store down", finder{err: errs.E(errs.Transient, "db")}, collateral{}, 0, errs.Transient, ""},
		{"chain down", finder{addr: addr}, collateral{err: errors.New("dial tcp: refused")}, 0, errs.Transient, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := budget.ChainWallets{Wallets: tc.f, Chain: tc.c}
			got, err := w.WalletBalance(context.Background(), "usr_1")
			if tc.wantKind != 0 {
				assert.Equal(t, tc.wantKind, errs.KindOf(err))
				if tc.wantCode != "" {
					e, _ := errs.As(err)
					assert.Equal(t, tc.wantCode, e.Code)
				}
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tc.want, got)
			info, err := w.Wallet(context.Background(), "usr_1")
			assert.NoError(t, err)
			assert.Equal(t, budget.WalletInfo{Address: addr, Type: tc.f.kind, CollateralMicro: tc.want}, info)
		})
	}
}
