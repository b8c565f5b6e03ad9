// Package temporalerr is the one place where the service's error taxonomy
// (models/errs) is mapped to and from Temporal failures: To decides what
// Temporal retries, From turns what comes out of Temporal back into an
// *errs.Error. It is a leaf: it imports models/errs and the Temporal SDK
// only, so the workflows' clients, the workflows and the activities all
// classify through it without one layer importing another for it.
package temporalerr

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/temporal"

	"github.com/agent-trading/ats/models/errs"
)

// Details is the first detail attached to every ApplicationError built
// by To. It carries the parts of an *errs.Error that the
// ApplicationError has no field for, so From can rebuild the error
// on the other side of a workflow or activity boundary.
type Details struct {
	Code              string `json:"code,omitempty"`
	Hint              string `json:"hint,omitempty"`
	RetryAfterSeconds int    `json:"retry_after_seconds,omitempty"`
}

// To converts an error returned by service code into the error an
// activity (or workflow) returns to Temporal. It is the one place deciding
// what Temporal retries:
//
//   - errs.Transient and errs.RateLimited become retryable ApplicationErrors;
//     RateLimited with RetryAfterSeconds > 0 asks for exactly that delay
//     before the next attempt instead of the policy's backoff.
//   - every other kind (unclassified errors count as errs.Internal) becomes a
//     non-retryable ApplicationError, because retrying a bad request, a
//     venue rejection or a bug only burns the retry budget.
//
// The ApplicationError's Type is the kind name (errs.Kind.String) and its
// message is the client-safe Message; the cause is kept as the error's
// cause so operators can see it (the failure converter encrypts it).
// Errors Temporal already understands (application, canceled and timeout
// errors, context cancellation and deadlines) pass through unchanged so
// Temporal's own cancellation and timeout handling keeps working.
// A nil err yields nil.
func To(err error) error {
	if err == nil {
		return nil
	}
	e, classified := errs.As(err)
	if !classified {
		var (
			appErr      *temporal.ApplicationError
			canceledErr *temporal.CanceledError
			timeoutErr  *temporal.TimeoutError
		)
		switch {
		case errors.As(err, &appErr), errors.As(err, &canceledErr), errors.As(err, &timeoutErr),
			errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
			return err
		}
		e = &errs.Error{Kind: errs.Internal, Message: "internal error", Err: err}
	}
	kind := e.Kind
	opts := temporal.ApplicationErrorOptions{
		NonRetryable: !kind.Retryable(),
		Cause:        e.Err,
		Details: []any{Details{
			Code:              errs.CodeOf(err),
			Hint:              e.Hint,
			RetryAfterSeconds: e.RetryAfterSeconds,
		}},
	}
	if kind == errs.RateLimited && e.RetryAfterSeconds > 0 {
		opts.NextRetryDelay = time.Duration(e.RetryAfterSeconds) * time.Second
	}
	msg := e.Message
	if msg == "" {
		msg = kind.String()
	}
	return temporal.NewApplicationErrorWithOptions(msg, kind.String(), opts)
}

// From converts an error coming out of Temporal (an activity result
// inside a workflow, a workflow result or a client call in the API) back to
// an *errs.Error with the kind, code, hint and message To encoded, so
// the API answers the same HTTP status the activity meant. Temporal's own
// conditions are classified too: timeouts are Transient, cancellation and
// "already started" are Conflict, an unknown workflow is NotFound, and an
// unavailable frontend is Transient. Anything else is Internal, with the
// original error kept as the cause. A nil err yields nil; an error that
// already is an *errs.Error is returned as is.
func From(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := errs.As(err); ok {
		return err
	}
	var (
		appErr      *temporal.ApplicationError
		timeoutErr  *temporal.TimeoutError
		canceledErr *temporal.CanceledError
		terminated  *temporal.TerminatedError
		notFound    *serviceerror.NotFound
		started     *serviceerror.WorkflowExecutionAlreadyStarted
		unavailable *serviceerror.Unavailable
		exhausted   *serviceerror.ResourceExhausted
	)
	switch {
	case errors.As(err, &appErr):
		return fromApplicationError(appErr)
	case errors.As(err, &timeoutErr):
		return errs.Wrap(errs.Transient, err, "operation timed out")
	case errors.As(err, &canceledErr):
		return errs.Wrap(errs.Conflict, err, "operation was canceled")
	case errors.As(err, &terminated):
		return errs.Wrap(errs.Conflict, err, "operation was terminated")
	case errors.As(err, &notFound):
		return errs.Wrap(errs.NotFound, err, "not found")
	case errors.As(err, &started):
		return errs.Wrap(errs.Conflict, err, "already in progress")
	case errors.As(err, &exhausted):
		return errs.Wrap(errs.RateLimited, err, "workflow service is busy")
	case errors.As(err, &unavailable), errors.Is(err, context.DeadlineExceeded):
		return errs.Wrap(errs.Transient, err, "workflow service unavailable")
	}
	return errs.Wrap(errs.Internal, err, "internal error")
}

func fromApplicationError(appErr *temporal.ApplicationError) error {
	kind := errs.ParseKind(appErr.Type())
	if kind == errs.Internal && appErr.Type() != errs.Internal.String() {
		// Not produced by To (e.g. an SDK panic error): its message
		// is not known to be client-safe.
		return &errs.Error{Kind: errs.Internal, Message: "internal error", Err: appErr}
	}
	out := &errs.Error{Kind: kind, Message: appErr.Message(), Err: appErr}
	if appErr.HasDetails() {
		var d Details
		if appErr.Details(&d) == nil {
			out.Code, out.Hint, out.RetryAfterSeconds = d.Code, d.Hint, d.RetryAfterSeconds
		}
	}
	if out.RetryAfterSeconds == 0 && appErr.NextRetryDelay() > 0 {
		out.RetryAfterSeconds = int((appErr.NextRetryDelay() + time.Second - 1) / time.Second)
	}
	return out
}
