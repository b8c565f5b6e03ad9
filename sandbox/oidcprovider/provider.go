// Package oidcprovider is the sandbox's OpenID Connect provider, so social
// login works offline exactly as it does against Google or Okta: a
// discovery document, a JWKS, an authorization endpoint whose "login" is a
// page to pick one of the sandbox identities (or type one), a token
// endpoint that redeems one-time codes bound to the client, the redirect
// URI and a PKCE S256 challenge, and issues ID tokens signed with RS256 or
// ES256, and a userinfo endpoint.
//
// It is deliberately small: authorization code flow only, no refresh
// tokens, no consent, no sessions (every authorization shows the picker).
// Signing and key serialisation are go-jose's.
package oidcprovider

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Defaults of the client `ats dev` registers and documents.
const (
	DefaultClientID     = "ats-dashboard"
	DefaultClientSecret = "sandbox-client-secret"
)

// Client is a registered relying party.
type Client struct {
	ID, Secret string
	// RedirectURIs are the allowed redirect URIs, compared exactly; empty
	// allows any http(s) URI (a sandbox convenience).
	RedirectURIs []string
}

// Identity is a sandbox person one can sign in as.
type Identity struct {
	Email         string
	Name          string
	EmailVerified bool
}

// DefaultIdentities are offered on the picker page.
var DefaultIdentities = []Identity{
	{Email: "alice@sandbox.test", Name: "Alice Sandbox", EmailVerified: true},
	{Email: "bob@sandbox.test", Name: "Bob Sandbox", EmailVerified: true},
	{Email: "mallory@sandbox.test", Name: "Mallory (unverified email)", EmailVerified: false},
}

// Config configures a provider.
type Config struct {
	// Issuer is the provider's URL as clients reach it: the sandbox's base
	// URL + "/oidc".
	Issuer string
	// Clients are the registered relying parties; empty means the default
	// client (DefaultClientID, DefaultClientSecret, any redirect URI).
	Clients []Client
	// Identities offered; nil means DefaultIdentities.
	Identities []Identity
	// Algorithm signs ID tokens: "RS256" (default) or "ES256".
	Algorithm string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Lifetimes.
const (
	codeTTL  = time.Minute
	tokenTTL = 10 * time.Minute
)

// Provider is a running sandbox OpenID provider.
type Provider struct {
	cfg    Config
	alg    jose.SignatureAlgorithm
	key    crypto.Signer
	kid    string
	signer jose.Signer

	mu     sync.Mutex
	codes  map[string]*grant
	tokens map[string]*grant
}

// grant is an authorization in flight: a code until redeemed, then the
// access token's claims.
type grant struct {
	clientID, redirectURI, challenge, nonce string
	who                                     Identity
	expires                                 time.Time
}

// New makes a provider with a fresh signing key.
func New(cfg Config) (*Provider, error) {
	if cfg.Issuer == "" {
		return nil, errors.New("oidcprovider: an issuer URL is required")
	}
	cfg.Issuer = strings.TrimRight(cfg.Issuer, "/")
	if len(cfg.Clients) == 0 {
		cfg.Clients = []Client{{ID: DefaultClientID, Secret: DefaultClientSecret}}
	}
	if cfg.Identities == nil {
		cfg.Identities = DefaultIdentities
	}
	p := &Provider{cfg: cfg, codes: map[string]*grant{}, tokens: map[string]*grant{}}
	switch cfg.Algorithm {
	case "", "RS256":
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return nil, err
		}
		p.alg, p.key = jose.RS256, k
	case "ES256":
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, err
		}
		p.alg, p.key = jose.ES256, k
	default:
		return nil, errors.New("oidcprovider: algorithm must be RS256 or ES256")
	}
	p.kid = randomString(8)
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: p.alg, Key: jose.JSONWebKey{Key: p.key, KeyID: p.kid, Algorithm: string(p.alg)}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return nil, err
	}
	p.signer = s
	return p, nil
}

// Issuer is the provider's issuer URL.
func (p *Provider) Issuer() string { return p.cfg.Issuer }

