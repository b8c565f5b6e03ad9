// Package agentstest holds a real fake for tests of the device flow's
// pages: device-link runs that record decisions through the real
// agents.Recorder, without a Temporal server.
package agentstest

import (
	"context"
	"time"

	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/intent"
)

// RecorderRuns implements workflows.DeviceLinkRuns by applying each
// decision with Rec at once, with the proof the workflow client would
// attach, so a page's own rules (CSRF, passwords, limits) are tested on
// every run; the workflow path is tested against a Temporal dev server.
type RecorderRuns struct{ Rec *agents.Recorder }

// Start implements workflows.DeviceLinkRuns: there is no workflow.
func (RecorderRuns) Start(context.Context, string, time.Time) error { return nil }

// KeyIssued implements workflows.DeviceLinkRuns.
func (RecorderRuns) KeyIssued(context.Context, string) error { return nil }

// Approve records the approval of link id for user, the agent getting
// budget.
func (r RecorderRuns) Approve(ctx context.Context, id, user, addr string, budget agents.ApprovalBudget) (string, error) {
	field := budget.Field()
	return r.Rec.ApproveDeviceLink(ctx, id, user, addr, field, agents.ApprovalProof(r.Rec.Intents, id, user, addr, field))
}

// Deny records the denial of link id by user.
func (r RecorderRuns) Deny(ctx context.Context, id, user, addr string) error {
	return r.Rec.DenyDeviceLink(ctx, id, user, addr, agents.DecisionProof(r.Rec.Intents, intent.DeviceDeny, id, user, addr))
}
