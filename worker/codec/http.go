package codec

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	commonpb "go.temporal.io/api/common/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

// MaxHTTPBodyBytes bounds one /encode or /decode request. Temporal caps a
// payload at 2 MiB and the Web UI sends one event's payloads at a time.
const MaxHTTPBodyBytes = 8 << 20

// NewHTTPHandler serves c as the Temporal remote codec of namespace: POST
// …/encode and …/decode (the protocol the Web UI and `temporal
// --codec-endpoint` speak) with a JSON body {"payloads": […]}. It speaks
// JSON only: any other Content-Type (text/plain above all, which a
// cross-site page can send without a CORS preflight) is refused with 415.
// An X-Namespace header naming another namespace is refused with 403.
//
// Decoding reveals payload plaintext to whoever may call this handler:
// mount it only behind operator authentication, a Host check and CORS for
// the Web UI's origin (cmd/ats's operator listener does). What it encodes
// is bound to the namespace and to no workflow, so no workflow accepts it
// (see the package documentation).
func NewHTTPHandler(c *Codec, namespace string) http.Handler {
	nc := c.ForNamespace(namespace)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var convert func([]*commonpb.Payload) ([]*commonpb.Payload, error)
		switch {
		case strings.HasSuffix(r.URL.Path, "/encode"):
			convert = nc.Encode
		case strings.HasSuffix(r.URL.Path, "/decode"):
			convert = nc.Decode
		default:
			httpError(w, http.StatusNotFound, "no such codec endpoint: use …/encode or …/decode")
			return
		}
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			httpError(w, http.StatusMethodNotAllowed, "the codec answers POST only")
			return
		}
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			httpError(w, http.StatusUnsupportedMediaType, "the codec accepts Content-Type: application/json only")
			return
		}
		if ns := r.Header.Get("X-Namespace"); ns != "" && ns != namespace {
			httpError(w, http.StatusForbidden, "this codec serves namespace "+namespace+" only")
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxHTTPBodyBytes))
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				httpError(w, http.StatusRequestEntityTooLarge, "the request body is too large")
				return
			}
			httpError(w, http.StatusBadRequest, "cannot read the request body")
			return
		}
		var in commonpb.Payloads
		if err := protojson.Unmarshal(body, &in); err != nil {
			httpError(w, http.StatusBadRequest, `the body must be {"payloads": [...]}`)
			return
		}
		out, err := convert(in.GetPayloads())
		if err != nil {
			httpError(w, http.StatusBadRequest, err.Error())
			return
		}
		b, err := protojson.Marshal(&commonpb.Payloads{Payloads: out})
		if err != nil {
			httpError(w, http.StatusInternalServerError, "cannot encode the answer")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(b)
	})
}

// httpError answers {"error": msg}. The codec's messages name encodings,
// key ids and workflow ids, never payload contents.
func httpError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
