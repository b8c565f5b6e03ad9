package agents

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"sync"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/intent"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/throttle"
	"github.com/agent-trading/ats/models/users"
)

// Device flow defaults.
const (
	DefaultDeviceCodeTTL = 15 * time.Minute
	DefaultPollInterval  = 5 * time.Second
)

// userCodeAlphabet has no vowels (no accidental words) and no look-alikes
// (0/O, 1/I/L): 19 consonants, so an 8-character code carries ~34 bits,
// which together with the per-user and per-address guess limits makes
// guessing a live code hopeless.
const userCodeAlphabet = "BCDFGHJKMNPQRSTVWXZ"

// deviceCodeBytes of randomness in a device code (256 bits).
const deviceCodeBytes = 32

// Service runs the device flow's domain side and manages agents. Store is
// required; the other fields have defaults. It never drives a workflow:
// workflows.DeviceLinks creates and decides links through it and runs
// their workflows.
type Service struct {
	Store *store.Store
	// Users verifies passwords on the /link page.
	Users *users.Service
	// BaseURL is the public URL of the service (no trailing slash); the
	// verification URI is BaseURL + "/link".
	BaseURL string
	// DeviceCodeTTL and PollInterval default to DefaultDeviceCodeTTL and
	// DefaultPollInterval.
	DeviceCodeTTL time.Duration
	PollInterval  time.Duration
	// Attempts counts wrong user codes per user and per client address
	// (see codeGuesses); nil means a counter in memory private to this
	// Service. Share one with Users (and, over Redis, with every API
	// instance) so the limits hold across them.
	Attempts throttle.Counter
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Intents sign the tokens that tie a /link decision to the review page
	// that showed the link (see ReviewDevice, kind intent.DeviceReview).
	// Give every API instance the keys of the one master key so each
	// accepts the others' reviews (and, after a rotation, reviews signed
	// under the previous key); nil means keys of a random master key of
	// this process.
	Intents *intent.Keys

	once sync.Once
}

func (s *Service) init() {
	s.once.Do(func() {
		if s.Now == nil {
			s.Now = time.Now
		}
		if s.Attempts == nil {
			s.Attempts = throttle.NewMemory(s.Now)
		}
		if s.Intents == nil {
			s.Intents = randomIntents()
		}
		if s.DeviceCodeTTL <= 0 {
			s.DeviceCodeTTL = DefaultDeviceCodeTTL
		}
		if s.PollInterval <= 0 {
			s.PollInterval = DefaultPollInterval
		}
	})
}

func (s *Service) now() time.Time { s.init(); return s.Now().UTC() }

// Clock returns the service's current time (UTC), for the pages that show
// its times.
func (s *Service) Clock() time.Time { return s.now() }

// DeviceAuthorization is the answer to POST /api/auth/device (RFC 8628
// section 3.2). DeviceCode is a secret of the agent: it is returned here
// once and only its hash is stored.
type DeviceAuthorization struct {
	DeviceCode              string `json:"device_code"`
	UserCode                string `json:"user_code"`
	VerificationURI         string `json:"verification_uri"`
	VerificationURIComplete string `json:"verification_uri_complete"`
	ExpiresIn               int    `json:"expires_in"`
	Interval                int    `json:"interval"`
}

// NewDeviceLink is a link CreateDeviceLink stored: its id and expiry, for
// its workflow, and the answer to the agent.
type NewDeviceLink struct {
	ID            string
	ExpiresAt     time.Time
	Authorization DeviceAuthorization
}

