package workflows

import (
	"context"
	"log/slog"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/audit"
)

// DeviceLinkRuns is the Temporal side of DeviceLinks: the device-link
// workflow's start, decisions and key-issued notice. DeviceLinkClient
// implements it; tests give it stand-ins that record the decision directly.
type DeviceLinkRuns interface {
	// Start starts the workflow of link linkID, expiring at expiresAt.
	Start(ctx context.Context, linkID string, expiresAt time.Time) error
	// Approve asks the workflow to approve the link for userID, the new
	// agent getting budget, and returns the created agent's ID.
	Approve(ctx context.Context, linkID, userID, clientAddr string, budget agents.ApprovalBudget) (agentID string, err error)
	// Deny asks the workflow to deny the link.
	Deny(ctx context.Context, linkID, userID, clientAddr string) error
	// KeyIssued tells the workflow that the agent collected its key, so
	// it can complete instead of waiting for the expiry, at which it
	// would revoke an agent whose key was never collected.
	KeyIssued(ctx context.Context, linkID string) error
}

// DeviceLinks is the device flow's way through Temporal, for the API and
// the admin commands: models/agents creates, checks and issues (and is
// called and returns), the device-link workflow decides, and its
// activities record the decision through agents.Recorder. So the walk
// api/device → workflows → Temporal → activities → models/agents enters
// no package twice.
type DeviceLinks struct {
	Agents *agents.Service
	Runs   DeviceLinkRuns
	// Control, when set, has the paper agents a live approval revoked
	// (agents.PaperNamesakes) stop what acts in their name (their
	// strategies cancelled, their resting orders cancelled), as a revoke
	// from the dashboard does; their keys stop at the approval's commit.
	Control AgentControlRuns
}

// keyIssuedNoticeTimeout bounds the notice to the workflow after a key was
// issued: the poll that carries the key must not wait on Temporal.
const keyIssuedNoticeTimeout = 5 * time.Second

// RequestDevice starts linking an agent named agentName: the link is
// stored and audited (agents.Service.CreateDeviceLink), then its workflow
// starts; a link whose workflow cannot start is retired.
func (d *DeviceLinks) RequestDevice(ctx context.Context, agentName, clientAddr string) (agents.DeviceAuthorization, error) {
	l, err := d.Agents.CreateDeviceLink(ctx, agentName, clientAddr)
	if err != nil {
		return agents.DeviceAuthorization{}, err
	}
	if err := d.Runs.Start(ctx, l.ID, l.ExpiresAt); err != nil {
		d.Agents.RetireDeviceLink(ctx, l.ID)
		return agents.DeviceAuthorization{}, err
	}
	return l.Authorization, nil
}

// PollDeviceToken answers the agent's poll (agents.Service.PollDeviceToken)
// and, when it issued the key, tells the link's workflow: best effort, and
// never a reason to withhold the key that is now committed. A workflow
// that misses the notice (or completed at approval, before this notice
// existed) finds the link issued when its expiry timer fires and leaves
// the agent alone.
func (d *DeviceLinks) PollDeviceToken(ctx context.Context, deviceCode, clientAddr string) (agents.IssuedKey, error) {
	key, err := d.Agents.PollDeviceToken(ctx, deviceCode, clientAddr)
	if err != nil {
		return key, err
	}
	nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), keyIssuedNoticeTimeout)
	_ = d.Runs.KeyIssued(nctx, key.LinkID)
	cancel()
	return key, nil
}

// ApproveDevice approves the link with user code userCode for userID, the
// new agent getting budget (its zero value: the default fixed limit,
// agents.DefaultApprovalFixedLimitMicro; no limit only when chosen). It
// is THE approval path: the /link page calls it after checking the
// password, the admin command through ApproveDeviceByEmail. Wrong codes
// count against the guess limits (agents.Service.DecidableLink).
func (d *DeviceLinks) ApproveDevice(ctx context.Context, userID, userCode, clientAddr string, budget agents.ApprovalBudget) (agents.LinkedAgent, error) {
	if err := budget.Check(); err != nil {
		return agents.LinkedAgent{}, err
	}
	l, err := d.Agents.DecidableLink(ctx, userID, userCode, clientAddr, audit.ActionDeviceApprove)
	if err != nil {
		return agents.LinkedAgent{}, err
	}
	// The paper namesakes the approval revokes if it is live (in its own
	// transaction: agents.Recorder.ApproveDeviceLink); read first to stop
	// what acts in their name afterwards.
	var paper []models.Agent
	if budget.Resolved().Mode == models.ModeLive {
		if paper, err = agents.PaperNamesakes(ctx, d.Agents.Store, userID, l.AgentName); err != nil {
			return agents.LinkedAgent{}, err
		}
	}
	agentID, err := d.Runs.Approve(ctx, l.ID, userID, clientAddr, budget.Resolved())
	if err != nil {
		return agents.LinkedAgent{}, d.Agents.DecisionErr(ctx, l.ID, err)
	}
	out := agents.LinkedAgent{LinkID: l.ID, AgentID: agentID, AgentName: l.AgentName}
	for _, p := range paper {
		a, err := d.Agents.Store.AgentByID(ctx, p.ID)
		if err != nil || a.Status != models.AgentRevoked {
			continue // not this approval's to stop
		}
		out.RevokedPaper = append(out.RevokedPaper, p.ID)
		if d.Control != nil {
			if err := d.Control.Apply(ctx, p.ID, userID); err != nil {
				// Revoked already: its key and any new order are refused;
				// its strategies stop at their next run.
				slog.Default().WarnContext(ctx, "the revoked paper agent's control did not start", "agent_id", p.ID, "err", err)
			}
		}
	}
	return out, nil
}

// DenyDevice denies the link with user code userCode; see ApproveDevice.
func (d *DeviceLinks) DenyDevice(ctx context.Context, userID, userCode, clientAddr string) error {
	l, err := d.Agents.DecidableLink(ctx, userID, userCode, clientAddr, audit.ActionDeviceDeny)
	if err != nil {
		return err
	}
	if err := d.Runs.Deny(ctx, l.ID, userID, clientAddr); err != nil {
		return d.Agents.DecisionErr(ctx, l.ID, err)
	}
	return nil
}

// ApproveDeviceByEmail is ApproveDevice for the admin command
// (`ats admin device approve --email E --code CODE [--fixed-limit USDC |
// --no-limit]`): the operator is trusted, so no password is asked.
func (d *DeviceLinks) ApproveDeviceByEmail(ctx context.Context, email, userCode string, budget agents.ApprovalBudget) (agents.LinkedAgent, error) {
	userID, err := d.Agents.UserIDByEmail(ctx, email)
	if err != nil {
		return agents.LinkedAgent{}, err
	}
	return d.ApproveDevice(ctx, userID, userCode, agents.ClientAddrCLI, budget)
}

// DenyDeviceByEmail is DenyDevice for the admin command.
func (d *DeviceLinks) DenyDeviceByEmail(ctx context.Context, email, userCode string) error {
	userID, err := d.Agents.UserIDByEmail(ctx, email)
	if err != nil {
		return err
	}
	return d.DenyDevice(ctx, userID, userCode, agents.ClientAddrCLI)
}
