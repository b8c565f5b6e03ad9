// Package dashboard is the user's web dashboard: server-rendered pages
// (html/template, assets embedded from web/), server-side sessions, CSRF
// tokens on every form, a strict Content-Security-Policy (no inline
// script, no third-party origin), and every sign-in method: password with
// optional TOTP and backup codes, passkeys, and OpenID Connect providers.
//
// Handlers are thin: they parse a form, call a models/ service and render
// a page. The services do the work and the auditing.
package dashboard

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/changes"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/identities"
	"github.com/agent-trading/ats/models/notify"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/passkeys"
	"github.com/agent-trading/ats/models/portfolio"
	"github.com/agent-trading/ats/models/positions"
	"github.com/agent-trading/ats/models/sessions"
	"github.com/agent-trading/ats/models/users"
	"github.com/agent-trading/ats/models/wallets"
	"github.com/agent-trading/ats/workflows"
)

//go:embed web
var webFS embed.FS

// Config is the dashboard's configuration.
type Config struct {
	// PublicURL is the {base_url} people reach the dashboard at. Its
	// scheme decides whether cookies are Secure (https) and its host is
	// the passkeys' relying party.
	PublicURL string
	// Signup is who may create an account (open, invite or closed).
	Signup users.SignupMode
	// Operators are the emails of the accounts that operate the service:
	// their strategy pages link to the strategy's run in the Temporal
	// Web UI at TemporalUI (namespace TemporalNamespace, default
	// "default"). Without TemporalUI no one gets the link.
	Operators         []string
	TemporalUI        string
	TemporalNamespace string
	// ExplorerURL is the network's block explorer: a fill's transaction
	// links to {ExplorerURL}/tx/{hash} ("" shows the hash without a link).
	ExplorerURL string
}

// Deps are the services behind the pages. Wallets, Positions and Orders
// are nil when no venue is configured; their pages then say so.
type Deps struct {
	// Users signs people in; its Guard limits guessing on every sign-in
	// form (the same counter as the /link page's).
	Users      *users.Service
	Sessions   *sessions.Service
	Passkeys   *passkeys.Service
	Identities *identities.Service
	Agents     *agents.Service
	Wallets    *wallets.Service
	Portfolio  *portfolio.Service
	Orders     *orders.Service
	Positions  *positions.Service
	Audit      *audit.Service
	// Strategies is nil without Temporal; the strategy pages then say
	// strategies are not available. Prices draws their charts' price
	// line (nil: executions only).
	Strategies *workflows.StrategyDesk
	Prices     PriceHistory
	// Backtests replays a strategy's config over the venue's history (the
	// agent API's backtest service); nil hides the backtest form.
	// BacktestLimit, when set, runs before each backtest with the user's
	// id (LimitBacktests).
	Backtests     Backtester
	BacktestLimit func(ctx context.Context, userID string) error
	// Links, when set, makes /link a dashboard page: the device-link
	// review, sign-in (with the second factor) and decision in the
	// dashboard's session. LinkLimit, when set, runs before both of its
	// methods (the per-address limit of the device endpoints).
	Links     *workflows.DeviceLinks
	LinkLimit gin.HandlerFunc
	// Controls are the user's brakes: an agent's pause, resume and revoke
	// (applied to its strategies and orders), cancels, closes and stop
	// everything. Nil: the agents' status alone, over Agents.
	Controls *workflows.Controls
	// Notify keeps the notification settings and lists notifications;
	// nil hides notifications.
	Notify *notify.Service
	// Changes tells the live pages what changed for their user (nil: the
	// pages do not update live); Quotes, when set, lets them follow the
	// prices of the user's open positions (the process's price feed).
	Changes *changes.Hub
	Quotes  LiveQuotes
}

// NavItem is one entry of the main navigation. Features add theirs to
// Nav (strategies go after Agents).
type NavItem struct{ Key, Label, Href string }

// Nav is the main navigation, in order.
var Nav = []NavItem{
	{"overview", "Overview", "/"},
	{"wallet", "Wallet", "/wallet"},
	{"agents", "Agents", "/agents"},
	{"strategies", "Strategies", "/strategies"},
	{"orders", "Orders", "/orders"},
	{"fills", "Fills", "/fills"},
	{"positions", "Positions", "/positions"},
	{"audit", "Activity", "/audit"},
	{"security", "Security", "/security"},
}

type handler struct {
	cfg        Config
	d          Deps
	pages      map[string]*template.Template
	secure     bool
	cookieName string
	csp        string
	assetVer   string
	static     http.Handler
	cop        *http.CrossOriginProtection
	operators  map[string]bool

	// preCookieName holds the CSRF token of a visitor without a session.
	preCookieName string
}

// Routes registers the dashboard on the server.
func Routes(cfg Config, d Deps) (api.Routes, error) {
	h, err := newHandler(cfg, d)
	if err != nil {
		return nil, err
	}
	return h.routes, nil
}

