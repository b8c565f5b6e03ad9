package workflows_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/errs/temporalerr"
	"github.com/agent-trading/ats/models/intent"
	"github.com/agent-trading/ats/models/intent/intenttest"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/worker/replaytest"
	"github.com/agent-trading/ats/workflows"
)

type linkFixture struct {
	keys   *intent.Keys // the approval path's
	env    *testsuite.TestWorkflowEnvironment
	store  *store.Store
	svc    *workflows.DeviceLinks
	linker *envLinker
	userID string
	link   *models.DeviceLink
	// deviceCode is the agent's secret for polling the token endpoint.
	deviceCode string
}

// envLinker is the device links' Runs inside the test environment. The
// tests send the approve and deny updates themselves (an update's result
// arrives in a later callback, so a synchronous approval cannot run inside
// the environment); the key-issued notice of a successful poll is sent to
// the workflow as the API sends it.
type envLinker struct {
	env    *testsuite.TestWorkflowEnvironment
	issued int
}

func (*envLinker) Start(context.Context, string, time.Time) error { return nil }

func (*envLinker) Approve(context.Context, string, string, string, agents.ApprovalBudget) (string, error) {
	return "", errs.E(errs.Internal, "workflow tests send the approve update with linkFixture.update")
}

func (*envLinker) Deny(context.Context, string, string, string) error {
	return errs.E(errs.Internal, "workflow tests send the deny update with linkFixture.update")
}

func (l *envLinker) KeyIssued(context.Context, string) error {
	l.issued++
	l.env.SignalWorkflow(workflows.DeviceLinkSignalKeyIssued, nil)
	return nil
}

// newLinkFixture runs the workflow's activities against a real SQLite
// store through the real Recorder, and requests the link through the real
// workflows.DeviceLinks and agents.Service on the environment's clock, so the token poll answers
// what the API would answer at each instant of the workflow.
func newLinkFixture(t *testing.T) *linkFixture {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	env.SetStartTime(start)
	s := storetest.NewSQLite(t)
	s.SetClock(env.Now)
	if err := activities.Register(env, activities.Deps{Housekeeper: s, DeviceLinks: &agents.Recorder{Store: s, Intents: intenttest.Keys(t)}}); err != nil {
		t.Fatal(err)
	}
	workflows.Register(env)
	ctx := context.Background()
	u := &models.User{Email: "wf@example.com", PasswordHash: "x"}
	if err := s.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	lk := &envLinker{env: env}
	svc := &workflows.DeviceLinks{Agents: &agents.Service{Store: s, BaseURL: "https://ats.example", Now: env.Now}, Runs: lk}
	auth, err := svc.RequestDevice(ctx, "bot", "10.0.0.8")
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.DeviceLinkByUserCode(ctx, auth.UserCode)
	if err != nil {
		t.Fatal(err)
	}
	if !l.ExpiresAt.Equal(start.Add(agents.DefaultDeviceCodeTTL)) || l.IntervalSeconds != 5 {
		t.Fatalf("link %+v", l)
	}
	return &linkFixture{keys: intenttest.Keys(t), env: env, store: s, svc: svc, linker: lk, userID: u.ID, link: l, deviceCode: auth.DeviceCode}
}

// pollOutcome is what one token poll answered.
type pollOutcome struct {
	done bool
	key  agents.IssuedKey
	err  error
}

// pollAt polls the token endpoint's service call at delay into the
// workflow.
func (f *linkFixture) pollAt(delay time.Duration) *pollOutcome {
	out := &pollOutcome{}
	f.env.RegisterDelayedCallback(func() {
		out.key, out.err = f.svc.PollDeviceToken(context.Background(), f.deviceCode, "10.0.0.8")
		out.done = true
	}, delay)
	return out
}

// poll polls now (after the workflow ended).
func (f *linkFixture) poll() *pollOutcome {
	k, err := f.svc.PollDeviceToken(context.Background(), f.deviceCode, "10.0.0.8")
	return &pollOutcome{done: true, key: k, err: err}
}

type updateOutcome struct {
	rejected  error
	completed bool
	result    any
	err       error
}

