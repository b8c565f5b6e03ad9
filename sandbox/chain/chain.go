// Package chain runs the sandbox venue's blockchain: a real EVM (go-ethereum's
// simulated beacon on an in-process node, in memory or kept in a data dir:
// persist.go) with chain id 80002 and the sandbox contracts
// (venue/contracts) at the addresses of network.Sandbox.
//
// Contracts are placed by the genesis allocation as runtime code; their
// configuration (operator, collateral and CTF addresses, implementation and
// singleton addresses) is written into the genesis storage slots each
// contract documents (slot 0, 1, 2), so no constructor or initialize call is
// needed and the state is there at block 0. The market maker's and outside
// wallets' collateral and approvals are set up by operator/wallet
// transactions mined in block 1, inside New.
//
// Blocks are sealed by a ticker every Config.BlockInterval; with an interval
// of 0 nothing is sealed automatically and tests call Commit. The operator
// helpers (Fund, PrepareMarket, Resolve, SplitTo, Settle) wait until their
// transaction is mined; in manual mode they seal the block themselves, so
// they return with their effect applied either way.
package chain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"github.com/ethereum/go-ethereum/core/txpool"
	"log/slog"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/catalyst"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/contracts"
	"github.com/agent-trading/ats/venue/micro"
	"github.com/agent-trading/ats/venue/network"
)

// DefaultBlockInterval is the block time the sandbox runs with.
const DefaultBlockInterval = time.Second

// Genesis balances.
var (
	// GenesisNativeWei is the gas currency given to every genesis-funded account (1,000,000 POL).
	GenesisNativeWei = new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(params.Ether))
	// MarketMakerCollateral is the market maker's starting collateral (10,000,000 pUSD).
	MarketMakerCollateral = big.NewInt(10_000_000 * micro.PerUnit)
	// OutsideWalletCollateral is each outside wallet's starting collateral (100,000 pUSD).
	OutsideWalletCollateral = big.NewInt(100_000 * micro.PerUnit)
)

// NumOutsideWallets is how many outside (copy-trade target) wallets the chain funds.
const NumOutsideWallets = 3

// lockedOwner fills the owner slot of implementation contracts so nobody can
// initialise them.
var lockedOwner = common.HexToAddress("0x000000000000000000000000000000000000dEaD")

// Config configures a sandbox chain.
type Config struct {
	// BlockInterval is the time between sealed blocks; 0 means blocks are
	// only sealed by Commit (and by the operator helpers), for tests. Use
	// DefaultBlockInterval for a running sandbox.
	BlockInterval time.Duration
	// ExtraFunded accounts receive GenesisNativeWei of gas at genesis.
	ExtraFunded []common.Address
	// Logger receives start/stop and block-sealing errors; nil discards.
	Logger *slog.Logger
	// DataDir, when set, keeps the chain on disk (go-ethereum's pebble
	// database and freezer, the genesis in genesis.json): a chain opened
	// on the same directory continues from its last block. Empty keeps
	// everything in memory.
	DataDir string
}

// Chain is a running sandbox chain.
type Chain struct {
	cfg    Config
	log    *slog.Logger
	net    network.Network
	stack  *node.Node
	beacon *catalyst.SimulatedBeacon
	client *ethclient.Client
	rpc    *rpc.Server

	operator    *ecdsa.PrivateKey
	marketMaker *ecdsa.PrivateKey
	outside     []*ecdsa.PrivateKey

	// sealing is set once the block loop runs; until then (bootstrap, or
	// a zero interval) whoever waits for a transaction seals blocks.
	sealing  atomic.Bool
	commitMu sync.RWMutex // serialises block sealing; readers pass it as a barrier
	sendMu   sync.Mutex   // guards senders
	senders  map[common.Address]*sender

	marketsMu sync.RWMutex
	markets   map[[32]byte]marketInfo

	startOnce sync.Once
	closeOnce sync.Once
	stop      chan struct{}
	done      chan struct{}
	pool      *txpool.TxPool
	backend   *eth.Ethereum
	// restored is set when the chain was reopened from its data dir.
	restored bool
}

type marketInfo struct {
	questionID [32]byte
	negRisk    bool
}

