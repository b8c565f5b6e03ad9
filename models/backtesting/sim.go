package backtesting

import (
	"fmt"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/venue/clob"
)

// lot is a token's simulated holding: shares and what they cost.
type lot struct{ shares, cost decimal.Decimal }

// sim is one backtest's state: the strategy row as the live engine keeps
// it (totals, schedule, status), the simulated orders, the collateral
// balance and the holdings.
type sim struct {
	cfg   strategies.Config
	typ   strategies.Type
	st    *models.Strategy
	mkt   *Market
	model Model

	balance decimal.Decimal
	// reserved is what resting buys hold back of the balance.
	reserved decimal.Decimal
	orders   []models.Order
	// execOrder maps an execution (index) to its order (index).
	execOrder map[int]int
	hold      map[string]*lot
	marks     map[string]decimal.Decimal
	markets   map[string]*strategies.Market
	realized  decimal.Decimal
	execs     []strategies.Execution
	fills     int
	conds     []strategies.Cond
	warnings  []string
	won, lost []string

	peak, maxDD, maxDDPct decimal.Decimal

	// stale is set when an order changed since the totals (the strategy
	// row's, and tBuying: what its live buys may still fill) were counted.
	stale   bool
	tBuying int64
}

func (sm *sim) warn(w string) {
	for _, x := range sm.warnings {
		if x == w {
			return
		}
	}
	sm.warnings = append(sm.warnings, w)
}

// book is what the decision code reads when it walks the book at point
// p (RECURRING_BUY): one level each side at the model's bid and ask,
// holding what the volume cap lets an order take there (unbounded without
// a volume record).
func book(p Point, token, tick string) *clob.OrderBook {
	size := unbounded
	if p.Capped {
		size = p.Cap
	}
	return &clob.OrderBook{AssetID: token, TickSize: clob.TickSize(tick),
		Bids: []clob.PriceLevel{{Price: p.Bid, Size: size}}, Asks: []clob.PriceLevel{{Price: p.Ask, Size: size}}}
}

var unbounded = decimal.NewFromInt(1_000_000_000)

// snapshot is what the type's pure functions know of the strategy now.
func (sm *sim) snapshot() strategies.Snapshot {
	return strategies.Snapshot{Config: sm.cfg, TokenID: sm.st.TokenID, MaxBudgetMicro: sm.st.MaxBudgetMicro,
		BudgetUsedMicro: sm.st.BudgetUsedMicro, OpenSizeMicro: sm.st.OpenSizeMicro, BuyingMicro: sm.buying(), Executions: sm.st.Executions}
}

// conditions are what an ACTIVE strategy waits for, as the engine arms
// them.
func (sm *sim) conditions() []strategies.Cond {
	if sm.st.Status != strategies.StatusActive || sm.st.TokenID == "" {
		return nil
	}
	return sm.typ.Conditions(sm.snapshot())
}

// at replays one price point: resting orders fill first, then the
// strategy decides as the live one would when its condition fires (or its
// timer, for RECURRING_BUY).
func (sm *sim) at(p Point) {
	tok := sm.st.TokenID
	sm.marks[tok] = p.Price
	sm.fillResting(p)
	due := sm.typ.Traits().Interval && (sm.st.NextEvaluationAt == nil || !p.Time.Before(*sm.st.NextEvaluationAt))
	for _, c := range sm.conds {
		if c.Met(p.Bid, p.Ask) {
			due = true
		}
	}
	if due && sm.st.Status == strategies.StatusActive {
		sm.decide(p)
	}
	sm.equity()
}

func (sm *sim) tick() string {
	if sm.model.Tick.Sign() > 0 {
		return sm.model.Tick.String()
	}
	return "0.01"
}

