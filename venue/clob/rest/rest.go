// Package rest is the small HTTP layer shared by the venue clients (CLOB,
// Gamma, Data API): per-call timeouts, bounded retries for requests that
// are safe to repeat, and extraction of the venue's plain-string errors.
// Mapping those errors to models/errs kinds is left to each client, which
// knows what the endpoint means.
package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Defaults for Client fields left zero.
const (
	DefaultTimeout = 15 * time.Second
	DefaultRetries = 2
	DefaultBackoff = 200 * time.Millisecond
	maxBody        = 32 << 20
)

// Client issues requests against one base URL.
type Client struct {
	BaseURL string
	// HTTP is the transport; nil means a client with Timeout as its overall
	// timeout (a second line of defence behind the per-call context).
	HTTP *http.Client
	// Timeout bounds each attempt (default DefaultTimeout).
	Timeout time.Duration
	// Retries is the number of extra attempts for Idempotent requests
	// (default DefaultRetries; negative disables).
	Retries int
	// Backoff is the base delay between attempts, doubled each time, with
	// jitter (default DefaultBackoff).
	Backoff time.Duration
	// UserAgent is sent on every request.
	UserAgent string
}

// New returns a Client for baseURL with defaults.
func New(baseURL string) *Client {
	c := &Client{BaseURL: strings.TrimRight(baseURL, "/")}
	c.HTTP = &http.Client{Timeout: c.timeout() + time.Second}
	return c
}

func (c *Client) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

func (c *Client) retries() int {
	switch {
	case c.Retries < 0:
		return 0
	case c.Retries == 0:
		return DefaultRetries
	}
	return c.Retries
}

func (c *Client) backoff() time.Duration {
	if c.Backoff > 0 {
		return c.Backoff
	}
	return DefaultBackoff
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return &http.Client{Timeout: c.timeout() + time.Second}
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
	attempts := 1
	if r.Idempotent {
		attempts += c.retries()
	}
	var last error
	for i := 0; i < attempts; i++ {
		if i > 0 {
			d := c.backoff() << (i - 1)
			d += time.Duration(rand.Int64N(int64(d)/2 + 1))
			if se, ok := last.(*StatusError); ok && se.RetryAfter > 0 {
				d = max(d, time.Duration(se.RetryAfter)*time.Second)
			}
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			case <-t.C:
			}
		}
		resp, err := c.once(ctx, r)
		if err == nil {
			return resp, nil
		}
		last = err
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !retryable(err) {
			return nil, err
		}
	}
	return nil, last
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
	ctx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	u := c.BaseURL + r.Path
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
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	resp, err := c.httpClient().Do(req)
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
