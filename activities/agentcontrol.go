package activities

import (
	"context"

	"go.temporal.io/sdk/activity"

	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/errs/temporalerr"
	"github.com/agent-trading/ats/models/orders"
)

// AgentControlSteps are the steps of an agent's control workflow:
// models/agents.Service plans, models/orders.Service cancels. Both read
// the agent's status from the database, never from the workflow's input.
type AgentControlSteps interface {
	ControlPlan(ctx context.Context, agentID, after string) (agents.ControlPlan, error)
}

// RevokedOrders cancels a revoked agent's order; models/orders.Service
// implements it.
type RevokedOrders interface {
	CancelForRevokedAgent(ctx context.Context, orderID string) (previous string, o orders.Order, err error)
}

// AgentControls holds the activities of workflows.AgentControl. Workflows
// reference its methods through a nil *AgentControls.
//
// The workflow's input is an agent id and nothing else: a forged start can
// only make the steps apply the agent's status as stored, which is what
// the user's authenticated change wrote.
type AgentControls struct {
	Steps  AgentControlSteps
	Orders RevokedOrders
}

// AgentControlPage names the page of a plan: the agent and the id of the
// last order of the previous page ("" for the first).
type AgentControlPage struct {
	AgentID string `json:"agent_id"`
	After   string `json:"after,omitempty"`
}

// PlanAgentControl reads what the agent's status asks for (agents.ControlPlan).
func (a *AgentControls) PlanAgentControl(ctx context.Context, in AgentControlPage) (agents.ControlPlan, error) {
	p, err := a.Steps.ControlPlan(ctx, in.AgentID, in.After)
	return p, temporalerr.To(err)
}

// CancelRevokedAgentOrder cancels a live order of a revoked agent
// (orders.Service.CancelForRevokedAgent) and returns its state.
func (a *AgentControls) CancelRevokedAgentOrder(ctx context.Context, orderID string) (OrderState, error) {
	if a.Orders == nil {
		return OrderState{}, temporalerr.To(errs.E(errs.Internal, "this worker cannot cancel orders (no venue)"))
	}
	prev, o, err := a.Orders.CancelForRevokedAgent(ctx, orderID)
	if err != nil {
		return OrderState{}, temporalerr.To(err)
	}
	st := stateOf(o)
	st.PreviousStatus = prev
	activity.GetLogger(ctx).Info("revoked agent's order cancelled", "order_id", orderID, "previous_status", prev, "status", o.Status)
	return st, nil
}
