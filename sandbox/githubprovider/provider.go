// Package githubprovider is the sandbox's GitHub: the OAuth2 web flow and
// the two API endpoints a "Sign in with GitHub" button uses, so that
// sign-in works offline as it does against github.com. GitHub speaks
// plain OAuth2, not OpenID Connect: there is no ID token, and who signed in
// is read from the API with the access token — GET /user (the numeric id
// that names the account for good, login, name) and GET /user/emails (the
// addresses, which one is primary, which are verified).
//
// Served under a base URL (the sandbox's /github), with GitHub's paths:
// /login/oauth/authorize (a page to pick a sandbox identity, or type one,
// verified or not), /login/oauth/access_token (form or JSON answers, as
// GitHub's, by the Accept header; codes are one-time, bound to the client,
// the redirect URI and, when the request carried one, a PKCE S256
// challenge), and the API at /api/v3 as on GitHub Enterprise Server.
package githubprovider

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Defaults of the client `ats dev` registers and documents.
const (
	DefaultClientID     = "ats-dashboard"
	DefaultClientSecret = "sandbox-github-secret"
)

// Client is a registered OAuth app.
type Client struct {
	ID, Secret string
	// RedirectURIs are the allowed callback URLs, compared exactly; empty
	// allows any http(s) URL (a sandbox convenience).
	RedirectURIs []string
}

// Identity is a sandbox GitHub account.
type Identity struct {
	Login, Name, Email string
	// EmailVerified is whether the primary email is verified.
	EmailVerified bool
}

// DefaultIdentities are offered on the picker page.
var DefaultIdentities = []Identity{
	{Login: "alice-sandbox", Name: "Alice Sandbox", Email: "alice@sandbox.test", EmailVerified: true},
	{Login: "bob-sandbox", Name: "Bob Sandbox", Email: "bob@sandbox.test", EmailVerified: true},
	{Login: "mallory-sandbox", Name: "Mallory (unverified email)", Email: "mallory@sandbox.test"},
}

// Config configures a provider.
type Config struct {
	// Clients are the registered apps; empty means the default client
	// (DefaultClientID, DefaultClientSecret, any redirect URI).
	Clients []Client
	// Identities offered; nil means DefaultIdentities.
	Identities []Identity
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

const (
	codeTTL  = 10 * time.Minute // GitHub's
	tokenTTL = time.Hour
)

// Provider is a running sandbox GitHub.
type Provider struct {
	cfg Config

	mu     sync.Mutex
	codes  map[string]*grant
	tokens map[string]*grant
}

type grant struct {
	clientID, redirectURI, challenge string
	who                              Identity
	expires                          time.Time
}

// New makes a provider.
func New(cfg Config) *Provider {
	if len(cfg.Clients) == 0 {
		cfg.Clients = []Client{{ID: DefaultClientID, Secret: DefaultClientSecret}}
	}
	if cfg.Identities == nil {
		cfg.Identities = DefaultIdentities
	}
	return &Provider{cfg: cfg, codes: map[string]*grant{}, tokens: map[string]*grant{}}
}

func (p *Provider) now() time.Time {
	if p.cfg.Now != nil {
		return p.cfg.Now()
	}
	return time.Now()
}

// Handler serves the provider; mount it at its base path with the prefix
// stripped.
func (p *Provider) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login/oauth/authorize", p.authorize)
	mux.HandleFunc("POST /login/oauth/authorize", p.pick)
	mux.HandleFunc("POST /login/oauth/access_token", p.token)
	mux.HandleFunc("GET /api/v3/user", p.user)
	mux.HandleFunc("GET /api/v3/user/emails", p.emails)
	return mux
}

