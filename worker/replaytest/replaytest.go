// Package replaytest replays recorded workflow histories against the
// current workflow code in ordinary `go test` runs, without a Temporal
// server. A replay failure means a code change would break workflows that
// are running in production (non-determinism) and needs workflow.GetVersion.
package replaytest

import (
	"context"
	"errors"
	"os"
	"testing"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/protobuf/encoding/protojson"
)

// HistoryCodecKey is the AES-256 key the committed test histories were
// recorded with (the worker package's integration test with
// ATS_RECORD_HISTORY set). It is public and protects nothing: it exists so
// recorded histories go through the same encrypting converters as
// production, and must never be used outside tests.
var HistoryCodecKey = []byte("ats-replay-test-key-not-secret!!")

// Named registers Func under Name instead of its function name, e.g. to
// check that a changed implementation of a workflow still replays.
type Named struct {
	Name string
	Func any
}

// RecordedNamespace is the namespace the committed histories were recorded
// in (the dev server's default).
const RecordedNamespace = "default"

// Replay replays the JSON history at path (as written by `temporal workflow
// show --output json`, or protojson of a History) with opts, after
// registering workflows (functions or Named values), and returns the replay
// error.
//
// The SDK's offline replayer runs a history under a made-up namespace and
// workflow id ("ReplayNamespace", "ReplayId"), but payloads are bound to
// the ones they were written for (worker/codec), so Replay replays under
// the recorded workflow id and hands the converters the recorded
// namespace. (A worker replaying a history to rebuild a workflow's state
// runs under the real ones anyway.)
func Replay(path string, opts worker.WorkflowReplayerOptions, workflows ...any) error {
	if len(workflows) == 0 {
		return errors.New("replaytest: no workflows to register")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var h historypb.History
	if err := protojson.Unmarshal(raw, &h); err != nil {
		return err
	}
	wfID := ""
	if evs := h.GetEvents(); len(evs) > 0 {
		wfID = evs[0].GetWorkflowExecutionStartedEventAttributes().GetWorkflowId()
	}
	if wfID != "" {
		if opts.DataConverter != nil {
			opts.DataConverter = recordedDC{opts.DataConverter, wfID}
		}
		if opts.FailureConverter != nil {
			opts.FailureConverter = recordedFC{opts.FailureConverter, wfID}
		}
	}
	r, err := worker.NewWorkflowReplayerWithOptions(opts)
	if err != nil {
		return err
	}
	for _, w := range workflows {
		if n, ok := w.(Named); ok {
			r.RegisterWorkflowWithOptions(n.Func, workflow.RegisterOptions{Name: n.Name})
			continue
		}
		r.RegisterWorkflow(w)
	}
	return r.ReplayWorkflowHistoryWithOptions(nil, &h, worker.ReplayWorkflowHistoryOptions{
		OriginalExecution: workflow.Execution{ID: wfID},
	})
}

// recorded gives a serialization context the recorded namespace and
// workflow id.
func recorded(sc converter.SerializationContext, wfID string) converter.SerializationContext {
	switch c := sc.(type) {
	case converter.WorkflowSerializationContext:
		c.Namespace, c.WorkflowID = RecordedNamespace, wfID
		return c
	case converter.ActivitySerializationContext:
		c.Namespace, c.WorkflowID = RecordedNamespace, wfID
		return c
	}
	return sc
}

type recordedDC struct {
	converter.DataConverter
	wfID string
}

func (r recordedDC) WithSerializationContext(sc converter.SerializationContext) converter.DataConverter {
	return converter.WithDataConverterSerializationContext(r.DataConverter, recorded(sc, r.wfID))
}

type recordedFC struct {
	converter.FailureConverter
	wfID string
}

func (r recordedFC) WithSerializationContext(sc converter.SerializationContext) converter.FailureConverter {
	return converter.WithFailureConverterSerializationContext(r.FailureConverter, recorded(sc, r.wfID))
}

// ReplayFile replays the history at path with the default data converter
// and fails t on any replay error.
func ReplayFile(t testing.TB, path string, workflows ...any) {
	t.Helper()
	ReplayFileWithOptions(t, path, worker.WorkflowReplayerOptions{}, workflows...)
}

// ReplayFileWithOptions is ReplayFile with replayer options, e.g. the data
// and failure converters of worker.Converters for histories whose payloads
// are encrypted.
func ReplayFileWithOptions(t testing.TB, path string, opts worker.WorkflowReplayerOptions, workflows ...any) {
	t.Helper()
	if err := Replay(path, opts, workflows...); err != nil {
		t.Fatalf("replaytest: replay of %s failed: %v", path, err)
	}
}

// History reads the whole history of the run runID ("" for the latest run)
// of workflow id, its payloads as the server stores them.
func History(t testing.TB, ctx context.Context, c client.Client, id, runID string) *historypb.History {
	t.Helper()
	it := c.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatalf("replaytest: history of %s: %v", id, err)
		}
		h.Events = append(h.Events, ev)
	}
	return h
}

// WriteHistory writes h to path as indented protojson, the form Replay
// reads: how the committed test histories are recorded.
func WriteHistory(t testing.TB, path string, h *historypb.History) {
	t.Helper()
	b, err := protojson.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("history written to %s", path)
}
