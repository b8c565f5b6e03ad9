package agents

import (
	"context"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/store"
)

// nonFinalStrategies are the statuses of a strategy that can still act
// (models/strategies.NonFinal, which this package does not import: the
// strategies import the order path, which stays below the agents).
var nonFinalStrategies = []string{"ACTIVE", "PAUSED", "ERROR"}

// ControlPageSize bounds the orders one ControlPlan names.
const ControlPageSize = 50

// ControlPlan is what an agent's status asks of everything acting in its
// name (workflows.AgentControl carries it out): each strategy that is not
// final is told to apply the status itself, and a revoked agent's live
// orders are cancelled, a page at a time.
type ControlPlan struct {
	// Status is the agent's status as stored.
	Status string `json:"status"`
	// Strategies are the agent's strategies that are not final (with
	// after empty only: the first page).
	Strategies []string `json:"strategies,omitempty"`
	// Orders are live orders of a revoked agent with ids after the
	// cursor, at most ControlPageSize; More says whether more follow.
	Orders []string `json:"orders,omitempty"`
	More   bool     `json:"more,omitempty"`
}

// ControlPlan reads agentID's status and what acts in its name (see
// ControlPlan). It reads the database only: the agent id comes from a
// workflow's input, and whatever the plan names is done only as the
// stored status says.
func (s *Service) ControlPlan(ctx context.Context, agentID, after string) (ControlPlan, error) {
	a, err := s.Store.AgentByID(ctx, agentID)
	if err != nil {
		return ControlPlan{}, err
	}
	p := ControlPlan{Status: a.Status}
	if after == "" {
		sts, err := s.Store.FindStrategies(ctx, store.StrategyFilter{AgentID: a.ID, Statuses: nonFinalStrategies, Limit: 1000})
		if err != nil {
			return ControlPlan{}, err
		}
		for _, st := range sts {
			p.Strategies = append(p.Strategies, st.ID)
		}
	}
	if a.Status != models.AgentRevoked {
		return p, nil
	}
	os, err := s.Store.LiveOrders(ctx, a.UserID, a.ID, after, ControlPageSize+1)
	if err != nil {
		return ControlPlan{}, err
	}
	if len(os) > ControlPageSize {
		os, p.More = os[:ControlPageSize], true
	}
	for _, o := range os {
		p.Orders = append(p.Orders, o.ID)
	}
	return p, nil
}