func (sm *sim) decide(p Point) {
	tok := sm.st.TokenID
	pl, err := sm.typ.Decide(strategies.Input{Snapshot: sm.snapshot(), Now: p.Time,
		Top:  strategies.Top{Bid: p.Bid, Ask: p.Ask, Tick: sm.tick()},
		Book: func() (*clob.OrderBook, error) { return book(p, tok, sm.tick()), nil }})
	if err != nil {
		sm.record(p.Time, strategies.Plan{Kind: strategies.KindError, Reason: err.Error()}, nil)
		return
	}
	if pl.Kind == "" {
		// Nothing due: the engine re-arms the type's conditions.
		sm.conds = sm.conditions()
		return
	}
	var o *models.Order
	if pl.Kind == strategies.KindAction {
		o = sm.place(p, pl.Order)
	}
	sm.record(p.Time, pl, o)
}

// copyAt replays one recorded fill of the target.
func (sm *sim) copyAt(t Trade, vol decimal.Decimal, recorded bool) {
	ct := &models.CopyTrade{Kind: models.CopyKindTrade, TxHash: t.TxHash, LogIndex: t.LogIndex, Target: sm.cfg.TargetAddress,
		TokenID: t.TokenID, Side: upper(t.Side), SharesMicro: micro(t.Size), PriceMicro: micro(t.Price), CreatedAt: t.Time}
	sm.marks[t.TokenID] = t.Price
	var held int64
	if l := sm.hold[t.TokenID]; l != nil {
		held = micro(l.shares)
	}
	// Copies fill at once: what it holds is all it has committed.
	pl, err := sm.typ.Decide(strategies.Input{Snapshot: sm.snapshot(), Now: t.Time,
		Trade: &strategies.TargetTrade{Event: ct, HeldMicro: held, CommittedMicro: held}})
	if err != nil {
		sm.record(t.Time, strategies.Plan{Kind: strategies.KindError, Reason: err.Error()}, nil)
		return
	}
	if pl.Kind == "" {
		return
	}
	var o *models.Order
	if pl.Kind == strategies.KindAction {
		cp, capped := Cap(vol, recorded)
		p := Point{Time: t.Time, Price: t.Price, Bid: t.Price, Ask: t.Price, Cap: cp, Capped: capped}
		o = sm.place(p, pl.Order)
	}
	sm.record(t.Time, pl, o)
	sm.equity()
}

func (sm *sim) buying() int64 {
	sm.refresh()
	return sm.tBuying
}

// place simulates the order d of an action at point p.
func (sm *sim) place(p Point, d orders.PlaceRequest) *models.Order {
	defer sm.touch()
	buy := d.Side == "BUY"
	o := models.Order{ID: fmt.Sprintf("sim-%d", len(sm.orders)+1), TokenID: d.TokenID, Side: d.Side, RequestType: d.Type,
		SizeMicro: micro(d.Size), PriceMicro: micro(d.Price), Status: models.OrderOpen}
	free := sm.balance.Sub(sm.reserved)
	if buy && d.Size.Mul(d.Price).GreaterThan(free) {
		o.Status, o.FailureReason = models.OrderFailed, fmt.Sprintf("not enough balance: the order may cost $%s, $%s is free", d.Size.Mul(d.Price).StringFixed(2), free.StringFixed(2))
		sm.orders = append(sm.orders, o)
		return &sm.orders[len(sm.orders)-1]
	}
	if !buy {
		held := decimal.Zero
		if l := sm.hold[d.TokenID]; l != nil {
			held = l.shares
		}
		if d.Size.GreaterThan(held) {
			o.Status, o.FailureReason = models.OrderFailed, fmt.Sprintf("not enough shares: selling %s, %s held (a backtest starts with no positions)", d.Size.String(), held.String())
			sm.orders = append(sm.orders, o)
			return &sm.orders[len(sm.orders)-1]
		}
	}
	px := p.Ask
	if !buy {
		px = p.Bid
	}
	switch d.Type {
	case orders.TypeLimit:
		f := Marketable(buy, d.Size, d.Price, px, p.Cap, p.Capped, false)
		sm.apply(&o, f)
		if f.Size.LessThan(d.Size) {
			o.Status = models.OrderOpen
			if f.Size.Sign() > 0 {
				o.Status = models.OrderPartiallyFilled
			}
			if buy {
				sm.reserved = sm.reserved.Add(d.Size.Sub(f.Size).Mul(d.Price))
			}
		}
	default:
		f := Marketable(buy, d.Size, d.Price, px, p.Cap, p.Capped, d.Type == orders.TypeFOK)
		if f.Size.Sign() == 0 {
			o.Status, o.FailureCode = models.OrderFailed, "no_match"
			o.FailureReason = fmt.Sprintf("nothing to match at %s or better (the model's %s was %s)", d.Price.String(), side(buy), px.String())
			break
		}
		sm.apply(&o, f)
		if o.Status != models.OrderFilled {
			o.Status = models.OrderCancelled // the rest was killed
		}
	}
	sm.orders = append(sm.orders, o)
	return &sm.orders[len(sm.orders)-1]
}

