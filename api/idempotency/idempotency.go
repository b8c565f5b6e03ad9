// Package idempotency implements the Idempotency-Key header of the agent
// API's mutating endpoints (POST /orders, POST /positions/{id}/close,
// POST /wallet/approve, POST /settlements/redeem): a retry with the same key
// and request replays the first final response instead of acting twice.
// See docs/idempotency.md for the contract.
package idempotency

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/agentauth"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
)

// Header names of the protocol.
const (
	// HeaderKey carries the client's idempotency key.
	HeaderKey = "Idempotency-Key"
	// HeaderReplayed is "true" on a response replayed from a record.
	HeaderReplayed = "Idempotent-Replayed"
)

// MaxKeyLen is the longest accepted key, in bytes.
const MaxKeyLen = 255

// Defaults of Options.
const (
	// DefaultTTL is the store's retention, which orders placed with a key
	// share: after it the key is free for a new order.
	DefaultTTL             = store.IdempotencyRetention
	DefaultLease           = 2 * time.Minute
	DefaultMaxResponseSize = 1 << 20
	// inFlightRetryAfter is the Retry-After (seconds) of a 409 in flight:
	// the endpoints behind the middleware answer within seconds.
	inFlightRetryAfter = 1
	// storeTimeout bounds the bookkeeping writes after the handler, which
	// run even when the client has gone (the result must still be kept).
	storeTimeout = 5 * time.Second
)

// Options configures Middleware; zero fields take the defaults.
type Options struct {
	// TTL is how long a key and its response are kept (default 24 h).
	TTL time.Duration
	// Lease is how long an unfinished claim blocks its key; after it a
	// retry takes the key over, so a crashed request can't block it for
	// the whole TTL (default 2 min). It must exceed the longest handler.
	Lease time.Duration
	// MaxResponseSize is the largest response body stored; a larger one is
	// not stored and its claim is released (default 1 MiB).
	MaxResponseSize int
}

func (o Options) withDefaults() Options {
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	if o.MaxResponseSize <= 0 {
		o.MaxResponseSize = DefaultMaxResponseSize
	}
	return o
}

// Middleware returns the Idempotency-Key middleware. Mount it per route
// after agentauth's middleware (records are scoped to the agent), e.g.
// g.POST("/orders", agentauth.Require("trade"), idempotency.Middleware(st, idempotency.Options{}), h).
//
// Without the header the request passes through untouched. With it, the
// request is fingerprinted (method, path, query, canonical JSON body) and
// the key claimed atomically; exactly one request runs the handler and
// its response is stored when final (2xx except 202, 4xx except 429). Later
// requests with the key get the stored response (same fingerprint), 422
// idempotency_key_reused (different fingerprint) or 409
// idempotency_in_flight (the first one is still running). A 202 is kept
// for its fingerprint but is not final: a retry with the same request runs
// the handler again (the handler must itself be idempotent, as POST /orders
// is by the key it stores on the order) and its final answer replaces it.
func Middleware(st *store.Store, opts Options) gin.HandlerFunc {
	opts = opts.withDefaults()
	return func(c *gin.Context) {
		values, present := c.Request.Header[http.CanonicalHeaderKey(HeaderKey)]
		if !present {
			c.Next()
			return
		}
		key, err := validKey(values)
		if err != nil {
			api.Fail(c, err)
			c.Abort()
			return
		}
		id, ok := agentauth.From(c)
		if !ok || id.AgentID == "" {
			api.Fail(c, errs.E(errs.Unauthorized, "authentication required"))
			c.Abort()
			return
		}
		body, err := io.ReadAll(c.Request.Body)
		if err != nil {
			api.Fail(c, err) // an over-limit body becomes 413
			c.Abort()
			return
		}
		c.Request.Body = io.NopCloser(bytes.NewReader(body))
		hash := Fingerprint(c.Request, body)

		claim, won, err := st.ClaimIdempotency(c.Request.Context(), id.AgentID, key, hash, opts.TTL, opts.Lease)
		if err != nil {
			api.Fail(c, err)
			c.Abort()
			return
		}
		if !won {
			answerExisting(c, st, claim, hash, opts)
			return
		}
		run(c, st, claim, opts)
	}
}

// validKey accepts exactly one header value of 1..MaxKeyLen printable ASCII
// characters; anything else is a client bug better reported than guessed.
func validKey(values []string) (string, error) {
	invalid := func(msg string) error {
		return errs.E(errs.Invalid, msg).WithCode(errs.CodeInvalidIdempotencyKey)
	}
	if len(values) != 1 {
		return "", invalid("send exactly one Idempotency-Key header")
	}
	k := values[0]
	switch {
	case k == "":
		return "", invalid("the Idempotency-Key header is empty")
	case len(k) > MaxKeyLen:
		return "", invalid("the Idempotency-Key header is longer than " + strconv.Itoa(MaxKeyLen) + " characters")
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return "", invalid("the Idempotency-Key header must be printable ASCII")
		}
	}
	return k, nil
}

