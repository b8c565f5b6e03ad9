package worker

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/agent-trading/ats/activities/activitiestest"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/errs/temporalerr"
	"github.com/agent-trading/ats/workflows"
)

var testKey = bytes.Repeat([]byte{7}, 32)

func TestDialValidatesConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  ClientConfig
	}{
		{"no host", ClientConfig{CodecKey: testKey}},
		{"no key", ClientConfig{HostPort: "127.0.0.1:1"}},
		{"short key", ClientConfig{HostPort: "127.0.0.1:1", CodecKey: testKey[:16]}},
		{"bad previous key", ClientConfig{HostPort: "127.0.0.1:1", CodecKey: testKey, PreviousCodecKeys: [][]byte{{1}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Dial(context.Background(), tt.cfg); errs.KindOf(err) != errs.Invalid {
				t.Fatalf("err = %v, want invalid", err)
			}
		})
	}
}

func TestDialUnreachableIsTransient(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	// Port 1 on loopback: nothing listens, the connection is refused.
	_, err := Dial(ctx, ClientConfig{HostPort: "127.0.0.1:1", CodecKey: testKey, Logger: slog.New(slog.DiscardHandler)})
	if errs.KindOf(err) != errs.Transient {
		t.Fatalf("err = %v, want transient", err)
	}
}

// Failure messages may quote business data; the failure converter must
// encrypt them like payloads, and the error must still map back to its kind.
func TestConvertersEncryptFailures(t *testing.T) {
	_, fc, err := Converters(testKey)
	if err != nil {
		t.Fatal(err)
	}
	in := errs.E(errs.VenueRejected, "order ord_secret_77 rejected").WithCode("post_only").
		WithCause(fmt.Errorf("clob said: cause_detail_88"))
	f := fc.ErrorToFailure(temporalerr.To(in))
	for _, needle := range []string{"ord_secret_77", "cause_detail_88"} {
		if strings.Contains(f.String(), needle) {
			t.Fatalf("failure contains %q in plaintext: %v", needle, f)
		}
	}
	if f.GetEncodedAttributes() == nil {
		t.Fatal("failure has no encoded attributes")
	}
	got := temporalerr.From(fc.FailureToError(f))
	if errs.KindOf(got) != errs.VenueRejected || errs.CodeOf(got) != "post_only" || errs.PublicMessage(got) != "order ord_secret_77 rejected" {
		t.Fatalf("round trip = %v (kind %v, code %q)", got, errs.KindOf(got), errs.CodeOf(got))
	}
}

func TestNewRequiresDeps(t *testing.T) {
	c, err := client.NewLazyClient(client.Options{HostPort: "127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := New(c, Deps{}); err == nil {
		t.Fatal("New accepted missing dependencies")
	}
	w, err := New(c, Deps{Housekeeper: activitiestest.NewMemHousekeeper()})
	if err != nil || w == nil {
		t.Fatalf("New = %v, %v", w, err)
	}
}

// describer is a Temporal client whose DescribeTaskQueue answers from a
// table; the other methods are never called by WorkerAlive.
type describer struct {
	client.Client
	pollers map[enumspb.TaskQueueType][]*taskqueuepb.PollerInfo
	err     error
	queues  []string
}

func (d *describer) DescribeTaskQueue(_ context.Context, tq string, typ enumspb.TaskQueueType) (*workflowservice.DescribeTaskQueueResponse, error) {
	d.queues = append(d.queues, tq)
	if d.err != nil {
		return nil, d.err
	}
	return &workflowservice.DescribeTaskQueueResponse{Pollers: d.pollers[typ]}, nil
}

func TestWorkerAlive(t *testing.T) {
	fresh := []*taskqueuepb.PollerInfo{{Identity: "w1", LastAccessTime: timestamppb.New(time.Now().Add(-5 * time.Second))}}
	stale := []*taskqueuepb.PollerInfo{{Identity: "w0", LastAccessTime: timestamppb.New(time.Now().Add(-PollerFreshness - time.Minute))}}
	noTime := []*taskqueuepb.PollerInfo{{Identity: "w?"}}
	wf, act := enumspb.TASK_QUEUE_TYPE_WORKFLOW, enumspb.TASK_QUEUE_TYPE_ACTIVITY
	tests := []struct {
		name    string
		d       *describer
		wantErr bool
	}{
		{"both polled recently", &describer{pollers: map[enumspb.TaskQueueType][]*taskqueuepb.PollerInfo{wf: fresh, act: fresh}}, false},
		{"one fresh among stale", &describer{pollers: map[enumspb.TaskQueueType][]*taskqueuepb.PollerInfo{wf: append(stale, fresh...), act: fresh}}, false},
		{"no pollers", &describer{}, true},
		{"only stale pollers", &describer{pollers: map[enumspb.TaskQueueType][]*taskqueuepb.PollerInfo{wf: stale, act: stale}}, true},
		{"no activity poller", &describer{pollers: map[enumspb.TaskQueueType][]*taskqueuepb.PollerInfo{wf: fresh}}, true},
		{"poller without time", &describer{pollers: map[enumspb.TaskQueueType][]*taskqueuepb.PollerInfo{wf: noTime, act: noTime}}, true},
		{"server unavailable", &describer{err: serviceerror.NewUnavailable("down")}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := WorkerAlive(context.Background(), tt.d, workflows.TaskQueue)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil && errs.KindOf(err) != errs.Transient {
				t.Errorf("kind = %v, want transient", errs.KindOf(err))
			}
			for _, q := range tt.d.queues {
				if q != workflows.TaskQueue {
					t.Errorf("described queue %q", q)
				}
			}
		})
	}
}
