package api

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-trading/ats/models/errs"
)

//go:generate go run ../cmd/apidocs -errors ../docs/api-errors.md

// kindlessStatuses are the statuses of the codes some answers carry
// without going through StatusFor: the Idempotency-Key layer answers a key
// reused with another request 422 "Unprocessable Entity", which is not the
// venue's refusal StatusFor's 422 stands for (api/idempotency).
var kindlessStatuses = map[string][]int{
	errs.CodeIdempotencyKeyReused: {http.StatusUnprocessableEntity},
}

// CodeStatuses returns the HTTP statuses an error code is answered with:
// those of its kinds through StatusFor, in order, then those of answers
// written without a kind.
func CodeStatuses(e errs.Entry) []int {
	var out []int
	for _, k := range e.Kinds() {
		if s, _ := StatusFor(k); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, s := range kindlessStatuses[e.Code] {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// The generated part of docs/api-errors.md lies between these lines.
const (
	errorDocBegin = "<!-- BEGIN GENERATED: error catalogue (models/errs/catalogue.go); run go generate ./api -->"
	errorDocEnd   = "<!-- END GENERATED: error catalogue -->"
)

// ErrorCatalogueMarkdown renders the error catalogue as one Markdown table
// per group: code, HTTP status(es), meaning, remedy.
func ErrorCatalogueMarkdown() string {
	var b strings.Builder
	for i, g := range errs.Catalogue() {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "### %s\n\n| code | status | meaning | remedy |\n|---|---|---|---|\n", g.Title)
		for _, e := range g.Entries {
			var st []string
			for _, s := range CodeStatuses(e) {
				st = append(st, strconv.Itoa(s))
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", e.Code, strings.Join(st, ", "), cell(e.Meaning), cell(e.Remedy))
		}
	}
	return b.String()
}

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// RewriteErrorDoc returns doc with the text between its generated-section
// markers replaced by ErrorCatalogueMarkdown.
func RewriteErrorDoc(doc []byte) ([]byte, error) {
	begin := bytes.Index(doc, []byte(errorDocBegin))
	end := bytes.Index(doc, []byte(errorDocEnd))
	if begin < 0 || end < begin {
		return nil, errors.New("the error doc lacks the generated-section markers:\n" + errorDocBegin + "\n" + errorDocEnd)
	}
	var out bytes.Buffer
	out.Write(doc[:begin+len(errorDocBegin)])
	out.WriteString("\n\n")
	out.WriteString(ErrorCatalogueMarkdown())
	out.WriteString("\n")
	out.Write(doc[end:])
	return out.Bytes(), nil
}
