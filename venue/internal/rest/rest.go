// Package rest is the one HTTP client of the venue's APIs (CLOB, Gamma,
// Data API): base URL, per-call timeouts, the user agent, bounded retries
// (cenkalti/backoff) for requests that are safe to repeat, JSON decoding,
// and the venue's plain-string errors, classified as venue errors for the
// read-only APIs. The CLOB classifies its own answers (it knows what each
// endpoint means); it is internal to the venue's clients.
package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v5"
)

// Defaults for Config fields left zero.
const (
	DefaultTimeout = 15 * time.Second
	DefaultRetries = 2
	DefaultBackoff = 200 * time.Millisecond
	maxBody        = 32 << 20
	userAgent      = "ats-venue-client"
)

// Config configures a Client.
type Config struct {
	BaseURL string
	// HTTP is the transport; nil means a client with Timeout (plus a
	// second) as its overall timeout, a second line of defence behind the
	// per-call context.
	HTTP *http.Client
	// Timeout bounds each attempt (default DefaultTimeout).
	Timeout time.Duration
	// Retries is the number of extra attempts for Idempotent requests
	// (default DefaultRetries; negative disables).
	Retries int
	// Backoff is the base delay between attempts, doubled each time, with
	// jitter of up to half the delay (default DefaultBackoff).
	Backoff time.Duration
}

// Client issues requests against one base URL.
type Client struct {
	base    string
	http    *http.Client
	timeout time.Duration
	retries int
	backoff time.Duration
	api     string
}

// New returns a Client for cfg; api names the API in error messages
// ("gamma", "data api").
func New(cfg Config, api string) *Client {
	c := &Client{base: strings.TrimRight(cfg.BaseURL, "/"), http: cfg.HTTP, timeout: cfg.Timeout,
		retries: cfg.Retries, backoff: cfg.Backoff, api: api}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	switch {
	case c.retries < 0:
		c.retries = 0
	case c.retries == 0:
		c.retries = DefaultRetries
	}
	if c.backoff <= 0 {
		c.backoff = DefaultBackoff
	}
	if c.http == nil {
		c.http = &http.Client{Timeout: c.timeout + time.Second}
	}
	return c
}

// Request describes one call.
type Request struct {
	Method string
	// Path is the request path without query; for authenticated CLOB calls
	// it is exactly what gets signed.
	Path  string
	Query url.Values
	Body  []byte
	// Sign, when set, returns per-attempt headers (e.g. L2 auth) for
	// method, path and body.
	Sign func(method, path string, body []byte) (http.Header, error)
	// Idempotent requests are retried on transport errors and 5xx answers.
	// Never set it for calls whose repetition could duplicate an effect.
	Idempotent bool
}

// Response is a successful (2xx) answer.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// StatusError is a non-2xx answer from the server.
type StatusError struct {
	Status int
	// Message is the venue's error text ({"error": …}, {"message": …} or
	// the raw body).
	Message string
	// Code is the optional machine code some 503s carry.
	Code string
	// RetryAfter is the Retry-After header or retry_after_seconds, seconds.
	RetryAfter int
}

// Error renders status and venue message.
func (e *StatusError) Error() string {
	return fmt.Sprintf("HTTP %d: %s", e.Status, e.Message)
}

// TransportError is a failure without an HTTP answer.
type TransportError struct {
	// NotSent is true when the request provably never left this process
	// (DNS failure, connection refused), so repeating it cannot duplicate
	// anything.
	NotSent bool
	Err     error
}

// Error renders the transport failure.
func (e *TransportError) Error() string { return "transport: " + e.Err.Error() }

// Unwrap exposes the cause.
func (e *TransportError) Unwrap() error { return e.Err }

