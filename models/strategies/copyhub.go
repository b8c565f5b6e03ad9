package strategies

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/venue/chain"
	"github.com/agent-trading/ats/venue/micro"
)

// CopyHub watches, in one worker process, the wallets COPY_TRADE
// strategies copy: one chain watcher per distinct target, shared by every
// strategy copying it (a thousand copiers of one wallet are one watcher
// and two log subscriptions), woken by the node's log notifications, so a
// target that does not trade costs nothing.
//
// For each log of a target (chain order, at Confirmations depth) it
// records the event for every ACTIVE strategy copying it (models.CopyTrade,
// unique per strategy, transaction and log) BEFORE anything is placed,
// moves the target's durable watermark (block, log index) past it, and
// then hints each strategy's workflow. The hint carries nothing: the
// workflow's execution claims the recorded event from the database and
// places the copy under a key derived from (transaction, log), so a lost,
// repeated or forged hint changes nothing. A restart resumes after the
// watermark (at least once), the unique record makes it exactly once, and
// events recorded but not yet hinted are hinted again at start.
type CopyHub struct {
	Store *store.Store
	Dial  chain.DialFunc
	Venue chain.TargetVenue
	// Confirmations is how deep a block must be before its logs are copied.
	Confirmations uint64
	// Signal hints a strategy's workflow (workflows.StrategyDeskClient.Hint).
	Signal func(ctx context.Context, strategyID string) error
	// Workers bounds concurrent hints (default 32).
	Workers int
	// PollInterval is the watchers' fallback poll (default 2 s).
	PollInterval time.Duration
	Logger       *slog.Logger

	mu      sync.Mutex
	ctx     context.Context
	targets map[common.Address]*targetWatch
	hints   chan string
	pending map[string]bool
	wg      sync.WaitGroup
	stopped bool
}

type targetWatch struct {
	copiers map[string]bool
	cancel  context.CancelFunc
	// resumeAfter is the (block, log index) dispatched before a restart
	// inside a block the watcher reads again.
	resumeBlock uint64
	resumeIndex int64
}

func (h *CopyHub) log() *slog.Logger {
	if h.Logger != nil {
		return h.Logger
	}
	return slog.Default()
}

func (h *CopyHub) init() {
	if h.targets == nil {
		h.targets = map[common.Address]*targetWatch{}
		h.pending = map[string]bool{}
		h.hints = make(chan string, 1<<16)
	}
}

// Follow implements Following: strategyID copies target, and is not final
// (active) or is. A target's watcher runs while a strategy that is not
// final copies it; only the ACTIVE ones get its events recorded.
func (h *CopyHub) Follow(strategyID, target string, active bool) {
	if !common.IsHexAddress(target) {
		return
	}
	addr := common.HexToAddress(target)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.init()
	tw := h.targets[addr]
	if !active {
		if tw == nil || !tw.copiers[strategyID] {
			return
		}
		delete(tw.copiers, strategyID)
		if len(tw.copiers) == 0 {
			if tw.cancel != nil {
				tw.cancel()
			}
			delete(h.targets, addr)
		}
		return
	}
	if tw == nil {
		tw = &targetWatch{copiers: map[string]bool{}}
		h.targets[addr] = tw
	}
	tw.copiers[strategyID] = true
	if tw.cancel == nil && h.ctx != nil {
		h.start(addr, tw)
	}
}

// Watching reports how many targets have a watcher and how many
// strategies copy them.
func (h *CopyHub) Watching() (targets, copiers int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, tw := range h.targets {
		targets++
		copiers += len(tw.copiers)
	}
	return targets, copiers
}

// Rebuild follows every COPY_TRADE strategy not final (a worker's start) and
// hints those with recorded events no execution handled (their worker may
// have died between recording and hinting).
func (h *CopyHub) Rebuild(ctx context.Context) (int, error) {
	fs, err := h.Store.CopyFollows(ctx, NonFinal...)
	if err != nil {
		return 0, err
	}
	for _, f := range fs {
		h.Follow(f.StrategyID, f.Target, true)
	}
	ids, err := h.Store.StrategiesWithPendingCopies(ctx)
	if err != nil {
		return len(fs), err
	}
	for _, id := range ids {
		h.hint(id)
	}
	return len(fs), nil
}

// Run starts the watchers of the targets followed so far and of those
// followed later, and the hint senders, until ctx ends.
func (h *CopyHub) Run(ctx context.Context) error {
	h.mu.Lock()
	h.init()
	h.ctx = ctx
	for addr, tw := range h.targets {
		h.start(addr, tw)
	}
	n := h.Workers
	if n <= 0 {
		n = 32
	}
	for range n {
		h.wg.Go(func() { h.sendHints(ctx) })
	}
	h.mu.Unlock()
	<-ctx.Done()
	h.mu.Lock()
	h.stopped = true // no watcher starts after this: the wait is final
	h.mu.Unlock()
	h.wg.Wait()
	return ctx.Err()
}

