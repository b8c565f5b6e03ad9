package chain

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/node"
	"github.com/google/renameio/v2"

	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/contracts"
)

// genesisFile holds a persistent chain's genesis: the block is rebuilt from
// it on every start, so its hash is the one the database was created with
// even when the contracts' bytecode in this binary has changed since.
const genesisFile = "genesis.json"

// genesis returns the chain's genesis: the stored one of a data dir that
// has one, otherwise a new one (stored before the node writes anything,
// so a crash during the first start leaves a directory that reopens with
// the same genesis).
func (c *Chain) genesis() (*core.Genesis, error) {
	if c.cfg.DataDir == "" {
		return c.newGenesis()
	}
	if err := os.MkdirAll(c.cfg.DataDir, 0o700); err != nil {
		return nil, venue.Wrap(venue.Internal, err, "create the sandbox chain's data dir")
	}
	path := filepath.Join(c.cfg.DataDir, genesisFile)
	raw, err := os.ReadFile(path)
	switch {
	case err == nil:
		var g core.Genesis
		if err := json.Unmarshal(raw, &g); err != nil {
			return nil, venue.Wrap(venue.Internal, err, "the sandbox chain's genesis file is unreadable")
		}
		return &g, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, venue.Wrap(venue.Internal, err, "read the sandbox chain's genesis")
	}
	g, err := c.newGenesis()
	if err != nil {
		return nil, err
	}
	raw, err = json.Marshal(g)
	if err != nil {
		return nil, venue.Wrap(venue.Internal, err, "encode the sandbox chain's genesis")
	}
	if err := renameio.WriteFile(path, raw, 0o600); err != nil {
		return nil, venue.Wrap(venue.Internal, err, "store the sandbox chain's genesis")
	}
	return g, nil
}

// onDisk points the node at dataDir. State is kept by the hash scheme in
// archive mode: geth then commits each block's state to the database as it
// inserts the block (the path scheme keeps the newest states in memory and
// rolls the chain back after a crash; flattening it after every block would
// invalidate the readers of the head state). Archive mode keeps every
// block's state, which costs disk only for blocks that change it: empty
// blocks change nothing (see genesisAlloc). The caches are small, the
// sandbox's state is tiny. No log index is kept (startNode, in memory
// too): log queries (the fill watcher's recent ranges, FindSettlement)
// filter the blocks by their header blooms instead, and the index would
// cost disk and CPU in every block (and, built with -race, pebble's
// invariant checks make rebuilding it at start take most of a minute).
func onDisk(n *node.Config, e *ethconfig.Config, dataDir string) {
	n.DataDir = dataDir
	n.Name = "node" // the instance directory; by default it is named after the executable
	e.StateScheme = rawdb.HashScheme
	e.NoPruning = true
	e.SnapshotCache = 0
	e.DatabaseCache = 32
	e.DatabaseHandles = 256
	e.TrieCleanCache = 16
	e.TrieDirtyCache = 16
}

// head is the number of the chain's current block.
func (c *Chain) head() uint64 { return c.backend.BlockChain().CurrentBlock().Number.Uint64() }

// persistBlock makes the block just sealed durable before anyone is told
// it exists (called with commitMu held, which readers of the chain pass as
// a barrier): geth writes its database without waiting for the disk, so a
// crash of the machine could otherwise lose a block whose receipt was
// already answered. The state is already written (archive mode).
func (c *Chain) persistBlock() error {
	if c.cfg.DataDir == "" {
		return nil
	}
	return c.backend.ChainDb().SyncKeyValue()
}

// Restored reports whether the chain was reopened from its data dir
// rather than created.
func (c *Chain) Restored() bool { return c.restored }

