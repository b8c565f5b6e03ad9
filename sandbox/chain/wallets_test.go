package chain

import (
	"crypto/ecdsa"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/contracts"
	"github.com/agent-trading/ats/venue/network"
)

func collateralABI(t *testing.T) *abi.ABI {
	t.Helper()
	a, err := contracts.CollateralMetaData.GetAbi()
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func pack(t *testing.T, a *abi.ABI, method string, args ...any) []byte {
	t.Helper()
	data, err := a.Pack(method, args...)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestProxyWalletFactory(t *testing.T) {
	owner := mustKey(t, hardhat0)
	oa := address(owner)
	c := newTestChain(t, oa)
	ctx := ctxT(t)
	b := bindAll(t, c)
	n := c.Network()
	want := common.HexToAddress("0x365f0CA36Ae1f641E02fE3B7743673da42A13A70") // golden vectors
	pf, err := contracts.NewProxyWalletFactory(n.ProxyFactory, c.Client())
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := pf.ComputeProxyAddress(b.call, oa); got != want {
		t.Fatalf("factory predicts %s, want %s", got, want)
	}
	if got := contracts.ProxyWalletAddress(n.ProxyFactory, contracts.ProxyWalletImplementation, oa); got != want {
		t.Fatalf("go derivation %s", got)
	}
	if code, _ := c.Client().CodeAt(ctx, want, nil); len(code) != 0 {
		t.Fatal("wallet exists before first use")
	}
	if err := c.Fund(ctx, want, big.NewInt(7_000_000), nil); err != nil {
		t.Fatal(err)
	}
	recipient := address(newKey(t))
	ca := collateralABI(t)
	calls := []contracts.ProxyWalletFactoryProxyCall{
		{TypeCode: 1, To: n.Collateral, Value: new(big.Int), Data: pack(t, ca, "transfer", recipient, big.NewInt(2_000_000))},
		{TypeCode: 1, To: n.Collateral, Value: new(big.Int), Data: pack(t, ca, "approve", n.Exchange, big.NewInt(123))},
	}
	if _, err := c.transact(ctx, owner, nil, func(o *bind.TransactOpts) (*types.Transaction, error) {
		return pf.Proxy(o, calls)
	}); err != nil {
		t.Fatal(err)
	}
	if code, _ := c.Client().CodeAt(ctx, want, nil); len(code) == 0 {
		t.Fatal("wallet not deployed at the mainnet-derived address")
	}
	wantBig(t, "wallet balance", collBalance(t, b, want), 5_000_000)
	wantBig(t, "recipient", collBalance(t, b, recipient), 2_000_000)
	if al, _ := b.coll.Allowance(b.call, want, n.Exchange); al.Int64() != 123 {
		t.Errorf("allowance from wallet %s", al)
	}
	// Second use reuses the wallet; a failing inner call reverts the batch.
	bad := []contracts.ProxyWalletFactoryProxyCall{
		{TypeCode: 1, To: n.Collateral, Value: new(big.Int), Data: pack(t, ca, "transfer", recipient, big.NewInt(1_000_000))},
		{TypeCode: 1, To: n.Collateral, Value: new(big.Int), Data: pack(t, ca, "transfer", recipient, big.NewInt(100_000_000))},
	}
	_, err = c.transact(ctx, owner, nil, func(o *bind.TransactOpts) (*types.Transaction, error) { return pf.Proxy(o, bad) })
	if venue.CodeOf(err) != CodeInsufficientBalance {
		t.Errorf("failing batch: %v", err)
	}
	wantBig(t, "batch reverted", collBalance(t, b, want), 5_000_000)
	// The wallet obeys only the factory.
	w, err := contracts.NewProxyWallet(want, c.Client())
	if err != nil {
		t.Fatal(err)
	}
	if f, _ := w.Factory(b.call); f != n.ProxyFactory {
		t.Errorf("wallet factory %s", f)
	}
	direct := []contracts.ProxyWalletWalletCall{{TypeCode: 1, To: n.Collateral, Value: new(big.Int), Data: pack(t, ca, "transfer", oa, big.NewInt(1))}}
	if _, err := c.transact(ctx, owner, nil, func(o *bind.TransactOpts) (*types.Transaction, error) { return w.Proxy(o, direct) }); venue.CategoryOf(err) != venue.Rejected {
		t.Errorf("direct wallet call: %v", err)
	}
	// Another EOA gets its own wallet, not the owner's.
	other := newKey(t)
	if err := c.Fund(ctx, address(other), nil, big.NewInt(1e18)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.transact(ctx, other, nil, func(o *bind.TransactOpts) (*types.Transaction, error) { return pf.Proxy(o, calls[:1]) }); venue.CodeOf(err) != CodeInsufficientBalance {
		t.Errorf("other EOA spent from someone's wallet? %v", err)
	}
}

// safeTxDigest is the EIP-712 SafeTx digest computed independently of the contract.
func safeTxDigest(chainID int64, safe, to common.Address, value *big.Int, data []byte, nonce *big.Int) common.Hash {
	word := func(b []byte) []byte { return common.LeftPadBytes(b, 32) }
	domain := crypto.Keccak256(
		crypto.Keccak256([]byte("EIP712Domain(uint256 chainId,address verifyingContract)")),
		word(big.NewInt(chainID).Bytes()), word(safe.Bytes()),
	)
	typeHash := crypto.Keccak256([]byte("SafeTx(address to,uint256 value,bytes data,uint8 operation,uint256 safeTxGas,uint256 baseGas,uint256 gasPrice,address gasToken,address refundReceiver,uint256 nonce)"))
	zero := make([]byte, 32)
	structHash := crypto.Keccak256(typeHash, word(to.Bytes()), word(value.Bytes()), crypto.Keccak256(data),
		zero, zero, zero, zero, zero, zero, word(nonce.Bytes()))
	return crypto.Keccak256Hash([]byte{0x19, 0x01}, domain, structHash)
}

func sig65(t *testing.T, digest common.Hash, key *ecdsa.PrivateKey) []byte {
	t.Helper()
	s, err := crypto.Sign(digest.Bytes(), key)
	if err != nil {
		t.Fatal(err)
	}
	s[64] += 27
	return s
}

func TestSafe(t *testing.T) {
	owner := mustKey(t, hardhat0)
	oa := address(owner)
	c := newTestChain(t)
	ctx := ctxT(t)
	b := bindAll(t, c)
	n := c.Network()
	init, err := contracts.SafeInitCode(contracts.SafeSingleton)
	if err != nil {
		t.Fatal(err)
	}
	if h := crypto.Keccak256Hash(init); h != network.SandboxSafeInitCodeHash {
		t.Fatalf("network.SandboxSafeInitCodeHash is stale: compiled init code hashes to %s", h)
	}
	if n.SafeInitCodeHash != network.SandboxSafeInitCodeHash {
		t.Fatal("sandbox network does not use the sandbox Safe hash")
	}
	sf, err := contracts.NewSafeFactory(n.SafeFactory, c.Client())
	if err != nil {
		t.Fatal(err)
	}
	if h, _ := sf.InitCodeHash(b.call); h != network.SandboxSafeInitCodeHash {
		t.Fatalf("factory init code hash %x", h)
	}
	want := contracts.SafeAddress(n.SafeFactory, n.SafeInitCodeHash, oa)
	// Anyone (here the operator) may create the owner's Safe.
	if _, err := c.transact(ctx, c.Operator(), nil, func(o *bind.TransactOpts) (*types.Transaction, error) {
		return sf.CreateProxy(o, oa)
	}); err != nil {
		t.Fatal(err)
	}
	if code, _ := c.Client().CodeAt(ctx, want, nil); len(code) == 0 {
		t.Fatalf("no Safe at the derived address %s", want)
	}
	safe, err := contracts.NewSafe(want, c.Client())
	if err != nil {
		t.Fatal(err)
	}
	owners, _ := safe.GetOwners(b.call)
	if len(owners) != 1 || owners[0] != oa {
		t.Fatalf("owners %v", owners)
	}
	if err := c.Fund(ctx, want, big.NewInt(10_000_000), nil); err != nil {
		t.Fatal(err)
	}
	recipient := address(newKey(t))
	data := pack(t, collateralABI(t), "transfer", recipient, big.NewInt(4_000_000))
	exec := func(signer *ecdsa.PrivateKey, nonce *big.Int) error {
		digest := safeTxDigest(n.ChainID, want, n.Collateral, new(big.Int), data, nonce)
		onChain, err := safe.GetTransactionHash(b.call, n.Collateral, new(big.Int), data, 0, new(big.Int), new(big.Int), new(big.Int), common.Address{}, common.Address{}, nonce)
		if err != nil || common.Hash(onChain) != digest {
			t.Fatalf("digest mismatch: go %s contract %x (%v)", digest, onChain, err)
		}
		sig := sig65(t, digest, signer)
		// Submitted by the operator: the relayer pays the gas.
		_, err = c.transact(ctx, c.Operator(), nil, func(o *bind.TransactOpts) (*types.Transaction, error) {
			return safe.ExecTransaction(o, n.Collateral, new(big.Int), data, 0, new(big.Int), new(big.Int), new(big.Int), common.Address{}, common.Address{}, sig)
		})
		return err
	}
	if err := exec(owner, big.NewInt(0)); err != nil {
		t.Fatal(err)
	}
	wantBig(t, "recipient", collBalance(t, b, recipient), 4_000_000)
	nonce, _ := safe.Nonce(b.call)
	wantBig(t, "nonce", nonce, 1)
	tests := []struct {
		name   string
		signer *ecdsa.PrivateKey
		nonce  int64
	}{
		{"wrong signer", newKey(t), 1},
		{"replayed nonce", owner, 0},
	}
	for _, tc := range tests {
		if err := exec(tc.signer, big.NewInt(tc.nonce)); venue.CategoryOf(err) != venue.Rejected {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	wantBig(t, "recipient unchanged", collBalance(t, b, recipient), 4_000_000)
}

func TestDepositWallet(t *testing.T) {
	owner := newKey(t)
	oa := address(owner)
	relayer := newKey(t)
	c := newTestChain(t, oa, address(relayer))
	ctx := ctxT(t)
	b := bindAll(t, c)
	n := c.Network()
	f, err := contracts.NewDepositWalletFactory(n.DepositWalletFactory, c.Client())
	if err != nil {
		t.Fatal(err)
	}
	want, _ := f.WalletOf(b.call, oa)
	if got := contracts.DepositWalletAddress(n.DepositWalletFactory, contracts.DepositWalletImplementation, oa); got != want {
		t.Fatalf("go derivation %s, factory %s", got, want)
	}
	if _, err := c.transact(ctx, relayer, nil, func(o *bind.TransactOpts) (*types.Transaction, error) { return f.Deploy(o, oa) }); err != nil {
		t.Fatal(err)
	}
	w, err := contracts.NewDepositWallet(want, c.Client())
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := w.Owner(b.call); got != oa {
		t.Fatalf("owner %s", got)
	}
	if err := c.Fund(ctx, want, big.NewInt(10_000_000), nil); err != nil {
		t.Fatal(err)
	}
	recipient := address(newKey(t))
	ca := collateralABI(t)
	transfer := pack(t, ca, "transfer", recipient, big.NewInt(1_000_000))
	// Direct: owner only.
	if _, err := c.transact(ctx, owner, nil, func(o *bind.TransactOpts) (*types.Transaction, error) {
		return w.Execute(o, n.Collateral, new(big.Int), transfer)
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.transact(ctx, relayer, nil, func(o *bind.TransactOpts) (*types.Transaction, error) {
		return w.Execute(o, n.Collateral, new(big.Int), transfer)
	}); venue.CategoryOf(err) != venue.Rejected {
		t.Errorf("non-owner execute: %v", err)
	}
	wantBig(t, "after direct", collBalance(t, b, recipient), 1_000_000)
	// Relayed: the owner signs, the relayer submits.
	nonce, _ := w.Nonce(b.call)
	digest, err := w.GetExecuteHash(b.call, n.Collateral, new(big.Int), transfer, nonce, new(big.Int))
	if err != nil {
		t.Fatal(err)
	}
	relay := func(sig []byte) error {
		_, err := c.transact(ctx, relayer, nil, func(o *bind.TransactOpts) (*types.Transaction, error) {
			return w.ExecuteWithSignature(o, n.Collateral, new(big.Int), transfer, new(big.Int), sig)
		})
		return err
	}
	if err := relay(sig65(t, common.Hash(digest), newKey(t))); venue.CategoryOf(err) != venue.Rejected {
		t.Errorf("relayed with a stranger's signature: %v", err)
	}
	good := sig65(t, common.Hash(digest), owner)
	if err := relay(good); err != nil {
		t.Fatal(err)
	}
	if err := relay(good); venue.CategoryOf(err) != venue.Rejected {
		t.Errorf("replayed signature: %v", err)
	}
	wantBig(t, "after relayed", collBalance(t, b, recipient), 2_000_000)
	// ERC-1271.
	h := crypto.Keccak256Hash([]byte("order digest"))
	if v, _ := w.IsValidSignature(b.call, h, sig65(t, h, owner)); v != [4]byte{0x16, 0x26, 0xba, 0x7e} {
		t.Errorf("owner signature rejected: %x", v)
	}
	if v, _ := w.IsValidSignature(b.call, h, sig65(t, h, relayer)); v != [4]byte{0xff, 0xff, 0xff, 0xff} {
		t.Errorf("stranger signature accepted: %x", v)
	}
	// Deploying again returns the same wallet and keeps its owner.
	if _, err := c.transact(ctx, relayer, nil, func(o *bind.TransactOpts) (*types.Transaction, error) { return f.Deploy(o, oa) }); err != nil {
		t.Fatal(err)
	}
	if got, _ := w.Owner(b.call); got != oa {
		t.Errorf("owner changed to %s", got)
	}
}

// TestProxyWalletTradesThroughExchange checks that a contract wallet can be
// a party to a settlement: approvals made through the factory, outcome
// tokens received through the clone's ERC-1155 hooks.
func TestProxyWalletTradesThroughExchange(t *testing.T) {
	owner := mustKey(t, hardhat0)
	c := newTestChain(t, address(owner))
	ctx := ctxT(t)
	b := bindAll(t, c)
	n := c.Network()
	wallet := contracts.ProxyWalletAddress(n.ProxyFactory, contracts.ProxyWalletImplementation, address(owner))
	if err := c.Fund(ctx, wallet, big.NewInt(5_000_000), nil); err != nil {
		t.Fatal(err)
	}
	pf, err := contracts.NewProxyWalletFactory(n.ProxyFactory, c.Client())
	if err != nil {
		t.Fatal(err)
	}
	ctfABI, err := contracts.ConditionalTokensMetaData.GetAbi()
	if err != nil {
		t.Fatal(err)
	}
	maxU := new(big.Int).Set(maxUint256)
	calls := []contracts.ProxyWalletFactoryProxyCall{
		{TypeCode: 1, To: n.Collateral, Value: new(big.Int), Data: pack(t, collateralABI(t), "approve", n.Exchange, maxU)},
		{TypeCode: 1, To: n.ConditionalTokens, Value: new(big.Int), Data: pack(t, ctfABI, "setApprovalForAll", n.Exchange, true)},
	}
	if _, err := c.transact(ctx, owner, nil, func(o *bind.TransactOpts) (*types.Transaction, error) { return pf.Proxy(o, calls) }); err != nil {
		t.Fatal(err)
	}
	m, err := c.PrepareMarket(ctx, crypto.Keccak256Hash([]byte("proxy trades")), false)
	if err != nil {
		t.Fatal(err)
	}
	mm := c.MarketMaker()
	if err := c.SplitTo(ctx, mm, m.ConditionID, big.NewInt(10_000_000)); err != nil {
		t.Fatal(err)
	}
	yes := m.TokenIDs[0]
	// The wallet buys 4 YES at 0.55, then sells 1 back at 0.50.
	buy := Match{
		Taker:  Fill{OrderHash: [32]byte{1}, Maker: wallet, Side: Buy, TokenID: yes, MakerAmount: big.NewInt(2_200_000), TakerAmount: big.NewInt(4_000_000)},
		Makers: []Fill{{OrderHash: [32]byte{2}, Maker: address(mm), Side: Sell, TokenID: yes, MakerAmount: big.NewInt(4_000_000), TakerAmount: big.NewInt(2_200_000)}},
	}
	if _, err := c.Settle(ctx, false, buy); err != nil {
		t.Fatal(err)
	}
	sell := Match{
		Taker:  Fill{OrderHash: [32]byte{3}, Maker: wallet, Side: Sell, TokenID: yes, MakerAmount: big.NewInt(1_000_000), TakerAmount: big.NewInt(500_000)},
		Makers: []Fill{{OrderHash: [32]byte{4}, Maker: address(mm), Side: Buy, TokenID: yes, MakerAmount: big.NewInt(500_000), TakerAmount: big.NewInt(1_000_000)}},
	}
	if _, err := c.Settle(ctx, false, sell); err != nil {
		t.Fatal(err)
	}
	wantBig(t, "wallet yes", tokBalance(t, b, wallet, yes), 3_000_000)
	wantBig(t, "wallet collateral", collBalance(t, b, wallet), 5_000_000-2_200_000+500_000)
}
