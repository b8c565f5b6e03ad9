package orders

import (
	"context"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
)

// ReasonAgentRevoked is the audit reason of an order cancelled because its
// agent was revoked.
const ReasonAgentRevoked = "agent_revoked"

// CancelForRevokedAgent cancels a live order of a revoked agent: the step
// workflows.AgentControl runs for each such order. Its authority is the
// agent's status in the database, written by the user's authenticated
// revoke; the order id alone (a workflow's input) can cancel nothing of
// an agent that is not revoked (Forbidden). It cancels under the guards of
// the order workflow's own cancel steps (CancelPending, which stops a
// placement that has not posted, or waits for a post in flight;
// CancelAtVenue otherwise), so it is safe beside the order's workflow,
// which the caller then tells to read the order again. An order that has
// ended meanwhile (filled, say) is answered as it is. Each cancel is
// audited (order.cancel, by the user, reason agent_revoked). Idempotent.
func (s *Service) CancelForRevokedAgent(ctx context.Context, orderID string) (previous string, _ Order, _ error) {
	o, err := s.Store.OrderByID(ctx, orderID)
	if err != nil {
		return "", Order{}, err
	}
	if TerminalStatus(o.Status) {
		return "", view(o), nil
	}
	a, err := s.Store.AgentByID(ctx, o.AgentID)
	if err != nil {
		return "", Order{}, err
	}
	if a.Status != models.AgentRevoked {
		return "", Order{}, errs.E(errs.Forbidden, "the order's agent is not revoked: only the agent or its user cancels its orders").
			WithCode(errs.CodeUnvouchedRequest)
	}
	if o.Status == models.OrderPending {
		previous, _, err = s.CancelPending(ctx, o.ID)
	} else {
		previous, _, err = s.CancelAtVenue(ctx, o.ID)
	}
	if errs.CodeOf(err) == errs.CodeOrderNotCancellable {
		cur, gerr := s.Store.OrderByID(ctx, orderID)
		if gerr != nil {
			return "", Order{}, gerr
		}
		return "", view(cur), nil
	}
	if err != nil {
		return "", Order{}, err
	}
	cur, err := s.Store.OrderByID(ctx, orderID)
	if err != nil {
		return "", Order{}, err
	}
	if s.Audit != nil {
		if err := s.Audit.Record(ctx, audit.Entry{UserID: o.UserID, AgentID: o.AgentID, Action: audit.ActionOrderCancel, Target: o.ID,
			Result: audit.Success, Detail: map[string]any{"previousStatus": previous, "by": "user", "reason": ReasonAgentRevoked}}); err != nil {
			s.log().WarnContext(ctx, "audit of a revoked agent's order cancel failed", "order_id", o.ID, "err", err)
		}
	}
	return previous, view(cur), nil
}

// ForUser returns who placed userID's order id: the Principal a user's
// cancel of it acts as (the order's agent, the user, ByUser). Another
// user's order is NotFound.
func (s *Service) ForUser(ctx context.Context, userID, id, clientAddr string) (Principal, error) {
	o, err := s.Store.OrderForUser(ctx, userID, id)
	if err != nil {
		return Principal{}, err
	}
	return Principal{AgentID: o.AgentID, UserID: o.UserID, ClientAddr: clientAddr, ByUser: true}, nil
}

// LiveOrders lists up to limit of userID's orders that can still trade
// (agentID's only, when set), by id after the cursor after.
func (s *Service) LiveOrders(ctx context.Context, userID, agentID, after string, limit int) ([]Ref, error) {
	rows, err := s.Store.LiveOrders(ctx, userID, agentID, after, limit)
	if err != nil {
		return nil, err
	}
	out := make([]Ref, len(rows))
	for i := range rows {
		out[i] = refOf(&rows[i])
	}
	return out, nil
}
