package strategies

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/events"
	"github.com/agent-trading/ats/models/metrics"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/micro"
)

// Outcome is the result of an execution step.
type Outcome struct {
	State State `json:"state"`
	// Executed is true when execution number seq is recorded (now or by
	// an earlier attempt); false when nothing was due (a price hint the
	// re-check did not confirm, or a strategy no longer ACTIVE).
	Executed bool   `json:"executed"`
	Kind     string `json:"kind,omitempty"`
	OrderID  string `json:"order_id,omitempty"`
	// WaitsFor names the strategy's order whose placement the execution
	// waits for before it decides (nothing recorded; waitsForBuy): the
	// order's settling wakes the strategy (Settled.Wake) to run it again.
	WaitsFor string `json:"waits_for,omitempty"`
}

// IdempotencyKey is the key of the order of a strategy's execution seq:
// a retried or replayed execution finds the order it placed.
func IdempotencyKey(strategyID string, seq int) string {
	return fmt.Sprintf("strategy:%s:%d", strategyID, seq)
}

// minMarketBuy is the venue's smallest marketable BUY ($1).
var minMarketBuy = clob.MinMarketBuy

// Execute runs execution number seq of strategy id: it re-checks the
// schedule and the price (a hint only ever wakes this check), decides, places the order through the
// order service with the idempotency key of (strategy, seq), and records
// the execution, the budget and the status in one transaction. It is
// idempotent: an execution already recorded is answered as recorded, and
// an order already placed under the key is adopted, never placed again.
// Transient failures are returned for the workflow to retry; any other
// failure is recorded as an error execution.
func (e *Engine) Execute(ctx context.Context, id string, seq int) (Outcome, error) {
	return e.execute(ctx, id, seq, nil)
}