func side(buy bool) string {
	if buy {
		return "ask"
	}
	return "bid"
}

// apply books fill f on order o: its fill fields, the balance, the
// holding and the realized P&L.
func (sm *sim) apply(o *models.Order, f Fill) {
	if f.Size.Sign() <= 0 {
		return
	}
	sm.touch()
	filled, avg := dec(o.FilledSizeMicro), dec(o.AvgFillPriceMicro)
	total := filled.Add(f.Size)
	avg = filled.Mul(avg).Add(f.Size.Mul(f.Price)).Div(total)
	o.FilledSizeMicro, o.AvgFillPriceMicro = micro(total), micro(avg.Round(6))
	if o.FilledSizeMicro >= o.SizeMicro {
		o.Status = models.OrderFilled
	}
	l := sm.hold[o.TokenID]
	if l == nil {
		l = &lot{}
		sm.hold[o.TokenID] = l
	}
	value := f.Size.Mul(f.Price)
	if o.Side == "BUY" {
		sm.balance = sm.balance.Sub(value)
		l.shares, l.cost = l.shares.Add(f.Size), l.cost.Add(value)
	} else {
		sm.balance = sm.balance.Add(value)
		basis := decimal.Zero
		if l.shares.Sign() > 0 {
			basis = l.cost.Mul(f.Size).Div(l.shares)
		}
		sm.realized = sm.realized.Add(value.Sub(basis))
		l.shares, l.cost = l.shares.Sub(f.Size), l.cost.Sub(basis)
	}
	sm.fills++
}

// fillResting fills resting LIMIT orders the point's price reaches, at
// their price, within the cap.
func (sm *sim) fillResting(p Point) {
	for i := range sm.orders {
		o := &sm.orders[i]
		if orders.TerminalStatus(o.Status) || o.TokenID != sm.st.TokenID {
			continue
		}
		buy := o.Side == "BUY"
		limit := dec(o.PriceMicro)
		left := dec(o.SizeMicro - o.FilledSizeMicro)
		reach := buy && p.Ask.LessThanOrEqual(limit) || !buy && p.Bid.GreaterThanOrEqual(limit)
		if !reach {
			continue
		}
		n := left
		if p.Capped && p.Cap.LessThan(n) {
			n = p.Cap
		}
		if !buy {
			if l := sm.hold[o.TokenID]; l == nil || l.shares.LessThan(n) {
				continue
			}
		}
		if n.Sign() <= 0 {
			continue
		}
		sm.apply(o, Fill{Size: n, Price: limit})
		if buy {
			sm.reserved = decimal.Max(decimal.Zero, sm.reserved.Sub(n.Mul(limit)))
		}
		if o.Status != models.OrderFilled {
			o.Status = models.OrderPartiallyFilled
		}
	}
	sm.refresh()
}

// refresh brings the strategy's totals up to date with its orders, as the
// live engine's refresh does: counted again only after an order changed
// (touch), not at every point.
func (sm *sim) refresh() {
	if !sm.stale {
		return
	}
	used, open, buying := strategies.Totals(sm.orders)
	sm.st.BudgetUsedMicro, sm.st.OpenSizeMicro, sm.tBuying = used, open, buying
	sm.stale = false
}

// touch marks the totals stale: an order was placed, filled or ended.
func (sm *sim) touch() { sm.stale = true }