// CreateDeviceLink starts linking an agent named agentName: it stores the
// link (device-code hash, user code, expiry) and audits the request. The
// caller (workflows.DeviceLinks) then starts the link's workflow, or
// retires the link (RetireDeviceLink) when it cannot.
func (s *Service) CreateDeviceLink(ctx context.Context, agentName, clientAddr string) (NewDeviceLink, error) {
	name, err := ValidateAgentName(agentName)
	if err != nil {
		return NewDeviceLink{}, err
	}
	now := s.now()
	var (
		l          *models.DeviceLink
		deviceCode string
	)
	// A user-code collision (19^8 space) is possible but rare; retry with
	// fresh codes a few times.
	for attempt := 0; ; attempt++ {
		deviceCode = newDeviceCode()
		l = &models.DeviceLink{
			DeviceCodeHash:  HashDeviceCode(deviceCode),
			UserCode:        newUserCode(),
			AgentName:       name,
			RequestAddr:     clientAddr,
			ExpiresAt:       now.Add(s.DeviceCodeTTL),
			IntervalSeconds: int(s.PollInterval / time.Second),
		}
		err = s.Store.Tx(ctx, func(tx *store.Store) error {
			if err := tx.CreateDeviceLink(ctx, l); err != nil {
				return err
			}
			return audit.Append(ctx, tx, audit.Entry{
				Action: ActionDeviceRequest, Target: l.ID, Result: audit.Success, ClientAddr: clientAddr,
				Detail: map[string]any{"agent_name": name},
			})
		})
		if err == nil {
			break
		}
		if !errs.Is(err, errs.Conflict) || attempt == 4 {
			return NewDeviceLink{}, err
		}
	}
	base := strings.TrimRight(s.BaseURL, "/")
	return NewDeviceLink{ID: l.ID, ExpiresAt: l.ExpiresAt, Authorization: DeviceAuthorization{
		DeviceCode:              deviceCode,
		UserCode:                l.UserCode,
		VerificationURI:         base + "/link",
		VerificationURIComplete: base + "/link?code=" + l.UserCode,
		ExpiresIn:               int(s.DeviceCodeTTL / time.Second),
		Interval:                l.IntervalSeconds,
	}}, nil
}

// RetireDeviceLink expires a pending link whose workflow could not be
// started: without it the link could never be approved, so the agent gets
// expired_token instead of polling forever.
func (s *Service) RetireDeviceLink(ctx context.Context, linkID string) {
	_ = s.Store.UpdateDeviceLinkStatus(context.WithoutCancel(ctx), linkID, models.DeviceLinkPending,
		store.DeviceLinkUpdate{Status: models.DeviceLinkExpired})
}

// IssuedKey is the one response that carries an agent's API key.
type IssuedKey struct {
	APIKey    string   `json:"api_key"`
	AgentID   string   `json:"agent_id"`
	AgentName string   `json:"agent_name"`
	Scopes    []string `json:"scopes"`
	TokenType string   `json:"token_type"`
	// LinkID is the link the key was issued for (not part of the answer):
	// its workflow is told, so it completes.
	LinkID string `json:"-"`
}

func deviceErr(code, msg string) error { return errs.E(errs.Invalid, msg).WithCode(code) }

// PollDeviceToken answers the agent's poll (GET /api/auth/device/token).
// Until the link is approved it returns errs.Invalid errors whose code is
// the RFC 8628 error (errs.CodeAuthorizationPending, errs.CodeSlowDown when
// polled faster than the interval, errs.CodeExpiredToken,
// errs.CodeAccessDenied, errs.CodeInvalidGrant for an unknown code) or
// errs.CodeAlreadyIssued. On the first poll after approval it mints the
// key: the link moves approved → issued and the key's hash is inserted in
// one transaction, conditional on the status, so concurrent polls cannot
// both get a key and the plaintext is returned exactly once.
func (s *Service) PollDeviceToken(ctx context.Context, deviceCode, clientAddr string) (IssuedKey, error) {
	if !validDeviceCode(deviceCode) {
		return IssuedKey{}, deviceErr(errs.CodeInvalidGrant, "unknown device_code")
	}
	l, err := s.Store.DeviceLinkByDeviceCodeHash(ctx, HashDeviceCode(deviceCode))
	if errs.Is(err, errs.NotFound) {
		return IssuedKey{}, deviceErr(errs.CodeInvalidGrant, "unknown device_code")
	}
	if err != nil {
		return IssuedKey{}, err
	}
	now := s.now()
	prev, err := s.Store.TouchDeviceLinkPoll(ctx, l.ID, now)
	if err != nil {
		return IssuedKey{}, err
	}
	expired := !now.Before(l.ExpiresAt)
	switch {
	case l.Status == models.DeviceLinkExpired, expired && (l.Status == models.DeviceLinkPending || l.Status == models.DeviceLinkApproved):
		return IssuedKey{}, deviceErr(errs.CodeExpiredToken, "the device code has expired; start linking again")
	case l.Status == models.DeviceLinkDenied:
		return IssuedKey{}, deviceErr(errs.CodeAccessDenied, "the user denied the link request")
	case l.Status == models.DeviceLinkIssued:
		return IssuedKey{}, deviceErr(errs.CodeAlreadyIssued, "the API key for this device code was already issued; it is never shown again")
	case l.Status == models.DeviceLinkPending:
		interval := time.Duration(l.IntervalSeconds) * time.Second
		if prev != nil && now.Sub(*prev) < interval {
			return IssuedKey{}, deviceErr(errs.CodeSlowDown, "polling too fast; wait the interval between polls")
		}
		return IssuedKey{}, deviceErr(errs.CodeAuthorizationPending, "waiting for the user to approve the link")
	case l.Status == models.DeviceLinkApproved:
		return s.issue(ctx, l, clientAddr)
	}
	return IssuedKey{}, errs.Ef(errs.Internal, "device link %s in unknown status %q", l.ID, l.Status)
}

