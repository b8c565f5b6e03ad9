// Package agentauth authenticates agent requests under /api/agent/v1:
// "Authorization: Bearer ll_…" keys, checked against the database on every
// request, and per-route scopes.
//
// Each request reads the key and its agent through Keys: the database, or
// in a process that serves the API the read cache (models/readcache),
// which drops a key as soon as the database notifies a change of it or of
// its agent, so a pause or revoke is refused by every API instance within
// the notification's delivery (and within a second while the
// notifications are down). The lookup is one indexed read by key hash;
// last-used times are written at most once a minute per key.
package agentauth

import (
	"context"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/ratelimit"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/throttle"
)

// Keys is what the middleware needs from the store; *store.Store
// implements it.
type Keys interface {
	AgentKeyByHash(ctx context.Context, hash string) (*models.APIKey, *models.Agent, error)
	TouchAPIKey(ctx context.Context, id string, now time.Time) error
}

// Identity is the authenticated agent of a request.
type Identity struct {
	UserID      string
	AgentID     string
	AgentName   string
	AgentStatus string
	// AgentMode is models.ModePaper or models.ModeLive.
	AgentMode          string
	KeyID              string
	Scopes             []string
	RateLimitPerMinute int
	// Heartbeat settings of the agent's key (models/heartbeat):
	// interval, and active hours (all three set, or none).
	HeartbeatIntervalMs                        int64
	ActiveHoursStart, ActiveHoursEnd, Timezone string
}

// HasScope reports whether the identity holds scope.
func (id Identity) HasScope(scope string) bool {
	for _, s := range id.Scopes {
		if s == scope {
			return true
		}
	}
	return false
}

const ctxKeyIdentity = "agentauth.identity"

// touchEvery is how stale last_used_at may get before a request refreshes
// it; writing it on every request would turn every read into a write.
const touchEvery = time.Minute

// One message for every rejected key, so responses don't reveal whether a
// key exists, was revoked or belongs to a paused agent — except that the
// owner is told about pause and revoke, which they can see in the
// dashboard anyway.
var (
	errMissing = errs.E(errs.Unauthorized, "missing API key: send Authorization: Bearer ll_…").WithCode(errs.CodeMissingAPIKey)
	errInvalid = errs.E(errs.Unauthorized, "invalid API key").WithCode(errs.CodeInvalidAPIKey)
	errRevoked = errs.E(errs.Unauthorized, "this API key has been revoked").WithCode(errs.CodeKeyRevoked)
	errPaused  = errs.E(errs.Unauthorized, "this agent is paused; resume it in the dashboard").WithCode(errs.CodeAgentPaused)
)

// Limits on failed authentication per client address (see Options).
const (
	MaxKeyFailures   = 10
	KeyFailureWindow = 5 * time.Minute
)

// KeyFailures is the per-address limit on invalid keys over c.
func KeyFailures(c throttle.Counter) *throttle.Limit {
	return &throttle.Limit{Counter: c, Max: MaxKeyFailures, Window: KeyFailureWindow}
}

// Options configure MiddlewareWith.
type Options struct {
	// Now is the clock (nil = time.Now).
	Now func() time.Time
	// Failures, when set, limits invalid keys (malformed or unknown) per
	// client address (IPv6 per /64): once an address has used them up,
	// its requests are answered 429 before any key is looked at, valid
	// keys included, until the window ends. Keys of other addresses are
	// unaffected. A counter that cannot be reached lets requests through
	// (logged), as the per-key limiter does.
	Failures *throttle.Limit
}

// Middleware is MiddlewareWith without a failure limit.
func Middleware(keys Keys, now func() time.Time) gin.HandlerFunc {
	return MiddlewareWith(keys, Options{Now: now})
}