// record books an execution as the engine's record does: its kind from
// what the order did, the totals, the error count, completion (EndOf) and
// the next schedule.
func (sm *sim) record(t time.Time, pl strategies.Plan, o *models.Order) {
	tr := sm.typ.Traits()
	_, follower := sm.typ.(strategies.Follower)
	ex := strategies.Execution{Seq: sm.st.Executions + 1, Time: t, Kind: pl.Kind, Reason: pl.Reason, TokenID: pl.Order.TokenID,
		Side: pl.Order.Side, Action: pl.Order.Side}
	if ex.TokenID == "" {
		ex.TokenID = sm.st.TokenID
	}
	ex.Market = sm.markets[ex.TokenID]
	if ex.Action == "" {
		ex.Action = tr.Action
	}
	complete := pl.Complete
	if o != nil {
		ex.Kind = strategies.KindAction
		ex.OrderStatus = o.Status
		ex.Price, ex.Size = dec(o.PriceMicro), dec(o.SizeMicro)
		ex.FilledSize, ex.AvgFillPrice = dec(o.FilledSizeMicro), dec(o.AvgFillPriceMicro)
		switch {
		case tr.Unfilled != "" && o.FilledSizeMicro == 0 && (o.Status == models.OrderFailed && o.FailureCode == "no_match" || o.Status != models.OrderFailed && orders.TerminalStatus(o.Status)):
			ex.Kind = strategies.KindSkip
			ex.Reason = fmt.Sprintf(tr.Unfilled, ex.Price.String(), pl.Reason)
		case o.Status == models.OrderFailed:
			ex.Kind = strategies.KindError
			ex.Reason = "the order failed: " + o.FailureReason
			if follower {
				ex.Reason += " (" + pl.Reason + ")"
			}
		case orders.TerminalStatus(o.Status) && o.FilledSizeMicro == 0:
			ex.Kind = strategies.KindError
			ex.Reason = fmt.Sprintf("the order did not fill (%s): %s", o.Status, pl.Reason)
		case o.RequestType == orders.TypeFAK && orders.TerminalStatus(o.Status) && o.FilledSizeMicro < o.SizeMicro:
			ex.Reason = fmt.Sprintf("%s; partial fill: %s of %s shares at an average of %s, the rest was not on the book at %s or better and was not bought",
				pl.Reason, ex.FilledSize.String(), ex.Size.String(), ex.AvgFillPrice.String(), ex.Price.String())
		}
		if ex.Kind != strategies.KindAction {
			complete = ""
		}
		sm.execOrder[len(sm.execs)] = len(sm.orders) - 1
		// What the order charges the budget, as the live record shows it.
		used, _, _ := strategies.Totals([]models.Order{*o})
		ex.Amount = dec(used)
	} else if pl.Kind == strategies.KindAction {
		ex.Kind = strategies.KindError
	}
	sm.refresh()
	sm.st.Executions = ex.Seq
	switch ex.Kind {
	case strategies.KindError:
		sm.st.ConsecutiveFailures++
		sm.st.LastError = ex.Reason
		if pl.Stop || sm.st.ConsecutiveFailures >= strategies.MaxConsecutiveErrors {
			sm.st.Status = strategies.StatusError
		}
	case strategies.KindAction:
		sm.st.ConsecutiveFailures = 0
	}
	if sm.st.Status == strategies.StatusActive {
		if end := strategies.EndOf(sm.typ, sm.snapshot(), complete); end != "" {
			sm.st.Status, sm.st.EndedReason = strategies.StatusCompleted, end
		}
	}
	if tr.Interval && sm.st.Status == strategies.StatusActive {
		due := t.Add(sm.cfg.IntervalDuration())
		sm.st.NextEvaluationAt = &due
	}
	sm.conds = sm.conditions()
	if pl.Conds != nil && sm.st.Status == strategies.StatusActive {
		sm.conds = pl.Conds
	}
	sm.execs = append(sm.execs, ex)
}

