package api

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/agent-trading/ats/models/errs"
)

func queryContext(rawQuery string) *gin.Context {
	c, _ := gin.CreateTestContext(httptest.NewRecorder())
	c.Request = httptest.NewRequest(http.MethodGet, "/x?"+rawQuery, nil)
	return c
}

func TestQueryInt(t *testing.T) {
	tests := []struct {
		query   string
		want    int
		invalid bool
	}{
		{"", 50, false},
		{"limit=", 50, false},
		{"limit=7", 7, false},
		{"limit=%201%20", 1, false},
		{"limit=100", 100, false},
		{"limit=101", 0, true},
		{"limit=0", 0, true},
		{"limit=ten", 0, true},
		{"limit=1.5", 0, true},
	}
	for _, tt := range tests {
		got, err := QueryInt(queryContext(tt.query), "limit", 50, 1, 100)
		if tt.invalid {
			if !errs.Is(err, errs.Invalid) {
				t.Errorf("%q: err = %v, want Invalid", tt.query, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q: got %d, %v; want %d", tt.query, got, err, tt.want)
		}
	}
}

func TestQueryBool(t *testing.T) {
	tests := []struct {
		query   string
		want    bool
		invalid bool
	}{
		{"", true, false},
		{"sync=false", false, false},
		{"sync=FALSE", false, false},
		{"sync=0", false, false},
		{"sync=1", true, false},
		{"sync=yes", false, true},
	}
	for _, tt := range tests {
		got, err := QueryBool(queryContext(tt.query), "sync", true)
		if tt.invalid {
			if !errs.Is(err, errs.Invalid) {
				t.Errorf("%q: err = %v, want Invalid", tt.query, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q: got %v, %v; want %v", tt.query, got, err, tt.want)
		}
	}
}
