package chain

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/agent-trading/ats/venue"
)

func TestRedactURL(t *testing.T) {
	err := &url.Error{Op: "Post", URL: "https://polygon-mainnet.example.com/v2/SECRETKEY?x=1", Err: errors.New("dial tcp: connection refused")}
	got := classifyRPC(err, "call")
	if strings.Contains(got.Error(), "SECRETKEY") {
		t.Fatalf("error leaks the RPC key: %v", got)
	}
	if !venue.Is(got, venue.Unavailable) {
		t.Fatalf("kind %v", venue.CategoryOf(got))
	}
}
