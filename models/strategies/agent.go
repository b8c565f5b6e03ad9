package strategies

import (
	"context"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/events"
	"github.com/agent-trading/ats/models/store"
)

// A strategy acts in its agent's name, so the agent's status binds it:
// pausing the agent parks its ACTIVE strategies (PAUSED, PausedBy
// PausedWithAgent), resuming the agent resumes exactly those, revoking it
// cancels every strategy that is not final (EndAgentRevoked). The
// strategy's workflow applies this, as it applies every change of its
// row (it is the row's one writer), in three places:
//
//   - when told the agent's status changed (the workflow's "agent"
//     signal, sent by workflows.AgentControl): Reconcile. The signal is a
//     hint; the status is read from the database, where the user's
//     authenticated change wrote it;
//   - at every execution, before it decides anything, and when an order
//     it places is refused because the agent is no longer active
//     (agent_inactive: the order service checks the agent's status under
//     the user's lock, the check that binds every placement): a strategy
//     never acts for a paused or revoked agent, and a pause is no failure
//     of the strategy (it counts no error);
//   - when its workflow loads it (a start, a continue-as-new, a worker
//     that took it over).
//
// So a strategy whose workflow missed the hint (a process that died
// half-way through pausing an agent's strategies) still stops at its next
// execution, and AgentControl, a durable workflow, keeps telling the rest.

// PausedWithAgent is the PausedBy of a strategy paused because its agent
// was paused (not by a pause of the strategy itself): resuming the agent
// resumes it.
const PausedWithAgent = "agent_paused"

// EndAgentRevoked is the ended reason of a strategy cancelled because its
// agent was revoked.
const EndAgentRevoked = "agent_revoked"

// Reasons of the audit entries of the agent's status applied to a strategy.
const (
	reasonAgentPaused  = "agent_paused"
	reasonAgentResumed = "agent_resumed"
	reasonAgentRevoked = "agent_revoked"
)

// AllowedFor is Allowed for a strategy in status, paused by pausedBy: a
// strategy paused with its agent may also be paused by the user or the
// agent themselves, so that it stays paused when the agent resumes.
func AllowedFor(action, status, pausedBy string) error {
	if action == ActionPause && status == StatusPaused && pausedBy == PausedWithAgent {
		return nil
	}
	return Allowed(action, status)
}

// Reconcile applies the status of strategy id's agent to it (see above)
// and returns its state. It is idempotent.
func (e *Engine) Reconcile(ctx context.Context, id string) (State, error) {
	st, err := e.Store.StrategyByID(ctx, id)
	if err != nil {
		return State{}, err
	}
	if st, err = e.obeyAgent(ctx, st); err != nil {
		return State{}, err
	}
	return stateOf(st), nil
}

// agentStopped answers an execution whose order the order service refused
// because the agent is no longer active: the strategy is parked as the
// agent's status says, and nothing is recorded.
func (e *Engine) agentStopped(ctx context.Context, st *models.Strategy) (Outcome, error) {
	cur, err := e.Store.StrategyByID(ctx, st.ID)
	if err != nil {
		return Outcome{}, err
	}
	if cur, err = e.obeyAgent(ctx, cur); err != nil {
		return Outcome{}, err
	}
	return Outcome{State: stateOf(cur)}, nil
}

// agentActive refuses to resume a strategy of an agent that is not active:
// it would act for an agent the user stopped. Resuming the agent resumes
// the strategies paused with it.
func (e *Engine) agentActive(ctx context.Context, st *models.Strategy) error {
	a, err := e.Store.AgentByID(ctx, st.AgentID)
	if err != nil {
		return err
	}
	if a.Status == models.AgentActive {
		return nil
	}
	return errs.Ef(errs.Conflict, "the strategy's agent is %s: a strategy does not run for it", a.Status).WithCode(errs.CodeAgentInactive).
		WithHint("resume the agent first; its strategies paused with it resume with it")
}

