// Browser drives headless Chromium through the dashboard (chromedp).

package dashboardtest

import (
	"context"
	"encoding/json"
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
	"github.com/chromedp/chromedp/kb"
)

// EnvScreenshots names a directory the browser tests save their page
// screenshots to (docs/screenshots is where docs/dashboard.md finds
// them); unset, none are taken.
const EnvScreenshots = "ATS_SCREENSHOTS"

// ChromiumPath finds Debian's chromium (or a Chrome). Without one the
// browser tests skip, except under CI, where they must run.
func ChromiumPath(t *testing.T) string {
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

// Browser is one headless Chromium tab with a fresh profile.
type Browser struct {
	T    *testing.T
	Ctx  context.Context
	Base string
}

func NewBrowser(t *testing.T, base string) *Browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(ChromiumPath(t)),
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
	return &Browser{T: t, Ctx: ctx, Base: base}
}

func (b *Browser) Do(actions ...chromedp.Action[chromedp.Void]) {
	b.T.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.T.Fatalf("browser: %v (at %s)", err, b.Location())
	}
}

// Run runs a on the tab and returns its value.
func Run[T any](b *Browser, a chromedp.Action[T]) T {
	b.T.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		b.T.Fatalf("browser: %v (at %s)", err, b.Location())
	}
	return v
}

func (b *Browser) Location() string {
	ctx, cancel := context.WithTimeout(b.Ctx, 5*time.Second)
	defer cancel()
	l, _ := chromedp.Run(ctx, chromedp.Location())
	return l
}

// Path is the current page's path and query.
func (b *Browser) Path() string {
	u, err := url.Parse(b.Location())
	if err != nil {
		return ""
	}
	return u.RequestURI()
}

func (b *Browser) Open(path string) {
	b.T.Helper()
	b.Do(chromedp.Navigate(b.Base+path), chromedp.WaitReady(chromedp.CSS("body")))
}

func (b *Browser) Fill(id, value string) {
	b.T.Helper()
	b.Do(chromedp.WaitVisible(chromedp.ID(id)), chromedp.SetValue(chromedp.ID(id), value))
}

// Click clicks the element with id and waits until the page's path starts
// with want (the navigation the click causes has finished).
func (b *Browser) Click(sel string, want string) {
	b.T.Helper()
	before := b.Location()
	for attempt := 1; ; attempt++ {
		ctx, cancel := context.WithTimeout(b.Ctx, 60*time.Second)
		err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(sel)), chromedp.Click(chromedp.CSS(sel)))
		cancel()
		if err == nil {
			break
		}
		// A live page swaps its regions when a change arrives: the node
		// found may be replaced before the click lands on it. The click
		// then never happened; find the element again.
		if attempt < 5 && strings.Contains(err.Error(), "Could not find node") {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		b.T.Fatalf("browser: %v (at %s)", err, b.Location())
	}
	b.WaitPath(want, before)
}