func newHandler(cfg Config, d Deps) (*handler, error) {
	u, err := url.Parse(cfg.PublicURL)
	if err != nil || u.Host == "" {
		return nil, errs.Ef(errs.Invalid, "dashboard: the public URL %q is not an absolute URL", cfg.PublicURL)
	}
	if cfg.Signup == "" {
		cfg.Signup = users.SignupOpen
	}
	if d.Controls == nil {
		// Without Temporal's order desk: nothing to cancel orders with.
		d.Controls = &workflows.Controls{Agents: d.Agents, Positions: d.Positions, Strategies: d.Strategies, Audit: d.Audit}
	}
	h := &handler{cfg: cfg, d: d, secure: u.Scheme == "https", cookieName: "ats_session", preCookieName: "ats_csrf",
		operators: map[string]bool{}}
	for _, e := range cfg.Operators {
		h.operators[strings.ToLower(strings.TrimSpace(e))] = true
	}
	if h.secure {
		// __Host- cookies are Secure, host-only and Path=/ by rule: no
		// sibling subdomain can set or shadow them.
		h.cookieName, h.preCookieName = "__Host-ats_session", "__Host-ats_csrf"
	}
	formAction := "'self'"
	if d.Identities != nil {
		for _, o := range d.Identities.IssuerOrigins() {
			formAction += " " + o
		}
	}
	h.csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
		"form-action " + formAction + "; frame-ancestors 'none'; base-uri 'none'"
	if err := h.parse(); err != nil {
		return nil, err
	}
	static, _ := fs.Sub(webFS, "web/static")
	h.static = http.StripPrefix("/static/", http.FileServer(http.FS(static)))
	h.assetVer = assetVersion()
	h.cop = http.NewCrossOriginProtection()
	return h, nil
}

// assetVersion fingerprints the embedded assets so browsers re-fetch them
// after an upgrade while caching them otherwise.
func assetVersion() string {
	sum := sha256.New()
	_ = fs.WalkDir(webFS, "web/static", func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			b, _ := webFS.ReadFile(p)
			sum.Write(b)
		}
		return nil
	})
	return hex.EncodeToString(sum.Sum(nil))[:12]
}

func (h *handler) parse() error {
	h.pages = map[string]*template.Template{}
	entries, err := webFS.ReadDir("web/templates")
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".html")
		if name == "layout" || name == "partials" {
			continue
		}
		t, err := template.New(name).Funcs(funcs).ParseFS(webFS, "web/templates/layout.html", "web/templates/partials.html", "web/templates/"+e.Name())
		if err != nil {
			return errs.Wrap(errs.Internal, err, "dashboard template "+name)
		}
		h.pages[name] = t
	}
	return nil
}

