package markets_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Item 10 of issue 12: when the venue refuses the service (its 401/403),
// the agent gets a 502 with a venue code, never a 401/403 that would tell
// it its own key is wrong.
func TestVenueRefusingTheServiceIsABadGateway(t *testing.T) {
	for _, tt := range []struct {
		status int
		body   string
		code   string
	}{
		{http.StatusUnauthorized, `{"error":"Unauthorized/Invalid api key"}`, "venue_unauthorized"},
		{http.StatusForbidden, `{"error":"Trading restricted in your region"}`, "venue_forbidden"},
	} {
		venue := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(tt.status)
			_, _ = w.Write([]byte(tt.body))
		}))
		e := engine(newService(venue.URL, venue.URL))
		for _, p := range []string{"/markets/search", "/markets/1", "/orderbook?token_id=1", "/prices?token_id=1"} {
			r := call(t, e, readKey, p)
			assert.Equal(t, http.StatusBadGateway, r.Status, "%d %s", tt.status, p)
			assert.Equal(t, "Bad Gateway", r.Error, p)
			assert.Contains(t, r.Message, "the venue refused", p)
			assert.Equal(t, tt.code, r.Code, "%d %s", tt.status, p)
		}
		venue.Close()
	}
}
