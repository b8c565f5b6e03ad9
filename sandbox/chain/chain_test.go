package chain

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/contracts"
)

// hardhat0 is Hardhat's account #0, the owner of the golden vectors.
const hardhat0 = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"

func mustKey(t *testing.T, hexKey string) *ecdsa.PrivateKey {
	t.Helper()
	k, err := crypto.HexToECDSA(hexKey)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// newTestChain starts a manual-mode chain (blocks only on Commit).
func newTestChain(t *testing.T, extra ...common.Address) *Chain {
	t.Helper()
	c, err := New(Config{ExtraFunded: extra})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return c
}

func ctxT(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

type bound struct {
	coll    *contracts.Collateral
	ctf     *contracts.ConditionalTokens
	adapter *contracts.NegRiskAdapter
	call    *bind.CallOpts
}

func bindAll(t *testing.T, c *Chain) bound {
	t.Helper()
	n := c.Network()
	coll, err := contracts.NewCollateral(n.Collateral, c.Client())
	if err != nil {
		t.Fatal(err)
	}
	ctf, err := contracts.NewConditionalTokens(n.ConditionalTokens, c.Client())
	if err != nil {
		t.Fatal(err)
	}
	adapter, err := contracts.NewNegRiskAdapter(n.NegRiskAdapter, c.Client())
	if err != nil {
		t.Fatal(err)
	}
	return bound{coll, ctf, adapter, &bind.CallOpts{}}
}

func collBalance(t *testing.T, b bound, a common.Address) *big.Int {
	t.Helper()
	v, err := b.coll.BalanceOf(b.call, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func tokBalance(t *testing.T, b bound, a common.Address, id *big.Int) *big.Int {
	t.Helper()
	v, err := b.ctf.BalanceOf(b.call, a, id)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func wantBig(t *testing.T, what string, got *big.Int, want int64) {
	t.Helper()
	if got.Cmp(big.NewInt(want)) != 0 {
		t.Errorf("%s = %s, want %d", what, got, want)
	}
}

func TestGenesisPlacesContractsAndConfig(t *testing.T) {
	c := newTestChain(t)
	ctx := ctxT(t)
	n := c.Network()
	id, err := c.Client().ChainID(ctx)
	if err != nil || id.Int64() != 80002 {
		t.Fatalf("chain id %v, %v", id, err)
	}
	for name, a := range map[string]common.Address{
		"collateral": n.Collateral, "ctf": n.ConditionalTokens, "exchange": n.Exchange,
		"negRiskExchange": n.NegRiskExchange, "adapter": n.NegRiskAdapter, "proxyFactory": n.ProxyFactory,
		"proxyImpl": contracts.ProxyWalletImplementation, "safeFactory": n.SafeFactory,
		"safeSingleton": contracts.SafeSingleton, "depositFactory": n.DepositWalletFactory,
		"depositImpl": contracts.DepositWalletImplementation,
	} {
		code, err := c.Client().CodeAt(ctx, a, nil)
		if err != nil || len(code) == 0 {
			t.Errorf("%s at %s: no code (%v)", name, a, err)
		}
	}
	b := bindAll(t, c)
	op := address(c.Operator())
	if got, _ := b.coll.Operator(b.call); got != op {
		t.Errorf("collateral operator %s", got)
	}
	if d, _ := b.coll.Decimals(b.call); d != 6 {
		t.Errorf("decimals %d", d)
	}
	for _, exAddr := range []common.Address{n.Exchange, n.NegRiskExchange} {
		ex, err := contracts.NewExchange(exAddr, c.Client())
		if err != nil {
			t.Fatal(err)
		}
		gotOp, _ := ex.Operator(b.call)
		gotColl, _ := ex.Collateral(b.call)
		gotCTF, _ := ex.Ctf(b.call)
		if gotOp != op || gotColl != n.Collateral || gotCTF != n.ConditionalTokens {
			t.Errorf("exchange %s config %s %s %s", exAddr, gotOp, gotColl, gotCTF)
		}
	}
	gotOp, _ := b.adapter.Operator(b.call)
	gotCTF, _ := b.adapter.Ctf(b.call)
	gotCol, _ := b.adapter.Col(b.call)
	if gotOp != op || gotCTF != n.ConditionalTokens || gotCol != n.Collateral {
		t.Errorf("adapter config %s %s %s", gotOp, gotCTF, gotCol)
	}
	pf, _ := contracts.NewProxyWalletFactory(n.ProxyFactory, c.Client())
	if impl, _ := pf.GetImplementation(b.call); impl != contracts.ProxyWalletImplementation {
		t.Errorf("proxy implementation %s", impl)
	}
	sf, _ := contracts.NewSafeFactory(n.SafeFactory, c.Client())
	if s, _ := sf.Singleton(b.call); s != contracts.SafeSingleton {
		t.Errorf("safe singleton %s", s)
	}
	mm := address(c.MarketMaker())
	if got := collBalance(t, b, mm); got.Cmp(MarketMakerCollateral) != 0 {
		t.Errorf("market maker collateral %s", got)
	}
	for _, w := range append(c.OutsideWallets(), c.MarketMaker()) {
		a := address(w)
		for _, spender := range []common.Address{n.Exchange, n.NegRiskExchange, n.NegRiskAdapter} {
			if ok, _ := b.ctf.IsApprovedForAll(b.call, a, spender); !ok {
				t.Errorf("%s has no CTF approval for %s", a, spender)
			}
			if al, _ := b.coll.Allowance(b.call, a, spender); al.Cmp(maxUint256) != 0 {
				t.Errorf("%s allowance for %s = %s", a, spender, al)
			}
		}
		bal, err := c.Client().BalanceAt(ctx, a, nil)
		if err != nil || bal.Sign() == 0 {
			t.Errorf("%s has no gas: %v %v", a, bal, err)
		}
	}
	if len(c.OutsideWallets()) != NumOutsideWallets {
		t.Errorf("outside wallets %d", len(c.OutsideWallets()))
	}
}

func TestFund(t *testing.T) {
	c := newTestChain(t)
	ctx := ctxT(t)
	b := bindAll(t, c)
	who := address(newKey(t))
	if err := c.Fund(ctx, who, big.NewInt(1_500_000), big.NewInt(1e18)); err != nil {
		t.Fatal(err)
	}
	if err := c.Fund(ctx, who, big.NewInt(500_000), nil); err != nil {
		t.Fatal(err)
	}
	wantBig(t, "collateral", collBalance(t, b, who), 2_000_000)
	nat, err := c.Client().BalanceAt(ctx, who, nil)
	if err != nil || nat.Cmp(big.NewInt(1e18)) != 0 {
		t.Errorf("native %v %v", nat, err)
	}
	tests := []struct {
		name string
		addr common.Address
		coll *big.Int
		kind venue.Category
	}{
		{"zero address", common.Address{}, big.NewInt(1), venue.Invalid},
		{"negative", who, big.NewInt(-1), venue.Invalid},
	}
	for _, tc := range tests {
		if err := c.Fund(ctx, tc.addr, tc.coll, nil); venue.CategoryOf(err) != tc.kind {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

func TestPrepareSplitResolveRedeem(t *testing.T) {
	c := newTestChain(t)
	ctx := ctxT(t)
	b := bindAll(t, c)
	n := c.Network()
	for _, tc := range []struct {
		name    string
		negRisk bool
		winner  int
		// collateralAdapterForm redeems a neg-risk market with the
		// 4-argument (Polygon collateral adapter) signature.
		collateralAdapterForm bool
	}{
		{"ctf yes wins", false, 0, false},
		{"ctf no wins", false, 1, false},
		{"neg-risk yes wins", true, 0, false},
		{"neg-risk no wins", true, 1, false},
		{"neg-risk adapter 4-arg form", true, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := crypto.Keccak256Hash([]byte(tc.name))
			m, err := c.PrepareMarket(ctx, q, tc.negRisk)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.PrepareMarket(ctx, q, tc.negRisk); venue.CategoryOf(err) != venue.Conflict {
				t.Errorf("second prepare: %v", err)
			}
			// Token ids computed in Go equal the contract's.
			for i, indexSet := range []int64{1, 2} {
				coll, _ := b.ctf.GetCollectionId(b.call, [32]byte{}, m.ConditionID, big.NewInt(indexSet))
				pos, _ := b.ctf.GetPositionId(b.call, n.Collateral, coll)
				if pos.Cmp(m.TokenIDs[i]) != 0 {
					t.Errorf("token %d: %s vs contract %s", i, m.TokenIDs[i], pos)
				}
			}
			if tc.negRisk {
				yes, _ := b.adapter.GetPositionId(b.call, m.ConditionID, true)
				if yes.Cmp(m.TokenIDs[0]) != 0 {
					t.Errorf("adapter yes id %s", yes)
				}
			}
			user := newKey(t)
			ua := address(user)
			if err := c.Fund(ctx, ua, big.NewInt(1_000_000), big.NewInt(1e18)); err != nil {
				t.Fatal(err)
			}
			// 5 shares each side: 1 pUSD own + 4 minted by SplitTo.
			if err := c.SplitTo(ctx, user, m.ConditionID, big.NewInt(5_000_000)); err != nil {
				t.Fatal(err)
			}
			wantBig(t, "collateral after split", collBalance(t, b, ua), 0)
			wantBig(t, "yes", tokBalance(t, b, ua, m.TokenIDs[0]), 5_000_000)
			wantBig(t, "no", tokBalance(t, b, ua, m.TokenIDs[1]), 5_000_000)
			// Sell 2 YES shares away so the holdings are asymmetric.
			other := address(newKey(t))
			if _, err := c.transact(ctx, user, nil, func(o *bind.TransactOpts) (*types.Transaction, error) {
				return b.ctf.SafeTransferFrom(o, ua, other, m.TokenIDs[0], big.NewInt(2_000_000), nil)
			}); err != nil {
				t.Fatal(err)
			}
			if tc.negRisk {
				if _, err := c.transact(ctx, user, nil, func(o *bind.TransactOpts) (*types.Transaction, error) {
					return b.ctf.SetApprovalForAll(o, n.NegRiskAdapter, true)
				}); err != nil {
					t.Fatal(err)
				}
			}
			redeem := func() error {
				_, err := c.transact(ctx, user, nil, func(o *bind.TransactOpts) (*types.Transaction, error) {
					switch {
					case tc.collateralAdapterForm:
						return b.adapter.RedeemPositions(o, n.Collateral, [32]byte{}, m.ConditionID, []*big.Int{big.NewInt(1), big.NewInt(2)})
					case tc.negRisk:
						return b.adapter.RedeemPositions0(o, m.ConditionID, []*big.Int{big.NewInt(3_000_000), big.NewInt(5_000_000)})
					}
					return b.ctf.RedeemPositions(o, n.Collateral, [32]byte{}, m.ConditionID, []*big.Int{big.NewInt(1), big.NewInt(2)})
				})
				return err
			}
			if err := redeem(); venue.CategoryOf(err) != venue.Rejected {
				t.Fatalf("redeem before resolution: %v", err)
			}
			if err := c.Resolve(ctx, m.ConditionID, tc.winner); err != nil {
				t.Fatal(err)
			}
			if err := c.Resolve(ctx, m.ConditionID, tc.winner); venue.CategoryOf(err) != venue.Conflict {
				t.Errorf("second resolve: %v", err)
			}
			den, _ := b.ctf.PayoutDenominator(b.call, m.ConditionID)
			wantBig(t, "payout denominator", den, 1)
			if err := redeem(); err != nil {
				t.Fatal(err)
			}
			want := int64(3_000_000)
			if tc.winner == 1 {
				want = 5_000_000
			}
			wantBig(t, "payout", collBalance(t, b, ua), want)
			wantBig(t, "yes after redeem", tokBalance(t, b, ua, m.TokenIDs[0]), 0)
			wantBig(t, "no after redeem", tokBalance(t, b, ua, m.TokenIDs[1]), 0)
			if tc.negRisk {
				wantBig(t, "adapter keeps nothing", collBalance(t, b, n.NegRiskAdapter), 0)
			}
		})
	}
	if err := c.Resolve(ctx, crypto.Keccak256Hash([]byte("unknown")), 0); venue.CategoryOf(err) != venue.NotFound {
		t.Errorf("resolve unknown: %v", err)
	}
	if err := c.Resolve(ctx, crypto.Keccak256Hash([]byte("unknown")), 2); venue.CategoryOf(err) != venue.Invalid {
		t.Errorf("resolve bad index: %v", err)
	}
}