func (p *Provider) now() time.Time {
	if p.cfg.Now != nil {
		return p.cfg.Now()
	}
	return time.Now()
}

// Handler serves the provider; mount it at the issuer's path with the
// prefix stripped.
func (p *Provider) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET /jwks", p.jwks)
	mux.HandleFunc("GET /authorize", p.authorize)
	mux.HandleFunc("POST /authorize", p.pick)
	mux.HandleFunc("POST /token", p.token)
	mux.HandleFunc("GET /userinfo", p.userinfo)
	return mux
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (p *Provider) discovery(w http.ResponseWriter, _ *http.Request) {
	iss := p.cfg.Issuer
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                iss,
		"authorization_endpoint":                iss + "/authorize",
		"token_endpoint":                        iss + "/token",
		"userinfo_endpoint":                     iss + "/userinfo",
		"jwks_uri":                              iss + "/jwks",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{string(p.alg)},
		"scopes_supported":                      []string{"openid", "email", "profile"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"},
		"code_challenge_methods_supported":      []string{"S256"},
		"claims_supported":                      []string{"sub", "iss", "aud", "exp", "iat", "nonce", "email", "email_verified", "name"},
	})
}

func (p *Provider) jwks(w http.ResponseWriter, _ *http.Request) {
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: p.key.Public(), KeyID: p.kid, Algorithm: string(p.alg), Use: "sig"}}}
	writeJSON(w, http.StatusOK, set)
}

func (p *Provider) client(id string) (Client, bool) {
	for _, c := range p.cfg.Clients {
		if c.ID == id {
			return c, true
		}
	}
	return Client{}, false
}

func (c Client) allows(redirect string) bool {
	if len(c.RedirectURIs) > 0 {
		return slices.Contains(c.RedirectURIs, redirect)
	}
	u, err := url.Parse(redirect)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.Fragment == ""
}

// authRequest is a checked authorization request.
type authRequest struct {
	ClientID, RedirectURI, State, Nonce, Challenge string
}

// parseAuth checks an authorization request. Errors about the client or
// the redirect URI are shown on the page (RFC 6749 4.1.2.1: never redirect
// to an unverified URI); the others go back to the client.
func (p *Provider) parseAuth(v url.Values) (authRequest, string, string) {
	r := authRequest{ClientID: v.Get("client_id"), RedirectURI: v.Get("redirect_uri"), State: v.Get("state"),
		Nonce: v.Get("nonce"), Challenge: v.Get("code_challenge")}
	c, ok := p.client(r.ClientID)
	if !ok {
		return r, "unknown client_id", ""
	}
	if !c.allows(r.RedirectURI) {
		return r, "redirect_uri is not registered for this client", ""
	}
	switch {
	case v.Get("response_type") != "code":
		return r, "", "unsupported_response_type"
	case !slices.Contains(strings.Fields(v.Get("scope")), "openid"):
		return r, "", "invalid_scope"
	case r.Challenge == "" || v.Get("code_challenge_method") != "S256":
		return r, "", "invalid_request"
	}
	return r, "", ""
}

func redirectError(w http.ResponseWriter, req *http.Request, r authRequest, code string) {
	u, _ := url.Parse(r.RedirectURI)
	q := u.Query()
	q.Set("error", code)
	if r.State != "" {
		q.Set("state", r.State)
	}
	u.RawQuery = q.Encode()
	http.Redirect(w, req, u.String(), http.StatusFound)
}

