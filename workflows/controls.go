package workflows

import (
	"context"
	"log/slog"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/positions"
	"github.com/agent-trading/ats/models/strategies"
)

// AgentControlRuns is the Temporal side of Controls: the agent's control
// workflow. AgentControlClient implements it.
type AgentControlRuns interface {
	// Apply makes the agent's control workflow apply the agent's stored
	// status to its strategies and orders (started, or told again).
	Apply(ctx context.Context, agentID, userID string) error
}

// Controls are the user's brakes on what acts in their agents' names, for
// the dashboard and the admin commands: an agent's pause, resume and
// revoke (the status in the database at once, then AgentControl applies
// it to the agent's strategies and, for a revoke, its resting orders);
// cancelling an order, or all of an agent's; closing a position; and
// stopping everything. The domain services check and record; orders go
// through the order desk (OrderDesk: Accept, then the order's workflow) and
// strategies through their workflows, so a user's control takes the same
// paths as the agent's own requests.
type Controls struct {
	Agents *agents.Service
	// Runs is nil in a process without Temporal: nothing but the API
	// acts for an agent there, and the status check binds the API.
	Runs AgentControlRuns
	// OrderDesk and Positions are nil without a venue; Strategies without
	// Temporal.
	OrderDesk  *OrderDesk
	Positions  *positions.Service
	Strategies *StrategyDesk
	Audit      *audit.Service
	Logger     *slog.Logger
}

func (c *Controls) log() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.Default()
}

// PauseAgent pauses the agent (agents.Service.Pause: its key is refused
// and no order is accepted in its name from the commit on), then has its
// ACTIVE strategies paused with it.
func (c *Controls) PauseAgent(ctx context.Context, userID, idOrName, clientAddr string) (agents.Agent, error) {
	return c.status(ctx, c.Agents.Pause, userID, idOrName, clientAddr)
}

// ResumeAgent resumes the agent and the strategies paused with it.
func (c *Controls) ResumeAgent(ctx context.Context, userID, idOrName, clientAddr string) (agents.Agent, error) {
	return c.status(ctx, c.Agents.Resume, userID, idOrName, clientAddr)
}

// RevokeAgent revokes the agent, then has its strategies cancelled and
// its resting orders cancelled on the venue.
func (c *Controls) RevokeAgent(ctx context.Context, userID, idOrName, clientAddr string) (agents.Agent, error) {
	return c.status(ctx, c.Agents.Revoke, userID, idOrName, clientAddr)
}

type statusChange func(ctx context.Context, userID, idOrName, clientAddr string) (agents.Agent, error)

func (c *Controls) status(ctx context.Context, change statusChange, userID, idOrName, clientAddr string) (agents.Agent, error) {
	a, err := change(ctx, userID, idOrName, clientAddr)
	if err != nil {
		return a, err
	}
	return a, c.apply(ctx, a.ID, userID, a.Status)
}

// apply starts (or tells again) the agent's control workflow. The status
// is committed already; a control that cannot start is reported, and the
// same change asked again (a no-op on the status) starts it.
func (c *Controls) apply(ctx context.Context, agentID, userID, status string) error {
	if c.Runs == nil {
		return nil
	}
	if err := c.Runs.Apply(ctx, agentID, userID); err != nil {
		c.log().WarnContext(ctx, "agent control not started", "agent_id", agentID, "err", err)
		return errs.Ef(errs.Transient, "the agent is %s, but its strategies and orders could not be reached yet", status).
			WithCode(errs.CodeControlPending).WithCause(err).
			WithHint("nothing is placed in its name meanwhile; do it again in a moment to finish")
	}
	return nil
}

// CancelOrder cancels userID's order id (of any of their agents) through
// the order's workflow, as the agent's own cancel does; it is audited as
// the user's, attributed to the order's agent.
func (c *Controls) CancelOrder(ctx context.Context, userID, id, clientAddr string) (orders.Order, error) {
	if c.OrderDesk == nil {
		return orders.Order{}, errs.E(errs.Internal, "trading is not configured in this process")
	}
	p, err := c.OrderDesk.Orders.ForUser(ctx, userID, id, clientAddr)
	if err != nil {
		return orders.Order{}, err
	}
	return c.OrderDesk.Cancel(ctx, p, id)
}

// CancelReport is what cancelling several orders did.
type CancelReport struct {
	Cancelled int
	// Failed are the orders still live, each with why (client-safe).
	Failed []CancelFailure
}

// CancelFailure is an order a cancel did not end.
type CancelFailure struct {
	OrderID string
	Reason  string
}

// cancelParallel bounds the cancels in flight at once.
const cancelParallel = 8

// CancelAgentOrders cancels every live order (PENDING, OPEN,
// PARTIALLY_FILLED) of userID's agent idOrName, each as CancelOrder does.
func (c *Controls) CancelAgentOrders(ctx context.Context, userID, idOrName, clientAddr string) (CancelReport, error) {
	a, err := c.Agents.Resolve(ctx, userID, idOrName)
	if err != nil {
		return CancelReport{}, err
	}
	return c.cancelAll(ctx, userID, a.ID, clientAddr)
}