// WaitPath waits for a page whose path starts with want and that is not
// the page at notURL any more ("" = any).
func (b *Browser) WaitPath(want, notURL string) {
	b.T.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		loc := b.Location()
		if strings.HasPrefix(b.Path(), want) && loc != notURL {
			break
		}
		if time.Now().After(deadline) {
			b.T.Fatalf("waited for %s, at %s: %s", want, loc, b.Text("main"))
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.Do(chromedp.WaitReady(chromedp.CSS("body")))
}

// Text is the text of the first element matching sel ("" when none). It
// is read by one script evaluation, so a live page swapping a region in
// the meantime cannot leave it reading a node that is gone.
func (b *Browser) Text(sel string) string {
	b.T.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, 30*time.Second)
	defer cancel()
	q, _ := json.Marshal(sel)
	s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(function (s) { var e = document.querySelector(s); return e ? e.innerText : ''; })(`+string(q)+`)`))
	return s
}

// See fails unless the page's main text contains each of want.
func (b *Browser) See(want ...string) {
	b.T.Helper()
	txt := b.Text("main")
	if w, ok := missing(txt, want); ok {
		b.T.Fatalf("page %s does not say %q:\n%s", b.Path(), w, txt)
	}
}

// missing is the first of want that txt does not contain (ok: one is).
func missing(txt string, want []string) (string, bool) {
	for _, w := range want {
		if !strings.Contains(txt, w) {
			return w, true
		}
	}
	return "", false
}

// SeeSoon is See for what the page shows once work it does not wait for
// is done (a webhook's delivery recorded after its receiver answered):
// it reads the page again, each second, for up to 30 s.
func (b *Browser) SeeSoon(want ...string) {
	b.T.Helper()
	path := b.Path()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
		if _, ok := missing(b.Text("main"), want); !ok {
			return
		}
		b.Open(path)
	}
	b.See(want...)
}

// Screenshot saves the whole page at desktop and phone widths as
// <name>.png and <name>-phone.png, when ATS_SCREENSHOTS is set.
func (b *Browser) Screenshot(name string) { b.Capture(name, true) }

// ScreenshotTop saves only the top of a long page (the first screen).
func (b *Browser) ScreenshotTop(name string) { b.Capture(name, false) }

func (b *Browser) Capture(name string, full bool) {
	b.T.Helper()
	dir := os.Getenv(EnvScreenshots)
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.T.Fatal(err)
	}
	for _, v := range []struct {
		suffix string
		w, h   int64
		mobile bool
	}{{"", 1280, 860, false}, {"-phone", 390, 844, true}} {
		_, err := chromedp.Call(b.Ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: v.w, Height: v.h, DeviceScaleFactor: 1, Mobile: v.mobile})
		if err != nil {
			b.T.Fatal(err)
		}
		shot := chromedp.CaptureScreenshot()
		if full {
			shot = chromedp.FullScreenshot(100)
		}
		png := Run(b, shot)
		if err := os.WriteFile(filepath.Join(dir, name+v.suffix+".png"), png, 0o644); err != nil {
			b.T.Fatal(err)
		}
	}
	if _, err := chromedp.Call(b.Ctx, emulation.ClearDeviceMetricsOverride, cdp.Empty{}); err != nil {
		b.T.Fatal(err)
	}
}

// AddAuthenticator gives the browser a virtual platform authenticator
// (CDP WebAuthn domain) that verifies the user and keeps discoverable
// credentials, like a laptop's fingerprint reader.
func (b *Browser) AddAuthenticator() webauthn.AuthenticatorID {
	b.T.Helper()
	if _, err := chromedp.Call(b.Ctx, webauthn.Enable, webauthn.EnableParams{}); err != nil {
		b.T.Fatal(err)
	}
	res, err := chromedp.Call(b.Ctx, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{
		Options: &webauthn.VirtualAuthenticatorOptions{
			Protocol: webauthn.AuthenticatorProtocolCtap2, Ctap2version: webauthn.Ctap2versionCtap21,
			Transport: webauthn.AuthenticatorTransportInternal, HasResidentKey: true, HasUserVerification: true,
			IsUserVerified: true, AutomaticPresenceSimulation: true,
		}})
	if err != nil {
		b.T.Fatal(err)
	}
	return res.AuthenticatorID
}

// TabTo moves the keyboard focus with Tab, as a keyboard user would, until
// the element with id has it; it fails if 60 presses do not get there.
func (b *Browser) TabTo(id string) {
	b.T.Helper()
	for i := 0; i < 60; i++ {
		b.Do(chromedp.KeyEvent(kb.Tab))
		if Run(b, chromedp.Evaluate[string](`document.activeElement ? document.activeElement.id : ''`)) == id {
			return
		}
	}
	b.T.Fatalf("Tab never reaches #%s on %s", id, b.Path())
}

// Press presses Enter on the focused element and waits for the page whose
// path starts with want.
func (b *Browser) Press(want string) {
	b.T.Helper()
	before := b.Location()
	b.Do(chromedp.KeyEvent(kb.Enter))
	b.WaitPath(want, before)
}

// FitsPhone fails unless the page, laid out at a phone's width (390 CSS
// pixels), needs no sideways scrolling: wide tables scroll inside their
// own box, charts shrink.
func (b *Browser) FitsPhone() {
	b.T.Helper()
	_, err := chromedp.Call(b.Ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: 390, Height: 844, DeviceScaleFactor: 1, Mobile: true})
	if err != nil {
		b.T.Fatal(err)
	}
	defer func() {
		if _, err := chromedp.Call(b.Ctx, emulation.ClearDeviceMetricsOverride, cdp.Empty{}); err != nil {
			b.T.Fatal(err)
		}
	}()
	w := Run(b, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
	if w > 390 {
		b.T.Fatalf("%s is %d px wide at a phone's 390 px", b.Path(), w)
	}
}

// VisibleAtPhone fails unless, laid out at a phone's width (390 CSS
// pixels), the page shows at least one element for each selector and every
// element matching it whole within the screen's width: shown, not cut off,
// not needing a sideways scroll.
func (b *Browser) VisibleAtPhone(sels ...string) {
	b.T.Helper()
	_, err := chromedp.Call(b.Ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: 390, Height: 844, DeviceScaleFactor: 1, Mobile: true})
	if err != nil {
		b.T.Fatal(err)
	}
	defer func() {
		if _, err := chromedp.Call(b.Ctx, emulation.ClearDeviceMetricsOverride, cdp.Empty{}); err != nil {
			b.T.Fatal(err)
		}
	}()
	list, _ := json.Marshal(sels)
	bad := Run(b, chromedp.Evaluate[[]string](`(function (sels) {
		var out = [], w = document.documentElement.clientWidth;
		sels.forEach(function (s) {
			var els = document.querySelectorAll(s);
			if (!els.length) out.push(s + ': nothing matches');
			els.forEach(function (e) {
				var r = e.getBoundingClientRect(), cs = getComputedStyle(e);
				if (cs.display === 'none' || cs.visibility === 'hidden' || r.width === 0 || r.height === 0 || r.left < -0.5 || r.right > w + 0.5) {
					out.push(s + ' at ' + Math.round(r.left) + '..' + Math.round(r.right) + ' of ' + w + ' (' + cs.display + ')');
				}
			});
		});
		return out;
	})(`+string(list)+`)`))
	if len(bad) > 0 {
		b.T.Fatalf("%s at a phone's width: %s", b.Path(), strings.Join(bad, "; "))
	}
	if w := Run(b, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 390 {
		b.T.Fatalf("%s is %d px wide at a phone's 390 px", b.Path(), w)
	}
}
