package workflows

import (
	"context"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/errs/temporalerr"
	"github.com/agent-trading/ats/models/intent"
)

// Update names of the device-link workflow.
const (
	DeviceLinkUpdateApprove = "approve"
	DeviceLinkUpdateDeny    = "deny"
)

// DeviceLinkSignalKeyIssued is the signal the API sends once the approved
// agent collected its key (no payload): the workflow completes instead of
// waiting for the link's expiry.
const DeviceLinkSignalKeyIssued = "key-issued"

// deviceLinkRevokeUncollected is the change id (workflow.GetVersion) of the
// wait after approval. Histories recorded before it completed right after
// the approval; they replay on the DefaultVersion branch.
const deviceLinkRevokeUncollected = "revoke-uncollected-agent"

// Device-link workflow states, as the result reports them.
const (
	DeviceLinkStatePending  = "pending"
	DeviceLinkStateDeciding = "deciding"
	DeviceLinkStateApproved = "approved"
	DeviceLinkStateDenied   = "denied"
	DeviceLinkStateExpired  = "expired"
)

// DeviceLinkInput starts a device-link workflow. It carries no secret: the
// device code stays with the agent (its hash in the database) and the API
// key is minted by the API after the workflow approved.
type DeviceLinkInput struct {
	LinkID    string    `json:"link_id"`
	ExpiresAt time.Time `json:"expires_at"`
}

// DeviceLinkDecision is the argument of the approve and deny updates. The
// user id is a claim: anyone who reaches Temporal can send an update, so
// the decision counts only with Proof (models/agents.DecisionProof), made
// by the authenticated approval path and verified by the activity before
// anything is recorded.
type DeviceLinkDecision struct {
	UserID     string `json:"user_id"`
	ClientAddr string `json:"client_addr"`
	// Budget is the new agent's spending control (an approval's only:
	// agents.ApprovalBudget.Field), covered by the proof.
	Budget string `json:"budget,omitempty"`
	Proof  string `json:"proof,omitempty"`
}

// DeviceLinkResult is the workflow's outcome. State "expired" with an
// AgentID means the link was approved but the agent never collected its
// key before the expiry, so that agent was revoked.
type DeviceLinkResult struct {
	State   string `json:"state"`
	UserID  string `json:"user_id,omitempty"`
	AgentID string `json:"agent_id,omitempty"`
}

// decisionActivityOptions: a user is waiting on the update, so a decision
// that cannot be recorded within a minute fails back to them (the link
// stays pending and they can retry) instead of hanging.
var decisionActivityOptions = workflow.ActivityOptions{
	StartToCloseTimeout:    15 * time.Second,
	ScheduleToCloseTimeout: time.Minute,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval: 500 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: 10 * time.Second,
	},
}

// expireActivityOptions: nobody waits on an expiry, and the token
// endpoint checks the deadline itself, so it may retry for a long time.
var expireActivityOptions = workflow.ActivityOptions{
	StartToCloseTimeout:    30 * time.Second,
	ScheduleToCloseTimeout: time.Hour,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
	},
}

// DeviceLink is one run of the device authorization flow (id
// "device-link/<link id>"). It waits for the approve or deny update or for
// the link's expiry, records the outcome through activities and completes.
//
// The updates' validator rejects a decision unless the link is pending, so
// a second approval, or an approval after expiry or denial, gets a clear
// error without touching history. While one decision's activity runs the
// state is "deciding", so two concurrent approvals cannot both proceed.
// On approval the UserId and AgentId search attributes are upserted.
//
// After an approval the workflow waits, until the link's expiry, for the
// API's key-issued signal. If the expiry comes first, the agent created at
// approval never got a key: ExpireUnissuedDeviceLink expires the link and
// revokes that agent (it finds the link issued, and changes nothing, when
// the signal was merely lost).
func DeviceLink(ctx workflow.Context, in DeviceLinkInput) (DeviceLinkResult, error) {
	w := &deviceLinkWorkflow{in: in, state: DeviceLinkStatePending,
		decCtx: workflow.WithActivityOptions(ctx, decisionActivityOptions)}
	if err := w.setHandlers(ctx); err != nil {
		return w.res, err
	}
	if err := w.awaitDecision(ctx); err != nil {
		return w.res, err
	}
	if w.state == DeviceLinkStatePending {
		if err := w.expire(ctx); err != nil {
			return w.res, err
		}
	}
	if w.state == DeviceLinkStateApproved &&
		workflow.GetVersion(ctx, deviceLinkRevokeUncollected, workflow.DefaultVersion, 1) >= 1 {
		if err := awaitKeyOrRevoke(ctx, in, &w.res); err != nil {
			return w.res, err
		}
	}
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
		return w.res, err
	}
	return w.res, nil
}

