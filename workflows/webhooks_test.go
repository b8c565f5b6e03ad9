package workflows_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/activities/activitiestest"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/notify"
	"github.com/agent-trading/ats/workflows"
)

// fakeSender stands for models/notify's delivery: it answers attempts as
// told and records them.
type fakeSender struct {
	mu       sync.Mutex
	attempts []int
	times    []time.Time
	gaveUp   []string
	answer   func(attempt int) (notify.Outcome, error)
}

func (f *fakeSender) Deliver(_ context.Context, id string, attempt int) (notify.Outcome, error) {
	f.mu.Lock()
	f.attempts = append(f.attempts, attempt)
	f.mu.Unlock()
	return f.answer(attempt)
}

func (f *fakeSender) GiveUp(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gaveUp = append(f.gaveUp, id)
	return nil
}

func webhookEnv(t *testing.T, f *fakeSender) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetStartTime(start)
	workflows.Register(env)
	if err := activities.Register(env, activities.Deps{Housekeeper: activitiestest.NewMemHousekeeper(), Webhooks: f}); err != nil {
		t.Fatal(err)
	}
	return env
}

// TestWebhookDelivery: a delivery is retried with a growing backoff,
// numbering its attempts for the log, until the receiver takes it; a
// refusal the sender calls final ends it at once; when the retries run out
// the delivery is marked failed.
func TestWebhookDelivery(t *testing.T) {
	transient := errs.E(errs.Transient, "the receiver answered HTTP 503")
	t.Run("retried until delivered", func(t *testing.T) {
		f := &fakeSender{answer: func(a int) (notify.Outcome, error) {
			if a < 4 {
				return notify.Outcome{}, transient
			}
			return notify.Outcome{Delivered: true, Final: true}, nil
		}}
		env := webhookEnv(t, f)
		env.ExecuteWorkflow(workflows.WebhookDelivery, "ntf_1")
		if !env.IsWorkflowCompleted() || env.GetWorkflowError() != nil {
			t.Fatalf("completed %v, err %v", env.IsWorkflowCompleted(), env.GetWorkflowError())
		}
		if len(f.attempts) != 4 || f.attempts[0] != 1 || f.attempts[3] != 4 {
			t.Fatalf("attempts %v", f.attempts)
		}
		if len(f.gaveUp) != 0 {
			t.Fatal("a delivered notification was given up")
		}
		// 10 s, 20 s, 40 s between the attempts: the test clock moved 70 s.
		if d := env.Now().Sub(start); d < 70*time.Second || d > 75*time.Second {
			t.Fatalf("backoff took %v", d)
		}
	})
	t.Run("refused for good", func(t *testing.T) {
		f := &fakeSender{answer: func(int) (notify.Outcome, error) { return notify.Outcome{Final: true}, nil }}
		env := webhookEnv(t, f)
		env.ExecuteWorkflow(workflows.WebhookDelivery, "ntf_2")
		if err := env.GetWorkflowError(); err != nil {
			t.Fatal(err)
		}
		if len(f.attempts) != 1 {
			t.Fatalf("a final refusal was retried: %v", f.attempts)
		}
	})
	t.Run("retries run out", func(t *testing.T) {
		f := &fakeSender{answer: func(int) (notify.Outcome, error) { return notify.Outcome{}, transient }}
		env := webhookEnv(t, f)
		env.ExecuteWorkflow(workflows.WebhookDelivery, "ntf_3")
		if err := env.GetWorkflowError(); err != nil {
			t.Fatal(err)
		}
		if len(f.attempts) != notify.MaxAttempts {
			t.Fatalf("%d attempts, want %d", len(f.attempts), notify.MaxAttempts)
		}
		if len(f.gaveUp) != 1 || f.gaveUp[0] != "ntf_3" {
			t.Fatalf("gave up %v", f.gaveUp)
		}
		if d := env.Now().Sub(start); d < 4*time.Hour || d > 12*time.Hour {
			t.Fatalf("the retries spanned %v", d)
		}
	})
}
