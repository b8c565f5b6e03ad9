package githubprovider_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/agent-trading/ats/sandbox/githubprovider"
)

func noRedirect() *http.Client {
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// authorize picks identity i (or types email) and returns the code.
func authorize(t *testing.T, base, challenge string, form url.Values) string {
	t.Helper()
	q := url.Values{"client_id": {githubprovider.DefaultClientID}, "redirect_uri": {"http://app.test/cb"}, "state": {"st8"},
		"scope": {"read:user user:email"}}
	if challenge != "" {
		q.Set("code_challenge", challenge)
		q.Set("code_challenge_method", "S256")
	}
	page, err := http.Get(base + "/login/oauth/authorize?" + q.Encode())
	if err != nil || page.StatusCode != http.StatusOK {
		t.Fatalf("authorize page: %v %v", err, page)
	}
	page.Body.Close()
	resp, err := noRedirect().PostForm(base+"/login/oauth/authorize?"+q.Encode(), form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusFound || loc.Query().Get("state") != "st8" || loc.Query().Get("code") == "" {
		t.Fatalf("callback %d %s", resp.StatusCode, loc)
	}
	return loc.Query().Get("code")
}

func token(t *testing.T, base string, form url.Values, accept string) map[string]string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/login/oauth/access_token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]string{}
	if accept == "application/json" {
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	b, _ := io.ReadAll(resp.Body)
	v, _ := url.ParseQuery(string(b))
	for k := range v {
		out[k] = v.Get(k)
	}
	return out
}

// TestGitHubFlow: GitHub's web flow and API as the sandbox serves them:
// a code once, for the app and its callback, under its PKCE challenge;
// token answers as form or JSON; /user's numeric id and /user/emails's
// primary verified address; a bad token gets GitHub's 401.
func TestGitHubFlow(t *testing.T) {
	srv := httptest.NewServer(http.StripPrefix("/github", githubprovider.New(githubprovider.Config{}).Handler()))
	defer srv.Close()
	base := srv.URL + "/github"
	verifier := "a-verifier-of-forty-three-characters-or-more-0123"
	sum := sha256.Sum256([]byte(verifier))
	challenge := base64.RawURLEncoding.EncodeToString(sum[:])

	code := authorize(t, base, challenge, url.Values{"identity": {"0"}})
	form := url.Values{"client_id": {githubprovider.DefaultClientID}, "client_secret": {githubprovider.DefaultClientSecret},
		"code": {code}, "redirect_uri": {"http://app.test/cb"}, "code_verifier": {"wrong"}}
	if got := token(t, base, form, "application/json"); got["error"] != "bad_verification_code" {
		t.Fatalf("a wrong verifier: %v", got)
	}
	code = authorize(t, base, challenge, url.Values{"identity": {"0"}})
	form.Set("code", code)
	form.Set("client_secret", "nope")
	form.Set("code_verifier", verifier)
	if got := token(t, base, form, ""); got["error"] != "incorrect_client_credentials" {
		t.Fatalf("a wrong secret: %v", got)
	}
	form.Set("client_secret", githubprovider.DefaultClientSecret)
	got := token(t, base, form, "")
	if !strings.HasPrefix(got["access_token"], "gho_") || got["token_type"] != "bearer" {
		t.Fatalf("form answer: %v", got)
	}
	if again := token(t, base, form, "application/json"); again["error"] != "bad_verification_code" {
		t.Fatalf("a code works once: %v", again)
	}
	api := func(path, tok string) (int, []byte) {
		req, _ := http.NewRequest(http.MethodGet, base+"/api/v3"+path, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	st, body := api("/user", got["access_token"])
	var u struct {
		ID    int64  `json:"id"`
		Login string `json:"login"`
	}
	if err := json.Unmarshal(body, &u); err != nil || st != 200 || u.Login != "alice-sandbox" || u.ID != githubprovider.ID("alice-sandbox") {
		t.Fatalf("/user %d %s", st, body)
	}
	st, body = api("/user/emails", got["access_token"])
	var emails []struct {
		Email    string `json:"email"`
		Primary  bool   `json:"primary"`
		Verified bool   `json:"verified"`
	}
	if err := json.Unmarshal(body, &emails); err != nil || st != 200 || len(emails) != 2 || !emails[0].Primary ||
		!emails[0].Verified || emails[0].Email != "alice@sandbox.test" {
		t.Fatalf("/user/emails %d %s", st, body)
	}
	if st, body := api("/user", "gho_forged"); st != http.StatusUnauthorized || !strings.Contains(string(body), "Bad credentials") {
		t.Fatalf("a forged token: %d %s", st, body)
	}

	// Someone else, unverified.
	code = authorize(t, base, "", url.Values{"email": {"new@sandbox.test"}})
	form = url.Values{"client_id": {githubprovider.DefaultClientID}, "client_secret": {githubprovider.DefaultClientSecret}, "code": {code}}
	tok := token(t, base, form, "application/json")["access_token"]
	_, body = api("/user/emails", tok)
	if !strings.Contains(string(body), `"email":"new@sandbox.test","primary":true,"verified":false`) {
		t.Fatalf("unverified primary: %s", body)
	}
	// An unknown app or a foreign callback is shown, never redirected to.
	resp, err := noRedirect().Get(base + "/login/oauth/authorize?client_id=other&redirect_uri=http://evil.test/")
	if err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("unknown app: %v %v", err, resp.StatusCode)
	}
}
