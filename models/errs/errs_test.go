package errs

import (
	"errors"
	"fmt"
	"testing"
)

func TestKindOf(t *testing.T) {
	cause := errors.New("pq: connection refused on 10.0.0.7")
	tests := []struct {
		name   string
		err    error
		kind   Kind
		public string
		retry  bool
		code   string
	}{
		{"plain error is internal", cause, Internal, "internal error", false, ""},
		{"classified", Wrap(Transient, cause, "database unavailable"), Transient, "database unavailable", true, ""},
		{"wrapped again keeps kind", fmt.Errorf("ctx: %w", E(NotFound, "order not found")), NotFound, "order not found", false, ""},
		{"internal hides message", E(Internal, "nil pointer in budget"), Internal, "internal error", false, ""},
		{"code", E(Conflict, "budget exceeded").WithCode("budget_exceeded"), Conflict, "budget exceeded", false, "budget_exceeded"},
		{"rate limited retries", E(RateLimited, "slow down"), RateLimited, "slow down", true, ""},
		{"venue rejected does not retry", E(VenueRejected, "not enough balance / allowance"), VenueRejected, "not enough balance / allowance", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := KindOf(tt.err); got != tt.kind {
				t.Fatalf("KindOf = %v, want %v", got, tt.kind)
			}
			if got := PublicMessage(tt.err); got != tt.public {
				t.Fatalf("PublicMessage = %q, want %q", got, tt.public)
			}
			if got := KindOf(tt.err).Retryable(); got != tt.retry {
				t.Fatalf("Retryable = %v, want %v", got, tt.retry)
			}
			if got := CodeOf(tt.err); got != tt.code {
				t.Fatalf("CodeOf = %q, want %q", got, tt.code)
			}
		})
	}
}

func TestParseKindRoundTrip(t *testing.T) {
	for k := Internal; k <= Transient; k++ {
		if got := ParseKind(k.String()); got != k {
			t.Fatalf("ParseKind(%q) = %v", k.String(), got)
		}
	}
	if ParseKind("nope") != Internal {
		t.Fatal("unknown kind should parse as Internal")
	}
}

func TestErrorTextKeepsCauseForLogs(t *testing.T) {
	cause := errors.New("secret detail")
	err := Wrap(Transient, cause, "venue unavailable")
	if !errors.Is(err, cause) {
		t.Fatal("cause lost")
	}
	if PublicMessage(err) == err.Error() {
		t.Fatal("public message must not include the cause")
	}
}