// decision is the argument of update name by userID as the approval page
// sends it, with its proof.
func (f *linkFixture) decision(name, userID string) workflows.DeviceLinkDecision {
	kind := map[string]string{workflows.DeviceLinkUpdateApprove: intent.DeviceApprove, workflows.DeviceLinkUpdateDeny: intent.DeviceDeny}[name]
	return workflows.DeviceLinkDecision{UserID: userID, ClientAddr: "10.0.0.9",
		Proof: agents.DecisionProof(f.keys, kind, f.link.ID, userID, "10.0.0.9")}
}

// update sends name after delay and records what happened to it.
func (f *linkFixture) update(name string, delay time.Duration, userID string) *updateOutcome {
	out := &updateOutcome{}
	f.env.RegisterDelayedCallback(func() {
		f.env.UpdateWorkflow(name, "", &testsuite.TestUpdateCallback{
			OnAccept: func() {},
			OnReject: func(err error) { out.rejected = err },
			OnComplete: func(r any, err error) {
				out.completed, out.result, out.err = true, r, err
			},
		}, f.decision(name, userID))
	}, delay)
	return out
}

func (f *linkFixture) run(t *testing.T) workflows.DeviceLinkResult {
	t.Helper()
	f.env.ExecuteWorkflow(workflows.DeviceLink, workflows.DeviceLinkInput{LinkID: f.link.ID, ExpiresAt: f.link.ExpiresAt})
	if !f.env.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	if err := f.env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow failed: %v", err)
	}
	var res workflows.DeviceLinkResult
	if err := f.env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	return res
}