// ID is the stable numeric account id of a sandbox identity (GitHub's
// "id"), derived from its login.
func ID(login string) int64 {
	sum := sha256.Sum256([]byte("sandbox-github|" + strings.ToLower(login)))
	return int64(binary.BigEndian.Uint32(sum[:4])) + 1_000_000
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

type authRequest struct {
	ClientID, RedirectURI, State, Challenge string
}

// parseAuth checks an authorization request; a bad client or redirect URI
// is shown on the page, never redirected to.
func (p *Provider) parseAuth(v url.Values) (authRequest, string) {
	r := authRequest{ClientID: v.Get("client_id"), RedirectURI: v.Get("redirect_uri"), State: v.Get("state"),
		Challenge: v.Get("code_challenge")}
	c, ok := p.client(r.ClientID)
	switch {
	case !ok:
		return r, "unknown client_id"
	case !c.allows(r.RedirectURI):
		return r, "redirect_uri is not registered for this application"
	case r.Challenge != "" && v.Get("code_challenge_method") != "S256":
		return r, "code_challenge_method must be S256"
	}
	return r, ""
}

func (p *Provider) authorize(w http.ResponseWriter, req *http.Request) {
	r, bad := p.parseAuth(req.URL.Query())
	if bad != "" {
		http.Error(w, "sandbox GitHub: "+bad, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' "+originOf(r.RedirectURI)+"; frame-ancestors 'none'")
	w.Header().Set("Cache-Control", "no-store")
	_ = pickerPage.Execute(w, map[string]any{"Req": r, "Identities": p.cfg.Identities, "Action": template.URL("?" + req.URL.RawQuery)})
}

func originOf(u string) string {
	pu, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return pu.Scheme + "://" + pu.Host
}

func back(w http.ResponseWriter, req *http.Request, r authRequest, q url.Values) {
	u, _ := url.Parse(r.RedirectURI)
	v := u.Query()
	for k, vs := range q {
		v[k] = vs
	}
	if r.State != "" {
		v.Set("state", r.State)
	}
	u.RawQuery = v.Encode()
	http.Redirect(w, req, u.String(), http.StatusFound)
}

func (p *Provider) pick(w http.ResponseWriter, req *http.Request) {
	if err := req.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	r, bad := p.parseAuth(req.URL.Query())
	if bad != "" {
		http.Error(w, "sandbox GitHub: "+bad, http.StatusBadRequest)
		return
	}
	if req.PostForm.Get("action") == "deny" {
		back(w, req, r, url.Values{"error": {"access_denied"}, "error_description": {"The user has denied your application access."}})
		return
	}
	var who Identity
	if i, err := strconv.Atoi(req.PostForm.Get("identity")); err == nil && i >= 0 && i < len(p.cfg.Identities) {
		who = p.cfg.Identities[i]
	} else {
		email := strings.ToLower(strings.TrimSpace(req.PostForm.Get("email")))
		if !strings.Contains(email, "@") || len(email) > 254 {
			http.Error(w, "sandbox GitHub: type an email address", http.StatusBadRequest)
			return
		}
		login, _, _ := strings.Cut(email, "@")
		who = Identity{Login: login, Name: strings.TrimSpace(req.PostForm.Get("name")), Email: email,
			EmailVerified: req.PostForm.Get("verified") == "on"}
	}
	code := randomString(20)
	p.mu.Lock()
	p.sweep()
	p.codes[code] = &grant{clientID: r.ClientID, redirectURI: r.RedirectURI, challenge: r.Challenge, who: who, expires: p.now().Add(codeTTL)}
	p.mu.Unlock()
	back(w, req, r, url.Values{"code": {code}})
}

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

// tokenAnswer writes v as GitHub does: JSON when asked for, else form
// encoded. Errors are 200 answers with an "error" field, as GitHub's.
func tokenAnswer(w http.ResponseWriter, req *http.Request, v map[string]string) {
	w.Header().Set("Cache-Control", "no-store")
	if strings.Contains(req.Header.Get("Accept"), "application/json") {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_ = json.NewEncoder(w).Encode(v)
		return
	}
	q := url.Values{}
	for k, s := range v {
		q.Set(k, s)
	}
	w.Header().Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	_, _ = w.Write([]byte(q.Encode()))
}

func (p *Provider) token(w http.ResponseWriter, req *http.Request) {
	if err := req.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	f := req.PostForm
	id, sec, basic := req.BasicAuth()
	if !basic {
		id, sec = f.Get("client_id"), f.Get("client_secret")
	}
	c, ok := p.client(id)
	if !ok || subtle.ConstantTimeCompare([]byte(c.Secret), []byte(sec)) != 1 {
		tokenAnswer(w, req, map[string]string{"error": "incorrect_client_credentials",
			"error_description": "The client_id and/or client_secret passed are incorrect."})
		return
	}
	p.mu.Lock()
	g := p.codes[f.Get("code")]
	delete(p.codes, f.Get("code"))
	p.mu.Unlock()
	switch {
	case g == nil || p.now().After(g.expires) || g.clientID != id:
		tokenAnswer(w, req, map[string]string{"error": "bad_verification_code", "error_description": "The code passed is incorrect or expired."})
		return
	case f.Get("redirect_uri") != "" && f.Get("redirect_uri") != g.redirectURI:
		tokenAnswer(w, req, map[string]string{"error": "redirect_uri_mismatch", "error_description": "The redirect_uri MUST match the registered callback URL for this application."})
		return
	}
	if g.challenge != "" {
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		if subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(g.challenge)) != 1 {
			tokenAnswer(w, req, map[string]string{"error": "bad_verification_code", "error_description": "The code_verifier does not match the code_challenge."})
			return
		}
	}
	access := "gho_" + randomString(27)
	p.mu.Lock()
	g.expires = p.now().Add(tokenTTL)
	p.tokens[access] = g
	p.mu.Unlock()
	tokenAnswer(w, req, map[string]string{"access_token": access, "token_type": "bearer", "scope": "read:user,user:email"})
}

// bearer finds the grant of the request's access token ("Bearer" or
// GitHub's older "token" scheme).
func (p *Provider) bearer(w http.ResponseWriter, req *http.Request) *grant {
	auth := req.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok {
		tok, ok = strings.CutPrefix(auth, "token ")
	}
	p.mu.Lock()
	g := p.tokens[tok]
	p.mu.Unlock()
	if !ok || g == nil || p.now().After(g.expires) {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "Bad credentials",
			"documentation_url": "https://docs.github.com/rest"})
		return nil
	}
	return g
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (p *Provider) user(w http.ResponseWriter, req *http.Request) {
	g := p.bearer(w, req)
	if g == nil {
		return
	}
	var name any = g.who.Name
	if g.who.Name == "" {
		name = nil
	}
	// "email" is the public email, which most accounts leave unset: the
	// verified addresses are /user/emails's business.
	writeJSON(w, http.StatusOK, map[string]any{"login": g.who.Login, "id": ID(g.who.Login), "name": name,
		"email": nil, "type": "User", "site_admin": false})
}

func (p *Provider) emails(w http.ResponseWriter, req *http.Request) {
	g := p.bearer(w, req)
	if g == nil {
		return
	}
	writeJSON(w, http.StatusOK, []map[string]any{
		{"email": g.who.Email, "primary": true, "verified": g.who.EmailVerified, "visibility": "private"},
		{"email": strconv.FormatInt(ID(g.who.Login), 10) + "+" + g.who.Login + "@users.noreply.sandbox.test", "primary": false,
			"verified": true, "visibility": nil},
	})
}

func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

var pickerPage = template.Must(template.New("pick").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sandbox GitHub: authorize</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:30rem;margin:2rem auto;padding:0 1rem;color:#1f2328;background:#f6f8fa}
.card{background:#fff;border:1px solid #d0d7de;border-radius:12px;padding:1.25rem 1.5rem;margin-bottom:1rem}
button{font:inherit;padding:.55rem 1rem;border-radius:8px;border:1px solid #1f883d;background:#fff;cursor:pointer;width:100%;text-align:left;margin:.25rem 0}
button.primary{background:#1f883d;color:#fff}
label{display:block;margin:.5rem 0 .2rem}input[type=email],input[type=text]{font:inherit;width:100%;box-sizing:border-box;padding:.45rem;border:1px solid #d0d7de;border-radius:6px}
small{color:#59636e}
</style></head><body>
<h1>Sandbox GitHub</h1>
<p><small>The sandbox's stand-in for github.com: no password, pick the account. Application <code>{{.Req.ClientID}}</code> asks to read your profile and email addresses.</small></p>
<form method="post" action="{{.Action}}" class="card">
<h2>Authorize as</h2>
{{range $i, $id := .Identities}}<button name="identity" value="{{$i}}">@{{$id.Login}} · {{$id.Email}}{{if not $id.EmailVerified}} — email not verified{{end}}</button>
{{end}}
</form>
<form method="post" action="{{.Action}}" class="card">
<h2>Someone else</h2>
<label for="gh-email">Primary email</label><input id="gh-email" name="email" type="email" required>
<label for="gh-name">Name</label><input id="gh-name" name="name" type="text">
<label><input type="checkbox" name="verified" checked> email verified</label>
<button class="primary" id="github-authorize">Authorize</button>
</form>
<form method="post" action="{{.Action}}"><button name="action" value="deny">Cancel</button></form>
</body></html>`))
