package strategies

import (
	"context"
	"fmt"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/events"
	"github.com/agent-trading/ats/models/markets"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/venue/micro"
)

// The market a strategy trades moves on: an up/down window closes and the
// next one opens, a market resolves. Each execution of a strategy with a
// market first looks at it (watchMarket):
//
//   - a marketQuery is resolved again when its market has passed its end
//     date or no longer trades (RECURRING_BUY: every interval); naming
//     another token, the strategy moves there (moveMarket; a
//     RECURRING_BUY simply buys in the new market);
//   - a strategy whose market no longer trades and that cannot move (a
//     tokenId, or a marketQuery that names nothing that trades) ends
//     CANCELLED with EndMarketClosed (endOnMarket), which the heartbeat
//     reports.
//
// The workflow runs an execution at the market's end date (MarketCheckAt)
// and the price feed fires a strategy's conditions when the venue says
// its market resolved, so the look happens when it matters, not only on
// the next price.

// follow makes m the market of st (in memory): its token, its name and
// when to look at it next (its end date while that is ahead).
func follow(st *models.Strategy, m *markets.TokenMarket, now time.Time) {
	st.TokenID = m.TokenID
	st.MarketQuestion, st.MarketOutcome, st.MarketSlug = m.Question, m.Outcome, m.Slug
	st.MarketEndDate, st.MarketCheckAt = nil, nil
	if m.EndDate != nil {
		end := m.EndDate.UTC()
		st.MarketEndDate = &end
		if end.After(now) {
			st.MarketCheckAt = &end
		}
	}
}

// setMarket writes st's token and market into u.
func setMarket(u *store.StrategyUpdate, st *models.Strategy) {
	u.TokenID = ptr(st.TokenID)
	u.MarketQuestion, u.MarketOutcome, u.MarketSlug = ptr(st.MarketQuestion), ptr(st.MarketOutcome), ptr(st.MarketSlug)
	u.MarketEndDate, u.MarketCheckAt = orZero(st.MarketEndDate), orZero(st.MarketCheckAt)
}

// orZero is t, or a pointer to the zero time (NULL in a StrategyUpdate).
func orZero(t *time.Time) *time.Time {
	if t == nil {
		return &time.Time{}
	}
	return t
}

// marketOf is st's market as the answers show it.
func marketOf(st *models.Strategy) *Market {
	if st.MarketQuestion == "" && st.MarketSlug == "" {
		return nil
	}
	return &Market{Question: st.MarketQuestion, Outcome: st.MarketOutcome, Slug: st.MarketSlug, EndDate: st.MarketEndDate}
}

// describe names a market in an execution's reason.
func describe(question, outcome, token string) string {
	if question == "" {
		return "token " + token
	}
	return fmt.Sprintf("%q (%s)", question, outcome)
}

// resumeAt is when a resumed RECURRING_BUY buys next: the later of now and
// its last buy plus the interval, so a pause and resume never buys twice
// within one interval.
func (e *Engine) resumeAt(ctx context.Context, st *models.Strategy, now time.Time) (time.Time, error) {
	c, err := Load(st.Config)
	if err != nil {
		return time.Time{}, err
	}
	last, err := e.Store.LastStrategyExecution(ctx, st.ID, KindAction)
	switch {
	case errs.Is(err, errs.NotFound):
		return now, nil
	case err != nil:
		return time.Time{}, err
	}
	if due := last.Time.Add(c.IntervalDuration()); due.After(now) {
		return due.UTC(), nil
	}
	return now, nil
}

// marketVerdict is what a strategy's market asks of it now.
type marketVerdict struct {
	// cur is the strategy's market as read (nil: not read, or the venue
	// no longer knows the token).
	cur *markets.TokenMarket
	// moveTo is the market its marketQuery names now, when another.
	moveTo *markets.TokenMarket
	// end, when set, ends the strategy: why, for its execution's reason.
	end string
}

// watchMarket looks at the market of st (see the comment at the top).
func (e *Engine) watchMarket(ctx context.Context, st *models.Strategy, c Config) (marketVerdict, error) {
	var v marketVerdict
	if e.Markets == nil || typeOf(st.Type).Traits().Market == MarketNone || st.TokenID == "" {
		return v, nil
	}
	now := e.now()
	cur, err := e.Markets.TokenMarket(ctx, st.TokenID)
	switch {
	case errs.Is(err, errs.NotFound):
		cur = nil // the venue lists the token no more
	case err != nil:
		return v, err
	}
	v.cur = cur
	trading := cur != nil && cur.Trading()
	ended := cur != nil && cur.EndDate != nil && !now.Before(*cur.EndDate)
	if c.MarketQuery != "" && (!trading || ended || typeOf(st.Type).Traits().Market == MarketEach) {
		tok, err := e.Resolver.Resolve(ctx, c.MarketQuery, c.Outcome)
		switch {
		case err == nil && tok != st.TokenID:
			next, err := e.Markets.TokenMarket(ctx, tok)
			if err != nil {
				return v, err
			}
			v.moveTo = next
			return v, nil
		case err != nil && !errs.Is(err, errs.NotFound):
			return v, err
		}
		// The query names the same market, or none that trades now.
	}
	if trading {
		return v, nil
	}
	where := describe(st.MarketQuestion, st.MarketOutcome, st.TokenID)
	switch {
	case cur == nil:
		v.end = fmt.Sprintf("the venue no longer lists the market of %s", where)
	case cur.Closed:
		v.end = fmt.Sprintf("the market %s closed", where)
	default:
		v.end = fmt.Sprintf("the market %s no longer accepts orders", where)
	}
	if c.MarketQuery != "" {
		v.end += fmt.Sprintf(" and marketQuery %q names no market that trades now", c.MarketQuery)
	}
	return v, nil
}