func (p *Provider) authorize(w http.ResponseWriter, req *http.Request) {
	r, pageErr, redirErr := p.parseAuth(req.URL.Query())
	if pageErr != "" {
		http.Error(w, "sandbox OpenID provider: "+pageErr, http.StatusBadRequest)
		return
	}
	if redirErr != "" {
		redirectError(w, req, r, redirErr)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' "+originOf(r.RedirectURI)+"; frame-ancestors 'none'")
	w.Header().Set("Cache-Control", "no-store")
	// The picker posts back to this URL: its query is the request.
	_ = pickerPage.Execute(w, map[string]any{"Req": r, "Identities": p.cfg.Identities, "Action": template.URL("?" + req.URL.RawQuery)})
}

func originOf(u string) string {
	pu, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return pu.Scheme + "://" + pu.Host
}

// pick is the picker's submission: the chosen identity gets a code.
func (p *Provider) pick(w http.ResponseWriter, req *http.Request) {
	if err := req.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	// The original request travels in the form's action query.
	r, pageErr, redirErr := p.parseAuth(req.URL.Query())
	if pageErr != "" {
		http.Error(w, "sandbox OpenID provider: "+pageErr, http.StatusBadRequest)
		return
	}
	if redirErr != "" {
		redirectError(w, req, r, redirErr)
		return
	}
	if req.PostForm.Get("action") == "deny" {
		redirectError(w, req, r, "access_denied")
		return
	}
	var who Identity
	if i, err := strconv.Atoi(req.PostForm.Get("identity")); err == nil && i >= 0 && i < len(p.cfg.Identities) {
		who = p.cfg.Identities[i]
	} else {
		who = Identity{Email: strings.ToLower(strings.TrimSpace(req.PostForm.Get("email"))),
			Name: strings.TrimSpace(req.PostForm.Get("name")), EmailVerified: req.PostForm.Get("verified") == "on"}
		if !strings.Contains(who.Email, "@") || len(who.Email) > 254 || len(who.Name) > 100 {
			http.Error(w, "sandbox OpenID provider: type an email address", http.StatusBadRequest)
			return
		}
	}
	code := randomString(32)
	p.mu.Lock()
	p.sweep()
	p.codes[code] = &grant{clientID: r.ClientID, redirectURI: r.RedirectURI, challenge: r.Challenge, nonce: r.Nonce,
		who: who, expires: p.now().Add(codeTTL)}
	p.mu.Unlock()
	u, _ := url.Parse(r.RedirectURI)
	q := u.Query()
	q.Set("code", code)
	if r.State != "" {
		q.Set("state", r.State)
	}
	q.Set("iss", p.cfg.Issuer)
	u.RawQuery = q.Encode()
	http.Redirect(w, req, u.String(), http.StatusFound)
}

// sweep drops expired codes and tokens; callers hold mu.
func (p *Provider) sweep() {
	now := p.now()
	for k, g := range p.codes {
		if now.After(g.expires) {
			delete(p.codes, k)
		}
	}
	for k, g := range p.tokens {
		if now.After(g.expires) {
			delete(p.tokens, k)
		}
	}
}

func tokenError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func (p *Provider) token(w http.ResponseWriter, req *http.Request) {
	if err := req.ParseForm(); err != nil {
		tokenError(w, http.StatusBadRequest, "invalid_request", "bad form")
		return
	}
	f := req.PostForm
	id, sec, basic := req.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id)
		sec, _ = url.QueryUnescape(sec)
	} else {
		id, sec = f.Get("client_id"), f.Get("client_secret")
	}
	c, ok := p.client(id)
	if !ok || subtle.ConstantTimeCompare([]byte(c.Secret), []byte(sec)) != 1 {
		w.Header().Set("WWW-Authenticate", `Basic realm="sandbox"`)
		tokenError(w, http.StatusUnauthorized, "invalid_client", "client authentication failed")
		return
	}
	if f.Get("grant_type") != "authorization_code" {
		tokenError(w, http.StatusBadRequest, "unsupported_grant_type", "only authorization_code")
		return
	}
	p.mu.Lock()
	g := p.codes[f.Get("code")]
	delete(p.codes, f.Get("code")) // one use, whatever follows
	p.mu.Unlock()
	switch {
	case g == nil || p.now().After(g.expires) || g.clientID != id:
		tokenError(w, http.StatusBadRequest, "invalid_grant", "unknown, used or expired code")
		return
	case g.redirectURI != f.Get("redirect_uri"):
		tokenError(w, http.StatusBadRequest, "invalid_grant", "redirect_uri does not match the authorization request")
		return
	}
	sum := sha256.Sum256([]byte(f.Get("code_verifier")))
	if subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(g.challenge)) != 1 {
		tokenError(w, http.StatusBadRequest, "invalid_grant", "code_verifier does not match the code_challenge")
		return
	}
	now := p.now()
	claims := map[string]any{
		"iss": p.cfg.Issuer, "sub": Subject(g.who.Email), "aud": id, "iat": now.Unix(), "auth_time": now.Unix(),
		"exp": now.Add(tokenTTL).Unix(), "email": g.who.Email, "email_verified": g.who.EmailVerified, "name": g.who.Name,
	}
	if g.nonce != "" {
		claims["nonce"] = g.nonce
	}
	payload, _ := json.Marshal(claims)
	jws, err := p.signer.Sign(payload)
	if err != nil {
		tokenError(w, http.StatusInternalServerError, "server_error", "signing failed")
		return
	}
	idToken, err := jws.CompactSerialize()
	if err != nil {
		tokenError(w, http.StatusInternalServerError, "server_error", "signing failed")
		return
	}
	access := randomString(32)
	p.mu.Lock()
	g.expires = now.Add(tokenTTL)
	p.tokens[access] = g
	p.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"access_token": access, "token_type": "Bearer",
		"expires_in": int(tokenTTL.Seconds()), "id_token": idToken, "scope": "openid email profile"})
}