// execute is Execute; with d its order is only accepted and handed to d
// (Decide).
func (e *Engine) execute(ctx context.Context, id string, seq int, d *deferral) (Outcome, error) {
	st, err := e.Store.StrategyByID(ctx, id)
	if err != nil {
		return Outcome{}, err
	}
	if st.Executions >= seq {
		return e.recorded(ctx, st, seq)
	}
	// The agent's status binds the strategy before anything is decided
	// (agent.go): a paused or revoked agent's strategy is parked instead.
	if st, err = e.obeyAgent(ctx, st); err != nil {
		return Outcome{}, err
	}
	if st.Status != StatusActive {
		return Outcome{State: stateOf(st)}, nil
	}
	cfg, err := Load(st.Config)
	if err != nil {
		return Outcome{}, err
	}
	if f, ok := followerOf(st.Type); ok {
		return e.executeCopy(ctx, f, st, cfg, seq, d)
	}
	key := IdempotencyKey(id, seq)

	// An order placed by an earlier attempt of this execution is adopted.
	if prev, err := e.Store.OrderByIdempotencyKey(ctx, st.AgentID, key); err == nil {
		pl := Plan{Kind: KindAction, Reason: "order placed by an earlier attempt of this execution", Complete: typeOf(st.Type).Traits().EndsWhenPlaced}
		if out, ok, err := e.holdStored(ctx, d, st, cfg, seq, prev, pl); ok || err != nil {
			return out, err
		}
		return e.record(ctx, st, cfg, seq, pl, prev, nil)
	} else if !errs.Is(err, errs.NotFound) {
		return Outcome{}, err
	}

	// The market first: it may have moved on (a new window) or closed.
	v, err := e.watchMarket(ctx, st, cfg)
	if err != nil {
		if retryable(err) {
			return Outcome{}, err
		}
		return e.record(ctx, st, cfg, seq, Plan{Kind: KindError, Reason: errs.PublicMessage(err)}, nil, err)
	}
	switch {
	case v.end != "":
		return e.endOnMarket(ctx, st, seq, v)
	case v.moveTo != nil && typeOf(st.Type).Traits().Market != MarketEach:
		return e.moveMarket(ctx, st, cfg, seq, v)
	case v.moveTo != nil:
		// A MarketEach type (RECURRING_BUY) follows its query: this interval buys in the
		// market it names now.
		follow(st, v.moveTo, e.now())
	case v.cur != nil:
		follow(st, v.cur, e.now()) // its name and end date as the venue says now
	}

	buying, err := e.refresh(ctx, st)
	if err != nil {
		return Outcome{}, err
	}
	pl, err := e.decide(ctx, st, cfg, buying)
	if err != nil {
		if retryable(err) {
			return Outcome{}, err
		}
		return e.record(ctx, st, cfg, seq, Plan{Kind: KindError, Reason: errs.PublicMessage(err)}, nil, err)
	}
	if pl.Kind == "" {
		// Nothing due: keep the totals its orders show now (a fill that
		// arrived since the last execution, whose order's hint ran this
		// check) and re-arm for them: a BUY's late fill arms its sell.
		// (Read under the user's lock, as Settle writes them.)
		now := e.now()
		out, _, err := e.locked(ctx, st, func(tx *store.Store, cur *models.Strategy) (*store.StrategyUpdate, []events.Event, error) {
			if cur.Status != StatusActive {
				return nil, nil, errs.Ef(errs.Conflict, "the strategy is %s", cur.Status).WithCode(errs.CodeStrategyState)
			}
			next := *st
			buying, err := e.refreshIn(ctx, tx, &next)
			if err != nil {
				return nil, nil, err
			}
			conds, err := e.armedAfter(ctx, tx, &next, cfg, buying, pl)
			if err != nil {
				return nil, nil, err
			}
			u := &store.StrategyUpdate{LastEvaluatedAt: &now,
				BudgetUsedMicro: &next.BudgetUsedMicro, OpenSizeMicro: &next.OpenSizeMicro,
				Triggers: ptr(encodeConds(conds))}
			if v.cur != nil {
				setMarket(u, &next)
			}
			return u, nil, nil
		})
		if err != nil {
			return Outcome{}, err
		}
		return Outcome{State: stateOf(out)}, nil
	}
	if pl.Kind != KindAction {
		return e.record(ctx, st, cfg, seq, pl, nil, nil)
	}
	pl.Order.IdempotencyKey = key
	pl.Order.StrategyID = id
	o, ref, err := e.placeOrder(ctx, st, pl.Order, d)
	if err != nil {
		if retryable(err) {
			return Outcome{}, err
		}
		if errs.CodeOf(err) == errs.CodeAgentInactive {
			return e.agentStopped(ctx, st)
		}
		pl.Kind, pl.Reason, pl.Complete = KindError, errs.PublicMessage(err), ""
		return e.record(ctx, st, cfg, seq, pl, nil, err)
	}
	if ref != nil {
		return e.handOver(ctx, d, st, cfg, seq, ref, pl, nil)
	}
	return e.record(ctx, st, cfg, seq, pl, o, nil)
}

func retryable(err error) bool {
	k := errs.KindOf(err)
	return k == errs.Transient || k == errs.RateLimited
}

// top returns the best bid and ask of token (zero when a side is empty).
func (e *Engine) top(ctx context.Context, token string) (bid, ask decimal.Decimal, tick string, err error) {
	qs, err := e.Quotes.Quotes(ctx, []string{token})
	if err != nil {
		return decimal.Zero, decimal.Zero, "", err
	}
	q := qs[0]
	if q.BestBid.Valid {
		bid = q.BestBid.Decimal
	}
	if q.BestAsk.Valid {
		ask = q.BestAsk.Decimal
	}
	return bid, ask, q.TickSize, nil
}

// scheduleSlack is how much earlier than its stored due time a
// RECURRING_BUY's buy may run: the timer that wakes the workflow runs on
// the Temporal server's clock, the check on the worker's.
const scheduleSlack = 2 * time.Second

