package workflows_test

import (
	"context"
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/worker/replaytest"
	"github.com/agent-trading/ats/workflows"
)

type linkFixture struct {
	env    *testsuite.TestWorkflowEnvironment
	store  *store.Store
	userID string
	link   *models.DeviceLink
}

// newLinkFixture runs the workflow's activities against a real SQLite
// store through the real Recorder.
func newLinkFixture(t *testing.T) *linkFixture {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	env.SetStartTime(start)
	s := storetest.NewSQLite(t)
	if err := activities.Register(env, activities.Deps{Housekeeper: s, DeviceLinks: &agents.Recorder{Store: s}}); err != nil {
		t.Fatal(err)
	}
	workflows.Register(env)
	ctx := context.Background()
	u := &models.User{Email: "wf@example.com", PasswordHash: "x"}
	if err := s.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	l := &models.DeviceLink{DeviceCodeHash: "h", UserCode: "BCDF-GHJK", AgentName: "bot", ExpiresAt: start.Add(15 * time.Minute), IntervalSeconds: 5}
	if err := s.CreateDeviceLink(ctx, l); err != nil {
		t.Fatal(err)
	}
	return &linkFixture{env: env, store: s, userID: u.ID, link: l}
}

type updateOutcome struct {
	rejected  error
	completed bool
	result    any
	err       error
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
		}, workflows.DeviceLinkDecision{UserID: userID, ClientAddr: "10.0.0.9"})
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
	if err := activities.FromTemporal(o.rejected); errs.KindOf(err) != errs.Conflict || errs.CodeOf(err) != code {
		t.Fatalf("rejection %v (kind %v code %q), want Conflict %q", err, errs.KindOf(err), errs.CodeOf(err), code)
	}
}

func TestDeviceLinkWorkflow(t *testing.T) {
	t.Run("approve", func(t *testing.T) {
		f := newLinkFixture(t)
		ok := f.update(workflows.DeviceLinkUpdateApprove, time.Minute, f.userID)
		res := f.run(t)
		if !ok.completed || ok.err != nil {
			t.Fatalf("approve: %+v", ok)
		}
		l := f.status(t)
		if res.State != workflows.DeviceLinkStateApproved || res.AgentID == "" || res.UserID != f.userID ||
			l.Status != models.DeviceLinkApproved || *l.AgentID != res.AgentID || ok.result != res.AgentID {
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
		if bad.rejected == nil || errs.KindOf(activities.FromTemporal(bad.rejected)) != errs.Invalid || res.State != workflows.DeviceLinkStateExpired {
			t.Fatalf("update %+v result %+v", bad, res)
		}
	})
}

// deviceLinkHistory was recorded on the Temporal dev server (CLI v1.5.1):
// the end-to-end link (approve update, approval activity, completion) of
// api/device's integration test:
//
//	TEMPORAL_CLI=/root/go/bin/temporal ATS_RECORD_HISTORY=$PWD/workflows/testdata/devicelink.json \
//	  go test -run TestDeviceFlowOnDevServer ./api/device/
//
// Its payloads are encrypted with replaytest.HistoryCodecKey.
const deviceLinkHistory = "testdata/devicelink.json"

func TestDeviceLinkReplays(t *testing.T) {
	replaytest.ReplayFileWithOptions(t, deviceLinkHistory, replayOptions(t), workflows.All()...)
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
