package activities

import (
	"context"

	"go.temporal.io/sdk/activity"

	"github.com/agent-trading/ats/models/errs/temporalerr"
)

// DeviceLinkRecorder is the storage side of the device-link workflow;
// models/agents.Recorder implements it. Its methods must be idempotent.
type DeviceLinkRecorder interface {
	ApproveDeviceLink(ctx context.Context, linkID, userID, clientAddr, budget, proof string) (agentID string, err error)
	DenyDeviceLink(ctx context.Context, linkID, userID, clientAddr, proof string) error
	ExpireDeviceLink(ctx context.Context, linkID string) error
	ExpireUnissuedDeviceLink(ctx context.Context, linkID string) (expired bool, err error)
}

// DeviceDecision is the input of the approve and deny activities: who
// decided and from where, and the proof that the authenticated approval
// path made this decision (models/agents.DecisionProof), without which the
// recorder refuses it. It holds no secret — the device code and the API
// key never enter Temporal, and the proof vouches for this decision only.
type DeviceDecision struct {
	LinkID     string `json:"link_id"`
	UserID     string `json:"user_id"`
	ClientAddr string `json:"client_addr"`
	// Budget is an approval's spending control for the new agent
	// (agents.ApprovalBudget.Field; "" in decisions recorded before it,
	// the default), covered by the proof.
	Budget string `json:"budget,omitempty"`
	Proof  string `json:"proof,omitempty"`
}

// DeviceLinks holds the device-link activities. Workflows reference its
// methods through a nil *DeviceLinks.
type DeviceLinks struct {
	Recorder DeviceLinkRecorder
}

// ApproveDeviceLink records an approval and returns the new agent's ID.
func (d *DeviceLinks) ApproveDeviceLink(ctx context.Context, in DeviceDecision) (string, error) {
	id, err := d.Recorder.ApproveDeviceLink(ctx, in.LinkID, in.UserID, in.ClientAddr, in.Budget, in.Proof)
	if err != nil {
		return "", temporalerr.To(err)
	}
	activity.GetLogger(ctx).Info("device link approved", "link_id", in.LinkID, "agent_id", id)
	return id, nil
}

// DenyDeviceLink records a denial.
func (d *DeviceLinks) DenyDeviceLink(ctx context.Context, in DeviceDecision) error {
	if err := d.Recorder.DenyDeviceLink(ctx, in.LinkID, in.UserID, in.ClientAddr, in.Proof); err != nil {
		return temporalerr.To(err)
	}
	activity.GetLogger(ctx).Info("device link denied", "link_id", in.LinkID)
	return nil
}

// ExpireDeviceLink records that nobody decided the link in time.
func (d *DeviceLinks) ExpireDeviceLink(ctx context.Context, linkID string) error {
	if err := d.Recorder.ExpireDeviceLink(ctx, linkID); err != nil {
		return temporalerr.To(err)
	}
	activity.GetLogger(ctx).Info("device link expired", "link_id", linkID)
	return nil
}

// ExpireUnissuedDeviceLink runs at the expiry of an approved link: when
// the agent never collected its key, the link expires and the agent
// created at approval is revoked. It reports whether that happened.
func (d *DeviceLinks) ExpireUnissuedDeviceLink(ctx context.Context, linkID string) (bool, error) {
	expired, err := d.Recorder.ExpireUnissuedDeviceLink(ctx, linkID)
	if err != nil {
		return false, temporalerr.To(err)
	}
	if expired {
		activity.GetLogger(ctx).Info("device link expired before its key was collected; agent revoked", "link_id", linkID)
	}
	return expired, nil
}
