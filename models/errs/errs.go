// Package errs is the service's one error taxonomy.
//
// Every error that crosses a layer boundary (store → service → HTTP handler,
// activity → workflow) carries a Kind. The HTTP layer maps kinds to statuses
// in one place (api.statusFor) and the Temporal layer maps kinds to retryable
// or non-retryable application errors in one place (temporalerr.To).
// The Message of an *Error is safe to show to a client; the wrapped Err is
// not, and is only ever logged.
package errs

import (
	"errors"
	"fmt"

	"github.com/agent-trading/ats/venue"
)

// Kind classifies an error by what the caller can do about it.
type Kind uint8

// The kinds. Keep the list short: a new kind is a new HTTP status and a new
// retry decision, not a new message.
const (
	Internal      Kind = iota // a bug or an unexpected failure; never shown verbatim
	Invalid                   // the request is malformed or breaks a rule
	Unauthorized              // no or bad credentials
	Forbidden                 // credentials fine, permission missing
	NotFound                  // the addressed object does not exist (or is not the caller's)
	Conflict                  // the object's state forbids the operation, or it exists already
	RateLimited               // too many requests; retry later
	VenueRejected             // the venue (exchange or chain) refused the operation
	Transient                 // a dependency is down or timed out; retrying may succeed
	// VenueDenied: the venue refused the service's own credentials or
	// access (its 401/403: credentials, banned address, region). The
	// caller's request is not at fault and retrying will not help until an
	// operator acts; it must never read as the caller's own 401/403.
	VenueDenied
)

var kindNames = [...]string{
	Internal:      "internal",
	Invalid:       "invalid",
	Unauthorized:  "unauthorized",
	Forbidden:     "forbidden",
	NotFound:      "not_found",
	Conflict:      "conflict",
	RateLimited:   "rate_limited",
	VenueRejected: "venue_rejected",
	Transient:     "transient",
	VenueDenied:   "venue_denied",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// ParseKind is the inverse of Kind.String; unknown names are Internal.
func ParseKind(s string) Kind {
	for k, n := range kindNames {
		if n == s {
			return Kind(k)
		}
	}
	return Internal
}

// Retryable reports whether an operation failing with this kind may succeed
// when simply tried again.
func (k Kind) Retryable() bool { return k == Transient || k == RateLimited }

// Error is a classified error.
type Error struct {
	Kind Kind
	// Code is an optional machine-readable reason within the kind, e.g.
	// "budget_exceeded", "insufficient_balance", "authorization_pending".
	Code string
	// Message is safe to show to clients.
	Message string
	// Hint is an optional remedy shown to clients (e.g. "POST /wallet/approve with token CTF").
	Hint string
	// RetryAfterSeconds is set for RateLimited (and optionally Transient) errors.
	RetryAfterSeconds int
	// Err is the underlying cause; logged, never shown.
	Err error
}

func (e *Error) Error() string {
	msg := e.Message
	if msg == "" {
		msg = e.Kind.String()
	}
	if e.Err != nil {
		return msg + ": " + e.Err.Error()
	}
	return msg
}

// Unwrap exposes the cause to errors.Is / errors.As.
func (e *Error) Unwrap() error { return e.Err }

// E builds an *Error of the given kind with a client-safe message.
func E(kind Kind, msg string) *Error { return &Error{Kind: kind, Message: msg} }

// Ef is E with formatting.
func Ef(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// Wrap classifies err with a client-safe message. A nil err yields nil.
func Wrap(kind Kind, err error, msg string) error {
	if err == nil {
		return nil
	}
	return &Error{Kind: kind, Message: msg, Err: err}
}

// WithCode returns a copy of e with Code set.
func (e *Error) WithCode(code string) *Error { c := *e; c.Code = code; return &c }

// WithHint returns a copy of e with Hint set.
func (e *Error) WithHint(h string) *Error { c := *e; c.Hint = h; return &c }

// WithCause returns a copy of e wrapping err.
func (e *Error) WithCause(err error) *Error { c := *e; c.Err = err; return &c }

// KindOf returns the kind of the outermost *Error (or venue error, see
// As) in err's chain, or Internal when there is none. A nil error has no
// kind; KindOf(nil) is Internal and callers check for nil first.
func KindOf(err error) Kind {
	if e, ok := As(err); ok {
		return e.Kind
	}
	return Internal
}

// Is reports whether err is classified as kind.
func Is(err error, kind Kind) bool { return err != nil && KindOf(err) == kind }

// As returns the outermost classified error in err's chain: an *Error, or
// a venue error (*venue.Error) classified by FromVenue. So a venue failure
// has its kind, code and hint wherever the service looks at an error,
// without every caller of the venue converting it.
func As(err error) (*Error, bool) {
	var e *Error
	found := errors.As(err, &e)
	var v *venue.Error
	if errors.As(err, &v) && (!found || errors.Is(v, e)) {
		// The venue error is the outer one (an *Error below it, if any,
		// is its cause).
		return FromVenue(v), true
	}
	return e, found
}

// CodeOf returns the Code of the outermost *Error carrying one.
func CodeOf(err error) string {
	for err != nil {
		e, ok := As(err)
		if !ok {
			return ""
		}
		if e.Code != "" {
			return e.Code
		}
		err = e.Err
	}
	return ""
}

// PublicMessage is the text a client may see for err: the Message of its
// classification, or a generic sentence for unclassified errors.
func PublicMessage(err error) string {
	if e, ok := As(err); ok && e.Message != "" {
		if e.Kind == Internal {
			return "internal error"
		}
		return e.Message
	}
	return "internal error"
}
