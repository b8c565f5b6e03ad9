package workflows

import (
	"context"

	"github.com/agent-trading/ats/models/strategies"
)

// Names the external tests (package workflows_test) need of the shapes.
const (
	StrategyShapeCurrent = strategyShapeCurrent
	OrderShapeCurrent    = orderShapeCurrent
)

// StartAt starts the strategy's workflow as Start does, at shape (0: as a
// process older than the input's shape started it, asking GetVersion).
func (c StrategyDeskClient) StartAt(ctx context.Context, st strategies.State, shape int) error {
	return c.start(ctx, st, shape)
}
