package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/ratelimit"
)

// MaxBatch is the most JSON-RPC messages one POST may carry. Batches exist
// only in the 2025-03-26 protocol (the SDK refuses them from 2025-06-18
// on); a client that still sends them sends a few, not hundreds.
const MaxBatch = 16

// DefaultMaxResponseBytes bounds the answer to one POST (Config.MaxResponseBytes).
// The largest single answers (tools/list, a page of markets) are tens of
// KiB; a larger answer is replaced by a JSON-RPC error.
const DefaultMaxResponseBytes = 4 << 20

// methodToolsCall is counted as the REST request each call becomes.
const methodToolsCall = "tools/call"

// methodListen opens a server-sent event stream that stays open; this
// server sends nothing unprompted, and streams nothing.
const methodListen = "subscriptions/listen"

// ctxAdmission is the gin context key of the admission of the request.
const ctxAdmission = "mcp.admission"

// admission is what admit decided about one POST body.
type admission struct {
	// refused, when set, is why the body is refused (after it was
	// counted); status its HTTP status.
	refused string
	status  int
	// calls are the ids of the body's requests (not its notifications
	// or answers), for the error answer an oversized response becomes.
	calls []jsonrpc.ID
	batch bool
}

// admit reads the body as the SDK will (readMessages: an array is a batch,
// each message decoded by the SDK's own jsonrpc.DecodeMessage), after
// refusing any object in it with a repeated member or two members whose
// names differ only in case: Go's encoding/json matches such names
// case-insensitively and the SDK case-sensitively, so such a body could be
// read as one method here and run as another there. It then tells the
// per-key limit after it (ratelimit.SetCost) what the body costs: one per
// request other than tools/call (each of those is counted as the REST
// request it becomes), every request of a body that is refused, one for a
// body the SDK will refuse as malformed, nothing for notifications and
// answers. Refusals are answered after the count, by bound.
func admit(c *gin.Context) {
	body, err := io.ReadAll(c.Request.Body)
	if err != nil {
		api.Fail(c, err) // over the body limit: 413
		return
	}
	c.Request.Body = io.NopCloser(bytes.NewReader(body))
	a := &admission{}
	c.Set(ctxAdmission, a)
	if err := uniqueMembers(body); err != nil {
		a.refused, a.status = err.Error(), http.StatusBadRequest
		ratelimit.SetCost(c, 1)
		return
	}
	msgs, batch, err := readMessages(body)
	if err != nil {
		// Malformed: the SDK answers 400; it costs one request.
		ratelimit.SetCost(c, 1)
		return
	}
	a.batch = batch
	counted := 0
	for _, m := range msgs {
		req, ok := m.(*jsonrpc.Request)
		if !ok || !req.IsCall() {
			continue
		}
		a.calls = append(a.calls, req.ID)
		if req.Method == methodListen {
			a.refused, a.status = "this server streams nothing: "+methodListen+" is not supported", http.StatusBadRequest
		}
		if req.Method != methodToolsCall {
			counted++
		}
	}
	if len(msgs) > MaxBatch {
		a.refused, a.status = fmt.Sprintf("a batch may hold at most %d messages; this one holds %d", MaxBatch, len(msgs)), http.StatusBadRequest
	}
	if a.refused != "" {
		// Nothing of a refused body runs, so none of its tool calls
		// will be counted as a REST request: count them all here.
		counted = len(a.calls)
	}
	ratelimit.SetCost(c, counted)
}

// bound answers a body admit refused (once the limit has counted it).
func bound(c *gin.Context) {
	a := admissionOf(c)
	if a == nil || a.refused == "" {
		c.Next()
		return
	}
	writeRPCError(c.Writer, a.status, []jsonrpc.ID{{}}, false, jsonrpc.CodeInvalidRequest, a.refused)
	c.Abort()
}

func admissionOf(c *gin.Context) *admission {
	if v, ok := c.Get(ctxAdmission); ok {
		a, _ := v.(*admission)
		return a
	}
	return nil
}

