package chain

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	sbchain "github.com/agent-trading/ats/sandbox/chain"
	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/contracts"
	"github.com/agent-trading/ats/venue/network"
)

// sandbox is the real sandbox chain served over HTTP/WS by httptest, with a
// switch that takes the endpoint down (503) to simulate an outage.
type sandbox struct {
	ch    *sbchain.Chain
	srv   *httptest.Server
	down  atomic.Bool
	net   network.Network
	conns *trackingListener
}

// cut takes the endpoint down and drops every open connection, including
// hijacked WebSockets that httptest no longer tracks.
func (s *sandbox) cut() {
	s.down.Store(true)
	s.conns.cut()
}

// trackingListener remembers accepted connections so they can be dropped.
type trackingListener struct {
	net.Listener
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

func (l *trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.mu.Lock()
		l.conns[c] = struct{}{}
		l.mu.Unlock()
	}
	return c, err
}

func (l *trackingListener) cut() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.conns {
		_ = c.Close()
		delete(l.conns, c)
	}
}

func newSandbox(t testing.TB, interval time.Duration) *sandbox {
	t.Helper()
	ch, err := sbchain.New(sbchain.Config{BlockInterval: interval})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch.Start(ctx)
	s := &sandbox{ch: ch}
	h := ch.Handler()
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	}))
	s.conns = &trackingListener{Listener: s.srv.Listener, conns: map[net.Conn]struct{}{}}
	s.srv.Listener = s.conns
	s.srv.Start()
	t.Cleanup(func() {
		s.conns.cut()
		s.srv.Close()
		cancel()
		_ = ch.Close()
	})
	s.net = ch.Network()
	s.net.RPCURL = s.srv.URL
	s.net.WSURL = "ws" + strings.TrimPrefix(s.srv.URL, "http")
	return s
}

