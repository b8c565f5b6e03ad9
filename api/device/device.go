// Package device serves the device authorization flow: the agent-facing
// JSON endpoints POST /api/auth/device and GET /api/auth/device/token, and
// the plain server-rendered /link page where the user approves or denies a
// code. The shapes are documented in docs/device-flow.md.
package device

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/workflows"
)

// Config configures Routes.
type Config struct {
	// Limit, when set, runs before the two JSON endpoints and both
	// methods of /link, e.g. ratelimit.PerClientIP(l, 60).
	Limit gin.HandlerFunc
	// DashboardLink leaves /link to the dashboard (dashboard.Deps.Links),
	// which serves it as one of its pages, in the user's dashboard
	// session (sign-in with every method, second factors included). The
	// plain page here serves servers without a dashboard.
	DashboardLink bool
}

// Routes mounts the device endpoints and the /link page. links creates,
// decides and issues links through their workflows; its Agents must have
// Store and Users set and its Runs must be set. Routes panics otherwise,
// at start-up rather than on the first request.
func Routes(links *workflows.DeviceLinks, cfg Config) api.Routes {
	if links == nil || links.Runs == nil || links.Agents == nil || links.Agents.Store == nil || links.Agents.Users == nil {
		panic("device: Routes needs workflows.DeviceLinks with Runs and an agents.Service with Store and Users")
	}
	h := &handlers{svc: links.Agents, links: links}
	return func(s *api.Server) {
		var mw []gin.HandlerFunc
		if cfg.Limit != nil {
			mw = append(mw, cfg.Limit)
		}
		g := s.Group("/api/auth/device", mw...)
		g.POST("", h.request)
		g.GET("/token", h.token)
		if cfg.DashboardLink {
			return
		}
		link := s.Group("/link", mw...)
		link.GET("", h.linkForm)
		link.POST("", h.linkSubmit)
	}
}

type handlers struct {
	svc   *agents.Service
	links *workflows.DeviceLinks
}

type deviceRequest struct {
	AgentName string `json:"agent_name"`
}

// Validate implements api.Validator.
func (r *deviceRequest) Validate() error {
	n, err := agents.ValidateAgentName(r.AgentName)
	r.AgentName = n
	return err
}

func (h *handlers) request(c *gin.Context) {
	var req deviceRequest
	if !api.BindJSON(c, &req) {
		return
	}
	auth, err := h.links.RequestDevice(c.Request.Context(), req.AgentName, c.ClientIP())
	if err != nil {
		api.Fail(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	api.OK(c, auth)
}

// rfcCodes are the token-endpoint errors answered with the RFC 8628 error
// code as the envelope's "error" member (status 400, as RFC 6749 section
// 5.2 prescribes for token errors).
var rfcCodes = map[string]bool{
	errs.CodeAuthorizationPending: true,
	errs.CodeSlowDown:             true,
	errs.CodeExpiredToken:         true,
	errs.CodeAccessDenied:         true,
	errs.CodeInvalidGrant:         true,
	errs.CodeAlreadyIssued:        true,
}

func (h *handlers) token(c *gin.Context) {
	// no-store on every answer: the success carries the key, and no proxy
	// may replay a pending answer either.
	c.Header("Cache-Control", "no-store")
	c.Header("Pragma", "no-cache")
	code := c.Query("device_code")
	if code == "" {
		rfcError(c, errs.CodeInvalidRequest, "the device_code query parameter is required")
		return
	}
	key, err := h.links.PollDeviceToken(c.Request.Context(), code, c.ClientIP())
	if err != nil {
		if e, ok := errs.As(err); ok && e.Kind == errs.Invalid && rfcCodes[errs.CodeOf(err)] {
			rfcError(c, errs.CodeOf(err), e.Message)
			return
		}
		api.Fail(c, err)
		return
	}
	api.OK(c, key)
}

func rfcError(c *gin.Context, code, msg string) {
	c.AbortWithStatusJSON(http.StatusBadRequest, api.ErrorBody{
		Success: false, Error: code, Message: msg, RequestID: api.RequestID(c),
	})
}
