// Package users manages dashboard accounts: sign-up and password sign-in.
// Second factors (TOTP, passkeys, social login) build on it; Authenticate
// checks the first factor only and reports whether a second is required.
package users

import (
	"context"
	"net/mail"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/throttle"
	"github.com/agent-trading/ats/models/vault"
)

// Password length rules (in characters), after NIST SP 800-63B: at least
// 8, and long passphrases allowed.
const (
	MinPasswordLen = 8
	MaxPasswordLen = 256
	maxEmailLen    = 254
)

// User is the public view of an account: no hashes, no secrets.
type User struct {
	ID               string    `json:"id"`
	Email            string    `json:"email"`
	TwoFactorEnabled bool      `json:"two_factor_enabled"`
	CreatedAt        time.Time `json:"created_at"`
}

func toDTO(u *models.User) User {
	return User{ID: u.ID, Email: u.Email, TwoFactorEnabled: u.TOTPEnabled, CreatedAt: u.CreatedAt.UTC()}
}

// Service creates and authenticates users.
type Service struct {
	Store *store.Store
	Audit *audit.Service
	// Vault seals TOTP secrets; required for two-factor authentication.
	Vault *vault.Vault
	// Issuer names the service in authenticator apps; "" means
	// DefaultTOTPIssuer.
	Issuer string
	// Now is the clock of TOTP checks; nil means time.Now.
	Now func() time.Time
	// Argon2 are the password hashing parameters; zero means
	// secret.DefaultArgon2. Hashes made with other parameters still verify
	// and are upgraded on the next successful sign-in.
	Argon2 secret.Argon2Params
	// Gate bounds the memory of concurrent password hashes; nil means
	// secret.DefaultGate.
	Gate *secret.Gate
	// Attempts counts failed sign-ins per client address and per account;
	// nil means a counter in process memory shared by every Service
	// without one. Give every API instance the same shared counter
	// (api/ratelimit.Store.Failures over Redis) so that guesses spread
	// over instances are counted together.
	Attempts throttle.Counter
}

func (s *Service) params() secret.Argon2Params {
	if s.Argon2 == (secret.Argon2Params{}) {
		return secret.DefaultArgon2
	}
	return s.Argon2
}

func (s *Service) hash(ctx context.Context, pw string) (string, error) {
	return secret.HashPasswordContext(ctx, s.Gate, pw, s.params())
}

// ValidateEmail checks that email is a single plain address (no display
// name) and returns it normalised.
func ValidateEmail(email string) (string, error) {
	e := store.NormalizeEmail(email)
	bad := errs.E(errs.Invalid, "a valid email address is required").WithCode(errs.CodeInvalidEmail)
	if e == "" || len(e) > maxEmailLen {
		return "", bad
	}
	addr, err := mail.ParseAddress(e)
	if err != nil || addr.Address != e || addr.Name != "" {
		return "", bad
	}
	local, domain, ok := strings.Cut(e, "@")
	if !ok || local == "" || !strings.Contains(domain, ".") || strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") {
		return "", bad
	}
	return e, nil
}

// ValidatePassword enforces the length rules.
func ValidatePassword(password string) error {
	n := utf8.RuneCountInString(password)
	if n < MinPasswordLen || n > MaxPasswordLen || len(password) > secret.MaxPasswordBytes || !utf8.ValidString(password) {
		return errs.Ef(errs.Invalid, "the password must be %d to %d characters long", MinPasswordLen, MaxPasswordLen).WithCode(errs.CodeInvalidPassword)
	}
	return nil
}

// Create signs up a user. A taken email is errs.Conflict "a user with this
// email already exists". The account creation and its audit entry commit
// together.
func (s *Service) Create(ctx context.Context, email, password string) (User, error) {
	e, err := ValidateEmail(email)
	if err != nil {
		return User{}, err
	}
	if err := ValidatePassword(password); err != nil {
		return User{}, err
	}
	h, err := s.hash(ctx, password)
	if err != nil {
		return User{}, err
	}
	u := &models.User{Email: e, PasswordHash: h}
	err = s.Store.Tx(ctx, func(tx *store.Store) error {
		if err := tx.CreateUser(ctx, u); err != nil {
			if errs.Is(err, errs.Conflict) {
				return errs.E(errs.Conflict, "a user with this email already exists").WithCode(errs.CodeEmailTaken).WithCause(err)
			}
			return err
		}
		return audit.Append(ctx, tx, audit.Entry{
			UserID: u.ID, Action: audit.ActionUserCreate, Target: u.ID, Result: audit.Success,
		})
	})
	if err != nil {
		return User{}, err
	}
	return toDTO(u), nil
}

