package users

import (
	"context"
	"time"

	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/throttle"
)

// Limits on failed sign-ins (see Guard). They hold for every way of
// signing in — the /link page and the dashboard's password, second-factor,
// passkey, sign-up and password-change forms — because all of them count
// in the one counter (Service.Attempts).
const (
	// MaxAddrFailures failed sign-ins per client address (IPv6 per /64)
	// per AddrFailureWindow; the /link page's wrong device codes count
	// against the same budget when both use one counter.
	MaxAddrFailures   = 10
	AddrFailureWindow = 15 * time.Minute
	// An account takes FreeAccountFailures failures per
	// AccountFailureWindow, from any addresses: the last of them locks it
	// for AccountBackoffBase, and each further one for twice as long, up
	// to AccountBackoffCap.
	FreeAccountFailures  = 5
	AccountBackoffBase   = 30 * time.Second
	AccountBackoffCap    = 15 * time.Minute
	AccountFailureWindow = 24 * time.Hour
)

// Sign-in methods, as Guard audits them.
const (
	MethodPassword       = "password"
	MethodSecondFactor   = "second_factor"
	MethodPasskey        = "passkey"
	MethodSignup         = "signup"
	MethodPasswordChange = "password_change"
)

// sharedAttempts counts failed sign-ins for every Service of the process
// that has no Attempts of its own, so that two services over one store
// cannot double an attacker's budget.
var sharedAttempts = throttle.NewMemory(nil)

func (s *Service) attempts() throttle.Counter {
	if s.Attempts != nil {
		return s.Attempts
	}
	return sharedAttempts
}

// AddrLimit is the per-address limit on failed sign-ins over c.
func AddrLimit(c throttle.Counter) throttle.Limit {
	return throttle.Limit{Counter: c, Max: MaxAddrFailures, Window: AddrFailureWindow}
}

func (s *Service) accountBackoff() throttle.Backoff {
	return throttle.Backoff{Counter: s.attempts(), Free: FreeAccountFailures, Base: AccountBackoffBase,
		Cap: AccountBackoffCap, Window: AccountFailureWindow}
}

// Guard runs one sign-in attempt (method MethodPassword, MethodPasskey…)
// under the guessing limits, checked before attempt runs, so a refused
// attempt hashes nothing: the client address (IPv6 per /64) gets
// MaxAddrFailures failures per AddrFailureWindow, and the account (by
// email, known or not; "" when the attempt names none, as a discoverable
// passkey or a sign-up) FreeAccountFailures per AccountFailureWindow from
// any addresses, then a doubling lock. A refused attempt is errs.RateLimited
// (too_many_attempts, with the seconds to wait) and audited as denied with
// its method and the reason "locked"; the attempt itself audits what it
// checked. An attempt that fails as Unauthorized or Forbidden (a wrong
// password or code, a bad invite) counts against both keys; a success
// clears the account's failures. The address keeps its count: one good
// password must not wash out a spray over other accounts.
func (s *Service) Guard(ctx context.Context, method, email, clientAddr string, attempt func() error) error {
	addr := throttle.AddrKey(clientAddr)
	acct := ""
	if email != "" {
		acct = throttle.AccountKey(email)
	}
	limit, backoff := AddrLimit(s.attempts()), s.accountBackoff()
	err := limit.Check(ctx, addr)
	if err == nil && acct != "" {
		err = backoff.Check(ctx, acct)
	}
	if err != nil {
		if errs.Is(err, errs.RateLimited) {
			detail := map[string]any{"method": method, "reason": "locked"}
			if email != "" {
				detail["email"] = store.NormalizeEmail(email)
			}
			if aerr := s.Audit.Record(ctx, audit.Entry{Action: audit.ActionUserLogin, Result: audit.Denied,
				ClientAddr: clientAddr, Detail: detail}); aerr != nil {
				return aerr
			}
		}
		return err
	}
	err = attempt()
	switch k := errs.KindOf(err); {
	case err == nil:
		if acct != "" {
			if rerr := backoff.Reset(ctx, acct); rerr != nil {
				return rerr
			}
		}
	case k == errs.Unauthorized || k == errs.Forbidden:
		if ferr := limit.Fail(ctx, addr); ferr != nil {
			return ferr
		}
		if acct != "" {
			if ferr := backoff.Fail(ctx, acct); ferr != nil {
				return ferr
			}
		}
	}
	return err
}

// SignIn is Authenticate (a password sign-in) under Guard.
func (s *Service) SignIn(ctx context.Context, email, password, clientAddr string) (User, error) {
	var u User
	err := s.Guard(ctx, MethodPassword, email, clientAddr, func() (err error) {
		u, err = s.Authenticate(ctx, email, password, clientAddr)
		return err
	})
	return u, err
}
