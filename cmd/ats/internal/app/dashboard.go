package app

import (
	"context"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/urfave/cli/v2"

	"github.com/agent-trading/ats/api/dashboard"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/identities"
	"github.com/agent-trading/ats/models/passkeys"
	"github.com/agent-trading/ats/models/portfolio"
	"github.com/agent-trading/ats/models/sessions"
	"github.com/agent-trading/ats/models/users"
	"github.com/agent-trading/ats/sandbox/oidcprovider"
)

const (
	flagSignup     = "signup"
	flagOIDC       = "oidc"
	flagOperator   = "operator"
	flagTemporalUI = "temporal-ui-url"
)

// operatorFlags name the operator accounts and the Temporal Web UI their
// strategy pages link to.
func operatorFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: flagOperator, EnvVars: []string{"ATS_OPERATORS"},
			Usage: "email of a dashboard account that operates the service (repeatable; comma-separated in the env): its strategy pages link to the strategy's run in the Temporal Web UI; `dev --demo` makes the demo user one unless this is given"},
		&cli.StringFlag{Name: flagTemporalUI, EnvVars: []string{"ATS_TEMPORAL_UI_URL"},
			Usage: "base URL of the Temporal Web UI operators use (https://temporal.example); `dev` defaults to its embedded UI"},
	}
}

func signupFlag() cli.Flag {
	return &cli.StringFlag{Name: flagSignup, EnvVars: []string{"ATS_SIGNUP"}, Value: string(users.SignupOpen),
		Usage: "who may create a dashboard account: open (anyone), invite (with a code from `ats admin user invite`) or closed"}
}

func oidcFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: flagOIDC, EnvVars: []string{"ATS_OIDC"},
		Usage: "NAME=ISSUER_URL of an OpenID Connect provider for dashboard sign-in (repeatable; comma-separated in the env); " +
			"its client credentials come from ATS_OIDC_<NAME>_CLIENT_ID and ATS_OIDC_<NAME>_CLIENT_SECRET; " +
			"the redirect URI to register is {public-url}/auth/oidc/NAME/callback"}
}

// oidcProviders parses --oidc and the client credentials from the
// environment. sandboxIssuer, when not "", adds the sandbox provider
// (`ats dev`), with the sandbox's default client unless the environment
// names another.
func oidcProviders(c *cli.Context, sandboxIssuer string) ([]identities.ProviderConfig, error) {
	var out []identities.ProviderConfig
	seen := map[string]bool{}
	for _, v := range c.StringSlice(flagOIDC) {
		for _, item := range strings.Split(v, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			name, issuer, ok := strings.Cut(item, "=")
			if !ok || !identities.ValidName(name) {
				return nil, errs.Ef(errs.Invalid, "--%s %q: want NAME=ISSUER_URL with NAME of lowercase letters, digits and '-'", flagOIDC, item)
			}
			env := "ATS_OIDC_" + identities.EnvName(name)
			out = append(out, identities.ProviderConfig{Name: name, Issuer: issuer,
				ClientID: os.Getenv(env + "_CLIENT_ID"), ClientSecret: os.Getenv(env + "_CLIENT_SECRET")})
			seen[name] = true
		}
	}
	if sandboxIssuer != "" && !seen["sandbox"] {
		id, sec := os.Getenv("ATS_OIDC_SANDBOX_CLIENT_ID"), os.Getenv("ATS_OIDC_SANDBOX_CLIENT_SECRET")
		if id == "" {
			id, sec = oidcprovider.DefaultClientID, oidcprovider.DefaultClientSecret
		}
		out = append(out, identities.ProviderConfig{Name: "sandbox", Issuer: sandboxIssuer, ClientID: id, ClientSecret: sec})
	}
	return out, nil
}

// DashboardOptions configure EnableDashboard.
type DashboardOptions struct {
	PublicURL string
	signup    users.SignupMode
	Providers []identities.ProviderConfig
	// Operators, temporalUI and namespace: see operatorFlags.
	Operators             []string
	TemporalUI, namespace string
	// FreshFor is how recent a second factor must be for a sensitive
	// action (0: sessions.DefaultFreshFor).
	FreshFor time.Duration
}