// Get returns a user by ID.
func (s *Service) Get(ctx context.Context, id string) (User, error) {
	u, err := s.Store.UserByID(ctx, id)
	if err != nil {
		return User{}, err
	}
	return toDTO(u), nil
}

// errBadLogin is the one answer to every failed sign-in, so responses don't
// reveal whether an email is registered.
var errBadLogin = errs.E(errs.Unauthorized, "invalid email or password").WithCode(errs.CodeInvalidCredentials)

// Authenticate checks an email and password and writes one audit entry per
// attempt (never containing the password). It returns errs.Unauthorized for
// an unknown email or a wrong password alike, taking the same time for
// both. On success the caller must still ask for the second factor when
// User.TwoFactorEnabled is set. If the attempt cannot be audited, the
// sign-in fails. It limits no guessing (SignIn does, through Guard); the hash runs
// through the Argon2 gate: when too many run at once the attempt is
// errs.Transient (server_busy).
func (s *Service) Authenticate(ctx context.Context, email, password, clientAddr string) (User, error) {
	e := store.NormalizeEmail(email)
	u, err := s.Store.UserByEmail(ctx, e)
	if err != nil && !errs.Is(err, errs.NotFound) {
		return User{}, err
	}
	var ok bool
	if u == nil || u.PasswordHash == "" {
		// Unknown email, or an account without a password (social login or
		// passkeys only): burn the same work as a real verification so the
		// response time says nothing about the account.
		if _, err := secret.VerifyPasswordContext(ctx, s.Gate, s.dummyHash(), password); errs.Is(err, errs.Transient) {
			return User{}, err
		}
	} else {
		ok, err = secret.VerifyPasswordContext(ctx, s.Gate, u.PasswordHash, password)
		if err != nil {
			return User{}, err
		}
	}

	entry := audit.Entry{Action: audit.ActionUserLogin, ClientAddr: clientAddr, Result: audit.Failure,
		Detail: map[string]any{"method": MethodPassword}}
	switch {
	case u == nil:
		entry.Detail["email"], entry.Detail["reason"] = e, "unknown_email"
	case u.PasswordHash == "":
		entry.UserID, entry.Target = u.ID, u.ID
		entry.Detail["reason"] = "no_password_set"
	case !ok:
		entry.UserID, entry.Target = u.ID, u.ID
		entry.Detail["reason"] = "wrong_password"
	default:
		entry.UserID, entry.Target, entry.Result = u.ID, u.ID, audit.Success
		if u.TOTPEnabled {
			entry.Detail["second_factor"] = "required"
		}
	}
	if err := s.Audit.Record(ctx, entry); err != nil {
		return User{}, err
	}
	if !ok {
		return User{}, errBadLogin
	}
	if secret.NeedsRehashWith(u.PasswordHash, s.params()) {
		// Upgrade hashes made with older parameters while the plaintext is
		// at hand. Best effort: the sign-in already succeeded.
		if h, err := s.hash(ctx, password); err == nil {
			_ = s.Store.UpdateUserPassword(ctx, u.ID, h)
		}
	}
	return toDTO(u), nil
}

// dummyHashes caches, per parameter set, a hash of a random password that
// unknown-email sign-ins verify against.
var dummyHashes sync.Map // secret.Argon2Params → string

func (s *Service) dummyHash() string {
	p := s.params()
	if h, ok := dummyHashes.Load(p); ok {
		return h.(string)
	}
	h, err := secret.HashPasswordWith(models.NewID("dummy"), p)
	if err != nil {
		// Only oversized input fails, and the input is fixed-size.
		panic("users: dummy hash: " + err.Error())
	}
	actual, _ := dummyHashes.LoadOrStore(p, h)
	return actual.(string)
}