// New builds the chain, seals the genesis-bootstrap block and returns it.
// Call Start to begin sealing blocks on the interval, Close to release it.
func New(cfg Config) (*Chain, error) {
	if cfg.BlockInterval < 0 {
		return nil, venue.E(venue.Invalid, "block interval must not be negative")
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Chain{
		cfg:         cfg,
		log:         logger,
		net:         network.Sandbox(""),
		operator:    derivedKey("operator"),
		marketMaker: derivedKey("market-maker"),
		senders:     map[common.Address]*sender{},
		markets:     map[[32]byte]marketInfo{},
		stop:        make(chan struct{}),
		done:        make(chan struct{}),
	}
	for i := 0; i < NumOutsideWallets; i++ {
		c.outside = append(c.outside, derivedKey(fmt.Sprintf("outside-%d", i)))
	}
	genesis, err := c.genesis()
	if err != nil {
		return nil, err
	}
	if err := c.startNode(genesis); err != nil {
		return nil, err
	}
	// A chain reopened from its data dir has its bootstrap block already.
	if head := c.head(); head > 0 {
		c.restored = true
		c.log.Info("sandbox chain reopened", "dataDir", cfg.DataDir, "head", head)
	} else if err := c.bootstrap(context.Background()); err != nil {
		_ = c.closeNode()
		return nil, err
	}
	c.log.Info("sandbox chain ready", "chainId", network.SandboxChainID,
		"operator", address(c.operator).Hex(), "marketMaker", address(c.marketMaker).Hex())
	return c, nil
}

// derivedKey returns a fixed, well-known sandbox key: addresses stay the same
// across runs, which keeps demos and logs reproducible. These keys control
// nothing outside the local sandbox chain.
func derivedKey(role string) *ecdsa.PrivateKey {
	k, err := crypto.ToECDSA(crypto.Keccak256([]byte("ats-sandbox-chain/" + role)))
	if err != nil {
		panic(err) // a keccak digest is a valid key with overwhelming probability
	}
	return k
}

// storage builds a genesis storage map from slot-indexed addresses.
func storage(slots ...common.Address) map[common.Hash]common.Hash {
	m := make(map[common.Hash]common.Hash, len(slots))
	for i, a := range slots {
		if a == (common.Address{}) {
			continue
		}
		m[common.BigToHash(big.NewInt(int64(i)))] = common.BytesToHash(a.Bytes())
	}
	return m
}

func (c *Chain) genesisAlloc() (types.GenesisAlloc, error) {
	op := crypto.PubkeyToAddress(c.operator.PublicKey)
	n := c.net
	placements := []struct {
		name    string
		at      common.Address
		storage map[common.Hash]common.Hash
	}{
		{"Collateral", n.Collateral, storage(op)},
		{"ConditionalTokens", n.ConditionalTokens, nil},
		{"Exchange", n.Exchange, storage(op, n.Collateral, n.ConditionalTokens)},
		{"Exchange", n.NegRiskExchange, storage(op, n.Collateral, n.ConditionalTokens)},
		{"NegRiskAdapter", n.NegRiskAdapter, storage(op, n.ConditionalTokens, n.Collateral)},
		{"ProxyWalletFactory", n.ProxyFactory, storage(contracts.ProxyWalletImplementation)},
		{"ProxyWallet", contracts.ProxyWalletImplementation, nil},
		{"SafeFactory", n.SafeFactory, storage(contracts.SafeSingleton)},
		// Owner slot (1) locked so the singleton itself cannot be set up.
		{"Safe", contracts.SafeSingleton, storage(common.Address{}, lockedOwner)},
		{"DepositWalletFactory", n.DepositWalletFactory, storage(contracts.DepositWalletImplementation)},
		{"DepositWallet", contracts.DepositWalletImplementation, storage(lockedOwner)},
	}
	alloc := core.SystemContractAllocs()
	// The beacon-root (EIP-4788) and block-hash (EIP-2935) contracts are
	// written by a system call in every block, so with them each empty
	// block changes the state and a chain kept on disk grows by several
	// kilobytes a block while idle. Polygon has no beacon chain, and
	// nothing the venue runs reads either contract; without them an empty
	// block leaves the state as it was.
	delete(alloc, params.BeaconRootsAddress)
	delete(alloc, params.HistoryStorageAddress)
	for _, p := range placements {
		code, err := contracts.RuntimeCode(p.name)
		if err != nil {
			return nil, venue.Wrap(venue.Internal, err, "sandbox contract bytecode missing")
		}
		alloc[p.at] = types.Account{Code: code, Storage: p.storage, Nonce: 1, Balance: new(big.Int)}
	}
	funded := []common.Address{op, crypto.PubkeyToAddress(c.marketMaker.PublicKey)}
	for _, k := range c.outside {
		funded = append(funded, crypto.PubkeyToAddress(k.PublicKey))
	}
	funded = append(funded, c.cfg.ExtraFunded...)
	for _, a := range funded {
		if prev, taken := alloc[a]; taken {
			if len(prev.Code) > 0 {
				return nil, venue.Ef(venue.Invalid, "address %s is a sandbox contract and cannot be funded at genesis", a.Hex())
			}
			continue // listed twice
		}
		alloc[a] = types.Account{Balance: new(big.Int).Set(GenesisNativeWei)}
	}
	return alloc, nil
}

// newGenesis is the genesis of a new sandbox chain.
func (c *Chain) newGenesis() (*core.Genesis, error) {
	alloc, err := c.genesisAlloc()
	if err != nil {
		return nil, err
	}
	chainCfg := *params.AllDevChainProtocolChanges
	chainCfg.ChainID = big.NewInt(network.SandboxChainID)
	return &core.Genesis{
		Config:     &chainCfg,
		GasLimit:   ethconfig.Defaults.Miner.GasCeil,
		Difficulty: new(big.Int), // what geth assumes when it is absent; JSON needs it

		Alloc:     alloc,
		Timestamp: uint64(time.Now().Unix()),
	}, nil
}

func (c *Chain) startNode(genesis *core.Genesis) error {
	nodeConf := node.DefaultConfig
	nodeConf.DataDir = ""
	nodeConf.IPCPath = ""
	nodeConf.HTTPHost = ""
	nodeConf.WSHost = ""
	nodeConf.P2P = p2p.Config{NoDiscovery: true, MaxPeers: 0}

	ethConf := ethconfig.Defaults
	ethConf.Genesis = genesis
	ethConf.NetworkId = network.SandboxChainID
	ethConf.SyncMode = ethconfig.FullSync
	ethConf.TxPool.NoLocals = true
	// No log index, on disk or in memory: log queries filter the blocks by
	// their header blooms. With the index, an eth_getLogs issued while the
	// indexer trails the 100 ms blocks (a loaded machine, -race) can wait
	// for it forever (go-ethereum issue 32552), which stalled the copy
	// watchers and every chain call behind them.
	ethConf.LogNoHistory = true
	if c.cfg.DataDir != "" {
		onDisk(&nodeConf, &ethConf, c.cfg.DataDir)
	}

	stack, err := node.New(&nodeConf)
	if err != nil {
		return venue.Wrap(venue.Internal, err, "sandbox chain node")
	}
	backend, err := eth.New(stack, &ethConf)
	if err != nil {
		_ = stack.Close()
		return venue.Wrap(venue.Internal, err, "sandbox chain backend")
	}
	filterAPI := filters.NewFilterAPI(filters.NewFilterSystem(backend.APIBackend, filters.Config{}))
	stack.RegisterAPIs([]rpc.API{{Namespace: "eth", Service: filterAPI}})
	if err := stack.Start(); err != nil {
		_ = stack.Close()
		return venue.Wrap(venue.Internal, err, "start sandbox chain node")
	}
	beacon, err := catalyst.NewSimulatedBeacon(0, common.Address{}, backend)
	if err != nil {
		_ = stack.Close()
		return venue.Wrap(venue.Internal, err, "sandbox chain beacon")
	}
	if backend.BlockChain().CurrentBlock().Number.Sign() == 0 {
		if err := beacon.Fork(backend.BlockChain().GetCanonicalHash(0)); err != nil {
			_ = stack.Close()
			return venue.Wrap(venue.Internal, err, "sandbox chain genesis")
		}
	}

	// The public JSON-RPC surface: only the eth, net, txpool and web3
	// namespaces; admin, debug and miner stay in-process.
	srv := rpc.NewServer()
	public := map[string]bool{"eth": true, "net": true, "txpool": true}
	for _, api := range backend.APIs() {
		if public[api.Namespace] {
			if err := srv.RegisterName(api.Namespace, api.Service); err != nil {
				_ = stack.Close()
				return venue.Wrap(venue.Internal, err, "register sandbox RPC")
			}
		}
	}
	if err := srv.RegisterName("eth", filterAPI); err != nil {
		_ = stack.Close()
		return venue.Wrap(venue.Internal, err, "register sandbox RPC")
	}
	if err := srv.RegisterName("web3", web3API{}); err != nil {
		_ = stack.Close()
		return venue.Wrap(venue.Internal, err, "register sandbox RPC")
	}

	c.stack = stack
	c.beacon = beacon
	c.backend = backend
	c.pool = backend.TxPool()
	c.client = ethclient.NewClient(stack.Attach())
	c.rpc = srv
	return nil
}

// web3API is the web3 namespace (the node's own is not reachable from here).
type web3API struct{}

// ClientVersion answers web3_clientVersion.
func (web3API) ClientVersion() string { return "ats-sandbox-chain (go-ethereum simulated beacon)" }

// Sha3 answers web3_sha3.
func (web3API) Sha3(input hexutil.Bytes) hexutil.Bytes { return crypto.Keccak256(input) }

// Start begins sealing blocks every BlockInterval until ctx ends or Close is
// called. With a zero interval it does nothing. Calling it again is a no-op.
func (c *Chain) Start(ctx context.Context) {
	c.startOnce.Do(func() {
		if c.cfg.BlockInterval <= 0 {
			close(c.done)
			return
		}
		c.sealing.Store(true)
		go c.run(ctx)
	})
}

func (c *Chain) run(ctx context.Context) {
	defer close(c.done)
	t := time.NewTicker(c.cfg.BlockInterval)
	defer t.Stop()
	c.log.Info("sandbox chain sealing blocks", "interval", c.cfg.BlockInterval, "chainId", network.SandboxChainID)
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.stop:
			return
		case <-t.C:
			c.Commit()
		}
	}
}

