package main

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"
)

// envScreenshots names a directory the browser tests save their page
// screenshots to (docs/screenshots is where docs/dashboard.md finds
// them); unset, none are taken.
const envScreenshots = "ATS_SCREENSHOTS"

// chromiumPath finds Debian's chromium (or a Chrome). Without one the
// browser tests skip, except under CI, where they must run.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("the browser tests need chromium: apt-get install chromium (.ci/run installs it)")
	}
	t.Skip("browser tests skipped: no chromium on PATH (apt-get install chromium)")
	return ""
}

// browser is one headless Chromium tab with a fresh profile.
type browser struct {
	t    *testing.T
	ctx  context.Context
	base string
}

func newBrowser(t *testing.T, base string) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.WindowSize(1280, 900),
	)
	if os.Geteuid() == 0 {
		// Chromium's sandbox refuses to run as root.
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// The first call starts the browser and binds it to its context: it
	// must be the long-lived one, without a timeout.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return &browser{t: t, ctx: ctx, base: base}
}

func (b *browser) do(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatalf("browser: %v (at %s)", err, b.location())
	}
}

func run[T any](b *browser, a chromedp.Action[T]) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		b.t.Fatalf("browser: %v (at %s)", err, b.location())
	}
	return v
}

func (b *browser) location() string {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	l, _ := chromedp.Run(ctx, chromedp.Location())
	return l
}

// path is the current page's path and query.
func (b *browser) path() string {
	u, err := url.Parse(b.location())
	if err != nil {
		return ""
	}
	return u.RequestURI()
}

func (b *browser) open(path string) {
	b.t.Helper()
	b.do(chromedp.Navigate(b.base+path), chromedp.WaitReady(chromedp.CSS("body")))
}

func (b *browser) fill(id, value string) {
	b.t.Helper()
	b.do(chromedp.WaitVisible(chromedp.ID(id)), chromedp.SetValue(chromedp.ID(id), value))
}

// click clicks the element with id and waits until the page's path starts
// with want (the navigation the click causes has finished).
func (b *browser) click(sel string, want string) {
	b.t.Helper()
	before := b.location()
	b.do(chromedp.WaitVisible(chromedp.CSS(sel)), chromedp.Click(chromedp.CSS(sel)))
	b.waitPath(want, before)
}

// waitPath waits for a page whose path starts with want and that is not
// the page at notURL any more ("" = any).
func (b *browser) waitPath(want, notURL string) {
	b.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		loc := b.location()
		if strings.HasPrefix(b.path(), want) && loc != notURL {
			break
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("waited for %s, at %s: %s", want, loc, b.text("main"))
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.do(chromedp.WaitReady(chromedp.CSS("body")))
}

func (b *browser) text(sel string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	s, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	return s
}

// see fails unless the page's main text contains each of want.
func (b *browser) see(want ...string) {
	b.t.Helper()
	txt := b.text("main")
	for _, w := range want {
		if !strings.Contains(txt, w) {
			b.t.Fatalf("page %s does not say %q:\n%s", b.path(), w, txt)
		}
	}
}

// screenshot saves the whole page at desktop and phone widths as
// <name>.png and <name>-phone.png, when ATS_SCREENSHOTS is set.
func (b *browser) screenshot(name string) { b.capture(name, true) }

// screenshotTop saves only the top of a long page (the first screen).
func (b *browser) screenshotTop(name string) { b.capture(name, false) }

func (b *browser) capture(name string, full bool) {
	b.t.Helper()
	dir := os.Getenv(envScreenshots)
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	for _, v := range []struct {
		suffix string
		w, h   int64
		mobile bool
	}{{"", 1280, 860, false}, {"-phone", 390, 844, true}} {
		_, err := chromedp.Call(b.ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: v.w, Height: v.h, DeviceScaleFactor: 1, Mobile: v.mobile})
		if err != nil {
			b.t.Fatal(err)
		}
		shot := chromedp.CaptureScreenshot()
		if full {
			shot = chromedp.FullScreenshot(100)
		}
		png := run(b, shot)
		if err := os.WriteFile(filepath.Join(dir, name+v.suffix+".png"), png, 0o644); err != nil {
			b.t.Fatal(err)
		}
	}
	if _, err := chromedp.Call(b.ctx, emulation.ClearDeviceMetricsOverride, cdp.Empty{}); err != nil {
		b.t.Fatal(err)
	}
}

// addAuthenticator gives the browser a virtual platform authenticator
// (CDP WebAuthn domain) that verifies the user and keeps discoverable
// credentials, like a laptop's fingerprint reader.
func (b *browser) addAuthenticator() webauthn.AuthenticatorID {
	b.t.Helper()
	if _, err := chromedp.Call(b.ctx, webauthn.Enable, webauthn.EnableParams{}); err != nil {
		b.t.Fatal(err)
	}
	res, err := chromedp.Call(b.ctx, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{
		Options: &webauthn.VirtualAuthenticatorOptions{
			Protocol: webauthn.AuthenticatorProtocolCtap2, Ctap2version: webauthn.Ctap2versionCtap21,
			Transport: webauthn.AuthenticatorTransportInternal, HasResidentKey: true, HasUserVerification: true,
			IsUserVerified: true, AutomaticPresenceSimulation: true,
		}})
	if err != nil {
		b.t.Fatal(err)
	}
	return res.AuthenticatorID
}