func (s *Service) issue(ctx context.Context, l *models.DeviceLink, clientAddr string) (IssuedKey, error) {
	if l.AgentID == nil || l.UserID == nil {
		return IssuedKey{}, errs.Ef(errs.Internal, "approved device link %s has no agent", l.ID)
	}
	var out IssuedKey
	err := s.Store.Tx(ctx, func(tx *store.Store) error {
		if err := tx.UpdateDeviceLinkStatus(ctx, l.ID, models.DeviceLinkApproved, store.DeviceLinkUpdate{Status: models.DeviceLinkIssued}); err != nil {
			if errs.Is(err, errs.Conflict) {
				// Lost to a concurrent poll, or to the link's expiry.
				if cur, rerr := tx.DeviceLinkByID(ctx, l.ID); rerr == nil && cur.Status == models.DeviceLinkExpired {
					return deviceErr(errs.CodeExpiredToken, "the device code has expired; start linking again")
				}
				return deviceErr(errs.CodeAlreadyIssued, "the API key for this device code was already issued; it is never shown again")
			}
			return err
		}
		a, err := tx.AgentByID(ctx, *l.AgentID)
		if err != nil {
			return err
		}
		if a.Status == models.AgentRevoked {
			// The user revoked the agent between approval and the poll.
			return deviceErr(errs.CodeAccessDenied, "the agent was revoked before its key was issued")
		}
		plaintext, hash, prefix := secret.NewAPIKey()
		k := &models.APIKey{AgentID: a.ID, UserID: a.UserID, Hash: hash, DisplayPrefix: prefix}
		if err := tx.CreateAPIKey(ctx, k); err != nil {
			return err
		}
		if err := audit.Append(ctx, tx, audit.Entry{
			UserID: a.UserID, AgentID: a.ID, Action: ActionKeyIssue, Target: k.ID, Result: audit.Success,
			ClientAddr: clientAddr, Detail: map[string]any{"device_link": l.ID, "key_prefix": prefix},
		}); err != nil {
			return err
		}
		out = IssuedKey{APIKey: plaintext, AgentID: a.ID, AgentName: a.Name, Scopes: a.ScopeList(), TokenType: "Bearer", LinkID: l.ID}
		return nil
	})
	if err != nil {
		return IssuedKey{}, err
	}
	return out, nil
}

// LinkedAgent is the outcome of an approval.
type LinkedAgent struct {
	LinkID    string `json:"link_id"`
	AgentID   string `json:"agent_id"`
	AgentName string `json:"agent_name"`
	// RevokedPaper are the paper agents of the same name a live approval
	// revoked (PaperNamesakes).
	RevokedPaper []string `json:"revoked_paper_agents,omitempty"`
}

// ClientAddrCLI is the client address recorded for admin-command
// decisions.
const ClientAddrCLI = "cli"

// UserIDByEmail resolves the --email of the admin commands
// (`ats admin agent list|pause|resume|revoke --email E --agent ID_OR_NAME`)
// to the user ID the management methods take.
func (s *Service) UserIDByEmail(ctx context.Context, email string) (string, error) {
	u, err := s.Store.UserByEmail(ctx, store.NormalizeEmail(email))
	if err != nil {
		return "", err
	}
	return u.ID, nil
}

var errBadUserCode = errs.E(errs.NotFound, "unknown code; check the code your agent shows").WithCode(errs.CodeInvalidUserCode)