// readMessages splits body as the SDK's streamable transport does (its
// readBatch): a JSON array is a batch, anything else one message, each
// decoded by jsonrpc.DecodeMessage, the SDK's own reader.
func readMessages(body []byte) ([]jsonrpc.Message, bool, error) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var raws []json.RawMessage
		if err := json.Unmarshal(body, &raws); err != nil {
			return nil, true, err
		}
		if len(raws) == 0 {
			return nil, true, errors.New("empty batch")
		}
		msgs := make([]jsonrpc.Message, 0, len(raws))
		for _, raw := range raws {
			m, err := jsonrpc.DecodeMessage(raw)
			if err != nil {
				return nil, true, err
			}
			msgs = append(msgs, m)
		}
		return msgs, true, nil
	}
	m, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		return nil, false, err
	}
	return []jsonrpc.Message{m}, false, nil
}

// uniqueMembers refuses a JSON document in which an object, at any depth,
// names a member twice, or names two members that differ only in case
// (as encoding/json folds them: Unicode simple folding, so "method",
// "Method" and "METHOD" clash, and so do "k" and the Kelvin sign). The
// JSON-RPC envelope, the MCP params and a tool's arguments are all read
// by one parser or another, so none may be ambiguous. Invalid JSON passes:
// the SDK refuses it.
func uniqueMembers(body []byte) error {
	type frame struct {
		names   map[string]bool // nil in an array
		wantKey bool
	}
	var stack []*frame
	dec := json.NewDecoder(bytes.NewReader(body))
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the end, or not JSON: the SDK decides
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.names != nil && top.wantKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				continue
			}
			name, _ := tok.(string)
			f := foldName(name)
			if top.names[f] {
				return fmt.Errorf("the member %q appears twice (member names are compared ignoring case)", name)
			}
			top.names[f], top.wantKey = true, false
			continue
		}
		// A value, or the end of an array.
		if top != nil && top.names != nil {
			top.wantKey = true
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{':
				stack = append(stack, &frame{names: map[string]bool{}, wantKey: true})
			case '[':
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
			}
		}
	}
}

// foldName folds a member name as encoding/json matches names: each rune
// replaced by the smallest rune of its simple case-folding orbit.
func foldName(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r == utf8.RuneError {
			b.WriteRune(r)
			continue
		}
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}

// rpcError is a JSON-RPC error answer.
type rpcError struct {
	JSONRPC string     `json:"jsonrpc"`
	ID      any        `json:"id"`
	Error   rpcErrBody `json:"error"`
}

type rpcErrBody struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

// writeRPCError answers every id in ids with the same JSON-RPC error, as
// one object or (batch) an array, with HTTP status.
func writeRPCError(w http.ResponseWriter, status int, ids []jsonrpc.ID, batch bool, code int64, msg string) {
	out := make([]rpcError, 0, len(ids))
	for _, id := range ids {
		out = append(out, rpcError{JSONRPC: "2.0", ID: id.Raw(), Error: rpcErrBody{Code: code, Message: msg}})
	}
	var (
		b   []byte
		err error
	)
	if batch || len(out) != 1 {
		b, err = json.Marshal(out)
	} else {
		b, err = json.Marshal(out[0])
	}
	if err != nil {
		http.Error(w, msg, status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// boundedResponse holds the SDK's answer until it is complete, up to max
// bytes; beyond them it takes no more (the SDK's write fails) and the
// answer is replaced (see handler.serve). The server answers in JSON, never
// as a stream, so holding the answer changes nothing for the client.
type boundedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
	max    int
	over   bool
}

var errResponseTooLarge = errors.New("mcp: response over the size limit")

func (r *boundedResponse) Header() http.Header { return r.header }

func (r *boundedResponse) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *boundedResponse) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if r.over || r.body.Len()+len(b) > r.max {
		r.over = true
		return 0, errResponseTooLarge
	}
	return r.body.Write(b)
}

// Flush is a no-op: the answer is sent whole.
func (r *boundedResponse) Flush() {}

// send writes the held answer to w.
func (r *boundedResponse) send(w http.ResponseWriter) {
	h := w.Header()
	for k, v := range r.header {
		h[k] = v
	}
	if r.status == 0 {
		r.status = http.StatusOK
	}
	w.WriteHeader(r.status)
	_, _ = w.Write(r.body.Bytes())
}
