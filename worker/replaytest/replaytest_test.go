package replaytest

import (
	"os"
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
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