// deviceLinkWorkflow is the state of one run of DeviceLink; its methods
// are the update handlers and the steps.
type deviceLinkWorkflow struct {
	in    DeviceLinkInput
	state string
	res   DeviceLinkResult
	// decCtx schedules the decision activities (the run's context with
	// decisionActivityOptions).
	decCtx workflow.Context
}

// deviceLinkActivities names the device-link activities for
// ExecuteActivity.
var deviceLinkActivities *activities.DeviceLinks

func (w *deviceLinkWorkflow) setHandlers(ctx workflow.Context) error {
	if err := workflow.SetUpdateHandlerWithOptions(ctx, DeviceLinkUpdateApprove, w.approve,
		workflow.UpdateHandlerOptions{Validator: w.validate}); err != nil {
		return err
	}
	return workflow.SetUpdateHandlerWithOptions(ctx, DeviceLinkUpdateDeny, w.deny,
		workflow.UpdateHandlerOptions{Validator: w.validate})
}

// validate admits a decision only on a pending link, with a user and a
// proof.
func (w *deviceLinkWorkflow) validate(_ workflow.Context, d DeviceLinkDecision) error {
	if d.UserID == "" {
		return temporalerr.To(errs.E(errs.Invalid, "a decision needs a user"))
	}
	switch w.state {
	case DeviceLinkStatePending:
		// Only the activity can verify a proof (the workflow holds no
		// key); one without any is turned away before it enters history.
		if d.Proof == "" {
			return temporalerr.To(errs.E(errs.Forbidden, "a decision needs the proof of the approval page").WithCode(errs.CodeUnvouchedRequest))
		}
		return nil
	case DeviceLinkStateExpired:
		return temporalerr.To(agents.ErrLinkExpired())
	case DeviceLinkStateDeciding:
		return temporalerr.To(errs.E(errs.Conflict, "this code is being decided right now").WithCode(errs.CodeCodeAlreadyUsed))
	default:
		return temporalerr.To(agents.ErrLinkUsed())
	}
}

func (w *deviceLinkWorkflow) decision(d DeviceLinkDecision) activities.DeviceDecision {
	return activities.DeviceDecision{LinkID: w.in.LinkID, UserID: d.UserID, ClientAddr: d.ClientAddr, Budget: d.Budget, Proof: d.Proof}
}

// decide runs one decision activity, the link "deciding" meanwhile and
// pending again when it fails.
func (w *deviceLinkWorkflow) decide(ctx workflow.Context, activity any, d DeviceLinkDecision, out any) error {
	w.state = DeviceLinkStateDeciding
	if err := workflow.ExecuteActivity(w.decCtx, activity, w.decision(d)).Get(ctx, out); err != nil {
		w.state = DeviceLinkStatePending
		return err
	}
	return nil
}

func (w *deviceLinkWorkflow) approve(ctx workflow.Context, d DeviceLinkDecision) (string, error) {
	var agentID string
	if err := w.decide(ctx, deviceLinkActivities.ApproveDeviceLink, d, &agentID); err != nil {
		return "", err
	}
	w.state = DeviceLinkStateApproved
	w.res = DeviceLinkResult{State: w.state, UserID: d.UserID, AgentID: agentID}
	if err := workflow.UpsertTypedSearchAttributes(ctx, SAUserID.ValueSet(d.UserID), SAAgentID.ValueSet(agentID)); err != nil {
		workflow.GetLogger(ctx).Warn("cannot upsert search attributes", "error", err)
	}
	return agentID, nil
}

func (w *deviceLinkWorkflow) deny(ctx workflow.Context, d DeviceLinkDecision) error {
	if err := w.decide(ctx, deviceLinkActivities.DenyDeviceLink, d, nil); err != nil {
		return err
	}
	w.state = DeviceLinkStateDenied
	w.res = DeviceLinkResult{State: w.state, UserID: d.UserID}
	if err := workflow.UpsertTypedSearchAttributes(ctx, SAUserID.ValueSet(d.UserID)); err != nil {
		workflow.GetLogger(ctx).Warn("cannot upsert search attributes", "error", err)
	}
	return nil
}

func (w *deviceLinkWorkflow) decided() bool {
	return w.state == DeviceLinkStateApproved || w.state == DeviceLinkStateDenied
}

// awaitDecision waits for a decision until the link's expiry; a decision
// in flight when the timer fired gets to finish: the user acted in time.
func (w *deviceLinkWorkflow) awaitDecision(ctx workflow.Context) error {
	if wait := w.in.ExpiresAt.Sub(workflow.Now(ctx)); wait > 0 {
		if _, err := workflow.AwaitWithTimeout(ctx, wait, w.decided); err != nil {
			return err
		}
	}
	if w.decided() {
		return nil
	}
	return workflow.Await(ctx, func() bool { return w.state != DeviceLinkStateDeciding })
}