// cancelAll cancels userID's live orders (agentID's only, when set).
// Orders that end meanwhile (filled, say) count as neither.
func (c *Controls) cancelAll(ctx context.Context, userID, agentID, clientAddr string) (CancelReport, error) {
	if c.OrderDesk == nil {
		return CancelReport{}, errs.E(errs.Internal, "trading is not configured in this process")
	}
	var (
		rep CancelReport
		mu  sync.Mutex
	)
	for after := ""; ; {
		page, err := c.OrderDesk.Orders.LiveOrders(ctx, userID, agentID, after, 100)
		if err != nil {
			return rep, err
		}
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(cancelParallel)
		for _, r := range page {
			g.Go(func() error {
				_, err := c.OrderDesk.Cancel(gctx, orders.Principal{AgentID: r.AgentID, UserID: userID, ClientAddr: clientAddr, ByUser: true}, r.ID)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					rep.Cancelled++
				case errs.CodeOf(err) == errs.CodeOrderNotCancellable:
				default:
					rep.Failed = append(rep.Failed, CancelFailure{OrderID: r.ID, Reason: errs.PublicMessage(err)})
				}
				return nil
			})
		}
		_ = g.Wait()
		if len(page) < 100 {
			return rep, ctx.Err()
		}
		after = page[len(page)-1].ID
	}
}

// ClosePosition closes userID's position id (of any of their agents): a
// SELL through the normal order path (PositionDesk: positions.Service.PlanClose,
// the order desk's Accept and the order's workflow), attributed to the position's agent and audited
// as the user's. It works whatever the agent's status: the user's own
// order is bound by no control the user set.
func (c *Controls) ClosePosition(ctx context.Context, userID, id, clientAddr string, r positions.CloseRequest) (positions.CloseResult, error) {
	if c.Positions == nil {
		return positions.CloseResult{}, errs.E(errs.Internal, "trading is not configured in this process")
	}
	p, err := c.Positions.ForUser(ctx, userID, id, clientAddr)
	if err != nil {
		return positions.CloseResult{}, err
	}
	return (&PositionDesk{Positions: c.Positions, Orders: c.placer()}).Close(ctx, p, id, r)
}

// placer is the order desk, or nil without one (a nil *OrderDesk is no
// Placer).
func (c *Controls) placer() orders.Placer {
	if c.OrderDesk == nil {
		return nil
	}
	return c.OrderDesk
}

// StopReport is what StopEverything did.
type StopReport struct {
	AgentsPaused     int
	StrategiesPaused int
	Orders           CancelReport
	// Failed are the changes that did not take (client-safe), besides
	// the orders' (Orders.Failed).
	Failed []string
}

// StopEverything is the user's one brake: every active agent is paused
// (its key refused, nothing placed in its name), every strategy that can
// act is paused by the user (so it stays paused when its agent is
// resumed: each is resumed on its own), and every open order of the user
// is cancelled. The agents' pauses come first and are in the database
// before anything else is attempted, so whatever fails after them (a
// strategy's workflow, the venue) can no longer trade; the run is
// idempotent, and running it again finishes what failed. It is audited
// (user.stop) with what it did.
func (c *Controls) StopEverything(ctx context.Context, userID, clientAddr string) (StopReport, error) {
	var rep StopReport
	list, err := c.Agents.List(ctx, userID)
	if err != nil {
		return rep, err
	}
	var paused []agents.Agent
	for _, a := range list {
		if a.Status == models.AgentRevoked {
			continue
		}
		if a.Status == models.AgentActive {
			if _, err := c.Agents.Pause(ctx, userID, a.ID, clientAddr); err != nil {
				rep.Failed = append(rep.Failed, "agent "+a.Name+": "+errs.PublicMessage(err))
				continue
			}
			rep.AgentsPaused++
		}
		paused = append(paused, a)
	}
	if c.Strategies != nil {
		actor := strategies.Actor{By: strategies.ByUser, UserID: userID, ClientAddr: clientAddr}
		sts, err := c.Strategies.List(ctx, actor, strategies.ListFilter{})
		if err != nil {
			return rep, err
		}
		for _, st := range sts {
			if strategies.AllowedFor(strategies.ActionPause, st.Status, st.PausedBy) != nil {
				continue // not acting (ERROR, final) or paused by a person already
			}
			if _, err := c.Strategies.Pause(ctx, actor, st.ID); err != nil {
				rep.Failed = append(rep.Failed, "strategy "+st.ID+": "+errs.PublicMessage(err))
				continue
			}
			rep.StrategiesPaused++
		}
	}
	if c.OrderDesk != nil {
		if rep.Orders, err = c.cancelAll(ctx, userID, "", clientAddr); err != nil {
			return rep, err
		}
	}
	// Strategies the pauses above missed are paused with their agents.
	for _, a := range paused {
		if err := c.apply(ctx, a.ID, userID, models.AgentPaused); err != nil {
			rep.Failed = append(rep.Failed, "agent "+a.Name+": "+errs.PublicMessage(err))
		}
	}
	result := audit.Success
	if len(rep.Failed) > 0 || len(rep.Orders.Failed) > 0 {
		result = audit.Failure
	}
	if c.Audit != nil {
		if err := c.Audit.Record(ctx, audit.Entry{UserID: userID, Action: audit.ActionUserStop, Result: result, ClientAddr: clientAddr,
			Detail: map[string]any{"agentsPaused": rep.AgentsPaused, "strategiesPaused": rep.StrategiesPaused,
				"ordersCancelled": rep.Orders.Cancelled, "ordersFailed": len(rep.Orders.Failed), "failed": rep.Failed}}); err != nil {
			c.log().WarnContext(ctx, "audit of a stop failed", "user_id", userID, "err", err)
		}
	}
	return rep, nil
}
