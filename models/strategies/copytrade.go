package strategies

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/events"
	"github.com/agent-trading/ats/models/metrics"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/venue/chain"
	"github.com/agent-trading/ats/venue/micro"
	"github.com/agent-trading/ats/venue/network"
)

// COPY_TRADE sizing modes.
const (
	SizingFixed        = "fixed"
	SizingProportional = "proportional"
)

// Limits of COPY_TRADE.
var (
	// CopySlippage is how far from the target's fill price a copy may
	// fill: a copied BUY accepts up to price + CopySlippage, a copied SELL
	// down to price − CopySlippage (rounded to the cent in the strategy's
	// favour, within the venue's 0.01–0.99).
	CopySlippage = decimal.RequireFromString("0.02")
	// MaxTokenFilter bounds tokenFilter.
	MaxTokenFilter = 100
	// CopyMaxAge is how old a recorded event of the target may be when its
	// execution runs: an older one (the strategy was paused, or its worker
	// down, for longer) is skipped as stale rather than copied late.
	CopyMaxAge = 5 * time.Minute

	// MinProportionPct and MaxProportionPct bound proportionPct.
	MinProportionPct, MaxProportionPct = decimal.NewFromInt(1), decimal.NewFromInt(100)

	cent = decimal.RequireFromString("0.01")
)

// OwnAddresses are the addresses of a user's wallet a COPY_TRADE may not
// copy: its EOA, its funder (proxy, Safe or deposit wallet) and the proxy
// and Safe the EOA would own on the network, deployed or not.
func OwnAddresses(w *models.Wallet, n *network.Network) []common.Address {
	if w == nil {
		return nil
	}
	out := []common.Address{common.HexToAddress(w.EOAAddress), common.HexToAddress(w.FunderAddress)}
	if n != nil {
		eoa := common.HexToAddress(w.EOAAddress)
		out = append(out, chain.DeriveProxyAddress(*n, eoa), chain.DeriveSafeAddress(*n, eoa))
	}
	return out
}

// checkCopyTarget refuses a target that is the user's own wallet (at
// creation and at resume).
func (s *Service) checkCopyTarget(ctx context.Context, userID, target string) error {
	own, err := copiesOwnWallet(ctx, s.Store, s.Network, userID, target)
	if err != nil || !own {
		return err
	}
	return errs.Ef(errs.Invalid, "config.targetAddress %s is your own wallet: a strategy cannot copy itself", common.HexToAddress(target).Hex()).
		WithCode(errs.CodeCopyOwnWallet)
}