// due reports whether st's schedule calls for an execution now, from the
// database: a type on an interval (RECURRING_BUY) acts only once its next evaluation is due, so
// a hint (a forged "price" signal, the fill of its last buy) only makes
// it look; the other types act on their condition, re-read by decide.
func (e *Engine) due(st *models.Strategy) bool {
	if !typeOf(st.Type).Traits().Interval || st.NextEvaluationAt == nil {
		return true
	}
	return !e.now().Add(scheduleSlack).Before(*st.NextEvaluationAt)
}

// decide re-checks the schedule (from the database) and re-reads the price
// (from the venue) and returns what the type decides to do now (Kind ""
// when nothing is due: the condition is no longer met, or the interval
// has not passed).
func (e *Engine) decide(ctx context.Context, st *models.Strategy, c Config, buying int64) (Plan, error) {
	if !e.due(st) {
		return Nothing("the interval has not passed"), nil
	}
	if busy, err := placing(ctx, e.Store, st); err != nil || busy {
		return Nothing("its order is being placed"), err
	}
	// A marketQuery was resolved by watchMarket: st.TokenID is the token
	// it names now.
	token := st.TokenID
	bid, ask, tick, err := e.top(ctx, token)
	if err != nil {
		return Plan{}, err
	}
	return typeOf(st.Type).Decide(Input{Snapshot: snapshotOf(st, c, buying), Now: e.now(), Top: Top{Bid: bid, Ask: ask, Tick: tick},
		Book: func() (*clob.OrderBook, error) { return e.Quotes.Book(ctx, token) }})
}

func fieldName(side string) string {
	if side == "SELL" {
		return "best bid"
	}
	return "best ask"
}

// onTick rounds a price to the market's tick: down for a buy, up for a
// sell (never a worse price than asked).
func onTick(p decimal.Decimal, tick string, buy bool) decimal.Decimal {
	t, err := decimal.NewFromString(tick)
	if err != nil || t.Sign() <= 0 {
		return p
	}
	q := p.Div(t)
	if buy {
		q = q.Floor()
	} else {
		q = q.Ceil()
	}
	return q.Mul(t)
}

// spent is what an order charges the strategy's budget: for a BUY that
// has finished, what it paid (filled size × average price); for a BUY
// that can still fill, the most it can pay (size × limit price). SELLs
// charge nothing and refund nothing: the budget caps what the strategy
// spends.
func spent(o *models.Order) int64 {
	if o.Side != "BUY" || o.Status == models.OrderFailed {
		return 0
	}
	if orders.TerminalStatus(o.Status) {
		return micro.Ceil(micro.Decimal(o.FilledSizeMicro).Mul(micro.Decimal(o.AvgFillPriceMicro)))
	}
	return micro.Ceil(micro.Decimal(o.SizeMicro).Mul(micro.Decimal(o.PriceMicro)))
}

// tally is what a strategy's orders (all of them, or one token's) add up
// to, from the orders themselves, since their fills may arrive after the
// execution that placed them was recorded.
type tally struct {
	used int64 // spent() summed: what they charged the budget
	// open is what its buys filled less what its sells filled and what
	// its live sells still offer (so it never sells a share twice), ≥ 0.
	open int64
	// net is what its buys filled less what its sells filled: the shares
	// it holds, live sells included.
	net    int64
	buying int64 // what its live buys may still fill
	live   int   // its orders not yet terminal
}

func tallyOf(os []models.Order) tally {
	var t tally
	for i := range os {
		o := &os[i]
		t.used += spent(o)
		terminal := orders.TerminalStatus(o.Status)
		if !terminal {
			t.live++
		}
		switch {
		case o.Side == "BUY":
			t.open += o.FilledSizeMicro
			t.net += o.FilledSizeMicro
			if !terminal {
				t.buying += max(0, o.SizeMicro-o.FilledSizeMicro)
			}
		case terminal:
			t.open -= o.FilledSizeMicro
			t.net -= o.FilledSizeMicro
		default:
			t.open -= o.SizeMicro
			t.net -= o.FilledSizeMicro
		}
	}
	t.open = max(0, t.open)
	return t
}