func (s *sandbox) client(t testing.TB) *Client {
	t.Helper()
	c, err := Dial(ctxT(t), s.net, "", Options{ReceiptPoll: 10 * time.Millisecond, ReceiptTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func ctxT(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func (s *sandbox) opts(t testing.TB, key *ecdsa.PrivateKey) *bind.TransactOpts {
	t.Helper()
	o, err := bind.NewKeyedTransactorWithChainID(key, big.NewInt(s.net.ChainID))
	if err != nil {
		t.Fatal(err)
	}
	o.Context = ctxT(t)
	return o
}

// newWallet creates a fresh owner key with gas, the wallet of the given kind
// (deploying the Safe or deposit wallet through its factory) and funds the
// maker with collateral.
func (s *sandbox) newWallet(t testing.TB, kind Kind, collateral int64) Wallet {
	t.Helper()
	ctx := ctxT(t)
	key, _ := crypto.GenerateKey()
	owner := crypto.PubkeyToAddress(key.PublicKey)
	if err := s.ch.Fund(ctx, owner, nil, new(big.Int).Mul(big.NewInt(10), big.NewInt(params.Ether))); err != nil {
		t.Fatal(err)
	}
	w := Wallet{Kind: kind, Owner: owner, Funder: owner, Signer: NewKeySigner(key)}
	switch kind {
	case Proxy:
		w.Funder = DeriveProxyAddress(s.net, owner)
	case Safe:
		f, err := contracts.NewSafeFactory(s.net.SafeFactory, s.ch.Client())
		if err != nil {
			t.Fatal(err)
		}
		tx, err := f.CreateProxy(s.opts(t, key), owner)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.ch.WaitMined(ctx, tx.Hash()); err != nil {
			t.Fatal(err)
		}
		w.Funder = DeriveSafeAddress(s.net, owner)
	case Deposit:
		f, err := contracts.NewDepositWalletFactory(s.net.DepositWalletFactory, s.ch.Client())
		if err != nil {
			t.Fatal(err)
		}
		tx, err := f.Deploy(s.opts(t, key), owner)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.ch.WaitMined(ctx, tx.Hash()); err != nil {
			t.Fatal(err)
		}
		if w.Funder, err = f.WalletOf(&bind.CallOpts{Context: ctx}, owner); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.ch.Fund(ctx, w.Maker(), big.NewInt(collateral), nil); err != nil {
		t.Fatal(err)
	}
	return w
}

func (s *sandbox) nonce(t testing.TB, a common.Address) uint64 {
	t.Helper()
	n, err := s.ch.Client().NonceAt(ctxT(t), a, nil)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// buyFromMarketMaker makes the wallet's funder buy shares of the YES token
// at 0.60 from the sandbox market maker, through the exchange.
func (s *sandbox) buyFromMarketMaker(t *testing.T, m sbchain.Market, maker common.Address, shares int64) {
	t.Helper()
	ctx := ctxT(t)
	mm := s.ch.MarketMaker()
	if err := s.ch.SplitTo(ctx, mm, m.ConditionID, big.NewInt(shares)); err != nil {
		t.Fatal(err)
	}
	cost := big.NewInt(shares * 6 / 10)
	_, err := s.ch.Settle(ctx, m.NegRisk, sbchain.Match{
		Taker: sbchain.Fill{OrderHash: crypto.Keccak256Hash(maker.Bytes(), m.ConditionID[:]), Maker: maker, Side: sbchain.Buy,
			TokenID: m.TokenIDs[0], MakerAmount: cost, TakerAmount: big.NewInt(shares)},
		Makers: []sbchain.Fill{{OrderHash: crypto.Keccak256Hash(m.ConditionID[:]), Maker: crypto.PubkeyToAddress(mm.PublicKey), Side: sbchain.Sell,
			TokenID: m.TokenIDs[0], MakerAmount: big.NewInt(shares), TakerAmount: cost}},
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSandboxSafeInitCodeHash(t *testing.T) {
	s := newSandbox(t, 0)
	f, err := contracts.NewSafeFactory(s.net.SafeFactory, s.ch.Client())
	if err != nil {
		t.Fatal(err)
	}
	h, err := f.InitCodeHash(&bind.CallOpts{Context: ctxT(t)})
	if err != nil {
		t.Fatal(err)
	}
	if common.Hash(h) != network.SandboxSafeInitCodeHash {
		t.Fatalf("sandbox Safe init-code hash %x, network says %s", h, network.SandboxSafeInitCodeHash)
	}
	owner := common.HexToAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")
	onChain, err := f.ComputeProxyAddress(&bind.CallOpts{Context: ctxT(t)}, owner)
	if err != nil {
		t.Fatal(err)
	}
	if onChain != DeriveSafeAddress(s.net, owner) {
		t.Fatalf("Safe factory computes %s, we derive %s", onChain, DeriveSafeAddress(s.net, owner))
	}
	pf, err := contracts.NewProxyWalletFactory(s.net.ProxyFactory, s.ch.Client())
	if err != nil {
		t.Fatal(err)
	}
	onChain, err = pf.ComputeProxyAddress(&bind.CallOpts{Context: ctxT(t)}, owner)
	if err != nil {
		t.Fatal(err)
	}
	if onChain != DeriveProxyAddress(s.net, owner) {
		t.Fatalf("proxy factory computes %s, we derive %s", onChain, DeriveProxyAddress(s.net, owner))
	}
}

// TestWalletKinds runs the whole wallet life cycle for every kind on the
// real sandbox chain: detection, balances, idempotent approvals, trading
// into a position, redeem refused before resolution, redeem after it.
func TestWalletKinds(t *testing.T) {
	s := newSandbox(t, 20*time.Millisecond)
	c := s.client(t)
	for _, kind := range []Kind{EOA, Proxy, Safe, Deposit} {
		for _, negRisk := range []bool{false, true} {
			name := kind.String()
			if negRisk {
				name += "/neg-risk"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel() // independent wallets and markets
				ctx := ctxT(t)
				const funded = 50_000_000
				w := s.newWallet(t, kind, funded)

				got, err := c.DetectKind(ctx, w.Owner, w.Funder)
				if err != nil || got != kind {
					t.Fatalf("DetectKind = %v, %v; want %v", got, err, kind)
				}
				bal, err := c.CollateralBalance(ctx, w.Maker())
				if err != nil || bal.Int64() != funded {
					t.Fatalf("CollateralBalance = %v, %v", bal, err)
				}

				res, err := c.Approve(ctx, w, ApproveAll)
				if err != nil {
					t.Fatal(err)
				}
				req, _ := c.RequiredApprovals(ApproveAll)
				if len(res.Approved) != len(req) || len(res.AlreadyApproved) != 0 {
					t.Fatalf("first approve: %+v", res)
				}
				for _, a := range req {
					if ok, err := c.IsApproved(ctx, w.Maker(), a); err != nil || !ok {
						t.Fatalf("%s to %s not approved after Approve: %v", a.Token, a.Spender, err)
					}
				}
				before := s.nonce(t, w.Owner)
				res, err = c.Approve(ctx, w, ApproveAll)
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Approved) != 0 || len(res.AlreadyApproved) != len(req) {
					t.Fatalf("second approve: %+v", res)
				}
				if after := s.nonce(t, w.Owner); after != before {
					t.Fatalf("second approve sent %d transactions", after-before)
				}

				m, err := s.ch.PrepareMarket(ctx, crypto.Keccak256Hash([]byte(t.Name())), negRisk)
				if err != nil {
					t.Fatal(err)
				}
				const shares = 10_000_000
				s.buyFromMarketMaker(t, m, w.Maker(), shares)
				if yes, err := c.OutcomeBalance(ctx, w.Maker(), m.TokenIDs[0]); err != nil || yes.Int64() != shares {
					t.Fatalf("YES balance %v, %v", yes, err)
				}
				pos := []RedeemPosition{{ConditionID: m.ConditionID, NegRisk: negRisk, TokenIDs: m.TokenIDs[:]}}

				before = s.nonce(t, w.Owner)
				_, err = c.Redeem(ctx, w, pos)
				if !venue.Is(err, venue.Conflict) || venue.CodeOf(err) != CodeNotResolved || venue.MessageOf(err) != "market is not resolved yet" {
					t.Fatalf("redeem before resolution: %v", err)
				}
				if after := s.nonce(t, w.Owner); after != before {
					t.Fatal("redeem before resolution sent a transaction")
				}

				if err := s.ch.Resolve(ctx, m.ConditionID, 0); err != nil {
					t.Fatal(err)
				}
				collBefore, _ := c.CollateralBalance(ctx, w.Maker())
				out, err := c.Redeem(ctx, w, pos)
				if err != nil {
					t.Fatal(err)
				}
				if len(out) != 1 || out[0].Payout.Int64() != shares || out[0].ConditionID != m.ConditionID || out[0].TxHash == (common.Hash{}) {
					t.Fatalf("redeem result %+v", out)
				}
				collAfter, _ := c.CollateralBalance(ctx, w.Maker())
				if d := new(big.Int).Sub(collAfter, collBefore); d.Int64() != shares {
					t.Fatalf("collateral grew by %s, want %d", d, shares)
				}
				if yes, _ := c.OutcomeBalance(ctx, w.Maker(), m.TokenIDs[0]); yes.Sign() != 0 {
					t.Fatalf("YES balance %s after redeem", yes)
				}
			})
		}
	}
}

func TestDetectKindRejectsForeignWallet(t *testing.T) {
	s := newSandbox(t, 20*time.Millisecond)
	c := s.client(t)
	ctx := ctxT(t)
	w := s.newWallet(t, Deposit, 1)
	stranger, _ := crypto.GenerateKey()
	strangerAddr := crypto.PubkeyToAddress(stranger.PublicKey)
	for _, funder := range []common.Address{w.Funder, DeriveSafeAddress(s.net, w.Owner), common.HexToAddress("0x1234")} {
		_, err := c.DetectKind(ctx, strangerAddr, funder)
		if !venue.Is(err, venue.Invalid) || venue.MessageOf(err) != "the wallet address does not belong to this key" {
			t.Fatalf("DetectKind(stranger, %s) = %v", funder, err)
		}
	}
	if k, err := DetectKind(ctx, s.ch.Client(), s.net, w.Owner, w.Funder); err != nil || k != Deposit {
		t.Fatalf("package DetectKind of the owner's deposit wallet: %v %v", k, err)
	}
	if k, err := c.DetectKind(ctx, strangerAddr, common.Address{}); err != nil || k != EOA {
		t.Fatalf("no funder: %v %v", k, err)
	}
}

// TestDetectKindRefusesLookAlikeDepositWallets: a contract whose owner()
// answers the key's address is not the key's deposit wallet unless it sits
// where the venue's deposit-wallet factory deploys the key's wallet. Two
// look-alikes are refused: code that answers every call with the owner's
// address, and the genuine wallet code deployed directly (not by the
// factory) and initialised to the owner. The wallet the factory deployed
// is accepted, and is where the sandbox derives it.
func TestDetectKindRefusesLookAlikeDepositWallets(t *testing.T) {
	s := newSandbox(t, 20*time.Millisecond)
	c := s.client(t)
	ctx := ctxT(t)
	w := s.newWallet(t, Deposit, 1)
	if w.Funder != contracts.DepositWalletAddress(s.net.DepositWalletFactory, contracts.DepositWalletImplementation, w.Owner) {
		t.Fatalf("the factory deployed the owner's wallet at %s, not where it is derived", w.Funder)
	}
	if k, err := c.DetectKind(ctx, w.Owner, w.Funder); err != nil || k != Deposit {
		t.Fatalf("the factory's wallet: %v %v", k, err)
	}
	deployer, _ := crypto.GenerateKey()
	if err := s.ch.Fund(ctx, crypto.PubkeyToAddress(deployer.PublicKey), nil, big.NewInt(params.Ether)); err != nil {
		t.Fatal(err)
	}

	// Runtime code: PUSH20 owner, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0,
	// RETURN — owner() (and any other call) answers the owner's address.
	runtime := append(append([]byte{0x73}, w.Owner.Bytes()...), 0x60, 0x00, 0x52, 0x60, 0x20, 0x60, 0x00, 0xf3)
	// Creation code: copy the runtime code (after these 11 bytes) to
	// memory and return it.
	creation := append([]byte{0x60, byte(len(runtime)), 0x80, 0x60, 0x0b, 0x60, 0x00, 0x39, 0x60, 0x00, 0xf3}, runtime...)
	echo, tx, _, err := bind.DeployContract(s.opts(t, deployer), abi.ABI{}, creation, s.ch.Client())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ch.WaitMined(ctx, tx.Hash()); err != nil {
		t.Fatal(err)
	}
	direct, tx, dw, err := contracts.DeployDepositWallet(s.opts(t, deployer), s.ch.Client())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ch.WaitMined(ctx, tx.Hash()); err != nil {
		t.Fatal(err)
	}
	if tx, err = dw.Initialize(s.opts(t, deployer), w.Owner); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ch.WaitMined(ctx, tx.Hash()); err != nil {
		t.Fatal(err)
	}
	for name, addr := range map[string]common.Address{"owner() echo": echo, "wallet code deployed outside the factory": direct} {
		var got common.Address
		if err := c.call(ctx, addr, depositWalletABI, &got, "owner"); err != nil || got != w.Owner {
			t.Fatalf("%s: owner() = %s, %v; the look-alike must answer the owner", name, got, err)
		}
		_, err := c.DetectKind(ctx, w.Owner, addr)
		if !venue.Is(err, venue.Invalid) || venue.CodeOf(err) != "wallet_not_owned" {
			t.Fatalf("%s: DetectKind = %v, want wallet_not_owned", name, err)
		}
	}
}

func TestSafeTxHashMatchesSafe(t *testing.T) {
	s := newSandbox(t, 20*time.Millisecond)
	w := s.newWallet(t, Safe, 1)
	safe, err := contracts.NewSafe(w.Funder, s.ch.Client())
	if err != nil {
		t.Fatal(err)
	}
	data := []byte{1, 2, 3}
	to := common.HexToAddress("0xabc")
	zero := new(big.Int)
	want, err := safe.GetTransactionHash(&bind.CallOpts{Context: ctxT(t)}, to, zero, data, 0, zero, zero, zero, common.Address{}, common.Address{}, big.NewInt(7))
	if err != nil {
		t.Fatal(err)
	}
	if got := SafeTxHash(big.NewInt(s.net.ChainID), w.Funder, to, data, big.NewInt(7)); got != want {
		t.Fatalf("SafeTxHash = %s, Safe says %x", got, want)
	}
}

func TestTransactionErrors(t *testing.T) {
	s := newSandbox(t, 20*time.Millisecond)
	c := s.client(t)
	ctx := ctxT(t)

	// No gas funds at all.
	key, _ := crypto.GenerateKey()
	broke := Wallet{Kind: EOA, Owner: crypto.PubkeyToAddress(key.PublicKey), Signer: NewKeySigner(key)}
	_, err := c.Approve(ctx, broke, ApproveUSDC)
	if !venue.Is(err, venue.Rejected) || venue.CodeOf(err) != CodeInsufficientGas {
		t.Fatalf("approve without gas: %v", err)
	}

	// A reverting call: redeem neg-risk amounts the wallet does not hold.
	w := s.newWallet(t, EOA, 1_000_000)
	if _, err := c.Approve(ctx, w, ApproveAll); err != nil {
		t.Fatal(err)
	}
	m, err := s.ch.PrepareMarket(ctx, crypto.Keccak256Hash([]byte("revert")), true)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ch.Resolve(ctx, m.ConditionID, 1); err != nil {
		t.Fatal(err)
	}
	_, err = c.Redeem(ctx, w, []RedeemPosition{{ConditionID: m.ConditionID, NegRisk: true, Amounts: []*big.Int{big.NewInt(5), big.NewInt(5)}}})
	if !venue.Is(err, venue.Rejected) || venue.CodeOf(err) != CodeReverted {
		t.Fatalf("redeem of tokens not held: %v", err)
	}

	// The node goes away: reads are Unavailable.
	s.cut()
	_, err = c.CollateralBalance(ctx, w.Owner)
	if !venue.Is(err, venue.Unavailable) {
		t.Fatalf("read with the node down: %v (kind %v)", err, venue.CategoryOf(err))
	}
}

// TestConcurrentSendsGetDistinctNonces fires approvals of one owner from
// several goroutines: the per-sender lock must hand out distinct nonces.
func TestConcurrentSendsGetDistinctNonces(t *testing.T) {
	s := newSandbox(t, 20*time.Millisecond)
	c := s.client(t)
	w := s.newWallet(t, EOA, 1)
	ctx := ctxT(t)
	tokens := []ApproveToken{ApproveUSDC, ApproveCTF}
	errc := make(chan error, len(tokens))
	for _, tok := range tokens {
		go func() {
			_, err := c.Approve(ctx, w, tok)
			errc <- err
		}()
	}
	for range tokens {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	req, _ := c.RequiredApprovals(ApproveAll)
	for _, a := range req {
		if ok, err := c.IsApproved(ctx, w.Maker(), a); err != nil || !ok {
			t.Fatalf("%+v not approved: %v", a, err)
		}
	}
}
