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
	"github.com/agent-trading/ats/models/store/storetest"
)

// The device-link activities run against a real SQLite store through the
// real Recorder: idempotent on retry, and a refused transition comes back
// as a non-retryable Conflict that FromTemporal restores.
func TestDeviceLinkActivities(t *testing.T) {
	s := storetest.NewSQLite(t)
	ctx := context.Background()
	u := &models.User{Email: "act@example.com", PasswordHash: "x"}
	if err := s.CreateUser(ctx, u); err != nil {
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
	env.RegisterActivity(&activities.DeviceLinks{Recorder: &agents.Recorder{Store: s}})
	var dl *activities.DeviceLinks

	approved := newLink("BCDF-BCDF")
	dec := activities.DeviceDecision{LinkID: approved.ID, UserID: u.ID, ClientAddr: "10.1.1.1"}
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
		{"deny an approved link", func() error { _, err := env.ExecuteActivity(dl.DenyDeviceLink, dec); return err }, errs.Conflict},
		{"approve for another user", func() error {
			_, err := env.ExecuteActivity(dl.ApproveDeviceLink, activities.DeviceDecision{LinkID: approved.ID, UserID: "usr_other"})
			return err
		}, errs.Conflict},
		{"unknown link", func() error {
			_, err := env.ExecuteActivity(dl.ApproveDeviceLink, activities.DeviceDecision{LinkID: "dl_missing", UserID: u.ID})
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
		if !errors.As(err, &appErr) || !appErr.NonRetryable() || errs.KindOf(activities.FromTemporal(err)) != tc.kind {
			t.Errorf("%s: %v, want non-retryable %v", tc.name, err, tc.kind)
		}
	}

	denied := newLink("CDFG-CDFG")
	for range 2 {
		if _, err := env.ExecuteActivity(dl.DenyDeviceLink, activities.DeviceDecision{LinkID: denied.ID, UserID: u.ID}); err != nil {
			t.Fatalf("deny (idempotent): %v", err)
		}
	}
	expired := newLink("DFGH-DFGH")
	if _, err := env.ExecuteActivity(dl.ExpireDeviceLink, expired.ID); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{approved.ID: models.DeviceLinkApproved, denied.ID: models.DeviceLinkDenied, expired.ID: models.DeviceLinkExpired} {
		if l, err := s.DeviceLinkByID(ctx, id); err != nil || l.Status != want {
			t.Errorf("link %s: %+v %v, want %s", id, l, err, want)
		}
	}
}
