package sandbox

import (
	"errors"
	"path/filepath"
	"time"

	"github.com/agent-trading/ats/sandbox/markets"
	"github.com/agent-trading/ats/sandbox/persist"
	"github.com/agent-trading/ats/venue"
)

// A sandbox kept in a data dir (Config.DataDir):
//
//	DataDir/chain  the chain: go-ethereum's database (blocks, receipts and
//	               every block's state) and genesis.json
//	DataDir/state  the venue: orders that rest or traded, trades, matches
//	               whose settlement is in flight, API keys, the markets'
//	               lifecycle (listings, ticks, resolutions, volumes), fair
//	               prices and price history
//
// Durability: every answer that reports a change (an order placed or
// cancelled, a key created, a market listed or resolved, a wallet funded)
// is sent once the change is on disk, synced; a block is on disk before any
// RPC answer shows it; a match is recorded before its settlement is sent,
// so after a crash the venue finishes it from the chain (it settled) or
// drops it (it did not: the chain keeps no transaction pool across a
// restart, no local-transaction journal, so a settlement not mined before
// the crash can never be mined after it). Reads and WebSocket events may show a change up
// to one disk sync (a few milliseconds) before it is durable: a crash in
// that window loses the change as if its request had failed unanswered,
// which the service's reconciliation (order status by hash) already
// handles. The synthetic market makers' quotes are not kept: a reopened
// venue quotes every open market afresh around its kept fair price.
// Heartbeat chains (POST /v1/heartbeats) are not kept either: a restart
// ends them, as if the venue had just started.

// stateMeta records what a state directory was made with.
type stateMeta struct {
	Seed    int64     `json:"seed"`
	Created time.Time `json:"created"`
}

const metaKey = "sandbox/meta"

func chainDir(dataDir string) string {
	if dataDir == "" {
		return ""
	}
	return filepath.Join(dataDir, "chain")
}

// openState opens the venue's state next to the chain. State whose chain
// is gone would describe markets, balances and orders that do not exist, so
// that is refused rather than repaired (a chain without state is what a
// first start leaves when it stops before listing anything: the venue lists
// its catalogue on it).
func openState(cfg Config, chainRestored bool) (*persist.Store, error) {
	st, err := persist.Open(filepath.Join(cfg.DataDir, "state"), persist.Options{Logger: cfg.Logger.With("component", "sandbox-state")})
	if err != nil {
		return nil, err
	}
	var meta stateMeta
	found, err := st.Get(metaKey, &meta)
	if err == nil && !chainRestored {
		var markets bool
		if markets, err = hasMarkets(st); err == nil && markets {
			err = venue.Ef(venue.Invalid, "the sandbox data dir %s holds venue state but no chain; remove it for a clean slate", cfg.DataDir)
		}
	}
	switch {
	case err != nil:
	case !found:
		err = st.Wait(st.Put(metaKey, stateMeta{Seed: cfg.Seed, Created: time.Now().UTC()}))
	case meta.Seed != cfg.Seed:
		err = venue.Ef(venue.Invalid, "the sandbox data dir %s was made with seed %d, not %d; use that seed or remove the directory", cfg.DataDir, meta.Seed, cfg.Seed)
	}
	if err != nil {
		_ = st.Close()
		return nil, err
	}
	return st, nil
}

var errFound = errors.New("found")

func hasMarkets(st *persist.Store) (bool, error) {
	err := st.Scan(markets.JournalMarketPrefix, func(string, []byte) error { return errFound })
	if errors.Is(err, errFound) {
		return true, nil
	}
	return false, err
}

// Restored reports whether the sandbox reopened from its data dir (false
// for a new or in-memory one).
func (s *Sandbox) Restored() bool { return s.venue.Restored() }
