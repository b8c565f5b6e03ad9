package workflows

import (
	"context"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/positions"
)

// PositionDesk closes positions, for the API and the user's controls: the
// positions service checks the close and returns the sell order that
// makes it (PlanClose), the order desk places that order as any other
// (Accept, then the order's workflow), and the positions service answers
// (Closed). The positions service never places an order itself, so it
// holds no port into workflows (docs/architecture.md).
type PositionDesk struct {
	Positions *positions.Service
	// Orders places the close's order: the order desk (*OrderDesk); nil
	// without a venue, when a close is refused.
	Orders orders.Placer
}

// Close sells the whole position (less what the agent's open sells
// already offer), or answers a retried close with the order it placed.
func (d *PositionDesk) Close(ctx context.Context, p orders.Principal, positionID string, r positions.CloseRequest) (positions.CloseResult, error) {
	if d.Orders == nil {
		return positions.CloseResult{}, errs.E(errs.Internal, "closing positions is not configured in this process")
	}
	plan, err := d.Positions.PlanClose(ctx, p, positionID, r)
	if err != nil {
		return positions.CloseResult{}, err
	}
	if plan.Done != nil {
		return *plan.Done, nil
	}
	res, err := d.Orders.Place(ctx, p, *plan.Order)
	if err != nil {
		return positions.CloseResult{}, err
	}
	return d.Positions.Closed(ctx, p, plan, res)
}