// equity tracks the drawdown: balance plus holdings at their marks.
func (sm *sim) equity() {
	eq := sm.balance
	for tok, l := range sm.hold {
		eq = eq.Add(l.shares.Mul(sm.marks[tok]))
	}
	if eq.GreaterThan(sm.peak) {
		sm.peak = eq
	}
	if dd := sm.peak.Sub(eq); dd.GreaterThan(sm.maxDD) {
		sm.maxDD = dd
		if sm.peak.Sign() > 0 {
			sm.maxDDPct = dd.Div(sm.peak).Round(4)
		}
	}
}

// settle pays a resolved market's shares out at 1 (won) or 0, and cancels
// its resting orders.
func (sm *sim) settle(token string, won bool, at time.Time) {
	for i := range sm.orders {
		o := &sm.orders[i]
		if o.TokenID == token && !orders.TerminalStatus(o.Status) {
			if o.Side == "BUY" {
				sm.reserved = decimal.Max(decimal.Zero, sm.reserved.Sub(dec(o.SizeMicro-o.FilledSizeMicro).Mul(dec(o.PriceMicro))))
			}
			o.Status = models.OrderCancelled
			sm.touch()
		}
	}
	l := sm.hold[token]
	payout := decimal.Zero
	if won {
		payout = one
	}
	if l != nil && l.shares.Sign() > 0 {
		value := l.shares.Mul(payout)
		sm.balance = sm.balance.Add(value)
		sm.realized = sm.realized.Add(value.Sub(l.cost))
		l.shares, l.cost = decimal.Zero, decimal.Zero
	}
	sm.marks[token] = payout
	sm.refresh()
	sm.equity()
	sm.warn(fmt.Sprintf("the market of token %s resolved in the window: its shares settled at %s at %s", token, payout.String(), at.Format(time.RFC3339)))
}

// finish fills in the result.
func (sm *sim) finish(res *Result) {
	sm.refresh()
	for i, oi := range sm.execOrder {
		o := sm.orders[oi]
		sm.execs[i].OrderStatus = o.Status
		sm.execs[i].FilledSize, sm.execs[i].AvgFillPrice = dec(o.FilledSizeMicro), dec(o.AvgFillPriceMicro)
	}
	res.Executions = sm.execs
	if res.Executions == nil {
		res.Executions = []strategies.Execution{}
	}
	res.Status, res.EndedReason = sm.st.Status, sm.st.EndedReason
	res.FinalBalance = sm.balance
	res.RealizedPnL = sm.realized
	res.UnrealizedPnL = decimal.Zero
	toks := make([]string, 0, len(sm.hold))
	for tok := range sm.hold {
		toks = append(toks, tok)
	}
	sort.Strings(toks)
	for _, tok := range toks {
		l := sm.hold[tok]
		if l.shares.Sign() <= 0 {
			continue
		}
		mark := sm.marks[tok]
		value := l.shares.Mul(mark)
		pos := Position{TokenID: tok, Market: sm.markets[tok], Size: l.shares, AvgPrice: l.cost.Div(l.shares).Round(6), Price: mark,
			Value: value, UnrealizedPnL: value.Sub(l.cost)}
		res.UnrealizedPnL = res.UnrealizedPnL.Add(pos.UnrealizedPnL)
		res.Positions = append(res.Positions, pos)
	}
	if res.Positions == nil {
		res.Positions = []Position{}
	}
	res.MaxDrawdown, res.MaxDrawdownPct = sm.maxDD, sm.maxDDPct
	res.Trades = sm.fills
	res.BudgetUsed = dec(sm.st.BudgetUsedMicro)
	open := 0
	for _, o := range sm.orders {
		if !orders.TerminalStatus(o.Status) {
			open++
		}
	}
	if open > 0 {
		sm.warn(fmt.Sprintf("%d simulated LIMIT orders were still resting at the end of the window", open))
	}
	sm.warn(fmt.Sprintf("fill model: buys at the recorded price plus half the spread (%s), sells at the price less half of it, on the tick; at most %s%% of the volume recorded in the hour up to each point's interval; no fees, no latency, no impact of the strategy's own orders on later prices (docs/backtesting.md)",
		decimal.Max(sm.model.Spread, sm.model.Tick).String(), Participation.Shift(2).String()))
	res.Warnings = sm.warnings
}
