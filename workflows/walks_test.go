package workflows_test

import (
	"reflect"
	"testing"

	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/settlements"
	"github.com/agent-trading/ats/workflows"
)

// The walks stay one-way (docs/architecture.md): a domain service whose
// steps the activities run never holds a port that a workflows client
// implements, or it would call back into the workflow whose activities
// call it. The import rules cannot see this (an interface hides the
// import), so this test looks at the services' fields.
func TestDomainServicesHoldNoWorkflowPort(t *testing.T) {
	clients := []any{
		workflows.OrderDeskClient{}, &workflows.OrderDesk{},
		workflows.DeviceLinkClient{}, &workflows.DeviceLinks{},
		workflows.SettlementsClient{}, &workflows.Settlements{},
		workflows.AgentControlClient{}, &workflows.Controls{},
	}
	services := []any{orders.Service{}, agents.Service{}, settlements.Service{}, agents.Recorder{}}
	for _, svc := range services {
		if v := workflowPorts(reflect.TypeOf(svc), clients); len(v) > 0 {
			t.Errorf("%T holds workflow ports: %v", svc, v)
		}
	}
	// The check can fail: a struct holding the placement port is caught.
	type reentrant struct{ Placer orders.Placer }
	if v := workflowPorts(reflect.TypeOf(reentrant{}), clients); len(v) != 1 {
		t.Fatalf("a struct with an orders.Placer field was not caught: %v", v)
	}
}

// workflowPorts names the interface fields of struct type st that one of
// clients implements.
func workflowPorts(st reflect.Type, clients []any) []string {
	var out []string
	for i := range st.NumField() {
		f := st.Field(i)
		if f.Type.Kind() != reflect.Interface {
			continue
		}
		for _, c := range clients {
			if reflect.TypeOf(c).Implements(f.Type) && f.Type.NumMethod() > 0 {
				out = append(out, f.Name+" ("+reflect.TypeOf(c).String()+")")
			}
		}
	}
	return out
}