func (p *Provider) userinfo(w http.ResponseWriter, req *http.Request) {
	tok, ok := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	p.mu.Lock()
	g := p.tokens[tok]
	p.mu.Unlock()
	if !ok || g == nil || p.now().After(g.expires) {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		tokenError(w, http.StatusUnauthorized, "invalid_token", "unknown or expired access token")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"sub": Subject(g.who.Email), "email": g.who.Email,
		"email_verified": g.who.EmailVerified, "name": g.who.Name})
}

// Subject is the stable subject of a sandbox identity.
func Subject(email string) string {
	sum := sha256.Sum256([]byte("sandbox-subject|" + strings.ToLower(email)))
	return "sbx_" + hex.EncodeToString(sum[:10])
}

func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

var pickerPage = template.Must(template.New("pick").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sandbox sign-in</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:30rem;margin:2rem auto;padding:0 1rem;color:#1f2933;background:#f5f7fa}
.card{background:#fff;border:1px solid #d9e2ec;border-radius:12px;padding:1.25rem 1.5rem;margin-bottom:1rem}
button{font:inherit;padding:.55rem 1rem;border-radius:8px;border:1px solid #486581;background:#fff;cursor:pointer;width:100%;text-align:left;margin:.25rem 0}
button.primary{background:#334e68;color:#fff}
label{display:block;margin:.5rem 0 .2rem}input[type=email],input[type=text]{font:inherit;width:100%;box-sizing:border-box;padding:.45rem;border:1px solid #9fb3c8;border-radius:6px}
small{color:#627d98}
</style></head><body>
<h1>Sandbox identity provider</h1>
<p><small>This is the sandbox's OpenID provider: no password, pick who you are. Client <code>{{.Req.ClientID}}</code>.</small></p>
<form method="post" action="{{.Action}}" class="card">
<h2>Sign in as</h2>
{{range $i, $id := .Identities}}<button name="identity" value="{{$i}}" data-email="{{$id.Email}}">{{$id.Name}} &lt;{{$id.Email}}&gt;{{if not $id.EmailVerified}} — email not verified{{end}}</button>
{{end}}
</form>
<form method="post" action="{{.Action}}" class="card">
<h2>Someone else</h2>
<label for="email">Email</label><input id="email" name="email" type="email" required>
<label for="name">Name</label><input id="name" name="name" type="text">
<label><input type="checkbox" name="verified" checked> email verified</label>
<button class="primary" id="custom-signin">Sign in</button>
</form>
<form method="post" action="{{.Action}}"><button name="action" value="deny">Cancel</button></form>
</body></html>`))
