package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/agent-trading/ats/models/errs"
)

// Validator is implemented by request DTOs that check their own rules
// after decoding. Validate should return errs.Invalid errors whose Message
// names the field; any other error is answered as a generic 400 and logged.
type Validator interface {
	Validate() error
}

var errUnsupportedMediaType = &httpError{
	status:  http.StatusUnsupportedMediaType,
	label:   "Unsupported Media Type",
	message: "Content-Type must be application/json",
}

// BindJSON decodes the request body into dst (a pointer) and answers the
// error itself, returning false, when the body is unacceptable:
//
//   - 415 when the Content-Type is not application/json (or a +json type);
//   - 413 when the body exceeds the server's limit;
//   - 400 when the body is empty, is not valid JSON (the message gives line
//     and column), has a value of the wrong JSON type (the message names the
//     field and the expected type), contains more than one JSON value, or
//     contains a field dst does not declare.
//
// Unknown fields are rejected rather than ignored: an agent that misspells
// "price" or sends a field from a newer API version must find out at once
// instead of having an order placed with a default. The 400 names the field.
//
// When dst implements Validator, Validate runs after decoding.
//
//	var req placeOrderRequest
//	if !api.BindJSON(c, &req) {
//		return
//	}
func BindJSON(c *gin.Context, dst any) bool {
	if err := decodeJSON(c.Request, dst); err != nil {
		Fail(c, err)
		return false
	}
	if v, ok := dst.(Validator); ok {
		if err := v.Validate(); err != nil {
			if _, classified := errs.As(err); !classified {
				err = errs.Wrap(errs.Invalid, err, "the request body is invalid")
			}
			Fail(c, err)
			return false
		}
	}
	return true
}

// hasBody reports whether r declares or streams a body.
func hasBody(r *http.Request) bool {
	return r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0
}

func isJSONContentType(ct string) bool {
	if ct == "" {
		return false
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

func invalid(format string, args ...any) error {
	return errs.Ef(errs.Invalid, format, args...).WithCode(errs.CodeInvalidJSON)
}

// bodyErr classifies a decoding failure as Invalid with code.
func bodyErr(code string, cause error, msg string) error {
	return &errs.Error{Kind: errs.Invalid, Code: code, Message: msg, Err: cause}
}

// decodeJSON reads the whole (already size-limited) body so that syntax
// errors can be reported by line and column.
func decodeJSON(r *http.Request, dst any) error {
	if !hasBody(r) {
		return invalid("request body is required: send a JSON object")
	}
	if !isJSONContentType(r.Header.Get("Content-Type")) {
		return errUnsupportedMediaType
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return tooLarge(mbe.Limit, err)
		}
		return errs.Wrap(errs.Invalid, err, "could not read the request body")
	}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return invalid("request body is required: send a JSON object")
	}
	if bytes.Equal(trimmed, []byte("null")) {
		return invalid("request body must be a JSON object, not null")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return jsonError(raw, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return invalid("request body must contain a single JSON value")
	}
	return nil
}

// jsonError turns an encoding/json error into a client-safe Invalid error:
// positions and JSON type names, never Go types.
func jsonError(raw []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var inv *json.InvalidUnmarshalError
	switch {
	case errors.As(err, &syn):
		line, col := position(raw, syn.Offset)
		return bodyErr(errs.CodeInvalidJSON, err,
			fmt.Sprintf("malformed JSON at line %d, column %d: %s", line, col, syntaxReason(syn)))
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return bodyErr(errs.CodeInvalidJSON, err, "malformed JSON: unexpected end of input")
	case errors.As(err, &typ):
		want := jsonTypeName(typ.Type)
		if typ.Field == "" {
			return bodyErr(errs.CodeInvalidJSON, err, fmt.Sprintf("request body must be %s, got %s", want, typ.Value))
		}
		return bodyErr(errs.CodeInvalidField, err, fmt.Sprintf("field %q must be %s, got %s", typ.Field, want, typ.Value))
	case errors.As(err, &inv):
		// dst was not a non-nil pointer: a bug in the handler.
		return errs.Wrap(errs.Internal, err, "decoding into an invalid destination")
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return bodyErr(errs.CodeUnknownField, err, "unknown field "+name)
	}
	// A field's own UnmarshalJSON (decimals, enums, times) refused the value;
	// its text may mention Go types, so keep it for the log only.
	return bodyErr(errs.CodeInvalidField, err, "request body contains an invalid value")
}

// syntaxReason keeps encoding/json's description (which speaks of JSON
// characters only) without its "json: " style prefixes.
func syntaxReason(e *json.SyntaxError) string {
	return strings.TrimPrefix(e.Error(), "json: ")
}

// position converts a byte offset to a 1-based line and column.
func position(raw []byte, offset int64) (line, col int) {
	if offset > int64(len(raw)) {
		offset = int64(len(raw))
	}
	if offset < 0 {
		offset = 0
	}
	before := raw[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - (bytes.LastIndexByte(before, '\n') + 1)
	if col < 1 {
		col = 1
	}
	return line, col
}

func jsonTypeName(t reflect.Type) string {
	if t == nil {
		return "a valid value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return jsonTypeName(t.Elem())
	}
	return "a valid value"
}
