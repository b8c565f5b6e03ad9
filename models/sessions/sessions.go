// Package sessions keeps dashboard sessions on the server. The browser
// holds only a random token; the database holds its SHA-256, the user (once
// signed in), the CSRF token and the state of a sign-in in progress (a
// second factor awaited, a WebAuthn challenge, an OpenID Connect round
// trip). Signing in always replaces the visitor's session with a new one,
// so a session id planted before sign-in is worthless after it.
package sessions

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store"
)

// Defaults of the Service's lifetimes.
const (
	// DefaultAnonymousTTL bounds a session nobody signed in to (a sign-in
	// page left open).
	DefaultAnonymousTTL = 2 * time.Hour
	// DefaultIdleTTL signs a user out after this long without a request.
	DefaultIdleTTL = 12 * time.Hour
	// DefaultAbsoluteTTL signs a user out this long after sign-in,
	// however active.
	DefaultAbsoluteTTL = 7 * 24 * time.Hour
	// DefaultFreshFor is how recent a second factor must be for a
	// sensitive action.
	DefaultFreshFor = 10 * time.Minute
	// PendingTTL bounds the steps of a sign-in in progress (password
	// accepted, second factor awaited; a WebAuthn or OIDC round trip).
	PendingTTL = 10 * time.Minute
)

// touchEvery throttles the last-seen update to one write per minute per
// session.
const touchEvery = time.Minute

// Sign-in methods recorded on a session.
const (
	MethodPassword = "password"
	MethodPasskey  = "passkey"
	MethodOIDC     = "oidc"
)

// Audit actions of this package.
const (
	ActionSignOut           = "user.logout"
	ActionSignOutEverywhere = "user.logout_all"
	ActionSessionRevoke     = "user.session_revoke"
)

// State is what a session remembers between the requests of a sign-in or
// an enrolment. Every field is optional.
type State struct {
	// PendingUserID passed the first factor and owes a second one.
	PendingUserID string    `json:"pending_user_id,omitempty"`
	PendingMethod string    `json:"pending_method,omitempty"`
	PendingSince  time.Time `json:"pending_since,omitzero"`
	// WebAuthn is the library's ceremony data (challenge, user, expiry) of
	// the passkey ceremony in progress, and WebAuthnPurpose what it is for.
	WebAuthn        json.RawMessage `json:"webauthn,omitempty"`
	WebAuthnPurpose string          `json:"webauthn_purpose,omitempty"`
	// OIDC is the round trip to an OpenID provider in progress.
	OIDC *OIDCState `json:"oidc,omitempty"`
	// Identity is a provider identity awaiting the user's confirmation
	// (link to an existing account, or create one).
	Identity *PendingIdentity `json:"identity,omitempty"`
	// Next is where to go after a step-up (re-authentication).
	Next string `json:"next,omitempty"`
	// Flash is a one-time notice for the next page.
	Flash string `json:"flash,omitempty"`
}

// OIDCState binds an authorization response to the request that asked for
// it: state and nonce are checked, the verifier is PKCE's.
type OIDCState struct {
	Provider string    `json:"provider"`
	State    string    `json:"state"`
	Nonce    string    `json:"nonce"`
	Verifier string    `json:"verifier"`
	Link     bool      `json:"link,omitempty"`
	Started  time.Time `json:"started"`
}

// PendingIdentity is an identity a provider vouched for, awaiting the
// user's decision.
type PendingIdentity struct {
	Provider string    `json:"provider"`
	Subject  string    `json:"subject"`
	Email    string    `json:"email"`
	Name     string    `json:"name,omitempty"`
	Since    time.Time `json:"since"`
}

// Session is a live session.
type Session struct {
	ID             string
	UserID         string
	CSRFToken      string
	Method         string
	SecondFactorAt *time.Time
	State          State
	ClientAddr     string
	UserAgent      string
	CreatedAt      time.Time
	LastSeenAt     time.Time
	ExpiresAt      time.Time
}

// SignedIn reports whether a user is signed in to the session.
func (s *Session) SignedIn() bool { return s != nil && s.UserID != "" }

