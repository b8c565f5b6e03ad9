package workflows

import (
	"testing"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"

	"github.com/agent-trading/ats/models/errs"
)

func TestStartOptions(t *testing.T) {
	tests := []struct {
		name     string
		spec     StartSpec
		wantID   string
		wantKind errs.Kind // for errors
		wantErr  bool
		wantSAs  map[string]string
	}{
		{
			name:    "order",
			spec:    StartSpec{Kind: KindOrder, BusinessID: "ord_123", Summary: "BUY 10 @ 0.55", SearchAttributes: []temporal.SearchAttributeUpdate{SAUserID.ValueSet("usr_1"), SATokenID.ValueSet("7123")}},
			wantID:  "order/ord_123",
			wantSAs: map[string]string{"WorkflowKind": "order", "UserId": "usr_1", "TokenId": "7123"},
		},
		{
			name:    "device link without summary",
			spec:    StartSpec{Kind: KindDeviceLink, BusinessID: "dl_abc"},
			wantID:  "device-link/dl_abc",
			wantSAs: map[string]string{"WorkflowKind": "device-link"},
		},
		{
			name:    "strategy",
			spec:    StartSpec{Kind: KindStrategy, BusinessID: "str_9", SearchAttributes: []temporal.SearchAttributeUpdate{SAStrategyStatus.ValueSet("ACTIVE"), SAStrategyType.ValueSet("RECURRING_BUY")}},
			wantID:  "str_9",
			wantSAs: map[string]string{"WorkflowKind": "strategy", "StrategyStatus": "ACTIVE", "StrategyType": "RECURRING_BUY"},
		},
		{name: "empty id", spec: StartSpec{Kind: KindOrder}, wantErr: true, wantKind: errs.Invalid},
		{name: "blank id", spec: StartSpec{Kind: KindOrder, BusinessID: "  "}, wantErr: true, wantKind: errs.Invalid},
		{name: "id with space", spec: StartSpec{Kind: KindOrder, BusinessID: "a b"}, wantErr: true, wantKind: errs.Invalid},
		{name: "unknown kind", spec: StartSpec{Kind: "payment", BusinessID: "p_1"}, wantErr: true, wantKind: errs.Internal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts, err := StartOptions(tt.spec)
			if tt.wantErr {
				if err == nil || errs.KindOf(err) != tt.wantKind {
					t.Fatalf("err = %v, want kind %v", err, tt.wantKind)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if opts.ID != tt.wantID || opts.TaskQueue != TaskQueue {
				t.Fatalf("id/queue = %q/%q, want %q/%q", opts.ID, opts.TaskQueue, tt.wantID, TaskQueue)
			}
			if !opts.WorkflowExecutionErrorWhenAlreadyStarted {
				t.Error("duplicate starts would be silent")
			}
			got := map[string]string{}
			for k, v := range opts.TypedSearchAttributes.GetUntypedValues() {
				got[k.GetName()] = v.(string)
			}
			if len(got) != len(tt.wantSAs) {
				t.Fatalf("search attributes = %v, want %v", got, tt.wantSAs)
			}
			for k, v := range tt.wantSAs {
				if got[k] != v {
					t.Errorf("SA %s = %q, want %q", k, got[k], v)
				}
			}
			if tt.spec.Summary != "" {
				if opts.Memo[MemoSummary] != tt.spec.Summary || opts.StaticSummary != tt.spec.Summary {
					t.Errorf("memo/summary = %v/%q", opts.Memo, opts.StaticSummary)
				}
			} else if opts.Memo != nil {
				t.Errorf("memo = %v, want none", opts.Memo)
			}
		})
	}
}

func TestSearchAttributesFitDevServer(t *testing.T) {
	// The SQLite dev server has 10 Keyword slots; names must be unique.
	seen := map[string]bool{}
	keywords := 0
	for _, k := range SearchAttributes() {
		if seen[k.GetName()] {
			t.Errorf("duplicate search attribute %s", k.GetName())
		}
		seen[k.GetName()] = true
		if k.GetValueType() == enumspb.INDEXED_VALUE_TYPE_KEYWORD {
			keywords++
		}
	}
	if keywords > 10 {
		t.Fatalf("%d Keyword attributes, the dev server has 10 slots", keywords)
	}
	for _, name := range []string{"AgentId", "UserId", "StrategyType", "StrategyStatus", "TokenId"} {
		if !seen[name] {
			t.Errorf("required search attribute %s missing", name)
		}
	}
}
