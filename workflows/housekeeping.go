package workflows

import (
	"context"
	"errors"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models/errs"
)

// HousekeepingScheduleID is the id of the Temporal Schedule that starts
// Housekeeping.
const HousekeepingScheduleID = "housekeeping"

// HousekeepingInterval is how often the schedule runs Housekeeping. Expired
// idempotency keys and device links are harmless for a while (reads check
// expiry themselves); housekeeping only bounds table growth.
const HousekeepingInterval = 10 * time.Minute

// HousekeepingResult summarises one housekeeping run.
type HousekeepingResult struct {
	// Now is the instant rows were compared against (workflow time).
	Now time.Time `json:"now"`
	// PurgedIdempotency is the number of idempotency records deleted plus
	// the number of orders whose idempotency key was freed.
	PurgedIdempotency int64 `json:"purged_idempotency"`
	// ExpiredDeviceLinks is the number of device links marked expired.
	ExpiredDeviceLinks int64 `json:"expired_device_links"`
	// PurgedEvents is the number of agent events deleted (runs from
	// version housekeepingEventsVersion on).
	PurgedEvents int64 `json:"purged_events,omitempty"`
}

// housekeepingEventsChange gates the agent-event purge: histories recorded
// before it replay without the activity.
const (
	housekeepingEventsChange  = "purge-events"
	housekeepingEventsVersion = workflow.Version(1)
)

// housekeepingActivityOptions bound each activity well inside one schedule
// interval: a run that cannot finish in 5 minutes is abandoned and the next
// scheduled run starts from scratch, which is safe because both activities
// are idempotent.
var housekeepingActivityOptions = workflow.ActivityOptions{
	StartToCloseTimeout:    time.Minute,
	ScheduleToCloseTimeout: 5 * time.Minute,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval:    time.Second,
		BackoffCoefficient: 2,
		MaximumInterval:    30 * time.Second,
	},
}

// Housekeeping deletes expired idempotency records, expires stale device
// links and deletes old agent events, all against the same workflow time.
// The activities are independent and run concurrently; a failure of one
// does not prevent the others, and the run fails with the first error in
// that order once all finished.
func Housekeeping(ctx workflow.Context) (HousekeepingResult, error) {
	now := workflow.Now(ctx).UTC()
	ctx = workflow.WithActivityOptions(ctx, housekeepingActivityOptions)
	var hk *activities.Housekeeping
	purge := workflow.ExecuteActivity(ctx, hk.PurgeExpiredIdempotency, now)
	expire := workflow.ExecuteActivity(ctx, hk.ExpireDeviceLinks, now)
	var events workflow.Future
	if workflow.GetVersion(ctx, housekeepingEventsChange, workflow.DefaultVersion, housekeepingEventsVersion) >= housekeepingEventsVersion {
		events = workflow.ExecuteActivity(ctx, hk.PurgeEvents, now)
	}

	res := HousekeepingResult{Now: now}
	purgeErr := purge.Get(ctx, &res.PurgedIdempotency)
	expireErr := expire.Get(ctx, &res.ExpiredDeviceLinks)
	var eventsErr error
	if events != nil {
		eventsErr = events.Get(ctx, &res.PurgedEvents)
	}
	workflow.GetLogger(ctx).Info("housekeeping done",
		"purged_idempotency", res.PurgedIdempotency, "expired_device_links", res.ExpiredDeviceLinks,
		"purged_events", res.PurgedEvents,
		"purge_error", purgeErr, "expire_error", expireErr, "events_error", eventsErr)
	// Return the first failure unchanged rather than joining them: a
	// joined error would lose the ApplicationError type (the errs kind)
	// that temporalerr.From and the schedule's failure view rely
	// on. The other failure is in the log and in the activity's history.
	if purgeErr != nil {
		return res, purgeErr
	}
	if expireErr != nil {
		return res, expireErr
	}
	return res, eventsErr
}

// EnsureHousekeepingSchedule creates the housekeeping schedule (every
// HousekeepingInterval, overlapping runs skipped) or, when it exists
// already, resets its spec and action to the ones in this binary so a
// changed interval or task queue rolls out with a deploy. It is safe to call
// from every process at start-up.
func EnsureHousekeepingSchedule(ctx context.Context, c client.Client) error {
	sc := c.ScheduleClient()
	spec := client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: HousekeepingInterval}}}
	action := &client.ScheduleWorkflowAction{
		ID:        WorkflowID(KindHousekeeping, "run"),
		Workflow:  Housekeeping,
		TaskQueue: TaskQueue,
		TypedSearchAttributes: temporal.NewSearchAttributes(
			SAWorkflowKind.ValueSet(string(KindHousekeeping))),
		Memo:                     map[string]any{MemoSummary: "periodic housekeeping"},
		WorkflowExecutionTimeout: HousekeepingInterval,
	}
	_, err := sc.Create(ctx, client.ScheduleOptions{
		ID:      HousekeepingScheduleID,
		Spec:    spec,
		Action:  action,
		Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_SKIP,
		Memo:    map[string]any{MemoSummary: "runs Housekeeping every " + HousekeepingInterval.String()},
	})
	if err == nil {
		return nil
	}
	if !errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		return errs.Wrap(errs.Transient, err, "cannot create the housekeeping schedule")
	}
	err = sc.GetHandle(ctx, HousekeepingScheduleID).Update(ctx, client.ScheduleUpdateOptions{
		DoUpdate: func(in client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
			s := in.Description.Schedule
			s.Spec = &spec
			s.Action = action
			if s.Policy == nil {
				s.Policy = &client.SchedulePolicies{}
			}
			s.Policy.Overlap = enumspb.SCHEDULE_OVERLAP_POLICY_SKIP
			return &client.ScheduleUpdate{Schedule: &s}, nil
		},
	})
	if err != nil {
		return errs.Wrap(errs.Transient, err, "cannot update the housekeeping schedule")
	}
	return nil
}
