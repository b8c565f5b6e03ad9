package app

import (
	"context"
	"errors"
	"net"
	"net/http"

	"github.com/agent-trading/ats/api"
)

// serveListener serves h on an already bound listener, with the hardened
// server and the listener's deadlines, and returns its URL.
func serveListener(st *stack, name string, ln net.Listener, h http.Handler, t api.Timeouts) string {
	url := "http://" + ln.Addr().String()
	srv := api.HardenedServer(h, t, st.log.With("listener", name))
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			st.fail(name, err)
		}
	}()
	st.onStop(name, func(ctx context.Context) error { return srv.Shutdown(ctx) })
	st.listening(name, url)
	return url
}
