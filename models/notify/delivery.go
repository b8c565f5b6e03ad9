package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
)

// Delivery posts webhooks. Its zero value is the production setting: https
// only, to public addresses only.
type Delivery struct {
	// AllowPrivate lets webhooks go to loopback, private and link-local
	// addresses, and over plain http (`ats dev`, tests, a receiver on the
	// operator's own network: --webhook-allow-private). Without it such a
	// URL is refused when saved and the connection refused when dialled,
	// so a user cannot make the service call into its own network.
	AllowPrivate bool
	// Timeout bounds one attempt (DefaultTimeout when zero).
	Timeout time.Duration
	// Transport overrides the dialling (tests); nil uses the guarded one.
	Transport http.RoundTripper
}

// DefaultTimeout bounds one delivery attempt.
const DefaultTimeout = 10 * time.Second

// MaxAttempts is how many times a notification is posted before it is
// given up (the delivery workflow's retry policy; about a day with its
// backoff).
const MaxAttempts = 12

// CheckURL refuses a webhook URL the service will not post to.
func (d Delivery) CheckURL(raw string) error {
	u, err := url.Parse(raw)
	bad := func(why string) error {
		return errs.E(errs.Invalid, why).WithCode(errs.CodeInvalidWebhookURL)
	}
	switch {
	case err != nil || u.Host == "" || u.Opaque != "":
		return bad("the webhook URL must be an absolute https:// URL")
	case len(raw) > 2048:
		return bad("the webhook URL is too long (at most 2048 characters)")
	case u.User != nil:
		return bad("the webhook URL must not hold a user name or password; put a token in its path or query")
	case u.Scheme == "http" && !d.AllowPrivate:
		return bad("the webhook URL must use https")
	case u.Scheme != "https" && u.Scheme != "http":
		return bad("the webhook URL must use https")
	}
	if d.AllowPrivate {
		return nil
	}
	host := u.Hostname()
	if host == "localhost" || strings.HasSuffix(host, ".localhost") || strings.HasSuffix(host, ".local") || strings.HasSuffix(host, ".internal") {
		return bad("the webhook URL must name a public host")
	}
	if ip, err := netip.ParseAddr(host); err == nil && !publicAddr(ip) {
		return bad("the webhook URL must name a public address")
	}
	return nil
}

// publicAddr reports whether ip is routable on the internet: not
// loopback, private, link-local, shared (CGNAT), multicast or unspecified.
func publicAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	for _, p := range reserved {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

var reserved = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
}

