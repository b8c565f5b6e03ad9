package api

import (
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/agent-trading/ats/models/errs"
)

// TestErrorDocIsCurrent fails while docs/api-errors.md does not show the
// catalogue as it is in code.
func TestErrorDocIsCurrent(t *testing.T) {
	const path = "../docs/api-errors.md"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := RewriteErrorDoc(doc)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != string(doc) {
		t.Fatalf("%s is stale: run go generate ./api", path)
	}
	for _, code := range errs.Codes() {
		if !strings.Contains(string(doc), "| `"+code+"` |") {
			t.Errorf("%s does not list %s", path, code)
		}
	}
}

func TestCodeStatuses(t *testing.T) {
	tests := []struct {
		code string
		want []int
	}{
		{errs.CodeBudgetExceeded, []int{http.StatusConflict}},
		{errs.CodeNoWallet, []int{http.StatusNotFound, http.StatusConflict}},
		{errs.CodeIdempotencyKeyReused, []int{http.StatusConflict, http.StatusUnprocessableEntity}},
		{errs.CodeSettlementPending, []int{http.StatusServiceUnavailable}},
		{errs.CodeInvalidTickSize, []int{http.StatusBadRequest, http.StatusUnprocessableEntity}},
	}
	for _, tt := range tests {
		e, ok := errs.Lookup(tt.code)
		if !ok {
			t.Fatalf("%s not catalogued", tt.code)
		}
		if got := CodeStatuses(e); !slices.Equal(got, tt.want) {
			t.Errorf("CodeStatuses(%s) = %v, want %v", tt.code, got, tt.want)
		}
	}
}