// moveMarket moves a PRICE_ALERT or BUY_LOW_SELL_HIGH to the market its
// marketQuery names now, recorded as execution seq (a skip naming both
// markets). What it holds of the old market stays in the agent's
// positions: the old market no longer trades, so its shares are settled
// as any position is (the heartbeat's REDEEM once it resolves); from now
// on the strategy buys and sells the new market's token only, holding
// none of it yet.
func (e *Engine) moveMarket(ctx context.Context, st *models.Strategy, c Config, seq int, v marketVerdict) (Outcome, error) {
	now := e.now()
	old := *st
	oldTotals := *st
	if _, err := e.refresh(ctx, &oldTotals); err != nil {
		return Outcome{}, err
	}
	next := *st
	follow(&next, v.moveTo, now)
	buying, err := e.refresh(ctx, &next)
	if err != nil {
		return Outcome{}, err
	}
	reason := fmt.Sprintf("marketQuery %q now names %s: the strategy moved there from %s", c.MarketQuery,
		describe(next.MarketQuestion, next.MarketOutcome, next.TokenID), describe(old.MarketQuestion, old.MarketOutcome, old.TokenID))
	if v.cur == nil || !v.cur.Trading() {
		reason += ", which no longer trades"
	} else {
		reason += ", which passed its end date"
	}
	if held := sellable(&oldTotals); held.Sign() > 0 {
		reason += fmt.Sprintf("; the %s shares bought there stay in the agent's positions (redeem them once that market resolves)", held.String())
	}
	rec := &models.StrategyExecution{StrategyID: st.ID, Seq: seq, Time: now, Kind: KindSkip, Action: actionOf(st.Type, Plan{}),
		Reason: truncate(reason, 500), TokenID: next.TokenID}
	marketOnExecution(rec, &next)
	next.Executions = seq
	u := store.StrategyUpdate{Executions: &next.Executions, LastEvaluatedAt: &now, BudgetUsedMicro: &next.BudgetUsedMicro,
		OpenSizeMicro: &next.OpenSizeMicro}
	setMarket(&u, &next)
	u.Triggers = ptr(encodeConds(conditionsFor(&next, c, buying)))
	out, err := e.commit(ctx, st.ID, []string{StatusActive}, u, rec, nil)
	if err != nil {
		return Outcome{}, err
	}
	return Outcome{State: stateOf(out), Executed: true, Kind: KindSkip}, nil
}

// endOnMarket ends st, whose market no longer trades and which cannot
// move, as CANCELLED (EndMarketClosed), recorded as execution seq; the
// STRATEGY_CANCELLED event (by the system) tells the agent at its next
// heartbeat.
func (e *Engine) endOnMarket(ctx context.Context, st *models.Strategy, seq int, v marketVerdict) (Outcome, error) {
	now := e.now()
	next := *st
	if _, err := e.refresh(ctx, &next); err != nil {
		return Outcome{}, err
	}
	reason := v.end + ": the strategy ends"
	if held := sellable(&next); held.Sign() > 0 {
		reason += fmt.Sprintf(" (its %s shares stay in the agent's positions: redeem them once the market resolves)", held.String())
	}
	rec := &models.StrategyExecution{StrategyID: st.ID, Seq: seq, Time: now, Kind: KindSkip, Action: actionOf(st.Type, Plan{}),
		Reason: truncate(reason, 500), TokenID: st.TokenID}
	marketOnExecution(rec, st)
	next.Executions = seq
	u := store.StrategyUpdate{Status: ptr(StatusCancelled), EndedReason: ptr(EndMarketClosed), PausedBy: ptr(""), Triggers: ptr(""),
		NextEvaluationAt: &time.Time{}, MarketCheckAt: &time.Time{}, Executions: &next.Executions, LastEvaluatedAt: &now,
		BudgetUsedMicro: &next.BudgetUsedMicro, OpenSizeMicro: &next.OpenSizeMicro}
	details := map[string]any{"reason": EndMarketClosed, "tokenId": st.TokenID, "budgetUsed": micro.Decimal(next.BudgetUsedMicro).String()}
	if st.MarketQuestion != "" {
		details["marketQuestion"], details["outcome"] = st.MarketQuestion, st.MarketOutcome
	}
	out, err := e.commit(ctx, st.ID, []string{StatusActive}, u, rec, []events.Event{{
		AgentID: st.AgentID, UserID: st.UserID, Type: events.StrategyCancelled, StrategyID: st.ID, StrategyType: st.Type,
		By: events.BySystem, Summary: truncate("strategy "+st.ID+" ended: "+v.end, 500), Details: details,
	}})
	if err != nil {
		return Outcome{}, err
	}
	return Outcome{State: stateOf(out), Executed: true, Kind: KindSkip}, nil
}

// marketOnExecution names st's market on an execution.
func marketOnExecution(rec *models.StrategyExecution, st *models.Strategy) {
	rec.MarketQuestion, rec.MarketOutcome, rec.MarketSlug, rec.MarketEndDate = st.MarketQuestion, st.MarketOutcome, st.MarketSlug, st.MarketEndDate
}
