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
// signing in — the /link page and the dashboard's password, passkey,
// sign-up and password-change forms — because all of them count in the one
// counter (Service.Attempts). Second factors count against the same
// address limit, and per account on their own (GuardSecondFactor).
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
	// An account's second factor takes FreeSecondFactorFailures failures
	// per SecondFactorFailureWindow, wherever it is asked (sign-in, the
	// /link page's sign-in, step-ups before revoking or stopping): the
	// last of them locks it for SecondFactorBackoffBase, each further one
	// for twice as long, up to SecondFactorBackoffCap. A right password
	// does not clear them; a right second factor does.
	FreeSecondFactorFailures  = 5
	SecondFactorBackoffBase   = 30 * time.Second
	SecondFactorBackoffCap    = 15 * time.Minute
	SecondFactorFailureWindow = 24 * time.Hour
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
// password, a bad invite) counts against both keys; a success clears the
// account's failures. The address keeps its count: one good password must
// not wash out a spray over other accounts. Second factors are checked
// under GuardSecondFactor, whose account count a success here leaves
// alone.
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
		return s.refusal(ctx, err, method, email, "", clientAddr)
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

// refusal audits a refused attempt (errs.RateLimited) as a denied
// user.login with its method and the reason "locked", and returns err.
func (s *Service) refusal(ctx context.Context, err error, method, email, userID, clientAddr string) error {
	if !errs.Is(err, errs.RateLimited) {
		return err
	}
	detail := map[string]any{"method": method, "reason": "locked"}
	if email != "" {
		detail["email"] = store.NormalizeEmail(email)
	}
	if aerr := s.Audit.Record(ctx, audit.Entry{UserID: userID, Target: userID, Action: audit.ActionUserLogin,
		Result: audit.Denied, ClientAddr: clientAddr, Detail: detail}); aerr != nil {
		return aerr
	}
	return err
}

// SecondFactorPolicy is the lock of an account's failed second factors.
func SecondFactorPolicy() store.SecondFactorPolicy {
	b := throttle.Backoff{Free: FreeSecondFactorFailures, Base: SecondFactorBackoffBase, Cap: SecondFactorBackoffCap}
	return store.SecondFactorPolicy{Window: SecondFactorFailureWindow, Free: FreeSecondFactorFailures, Lock: b.Delay}
}

// GuardSecondFactor runs attempt, one check of userID's second factor (a
// TOTP or backup code: MethodSecondFactor; a passkey at the second step or
// a step-up: MethodPasskey), under two limits checked before it runs:
//
//   - the client address's, shared with every sign-in (Guard): a wrong
//     factor counts against it;
//   - the account's own count of failed second factors
//     (FreeSecondFactorFailures per SecondFactorFailureWindow, then a
//     doubling lock), kept in the database apart from the password step's
//     count, so a right password never resets it: whoever holds the
//     password but not the factor gets FreeSecondFactorFailures guesses,
//     not that many per password success. The attempt is counted before it
//     runs, atomically with the lock check (store.TakeSecondFactorTurn), so
//     concurrent guesses never together exceed the limit.
//
// A refused attempt is errs.RateLimited (too_many_attempts, with the
// seconds to wait) and audited as denied. A success clears the account's
// count; an attempt that fails other than Unauthorized or Forbidden (the
// store, the vault) is not held against it.
func (s *Service) GuardSecondFactor(ctx context.Context, userID, method, clientAddr string, attempt func() error) error {
	addr := throttle.AddrKey(clientAddr)
	limit := AddrLimit(s.attempts())
	if err := limit.Check(ctx, addr); err != nil {
		return s.refusal(ctx, err, method, "", userID, clientAddr)
	}
	turn, err := s.Store.TakeSecondFactorTurn(ctx, userID, SecondFactorPolicy())
	if err != nil {
		return err
	}
	if !turn.Allowed() {
		return s.refusal(ctx, throttle.Refused(turn.Wait), method, "", userID, clientAddr)
	}
	err = attempt()
	switch k := errs.KindOf(err); {
	case err == nil:
		if cerr := s.Store.ClearSecondFactorFailures(ctx, userID); cerr != nil {
			return cerr
		}
	case k == errs.Unauthorized || k == errs.Forbidden:
		if ferr := limit.Fail(ctx, addr); ferr != nil {
			return ferr
		}
	default:
		// The attempt's own error is what the caller reports; a refund
		// that fails leaves one failure too many, erring on the safe side.
		_ = s.Store.RefundSecondFactorTurn(ctx, turn)
	}
	return err
}