// start runs target's watcher (h.mu held).
func (h *CopyHub) start(addr common.Address, tw *targetWatch) {
	if h.stopped {
		return
	}
	ctx, cancel := context.WithCancel(h.ctx)
	tw.cancel = cancel
	key := addr.Hex()
	h.wg.Go(func() {
		// A target without a watermark is read from the first block its
		// copiers want (the head when the first was created).
		start, err := h.Store.CopyTargetStart(ctx, key)
		if err != nil {
			h.log().Error("copy watcher start block", "target", key, "err", err)
		}
		w, err := chain.NewWatcher(chain.WatcherConfig{
			Dial: h.Dial, Exchanges: h.Venue.Exchanges, Makers: []common.Address{addr},
			Store: copyWatermarks{h: h, tw: tw}, Key: key, StartBlock: start,
			Confirmations: h.Confirmations, PollInterval: h.PollInterval,
			Queries:    h.Venue.TargetQueries,
			DeliverLog: func(ctx context.Context, l types.Log) error { return h.dispatch(ctx, addr, tw, l) },
			Logger:     h.log().With("component", "copy-watcher", "target", key),
		})
		if err != nil {
			h.log().Error("copy watcher not started", "target", key, "err", err)
			return
		}
		h.log().Info("copy: watching a target", "target", key, "start_block", start)
		_ = w.Run(ctx)
	})
}

// dispatch records one log of target for every ACTIVE strategy copying it,
// saves the watermark past it, then hints them.
func (h *CopyHub) dispatch(ctx context.Context, target common.Address, tw *targetWatch, l types.Log) error {
	if l.BlockNumber == tw.resumeBlock && int64(l.Index) <= tw.resumeIndex {
		return nil // dispatched before a restart
	}
	ev, err := h.Venue.ClassifyTargetLog(l, target)
	if err != nil {
		h.log().Error("copy: undecodable log of the target is skipped", "target", target.Hex(), "tx", l.TxHash.Hex(), "index", l.Index, "err", err)
		return nil
	}
	if ev.Ignore {
		return nil
	}
	key := target.Hex()
	ids, err := h.Store.CopyFollowers(ctx, key, l.BlockNumber)
	if err != nil {
		return err
	}
	if len(ids) > 0 {
		base := models.CopyTrade{TxHash: strings.ToLower(l.TxHash.Hex()), LogIndex: int64(l.Index), Target: key, Block: int64(l.BlockNumber),
			Kind: models.CopyKindSkip, TokenID: ev.TokenID, Reason: ev.Skip}
		if f := ev.Trade; f != nil {
			base.Kind, base.TokenID, base.Side = models.CopyKindTrade, f.TokenID.String(), f.Side.String()
			base.SharesMicro, base.PriceMicro = micro.Truncate(f.Shares), micro.Truncate(f.Price)
		}
		rows := make([]models.CopyTrade, len(ids))
		for i, id := range ids {
			rows[i] = base
			rows[i].StrategyID = id
		}
		if err := h.Store.RecordCopyTrades(ctx, rows); err != nil {
			return err
		}
	}
	if err := h.Store.SaveCopyWatermark(ctx, key, l.BlockNumber, int64(l.Index)); err != nil {
		return err
	}
	h.log().Info("copy: target event recorded", "target", key, "tx", l.TxHash.Hex(), "index", l.Index, "block", l.BlockNumber,
		"trade", ev.Trade != nil, "skip", ev.Skip, "copiers", len(ids))
	for _, id := range ids {
		h.hint(id)
	}
	return nil
}

// hint queues a hint for strategyID (at most one queued per strategy).
func (h *CopyHub) hint(strategyID string) {
	h.mu.Lock()
	h.init()
	if h.pending[strategyID] {
		h.mu.Unlock()
		return
	}
	h.pending[strategyID] = true
	h.mu.Unlock()
	select {
	case h.hints <- strategyID:
	default:
		h.mu.Lock()
		delete(h.pending, strategyID)
		h.mu.Unlock()
		h.log().Error("copy hint queue full: the hint is dropped (the event stays recorded)", "strategy_id", strategyID)
	}
}

func (h *CopyHub) sendHints(ctx context.Context) {
	for {
		var id string
		select {
		case <-ctx.Done():
			return
		case id = <-h.hints:
		}
		// Cleared before sending: an event recorded during the send gets
		// a hint of its own.
		h.mu.Lock()
		delete(h.pending, id)
		h.mu.Unlock()
		var err error
		for attempt := range 5 {
			sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err = h.Signal(sctx, id)
			cancel()
			if err == nil || ctx.Err() != nil {
				break
			}
			time.Sleep(time.Duration(200*(attempt+1)) * time.Millisecond)
		}
		if err != nil && ctx.Err() == nil {
			h.log().Warn("copy hint failed", "strategy_id", id, "err", err)
		}
	}
}

// copyWatermarks is a target's watermark as the chain watcher sees it:
// the last whole block dispatched. A watermark inside a block (a restart
// after some of its logs) makes the watcher read that block again and
// dispatch skip the logs up to the saved index.
type copyWatermarks struct {
	h  *CopyHub
	tw *targetWatch
}

func (c copyWatermarks) Load(ctx context.Context, key string) (uint64, error) {
	block, idx, ok, err := c.h.Store.CopyWatermark(ctx, key)
	if err != nil || !ok {
		return 0, err
	}
	if idx < 0 {
		return block, nil
	}
	// Load and dispatch run on the watcher's goroutine.
	c.tw.resumeBlock, c.tw.resumeIndex = block, idx
	if block == 0 {
		return 0, nil
	}
	return block - 1, nil
}

func (c copyWatermarks) Save(ctx context.Context, key string, block uint64) error {
	return c.h.Store.SaveCopyWatermark(ctx, key, block, -1)
}