func (f *linkFixture) status(t *testing.T) *models.DeviceLink {
	t.Helper()
	l, err := f.store.DeviceLinkByID(context.Background(), f.link.ID)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func wantRejected(t *testing.T, o *updateOutcome, code string) {
	t.Helper()
	if o.rejected == nil {
		t.Fatalf("update not rejected: %+v", o)
	}
	if err := temporalerr.From(o.rejected); errs.KindOf(err) != errs.Conflict || errs.CodeOf(err) != code {
		t.Fatalf("rejection %v (kind %v code %q), want Conflict %q", err, errs.KindOf(err), errs.CodeOf(err), code)
	}
}

func TestDeviceLinkWorkflow(t *testing.T) {
	t.Run("approve", func(t *testing.T) {
		f := newLinkFixture(t)
		ok := f.update(workflows.DeviceLinkUpdateApprove, time.Minute, f.userID)
		f.pollAt(2 * time.Minute)
		res := f.run(t)
		if !ok.completed || ok.err != nil {
			t.Fatalf("approve: %+v", ok)
		}
		l := f.status(t)
		if res.State != workflows.DeviceLinkStateApproved || res.AgentID == "" || res.UserID != f.userID ||
			l.Status != models.DeviceLinkIssued || *l.AgentID != res.AgentID || ok.result != res.AgentID {
			t.Fatalf("result %+v, link %+v, update %+v", res, l, ok)
		}
		if a, err := f.store.AgentByID(context.Background(), res.AgentID); err != nil || a.UserID != f.userID || a.Name != "bot" {
			t.Fatalf("agent %+v %v", a, err)
		}
	})
	t.Run("deny", func(t *testing.T) {
		f := newLinkFixture(t)
		no := f.update(workflows.DeviceLinkUpdateDeny, time.Minute, f.userID)
		res := f.run(t)
		if !no.completed || no.err != nil || res.State != workflows.DeviceLinkStateDenied || f.status(t).Status != models.DeviceLinkDenied {
			t.Fatalf("deny: %+v, result %+v", no, res)
		}
	})
	t.Run("expiry", func(t *testing.T) {
		f := newLinkFixture(t)
		res := f.run(t)
		if res.State != workflows.DeviceLinkStateExpired || f.status(t).Status != models.DeviceLinkExpired {
			t.Fatalf("result %+v, link %s", res, f.status(t).Status)
		}
	})
	t.Run("double approve", func(t *testing.T) {
		f := newLinkFixture(t)
		first := f.update(workflows.DeviceLinkUpdateApprove, time.Minute, f.userID)
		second := f.update(workflows.DeviceLinkUpdateApprove, time.Minute, f.userID)
		third := f.update(workflows.DeviceLinkUpdateDeny, time.Minute, f.userID)
		f.pollAt(2 * time.Minute)
		res := f.run(t)
		if !first.completed || first.err != nil || res.State != workflows.DeviceLinkStateApproved {
			t.Fatalf("first: %+v result %+v", first, res)
		}
		wantRejected(t, second, "code_already_used")
		wantRejected(t, third, "code_already_used")
		agentsOf, err := f.store.ListAgentsByUser(context.Background(), f.userID)
		if err != nil || len(agentsOf) != 1 {
			t.Fatalf("%d agents created, want 1 (%v)", len(agentsOf), err)
		}
	})
	// A decision without its proof never enters history; one with a forged
	// proof is refused by the activity and leaves the link pending for the
	// real approval.
	t.Run("forged approvals", func(t *testing.T) {
		f := newLinkFixture(t)
		send := func(delay time.Duration, d workflows.DeviceLinkDecision) *updateOutcome {
			out := &updateOutcome{}
			f.env.RegisterDelayedCallback(func() {
				f.env.UpdateWorkflow(workflows.DeviceLinkUpdateApprove, "", &testsuite.TestUpdateCallback{
					OnAccept: func() {}, OnReject: func(err error) { out.rejected = err },
					OnComplete: func(r any, err error) { out.completed, out.result, out.err = true, r, err },
				}, d)
			}, delay)
			return out
		}
		noProof := send(time.Minute, workflows.DeviceLinkDecision{UserID: f.userID})
		foreign := send(2*time.Minute, workflows.DeviceLinkDecision{UserID: f.userID,
			Proof: agents.DecisionProof(intenttest.Keys(t, 0x66), intent.DeviceApprove, f.link.ID, f.userID, "")})
		pending := f.pollAt(3 * time.Minute)
		approved := f.update(workflows.DeviceLinkUpdateApprove, 4*time.Minute, f.userID)
		f.pollAt(5 * time.Minute)
		res := f.run(t)
		if errs.KindOf(temporalerr.From(noProof.rejected)) != errs.Forbidden {
			t.Fatalf("without a proof: %+v", noProof)
		}
		if !foreign.completed || errs.KindOf(temporalerr.From(foreign.err)) != errs.Forbidden {
			t.Fatalf("with a foreign proof: %+v", foreign)
		}
		wantPoll(t, pending, errs.CodeAuthorizationPending, "after the forgeries")
		if !approved.completed || approved.err != nil || res.State != workflows.DeviceLinkStateApproved || res.UserID != f.userID {
			t.Fatalf("the real approval: %+v, result %+v", approved, res)
		}
		if list, _ := f.store.ListAgentsByUser(context.Background(), f.userID); len(list) != 1 {
			t.Fatalf("%d agents, want the one really approved", len(list))
		}
	})
	t.Run("approve after expiry", func(t *testing.T) {
		f := newLinkFixture(t)
		// The workflow completes at expiry; an update sent in the same
		// instant, after the timer, must be refused as expired.
		late := f.update(workflows.DeviceLinkUpdateApprove, 15*time.Minute, f.userID)
		res := f.run(t)
		if res.State != workflows.DeviceLinkStateExpired {
			t.Fatalf("result %+v", res)
		}
		wantRejected(t, late, "expired_token")
		if f.status(t).Status != models.DeviceLinkExpired {
			t.Fatalf("link %s", f.status(t).Status)
		}
	})
	t.Run("decision without a user", func(t *testing.T) {
		f := newLinkFixture(t)
		bad := f.update(workflows.DeviceLinkUpdateApprove, time.Minute, "")
		res := f.run(t)
		if bad.rejected == nil || errs.KindOf(temporalerr.From(bad.rejected)) != errs.Invalid || res.State != workflows.DeviceLinkStateExpired {
			t.Fatalf("update %+v result %+v", bad, res)
		}
	})
}

// TestDeviceLinkTokenAnswers drives the workflow through each outcome with
// time skipping and checks, at each instant, what the token poll (the
// service call behind GET /api/auth/device/token) answers. Polls at an
// offset run while the workflow is live; the "after" polls run once it has
// completed, at the environment's final time.
func TestDeviceLinkTokenAnswers(t *testing.T) {
	type step struct {
		at   time.Duration
		poll string // RFC 8628 code the poll must answer; "key" for the key
	}
	ttl := agents.DefaultDeviceCodeTTL
	for _, tc := range []struct {
		name string
		// decision sent at decideAt: "" none, or an update name.
		decision string
		decideAt time.Duration
		polls    []step
		after    []string
		state    string
		// agentStatus of the agent created at approval ("" when none).
		agentStatus string
		linkStatus  string
		// endBefore: the workflow must complete before the expiry.
		endBefore bool
	}{
		{
			name:  "pending until the expiry timer fires, then expired_token",
			polls: []step{{time.Minute, errs.CodeAuthorizationPending}, {ttl - time.Second, errs.CodeAuthorizationPending}},
			after: []string{errs.CodeExpiredToken}, state: workflows.DeviceLinkStateExpired, linkStatus: models.DeviceLinkExpired,
		},
		{
			name: "slow_down when polled faster than the interval",
			polls: []step{
				{time.Minute, errs.CodeAuthorizationPending},
				{time.Minute + time.Second, errs.CodeSlowDown},
				{time.Minute + 4*time.Second, errs.CodeSlowDown},
				{time.Minute + 10*time.Second, errs.CodeAuthorizationPending},
			},
			after: []string{errs.CodeExpiredToken}, state: workflows.DeviceLinkStateExpired, linkStatus: models.DeviceLinkExpired,
		},
		{
			name:  "expired_token after the expiry timer fired",
			after: []string{errs.CodeExpiredToken, errs.CodeExpiredToken}, state: workflows.DeviceLinkStateExpired, linkStatus: models.DeviceLinkExpired,
		},
		{
			name:     "access_denied after a denial",
			decision: workflows.DeviceLinkUpdateDeny, decideAt: 2 * time.Minute,
			polls: []step{{time.Minute, errs.CodeAuthorizationPending}},
			after: []string{errs.CodeAccessDenied, errs.CodeAccessDenied}, state: workflows.DeviceLinkStateDenied,
			linkStatus: models.DeviceLinkDenied, endBefore: true,
		},
		{
			name:     "the key exactly once, then already_issued",
			decision: workflows.DeviceLinkUpdateApprove, decideAt: 2 * time.Minute,
			polls: []step{{time.Minute, errs.CodeAuthorizationPending}, {3 * time.Minute, "key"}},
			after: []string{errs.CodeAlreadyIssued, errs.CodeAlreadyIssued}, state: workflows.DeviceLinkStateApproved,
			agentStatus: models.AgentActive, linkStatus: models.DeviceLinkIssued, endBefore: true,
		},
		{
			name:     "approved but never collected: expired_token and the agent revoked",
			decision: workflows.DeviceLinkUpdateApprove, decideAt: 2 * time.Minute,
			polls: []step{{time.Minute, errs.CodeAuthorizationPending}},
			after: []string{errs.CodeExpiredToken}, state: workflows.DeviceLinkStateExpired,
			agentStatus: models.AgentRevoked, linkStatus: models.DeviceLinkExpired,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newLinkFixture(t)
			var decided *updateOutcome
			if tc.decision != "" {
				decided = f.update(tc.decision, tc.decideAt, f.userID)
			}
			got := make([]*pollOutcome, len(tc.polls))
			for i, p := range tc.polls {
				got[i] = f.pollAt(p.at)
			}
			res := f.run(t)
			if decided != nil && (!decided.completed || decided.err != nil) {
				t.Fatalf("decision: %+v", decided)
			}
			var key string
			for i, p := range tc.polls {
				o := got[i]
				switch {
				case !o.done:
					t.Fatalf("poll at %v did not run", p.at)
				case p.poll == "key":
					if o.err != nil || !secret.ValidAPIKeyFormat(o.key.APIKey) || o.key.AgentID != res.AgentID {
						t.Fatalf("poll at %v: %+v %v, want the key", p.at, o.key, o.err)
					}
					key = o.key.APIKey
				default:
					wantPoll(t, o, p.poll, p.at.String())
				}
			}
			for i, code := range tc.after {
				o := f.poll()
				wantPoll(t, o, code, fmt.Sprintf("after completion #%d", i+1))
				if key != "" && strings.Contains(fmt.Sprint(o.err), key) {
					t.Fatal("a later poll repeated the key")
				}
			}
			expiry := f.link.ExpiresAt
			if tc.endBefore != f.env.Now().Before(expiry) {
				t.Fatalf("workflow ended at %v, expiry %v, want before: %v", f.env.Now(), expiry, tc.endBefore)
			}
			if res.State != tc.state {
				t.Fatalf("result %+v, want state %s", res, tc.state)
			}
			if l := f.status(t); l.Status != tc.linkStatus {
				t.Fatalf("link %s, want %s", l.Status, tc.linkStatus)
			}
			if tc.agentStatus == "" {
				if res.AgentID != "" {
					t.Fatalf("result %+v names an agent", res)
				}
				return
			}
			a, err := f.store.AgentByID(context.Background(), res.AgentID)
			if err != nil || a.Status != tc.agentStatus {
				t.Fatalf("agent %+v %v, want %s", a, err, tc.agentStatus)
			}
			if want := map[bool]int{true: 1, false: 0}[key != ""]; f.linker.issued != want {
				t.Fatalf("%d key-issued notices, want %d", f.linker.issued, want)
			}
			page, err := (&audit.Service{Store: f.store}).List(context.Background(), audit.Filter{AgentID: a.ID, Action: audit.ActionAgentRevoke})
			if err != nil {
				t.Fatal(err)
			}
			if wantRevoked := tc.agentStatus == models.AgentRevoked; (len(page.Entries) == 1) != wantRevoked ||
				wantRevoked && !strings.Contains(string(page.Entries[0].Detail), "key_not_collected") {
				t.Fatalf("agent.revoke audit entries %+v", page.Entries)
			}
		})
	}
}

