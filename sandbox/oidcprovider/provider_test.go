package oidcprovider_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/agent-trading/ats/sandbox/oidcprovider"
)

const redirect = "http://localhost:9999/auth/oidc/sandbox/callback"

func start(t *testing.T, alg string) (*oidcprovider.Provider, string) {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	p, err := oidcprovider.New(oidcprovider.Config{Issuer: "http://" + srv.Listener.Addr().String() + "/oidc", Algorithm: alg,
		Clients: []oidcprovider.Client{{ID: "app", Secret: "s3cret", RedirectURIs: []string{redirect}}}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/oidc/", http.StripPrefix("/oidc", p.Handler()))
	srv.Config.Handler = mux
	srv.Start()
	t.Cleanup(srv.Close)
	return p, p.Issuer()
}

var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func challenge(v string) string {
	s := sha256.Sum256([]byte(v))
	return base64.RawURLEncoding.EncodeToString(s[:])
}

// authorize runs the picker for email and returns the code.
func authorize(t *testing.T, iss string, q url.Values, email string) string {
	t.Helper()
	resp, err := noRedirect.PostForm(iss+"/authorize?"+q.Encode(), url.Values{"email": {email}, "name": {"N"}, "verified": {"on"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("authorize: %d", resp.StatusCode)
	}
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if loc.Query().Get("state") != q.Get("state") || !strings.HasPrefix(loc.String(), redirect) {
		t.Fatalf("redirect back: %s", loc)
	}
	return loc.Query().Get("code")
}

func authQuery(verifier string) url.Values {
	return url.Values{"client_id": {"app"}, "redirect_uri": {redirect}, "response_type": {"code"}, "scope": {"openid email"},
		"state": {"st"}, "nonce": {"nn"}, "code_challenge": {challenge(verifier)}, "code_challenge_method": {"S256"}}
}

func token(t *testing.T, iss string, form url.Values) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, iss+"/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("app", "s3cret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func TestCodeFlowIssuesVerifiableIDTokens(t *testing.T) {
	for _, alg := range []string{"RS256", "ES256"} {
		t.Run(alg, func(t *testing.T) {
			_, iss := start(t, alg)
			var disc map[string]any
			resp, err := http.Get(iss + "/.well-known/openid-configuration")
			if err != nil {
				t.Fatal(err)
			}
			_ = json.NewDecoder(resp.Body).Decode(&disc)
			resp.Body.Close()
			if disc["issuer"] != iss || disc["token_endpoint"] != iss+"/token" {
				t.Fatalf("discovery: %v", disc)
			}
			code := authorize(t, iss, authQuery("verifier-1234567890-abcdefghijklmnopqrstuvwxyz"), "Ann@Example.com")
			form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect},
				"code_verifier": {"verifier-1234567890-abcdefghijklmnopqrstuvwxyz"}}
			status, out := token(t, iss, form)
			if status != http.StatusOK {
				t.Fatalf("token: %d %v", status, out)
			}
			// Verify the ID token with the published key.
			resp, err = http.Get(iss + "/jwks")
			if err != nil {
				t.Fatal(err)
			}
			var set jose.JSONWebKeySet
			_ = json.NewDecoder(resp.Body).Decode(&set)
			resp.Body.Close()
			jws, err := jose.ParseSigned(out["id_token"].(string), []jose.SignatureAlgorithm{jose.SignatureAlgorithm(alg)})
			if err != nil {
				t.Fatal(err)
			}
			payload, err := jws.Verify(set.Keys[0])
			if err != nil {
				t.Fatal(err)
			}
			var claims map[string]any
			_ = json.Unmarshal(payload, &claims)
			if claims["iss"] != iss || claims["aud"] != "app" || claims["nonce"] != "nn" || claims["email"] != "ann@example.com" ||
				claims["email_verified"] != true || claims["sub"] != oidcprovider.Subject("ann@example.com") {
				t.Fatalf("claims: %v", claims)
			}
			// The code is spent.
			if status, out := token(t, iss, form); status != http.StatusBadRequest || out["error"] != "invalid_grant" {
				t.Fatalf("second redemption: %d %v", status, out)
			}
		})
	}
}

func TestTokenEndpointRefusals(t *testing.T) {
	_, iss := start(t, "")
	const verifier = "the-right-verifier-0123456789-0123456789-0123"
	tests := []struct {
		name   string
		mutate func(url.Values)
		want   string
	}{
		{"wrong verifier", func(f url.Values) { f.Set("code_verifier", "another-verifier-0123456789-0123456789-012345") }, "invalid_grant"},
		{"no verifier", func(f url.Values) { f.Del("code_verifier") }, "invalid_grant"},
		{"other redirect", func(f url.Values) { f.Set("redirect_uri", "http://localhost:9999/other") }, "invalid_grant"},
		{"unknown code", func(f url.Values) { f.Set("code", "nope") }, "invalid_grant"},
		{"grant type", func(f url.Values) { f.Set("grant_type", "password") }, "unsupported_grant_type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code := authorize(t, iss, authQuery(verifier), "a@example.com")
			form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect}, "code_verifier": {verifier}}
			tt.mutate(form)
			if status, out := token(t, iss, form); status != http.StatusBadRequest || out["error"] != tt.want {
				t.Fatalf("%d %v", status, out)
			}
		})
	}
	t.Run("wrong client secret", func(t *testing.T) {
		code := authorize(t, iss, authQuery(verifier), "a@example.com")
		form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect}, "code_verifier": {verifier},
			"client_id": {"app"}, "client_secret": {"wrong"}}
		resp, err := http.PostForm(iss+"/token", form)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("%d", resp.StatusCode)
		}
	})
}

func TestAuthorizeRefusals(t *testing.T) {
	_, iss := start(t, "")
	get := func(q url.Values) *http.Response {
		resp, err := noRedirect.Get(iss + "/authorize?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	q := authQuery("v")
	q.Set("redirect_uri", "https://evil.example/cb")
	if r := get(q); r.StatusCode != http.StatusBadRequest {
		t.Fatalf("unregistered redirect: %d (must not redirect)", r.StatusCode)
	}
	q = authQuery("v")
	q.Del("code_challenge")
	if r := get(q); r.StatusCode != http.StatusFound || !strings.Contains(r.Header.Get("Location"), "error=invalid_request") {
		t.Fatalf("PKCE is required: %d %s", r.StatusCode, r.Header.Get("Location"))
	}
	if r := get(authQuery("v")); r.StatusCode != http.StatusOK {
		t.Fatalf("a good request shows the picker: %d", r.StatusCode)
	}
}