// Info describes a session on the security page.
type Info struct {
	ID         string
	Method     string
	ClientAddr string
	UserAgent  string
	CreatedAt  time.Time
	LastSeenAt time.Time
	Current    bool
}

// Service creates, finds and ends sessions.
type Service struct {
	Store *store.Store
	Audit *audit.Service
	// Lifetimes; zero means the package default.
	AnonymousTTL, IdleTTL, AbsoluteTTL, FreshFor time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// OnSignIn, when set, runs in the transaction that starts a signed-in
	// session (models/notify tells the user of the new sign-in there).
	OnSignIn func(ctx context.Context, tx *store.Store, userID, method, clientAddr, device string) error

	mu        sync.Mutex
	lastPurge time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

func or(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// HashToken is the stored id of a cookie token.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// RandomToken is secret.RandomToken.
func RandomToken() string { return secret.RandomToken() }

func validToken(t string) bool {
	if len(t) != base64.RawURLEncoding.EncodedLen(32) {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(t)
	return err == nil
}

// Start creates an anonymous session and returns it with its cookie token.
// The dashboard starts one only when a step must be remembered between
// requests (a second factor awaited, a passkey or OpenID round trip), never
// to show a page.
func (s *Service) Start(ctx context.Context, clientAddr, userAgent string) (*Session, string, error) {
	return s.StartWith(ctx, State{}, clientAddr, userAgent)
}

// StartWith is Start with the session's state already set: one write.
func (s *Service) StartWith(ctx context.Context, st State, clientAddr, userAgent string) (*Session, string, error) {
	s.maybePurge(ctx)
	return s.create(ctx, "", "", nil, st, clientAddr, userAgent)
}

func (s *Service) create(ctx context.Context, userID, method string, secondFactorAt *time.Time, st State, clientAddr, userAgent string) (*Session, string, error) {
	return s.createWith(ctx, s.Store, userID, method, secondFactorAt, st, clientAddr, userAgent)
}

func (s *Service) createWith(ctx context.Context, tx *store.Store, userID, method string, secondFactorAt *time.Time, st State, clientAddr, userAgent string) (*Session, string, error) {
	token := RandomToken()
	ttl := or(s.AnonymousTTL, DefaultAnonymousTTL)
	if userID != "" {
		ttl = or(s.IdleTTL, DefaultIdleTTL)
	}
	state, err := json.Marshal(st)
	if err != nil {
		return nil, "", errs.Wrap(errs.Internal, err, "session state")
	}
	row := &models.UserSession{
		ID: HashToken(token), UserID: userID, CSRFToken: RandomToken(), AuthMethod: method,
		SecondFactorAt: secondFactorAt, State: string(state), ClientAddr: clientAddr, UserAgent: truncate(userAgent, 256),
		ExpiresAt: s.now().Add(ttl),
	}
	if err := tx.CreateSession(ctx, row); err != nil {
		return nil, "", err
	}
	return toSession(row, st), token, nil
}

func truncate(v string, n int) string {
	if len(v) > n {
		return v[:n]
	}
	return v
}

func toSession(r *models.UserSession, st State) *Session {
	return &Session{
		ID: r.ID, UserID: r.UserID, CSRFToken: r.CSRFToken, Method: r.AuthMethod, SecondFactorAt: r.SecondFactorAt,
		State: st, ClientAddr: r.ClientAddr, UserAgent: r.UserAgent, CreatedAt: r.CreatedAt, LastSeenAt: r.LastSeenAt,
		ExpiresAt: r.ExpiresAt,
	}
}

var errNoSession = errs.E(errs.NotFound, "no such session")

// Lookup returns the live session of token; an unknown, malformed or
// expired token is NotFound. It extends the idle expiry (at most once a
// minute), never beyond the absolute lifetime.
func (s *Service) Lookup(ctx context.Context, token string) (*Session, error) {
	if !validToken(token) {
		return nil, errNoSession
	}
	row, err := s.Store.SessionByID(ctx, HashToken(token))
	if errs.Is(err, errs.NotFound) {
		return nil, errNoSession
	}
	if err != nil {
		return nil, err
	}
	now := s.now()
	if !now.Before(row.ExpiresAt) {
		_ = s.Store.DeleteSession(ctx, row.ID)
		return nil, errNoSession
	}
	var st State
	if row.State != "" {
		if err := json.Unmarshal([]byte(row.State), &st); err != nil {
			return nil, errs.Wrap(errs.Internal, err, "session state")
		}
	}
	sess := toSession(row, st)
	if now.Sub(row.LastSeenAt) >= touchEvery {
		exp := now.Add(or(s.AnonymousTTL, DefaultAnonymousTTL))
		if row.UserID != "" {
			exp = now.Add(or(s.IdleTTL, DefaultIdleTTL))
			if hard := row.CreatedAt.Add(or(s.AbsoluteTTL, DefaultAbsoluteTTL)); exp.After(hard) {
				exp = hard
			}
		}
		if err := s.Store.TouchSession(ctx, row.ID, exp); err == nil {
			sess.LastSeenAt, sess.ExpiresAt = now, exp
		}
	}
	return sess, nil
}

// Save stores sess.State.
func (s *Service) Save(ctx context.Context, sess *Session) error {
	b, err := json.Marshal(sess.State)
	if err != nil {
		return errs.Wrap(errs.Internal, err, "session state")
	}
	return s.Store.SetSessionState(ctx, sess.ID, string(b))
}

// SignIn ends the visitor's current session (old may be nil) and starts a
// signed-in one for userID with a new token; only the flash message is
// carried over. secondFactor says the sign-in included a second factor,
// which counts as fresh for sensitive actions.
func (s *Service) SignIn(ctx context.Context, old *Session, userID, method string, secondFactor bool, clientAddr, userAgent string) (*Session, string, error) {
	if userID == "" {
		return nil, "", errs.E(errs.Internal, "sign in without a user")
	}
	var st State
	if old != nil {
		st.Flash = old.State.Flash
	}
	var sf *time.Time
	if secondFactor {
		t := s.now()
		sf = &t
	}
	var (
		out   *Session
		token string
	)
	err := s.Store.Tx(ctx, func(tx *store.Store) error {
		if old != nil {
			if err := tx.DeleteSession(ctx, old.ID); err != nil {
				return err
			}
		}
		var err error
		out, token, err = s.createWith(ctx, tx, userID, method, sf, st, clientAddr, userAgent)
		if err == nil && s.OnSignIn != nil {
			err = s.OnSignIn(ctx, tx, userID, method, clientAddr, DeviceName(userAgent))
		}
		return err
	})
	return out, token, err
}

// DeviceName names the browser and platform of a user agent, roughly
// ("Chrome on Linux"), for people.
func DeviceName(ua string) string {
	name := "Browser"
	for _, b := range []struct{ key, name string }{{"Edg/", "Edge"}, {"Firefox/", "Firefox"}, {"Chrome/", "Chrome"}, {"Safari/", "Safari"}, {"curl/", "curl"}, {"Go-http-client", "Go client"}} {
		if strings.Contains(ua, b.key) {
			name = b.name
			break
		}
	}
	for _, p := range []struct{ key, name string }{{"Android", "Android"}, {"iPhone", "iPhone"}, {"iPad", "iPad"}, {"Mac OS X", "macOS"}, {"Windows", "Windows"}, {"Linux", "Linux"}} {
		if strings.Contains(ua, p.key) {
			return name + " on " + p.name
		}
	}
	return name
}

// Renew replaces the not-yet-signed-in session old with a new one (new
// token, new CSRF token) that keeps its state: once a first factor is
// accepted, the session that remembers it is one nobody could have
// planted.
func (s *Service) Renew(ctx context.Context, old *Session, clientAddr, userAgent string) (*Session, string, error) {
	if old.UserID != "" {
		return nil, "", errs.E(errs.Internal, "renew a signed-in session")
	}
	var (
		out   *Session
		token string
	)
	err := s.Store.Tx(ctx, func(tx *store.Store) error {
		if err := tx.DeleteSession(ctx, old.ID); err != nil {
			return err
		}
		var err error
		out, token, err = s.createWith(ctx, tx, "", "", nil, old.State, clientAddr, userAgent)
		return err
	})
	return out, token, err
}

// MarkSecondFactor records that a second factor was verified just now.
func (s *Service) MarkSecondFactor(ctx context.Context, sess *Session) error {
	t := s.now()
	if err := s.Store.SetSessionSecondFactor(ctx, sess.ID, t); err != nil {
		return err
	}
	sess.SecondFactorAt = &t
	return nil
}

// Fresh reports whether sess verified a second factor recently enough for
// a sensitive action.
func (s *Service) Fresh(sess *Session) bool {
	return sess != nil && sess.SecondFactorAt != nil && s.now().Sub(*sess.SecondFactorAt) < or(s.FreshFor, DefaultFreshFor)
}

// PendingValid reports whether a pending step started at since is still
// usable.
func (s *Service) PendingValid(since time.Time) bool {
	return !since.IsZero() && s.now().Sub(since) < PendingTTL
}

// Clock is the service's current time.
func (s *Service) Clock() time.Time { return s.now() }

// SignOut ends sess.
func (s *Service) SignOut(ctx context.Context, sess *Session, clientAddr string) error {
	if err := s.Store.DeleteSession(ctx, sess.ID); err != nil {
		return err
	}
	if sess.UserID != "" {
		return s.Audit.Record(ctx, audit.Entry{UserID: sess.UserID, Action: ActionSignOut, Target: sess.UserID,
			Result: audit.Success, ClientAddr: clientAddr})
	}
	return nil
}

// SignOutEverywhere ends every session of sess's user, sess included.
func (s *Service) SignOutEverywhere(ctx context.Context, sess *Session, clientAddr string) (int64, error) {
	n, err := s.Store.DeleteUserSessions(ctx, sess.UserID, "")
	if err != nil {
		return 0, err
	}
	return n, s.Audit.Record(ctx, audit.Entry{UserID: sess.UserID, Action: ActionSignOutEverywhere, Target: sess.UserID,
		Result: audit.Success, ClientAddr: clientAddr, Detail: map[string]any{"sessions": n}})
}

// EndOthers ends userID's sessions other than keep (after a password
// change, for one).
func (s *Service) EndOthers(ctx context.Context, userID, keepID string) (int64, error) {
	return s.Store.DeleteUserSessions(ctx, userID, keepID)
}

// Revoke ends one of userID's sessions by its id (as listed).
func (s *Service) Revoke(ctx context.Context, userID, id, clientAddr string) error {
	if err := s.Store.DeleteUserSession(ctx, userID, id); err != nil {
		if errs.Is(err, errs.NotFound) {
			return errs.E(errs.NotFound, "that session has already ended")
		}
		return err
	}
	return s.Audit.Record(ctx, audit.Entry{UserID: userID, Action: ActionSessionRevoke, Target: shortID(id),
		Result: audit.Success, ClientAddr: clientAddr})
}

// shortID is how a session is named in the audit log and on pages: a
// prefix of the token hash, enough to tell sessions apart and useless for
// anything else.
func shortID(id string) string { return truncate(id, 12) }

// List returns userID's live sessions; current is the caller's.
func (s *Service) List(ctx context.Context, userID, currentID string) ([]Info, error) {
	rows, err := s.Store.ListUserSessions(ctx, userID, s.now())
	if err != nil {
		return nil, err
	}
	out := make([]Info, 0, len(rows))
	for _, r := range rows {
		out = append(out, Info{ID: r.ID, Method: r.AuthMethod, ClientAddr: r.ClientAddr, UserAgent: r.UserAgent,
			CreatedAt: r.CreatedAt, LastSeenAt: r.LastSeenAt, Current: r.ID == currentID})
	}
	return out, nil
}

// purgeEvery spaces the sweeps of expired sessions.
const purgeEvery = 10 * time.Minute

// maybePurge deletes expired sessions at most every purgeEvery, so
// abandoned anonymous sessions do not accumulate. Best effort.
func (s *Service) maybePurge(ctx context.Context) {
	now := s.now()
	s.mu.Lock()
	due := now.Sub(s.lastPurge) >= purgeEvery
	if due {
		s.lastPurge = now
	}
	s.mu.Unlock()
	if due {
		_, _ = s.Store.PurgeExpiredSessions(ctx, now)
	}
}
