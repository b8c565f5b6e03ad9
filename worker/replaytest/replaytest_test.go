package replaytest

import (
	"os"
	"path/filepath"
	"testing"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

func noop(ctx workflow.Context) error { return nil }

func TestReplayErrors(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.json")
	if err := os.WriteFile(garbage, []byte(`{"events": [ {"eventId": "x"`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		path      string
		workflows []any
	}{
		{"no workflows", garbage, nil},
		{"missing file", filepath.Join(dir, "nope.json"), []any{noop}},
		{"malformed history", garbage, []any{Named{Name: "Noop", Func: noop}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := Replay(tt.path, worker.WorkflowReplayerOptions{}, tt.workflows...); err == nil {
				t.Fatal("Replay succeeded")
			}
		})
	}
}

func TestHistoryCodecKeyIsAES256(t *testing.T) {
	if len(HistoryCodecKey) != 32 {
		t.Fatalf("HistoryCodecKey is %d bytes", len(HistoryCodecKey))
	}
}

// What WriteHistory records reads back as the same history.
func TestWriteHistoryRoundTrips(t *testing.T) {
	h := &historypb.History{Events: []*historypb.HistoryEvent{{
		EventId: 1, EventType: enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
	}, {
		EventId: 2, EventType: enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
	}}}
	path := filepath.Join(t.TempDir(), "h.json")
	WriteHistory(t, path, h)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got historypb.History
	if err := protojson.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(&got, h) {
		t.Fatalf("read back %v, wrote %v", &got, h)
	}
}