func wantPoll(t *testing.T, o *pollOutcome, code, when string) {
	t.Helper()
	if o.err == nil || errs.KindOf(o.err) != errs.Invalid || errs.CodeOf(o.err) != code || o.key.APIKey != "" {
		t.Fatalf("poll %s: %+v %v, want %s", when, o.key, o.err, code)
	}
}

// deviceLinkHistory was recorded on the Temporal dev server (CLI v1.5.1):
// the end-to-end link (approve update, approval activity, completion) of
// api/device's integration test:
//
//	TEMPORAL_CLI=/root/go/bin/temporal ATS_RECORD_HISTORY=$PWD/workflows/testdata/devicelink.json \
//	  go test -run TestDeviceFlowOnDevServer ./api/device/
//
// Its payloads are encrypted with replaytest.HistoryCodecKey.
// devicelink_proof.json was recorded the same way after decisions began to
// carry their proof and payloads to be bound to their workflow.
const deviceLinkHistory = "testdata/devicelink.json"

func TestDeviceLinkReplays(t *testing.T) {
	for _, h := range []string{deviceLinkHistory, "testdata/devicelink_proof.json"} {
		t.Run(h, func(t *testing.T) {
			replaytest.ReplayFileWithOptions(t, h, replayOptions(t), workflows.All()...)
		})
	}
}

// The replay must be able to fail: a version that skips the expiry timer
// and waits for the decision without a deadline issues different commands.
func TestDeviceLinkReplayDetectsChanges(t *testing.T) {
	changed := func(ctx workflow.Context, in workflows.DeviceLinkInput) (workflows.DeviceLinkResult, error) {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
		var dl *activities.DeviceLinks
		err := workflow.ExecuteActivity(ctx, dl.ExpireDeviceLink, in.LinkID).Get(ctx, nil)
		return workflows.DeviceLinkResult{State: workflows.DeviceLinkStateExpired}, err
	}
	err := replaytest.Replay(deviceLinkHistory, replayOptions(t), replaytest.Named{Name: "DeviceLink", Func: changed})
	if err == nil {
		t.Fatal("replay of a changed workflow succeeded")
	}
	t.Log(err)
}
