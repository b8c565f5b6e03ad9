package activities_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/errs/temporalerr"
	"github.com/agent-trading/ats/models/intent"
	"github.com/agent-trading/ats/models/intent/intenttest"
	"github.com/agent-trading/ats/models/store/storetest"
)

// The device-link activities run against a real SQLite store through the
// real Recorder: idempotent on retry, and a refused transition comes back
// as a non-retryable Conflict that temporalerr.From restores.
func TestDeviceLinkActivities(t *testing.T) {
	s := storetest.NewSQLite(t)
	ctx := context.Background()
	u := &models.User{Email: "act@example.com", PasswordHash: "x"}
	if err := s.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	// other is a real second user: the approval locks its user's row
	// first (a live approval revokes paper namesakes under that lock), so
	// an unknown user id would be refused as not found before the link's
	// owner is compared.
	other := &models.User{Email: "act-other@example.com", PasswordHash: "x"}
	if err := s.CreateUser(ctx, other); err != nil {
		t.Fatal(err)
	}
	newLink := func(code string) *models.DeviceLink {
		l := &models.DeviceLink{DeviceCodeHash: "hash-" + code, UserCode: code, AgentName: "bot " + code, ExpiresAt: time.Now().Add(time.Hour), IntervalSeconds: 5}
		if err := s.CreateDeviceLink(ctx, l); err != nil {
			t.Fatal(err)
		}
		return l
	}
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	keys := intenttest.Keys(t)
	env.RegisterActivity(&activities.DeviceLinks{Recorder: &agents.Recorder{Store: s, Intents: keys}})
	var dl *activities.DeviceLinks
	// decision is a decision as the approval page makes it, with its proof.
	decision := func(kind, linkID, userID string) activities.DeviceDecision {
		return activities.DeviceDecision{LinkID: linkID, UserID: userID, ClientAddr: "10.1.1.1",
			Proof: agents.DecisionProof(keys, kind, linkID, userID, "10.1.1.1")}
	}

	approved := newLink("BCDF-BCDF")
	dec := decision(intent.DeviceApprove, approved.ID, u.ID)
	var ids [2]string
	for i := range ids {
		v, err := env.ExecuteActivity(dl.ApproveDeviceLink, dec)
		if err != nil {
			t.Fatalf("approve #%d: %v", i, err)
		}
		if err := v.Get(&ids[i]); err != nil {
			t.Fatal(err)
		}
	}
	if ids[0] == "" || ids[0] != ids[1] {
		t.Fatalf("a retried approval created another agent: %v", ids)
	}

	tests := []struct {
		name string
		run  func() error
		kind errs.Kind
	}{
		{"deny an approved link", func() error {
			_, err := env.ExecuteActivity(dl.DenyDeviceLink, decision(intent.DeviceDeny, approved.ID, u.ID))
			return err
		}, errs.Conflict},
		{"approve for another user", func() error {
			_, err := env.ExecuteActivity(dl.ApproveDeviceLink, decision(intent.DeviceApprove, approved.ID, other.ID))
			return err
		}, errs.Conflict},
		{"unknown link", func() error {
			_, err := env.ExecuteActivity(dl.ApproveDeviceLink, decision(intent.DeviceApprove, "dl_missing", u.ID))
			return err
		}, errs.NotFound},
		{"expire a decided link is a no-op", func() error { _, err := env.ExecuteActivity(dl.ExpireDeviceLink, approved.ID); return err }, 0},
	}
	for _, tc := range tests {
		err := tc.run()
		if tc.kind == 0 {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		var appErr *temporal.ApplicationError
		if !errors.As(err, &appErr) || !appErr.NonRetryable() || errs.KindOf(temporalerr.From(err)) != tc.kind {
			t.Errorf("%s: %v, want non-retryable %v", tc.name, err, tc.kind)
		}
	}

	denied := newLink("CDFG-CDFG")
	for range 2 {
		if _, err := env.ExecuteActivity(dl.DenyDeviceLink, decision(intent.DeviceDeny, denied.ID, u.ID)); err != nil {
			t.Fatalf("deny (idempotent): %v", err)
		}
	}
	expired := newLink("DFGH-DFGH")
	s.SetClock(func() time.Time { return time.Now().Add(2 * time.Hour) }) // past every link's expiry
	if _, err := env.ExecuteActivity(dl.ExpireDeviceLink, expired.ID); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{approved.ID: models.DeviceLinkApproved, denied.ID: models.DeviceLinkDenied, expired.ID: models.DeviceLinkExpired} {
		if l, err := s.DeviceLinkByID(ctx, id); err != nil || l.Status != want {
			t.Errorf("link %s: %+v %v, want %s", id, l, err, want)
		}
	}
}
