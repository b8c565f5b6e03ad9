// Package venue holds what every client of the venue shares: the error type
// each venue call returns. The clients themselves are the sub-packages
// (clob, gamma, dataapi, chain, updown); the sandbox, being a venue, speaks
// the same errors.
//
// The venue is a protocol library: it imports nothing of the service, and
// its errors say what the venue answered, not what the service's caller
// should be told. The service maps them to its own error kinds in one place
// (models/errs); that is where, for instance, the venue refusing the
// service's credentials stops looking like the caller's own 401.
package venue

import (
	"errors"
	"fmt"
)

// Category says what kind of answer (or lack of one) a venue call got.
type Category uint8

// The categories.
const (
	Internal     Category = iota // unexpected: a bug, or an answer that cannot be read as the protocol says
	Invalid                      // the request breaks the venue's rules of form (a bad field, too many orders)
	Rejected                     // the venue understood the request and refused it (balance, tick, closed market)
	Unauthorized                 // the venue refused the credentials (its 401), or there were none to send
	Forbidden                    // the venue refused access for this account, address or region (its 403)
	NotFound                     // the venue does not know the object
	Conflict                     // the object's state forbids the operation, or it exists already
	RateLimited                  // the venue's rate limit; RetryAfterSeconds says when to come back
	Unavailable                  // the venue or the chain is down, slow or unreachable; retrying may succeed
)

var categoryNames = [...]string{
	Internal:     "internal",
	Invalid:      "invalid",
	Rejected:     "rejected",
	Unauthorized: "unauthorized",
	Forbidden:    "forbidden",
	NotFound:     "not_found",
	Conflict:     "conflict",
	RateLimited:  "rate_limited",
	Unavailable:  "unavailable",
}

func (c Category) String() string {
	if int(c) < len(categoryNames) {
		return categoryNames[c]
	}
	return fmt.Sprintf("category(%d)", uint8(c))
}

// Temporary reports whether a call failing with this category may succeed
// when repeated unchanged.
func (c Category) Temporary() bool { return c == Unavailable || c == RateLimited }

// Error is a classified venue failure.
type Error struct {
	Category Category
	// Code is the venue-level reason, e.g. "insufficient_balance_or_allowance",
	// "invalid_tick_size", "venue_timeout".
	Code string
	// Message is the venue's own text or a summary of the failure; it never
	// holds credentials or keys.
	Message string
	// Hint is a remedy in the venue's terms ("fund the wallet's owner
	// address with the chain's gas token").
	Hint string
	// Asset names what a balance or allowance refusal lacks, when the
	// order's side tells: AssetCollateral for a BUY, AssetConditional for a
	// SELL; empty otherwise.
	Asset string
	// Status is the HTTP status of the venue's answer; 0 when there was none.
	Status int
	// RetryAfterSeconds is the venue's Retry-After, when it sent one.
	RetryAfterSeconds int
	// Err is the underlying cause.
	Err error
}

// The values of Error.Asset (the CLOB's asset_type names).
const (
	AssetCollateral  = "COLLATERAL"
	AssetConditional = "CONDITIONAL"
)

func (e *Error) Error() string {
	msg := e.Message
	if msg == "" {
		msg = "venue: " + e.Category.String()
	}
	if e.Err == nil {
		return msg
	}
	return msg + ": " + e.Err.Error()
}

// Unwrap exposes the cause to errors.Is / errors.As.
func (e *Error) Unwrap() error { return e.Err }

// Temporary reports whether repeating the call unchanged may succeed.
func (e *Error) Temporary() bool { return e.Category.Temporary() }

// E is an *Error of category c with message msg.
func E(c Category, msg string) *Error { return &Error{Category: c, Message: msg} }

// Ef is E with formatting.
func Ef(c Category, format string, args ...any) *Error { return E(c, fmt.Sprintf(format, args...)) }

// Wrap classifies a failure err with message msg; a nil err stays nil.
func Wrap(c Category, err error, msg string) error {
	if err == nil {
		return nil
	}
	return E(c, msg).WithCause(err)
}

// WithCode returns a copy of e with Code set.
func (e *Error) WithCode(code string) *Error { c := *e; c.Code = code; return &c }

// WithHint returns a copy of e with Hint set.
func (e *Error) WithHint(h string) *Error { c := *e; c.Hint = h; return &c }

// WithCause returns a copy of e wrapping err.
func (e *Error) WithCause(err error) *Error { c := *e; c.Err = err; return &c }

// As returns the outermost *Error in err's chain.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// CategoryOf is the category of the outermost *Error in err's chain;
// Internal when there is none.
func CategoryOf(err error) Category {
	if e, ok := As(err); ok {
		return e.Category
	}
	return Internal
}

// Is reports whether err is a venue error of category c.
func Is(err error, c Category) bool {
	e, ok := As(err)
	return ok && e.Category == c
}

// CodeOf is the first Code along err's chain of *Error.
func CodeOf(err error) string {
	for e, ok := As(err); ok; e, ok = As(e.Err) {
		if e.Code != "" {
			return e.Code
		}
	}
	return ""
}

// MessageOf is the text of err that may be shown outside this process:
// the Message of its classification, or a generic sentence.
func MessageOf(err error) string {
	if e, ok := As(err); ok && e.Message != "" && e.Category != Internal {
		return e.Message
	}
	return "internal error"
}