// copiesOwnWallet reports whether target is one of the user's own wallet's
// addresses, as the wallet is now (a user without a wallet has none). It
// runs at creation, at every copy and when a wallet is imported: a wallet
// imported after the strategy was created (or deleted and another
// imported) can make its target the user's own.
func copiesOwnWallet(ctx context.Context, st *store.Store, n *network.Network, userID, target string) (bool, error) {
	w, err := st.WalletByUser(ctx, userID)
	if errs.Is(err, errs.NotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return slices.Contains(OwnAddresses(w, n), common.HexToAddress(target)), nil
}

// ownCopyReason says why a COPY_TRADE whose target is the user's own
// wallet stopped.
func ownCopyReason(target string) string {
	return fmt.Sprintf("the target %s is your own wallet (imported after the strategy was created): copying it would copy your own trades, "+
		"so the strategy stopped; cancel it", common.HexToAddress(target).Hex())
}

// StopOwnCopies puts in ERROR the user's ACTIVE and PAUSED COPY_TRADE
// strategies whose target is now the user's own wallet (run when a wallet
// is imported): each with its reason, an event for its agent and an
// audit entry (strategy.stop, from clientAddr, the import's). It returns
// their ids, for the caller to hint their workflows, which read the new
// status at their next check. Executions check the target again
// regardless (Engine.executeCopy).
func StopOwnCopies(ctx context.Context, s *store.Store, n *network.Network, userID, clientAddr string) ([]string, error) {
	w, err := s.WalletByUser(ctx, userID)
	if errs.Is(err, errs.NotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	own := OwnAddresses(w, n)
	var rows []models.Strategy
	for _, t := range registry {
		if _, ok := t.(Follower); !ok {
			continue
		}
		page, err := s.FindStrategies(ctx, store.StrategyFilter{UserID: userID, Type: t.Name(),
			Statuses: []string{StatusActive, StatusPaused}, Limit: 1000})
		if err != nil {
			return nil, err
		}
		rows = append(rows, page...)
	}
	var stopped []string
	for i := range rows {
		st := &rows[i]
		target := copyTarget(st)
		if !slices.Contains(own, common.HexToAddress(target)) {
			continue
		}
		reason := ownCopyReason(target)
		err := s.Tx(ctx, func(tx *store.Store) error {
			if err := tx.UpdateStrategy(ctx, st.ID, []string{st.Status}, store.StrategyUpdate{Status: ptr(StatusError), LastError: &reason,
				PausedBy: ptr(""), Triggers: ptr(""), NextEvaluationAt: &time.Time{}}); err != nil {
				return err
			}
			if _, err := events.Append(ctx, tx, events.Event{AgentID: st.AgentID, UserID: st.UserID, Type: events.StrategyError,
				StrategyID: st.ID, StrategyType: st.Type, By: events.BySystem, Summary: "strategy " + st.ID + " stopped: " + reason,
				Details: map[string]any{"lastError": reason}}); err != nil {
				return err
			}
			return audit.Append(ctx, tx, audit.Entry{UserID: st.UserID, AgentID: st.AgentID, Action: audit.ActionStrategy + "stop",
				Target: st.ID, Result: audit.Success, ClientAddr: clientAddr,
				Detail: map[string]any{"by": string(events.BySystem), "type": st.Type, "strategy": st.ID, "reason": errs.CodeCopyOwnWallet}})
		})
		if errs.CodeOf(err) == errs.CodeStrategyState {
			continue // it moved on meanwhile (cancelled, errored)
		}
		if err != nil {
			return stopped, err
		}
		stopped = append(stopped, st.ID)
	}
	return stopped, nil
}

// Following is what the engine tells the process's copy watchers
// (*CopyHub): which strategies copy which wallet, and whether they still
// may copy (not final). Only ACTIVE ones get the target's events recorded;
// PAUSED and ERROR ones keep the target watched so that a resume goes on
// from the present instead of replaying what the target did meanwhile.
type Following interface {
	Follow(strategyID, target string, following bool)
}

// copyTarget is the wallet a strategy of a Follower type (COPY_TRADE)
// copies ("" for other types).
func copyTarget(st *models.Strategy) string {
	f, ok := followerOf(st.Type)
	if !ok {
		return ""
	}
	c, err := Load(st.Config)
	if err != nil {
		return ""
	}
	return f.Target(c)
}

// sellsWhatItHolds reports whether a strategy that spent its budget keeps
// running while it holds shares, to sell them.
func sellsWhatItHolds(typ string, c Config) bool { return typeOf(typ).SellsHoldings(c) }

// prepareCopy checks a new COPY_TRADE's target against the user's own
// wallet and returns the write that records its follow with the strategy.
func (s *Service) prepareCopy(ctx context.Context, userID string, st *models.Strategy, target string) (func(tx *store.Store) error, error) {
	if err := s.checkCopyTarget(ctx, userID, target); err != nil {
		return nil, err
	}
	var from uint64
	if s.Head != nil {
		h, err := s.Head(ctx)
		if err != nil {
			return nil, errs.Wrap(errs.Transient, err, "the chain does not answer")
		}
		from = h + 1 // the head's trades happened before the strategy
	}
	f := &models.CopyFollow{StrategyID: st.ID, Target: target, FromBlock: int64(from)}
	return func(tx *store.Store) error { return tx.CreateCopyFollow(ctx, f) }, nil
}

// CopyIdempotencyKey is the key of the order copying the target's log
// (txHash, logIndex) for a strategy: whatever retries, replays or restarts
// happen, one order per copied trade.
func CopyIdempotencyKey(strategyID, txHash string, logIndex int64) string {
	return fmt.Sprintf("copy:%s:%s:%d", strategyID, strings.ToLower(txHash), logIndex)
}

// copySource names the target's event in execution reasons.
func copySource(ct *models.CopyTrade) string {
	if ct.Kind == models.CopyKindSkip {
		return fmt.Sprintf("tx %s log %d", ct.TxHash, ct.LogIndex)
	}
	return fmt.Sprintf("target %s %s %s @ %s (tx %s log %d)", ct.Target, ct.Side, micro.Decimal(ct.SharesMicro).String(),
		micro.Decimal(ct.PriceMicro).String(), ct.TxHash, ct.LogIndex)
}

// executeCopy runs execution seq of a COPY_TRADE: it claims the oldest
// recorded event of the target no execution handled (or the one an earlier
// attempt of seq claimed), decides the copy and places it under the key
// derived from the event, and records it. Nothing pending: nothing
// executed.
func (e *Engine) executeCopy(ctx context.Context, f Follower, st *models.Strategy, c Config, seq int, d *deferral) (Outcome, error) {
	ct, err := e.Store.ClaimCopyTrade(ctx, st.ID, seq)
	if errs.Is(err, errs.NotFound) {
		return Outcome{State: stateOf(st)}, nil
	}
	if err != nil {
		return Outcome{}, err
	}
	// The target may have become the user's own wallet since the strategy
	// was created: then this event is the user's own trade, and a copy of
	// it would be copied in turn. Never placed; the strategy stops.
	if own, err := copiesOwnWallet(ctx, e.Store, e.Network, st.UserID, f.Target(c)); err != nil {
		return Outcome{}, err
	} else if own {
		reason := ownCopyReason(f.Target(c)) + ": " + copySource(ct)
		return e.record(ctx, st, c, seq, Plan{Kind: KindError, Stop: true, Reason: reason}, nil,
			errs.E(errs.Invalid, reason).WithCode(errs.CodeCopyOwnWallet))
	}
	out, err := e.copy(ctx, f, st, c, seq, ct, d)
	if err != nil {
		return Outcome{}, err
	}
	if d != nil && d.place != nil || out.WaitsFor != "" {
		// Recorded by Placed, which looks for more; or waiting, when
		// the events after this one wait too.
		return out, nil
	}
	if out.State.Status == StatusActive {
		if out.State.Pending, err = e.Store.CopyTradesPending(ctx, st.ID, seq); err != nil {
			return Outcome{}, err
		}
	}
	return out, nil
}

func (e *Engine) copy(ctx context.Context, f Follower, st *models.Strategy, c Config, seq int, ct *models.CopyTrade, d *deferral) (Outcome, error) {
	key := CopyIdempotencyKey(st.ID, ct.TxHash, ct.LogIndex)
	if prev, err := e.Store.OrderByIdempotencyKey(ctx, st.AgentID, key); err == nil {
		pl := Plan{Kind: KindAction, Reason: "copy of " + copySource(ct) + " (placed by an earlier attempt)"}
		if out, ok, err := e.holdStored(ctx, d, st, c, seq, prev, pl); ok || err != nil {
			return out, err
		}
		return e.record(ctx, st, c, seq, pl, prev, nil)
	} else if !errs.Is(err, errs.NotFound) {
		return Outcome{}, err
	}
	buying, err := e.refresh(ctx, st)
	if err != nil {
		return Outcome{}, err
	}
	trade := &TargetTrade{Event: ct}
	h, err := e.holdings(ctx, st.ID, ct.TokenID)
	if err != nil {
		return Outcome{}, err
	}
	trade.HeldMicro, trade.CommittedMicro = h.held, h.committed
	in := Input{Snapshot: snapshotOf(st, c, buying), Now: e.now(), Trade: trade}
	if w := waitsForBuy(f, in, h, d); w != "" {
		return Outcome{State: stateOf(st), WaitsFor: w}, nil
	}
	pl, err := f.Decide(in)
	if err != nil {
		if retryable(err) {
			return Outcome{}, err
		}
		return e.record(ctx, st, c, seq, Plan{Kind: KindError, Reason: errs.PublicMessage(err) + ": " + copySource(ct)}, nil, err)
	}
	if pl.Kind != KindAction {
		return e.record(ctx, st, c, seq, pl, nil, nil)
	}
	pl.Order.IdempotencyKey, pl.Order.StrategyID = key, st.ID
	o, ref, err := e.placeOrder(ctx, st, pl.Order, d)
	if err != nil {
		if retryable(err) {
			return Outcome{}, err
		}
		if errs.CodeOf(err) == errs.CodeAgentInactive {
			return e.agentStopped(ctx, st)
		}
		pl.Kind, pl.Reason, pl.Complete = KindError, errs.PublicMessage(err)+": "+copySource(ct), ""
		if errs.CodeOf(err) == errs.CodeBelowMinSize {
			// A small trade of the target is no failure of the strategy.
			pl.Kind, pl.Reason = KindSkip, "the copy is below the market's minimum order size ("+errs.PublicMessage(err)+"): "+copySource(ct)
			return e.record(ctx, st, c, seq, pl, nil, nil)
		}
		return e.record(ctx, st, c, seq, pl, nil, err)
	}
	if ref != nil {
		return e.handOver(ctx, d, st, c, seq, ref, pl, &ct.CreatedAt)
	}
	// From the target's trade recorded (its block seen) to the copy
	// placed: the latency the goal bounds.
	metrics.CopyLatency(e.now().Sub(ct.CreatedAt))
	return e.record(ctx, st, c, seq, pl, o, nil)
}

// holding is what a strategy has of one token (holdings).
type holding struct {
	// held: what its filled buys hold less what its sells filled or
	// still offer (what it may sell).
	held int64
	// committed: held plus what its live buys may still fill (what
	// counts against maxPositionSize).
	committed int64
	// placing: the size of its BUYs still being placed (PENDING), and
	// the first of them.
	placing      int64
	placingOrder string
}

// holdings are a strategy's shares of one token (holding).
func (e *Engine) holdings(ctx context.Context, strategyID, tokenID string) (holding, error) {
	os, err := e.Store.StrategyTokenOrders(ctx, strategyID, tokenID)
	if err != nil {
		return holding{}, err
	}
	t := tallyOf(os)
	h := holding{held: t.open, committed: t.open + t.buying}
	for i := range os {
		if o := &os[i]; o.Side == "BUY" && o.Status == models.OrderPending {
			h.placing += o.SizeMicro
			if h.placingOrder == "" {
				h.placingOrder = o.ID
			}
		}
	}
	return h, nil
}

// waitsForBuy names the order an execution deciding with its outcome open
// (DecideOpen) waits for: a BUY of the token still being placed, when the
// target's trade would be copied as a SELL were that BUY filled. The
// execution does not decide on holdings its own order in flight is about
// to change: a target that buys and sells within the seconds the copy's
// BUY takes to place must have both copied, as they were when an
// execution waited for its order's placement. The order's settling wakes
// the strategy (Settled.Wake). An execution that records at once (d not
// open) ran after its previous order's placement already.
func waitsForBuy(f Follower, in Input, h holding, d *deferral) string {
	if d == nil || !d.open || h.placing == 0 || in.Trade.Event.Side != "SELL" {
		return ""
	}
	filled := *in.Trade
	filled.HeldMicro += h.placing
	in.Trade = &filled
	if pl, err := f.Decide(in); err != nil || pl.Kind != KindAction || pl.Order.Side != "SELL" {
		return "" // no sell either way: decided now
	}
	return h.placingOrder
}
