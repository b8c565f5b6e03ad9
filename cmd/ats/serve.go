package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// serveListener serves h on an already bound listener and returns its URL.
func serveListener(st *stack, name string, ln net.Listener, h http.Handler) string {
	url := "http://" + ln.Addr().String()
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			st.fail(name, err)
		}
	}()
	st.onStop(name, func(ctx context.Context) error { return srv.Shutdown(ctx) })
	st.listening(name, url)
	return url
}
