package workflows_test

import (
	"context"
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/intent/intenttest"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/workflows"
)

// neverStored is an order whose workflow was started but that was never
// stored: refused answers StatusNotStored at the first attempt (the
// acceptance refused it, or no order of that id exists); without it every
// attempt fails transiently (the database unreachable, say) until the
// placement gives up and the abandon step, finding no order, answers.
type neverStored struct {
	*fakeVenueOrder
	refused bool
}

func (n *neverStored) Submit(_ context.Context, id string) (orders.Order, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.submits++
	if n.refused {
		return orders.Order{ID: id, Status: orders.StatusNotStored}, nil
	}
	return orders.Order{}, errs.E(errs.Transient, "the order is not stored (yet)")
}

func (n *neverStored) Abandon(_ context.Context, id string) (orders.Order, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.abandons++
	return orders.Order{ID: id, Status: orders.StatusNotStored}, nil
}

// TestOrderWorkflowNeverStored: the workflow of an order that was never
// stored ends with orders.StatusNotStored, having posted nothing: at once
// when the attempt says so, or once the placement gives up when every
// attempt failed. Either way the placement update answers it.
func TestOrderWorkflowNeverStored(t *testing.T) {
	for _, v := range placementVersions {
		for _, refused := range []bool{true, false} {
			name := map[bool]string{true: "not stored", false: "attempts failing"}[refused]
			t.Run(v.name+"/"+name, func(t *testing.T) {
				n := &neverStored{fakeVenueOrder: &fakeVenueOrder{status: "PENDING", submitStatus: "OPEN"}, refused: refused}
				var suite testsuite.WorkflowTestSuite
				env := suite.NewTestWorkflowEnvironment()
				env.SetStartTime(time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC))
				env.RegisterActivity(&activities.Orders{Steps: n, Intents: intenttest.Keys(t)})
				env.RegisterWorkflow(workflows.Order)
				v.set(env)
				var placed activities.OrderState
				awaitPlacement(t, env, &placed)
				res := runOrder(t, env)
				if res.Status != orders.StatusNotStored || placed.Status != orders.StatusNotStored || n.posts != 0 {
					t.Fatalf("result %+v, placement %+v, %d posts", res, placed, n.posts)
				}
				if refused && (n.submits != 1 || n.abandons != 0) || !refused && (n.submits < 2 || n.abandons != 1) {
					t.Fatalf("%d attempts, %d abandons", n.submits, n.abandons)
				}
			})
		}
	}
}