// shareDustMicro is the venue's share precision on a marketable order's
// taker leg, 0.0001 share, in micro-units: a fill this close to
// marketShares is whole.
const shareDustMicro = 100

// marketShares is what a marketable order of o's size and worst price
// asks the venue for (clob.MarketableAmounts): a SELL its size; a BUY the
// shares its collateral — size × price floored to the cent — buys at that
// price, floored to 4 decimals.
func marketShares(o *models.Order) int64 {
	if o.Side != "BUY" || o.PriceMicro <= 0 {
		return o.SizeMicro
	}
	price := micro.Decimal(o.PriceMicro)
	amount := micro.Decimal(o.SizeMicro).Mul(price).RoundFloor(2)
	return micro.Truncate(amount.DivRound(price, 8).RoundFloor(4))
}

// derive tallies the strategy's orders: budgetUsed is what all of them
// used; openSize and buying (what its live buys may still fill) are those
// of the token it trades now for the types that trade one token
// (PRICE_ALERT, BUY_LOW_SELL_HIGH: after a marketQuery moved it to a new
// window, the old window's shares are no longer its to sell), of all its
// orders otherwise.
func (e *Engine) derive(ctx context.Context, st *models.Strategy) (used, open, buying int64, err error) {
	return deriveIn(ctx, e.Store, st)
}

// deriveIn is derive, reading from s (a transaction).
func deriveIn(ctx context.Context, s *store.Store, st *models.Strategy) (used, open, buying int64, err error) {
	os, err := s.StrategyOrders(ctx, st.ID)
	if err != nil {
		return 0, 0, 0, err
	}
	all := tallyOf(os)
	if typeOf(st.Type).Traits().Market != MarketOne || st.TokenID == "" {
		return all.used, all.open, all.buying, nil
	}
	mine := os[:0:0]
	for _, o := range os {
		if o.TokenID == st.TokenID {
			mine = append(mine, o)
		}
	}
	t := tallyOf(mine)
	return all.used, t.open, t.buying, nil
}

// refresh brings st's budgetUsed and openSize up to date with its orders
// (in memory; the next commit stores them) and returns what its live
// buys may still fill.
func (e *Engine) refresh(ctx context.Context, st *models.Strategy) (buying int64, err error) {
	return e.refreshIn(ctx, e.Store, st)
}

// refreshIn is refresh, reading from s (a transaction).
func (e *Engine) refreshIn(ctx context.Context, s *store.Store, st *models.Strategy) (buying int64, err error) {
	used, open, buying, err := deriveIn(ctx, s, st)
	if err != nil {
		return 0, err
	}
	st.BudgetUsedMicro, st.OpenSizeMicro = used, open
	return buying, nil
}

// armedAfter is what an execution that decided pl leaves armed for next:
// the plan's own conditions when it set them (Plan.Conds) and next is
// still ACTIVE, else its type's. A plan that decided nothing sets them
// too, or its type's condition, met now, would fire at once and decide
// the same again.
func (e *Engine) armedAfter(ctx context.Context, s *store.Store, next *models.Strategy, c Config, buying int64, pl Plan) ([]Cond, error) {
	if pl.Conds != nil && next.Status == StatusActive {
		return pl.Conds, nil
	}
	return e.conditions(ctx, s, next, c, buying)
}