// preparedMarket returns what PrepareMarket recorded about a condition. A
// chain reopened from its data dir has no record of the conditions its
// earlier runs prepared; they are read back from the CTF's
// ConditionPreparation event (the oracle tells a neg-risk market: its
// oracle is the adapter).
func (c *Chain) preparedMarket(ctx context.Context, conditionID [32]byte) (marketInfo, error) {
	c.marketsMu.RLock()
	info, ok := c.markets[conditionID]
	c.marketsMu.RUnlock()
	if ok {
		return info, nil
	}
	notPrepared := venue.E(venue.NotFound, "market not prepared on the sandbox chain")
	if !c.restored {
		return marketInfo{}, notPrepared
	}
	ctf, err := contracts.NewConditionalTokens(c.net.ConditionalTokens, c.client)
	if err != nil {
		return marketInfo{}, venue.Wrap(venue.Internal, err, "bind conditional tokens")
	}
	it, err := ctf.FilterConditionPreparation(&bind.FilterOpts{Context: ctx}, [][32]byte{conditionID}, nil, nil)
	if err != nil {
		return marketInfo{}, venue.Wrap(venue.Unavailable, err, "read the condition's preparation")
	}
	defer it.Close()
	for it.Next() {
		ev := it.Event
		switch ev.Oracle {
		case address(c.operator):
			info = marketInfo{questionID: ev.QuestionId}
		case c.net.NegRiskAdapter:
			info = marketInfo{questionID: ev.QuestionId, negRisk: true}
		default:
			continue // prepared by someone else: not a sandbox market
		}
		c.marketsMu.Lock()
		c.markets[conditionID] = info
		c.marketsMu.Unlock()
		return info, nil
	}
	if err := it.Error(); err != nil {
		return marketInfo{}, venue.Wrap(venue.Unavailable, err, "read the condition's preparation")
	}
	return marketInfo{}, notPrepared
}

// FindSettlement looks for the matchOrders settlement of a taker order
// (its OrdersMatched event) in the blocks mined since the given time, on
// the exchange of the market kind. The venue calls it when it reopens with
// a match whose settlement was in flight when it stopped.
func (c *Chain) FindSettlement(ctx context.Context, negRisk bool, takerOrderHash [32]byte, since time.Time) (tx common.Hash, block uint64, found bool, err error) {
	from, err := c.firstBlockSince(ctx, since)
	if err != nil {
		return common.Hash{}, 0, false, err
	}
	ex, err := contracts.NewExchange(c.net.ExchangeFor(negRisk), c.client)
	if err != nil {
		return common.Hash{}, 0, false, venue.Wrap(venue.Internal, err, "bind exchange")
	}
	it, err := ex.FilterOrdersMatched(&bind.FilterOpts{Start: from, Context: ctx}, [][32]byte{takerOrderHash}, nil)
	if err != nil {
		return common.Hash{}, 0, false, venue.Wrap(venue.Unavailable, err, "read the exchange's settlements")
	}
	defer it.Close()
	if it.Next() {
		return it.Event.Raw.TxHash, it.Event.Raw.BlockNumber, true, nil
	}
	if err := it.Error(); err != nil {
		return common.Hash{}, 0, false, venue.Wrap(venue.Unavailable, err, "read the exchange's settlements")
	}
	return common.Hash{}, 0, false, nil
}

// firstBlockSince is the first block stamped at or after t (a binary search
// over the headers; block times only grow).
func (c *Chain) firstBlockSince(ctx context.Context, t time.Time) (uint64, error) {
	lo, hi := uint64(0), c.head()
	for lo < hi {
		mid := lo + (hi-lo)/2
		h, err := c.client.HeaderByNumber(ctx, new(big.Int).SetUint64(mid))
		if err != nil {
			return 0, venue.Wrap(venue.Unavailable, err, "read a block header")
		}
		if int64(h.Time) < t.Unix() {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// MarketFor is the market PrepareMarket prepares (or prepared) for a
// question: its condition and token ids follow from the question, the
// oracle and the collateral alone.
func (c *Chain) MarketFor(questionID [32]byte, negRisk bool) Market {
	oracle := address(c.operator)
	if negRisk {
		oracle = c.net.NegRiskAdapter
	}
	m := Market{ConditionID: conditionID(oracle, questionID), QuestionID: questionID, NegRisk: negRisk}
	m.TokenIDs = c.positionIDs(m.ConditionID)
	return m
}