// Do performs r, retrying Idempotent requests. Non-2xx answers are
// *StatusError, failures without an answer *TransportError; context
// cancellation by the caller is returned as the context's error.
func (c *Client) Do(ctx context.Context, r Request) (*Response, error) {
	tries := uint(1)
	if r.Idempotent {
		tries += uint(c.retries)
	}
	b := &retryAfter{BackOff: &backoff.ExponentialBackOff{
		// A delay of d·2^i plus up to half of it: 1.25·d·2^i ± 20 %.
		InitialInterval:     c.backoff * 5 / 4,
		RandomizationFactor: 0.2,
		Multiplier:          2,
		MaxInterval:         time.Duration(1 << 62),
	}}
	return backoff.Retry(ctx, func() (*Response, error) {
		resp, err := c.once(ctx, r)
		switch {
		case err == nil:
			return resp, nil
		case ctx.Err() != nil:
			return nil, backoff.Permanent(ctx.Err())
		case !retryable(err):
			return nil, backoff.Permanent(err)
		}
		b.last = err
		return nil, err
	}, backoff.WithBackOff(b), backoff.WithMaxTries(tries), backoff.WithMaxElapsedTime(0))
}

// retryAfter waits at least as long as the last answer's Retry-After asks.
type retryAfter struct {
	backoff.BackOff
	last error
}

func (b *retryAfter) NextBackOff() time.Duration {
	d := b.BackOff.NextBackOff()
	if se, ok := b.last.(*StatusError); ok && se.RetryAfter > 0 {
		d = max(d, time.Duration(se.RetryAfter)*time.Second)
	}
	return d
}

func retryable(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Status >= 500 && se.Status != http.StatusNotImplemented || se.Status == 425
	}
	var te *TransportError
	return errors.As(err, &te)
}

func (c *Client) once(ctx context.Context, r Request) (*Response, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	u := c.base + r.Path
	if len(r.Query) > 0 {
		u += "?" + r.Query.Encode()
	}
	var body io.Reader
	if r.Body != nil {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u, body)
	if err != nil {
		return nil, &TransportError{NotSent: true, Err: err}
	}
	if r.Sign != nil {
		h, err := r.Sign(r.Method, r.Path, r.Body)
		if err != nil {
			return nil, err
		}
		for k, v := range h {
			req.Header[k] = v
		}
	}
	req.Header.Set("Accept", "*/*")
	if r.Body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("User-Agent", userAgent)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, &TransportError{NotSent: notSent(err), Err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, &TransportError{Err: err}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, statusError(resp, b)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}

// notSent recognises failures that happen before any byte is written.
func notSent(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

func statusError(resp *http.Response, b []byte) *StatusError {
	e := &StatusError{Status: resp.StatusCode}
	var m struct {
		Error      json.RawMessage `json:"error"`
		Message    string          `json:"message"`
		Code       string          `json:"code"`
		RetryAfter json.Number     `json:"retry_after_seconds"`
	}
	if json.Unmarshal(b, &m) == nil {
		var s string
		if len(m.Error) > 0 && json.Unmarshal(m.Error, &s) == nil {
			e.Message = s
		} else if len(m.Error) > 0 {
			e.Message = string(m.Error)
		}
		if e.Message == "" {
			e.Message = m.Message
		}
		e.Code = m.Code
		if n, err := m.RetryAfter.Int64(); err == nil {
			e.RetryAfter = int(n)
		}
	} else {
		var s string
		if json.Unmarshal(b, &s) == nil {
			e.Message = s
		}
	}
	if e.Message == "" {
		e.Message = strings.TrimSpace(string(b))
		if len(e.Message) > 300 {
			e.Message = e.Message[:300]
		}
	}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	if ra := resp.Header.Get("Retry-After"); ra != "" {
		if n, err := strconv.Atoi(ra); err == nil {
			e.RetryAfter = n
		} else if t, err := http.ParseTime(ra); err == nil {
			e.RetryAfter = max(0, int(time.Until(t).Seconds()+0.5))
		}
	}
	return e
}

// DecodeJSON unmarshals a response body into v.
func DecodeJSON(resp *Response, v any) error {
	if err := json.Unmarshal(resp.Body, v); err != nil {
		return fmt.Errorf("decode response: %w", err)
	}
	return nil
}