// record writes execution seq (with its order, if any), the budget, the
// open size, the error count and the status in one transaction, with the
// events they raise.
func (e *Engine) record(ctx context.Context, st *models.Strategy, c Config, seq int, pl Plan, o *models.Order, cause error) (Outcome, error) {
	t := typeOf(st.Type)
	tr := t.Traits()
	now := e.now()
	rec := &models.StrategyExecution{StrategyID: st.ID, Seq: seq, Time: now, Kind: pl.Kind, Reason: truncate(pl.Reason, 500)}
	next := *st
	next.Executions = seq
	next.LastError = ""
	if o != nil && o.TokenID != next.TokenID && tr.Market == MarketEach && e.Markets != nil {
		// An order an earlier attempt placed in the market its query
		// named then: the strategy follows it there.
		if m, err := e.Markets.TokenMarket(ctx, o.TokenID); err == nil {
			follow(&next, m, now)
		}
	}
	if tr.Market != MarketNone {
		rec.TokenID = next.TokenID
		marketOnExecution(rec, &next)
	}
	if o != nil {
		oid := o.ID
		rec.OrderID = &oid
		rec.Action, rec.Side, rec.TokenID = o.Side, o.Side, o.TokenID
		rec.PriceMicro, rec.SizeMicro, rec.OrderStatus = o.PriceMicro, o.SizeMicro, o.Status
		rec.FilledSizeMicro, rec.AvgFillPriceMicro = o.FilledSizeMicro, o.AvgFillPriceMicro
		rec.AmountMicro = spent(o)
		classify(t, rec, &pl, o)
	} else if pl.Kind == KindAction {
		rec.Kind = KindError
	}
	if rec.Action == "" {
		rec.Action = actionOf(st.Type, pl)
	}
	if rec.Kind == KindError && cause != nil {
		e.log().WarnContext(ctx, "strategy execution failed", "strategy_id", st.ID, "seq", seq, "err", cause)
	}
	// The counters are read under the user's lock, as Settle writes them:
	// the orders of executions in flight settle concurrently with this
	// one (a copier's copies).
	prepared := next
	out, _, err := e.locked(ctx, st, func(tx *store.Store, cur *models.Strategy) (*store.StrategyUpdate, []events.Event, error) {
		if cur.Status != StatusActive {
			return nil, nil, errs.Ef(errs.Conflict, "the strategy is %s", cur.Status).WithCode(errs.CodeStrategyState)
		}
		next := prepared
		next.ConsecutiveFailures = cur.ConsecutiveFailures
		// The totals as the orders show them now (with this execution's
		// order, when there is one).
		buying, err := e.refreshIn(ctx, tx, &next)
		if err != nil {
			return nil, nil, err
		}
		evs := tell(st, &next, rec, pl)
		if next.Status == StatusActive {
			if end := EndOf(t, snapshotOf(&next, c, buying), pl.Complete); end != "" {
				// An execution whose order has not settled yet may still
				// change the totals: the end waits for it (Settle).
				open, err := tx.CountOpenStrategyExecutions(ctx, st.ID)
				if err != nil {
					return nil, nil, err
				}
				if open == 0 {
					evs = append(evs, complete(&next, rec, end))
				}
			}
		}
		u := &store.StrategyUpdate{Status: &next.Status, BudgetUsedMicro: &next.BudgetUsedMicro, OpenSizeMicro: &next.OpenSizeMicro,
			ConsecutiveFailures: &next.ConsecutiveFailures, Executions: &next.Executions, LastError: &next.LastError,
			EndedReason: &next.EndedReason, LastEvaluatedAt: &now}
		if tr.Interval && next.Status == StatusActive {
			due := now.Add(c.IntervalDuration())
			u.NextEvaluationAt = &due
		} else if next.Status != StatusActive {
			u.NextEvaluationAt = &time.Time{}
		}
		conds, err := e.armedAfter(ctx, tx, &next, c, buying, pl)
		if err != nil {
			return nil, nil, err
		}
		u.Triggers = ptr(encodeConds(conds))
		if tr.Market != MarketNone && next.TokenID != "" {
			setMarket(u, &next)
		}
		if err := tx.AddStrategyExecution(ctx, rec); err != nil {
			return nil, nil, err
		}
		return u, evs, nil
	})
	if err != nil {
		return Outcome{}, err
	}
	metrics.StrategyExecuted(st.Type, rec.Kind, errorKind(rec, o, cause))
	res := Outcome{State: stateOf(out), Executed: true, Kind: rec.Kind}
	if rec.OrderID != nil {
		res.OrderID = *rec.OrderID
	}
	return res, nil
}

