package workflows

// Registry is the part of a Temporal worker, replayer or test environment
// that workflows are registered on; go.temporal.io/sdk/worker.Worker,
// worker.WorkflowReplayer and testsuite.TestWorkflowEnvironment satisfy it.
type Registry interface {
	RegisterWorkflow(w any)
}

// All lists every workflow function of the service. Register uses it, and
// replay tests pass it to the replayer so every recorded history can be
// replayed against the current code.
func All() []any {
	return []any{
		Housekeeping,
		DeviceLink,
		Approve,
		Redeem,
		Order,
		Strategy,
		AgentControl,
		WebhookDelivery,
	}
}

// Register registers every workflow of the service on r. It is the one
// place workflows are registered: add new workflows to All.
func Register(r Registry) {
	for _, w := range All() {
		r.RegisterWorkflow(w)
	}
}
