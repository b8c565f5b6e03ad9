// Package identities is social login: signing in to the dashboard through
// any OpenID Connect issuer (authorization code flow with PKCE, state and
// nonce, via github.com/coreos/go-oidc and golang.org/x/oauth2) or through
// GitHub, which speaks plain OAuth2 (the same flow without an ID token: its
// API's /user and /user/emails say who signed in and which addresses are
// verified), and the identities linked to accounts.
//
// Linking is conservative: an identity is linked to an existing account
// only when the provider vouches for the email (email_verified) and the
// person then proves the account too (signs in to it) or links from the
// account's own security page. A new account is created only for a
// verified email and after the person confirms.
package identities

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/sessions"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/users"
)

// ProviderConfig is one OpenID provider (the --oidc flag and its
// ATS_OIDC_<NAME>_CLIENT_ID / _CLIENT_SECRET).
type ProviderConfig struct {
	// Name identifies the provider in URLs and records: lowercase letters,
	// digits and '-'.
	Name string
	// Kind is KindOIDC (the default) or KindGitHub.
	Kind string
	// Issuer is an OpenID provider's issuer URL, or GitHub's web address
	// (https://github.com, a GitHub Enterprise Server's, the sandbox's).
	Issuer string
	// APIURL is GitHub's API (https://api.github.com, {Issuer}/api/v3 on
	// Enterprise Server); GitHubProvider fills it in.
	APIURL       string
	ClientID     string
	ClientSecret string
}

// Provider kinds.
const (
	KindOIDC   = "oidc"
	KindGitHub = "github"
)

// GitHubProvider configures sign-in with GitHub at base (the
// --github-oauth flag; https://github.com by default): the provider
// "github", whose API is https://api.github.com for github.com and
// {base}/api/v3 elsewhere (GitHub Enterprise Server, the sandbox).
func GitHubProvider(base, clientID, clientSecret string) ProviderConfig {
	base = strings.TrimRight(base, "/")
	if base == "" {
		base = "https://github.com"
	}
	api := base + "/api/v3"
	if u, err := url.Parse(base); err == nil && strings.EqualFold(u.Host, "github.com") {
		api = "https://api.github.com"
	}
	return ProviderConfig{Name: "github", Kind: KindGitHub, Issuer: base, APIURL: api, ClientID: clientID, ClientSecret: clientSecret}
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)

// ValidName reports whether name can name a provider.
func ValidName(name string) bool { return nameRE.MatchString(name) }

// Service runs the sign-in round trips and keeps linked identities.
type Service struct {
	Store *store.Store
	Audit *audit.Service
	// RedirectBase is the public URL; each provider's redirect URI is
	// RedirectBase + "/auth/oidc/" + name + "/callback".
	RedirectBase string
	// HTTPClient talks to the providers; nil means a client with a 10 s
	// timeout.
	HTTPClient *http.Client

	mu        sync.Mutex
	providers map[string]*provider
}

// provider is discovered lazily, so an issuer that is down at start-up
// only disables its own button until it answers.
type provider struct {
	cfg      ProviderConfig
	oidc     *oidc.Provider
	verifier *oidc.IDTokenVerifier
	oauth    oauth2.Config
	// ready: the OAuth configuration is built (discovered, for OIDC).
	ready bool
}

func (p *provider) github() bool { return p.cfg.Kind == KindGitHub }

// New validates cfgs and returns the service.
func New(st *store.Store, au *audit.Service, redirectBase string, cfgs []ProviderConfig) (*Service, error) {
	s := &Service{Store: st, Audit: au, RedirectBase: strings.TrimRight(redirectBase, "/"), providers: map[string]*provider{}}
	for _, c := range cfgs {
		if !ValidName(c.Name) {
			return nil, errs.Ef(errs.Invalid, "OpenID provider name %q: use lowercase letters, digits and '-'", c.Name)
		}
		if _, dup := s.providers[c.Name]; dup {
			return nil, errs.Ef(errs.Invalid, "OpenID provider %q is configured twice", c.Name)
		}
		if !strings.HasPrefix(c.Issuer, "https://") && !strings.HasPrefix(c.Issuer, "http://") {
			return nil, errs.Ef(errs.Invalid, "OpenID provider %q: the issuer must be an http(s) URL", c.Name)
		}
		switch c.Kind {
		case "", KindOIDC:
			if c.ClientID == "" {
				return nil, errs.Ef(errs.Invalid, "OpenID provider %q: no client id (set ATS_OIDC_%s_CLIENT_ID)", c.Name, EnvName(c.Name))
			}
		case KindGitHub:
			if c.ClientID == "" || c.ClientSecret == "" {
				return nil, errs.E(errs.Invalid, "sign-in with GitHub: no OAuth app (set ATS_GITHUB_CLIENT_ID and ATS_GITHUB_CLIENT_SECRET)")
			}
			if c.APIURL == "" {
				return nil, errs.E(errs.Invalid, "sign-in with GitHub: no API URL")
			}
		default:
			return nil, errs.Ef(errs.Invalid, "sign-in provider %q: unknown kind %q", c.Name, c.Kind)
		}
		s.providers[c.Name] = &provider{cfg: c}
	}
	return s, nil
}