// Close stops block production and shuts the node down.
func (c *Chain) Close() error {
	var err error
	c.closeOnce.Do(func() {
		close(c.stop)
		c.startOnce.Do(func() { close(c.done) }) // never started
		<-c.done
		err = c.closeNode()
	})
	return err
}

func (c *Chain) closeNode() error {
	c.commitMu.Lock()
	defer c.commitMu.Unlock()
	if c.client != nil {
		c.client.Close()
	}
	var err error
	if c.beacon != nil {
		err = c.beacon.Stop()
		c.beacon = nil
	}
	if c.stack != nil {
		err = errors.Join(err, c.stack.Close())
	}
	return err
}

// Commit seals the pending transactions into a new block now and returns its hash.
func (c *Chain) Commit() common.Hash {
	c.commitMu.Lock()
	defer c.commitMu.Unlock()
	if c.beacon == nil {
		return common.Hash{}
	}
	h := c.beacon.Commit()
	if err := c.persistBlock(); err != nil {
		c.log.Error("sandbox chain: the block just sealed is not on disk", "block", h, "err", err)
	}
	// The pool resets to a new head in the background; until it has, it
	// validates transactions against the previous state, so a wallet funded
	// in the block just sealed would be refused for "insufficient funds".
	// Waiting here makes "mined" mean "usable" for the next sender.
	if err := c.pool.Sync(); err != nil {
		c.log.Warn("sandbox txpool did not sync after a block", "err", err)
	}
	return h
}