// EndOf is why an ACTIVE strategy of type t ends after an execution that
// asked to complete with reason complete ("" when it goes on), from its
// counters after the execution (s). Pure: the engine's record and the
// backtest (models/backtesting) apply it.
func EndOf(t Type, s Snapshot, complete string) string {
	if complete == EndBudget && s.BudgetUsedMicro == 0 {
		// A budget that bought nothing is not exhausted: the strategy
		// waits (a lower price may fit it) rather than end having spent
		// nothing. Create and PATCH refuse budgets that can never buy.
		complete = ""
	}
	switch {
	case complete != "":
	case s.BudgetUsedMicro >= s.MaxBudgetMicro:
		complete = EndBudget
	default:
		// What is left may be too little for the type to act on ever
		// again (RECURRING_BUY: the venue's minimum).
		complete = t.Done(s)
	}
	// A strategy that sells what it bought (BUY_LOW_SELL_HIGH, a
	// COPY_TRADE that copies sells) ends only with nothing to sell: no
	// shares and no buy that may still fill.
	if complete != "" && (!t.SellsHoldings(s.Config) || s.Sellable().IsZero() && s.BuyingMicro == 0) {
		return complete
	}
	return ""
}

// marketMovedAway reports whether a FAILED order's refusal code says the
// book had nothing to match within its price, rather than that the order
// or the account was refused.
func marketMovedAway(code string) bool {
	switch code {
	case errs.CodeFAKNoMatch, errs.CodeFOKNotFilled, errs.CodeNoMatch:
		return true
	}
	return false
}

// errorKind labels a failed execution in the metrics: the error's kind,
// or what became of its order; "" when the execution did not fail.
func errorKind(rec *models.StrategyExecution, o *models.Order, cause error) string {
	switch {
	case rec.Kind != KindError:
		return ""
	case cause != nil:
		return errs.KindOf(cause).String()
	case o != nil && o.Status == models.OrderFailed:
		return "order_failed"
	case o != nil:
		return "order_unfilled"
	}
	// RecordFailure: the step's retries ran out.
	return "gave_up"
}

func derefOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func actionOf(typ string, pl Plan) string {
	if pl.Order.Side != "" {
		return pl.Order.Side
	}
	return typeOf(typ).Traits().Action
}

func completedDetail(reason string) string {
	switch reason {
	case EndFired:
		return "completed: the trigger fired and its order was placed"
	case EndTotal:
		return "completed: maxTotalAmount reached"
	}
	return "completed: the strategy's budget is spent"
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

// RecordFailure records execution seq as failed after its step gave up
// (retries exhausted): reason is client-safe. Idempotent per seq.
func (e *Engine) RecordFailure(ctx context.Context, id string, seq int, reason string) (State, error) {
	st, err := e.Store.StrategyByID(ctx, id)
	if err != nil {
		return State{}, err
	}
	if st.Executions >= seq || st.Status != StatusActive {
		return stateOf(st), nil
	}
	// A strategy whose agent was stopped meanwhile is parked, and counts
	// no error.
	if st, err = e.obeyAgent(ctx, st); err != nil || st.Status != StatusActive {
		if err != nil {
			return State{}, err
		}
		return stateOf(st), nil
	}
	cfg, err := Load(st.Config)
	if err != nil {
		return State{}, err
	}
	out, err := e.record(ctx, st, cfg, seq, Plan{Kind: KindError, Reason: reason}, nil, nil)
	return out.State, err
}
