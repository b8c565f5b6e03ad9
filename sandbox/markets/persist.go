package markets

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agent-trading/ats/sandbox/exchange"
	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/clob"
)

// The market lifecycle in the journal (Config.Journal): each market's
// catalogue entry (listing, tick, volume, resolution), the ordinary
// markets' fair prices (an up/down market's follows from the price path)
// and the fair-price samples behind /prices-history. The engine keeps its
// orders and trades in the same journal under its own keys.
const (
	keyMarket  = "v/m/"
	keyFair    = "v/f/"
	keyHistory = "v/h/"
)

// Journal is where the venue keeps its state (sandbox/persist.Store): the
// engine's journal, with single changes and range deletion (to trim the
// price history).
type Journal interface {
	exchange.Journal
	Put(key string, value any) uint64
	DeleteRange(start, end string) uint64
}

// JournalMarketPrefix starts the keys of the markets' catalogue entries.
const JournalMarketPrefix = keyMarket

func marketKey(id int) string { return fmt.Sprintf("%s%010d", keyMarket, id) }

func historyKey(conditionID string, t time.Time) string {
	return fmt.Sprintf("%s%s/%016x", keyHistory, conditionID, t.UnixMilli())
}

// engineJournal configures the engine to keep its orders in the venue's
// journal: every order but the synthetic makers' quotes, which are quoted
// afresh when the venue reopens.
func engineJournal(cfg *exchange.Config, j exchange.Journal) {
	if j == nil {
		return
	}
	cfg.Journal = j
	cfg.Ephemeral = func(owner string) bool { return owner == MakerOwner }
	cfg.DecodeSigned = func(raw []byte) (any, error) {
		var o clob.Order
		if err := json.Unmarshal(raw, &o); err != nil {
			return nil, err
		}
		return o, nil
	}
}

// saveLocked keeps a market's catalogue entry (v.mu held).
func (v *Venue) saveLocked(info *Info) uint64 {
	if v.cfg.Journal == nil {
		return 0
	}
	return v.cfg.Journal.Put(marketKey(info.ID), *info)
}

// saveFairLocked keeps an ordinary market's fair price (v.mu held).
func (v *Venue) saveFairLocked(info *Info) uint64 {
	if v.cfg.Journal == nil || info.UpDown != nil {
		return 0
	}
	return v.cfg.Journal.Put(keyFair+info.ConditionID, v.fair[info.ConditionID])
}

// durable waits until the changes up to seq are on disk.
func (v *Venue) durable(seq uint64) error { return exchange.WaitDurable(v.cfg.Journal, seq) }

// Restored reports whether Start reopened the venue from its journal.
func (v *Venue) Restored() bool { return v.restored }

// restore reopens the venue from its journal: the markets as they were
// (listed on the engine, closed when resolved), fair prices and price
// history, then the engine's orders and trades. It reports false when the
// journal holds no market (a new venue).
func (v *Venue) restore(ctx context.Context) (bool, error) {
	j := v.cfg.Journal
	if j == nil {
		return false, nil
	}
	var infos []*Info
	if err := exchange.ScanJournal(j, keyMarket, func(_ string, info Info) error {
		infos = append(infos, &info)
		return nil
	}); err != nil {
		return false, venue.Wrap(venue.Internal, err, "read the venue's markets")
	}
	if len(infos) == 0 {
		return false, nil
	}
	fair := map[string]uint64{}
	if err := exchange.ScanJournal(j, keyFair, func(k string, f uint64) error {
		fair[strings.TrimPrefix(k, keyFair)] = f
		return nil
	}); err != nil {
		return false, venue.Wrap(venue.Internal, err, "read the venue's prices")
	}
	history := map[string][]PricePoint{}
	if err := exchange.ScanJournal(j, keyHistory, func(k string, p uint64) error {
		cond, ts, ok := strings.Cut(strings.TrimPrefix(k, keyHistory), "/")
		ms, err := strconv.ParseInt(ts, 16, 64)
		if !ok || err != nil {
			return fmt.Errorf("bad price history key %q", k)
		}
		history[cond] = append(history[cond], PricePoint{Time: time.UnixMilli(ms), Micro: p})
		return nil
	}); err != nil {
		return false, venue.Wrap(venue.Internal, err, "read the venue's price history")
	}

	sort.Slice(infos, func(i, k int) bool { return infos[i].ID < infos[k].ID })
	now := v.cfg.Clock()
	for _, info := range infos {
		if err := v.engine.AddMarket(exchange.Market{
			ConditionID: info.ConditionID, Tokens: info.TokenIDs, Outcomes: info.Outcomes,
			TickMicro: info.TickMicro, MinSizeMicro: info.MinMicro, NegRisk: info.NegRisk,
		}); err != nil {
			return false, err
		}
		if info.Resolved {
			v.engine.CloseMarket(info.ConditionID)
		}
		f, ok := fair[info.ConditionID]
		switch {
		case info.Resolved && info.Winner == 0:
			f = exchange.One
		case info.Resolved:
			f = 0
		case info.UpDown != nil:
			f = v.path.Fair(*info.UpDown, now)
		case !ok:
			return false, venue.Ef(venue.Internal, "the venue kept no price for market %s", info.Slug)
		}
		v.mu.Lock()
		v.markets = append(v.markets, info)
		v.byCond[info.ConditionID] = info
		v.byToken[info.TokenIDs[0]], v.byToken[info.TokenIDs[1]] = info, info
		v.bySlug[info.Slug] = info
		v.fair[info.ConditionID] = f
		v.history[info.ConditionID] = history[info.ConditionID]
		v.nextID = max(v.nextID, info.ID)
		v.mu.Unlock()
	}
	finder, _ := v.chain.(exchange.SettlementFinder)
	if err := v.engine.Restore(ctx, finder); err != nil {
		return false, err
	}
	v.restored = true
	v.log.Info("venue reopened", "markets", len(infos))
	return true, nil
}

// requoteAll quotes every open market afresh (the makers' quotes are not
// kept across a restart).
func (v *Venue) requoteAll(ctx context.Context) error {
	var open []string
	for _, m := range v.Markets() {
		if !m.Resolved {
			open = append(open, m.ConditionID)
		}
	}
	for _, c := range open {
		if err := v.requote(ctx, c); err != nil {
			return err
		}
	}
	return nil
}