// DecidableLink finds the live pending link for a typed user code, for
// the approval paths (workflows.DeviceLinks: the /link page after the
// password check, the admin command), counting unknown codes as failed
// guesses against the limits of the user and of clientAddr
// (errs.RateLimited once exhausted); an expired or used code is Conflict.
// action (audit.ActionDeviceApprove or ActionDeviceDeny) names a failed
// attempt in the audit log.
func (s *Service) DecidableLink(ctx context.Context, userID, userCode, clientAddr, action string) (*models.DeviceLink, error) {
	lim, now := s.codeGuesses(), s.now()
	keys := []string{"user:" + userID, throttle.AddrKey(clientAddr)}
	if err := lim.Check(ctx, keys...); err != nil {
		return nil, err
	}
	code, ok := NormalizeUserCode(userCode)
	var l *models.DeviceLink
	var err error
	if ok {
		l, err = s.Store.DeviceLinkByUserCode(ctx, code)
		if err != nil && !errs.Is(err, errs.NotFound) {
			return nil, err
		}
	}
	if l == nil {
		if err := lim.Fail(ctx, keys...); err != nil {
			return nil, err
		}
		if err := audit.Append(ctx, s.Store, audit.Entry{
			UserID: userID, Action: action, Result: audit.Failure, ClientAddr: clientAddr,
			Detail: map[string]any{"reason": "unknown_code"},
		}); err != nil {
			return nil, err
		}
		return nil, errBadUserCode
	}
	return l, linkStateErr(l, now)
}

// linkStateErr explains why a link cannot be decided, or returns nil when
// it can.
func linkStateErr(l *models.DeviceLink, now time.Time) error {
	switch {
	case l.Status == models.DeviceLinkExpired || l.Status == models.DeviceLinkPending && !now.Before(l.ExpiresAt):
		return ErrLinkExpired()
	case l.Status != models.DeviceLinkPending:
		return ErrLinkUsed()
	}
	return nil
}

// ErrLinkExpired is the answer to a decision on a link that expired; the
// device-link workflow's validator answers the same.
func ErrLinkExpired() error {
	return errs.E(errs.Conflict, "this code has expired; ask your agent to start linking again").WithCode(errs.CodeExpiredToken)
}

// ErrLinkUsed is the answer to a decision on a link that was decided
// already.
func ErrLinkUsed() error {
	return errs.E(errs.Conflict, "this code has already been used").WithCode(errs.CodeCodeAlreadyUsed)
}

// DecisionErr turns a failed workflow decision into the clearest error:
// when the workflow is gone or refused, the link's stored state explains
// why.
func (s *Service) DecisionErr(ctx context.Context, linkID string, err error) error {
	switch errs.KindOf(err) {
	case errs.NotFound, errs.Conflict:
		if l, lerr := s.Store.DeviceLinkByID(ctx, linkID); lerr == nil {
			if serr := linkStateErr(l, s.now()); serr != nil {
				return serr
			}
		}
	}
	return err
}

// HashDeviceCode is the stored form of a device code: lowercase hex
// SHA-256 (the code has 256 bits of entropy, so a fast hash is enough).
func HashDeviceCode(code string) string {
	sum := sha256.Sum256([]byte(code))
	return hex.EncodeToString(sum[:])
}

func newDeviceCode() string {
	b := make([]byte, deviceCodeBytes)
	if _, err := rand.Read(b); err != nil {
		panic("agents: random source failed: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

func validDeviceCode(c string) bool {
	if len(c) != base64.RawURLEncoding.EncodedLen(deviceCodeBytes) {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(c)
	return err == nil
}

// newUserCode draws 8 characters uniformly from userCodeAlphabet by
// rejection sampling and formats them XXXX-XXXX.
func newUserCode() string {
	const n = len(userCodeAlphabet)
	const limit = 256 - 256%n
	out := make([]byte, 0, 9)
	buf := make([]byte, 16)
	for len(out) < 9 {
		if _, err := rand.Read(buf); err != nil {
			panic("agents: random source failed: " + err.Error())
		}
		for _, b := range buf {
			if int(b) >= limit || len(out) == 9 {
				continue
			}
			if len(out) == 4 {
				out = append(out, '-')
			}
			out = append(out, userCodeAlphabet[int(b)%n])
		}
	}
	return string(out)
}

// NormalizeUserCode accepts a user code as people type it (any case,
// spaces, with or without the dash) and returns its canonical XXXX-XXXX
// form; ok is false when it cannot be a user code.
func NormalizeUserCode(in string) (string, bool) {
	var b []byte
	for _, r := range strings.ToUpper(in) {
		switch {
		case r == '-' || r == ' ':
			continue
		case r < 128 && strings.IndexByte(userCodeAlphabet, byte(r)) >= 0:
			b = append(b, byte(r))
		default:
			return "", false
		}
	}
	if len(b) != 8 {
		return "", false
	}
	return string(b[:4]) + "-" + string(b[4:]), true
}