func (h *handler) routes(s *api.Server) {
	d := h.d
	e := s.Engine()
	e.GET("/static/*file", h.serveStatic)

	g := e.Group("", h.headers, h.loadSession)
	// Signed out.
	g.GET("/signin", h.signinPage)
	g.POST("/signin", h.csrf, h.signin)
	g.GET("/signup", h.signupPage)
	g.POST("/signup", h.csrf, h.signup)
	g.GET("/signin/second-factor", h.secondFactorPage)
	g.POST("/signin/second-factor", h.csrf, h.secondFactor)
	g.POST("/signin/passkey/options", h.csrf, h.passkeySigninOptions)
	g.POST("/signin/passkey", h.csrf, h.passkeySignin)
	g.POST("/auth/oidc/:provider", h.csrf, h.oidcStart)
	g.GET("/auth/oidc/:provider/callback", h.oidcCallback)
	g.GET("/auth/identity", h.identityPage)
	g.POST("/auth/identity", h.csrf, h.identityDecide)
	g.POST("/signout", h.csrf, h.signout)
	g.GET("/live", h.live)
	if d.Links != nil {
		link := []gin.HandlerFunc{}
		if d.LinkLimit != nil {
			link = append(link, d.LinkLimit)
		}
		g.GET("/link", append(link, h.linkPage)...)
		g.POST("/link", append(link, h.csrf, h.linkDecide)...)
	}

	// Signed in.
	in := g.Group("", h.requireUser)
	in.POST("/signout/everywhere", h.csrf, h.signoutEverywhere)
	in.GET("/", h.overview)
	in.GET("/reauth", h.reauthPage)
	in.POST("/reauth", h.csrf, h.reauth)
	in.POST("/reauth/passkey/options", h.csrf, h.reauthPasskeyOptions)
	in.POST("/reauth/passkey", h.csrf, h.reauthPasskey)

	in.GET("/wallet", h.walletPage)
	in.POST("/wallet", h.csrf, h.walletImport)
	in.POST("/wallet/delete", h.csrf, h.walletDelete)
	in.POST("/wallet/paper-balance", h.csrf, h.paperBalance)

	in.GET("/agents", h.agentsPage)
	in.GET("/agents/:id", h.agentPage)
	in.GET("/agents/:id/confirm/:action", h.agentConfirm)
	in.POST("/agents/:id/budget", h.csrf, h.agentBudget)
	in.POST("/agents/:id/heartbeat", h.csrf, h.agentHeartbeat)
	in.POST("/agents/:id/rate-limit", h.csrf, h.agentRateLimit)
	in.POST("/agents/:id/pause", h.csrf, h.agentPause)
	in.POST("/agents/:id/resume", h.csrf, h.agentResume)
	in.POST("/agents/:id/revoke", h.csrf, h.agentRevoke)
	in.POST("/agents/:id/orders/cancel", h.csrf, h.agentOrdersCancel)
	in.GET("/stop", h.stopPage)
	in.POST("/stop", h.csrf, h.stop)

	in.GET("/strategies", h.strategiesPage)
	in.GET("/strategies/:id", h.strategyPage)
	in.GET("/strategies/:id/confirm/cancel", h.strategyConfirm)
	in.POST("/strategies/:id/pause", h.csrf, h.strategyPause)
	in.POST("/strategies/:id/resume", h.csrf, h.strategyResume)
	in.POST("/strategies/:id/cancel", h.csrf, h.strategyCancel)
	in.POST("/strategies/:id/extend", h.csrf, h.strategyExtend)
	in.GET("/strategies/:id/backtest", h.backtestBack)
	in.POST("/strategies/:id/backtest", h.csrf, h.strategyBacktest)
	in.GET("/backtest", h.tryPage)
	in.POST("/backtest", h.csrf, h.tryRun)

	in.GET("/orders", h.ordersPage)
	in.POST("/orders/:id/cancel", h.csrf, h.orderCancel)
	in.GET("/orders/:id", h.orderPage)
	in.GET("/fills", h.fillsPage)
	in.GET("/positions", h.positionsPage)
	in.GET("/positions/:id/confirm/close", h.positionConfirm)
	in.POST("/positions/:id/close", h.csrf, h.positionClose)
	in.GET("/audit", h.auditPage)

	in.GET("/notifications", h.notificationsPage)
	in.POST("/notifications/settings", h.csrf, h.notificationSettings)
	in.POST("/notifications/read", h.csrf, h.notificationsRead)

	in.GET("/security", h.securityPage)
	in.POST("/security/password", h.csrf, h.changePassword)
	in.POST("/security/2fa/setup", h.csrf, h.totpBegin)
	in.GET("/security/2fa", h.totpPage)
	in.GET("/security/2fa/qr.png", h.totpQR)
	in.POST("/security/2fa/confirm", h.csrf, h.totpConfirm)
	in.POST("/security/2fa/disable", h.csrf, h.totpDisable)
	in.POST("/security/backup-codes", h.csrf, h.backupCodes)
	in.POST("/security/passkeys/options", h.csrf, h.passkeyRegisterOptions)
	in.POST("/security/passkeys", h.csrf, h.passkeyRegister)
	in.POST("/security/passkeys/:id/rename", h.csrf, h.passkeyRename)
	in.POST("/security/passkeys/:id/delete", h.csrf, h.passkeyDelete)
	in.POST("/security/identities/:id/unlink", h.csrf, h.identityUnlink)
	in.POST("/security/sessions/:id/revoke", h.csrf, h.sessionRevoke)

	// Pages that do not exist, and methods a path does not take, get an
	// HTML page in a browser; API clients keep the JSON envelope.
	e.NoRoute(pageOr(api.NotFound), h.headers, h.loadSession, h.notFound)
	e.NoMethod(pageOr(api.MethodNotAllowed), h.headers, h.loadSession, h.methodNotAllowed)
}

func (h *handler) serveStatic(c *gin.Context) {
	c.Header("X-Content-Type-Options", "nosniff")
	// A name no file system accepts (invalid UTF-8, as /static/%ff%fe) is
	// the client's mistake: 400, where the file server would answer 500.
	if name := path.Clean(c.Param("file")); name != "/" && !fs.ValidPath(strings.TrimPrefix(name, "/")) {
		c.String(http.StatusBadRequest, "invalid path")
		return
	}
	if c.Query("v") == h.assetVer {
		c.Header("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		c.Header("Cache-Control", "no-cache")
	}
	h.static.ServeHTTP(c.Writer, c.Request)
}

// headers sets the security headers of every dashboard response.
func (h *handler) headers(c *gin.Context) {
	hd := c.Writer.Header()
	hd.Set("Content-Security-Policy", h.csp)
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("Cache-Control", "no-store")
	hd.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), publickey-credentials-get=(self), publickey-credentials-create=(self)")
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
	if h.secure {
		hd.Set("Strict-Transport-Security", "max-age=31536000")
	}
	c.Next()
}
