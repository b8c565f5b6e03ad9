package api

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/agent-trading/ats/models/errs"
)

// Envelope is the success body of every JSON endpoint:
// {"success": true, "data": ..., "message": "..."}. Data is always present
// (null when the operation has no payload); Message only when set.
type Envelope struct {
	Success bool   `json:"success"`
	Data    any    `json:"data"`
	Message string `json:"message,omitempty"`
}

// ErrorBody is the error body of every endpoint, including 404/405/413/415
// and recovered panics:
// {"success": false, "error": "Not Found", "message": "order not found"}.
// Code and Hint come from the errs.Error; RetryAfter is set on 429 (always)
// and on 503 when the error says when to retry; RequestID lets the client
// quote the failure (it is also the X-Request-Id response header).
type ErrorBody struct {
	Success    bool   `json:"success"`
	Error      string `json:"error"`
	Message    string `json:"message"`
	Code       string `json:"code,omitempty"`
	Hint       string `json:"hint,omitempty"`
	RetryAfter int    `json:"retryAfter,omitempty"`
	RequestID  string `json:"requestId,omitempty"`
}

// OK answers 200 with {"success": true, "data": data}.
func OK(c *gin.Context, data any) {
	c.JSON(http.StatusOK, Envelope{Success: true, Data: data})
}

// OKMessage answers 200 with data and a human-readable message, as the
// cancel and close-position operations do.
func OKMessage(c *gin.Context, message string, data any) {
	c.JSON(http.StatusOK, Envelope{Success: true, Data: data, Message: message})
}

// OKWith answers status with the envelope plus extra top-level members:
// "message", and the per-operation members of the spec ("sync" on list
// orders, "context" on market search, "meta" on crypto markets). The keys
// "success" and "data" are the envelope's own and cannot be overridden by
// extra; "error" is reserved for failures and is dropped.
func OKWith(c *gin.Context, status int, data any, extra map[string]any) {
	body := make(map[string]any, len(extra)+2)
	for k, v := range extra {
		if k == "error" {
			continue
		}
		body[k] = v
	}
	body["success"] = true
	body["data"] = data
	c.JSON(status, body)
}

// StatusFor is THE mapping from an error kind to its HTTP status and the
// short label sent as "error". Every error response goes through it.
//
// VenueRejected is 422 Unprocessable Content: the request was well formed
// and authorised and the service processed it, but the exchange or the
// chain refused it (insufficient balance or allowance, price off the tick,
// market closed). It is neither the client's syntax error (400) nor our
// failure (5xx), and agents must not retry it unchanged, which 422 conveys.
//
// VenueDenied is 502 Bad Gateway: the venue refused the service's own
// credentials or access. It must not be 401/403, which tell the agent its
// own key or scope is wrong.
func StatusFor(k errs.Kind) (status int, label string) {
	switch k {
	case errs.Invalid:
		return http.StatusBadRequest, "Bad Request"
	case errs.Unauthorized:
		return http.StatusUnauthorized, "Unauthorized"
	case errs.Forbidden:
		return http.StatusForbidden, "Forbidden"
	case errs.NotFound:
		return http.StatusNotFound, "Not Found"
	case errs.Conflict:
		return http.StatusConflict, "Conflict"
	case errs.RateLimited:
		return http.StatusTooManyRequests, "Rate Limited"
	case errs.VenueRejected:
		return http.StatusUnprocessableEntity, "Venue Rejected"
	case errs.Transient:
		return http.StatusServiceUnavailable, "Service Unavailable"
	case errs.VenueDenied:
		return http.StatusBadGateway, "Bad Gateway"
	default:
		return http.StatusInternalServerError, "Internal Server Error"
	}
}

// defaultMessages are used when a classified error carries no Message.
var defaultMessages = map[errs.Kind]string{
	errs.Invalid:       "the request is invalid",
	errs.Unauthorized:  "authentication required",
	errs.Forbidden:     "you are not allowed to perform this operation",
	errs.NotFound:      "not found",
	errs.Conflict:      "the request conflicts with the current state",
	errs.RateLimited:   "too many requests; wait before retrying",
	errs.VenueRejected: "the venue rejected the request",
	errs.Transient:     "a dependency is temporarily unavailable; retry later",
	errs.VenueDenied:   "the venue refused the service's request",
}

