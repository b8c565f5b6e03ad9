package temporalerr

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	failurepb "go.temporal.io/api/failure/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/venue"
)

func TestToTemporal(t *testing.T) {
	cause := errors.New("pq: connection refused")
	tests := []struct {
		name          string
		in            error
		wantType      string
		wantMsg       string
		wantRetryable bool
		wantDelay     time.Duration
		wantDetails   Details
	}{
		{"transient", errs.Wrap(errs.Transient, cause, "database unavailable"), "transient", "database unavailable", true, 0, Details{}},
		{"rate limited with delay", &errs.Error{Kind: errs.RateLimited, Message: "slow down", RetryAfterSeconds: 7}, "rate_limited", "slow down", true, 7 * time.Second, Details{RetryAfterSeconds: 7}},
		{"rate limited without delay", errs.E(errs.RateLimited, "slow down"), "rate_limited", "slow down", true, 0, Details{}},
		{"invalid with code and hint", errs.E(errs.Invalid, "price out of range").WithCode("bad_price").WithHint("use a tick of 0.01"), "invalid", "price out of range", false, 0, Details{Code: "bad_price", Hint: "use a tick of 0.01"}},
		{"venue rejected", errs.E(errs.VenueRejected, "not enough balance").WithCode("insufficient_balance"), "venue_rejected", "not enough balance", false, 0, Details{Code: "insufficient_balance"}},
		{"not found", errs.E(errs.NotFound, "no such order"), "not_found", "no such order", false, 0, Details{}},
		{"conflict", errs.E(errs.Conflict, "order already filled"), "conflict", "order already filled", false, 0, Details{}},
		{"forbidden", errs.E(errs.Forbidden, "scope missing"), "forbidden", "scope missing", false, 0, Details{}},
		{"unauthorized", errs.E(errs.Unauthorized, "bad key"), "unauthorized", "bad key", false, 0, Details{}},
		{"internal", errs.Wrap(errs.Internal, cause, "store failed"), "internal", "store failed", false, 0, Details{}},
		{"unclassified is internal", cause, "internal", "internal error", false, 0, Details{}},
		{"wrapped classified keeps outer kind", fmt.Errorf("placing: %w", errs.E(errs.Transient, "venue timeout")), "transient", "venue timeout", true, 0, Details{}},
		{"empty message uses kind", &errs.Error{Kind: errs.Conflict}, "conflict", "conflict", false, 0, Details{}},
		// Venue errors are classified by models/errs on the way out.
		{"venue unavailable retries", venue.E(venue.Unavailable, "venue unreachable").WithCode("venue_unreachable"), "transient", "venue unreachable", true, 0, Details{Code: "venue_unreachable"}},
		{"venue 401 is not retried", venue.E(venue.Unauthorized, "Unauthorized/Invalid api key").WithCode("unauthorized"), "venue_denied", "the venue refused the service's credentials: Unauthorized/Invalid api key", false, 0, Details{Code: "venue_unauthorized"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := To(tt.in)
			var appErr *temporal.ApplicationError
			if !errors.As(got, &appErr) {
				t.Fatalf("To(%v) = %T, want *temporal.ApplicationError", tt.in, got)
			}
			if appErr.Type() != tt.wantType {
				t.Errorf("Type = %q, want %q", appErr.Type(), tt.wantType)
			}
			if appErr.Message() != tt.wantMsg {
				t.Errorf("Message = %q, want %q", appErr.Message(), tt.wantMsg)
			}
			if appErr.NonRetryable() == tt.wantRetryable {
				t.Errorf("NonRetryable = %v, want %v", appErr.NonRetryable(), !tt.wantRetryable)
			}
			if appErr.NextRetryDelay() != tt.wantDelay {
				t.Errorf("NextRetryDelay = %v, want %v", appErr.NextRetryDelay(), tt.wantDelay)
			}
			var d Details
			if err := appErr.Details(&d); err != nil {
				t.Fatalf("Details: %v", err)
			}
			if d != tt.wantDetails {
				t.Errorf("details = %+v, want %+v", d, tt.wantDetails)
			}
		})
	}
}

func TestToTemporalPassThrough(t *testing.T) {
	appErr := temporal.NewApplicationError("already converted", "custom")
	canceled := temporal.NewCanceledError()
	tests := []struct {
		name string
		in   error
	}{
		{"nil", nil},
		{"application error", appErr},
		{"canceled error", canceled},
		{"context canceled", context.Canceled},
		{"deadline exceeded", fmt.Errorf("query: %w", context.DeadlineExceeded)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := To(tt.in); got != tt.in {
				t.Fatalf("To(%v) = %v, want it unchanged", tt.in, got)
			}
		})
	}
}

// roundTrip sends err through the failure converter as Temporal does
// between an activity, the server and a workflow or client, so the test
// covers what really arrives on the other side (details become payloads).
func roundTrip(err error) error {
	fc := temporal.GetDefaultFailureConverter()
	return fc.FailureToError(fc.ErrorToFailure(err))
}

func TestFromTemporalRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   *errs.Error
		want errs.Error
	}{
		{"invalid with code and hint", errs.E(errs.Invalid, "price out of range").WithCode("bad_price").WithHint("use a tick of 0.01"),
			errs.Error{Kind: errs.Invalid, Message: "price out of range", Code: "bad_price", Hint: "use a tick of 0.01"}},
		{"rate limited", &errs.Error{Kind: errs.RateLimited, Message: "slow down", RetryAfterSeconds: 3},
			errs.Error{Kind: errs.RateLimited, Message: "slow down", RetryAfterSeconds: 3}},
		{"venue rejected", errs.E(errs.VenueRejected, "order crosses the book").WithCode("post_only"),
			errs.Error{Kind: errs.VenueRejected, Message: "order crosses the book", Code: "post_only"}},
		{"transient", errs.E(errs.Transient, "venue timeout"), errs.Error{Kind: errs.Transient, Message: "venue timeout"}},
		{"not found", errs.E(errs.NotFound, "no such order"), errs.Error{Kind: errs.NotFound, Message: "no such order"}},
		{"internal hides cause", errs.Wrap(errs.Internal, errors.New("secret-ish detail"), "store failed").(*errs.Error),
			errs.Error{Kind: errs.Internal, Message: "store failed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, wrap := range []struct {
				name string
				f    func(error) error
			}{
				{"direct", func(e error) error { return e }},
				{"activity error", func(e error) error {
					// As seen by a workflow: the application failure is
					// the cause of an activity failure.
					fc := temporal.GetDefaultFailureConverter()
					f := &failurepb.Failure{
						Message: "activity error",
						FailureInfo: &failurepb.Failure_ActivityFailureInfo{ActivityFailureInfo: &failurepb.ActivityFailureInfo{
							ActivityType: &commonpb.ActivityType{Name: "PlaceOrder"},
							RetryState:   enumspb.RETRY_STATE_NON_RETRYABLE_FAILURE,
						}},
						Cause: fc.ErrorToFailure(e),
					}
					got := fc.FailureToError(f)
					var ae *temporal.ActivityError
					if !errors.As(got, &ae) {
						panic(fmt.Sprintf("not an activity error: %T", got))
					}
					return got
				}},
				{"wrapped by caller", func(e error) error { return fmt.Errorf("workflow order/ord_1 failed: %w", e) }},
			} {
				t.Run(wrap.name, func(t *testing.T) {
					got := From(wrap.f(roundTrip(To(tt.in))))
					e, ok := errs.As(got)
					if !ok {
						t.Fatalf("From = %T %v, want *errs.Error", got, got)
					}
					if e.Kind != tt.want.Kind || e.Message != tt.want.Message || e.Code != tt.want.Code ||
						e.Hint != tt.want.Hint || e.RetryAfterSeconds != tt.want.RetryAfterSeconds {
						t.Fatalf("From = {%v %q code=%q hint=%q retry=%d}, want {%v %q code=%q hint=%q retry=%d}",
							e.Kind, e.Message, e.Code, e.Hint, e.RetryAfterSeconds,
							tt.want.Kind, tt.want.Message, tt.want.Code, tt.want.Hint, tt.want.RetryAfterSeconds)
					}
					if errs.PublicMessage(got) != errs.PublicMessage(tt.in) {
						t.Errorf("PublicMessage = %q, want %q", errs.PublicMessage(got), errs.PublicMessage(tt.in))
					}
				})
			}
		})
	}
}

func TestFromTemporalClassifiesTemporalConditions(t *testing.T) {
	tests := []struct {
		name string
		in   error
		want errs.Kind
	}{
		{"timeout", temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_START_TO_CLOSE, nil), errs.Transient},
		{"canceled", temporal.NewCanceledError(), errs.Conflict},
		{"not found", serviceerror.NewNotFound("workflow not found"), errs.NotFound},
		{"already started", serviceerror.NewWorkflowExecutionAlreadyStarted("exists", "req", "run"), errs.Conflict},
		{"unavailable", serviceerror.NewUnavailable("frontend down"), errs.Transient},
		{"resource exhausted", serviceerror.NewResourceExhausted(enumspb.RESOURCE_EXHAUSTED_CAUSE_RPS_LIMIT, "busy"), errs.RateLimited},
		{"deadline", context.DeadlineExceeded, errs.Transient},
		{"foreign application error", temporal.NewApplicationError("panic: nil map", "PanicError"), errs.Internal},
		{"unknown", errors.New("boom"), errs.Internal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := From(tt.in)
			if k := errs.KindOf(got); k != tt.want {
				t.Fatalf("KindOf(From(%v)) = %v, want %v", tt.in, k, tt.want)
			}
			if !errors.Is(got, tt.in) {
				t.Errorf("From(%v) does not wrap the original error", tt.in)
			}
		})
	}
	if From(nil) != nil {
		t.Error("From(nil) != nil")
	}
	orig := errs.E(errs.Forbidden, "nope")
	if From(orig) != error(orig) {
		t.Error("From changed an *errs.Error")
	}
	if errs.PublicMessage(From(temporal.NewApplicationError("panic: secret", "PanicError"))) != "internal error" {
		t.Error("a foreign application error's message leaked into the public message")
	}
}

func TestDetailsSurviveCustomDataConverter(t *testing.T) {
	// Details are payloads: with the worker's codec they are encrypted, so
	// decoding must go through the same converter. Use a converter with a
	// non-default payload order to make sure no default is assumed.
	dc := converter.NewCompositeDataConverter(converter.NewJSONPayloadConverter())
	fc := temporal.NewDefaultFailureConverter(temporal.DefaultFailureConverterOptions{DataConverter: dc, EncodeCommonAttributes: true})
	in := errs.E(errs.Invalid, "bad size").WithCode("min_size")
	got := From(fc.FailureToError(fc.ErrorToFailure(To(in))))
	if errs.CodeOf(got) != "min_size" || errs.KindOf(got) != errs.Invalid || errs.PublicMessage(got) != "bad size" {
		t.Fatalf("got %v (code %q)", got, errs.CodeOf(got))
	}
}