// EnvName is the provider's part of its environment variables
// (ATS_OIDC_<EnvName>_CLIENT_ID).
func EnvName(name string) string { return strings.ToUpper(strings.ReplaceAll(name, "-", "_")) }

// Providers lists the configured provider names, sorted.
func (s *Service) Providers() []string {
	if s == nil {
		return nil
	}
	out := make([]string, 0, len(s.providers))
	for n := range s.providers {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// IssuerOrigins are the providers' origins (scheme://host), for the
// Content-Security-Policy's form-action: a form that starts a sign-in is
// redirected there.
func (s *Service) IssuerOrigins() []string {
	var out []string
	for _, n := range s.Providers() {
		iss := s.providers[n].cfg.Issuer
		if i := strings.Index(iss[strings.Index(iss, "://")+3:], "/"); i >= 0 {
			iss = iss[:strings.Index(iss, "://")+3+i]
		}
		out = append(out, iss)
	}
	return out
}

func (s *Service) client() *http.Client {
	if s.HTTPClient != nil {
		return s.HTTPClient
	}
	return &http.Client{Timeout: 10 * time.Second}
}

func (s *Service) get(ctx context.Context, name string) (*provider, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.providers[name]
	if !ok {
		return nil, errs.E(errs.NotFound, "unknown sign-in provider").WithCode(errs.CodeUnknownProvider)
	}
	if p.ready {
		return p, nil
	}
	redirect := s.RedirectBase + "/auth/oidc/" + name + "/callback"
	if p.github() {
		// No discovery: GitHub's endpoints are fixed paths of its web
		// address.
		p.oauth = oauth2.Config{
			ClientID: p.cfg.ClientID, ClientSecret: p.cfg.ClientSecret, RedirectURL: redirect,
			Endpoint: oauth2.Endpoint{AuthURL: p.cfg.Issuer + "/login/oauth/authorize",
				TokenURL: p.cfg.Issuer + "/login/oauth/access_token", AuthStyle: oauth2.AuthStyleInParams},
			Scopes: []string{"read:user", "user:email"},
		}
		p.ready = true
		return p, nil
	}
	dctx, cancel := context.WithTimeout(oidc.ClientContext(context.WithoutCancel(ctx), s.client()), 10*time.Second)
	defer cancel()
	op, err := oidc.NewProvider(dctx, p.cfg.Issuer)
	if err != nil {
		return nil, errs.Wrap(errs.Transient, err, "the sign-in provider does not answer; try again later")
	}
	p.oidc = op
	p.verifier = op.Verifier(&oidc.Config{ClientID: p.cfg.ClientID})
	p.oauth = oauth2.Config{
		ClientID: p.cfg.ClientID, ClientSecret: p.cfg.ClientSecret, Endpoint: op.Endpoint(),
		RedirectURL: redirect,
		Scopes:      []string{oidc.ScopeOpenID, "email", "profile"},
	}
	p.ready = true
	return p, nil
}

// Start begins a round trip to provider name: it returns the URL to send
// the browser to and the state the session must keep (state, nonce, PKCE
// verifier). link says the signed-in user is linking an identity.
func (s *Service) Start(ctx context.Context, name string, link bool, now time.Time) (string, sessions.OIDCState, error) {
	p, err := s.get(ctx, name)
	if err != nil {
		return "", sessions.OIDCState{}, err
	}
	st := sessions.OIDCState{Provider: name, State: secret.RandomToken(), Nonce: secret.RandomToken(),
		Verifier: oauth2.GenerateVerifier(), Link: link, Started: now}
	if p.github() {
		// Plain OAuth2: no nonce (there is no ID token to carry it); the
		// state and the PKCE verifier bind the round trip to the session.
		st.Nonce = ""
		return p.oauth.AuthCodeURL(st.State, oauth2.S256ChallengeOption(st.Verifier)), st, nil
	}
	u := p.oauth.AuthCodeURL(st.State, oidc.Nonce(st.Nonce), oauth2.S256ChallengeOption(st.Verifier))
	return u, st, nil
}

// Identity is what a provider vouched for.
type Identity struct {
	Provider      string
	Subject       string
	Email         string
	EmailVerified bool
	Name          string
}

var errBadCallback = errs.E(errs.Unauthorized, "the sign-in could not be completed; start again").WithCode(errs.CodeOIDCFailed)

// Finish completes the round trip: it checks the returned state against
// the session's, redeems the code with the PKCE verifier, verifies the ID
// token (signature, issuer, audience, expiry) and its nonce, and returns
// the identity. The attempt is audited on failure.
func (s *Service) Finish(ctx context.Context, st *sessions.OIDCState, name, gotState, code, providerErr, clientAddr string) (Identity, error) {
	fail := func(reason string, cause error) (Identity, error) {
		_ = s.Audit.Record(ctx, audit.Entry{Action: audit.ActionUserLogin, Result: audit.Failure, ClientAddr: clientAddr,
			Detail: map[string]any{"method": "oidc:" + name, "reason": reason}})
		return Identity{}, errBadCallback.WithCause(cause)
	}
	if st == nil || st.Provider != name || st.State == "" || !secret.Equal(st.State, gotState) {
		return fail("state_mismatch", nil)
	}
	if providerErr != "" {
		return fail("provider_error", errs.E(errs.Unauthorized, providerErr))
	}
	if code == "" {
		return fail("no_code", nil)
	}
	p, err := s.get(ctx, name)
	if err != nil {
		return Identity{}, err
	}
	hctx := oidc.ClientContext(ctx, s.client())
	tok, err := p.oauth.Exchange(hctx, code, oauth2.VerifierOption(st.Verifier))
	if err != nil {
		return fail("token_exchange", err)
	}
	if p.github() {
		id, reason, err := s.githubIdentity(ctx, p, tok)
		if err != nil {
			return fail(reason, err)
		}
		return id, nil
	}
	raw, ok := tok.Extra("id_token").(string)
	if !ok || raw == "" {
		return fail("no_id_token", nil)
	}
	idt, err := p.verifier.Verify(hctx, raw)
	if err != nil {
		return fail("id_token_invalid", err)
	}
	if !secret.Equal(idt.Nonce, st.Nonce) {
		return fail("nonce_mismatch", nil)
	}
	var claims struct {
		Email         string `json:"email"`
		EmailVerified *bool  `json:"email_verified"`
		Name          string `json:"name"`
	}
	if err := idt.Claims(&claims); err != nil {
		return fail("claims", err)
	}
	id := Identity{Provider: name, Subject: idt.Subject, Email: store.NormalizeEmail(claims.Email), Name: claims.Name,
		EmailVerified: claims.EmailVerified != nil && *claims.EmailVerified}
	if id.Subject == "" {
		return fail("no_subject", nil)
	}
	return id, nil
}

// Outcome says what a verified identity leads to.
type Outcome int

// Outcomes of Resolve.
const (
	// Linked: the identity belongs to UserID; sign them in.
	Linked Outcome = iota
	// LinkExisting: an account has the identity's verified email; link
	// after the person signs in to it.
	LinkExisting
	// CreateAccount: nobody has the email; an account can be created
	// after the person confirms.
	CreateAccount
)

// Resolve finds what id leads to.
func (s *Service) Resolve(ctx context.Context, id Identity) (Outcome, string, error) {
	c, err := s.Store.CredentialByOAuth(ctx, id.Provider, id.Subject)
	if err == nil {
		_ = s.Store.TouchCredential(ctx, c.ID)
		return Linked, c.UserID, nil
	}
	if !errs.Is(err, errs.NotFound) {
		return 0, "", err
	}
	if !id.EmailVerified || id.Email == "" {
		return 0, "", errs.E(errs.Forbidden, "the provider did not confirm your email address, so it cannot be used to sign in here").
			WithCode(errs.CodeEmailNotVerified)
	}
	u, err := s.Store.UserByEmail(ctx, id.Email)
	switch {
	case err == nil:
		return LinkExisting, u.ID, nil
	case errs.Is(err, errs.NotFound):
		return CreateAccount, "", nil
	}
	return 0, "", err
}

func credential(id Identity) *models.UserCredential {
	prov, sub := id.Provider, id.Subject
	name := id.Email
	if name == "" {
		name = id.Name
	}
	return &models.UserCredential{Kind: models.CredentialOAuth, OAuthProvider: &prov, OAuthSubject: &sub,
		OAuthEmail: id.Email, Name: name}
}

// Link links id to userID. requireSameEmail is set when the link follows a
// sign-in prompted by the identity's email.
func (s *Service) Link(ctx context.Context, userID string, id Identity, requireSameEmail bool, clientAddr string) error {
	if !id.EmailVerified {
		return errs.E(errs.Forbidden, "the provider did not confirm this identity's email address").WithCode(errs.CodeEmailNotVerified)
	}
	u, err := s.Store.UserByID(ctx, userID)
	if err != nil {
		return err
	}
	if requireSameEmail && u.Email != id.Email {
		return errs.E(errs.Forbidden, "you signed in to a different account than the identity's email").WithCode(errs.CodeEmailMismatch)
	}
	c := credential(id)
	c.UserID = userID
	return s.Store.Tx(ctx, func(tx *store.Store) error {
		if err := tx.CreateCredential(ctx, c); err != nil {
			if errs.Is(err, errs.Conflict) {
				return errs.E(errs.Conflict, "this identity is already linked to an account").WithCode(errs.CodeIdentityLinked)
			}
			return err
		}
		return audit.Append(ctx, tx, audit.Entry{UserID: userID, Action: audit.ActionIdentityLink, Target: c.ID,
			Result: audit.Success, ClientAddr: clientAddr, Detail: map[string]any{"provider": id.Provider, "email": id.Email}})
	})
}

// CreateAccount signs up a password-less account for id (verified email
// only) under mode.
func (s *Service) CreateAccount(ctx context.Context, mode users.SignupMode, id Identity, clientAddr string) (string, error) {
	if err := users.SignupAllowed(mode); err != nil {
		return "", err
	}
	if !id.EmailVerified || id.Email == "" {
		return "", errs.E(errs.Forbidden, "the provider did not confirm your email address").WithCode(errs.CodeEmailNotVerified)
	}
	email, err := users.ValidateEmail(id.Email)
	if err != nil {
		return "", err
	}
	u := &models.User{Email: email}
	c := credential(id)
	err = s.Store.Tx(ctx, func(tx *store.Store) error {
		if err := tx.CreateUserWithCredential(ctx, u, c); err != nil {
			if errs.Is(err, errs.Conflict) {
				return errs.E(errs.Conflict, "an account with this email or identity already exists").WithCode(errs.CodeEmailTaken)
			}
			return err
		}
		return audit.Append(ctx, tx, audit.Entry{UserID: u.ID, Action: audit.ActionUserCreate, Target: u.ID,
			Result: audit.Success, ClientAddr: clientAddr, Detail: map[string]any{"method": "oidc:" + id.Provider}})
	})
	return u.ID, err
}

// LinkedIdentity is a linked identity as the security page lists it.
type LinkedIdentity struct {
	ID, Provider, Email string
	CreatedAt           time.Time
	LastUsedAt          *time.Time
}

// List returns the user's linked identities.
func (s *Service) List(ctx context.Context, userID string) ([]LinkedIdentity, error) {
	rows, err := s.Store.ListCredentials(ctx, userID, models.CredentialOAuth)
	if err != nil {
		return nil, err
	}
	out := make([]LinkedIdentity, 0, len(rows))
	for _, r := range rows {
		l := LinkedIdentity{ID: r.ID, Email: r.OAuthEmail, CreatedAt: r.CreatedAt, LastUsedAt: r.LastUsedAt}
		if r.OAuthProvider != nil {
			l.Provider = *r.OAuthProvider
		}
		out = append(out, l)
	}
	return out, nil
}

// Unlink removes a linked identity, unless it is the account's last way
// to sign in (no password, no passkey, no other identity).
func (s *Service) Unlink(ctx context.Context, userID, id, clientAddr string) error {
	u, err := s.Store.UserByID(ctx, userID)
	if err != nil {
		return err
	}
	ids, err := s.Store.ListCredentials(ctx, userID, models.CredentialOAuth)
	if err != nil {
		return err
	}
	keys, err := s.Store.ListCredentials(ctx, userID, models.CredentialWebAuthn)
	if err != nil {
		return err
	}
	if u.PasswordHash == "" && len(keys) == 0 && len(ids) <= 1 {
		return errs.E(errs.Conflict, "this is your only way to sign in: set a password or add a passkey first").WithCode(errs.CodeLastSignInMethod)
	}
	return s.Store.Tx(ctx, func(tx *store.Store) error {
		c, err := tx.DeleteCredential(ctx, userID, models.CredentialOAuth, id)
		if err != nil {
			return err
		}
		prov := ""
		if c.OAuthProvider != nil {
			prov = *c.OAuthProvider
		}
		return audit.Append(ctx, tx, audit.Entry{UserID: userID, Action: audit.ActionIdentityUnlink, Target: id,
			Result: audit.Success, ClientAddr: clientAddr, Detail: map[string]any{"provider": prov}})
	})
}

// RecordSignIn audits a successful sign-in through provider.
func (s *Service) RecordSignIn(ctx context.Context, userID, provider, clientAddr string) error {
	return s.Audit.Record(ctx, audit.Entry{UserID: userID, Action: audit.ActionUserLogin, Target: userID,
		Result: audit.Success, ClientAddr: clientAddr, Detail: map[string]any{"method": "oidc:" + provider}})
}
