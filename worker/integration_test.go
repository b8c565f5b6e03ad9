package worker_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"google.golang.org/protobuf/proto"

	"github.com/agent-trading/ats/activities/activitiestest"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/worker"
	"github.com/agent-trading/ats/worker/codec"
	"github.com/agent-trading/ats/worker/devserver"
	"github.com/agent-trading/ats/worker/devserver/devservertest"
	"github.com/agent-trading/ats/worker/replaytest"
	"github.com/agent-trading/ats/workflows"
)

// temporalCLI returns the dev-server binary (see devservertest.Binary).
func temporalCLI(t *testing.T) string { return devservertest.Binary(t) }

func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// TestHousekeepingOnDevServer runs the whole wiring against a real dev
// server: search attributes, encrypted client, worker, schedule, readiness
// probe, and a clean stop. With ATS_RECORD_HISTORY=<path> it also writes the
// workflow's history for the replay test.
func TestHousekeepingOnDevServer(t *testing.T) {
	bin := temporalCLI(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var serverLog bytes.Buffer
	srv, err := devserver.Start(ctx, devserver.Options{
		Binary:   bin,
		DBFile:   filepath.Join(t.TempDir(), "temporal.db"),
		LogLevel: "error",
		Stderr:   &serverLog,
	})
	if err != nil {
		t.Fatal(err)
	}
	pid := srv.Pid()
	stopped := false
	defer func() {
		if !stopped {
			_ = srv.Stop()
		}
	}()
	if !strings.HasPrefix(srv.FrontendAddr(), "127.0.0.1:") || !strings.HasPrefix(srv.UIURL(), "http://127.0.0.1:") {
		t.Fatalf("addresses %q %q", srv.FrontendAddr(), srv.UIURL())
	}

	// A client without the codec sees what the server stores.
	raw, err := client.DialContext(ctx, client.Options{HostPort: srv.FrontendAddr(), Logger: log.NewStructuredLogger(quietLogger())})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()

	sas, err := raw.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range workflows.SearchAttributes() {
		if got := sas.GetCustomAttributes()[k.GetName()]; got != k.GetValueType() {
			t.Errorf("search attribute %s registered as %v, want %v", k.GetName(), got, k.GetValueType())
		}
	}
	if err := devserver.EnsureSearchAttributes(ctx, raw, "default"); err != nil {
		t.Fatalf("EnsureSearchAttributes on a server that has them: %v", err)
	}

	c, err := worker.Dial(ctx, worker.ClientConfig{
		HostPort: srv.FrontendAddr(), CodecKey: replaytest.HistoryCodecKey, Logger: quietLogger(),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	if err := worker.WorkerAlive(ctx, c, workflows.TaskQueue); errs.KindOf(err) != errs.Transient {
		t.Fatalf("WorkerAlive without a worker = %v, want a transient error", err)
	}

	store := activitiestest.NewMemHousekeeper()
	store.PutIdempotency("idem-expired", time.Now().Add(-time.Hour))
	store.PutIdempotency("idem-live", time.Now().Add(time.Hour))
	store.PutDeviceLink("dl_expired", time.Now().Add(-time.Minute))
	store.PutEvent("event-old", time.Now().Add(-time.Minute))
	store.PutEvent("event-new", time.Now().Add(time.Hour))
	w, err := worker.New(c, worker.Deps{Housekeeper: store})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	waitFor(t, ctx, "worker to be seen polling", func() error { return worker.WorkerAlive(ctx, c, workflows.TaskQueue) })

	// Twice: the second call takes the update path.
	for range 2 {
		if err := workflows.EnsureHousekeepingSchedule(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	h := c.ScheduleClient().GetHandle(ctx, workflows.HousekeepingScheduleID)
	desc, err := h.Describe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p := desc.Schedule.Policy; p == nil || p.Overlap != enumspb.SCHEDULE_OVERLAP_POLICY_SKIP {
		t.Errorf("overlap policy = %+v, want skip", desc.Schedule.Policy)
	}
	if iv := desc.Schedule.Spec.Intervals; len(iv) != 1 || iv[0].Every != workflows.HousekeepingInterval {
		t.Errorf("schedule intervals = %+v", iv)
	}
	if err := h.Trigger(ctx, client.ScheduleTriggerOptions{}); err != nil {
		t.Fatal(err)
	}
	var started *client.ScheduleWorkflowExecution
	waitFor(t, ctx, "the triggered run", func() error {
		d, err := h.Describe(ctx)
		if err != nil {
			return err
		}
		for _, a := range d.Info.RecentActions {
			if a.StartWorkflowResult != nil {
				started = a.StartWorkflowResult
				return nil
			}
		}
		return errors.New("no action yet")
	})
	if !strings.HasPrefix(started.WorkflowID, workflows.WorkflowID(workflows.KindHousekeeping, "run")) {
		t.Errorf("workflow id %q", started.WorkflowID)
	}
	var res workflows.HousekeepingResult
	if err := c.GetWorkflow(ctx, started.WorkflowID, started.FirstExecutionRunID).Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	if res.PurgedIdempotency != 1 || res.ExpiredDeviceLinks != 1 || res.PurgedEvents != 1 {
		t.Fatalf("result = %+v, want 1 purged, 1 expired, 1 event purged", res)
	}
	if store.HasIdempotency("idem-expired") || !store.HasIdempotency("idem-live") || !store.DeviceLinkExpired("dl_expired") ||
		store.HasEvent("event-old") || !store.HasEvent("event-new") {
		t.Fatal("store not cleaned as reported")
	}

	// The codec-aware client decodes what the plain one cannot read.
	hist := replaytest.History(t, ctx, raw, started.WorkflowID, started.FirstExecutionRunID)
	assertEncrypted(t, hist, res)
	if p := os.Getenv("ATS_RECORD_HISTORY"); p != "" {
		replaytest.WriteHistory(t, p, hist)
	}

	// The workflow's search attributes made it to visibility.
	waitFor(t, ctx, "visibility", func() error {
		resp, err := c.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Query: `WorkflowKind = "housekeeping"`})
		if err != nil {
			return err
		}
		if resp.GetCount() < 1 {
			return errors.New("not visible yet")
		}
		return nil
	})

	w.Stop()
	if err := srv.Stop(); err != nil {
		t.Fatalf("Stop: %v\nserver log:\n%s", err, serverLog.String())
	}
	stopped = true
	select {
	case <-srv.Done():
	default:
		t.Fatal("Stop returned before the process exited")
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("dev server pid %d still exists after Stop (kill 0: %v)", pid, err)
	}
}

// assertEncrypted checks that the activity inputs and results and the
// workflow result are stored encrypted: readable with the key, opaque
// without it.
func assertEncrypted(t *testing.T, h *historypb.History, res workflows.HousekeepingResult) {
	t.Helper()
	var payloads []*commonpb.Payload
	for _, ev := range h.Events {
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			payloads = append(payloads, ev.GetActivityTaskScheduledEventAttributes().GetInput().GetPayloads()...)
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
			payloads = append(payloads, ev.GetActivityTaskCompletedEventAttributes().GetResult().GetPayloads()...)
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
			payloads = append(payloads, ev.GetWorkflowExecutionCompletedEventAttributes().GetResult().GetPayloads()...)
		}
	}
	if len(payloads) != 7 { // 3 inputs, 3 results, 1 workflow result
		t.Fatalf("found %d payloads in history, want 7", len(payloads))
	}
	c, err := codec.New(replaytest.HistoryCodecKey)
	if err != nil {
		t.Fatal(err)
	}
	plain := converter.GetDefaultDataConverter()
	rawBytes, err := proto.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	// Search attributes are plaintext by design (they are indexed), so
	// look for the payload contents rather than for any JSON encoding:
	// the activities' "now" argument (with sub-second precision, which
	// the schedule's start-time attribute lacks) and the result's fields.
	for _, needle := range [][]byte{[]byte(res.Now.Format(time.RFC3339Nano)), []byte("purged_idempotency"), []byte("expired_device_links")} {
		if bytes.Contains(rawBytes, needle) {
			t.Errorf("raw history contains plaintext %q", needle)
		}
	}
	for i, p := range payloads {
		if enc := string(p.GetMetadata()[codec.MetadataEncoding]); enc != codec.EncodingEncrypted {
			t.Errorf("payload %d encoding %q, want %q", i, enc, codec.EncodingEncrypted)
		}
		var v any
		if err := plain.FromPayload(p, &v); err == nil {
			t.Errorf("payload %d decodes without the key: %v", i, v)
		}
		dec, err := c.Decode([]*commonpb.Payload{p})
		if err != nil {
			t.Fatalf("payload %d does not decrypt with the key: %v", i, err)
		}
		if err := plain.FromPayload(dec[0], &v); err != nil {
			t.Errorf("payload %d decrypted to garbage: %v", i, err)
		}
	}
}

func waitFor(t *testing.T, ctx context.Context, what string, f func() error) {
	t.Helper()
	var last error
	for {
		if last = f(); last == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s: %v", what, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
