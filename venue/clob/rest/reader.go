package rest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"

	"github.com/agent-trading/ats/venue"
)

// ReadConfig configures a client of one of the venue's read-only APIs
// (Gamma, Data API): every call is an idempotent GET, retried on transport
// errors and 5xx answers.
type ReadConfig struct {
	BaseURL string
	HTTP    *http.Client
	Timeout time.Duration
	Retries int
	Backoff time.Duration
}

// NewReader returns the Client for cfg.
func NewReader(cfg ReadConfig) *Client {
	rc := New(cfg.BaseURL)
	if cfg.HTTP != nil {
		rc.HTTP = cfg.HTTP
	} else if cfg.Timeout > 0 {
		rc.HTTP = &http.Client{Timeout: cfg.Timeout + time.Second}
	}
	rc.Timeout, rc.Retries, rc.Backoff = cfg.Timeout, cfg.Retries, cfg.Backoff
	rc.UserAgent = "ats-venue-client"
	return rc
}

// GetJSON performs an idempotent GET of path and decodes the JSON answer
// into out. api names the API in error messages ("gamma", "data api").
func (c *Client) GetJSON(ctx context.Context, path string, q url.Values, out any, api string) error {
	resp, err := c.Do(ctx, Request{Method: http.MethodGet, Path: path, Query: q, Idempotent: true})
	if err != nil {
		return MapError(err, api)
	}
	if err := json.Unmarshal(resp.Body, out); err != nil {
		return venue.Wrap(venue.Unavailable, err, "unexpected "+api+" response")
	}
	return nil
}