// Fingerprint is the hex SHA-256 of the request's method, path, sorted
// query and canonical body. The concrete path (not the route template) is
// used, so closing two different positions with one key is a reuse. A JSON
// body is canonicalised (key order and whitespace don't matter, number
// literals are kept verbatim); any other body is hashed as is.
func Fingerprint(r *http.Request, body []byte) string {
	h := sha256.New()
	for _, part := range []string{r.Method, r.URL.Path, r.URL.Query().Encode()} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	h.Write(canonicalJSON(body))
	return hex.EncodeToString(h.Sum(nil))
}

func canonicalJSON(body []byte) []byte {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return body
	}
	out, err := json.Marshal(v) // maps marshal with sorted keys
	if err != nil {
		return body
	}
	return out
}

// answerExisting answers a request whose key is held by rec.
func answerExisting(c *gin.Context, st *store.Store, rec *models.IdempotencyRecord, hash string, opts Options) {
	switch {
	case rec.RequestHash != hash:
		// 422, not a kind of errs: the request is well formed but can't be
		// processed under this key, and StatusFor's 422 label is the venue's.
		c.AbortWithStatusJSON(http.StatusUnprocessableEntity, api.ErrorBody{
			Error:     "Unprocessable Entity",
			Message:   "this Idempotency-Key was used with a different request",
			Code:      errs.CodeIdempotencyKeyReused,
			Hint:      "use a new Idempotency-Key for a different request",
			RequestID: api.RequestID(c),
		})
	case rec.ResponseStatus == store.IdempotencyPending:
		c.Header("Retry-After", strconv.Itoa(inFlightRetryAfter))
		api.Fail(c, errs.E(errs.Conflict, "a request with this Idempotency-Key is still in progress").
			WithCode(errs.CodeIdempotencyInFlight).WithHint("retry after a moment to get its response"))
		c.Abort()
	case rec.ResponseStatus == http.StatusAccepted:
		// "Accepted, still in progress" describes a moment: the retry asks
		// the handler for the current state.
		run(c, st, rec, opts)
	default:
		c.Header(HeaderReplayed, "true")
		if len(rec.ResponseBody) == 0 {
			c.Status(rec.ResponseStatus)
			c.Writer.WriteHeaderNow()
		} else {
			c.Data(rec.ResponseStatus, "application/json; charset=utf-8", rec.ResponseBody)
		}
		c.Abort()
	}
}

// run executes the handler chain under claim and records or releases it.
// claim is either the placeholder the request won or a stored 202 being
// run again; the latter is never released (its fingerprint must keep
// guarding the key) and is replaced only by a storable response.
func run(c *gin.Context, st *store.Store, claim *models.IdempotencyRecord, opts Options) {
	rerun := claim.ResponseStatus != store.IdempotencyPending
	w := &recorder{ResponseWriter: c.Writer, limit: opts.MaxResponseSize}
	c.Writer = w
	finished := false
	defer func() {
		c.Writer = w.ResponseWriter
		ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request.Context()), storeTimeout)
		defer cancel()
		log := api.LoggerFrom(c)
		status := w.Status()
		if finished && (storable(status) || status == http.StatusAccepted) && !w.overflow {
			err := st.CompleteIdempotency(ctx, claim, status, w.buf.Bytes())
			if err == nil || rerun && errs.Is(err, errs.NotFound) {
				return // a concurrent re-run stored its answer first
			}
			log.WarnContext(ctx, "idempotency: storing the response failed", "status", status, "error", err)
		}
		if rerun {
			return
		}
		// Not storable, or a panic on its way up: free the key so a retry
		// runs the request again.
		if err := st.ReleaseIdempotency(ctx, claim); err != nil {
			log.WarnContext(ctx, "idempotency: releasing the claim failed; the key is blocked until its lease ends", "error", err)
		}
	}()
	c.Next()
	finished = true
}

// storable reports whether a response is final: success and client errors
// are, while 202 (accepted, still in progress), 429 and 5xx describe a
// moment, not the request, and a retry must run the request again.
func storable(status int) bool {
	return status >= 200 && status < 500 && status != http.StatusAccepted && status != http.StatusTooManyRequests
}

// recorder tees the response body into buf, up to limit bytes.
type recorder struct {
	gin.ResponseWriter
	buf      bytes.Buffer
	limit    int
	overflow bool
}

func (r *recorder) keep(p []byte) {
	if r.overflow {
		return
	}
	if r.buf.Len()+len(p) > r.limit {
		r.overflow = true
		r.buf.Reset()
		return
	}
	r.buf.Write(p)
}

// Write implements http.ResponseWriter.
func (r *recorder) Write(p []byte) (int, error) {
	r.keep(p)
	return r.ResponseWriter.Write(p)
}

// WriteString implements io.StringWriter.
func (r *recorder) WriteString(s string) (int, error) {
	r.keep([]byte(s))
	return r.ResponseWriter.WriteString(s)
}
