package rest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/agent-trading/ats/venue"
)

// GetJSON performs an idempotent GET of path and decodes the JSON answer
// into out: the whole of a read-only API's call (Gamma, Data API).
func (c *Client) GetJSON(ctx context.Context, path string, q url.Values, out any) error {
	resp, err := c.Do(ctx, Request{Method: http.MethodGet, Path: path, Query: q, Idempotent: true})
	if err != nil {
		return MapError(err, c.api)
	}
	if err := json.Unmarshal(resp.Body, out); err != nil {
		return venue.Wrap(venue.Unavailable, err, "unexpected "+c.api+" response")
	}
	return nil
}