// sealed waits for any block sealing in progress to finish.
func (c *Chain) sealed() {
	c.commitMu.RLock()
	c.commitMu.RUnlock() //nolint:staticcheck // barrier, not a critical section
}

// Client is an in-process JSON-RPC client of the chain. It implements
// bind.ContractBackend, bind.DeployBackend, ethereum.LogFilterer,
// ethereum.TransactionReader and ethereum.ChainReader, including
// subscriptions. Do not close it; Close does.
func (c *Chain) Client() *ethclient.Client { return c.client }

// Network is the sandbox network configuration (addresses, chain id) the
// chain's contracts are placed at; service URLs are empty.
func (c *Chain) Network() network.Network { return c.net }

// Handler serves the chain's public JSON-RPC (eth, net, txpool, web3): HTTP
// POST, and WebSocket when the request is an upgrade (subscriptions such as
// eth_subscribe newHeads/logs). Mount it with the prefix stripped at both
// /rpc and /rpc/ws. Any origin is accepted: the sandbox is a local tool.
func (c *Chain) Handler() http.Handler {
	ws := c.rpc.WebsocketHandler([]string{"*"})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			ws.ServeHTTP(w, r)
			return
		}
		// A request that arrives while a block is being sealed waits until
		// the txpool has synced to it, so a client that has just seen a
		// receipt can send a transaction depending on it (as on a real node,
		// whose pool is reset before the block is served).
		c.sealed()
		c.rpc.ServeHTTP(w, r)
	})
}

// Operator is the deployer, oracle and exchange operator key. It must never
// be exposed over any API.
func (c *Chain) Operator() *ecdsa.PrivateKey { return c.operator }

// MarketMaker is the funded wallet the synthetic liquidity trades from; its
// collateral and CTF approvals for both exchanges and the neg-risk adapter are set.
func (c *Chain) MarketMaker() *ecdsa.PrivateKey { return c.marketMaker }

// OutsideWallets are funded wallets with trading approvals set, standing in
// for other venue users (copy-trade targets).
func (c *Chain) OutsideWallets() []*ecdsa.PrivateKey {
	return append([]*ecdsa.PrivateKey(nil), c.outside...)
}