// EnableDashboard builds the dashboard's services and routes; routes()
// then serves them.
func (svc *Services) EnableDashboard(o DashboardOptions) error {
	if o.signup == "" {
		o.signup = users.SignupOpen
	}
	au := svc.Audit
	sess := &sessions.Service{Store: svc.store, Audit: au, FreshFor: o.FreshFor, OnSignIn: svc.Notify.SignedIn}
	// Browsers refuse passkeys for an IP address: without a host name the
	// dashboard goes without them.
	var pk *passkeys.Service
	if rp := passkeyRP(o.PublicURL); net.ParseIP(rp.RPID) == nil {
		var err error
		if pk, err = passkeys.New(svc.store, au, rp); err != nil {
			return err
		}
	}
	ids, err := identities.New(svc.store, au, o.PublicURL, o.Providers)
	if err != nil {
		return err
	}
	pf := &portfolio.Service{Store: svc.store, Agents: svc.Agents, Positions: svc.Positions, Stats: svc.stats}
	if svc.balance.Wallets != nil {
		pf.Wallet = svc.balance
	}
	deps := dashboard.Deps{
		Users: svc.Agents.Users, Sessions: sess, Passkeys: pk,
		Identities: ids, Agents: svc.Agents, Wallets: svc.Wallets, Portfolio: pf, Orders: svc.Orders,
		Positions: svc.Positions, Audit: au, Strategies: svc.StrategyDesk, Links: svc.links, Controls: svc.Controls,
		Notify: svc.Notify, Changes: svc.Changes,
		// routes() sets the limit before anything is served.
		LinkLimit: func(c *gin.Context) {
			if svc.linkLimit != nil {
				svc.linkLimit(c)
			}
		},
	}
	if svc.markets != nil {
		deps.Prices = svc.markets
	}
	if svc.backtests != nil {
		// The agent API's backtest service, per user limited (routes()
		// sets the limit before anything is served).
		deps.Backtests = svc.backtests
		deps.BacktestLimit = func(ctx context.Context, userID string) error {
			if svc.backtestLimit != nil {
				return svc.backtestLimit(ctx, userID)
			}
			return nil
		}
	}
	if svc.feed != nil {
		deps.Quotes = svc.feed
	}
	routes, err := dashboard.Routes(dashboard.Config{PublicURL: o.PublicURL, Signup: o.signup,
		Operators: o.Operators, TemporalUI: o.TemporalUI, TemporalNamespace: o.namespace, ExplorerURL: svc.explorer}, deps)
	if err != nil {
		return err
	}
	svc.dashboard = routes
	return nil
}

// passkeyRP is the WebAuthn relying party of the public URL: its host and
// origin.
func passkeyRP(publicURL string) passkeys.Config {
	u, err := url.Parse(publicURL)
	if err != nil {
		return passkeys.Config{}
	}
	return passkeys.Config{RPID: u.Hostname(), Origins: []string{u.Scheme + "://" + u.Host}}
}

// dashboardFromFlags enables the dashboard with the flags of `api`/`dev`.
// devUI is the embedded Temporal Web UI's address (`dev`), the default of
// --temporal-ui-url; devOperator the demo user (`dev --demo`), the default
// operator.
func (svc *Services) dashboardFromFlags(c *cli.Context, publicURL, sandboxIssuer, sandboxGitHub, devUI, devOperator string) error {
	o, err := dashboardOptionsFrom(c, publicURL, sandboxIssuer, sandboxGitHub, devUI, devOperator)
	if err != nil {
		return err
	}
	return svc.EnableDashboard(o)
}

// dashboardOptionsFrom reads the dashboard's flags; see dashboardFromFlags.
func dashboardOptionsFrom(c *cli.Context, publicURL, sandboxIssuer, sandboxGitHub, devUI, devOperator string) (DashboardOptions, error) {
	mode, err := users.ParseSignupMode(c.String(flagSignup))
	if err != nil {
		return DashboardOptions{}, err
	}
	providers, err := oidcProviders(c, sandboxIssuer)
	if err != nil {
		return DashboardOptions{}, err
	}
	if gh := githubProvider(c, sandboxGitHub); gh != nil {
		providers = append(providers, *gh)
	}
	o := DashboardOptions{PublicURL: publicURL, signup: mode, Providers: providers,
		TemporalUI: c.String(flagTemporalUI), namespace: c.String(flagTemporalNS)}
	if o.TemporalUI != "" {
		if u, err := url.Parse(o.TemporalUI); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return DashboardOptions{}, errs.Ef(errs.Invalid, "--%s %q: want the Web UI's http(s) address, e.g. https://temporal.example", flagTemporalUI, o.TemporalUI)
		}
	} else {
		o.TemporalUI = devUI
	}
	for _, v := range c.StringSlice(flagOperator) {
		for _, e := range strings.Split(v, ",") {
			if e = strings.TrimSpace(e); e != "" {
				o.Operators = append(o.Operators, e)
			}
		}
	}
	if len(o.Operators) == 0 && devOperator != "" {
		o.Operators = []string{devOperator}
	}
	return o, nil
}

// LoopbackAsLocalhost turns http://127.0.0.1:PORT (or [::1]) into
// http://localhost:PORT: browsers accept passkeys for the name localhost
// but never for an IP address, and a cookie set on one name is not sent to
// the other, so the dashboard has one address.
func LoopbackAsLocalhost(u string) string {
	pu, err := url.Parse(u)
	if err != nil {
		return u
	}
	if ip := net.ParseIP(pu.Hostname()); ip != nil && ip.IsLoopback() {
		pu.Host = net.JoinHostPort("localhost", pu.Port())
		return pu.String()
	}
	return u
}
