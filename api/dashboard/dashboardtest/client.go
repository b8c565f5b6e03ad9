// Package dashboardtest drives the dashboard over HTTP like a browser
// without script: a cookie jar, forms with their CSRF token, redirects
// followed or inspected.
package dashboardtest

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// Client is one browser.
type Client struct {
	T    testing.TB
	Base string
	HTTP *http.Client
}

// New returns a client of the dashboard at base with an empty cookie jar.
// It does not follow redirects by itself; Follow does.
func New(t testing.TB, base string) *Client {
	jar, _ := cookiejar.New(nil)
	return &Client{T: t, Base: base, HTTP: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// Response is a finished request.
type Response struct {
	Status   int
	Body     string
	Location string
}

func (c *Client) do(req *http.Request) Response {
	c.T.Helper()
	resp, err := c.HTTP.Do(req)
	if err != nil {
		c.T.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return Response{Status: resp.StatusCode, Body: string(b), Location: resp.Header.Get("Location")}
}

func (c *Client) abs(path string) string {
	if strings.HasPrefix(path, "http://") || strings.HasPrefix(path, "https://") {
		return path
	}
	return c.Base + path
}

// Get fetches path.
func (c *Client) Get(path string) Response {
	c.T.Helper()
	req, _ := http.NewRequest(http.MethodGet, c.abs(path), nil)
	return c.do(req)
}

// Post submits form to path as a same-origin browser would.
func (c *Client) Post(path string, form url.Values) Response {
	c.T.Helper()
	req, _ := http.NewRequest(http.MethodPost, c.abs(path), strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if strings.HasPrefix(c.abs(path), c.Base) {
		req.Header.Set("Origin", c.Base)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
	}
	return c.do(req)
}

// Follow follows r's redirects with GETs and returns the last response.
func (c *Client) Follow(r Response) Response {
	c.T.Helper()
	for i := 0; i < 10 && r.Location != ""; i++ {
		loc, err := url.Parse(r.Location)
		if err != nil {
			c.T.Fatalf("bad redirect %q", r.Location)
		}
		if !loc.IsAbs() {
			base, _ := url.Parse(c.Base)
			loc = base.ResolveReference(loc)
		}
		r = c.Get(loc.String())
	}
	return r
}

var csrfRE = regexp.MustCompile(`name="csrf[_-]token" (?:value|content)="([^"]+)"`)

// CSRF returns the first CSRF token of a page.
func CSRF(t testing.TB, body string) string {
	t.Helper()
	m := csrfRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no CSRF token on the page:\n%s", body)
	}
	return m[1]
}

// Submit loads page, then posts form to action with the page's CSRF
// token.
func (c *Client) Submit(page, action string, form url.Values) Response {
	c.T.Helper()
	p := c.Get(page)
	if p.Status != http.StatusOK {
		c.T.Fatalf("GET %s: %d %s", page, p.Status, p.Location)
	}
	if form == nil {
		form = url.Values{}
	}
	form.Set("csrf_token", CSRF(c.T, p.Body))
	return c.Post(action, form)
}

// Cookie returns the value of the named cookie for the base URL.
func (c *Client) Cookie(name string) string {
	u, _ := url.Parse(c.Base)
	for _, ck := range c.HTTP.Jar.Cookies(u) {
		if ck.Name == name {
			return ck.Value
		}
	}
	return ""
}

// SetCookie plants a cookie, as an attacker would for session fixation.
func (c *Client) SetCookie(name, value string) {
	u, _ := url.Parse(c.Base)
	c.HTTP.Jar.SetCookies(u, []*http.Cookie{{Name: name, Value: value, Path: "/"}})
}
