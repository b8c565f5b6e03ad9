package workflows

import (
	"context"
	"errors"
	"log/slog"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models/notify"
)

// webhookAttemptOptions: each attempt gets a receiver's time (the post's own
// timeout is 10 s) and is retried with a doubling backoff from 10 s up to
// 2 h, notify.MaxAttempts times (a receiver down for about five hours still
// gets it). The activity logs every attempt and gives up itself on the
// last one, so the retries never outnumber the log.
var webhookAttemptOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 30 * time.Second,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval:    10 * time.Second,
		BackoffCoefficient: 2,
		MaximumInterval:    2 * time.Hour,
		MaximumAttempts:    notify.MaxAttempts,
	},
}

// webhookGiveUpOptions: marking a delivery failed is a database write.
var webhookGiveUpOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 30 * time.Second,
	RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute},
}

// WebhookDelivery posts notification notificationID to its user's webhook
// until the receiver accepts it, refuses it for good, or the attempts run
// out (workflow id "webhook/<notification id>"). Its one activity posts,
// signs and logs each attempt (activities.Webhooks.DeliverWebhook); when
// that keeps failing for a reason of its own (the database), the delivery
// is marked failed rather than left pending.
func WebhookDelivery(ctx workflow.Context, notificationID string) error {
	var w *activities.Webhooks
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, webhookAttemptOptions), w.DeliverWebhook, notificationID).Get(ctx, nil)
	if err == nil {
		return nil
	}
	if gerr := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, webhookGiveUpOptions), w.GiveUpWebhook, notificationID).Get(ctx, nil); gerr != nil {
		return gerr
	}
	// The delivery ended as failed, which the log shows; the workflow
	// itself did its job.
	workflow.GetLogger(ctx).Warn("webhook delivery given up", "notification", notificationID, "err", err)
	return nil
}

// WebhookOutbox is the notifications waiting for their delivery to start;
// models/notify.Service implements it.
type WebhookOutbox interface {
	Pending(ctx context.Context, limit int) ([]string, error)
	Started(ctx context.Context, id string) error
}

// Webhooks starts the delivery workflows of pending notifications: the
// outbox's dispatcher. Dispatch is idempotent (one workflow per
// notification id), so any number of processes may run it on any hint.
type Webhooks struct {
	Client client.Client
	Outbox WebhookOutbox
	Logger *slog.Logger
}

// dispatchBatch bounds the notifications one Dispatch reads at a time.
const dispatchBatch = 100

// Dispatch starts a delivery workflow for every pending notification and
// marks each started. A workflow that exists already (a start whose mark
// was lost) counts as started.
func (w *Webhooks) Dispatch(ctx context.Context) error {
	for {
		ids, err := w.Outbox.Pending(ctx, dispatchBatch)
		if err != nil {
			return err
		}
		for _, id := range ids {
			opts, err := StartOptions(StartSpec{Kind: KindWebhook, BusinessID: id, Summary: "deliver notification " + id + " to its webhook"})
			if err != nil {
				return err
			}
			// A finished delivery is never run again for the same id.
			opts.WorkflowIDReusePolicy = enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE
			_, err = w.Client.ExecuteWorkflow(ctx, opts, WebhookDelivery, id)
			var started *serviceerror.WorkflowExecutionAlreadyStarted
			if err != nil && !errors.As(err, &started) {
				return err
			}
			if err := w.Outbox.Started(ctx, id); err != nil {
				return err
			}
		}
		if len(ids) < dispatchBatch {
			return nil
		}
	}
}