// httpError is a failure of the HTTP layer itself (body too large, wrong
// content type, unknown route), which has a status but no errs.Kind.
type httpError struct {
	status  int
	label   string
	message string
	cause   error
}

func (e *httpError) Error() string {
	if e.cause != nil {
		return e.message + ": " + e.cause.Error()
	}
	return e.message
}

func (e *httpError) Unwrap() error { return e.cause }

func tooLarge(limit int64, cause error) *httpError {
	return &httpError{
		status:  http.StatusRequestEntityTooLarge,
		label:   "Payload Too Large",
		message: "request body too large (limit " + strconv.FormatInt(limit, 10) + " bytes)",
		cause:   cause,
	}
}

// Fail answers err in the error envelope and aborts the handler chain.
//
// Classified errors (errs.Error) get the status and label of StatusFor,
// their Message, Code and Hint. Internal and unclassified errors get a
// generic message with the request id to quote, and their full text is
// logged at error level with the request id; it never reaches the client.
// An unclassified context deadline is reported as 503 (the request ran out
// of time waiting on a dependency); a body over the limit as 413.
func Fail(c *gin.Context, err error) {
	if err == nil {
		err = errs.E(errs.Internal, "api.Fail called with a nil error")
	}
	reqID := RequestID(c)
	log := LoggerFrom(c)
	ctx := c.Request.Context()

	var he *httpError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &he):
		writeError(c, he.status, ErrorBody{Error: he.label, Message: he.message})
		log.DebugContext(ctx, "request rejected", "status", he.status, "error", err)
		return
	case errors.As(err, &mbe):
		he = tooLarge(mbe.Limit, err)
		writeError(c, he.status, ErrorBody{Error: he.label, Message: he.message})
		return
	}

	e, classified := errs.As(err)
	if !classified {
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			e = &errs.Error{Kind: errs.Transient, Message: "the request timed out; retry later", Err: err}
		case errors.Is(err, context.Canceled):
			e = &errs.Error{Kind: errs.Transient, Message: "the request was cancelled", Err: err}
		default:
			e = &errs.Error{Kind: errs.Internal, Err: err}
		}
	}
	status, label := StatusFor(e.Kind)
	body := ErrorBody{Error: label}
	c.Set(ctxKeyErrorKind, e.Kind.String())

	switch e.Kind {
	case errs.Internal:
		body.Message = "internal error; quote request id " + reqID + " when reporting it"
		log.ErrorContext(ctx, "internal error", "error", err, "method", c.Request.Method, "route", c.FullPath())
	default:
		body.Message = e.Message
		if body.Message == "" {
			body.Message = defaultMessages[e.Kind]
		}
		body.Code = errs.CodeOf(err)
		body.Hint = hintOf(err)
		if e.Kind == errs.RateLimited {
			body.RetryAfter = max(1, e.RetryAfterSeconds)
		} else if e.RetryAfterSeconds > 0 && e.Kind == errs.Transient {
			body.RetryAfter = e.RetryAfterSeconds
		}
		if body.RetryAfter > 0 {
			c.Header("Retry-After", strconv.Itoa(body.RetryAfter))
		}
		level := slog.LevelDebug
		if status >= 500 && !errors.Is(err, context.Canceled) {
			// A client hanging up is routine; a dependency failing is not.
			level = slog.LevelWarn
		}
		log.Log(ctx, level, "request failed", "status", status, "kind", e.Kind.String(), "code", body.Code, "error", err)
	}
	writeError(c, status, body)
}

// hintOf returns the first Hint along err's chain of *errs.Error.
func hintOf(err error) string {
	for err != nil {
		e, ok := errs.As(err)
		if !ok {
			return ""
		}
		if e.Hint != "" {
			return e.Hint
		}
		err = e.Err
	}
	return ""
}

// failStatus answers a failure of the HTTP layer itself.
func failStatus(c *gin.Context, status int, label, message string) {
	writeError(c, status, ErrorBody{Error: label, Message: message})
}

func writeError(c *gin.Context, status int, body ErrorBody) {
	body.Success = false
	body.RequestID = RequestID(c)
	if c.Writer.Written() {
		// The handler already streamed part of a response; a second body
		// would corrupt it. The access log still records the status.
		LoggerFrom(c).WarnContext(c.Request.Context(), "error after response started",
			"status", status, "message", body.Message)
		c.Abort()
		return
	}
	c.AbortWithStatusJSON(status, body)
}