// client is the HTTP client of one attempt: no redirects (a receiver
// cannot bounce the post somewhere else), the guarded dialer.
func (d Delivery) client() *http.Client {
	timeout := d.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	rt := d.Transport
	if rt == nil {
		dialer := &net.Dialer{Timeout: timeout}
		if !d.AllowPrivate {
			// Checked on the address actually dialled, after name
			// resolution, so a name that resolves (or re-resolves) to
			// a private address is refused too.
			dialer.Control = func(network, address string, _ syscall.RawConn) error {
				ap, err := netip.ParseAddrPort(address)
				if err != nil || !publicAddr(ap.Addr()) {
					return errPrivate
				}
				return nil
			}
		}
		rt = &http.Transport{DialContext: dialer.DialContext, TLSHandshakeTimeout: timeout,
			ResponseHeaderTimeout: timeout, MaxIdleConns: 16, IdleConnTimeout: 30 * time.Second, ForceAttemptHTTP2: true}
	}
	return &http.Client{Transport: rt, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

var errPrivate = errors.New("the webhook's address is not public")

// Payload is the JSON body of a webhook post.
type Payload struct {
	ID        string    `json:"id"`
	Type      string    `json:"type"`
	CreatedAt time.Time `json:"created_at"`
	Title     string    `json:"title"`
	// Text is a one-line message, the field chat tools' incoming webhooks
	// show.
	Text string         `json:"text"`
	URL  string         `json:"url,omitempty"`
	Data map[string]any `json:"data,omitempty"`
}

// Outcome is what one delivery attempt came to.
type Outcome struct {
	// Delivered: the receiver answered 2xx.
	Delivered bool
	// Final: no further attempt is worth it (delivered, the receiver
	// refused the post as such, or the webhook is gone).
	Final bool
}

// Deliver posts notification id to its user's webhook as attempt number
// attempt (1, 2, …), logs the attempt and returns its outcome. A failure
// worth retrying (no answer, a 5xx, 408, 429) is an errs.Transient error;
// a receiver that refuses the post (another 4xx) ends the delivery as
// failed. A notification delivered already, or whose user removed the
// webhook, is not posted again.
func (s *Service) Deliver(ctx context.Context, id string, attempt int) (Outcome, error) {
	n, err := s.Store.NotificationByID(ctx, id)
	if err != nil {
		return Outcome{}, err
	}
	switch n.Webhook {
	case models.WebhookDelivered, models.WebhookFailed, models.WebhookNone:
		return Outcome{Delivered: n.Webhook == models.WebhookDelivered, Final: true}, nil
	}
	row, _, err := settingsIn(ctx, s.Store, n.UserID)
	if err != nil {
		return Outcome{}, err
	}
	if row == nil || row.WebhookURL == "" {
		_, err := s.Store.SetWebhookState(ctx, id, []string{models.WebhookPending, models.WebhookSending}, models.WebhookNone)
		return Outcome{Final: true}, err
	}
	secret, err := s.openSecret(row)
	if err != nil {
		return Outcome{}, err
	}
	body, err := s.payload(n)
	if err != nil {
		return Outcome{}, err
	}
	rec := &models.WebhookDelivery{NotificationID: n.ID, UserID: n.UserID, Attempt: attempt, URL: row.WebhookURL}
	start := time.Now()
	status, perr := s.post(ctx, row.WebhookURL, secret, n, body)
	rec.StatusCode, rec.DurationMs = status, time.Since(start).Milliseconds()
	out := Outcome{}
	state := models.WebhookSending
	switch {
	case perr == nil && status >= 200 && status < 300:
		out = Outcome{Delivered: true, Final: true}
		state = models.WebhookDelivered
	case perr == nil && status >= 400 && status < 500 && status != http.StatusRequestTimeout && status != http.StatusTooManyRequests:
		out.Final = true
		state = models.WebhookFailed
		rec.Error = fmt.Sprintf("the receiver refused the notification (HTTP %d)", status)
	case perr != nil:
		rec.Error = perr.Error()
	default:
		rec.Error = fmt.Sprintf("the receiver answered HTTP %d", status)
	}
	if !out.Final && attempt >= MaxAttempts {
		out.Final, state = true, models.WebhookFailed
	}
	if err := s.Store.RecordWebhookAttempt(ctx, rec, state); err != nil {
		return Outcome{}, err
	}
	if !out.Final {
		return out, errs.Ef(errs.Transient, "webhook attempt %d failed: %s", attempt, rec.Error)
	}
	return out, nil
}

// GiveUp marks notification id's delivery failed (its workflow ran out of
// attempts or time).
func (s *Service) GiveUp(ctx context.Context, id string) error {
	_, err := s.Store.SetWebhookState(ctx, id, []string{models.WebhookPending, models.WebhookSending}, models.WebhookFailed)
	return err
}

// Pending lists notifications whose webhook delivery has not started.
func (s *Service) Pending(ctx context.Context, limit int) ([]string, error) {
	return s.Store.PendingWebhooks(ctx, limit)
}

// Started marks notification id's delivery started (its workflow exists).
func (s *Service) Started(ctx context.Context, id string) error {
	_, err := s.Store.SetWebhookState(ctx, id, []string{models.WebhookPending}, models.WebhookSending)
	return err
}

func (s *Service) payload(n *models.Notification) ([]byte, error) {
	p := Payload{ID: n.ID, Type: n.Kind, CreatedAt: n.CreatedAt.UTC(), Title: n.Title, Text: n.Title + ": " + n.Body}
	if n.Link != "" && s.PublicURL != "" {
		p.URL = strings.TrimRight(s.PublicURL, "/") + n.Link
	}
	if n.Data != "" {
		if err := json.Unmarshal([]byte(n.Data), &p.Data); err != nil {
			return nil, errs.Wrap(errs.Internal, err, "notification data")
		}
	}
	return json.Marshal(p)
}

// post sends one signed attempt and returns the receiver's status, or an
// error a person can read (no answer, refused address).
func (s *Service) post(ctx context.Context, target, secret string, n *models.Notification, body []byte) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return 0, errors.New("the webhook URL is not valid")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "ats-webhooks/1")
	req.Header.Set("X-ATS-Event", n.Kind)
	req.Header.Set("X-ATS-Delivery", n.ID)
	req.Header.Set("X-ATS-Signature", Sign(secret, s.now(), body))
	resp, err := s.Delivery.client().Do(req)
	if err != nil {
		if errors.Is(err, errPrivate) {
			return 0, errPrivate
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return 0, errors.New("no answer within the time limit")
		}
		return 0, errors.New("could not connect to the webhook's host")
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, nil
}
