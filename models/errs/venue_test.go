package errs

import (
	"errors"
	"fmt"
	"testing"

	"github.com/agent-trading/ats/venue"
)

func TestFromVenue(t *testing.T) {
	cause := errors.New("HTTP 401: Unauthorized/Invalid api key")
	tests := []struct {
		name    string
		in      *venue.Error
		kind    Kind
		code    string
		message string
		hint    string
	}{
		{"rejected", venue.E(venue.Rejected, "not enough balance / allowance").WithCode("insufficient_balance_or_allowance"),
			VenueRejected, "insufficient_balance_or_allowance", "not enough balance / allowance", ""},
		{"sell lacks tokens", &venue.Error{Category: venue.Rejected, Code: "insufficient_balance_or_allowance", Message: "not enough balance / allowance", Asset: venue.AssetConditional},
			VenueRejected, "insufficient_balance_or_allowance", "not enough balance / allowance", HintApproveCTF},
		{"buy lacks collateral", &venue.Error{Category: venue.Rejected, Code: "insufficient_balance_or_allowance", Message: "not enough balance / allowance", Asset: venue.AssetCollateral},
			VenueRejected, "insufficient_balance_or_allowance", "not enough balance / allowance", HintApproveCollateral},
		{"invalid", venue.E(venue.Invalid, "Invalid order payload").WithCode("invalid_order_payload"), Invalid, "invalid_order_payload", "Invalid order payload", ""},
		{"not found", venue.E(venue.NotFound, "market not found").WithCode("not_found"), NotFound, "not_found", "market not found", ""},
		{"conflict", venue.E(venue.Conflict, "Duplicated").WithCode("duplicate_order"), Conflict, "duplicate_order", "Duplicated", ""},
		{"rate limited", venue.E(venue.RateLimited, "venue rate limit exceeded").WithCode("rate_limited"), RateLimited, "rate_limited", "venue rate limit exceeded", ""},
		{"unavailable", venue.E(venue.Unavailable, "venue unavailable").WithCode("venue_unavailable"), Transient, "venue_unavailable", "venue unavailable", ""},
		{"gas hint passes through", venue.E(venue.Rejected, "no gas").WithCode("insufficient_gas").WithHint("fund the owner"), VenueRejected, "insufficient_gas", "no gas", "fund the owner"},
		{"internal", venue.E(venue.Internal, "nil signer"), Internal, "", "nil signer", ""},
		// The venue refusing the service is never the caller's 401/403.
		{"venue 401", venue.E(venue.Unauthorized, "Unauthorized/Invalid api key").WithCode("unauthorized").WithCause(cause),
			VenueDenied, "venue_unauthorized", "the venue refused the service's credentials: Unauthorized/Invalid api key", ""},
		{"venue 403", venue.E(venue.Forbidden, "gamma refused access").WithCode("forbidden"),
			VenueDenied, "venue_forbidden", "the venue refused access: gamma refused access", ""},
		{"venue 401 without a code", venue.E(venue.Unauthorized, "no API credentials"),
			VenueDenied, "venue_unauthorized", "the venue refused the service's credentials: no API credentials", ""},
		{"specific 403 keeps its code", venue.E(venue.Forbidden, "Access restricted. Regional restrictions").WithCode("geoblocked"),
			VenueDenied, "geoblocked", "the venue refused access: Access restricted. Regional restrictions", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Reached through As, as every caller of the service sees it,
			// also when wrapped by plain fmt errors.
			for _, err := range []error{tt.in, fmt.Errorf("place: %w", tt.in)} {
				e, ok := As(err)
				if !ok {
					t.Fatal("a venue error is classified")
				}
				if e.Kind != tt.kind || KindOf(err) != tt.kind {
					t.Fatalf("kind = %v, want %v", e.Kind, tt.kind)
				}
				if got := CodeOf(err); got != tt.code {
					t.Fatalf("code = %q, want %q", got, tt.code)
				}
				if e.Message != tt.message {
					t.Fatalf("message = %q, want %q", e.Message, tt.message)
				}
				if e.Hint != tt.hint {
					t.Fatalf("hint = %q, want %q", e.Hint, tt.hint)
				}
				if !errors.Is(err, tt.in) {
					t.Fatal("the venue error stays in the chain")
				}
			}
		})
	}
}

func TestFromVenueKeepsRetryAfterAndCause(t *testing.T) {
	cause := errors.New("HTTP 429")
	v := venue.E(venue.RateLimited, "venue rate limit exceeded").WithCause(cause)
	v.RetryAfterSeconds = 7
	e, _ := As(v)
	if e.RetryAfterSeconds != 7 || !errors.Is(e, cause) || !KindOf(v).Retryable() {
		t.Fatalf("%+v", e)
	}
	if PublicMessage(venue.E(venue.Internal, "secret detail")) != "internal error" {
		t.Fatal("an internal venue error is not shown")
	}
}

// The outermost classification wins, whichever taxonomy it is in.
func TestAsOutermost(t *testing.T) {
	v := venue.E(venue.NotFound, "order not found").WithCode("not_found")
	outer := Wrap(Transient, v, "the venue lost the order")
	if KindOf(outer) != Transient {
		t.Fatalf("service classification around a venue error: %v", KindOf(outer))
	}
	if CodeOf(outer) != "not_found" {
		t.Fatalf("code falls through to the venue's: %q", CodeOf(outer))
	}
	inner := E(Conflict, "the store refused").WithCode("stale")
	wrapped := venue.Wrap(venue.Unavailable, inner, "watermark store failed")
	if KindOf(wrapped) != Transient {
		t.Fatalf("venue classification around a service error: %v", KindOf(wrapped))
	}
	if CodeOf(wrapped) != "stale" {
		t.Fatalf("code falls through to the cause's: %q", CodeOf(wrapped))
	}
	if PublicMessage(wrapped) != "watermark store failed" {
		t.Fatal(PublicMessage(wrapped))
	}
}

func TestVenueDeniedRoundTrip(t *testing.T) {
	if got := ParseKind(VenueDenied.String()); got != VenueDenied || VenueDenied.Retryable() {
		t.Fatalf("ParseKind(%q) = %v", VenueDenied.String(), got)
	}
}
