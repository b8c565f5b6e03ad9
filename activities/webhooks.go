package activities

import (
	"context"

	"go.temporal.io/sdk/activity"

	"github.com/agent-trading/ats/models/errs/temporalerr"
	"github.com/agent-trading/ats/models/notify"
)

// WebhookSender delivers notifications to their users' webhooks;
// models/notify.Service implements it.
type WebhookSender interface {
	// Deliver posts one attempt, logs it and says whether the delivery
	// is over; a failure worth retrying is an errs.Transient error.
	Deliver(ctx context.Context, id string, attempt int) (notify.Outcome, error)
	// GiveUp marks the delivery failed.
	GiveUp(ctx context.Context, id string) error
}

// Webhooks holds the webhook delivery activities. The notification id is
// all that travels through Temporal: the URL, the secret and the payload
// are read from the database here.
type Webhooks struct {
	Sender WebhookSender
}

// DeliverWebhook posts notification id, numbering the attempt by the
// activity's own attempt count so the delivery log matches the retries.
func (w *Webhooks) DeliverWebhook(ctx context.Context, id string) error {
	_, err := w.Sender.Deliver(ctx, id, int(activity.GetInfo(ctx).Attempt))
	return temporalerr.To(err)
}

// GiveUpWebhook marks notification id's delivery failed.
func (w *Webhooks) GiveUpWebhook(ctx context.Context, id string) error {
	return temporalerr.To(w.Sender.GiveUp(ctx, id))
}
