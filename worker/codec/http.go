package codec

import (
	"net/http"
	"slices"
	"strings"

	"go.temporal.io/sdk/converter"
)

// NewHTTPHandler serves c as a Temporal remote codec (POST …/encode and
// …/decode, the protocol the Web UI and `temporal --codec-endpoint` speak).
// allowedOrigins are the Web UI origins allowed to call it from a browser
// (e.g. "http://127.0.0.1:8233"); requests from other origins get no CORS
// headers and are therefore unreadable to the browser. The handler reveals
// payload plaintext: bind it to loopback or put it behind authentication.
func NewHTTPHandler(c *Codec, allowedOrigins ...string) http.Handler {
	inner := converter.NewPayloadCodecHTTPHandler(c)
	allowed := make([]string, 0, len(allowedOrigins))
	for _, o := range allowedOrigins {
		allowed = append(allowed, strings.TrimSuffix(o, "/"))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin != "" && slices.Contains(allowed, origin) {
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Access-Control-Allow-Credentials", "true")
			h.Set("Access-Control-Allow-Methods", "POST, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Content-Type, X-Namespace, Authorization")
			h.Add("Vary", "Origin")
		}
		if r.Method == http.MethodOptions {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST, OPTIONS")
			http.Error(w, http.StatusText(http.StatusMethodNotAllowed), http.StatusMethodNotAllowed)
			return
		}
		inner.ServeHTTP(w, r)
	})
}
