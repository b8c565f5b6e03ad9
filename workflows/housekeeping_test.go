package workflows_test

import (
	"errors"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/activities/activitiestest"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/errs/temporalerr"
	"github.com/agent-trading/ats/workflows"
)

var start = time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC)

func newEnv(t *testing.T, store activities.Housekeeper) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetStartTime(start)
	workflows.Register(env)
	if err := activities.Register(env, activities.Deps{Housekeeper: store}); err != nil {
		t.Fatal(err)
	}
	return env
}

func TestHousekeepingPurgesAndExpires(t *testing.T) {
	store := activitiestest.NewMemHousekeeper()
	store.PutIdempotency("expired-1", start.Add(-time.Hour))
	store.PutIdempotency("expired-2", start)
	store.PutIdempotency("live", start.Add(time.Minute))
	store.PutDeviceLink("dl_old", start.Add(-time.Second))
	store.PutDeviceLink("dl_new", start.Add(15*time.Minute))
	store.PutEvent("ev_old", start.Add(-time.Hour))
	store.PutEvent("ev_new", start.Add(time.Hour))

	env := newEnv(t, store)
	env.ExecuteWorkflow(workflows.Housekeeping)
	if !env.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var res workflows.HousekeepingResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	want := workflows.HousekeepingResult{Now: start, PurgedIdempotency: 2, ExpiredDeviceLinks: 1, PurgedEvents: 1}
	if !res.Now.Equal(want.Now) || res.PurgedIdempotency != want.PurgedIdempotency || res.ExpiredDeviceLinks != want.ExpiredDeviceLinks ||
		res.PurgedEvents != want.PurgedEvents {
		t.Fatalf("result = %+v, want %+v", res, want)
	}
	if store.HasIdempotency("expired-1") || store.HasIdempotency("expired-2") || !store.HasIdempotency("live") {
		t.Error("wrong idempotency records purged")
	}
	if !store.DeviceLinkExpired("dl_old") || store.DeviceLinkExpired("dl_new") {
		t.Error("wrong device links expired")
	}
	if store.HasEvent("ev_old") || !store.HasEvent("ev_new") {
		t.Error("wrong events purged")
	}
	for _, c := range store.Calls() {
		if !c.Now.Equal(start) {
			t.Errorf("%s called with now=%v, want workflow time %v", c.Op, c.Now, start)
		}
	}
}

// A transient store failure is retried with backoff (skipped by the test
// environment's clock) and "now" stays the workflow's start time on every
// attempt, so retries purge against the same cut-off.
func TestHousekeepingRetriesTransientErrors(t *testing.T) {
	store := activitiestest.NewMemHousekeeper()
	store.PutIdempotency("expired", start.Add(-time.Hour))
	store.Fail = func(op string, attempt int) error {
		if op == activitiestest.OpPurgeIdempotency && attempt < 3 {
			return errs.E(errs.Transient, "database unavailable")
		}
		return nil
	}
	env := newEnv(t, store)
	env.ExecuteWorkflow(workflows.Housekeeping)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var res workflows.HousekeepingResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if res.PurgedIdempotency != 1 {
		t.Fatalf("purged = %d, want 1", res.PurgedIdempotency)
	}
	purges := 0
	for _, c := range store.Calls() {
		if c.Op == activitiestest.OpPurgeIdempotency {
			purges++
			if !c.Now.Equal(start) {
				t.Errorf("attempt %d used now=%v, want %v", purges, c.Now, start)
			}
		}
	}
	if purges != 3 {
		t.Fatalf("purge attempts = %d, want 3", purges)
	}
}

// A rate-limited store asks for a specific delay; the workflow's clock must
// advance by at least that much before the retry.
func TestHousekeepingHonoursRetryAfter(t *testing.T) {
	store := activitiestest.NewMemHousekeeper()
	var retryAt time.Time
	env := (*testsuite.TestWorkflowEnvironment)(nil)
	store.Fail = func(op string, attempt int) error {
		if op != activitiestest.OpExpireDeviceLinks {
			return nil
		}
		if attempt == 1 {
			return &errs.Error{Kind: errs.RateLimited, Message: "slow down", RetryAfterSeconds: 20}
		}
		retryAt = env.Now()
		return nil
	}
	env = newEnv(t, store)
	env.ExecuteWorkflow(workflows.Housekeeping)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if d := retryAt.Sub(start); d < 20*time.Second {
		t.Fatalf("retried after %v, want >= 20s", d)
	}
}

func TestHousekeepingNonRetryableFailureStillRunsOtherActivity(t *testing.T) {
	store := activitiestest.NewMemHousekeeper()
	store.PutDeviceLink("dl_old", start.Add(-time.Minute))
	store.Fail = func(op string, attempt int) error {
		if op == activitiestest.OpPurgeIdempotency {
			return errs.E(errs.Internal, "schema mismatch").WithCode("schema")
		}
		return nil
	}
	env := newEnv(t, store)
	env.ExecuteWorkflow(workflows.Housekeeping)
	err := env.GetWorkflowError()
	if err == nil {
		t.Fatal("workflow succeeded, want the purge failure")
	}
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != errs.Internal.String() {
		t.Fatalf("error = %v, want an internal application error", err)
	}
	if got := temporalerr.From(err); errs.KindOf(got) != errs.Internal || errs.CodeOf(got) != "schema" {
		t.Fatalf("temporalerr.From = %v (kind %v code %q)", got, errs.KindOf(got), errs.CodeOf(got))
	}
	purges := 0
	for _, c := range store.Calls() {
		if c.Op == activitiestest.OpPurgeIdempotency {
			purges++
		}
	}
	if purges != 1 {
		t.Errorf("non-retryable purge attempted %d times, want 1", purges)
	}
	if !store.DeviceLinkExpired("dl_old") {
		t.Error("device links not expired after the purge failed")
	}
}

// A store that stays down is given up on within the activity's
// ScheduleToClose budget, well before the next scheduled run.
func TestHousekeepingGivesUpWithinInterval(t *testing.T) {
	store := activitiestest.NewMemHousekeeper()
	store.Fail = func(op string, attempt int) error { return errs.E(errs.Transient, "database unavailable") }
	env := newEnv(t, store)
	env.ExecuteWorkflow(workflows.Housekeeping)
	if env.GetWorkflowError() == nil {
		t.Fatal("workflow succeeded against a dead store")
	}
	if elapsed := env.Now().Sub(start); elapsed > workflows.HousekeepingInterval {
		t.Fatalf("workflow ran for %v, longer than the schedule interval", elapsed)
	}
	if got := temporalerr.From(env.GetWorkflowError()); errs.KindOf(got) != errs.Transient {
		t.Fatalf("kind = %v, want transient", errs.KindOf(got))
	}
}