// obeyAgent applies the agent's status to st and returns the strategy as
// stored afterwards (st itself when nothing changed).
func (e *Engine) obeyAgent(ctx context.Context, st *models.Strategy) (*models.Strategy, error) {
	if Final(st.Status) {
		return st, nil
	}
	a, err := e.Store.AgentByID(ctx, st.AgentID)
	if err != nil {
		return nil, err
	}
	var (
		u      store.StrategyUpdate
		evs    []events.Event
		action string
		reason string
	)
	ev := func(typ events.Type, by events.Actor, summary string, details map[string]any) events.Event {
		return events.Event{AgentID: st.AgentID, UserID: st.UserID, Type: typ, StrategyID: st.ID, StrategyType: st.Type,
			By: by, Summary: summary, Details: details}
	}
	switch {
	case a.Status == models.AgentRevoked:
		action, reason = ActionCancel, reasonAgentRevoked
		u = store.StrategyUpdate{Status: ptr(StatusCancelled), EndedReason: ptr(EndAgentRevoked), PausedBy: ptr(""),
			Triggers: ptr(""), NextEvaluationAt: &time.Time{}}
		// By the user, who revoked the agent: reported by the heartbeat to
		// any key that can still read it.
		evs = append(evs, ev(events.StrategyCancelled, events.ByUser, "strategy "+st.ID+" cancelled: the user revoked its agent",
			map[string]any{"reason": EndAgentRevoked}))
	case a.Status == models.AgentPaused && st.Status == StatusActive:
		action, reason = ActionPause, reasonAgentPaused
		// NextEvaluationAt is kept: a RECURRING_BUY resumed with its agent
		// keeps its schedule (a buy due meanwhile runs once, at once).
		u = store.StrategyUpdate{Status: ptr(StatusPaused), PausedBy: ptr(PausedWithAgent), Triggers: ptr("")}
		// By the system: the agent learns of its own pause from its key
		// (401), and the strategy resumes with it, so its heartbeat has
		// nothing to ask of it.
		evs = append(evs, ev(events.StrategyPaused, events.BySystem, "strategy "+st.ID+" paused with its agent; it resumes when the agent does",
			map[string]any{"reason": reasonAgentPaused}))
	case a.Status == models.AgentActive && st.Status == StatusPaused && st.PausedBy == PausedWithAgent:
		action, reason = ActionResume, reasonAgentResumed
		next := *st
		next.Status = StatusActive
		cfg, err := Load(next.Config)
		if err != nil {
			return nil, err
		}
		buying, err := e.refresh(ctx, &next)
		if err != nil {
			return nil, err
		}
		conds, err := e.conditions(ctx, e.Store, &next, cfg, buying)
		if err != nil {
			return nil, err
		}
		u = store.StrategyUpdate{Status: ptr(StatusActive), PausedBy: ptr(""), BudgetUsedMicro: &next.BudgetUsedMicro,
			OpenSizeMicro: &next.OpenSizeMicro, Triggers: ptr(encodeConds(conds))}
		if typeOf(st.Type).Traits().Interval && st.NextEvaluationAt == nil {
			u.NextEvaluationAt = ptr(e.now())
		}
	default:
		return st, nil
	}
	err = e.Store.Tx(ctx, func(tx *store.Store) error {
		if err := tx.UpdateStrategy(ctx, st.ID, []string{st.Status}, u); err != nil {
			return err
		}
		for _, ev := range evs {
			if _, err := events.Append(ctx, tx, ev); err != nil {
				return err
			}
		}
		return audit.Append(ctx, tx, audit.Entry{UserID: st.UserID, AgentID: st.AgentID, Action: audit.ActionStrategy + action,
			Target: st.ID, Result: audit.Success, Detail: map[string]any{"by": ByUser, "type": st.Type, "strategy": st.ID,
				"reason": reason, "agentStatus": a.Status}})
	})
	if err != nil && !errs.Is(err, errs.Conflict) {
		return nil, err
	}
	// A conflict: the row moved on meanwhile (this workflow is its one
	// writer, so only a retried step finds that); it is read as it is.
	out, err := e.Store.StrategyByID(ctx, st.ID)
	if err != nil {
		return nil, err
	}
	e.arm(out)
	if action != "" {
		e.log().InfoContext(ctx, "strategy follows its agent's status", "strategy_id", st.ID, "agent_status", a.Status, "status", out.Status)
	}
	return out, nil
}
