package rest

import (
	"context"
	"errors"
	"net/http"

	"github.com/agent-trading/ats/venue"
)

// MapError classifies a Do error generically for read-only APIs (Gamma,
// Data API): 404 NotFound, 429 RateLimited, 401 Unauthorized, 403
// Forbidden, 5xx and transport failures Unavailable, other 4xx Invalid (the
// request was malformed). what names the service in messages ("gamma").
func MapError(err error, what string) error {
	if err == nil {
		return nil
	}
	if _, ok := venue.As(err); ok {
		return err
	}
	var se *StatusError
	if errors.As(err, &se) {
		e := answerError(se, what)
		e.Status = se.Status
		return e.WithCause(err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return venue.E(venue.Unavailable, what+" timed out").WithCode("venue_timeout").WithCause(err)
	}
	if errors.Is(err, context.Canceled) {
		return venue.Wrap(venue.Unavailable, err, "request canceled")
	}
	return venue.E(venue.Unavailable, what+" unreachable").WithCode("venue_unreachable").WithCause(err)
}

// answerError classifies a non-2xx answer of a read-only API.
func answerError(se *StatusError, what string) *venue.Error {
	switch {
	case se.Status == http.StatusNotFound:
		return venue.E(venue.NotFound, "not found").WithCode("not_found")
	case se.Status == http.StatusTooManyRequests:
		e := venue.E(venue.RateLimited, what+" rate limit exceeded").WithCode("rate_limited")
		e.RetryAfterSeconds = se.RetryAfter
		return e
	case se.Status == http.StatusUnauthorized:
		return venue.E(venue.Unauthorized, what+" refused the credentials").WithCode("unauthorized")
	case se.Status == http.StatusForbidden:
		return venue.E(venue.Forbidden, what+" refused access").WithCode("forbidden")
	case se.Status >= 500 || se.Status == 425:
		return venue.E(venue.Unavailable, what+" unavailable").WithCode("venue_unavailable")
	}
	return venue.E(venue.Invalid, what+" rejected the request: "+se.Message).WithCode("venue_rejected")
}
