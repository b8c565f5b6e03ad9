package api_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/logging"
	"github.com/agent-trading/ats/models/errs"
)

// cancelRequest is an explicit request DTO.
type cancelRequest struct {
	Reason string `json:"reason"`
}

// Validate is run by api.BindJSON after decoding.
func (r *cancelRequest) Validate() error {
	if len(r.Reason) > 200 {
		return errs.E(errs.Invalid, "reason must be at most 200 characters")
	}
	return nil
}

// ordersRoutes is how a feature package plugs in: a constructor closing over
// its services returns an api.Routes.
func ordersRoutes(lookup func(id string) (string, error)) api.Routes {
	return func(s *api.Server) {
		g := s.Group("/api/agent/v1", api.RequireJSON())
		g.POST("/orders/:id/cancel", func(c *gin.Context) {
			var req cancelRequest
			if !api.BindJSON(c, &req) {
				return
			}
			status, err := lookup(c.Param("id"))
			if err != nil {
				api.Fail(c, err)
				return
			}
			api.OKMessage(c, "Order cancelled", gin.H{"id": c.Param("id"), "previousStatus": status})
		})
	}
}

func Example() {
	lookup := func(id string) (string, error) {
		if id != "ord_1" {
			return "", errs.E(errs.NotFound, "order not found")
		}
		return "OPEN", nil
	}
	h := api.New(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{
		Logger: logging.NewLogger(os.Stderr, slog.LevelError, true),
		Routes: []api.Routes{ordersRoutes(lookup)},
	})
	for _, id := range []string{"ord_1", "ord_2"} {
		r := httptest.NewRequest(http.MethodPost, "/api/agent/v1/orders/"+id+"/cancel", strings.NewReader(`{"reason":"stale"}`))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set(api.HeaderRequestID, "example-"+id)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		fmt.Println(w.Code, w.Body.String())
	}
	// Output:
	// 200 {"success":true,"data":{"id":"ord_1","previousStatus":"OPEN"},"message":"Order cancelled"}
	// 404 {"success":false,"error":"Not Found","message":"order not found","requestId":"example-ord_2"}
}
