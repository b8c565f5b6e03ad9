package chain

import (
	"context"
	"crypto/ecdsa"
	"io"
	"math/big"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
)

// emitterCode is the runtime code of a tiny contract that emits whatever
// OrderFilled log it is told to: calldata is topic1 ‖ topic2 ‖ topic3 ‖ data
// and topic0 is OrderFilledTopic. Placed at the exchange addresses it makes
// the chain produce real V2 exchange logs without a matching engine.
func emitterCode() []byte {
	code := []byte{
		0x60, 0x40, 0x35, // PUSH1 0x40 CALLDATALOAD (topic3)
		0x60, 0x20, 0x35, // PUSH1 0x20 CALLDATALOAD (topic2)
		0x60, 0x00, 0x35, // PUSH1 0x00 CALLDATALOAD (topic1)
		0x7f, // PUSH32 topic0
	}
	code = append(code, OrderFilledTopic.Bytes()...)
	return append(code,
		0x60, 0x60, 0x36, 0x03, // size = CALLDATASIZE - 0x60
		0x80,       // DUP1
		0x60, 0x60, // PUSH1 0x60 (source offset)
		0x60, 0x00, // PUSH1 0 (memory offset)
		0x37,       // CALLDATACOPY
		0x60, 0x00, // PUSH1 0
		0xa4, // LOG4
		0x00, // STOP
	)
}

// simChain is a go-ethereum simulated chain serving JSON-RPC over a real
// WebSocket listener, behind a TCP relay the test can cut.
type simChain struct {
	t       testing.TB
	sim     *simulated.Backend
	key     *ecdsa.PrivateKey
	from    common.Address
	relay   *relay
	wsURL   string
	mu      sync.Mutex
	nonce   uint64
	sent    map[uint64]*types.Transaction // by nonce, to resend one the pool lost
	chainID *big.Int
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func newSimChain(t testing.TB, exchanges ...common.Address) *simChain {
	t.Helper()
	key, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(key.PublicKey)
	alloc := types.GenesisAlloc{from: {Balance: new(big.Int).Lsh(big.NewInt(1), 100)}}
	for _, ex := range exchanges {
		alloc[ex] = types.Account{Code: emitterCode(), Balance: new(big.Int)}
	}
	port := freePort(t)
	sim := simulated.NewBackend(alloc, func(nc *node.Config, _ *ethconfig.Config) {
		nc.WSHost = "127.0.0.1"
		nc.WSPort = port
		nc.WSModules = []string{"eth", "net", "web3"}
		nc.WSOrigins = []string{"*"}
	})
	t.Cleanup(func() { _ = sim.Close() })
	id, err := sim.Client().ChainID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r := newRelay(t, "127.0.0.1:"+strconv.Itoa(port))
	return &simChain{t: t, sim: sim, key: key, from: from, relay: r, wsURL: "ws://" + r.addr(), chainID: id, sent: map[uint64]*types.Transaction{}}
}

// emitFill sends one OrderFilled emission to exchange (mined with the next Commit).
func (c *simChain) emitFill(exchange common.Address, orderHash common.Hash, maker, taker common.Address, side Side, token, makerAmt, takerAmt, fee int64) common.Hash {
	c.t.Helper()
	ev := exchangeABI.Events["OrderFilled"]
	data, err := ev.Inputs.NonIndexed().Pack(uint8(side), big.NewInt(token), big.NewInt(makerAmt), big.NewInt(takerAmt), big.NewInt(fee), [32]byte{}, [32]byte{})
	if err != nil {
		c.t.Fatal(err)
	}
	input := append(append(append(orderHash.Bytes(), common.LeftPadBytes(maker.Bytes(), 32)...), common.LeftPadBytes(taker.Bytes(), 32)...), data...)
	c.mu.Lock()
	n := c.nonce
	c.nonce++
	c.mu.Unlock()
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: c.chainID, Nonce: n, GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(1e11), Gas: 100_000, To: &exchange, Data: input})
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(c.chainID), c.key)
	if err != nil {
		c.t.Fatal(err)
	}
	c.mu.Lock()
	c.sent[n] = signed
	c.mu.Unlock()
	if err := c.sim.Client().SendTransaction(context.Background(), signed); err != nil {
		c.t.Fatal(err)
	}
	return signed.Hash()
}

// commit seals a block once the pool holds every transaction sent so far:
// the simulated pool admits transactions asynchronously, and a block sealed
// too early would leave some for a block the test never makes.
func (c *simChain) commit() {
	c.t.Helper()
	c.mu.Lock()
	want := c.nonce
	c.mu.Unlock()
	deadline := time.Now().Add(20 * time.Second)
	lastResend := time.Now()
	for {
		n, err := c.sim.Client().PendingNonceAt(context.Background(), c.from)
		if err != nil {
			c.t.Fatal(err)
		}
		if n >= want {
			break
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("pool holds nonce %d, want %d", n, want)
		}
		// The simulated pool can drop a transaction it accepted when a
		// head reset races its admission (seen under -race on 2 cores as a
		// nonce that never became pending): resend what is missing. A
		// resend of a transaction it still holds is refused as known.
		if time.Since(lastResend) > 250*time.Millisecond {
			lastResend = time.Now()
			c.mu.Lock()
			for k := n; k < want; k++ {
				if tx := c.sent[k]; tx != nil {
					_ = c.sim.Client().SendTransaction(context.Background(), tx)
				}
			}
			c.mu.Unlock()
		}
		time.Sleep(time.Millisecond)
	}
	c.sim.Commit()
}

// relay forwards TCP connections to a target and can cut them all.
type relay struct {
	t      testing.TB
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool // refuse (close immediately) new connections while true
	wg     sync.WaitGroup
}

func newRelay(t testing.TB, target string) *relay {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{t: t, ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	r.wg.Add(1)
	go r.accept()
	t.Cleanup(func() { _ = ln.Close(); r.cut(false); r.wg.Wait() })
	return r
}

func (r *relay) addr() string { return r.ln.Addr().String() }

func (r *relay) accept() {
	defer r.wg.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		r.mu.Lock()
		refuse := r.closed
		r.mu.Unlock()
		if refuse {
			_ = c.Close()
			continue
		}
		up, err := net.Dial("tcp", r.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		r.mu.Lock()
		r.conns[c], r.conns[up] = struct{}{}, struct{}{}
		r.mu.Unlock()
		r.wg.Add(2)
		go r.pipe(c, up)
		go r.pipe(up, c)
	}
}

func (r *relay) pipe(dst, src net.Conn) {
	defer r.wg.Done()
	_, _ = io.Copy(dst, src)
	_ = dst.Close()
	_ = src.Close()
}

// cut drops every open connection; with refuse, new ones are refused until
// restore is called.
func (r *relay) cut(refuse bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = refuse
	for c := range r.conns {
		_ = c.Close()
		delete(r.conns, c)
	}
}

func (r *relay) restore() {
	r.mu.Lock()
	r.closed = false
	r.mu.Unlock()
}

func (r *relay) open() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.conns)
}