// expire records that nobody decided in time; from here on the validator
// rejects every decision.
func (w *deviceLinkWorkflow) expire(ctx workflow.Context) error {
	w.state = DeviceLinkStateExpired
	w.res = DeviceLinkResult{State: w.state}
	expCtx := workflow.WithActivityOptions(ctx, expireActivityOptions)
	return workflow.ExecuteActivity(expCtx, deviceLinkActivities.ExpireDeviceLink, w.in.LinkID).Get(ctx, nil)
}

// awaitKeyOrRevoke waits, after an approval, for the key-issued signal
// until the link's expiry; without it, the link is expired and its agent
// revoked, and res says so.
func awaitKeyOrRevoke(ctx workflow.Context, in DeviceLinkInput, res *DeviceLinkResult) error {
	issued := false
	ch := workflow.GetSignalChannel(ctx, DeviceLinkSignalKeyIssued)
	workflow.Go(ctx, func(ctx workflow.Context) {
		ch.Receive(ctx, nil)
		issued = true
	})
	if wait := in.ExpiresAt.Sub(workflow.Now(ctx)); wait > 0 {
		if _, err := workflow.AwaitWithTimeout(ctx, wait, func() bool { return issued }); err != nil {
			return err
		}
	}
	if issued {
		return nil
	}
	var expired bool
	expCtx := workflow.WithActivityOptions(ctx, expireActivityOptions)
	if err := workflow.ExecuteActivity(expCtx, deviceLinkActivities.ExpireUnissuedDeviceLink, in.LinkID).Get(ctx, &expired); err != nil {
		return err
	}
	if expired {
		res.State = DeviceLinkStateExpired
	}
	return nil
}

// DeviceLinkClient drives device-link workflows over a Temporal client; it
// implements DeviceLinkRuns for DeviceLinks. Its callers are the
// authenticated approval paths (the /link page after the password check,
// the admin command), so it attaches the proof of each decision, made with
// Intents.
type DeviceLinkClient struct {
	Client  client.Client
	Intents *intent.Keys
}

// Start starts the workflow of link linkID.
func (d DeviceLinkClient) Start(ctx context.Context, linkID string, expiresAt time.Time) error {
	opts, err := StartOptions(StartSpec{Kind: KindDeviceLink, BusinessID: linkID, Summary: "device link " + linkID})
	if err != nil {
		return err
	}
	_, err = d.Client.ExecuteWorkflow(ctx, opts, DeviceLink, DeviceLinkInput{LinkID: linkID, ExpiresAt: expiresAt.UTC()})
	return temporalerr.From(err)
}

// Approve sends the approve update, giving the agent budget, and waits
// for its result, the new agent's ID.
func (d DeviceLinkClient) Approve(ctx context.Context, linkID, userID, clientAddr string, budget agents.ApprovalBudget) (string, error) {
	if d.Intents == nil {
		return "", errs.E(errs.Internal, "the device-link client has no intent keys")
	}
	field := budget.Field()
	var agentID string
	err := d.update(ctx, linkID, DeviceLinkUpdateApprove, DeviceLinkDecision{UserID: userID, ClientAddr: clientAddr, Budget: field,
		Proof: agents.ApprovalProof(d.Intents, linkID, userID, clientAddr, field)}, &agentID)
	return agentID, err
}

// Deny sends the deny update and waits for it to complete.
func (d DeviceLinkClient) Deny(ctx context.Context, linkID, userID, clientAddr string) error {
	if d.Intents == nil {
		return errs.E(errs.Internal, "the device-link client has no intent keys")
	}
	return d.update(ctx, linkID, DeviceLinkUpdateDeny, DeviceLinkDecision{UserID: userID, ClientAddr: clientAddr,
		Proof: agents.DecisionProof(d.Intents, intent.DeviceDeny, linkID, userID, clientAddr)}, nil)
}

// KeyIssued signals the workflow of link linkID that its agent collected
// the key.
func (d DeviceLinkClient) KeyIssued(ctx context.Context, linkID string) error {
	err := d.Client.SignalWorkflow(ctx, WorkflowID(KindDeviceLink, linkID), "", DeviceLinkSignalKeyIssued, nil)
	return temporalerr.From(err)
}

func (d DeviceLinkClient) update(ctx context.Context, linkID, name string, arg DeviceLinkDecision, out any) error {
	h, err := d.Client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   WorkflowID(KindDeviceLink, linkID),
		UpdateName:   name,
		Args:         []any{arg},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return temporalerr.From(err)
	}
	return temporalerr.From(h.Get(ctx, out))
}