// MiddlewareWith authenticates the request's bearer key. Missing,
// malformed, unknown and revoked keys and keys of paused or revoked agents
// are answered 401 (and, with Options.Failures, a client address that sent
// too many invalid keys 429). On success the Identity is stored for From,
// the rate limiter's identity (key id and the agent's per-minute limit) is
// set for ratelimit.PerKey, and the key's last-used time is refreshed.
func MiddlewareWith(keys Keys, o Options) gin.HandlerFunc {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	return func(c *gin.Context) {
		ctx := c.Request.Context()
		addr := throttle.AddrKey(c.ClientIP())
		if o.Failures != nil {
			if err := o.Failures.Check(ctx, addr); err != nil {
				if errs.Is(err, errs.RateLimited) {
					api.Fail(c, err)
					return
				}
				api.LoggerFrom(c).WarnContext(ctx, "key failure limiter unavailable; request let through", "error", err)
			}
		}
		invalid := func() {
			if o.Failures != nil {
				if err := o.Failures.Fail(ctx, addr); err != nil {
					api.LoggerFrom(c).WarnContext(ctx, "cannot count a failed key", "error", err)
				}
			}
			c.Header("WWW-Authenticate", `Bearer realm="ats", error="invalid_token"`)
			api.Fail(c, errInvalid)
		}
		tok, ok := bearer(c.GetHeader("Authorization"))
		if !ok {
			c.Header("WWW-Authenticate", `Bearer realm="ats"`)
			api.Fail(c, errMissing)
			return
		}
		if !secret.ValidAPIKeyFormat(tok) {
			invalid()
			return
		}
		k, a, err := keys.AgentKeyByHash(ctx, secret.HashAPIKey(tok))
		if errs.Is(err, errs.NotFound) {
			invalid()
			return
		}
		if err != nil {
			api.Fail(c, err)
			return
		}
		switch {
		case k.RevokedAt != nil || a.Status == models.AgentRevoked:
			api.Fail(c, errRevoked)
			return
		case a.Status != models.AgentActive:
			api.Fail(c, errPaused)
			return
		}
		id := Identity{
			UserID: a.UserID, AgentID: a.ID, AgentName: a.Name, AgentStatus: a.Status, AgentMode: a.Mode, KeyID: k.ID,
			Scopes: a.ScopeList(), RateLimitPerMinute: a.RateLimitPerMinute, HeartbeatIntervalMs: a.HeartbeatIntervalMs,
		}
		if a.ActiveHoursStart != nil && a.ActiveHoursEnd != nil && a.ActiveHoursTimezone != nil {
			id.ActiveHoursStart, id.ActiveHoursEnd, id.Timezone = *a.ActiveHoursStart, *a.ActiveHoursEnd, *a.ActiveHoursTimezone
		}
		c.Set(ctxKeyIdentity, id)
		ratelimit.SetIdentity(c, ratelimit.Identity{Key: k.ID, Limit: a.RateLimitPerMinute})
		t := now()
		if k.LastUsedAt == nil || t.Sub(*k.LastUsedAt) >= touchEvery {
			if err := keys.TouchAPIKey(ctx, k.ID, t); err != nil {
				// Bookkeeping only: the request is authenticated.
				api.LoggerFrom(c).WarnContext(ctx, "cannot record API key use", "key_id", k.ID, "error", err)
			}
		}
		c.Next()
	}
}

// bearer extracts the token of an "Authorization: Bearer <token>" header
// (scheme case-insensitive, RFC 6750).
func bearer(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}

// Require answers 403 unless the authenticated agent holds scope. It must
// run after Middleware; without an identity it answers 401.
func Require(scope string) gin.HandlerFunc {
	return func(c *gin.Context) {
		id, ok := From(c)
		if !ok {
			api.Fail(c, errMissing)
			return
		}
		if !id.HasScope(scope) {
			api.Fail(c, errs.Ef(errs.Forbidden, "this API key lacks the %q scope", scope).WithCode(errs.CodeInsufficientScope))
			return
		}
		c.Next()
	}
}

// From returns the authenticated agent of the request.
func From(c *gin.Context) (Identity, bool) {
	v, ok := c.Get(ctxKeyIdentity)
	if !ok {
		return Identity{}, false
	}
	id, ok := v.(Identity)
	return id, ok
}

// Need is From for handlers behind Middleware: Require has already
// answered 401 when there is no agent, so a miss here is a wiring bug,
// answered as an internal error (false: the handler returns at once).
func Need(c *gin.Context) (Identity, bool) {
	id, ok := From(c)
	if !ok {
		api.Fail(c, errs.E(errs.Internal, "agent handler mounted without agent authentication"))
	}
	return id, ok
}

// Me is the body of GET /api/agent/v1/me.
type Me struct {
	AgentID string `json:"agentId"`
	Name    string `json:"name"`
	Status  string `json:"status"`
	// Mode is "paper" (simulated money against the real book) or "live".
	Mode   string   `json:"mode"`
	Scopes []string `json:"scopes"`
}

// Routes mounts GET /api/agent/v1/me (scope read) behind auth: the key
// middleware (Middleware or MiddlewareWith) and what follows it (e.g.
// ratelimit.PerKey). The endpoint is ours, not in the spec: it lets an
// agent (and our tests) check its key before the rest of the agent API
// exists, and returns {agentId, name, status, scopes}.
func Routes(auth ...gin.HandlerFunc) api.Routes {
	return func(s *api.Server) {
		g := s.Group("/api/agent/v1", auth...)
		g.GET("/me", Require("read"), func(c *gin.Context) {
			id, _ := From(c)
			api.OK(c, Me{AgentID: id.AgentID, Name: id.AgentName, Status: id.AgentStatus, Mode: id.AgentMode, Scopes: id.Scopes})
		})
	}
}
