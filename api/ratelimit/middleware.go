package ratelimit

import (
	"net/textproto"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/metrics"
)

// Response headers set on every response the middleware lets through or
// rejects (spec, "Limits").
const (
	HeaderLimit     = "X-RateLimit-Limit"
	HeaderRemaining = "X-RateLimit-Remaining"
	HeaderReset     = "X-RateLimit-Reset"
)

// The canonical forms of the header names, computed once: http.Header.Set
// would canonicalise (and allocate) on every response.
var (
	canonLimit     = textproto.CanonicalMIMEHeaderKey(HeaderLimit)
	canonRemaining = textproto.CanonicalMIMEHeaderKey(HeaderRemaining)
	canonReset     = textproto.CanonicalMIMEHeaderKey(HeaderReset)
)

// Identity is who a request is counted against: the API key's id (never
// its secret: the id ends up in Redis keys) and its per-window limit, 0
// meaning the default. The API key middleware stores it with SetIdentity.
type Identity struct {
	Key   string
	Limit int
}

// ctxKeyIdentity is the gin context key of the Identity.
const ctxKeyIdentity = "ats.ratelimit.identity"

// SetIdentity records the authenticated caller for PerKey. The API key
// middleware calls it after validating the key, before PerKey runs.
func SetIdentity(c *gin.Context, id Identity) { c.Set(ctxKeyIdentity, id) }

// IdentityFrom returns what SetIdentity stored. It is the identify function
// to pass to PerKey when the key middleware uses SetIdentity.
func IdentityFrom(c *gin.Context) (key string, limit int, ok bool) {
	v, found := c.Get(ctxKeyIdentity)
	if !found {
		return "", 0, false
	}
	id, isID := v.(Identity)
	if !isID || id.Key == "" {
		return "", 0, false
	}
	return id.Key, id.Limit, true
}

// PerKey limits each API key to its own budget per window. identify returns
// the key id and its limit (<= 0 for the default); nil means IdentityFrom.
//
// It must run after the API key middleware. A request that reaches it with
// no identity is a wiring mistake, answered 500 rather than let through
// unlimited, so the mistake shows in the first test instead of in
// production traffic.
func PerKey(l *Limiter, identify func(*gin.Context) (key string, limit int, ok bool)) gin.HandlerFunc {
	if identify == nil {
		identify = IdentityFrom
	}
	return func(c *gin.Context) {
		key, limit, ok := identify(c)
		if !ok || key == "" {
			api.Fail(c, errs.E(errs.Internal, "ratelimit: request reached PerKey without an identity; mount it after the API key middleware"))
			return
		}
		enforce(c, l, "key:"+key, limit)
	}
}

// PerClientIP limits each client address to limit requests per window
// (<= 0 for the Limiter's default), for endpoints without an API key: the
// device-authorization endpoints and the link page. The address is gin's
// ClientIP, which believes X-Forwarded-For only from the engine's trusted
// proxies (api.Config.TrustedProxies), so clients cannot pick their own
// bucket. IPv6 clients are counted per /64. Use l.Scope to give different
// route groups separate budgets.
func PerClientIP(l *Limiter, limit int) gin.HandlerFunc {
	return func(c *gin.Context) {
		enforce(c, l, "ip:"+clientKey(c.ClientIP()), limit)
	}
}

// ctxKeyCost is the gin context key of a request's cost (SetCost).
const ctxKeyCost = "ats.ratelimit.cost"

// SetCost makes the limits after it in the chain count the request as n
// requests: an MCP POST carrying a batch of JSON-RPC calls costs one per
// call. 0 counts nothing (the request only carries tool calls, each
// counted as the REST request it becomes, or notifications). Without it a
// request costs 1.
func SetCost(c *gin.Context, n int) { c.Set(ctxKeyCost, max(n, 0)) }

func costOf(c *gin.Context) int {
	if v, ok := c.Get(ctxKeyCost); ok {
		if n, ok := v.(int); ok {
			return n
		}
	}
	return 1
}

// enforce counts the request under key (as SetCost says, 1 by default)
// and either continues the chain or answers 429.
func enforce(c *gin.Context, l *Limiter, key string, limit int) {
	n := costOf(c)
	if n == 0 {
		c.Next()
		return
	}
	d, err := l.AllowN(c.Request.Context(), key, limit, n)
	if err != nil {
		if l.opts.FailClosed {
			e, _ := errs.As(err)
			e = e.WithCode(errs.CodeRateLimiterUnavailable)
			e.RetryAfterSeconds = 1
			api.Fail(c, e)
			return
		}
		api.LoggerFrom(c).WarnContext(c.Request.Context(), "rate limiter unavailable; request let through unlimited", "error", err)
		c.Next()
		return
	}
	h := c.Writer.Header()
	h[canonLimit] = []string{strconv.Itoa(d.Limit)}
	h[canonRemaining] = []string{strconv.Itoa(d.Remaining)}
	h[canonReset] = []string{strconv.FormatInt(d.Reset.Unix(), 10)}
	if !d.Allowed {
		metrics.RateLimited(limitName(l.scope, key))
		retry := d.RetryAfter(time.Now())
		e := errs.Ef(errs.RateLimited,
			"request limit of %d per %s exceeded; wait %d seconds before retrying", d.Limit, periodText(l.opts.Period), retry)
		e.RetryAfterSeconds = retry
		api.Fail(c, e)
		return
	}
	c.Next()
}

// limitName labels a refusal in the metrics: the limiter's scope and
// what is counted ("key", "ip"), never the key itself.
func limitName(scope, key string) string {
	kind, _, _ := strings.Cut(key, ":")
	if scope == "" {
		return kind
	}
	return scope + "/" + kind
}

// periodText names the window for messages: "minute" for the default, else
// Go's duration text ("30s").
func periodText(p time.Duration) string {
	switch p {
	case time.Minute:
		return "minute"
	case time.Second:
		return "second"
	case time.Hour:
		return "hour"
	}
	return p.String()
}
