package rest

import (
	"context"
	"errors"
	"net/http"

	"github.com/agent-trading/ats/models/errs"
)

// MapError classifies a Do error generically for read-only APIs (Gamma,
// Data API): 404 NotFound, 429 RateLimited, 401 Unauthorized, 403
// Forbidden, 5xx and transport failures Transient, other 4xx Invalid (the
// request was malformed). what names the service in messages ("gamma").
func MapError(err error, what string) error {
	if err == nil {
		return nil
	}
	if _, ok := errs.As(err); ok {
		return err
	}
	var se *StatusError
	if errors.As(err, &se) {
		switch {
		case se.Status == http.StatusNotFound:
			return errs.E(errs.NotFound, "not found").WithCode("not_found").WithCause(err)
		case se.Status == http.StatusTooManyRequests:
			e := errs.E(errs.RateLimited, what+" rate limit exceeded").WithCode("rate_limited").WithCause(err)
			e.RetryAfterSeconds = se.RetryAfter
			return e
		case se.Status == http.StatusUnauthorized:
			return errs.E(errs.Unauthorized, what+" refused the credentials").WithCode("unauthorized").WithCause(err)
		case se.Status == http.StatusForbidden:
			return errs.E(errs.Forbidden, what+" refused access").WithCode("forbidden").WithCause(err)
		case se.Status >= 500 || se.Status == 425:
			return errs.E(errs.Transient, what+" unavailable").WithCode("venue_unavailable").WithCause(err)
		}
		return errs.E(errs.Invalid, what+" rejected the request: "+se.Message).WithCode("venue_rejected").WithCause(err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return errs.E(errs.Transient, what+" timed out").WithCode("venue_timeout").WithCause(err)
	}
	if errors.Is(err, context.Canceled) {
		return errs.Wrap(errs.Transient, err, "request canceled")
	}
	return errs.E(errs.Transient, what+" unreachable").WithCode("venue_unreachable").WithCause(err)
}
