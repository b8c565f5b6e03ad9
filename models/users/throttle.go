package users

import (
	"context"
	"math"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
)

// ThrottlePolicy is how sign-in failures back off under one key: the first
// Free failures cost nothing, each later one locks the key for Base,
// doubling per failure up to Max. Failures older than Forget are forgotten.
type ThrottlePolicy struct {
	Free   int
	Base   time.Duration
	Max    time.Duration
	Forget time.Duration
}

// Default sign-in throttles. An account tolerates a few typos; an address
// more, since many people may share one (offices, carrier NAT), but it
// still stops one client from spraying passwords over many accounts.
var (
	DefaultAccountThrottle = ThrottlePolicy{Free: 5, Base: 30 * time.Second, Max: 15 * time.Minute, Forget: time.Hour}
	DefaultAddressThrottle = ThrottlePolicy{Free: 20, Base: 30 * time.Second, Max: 15 * time.Minute, Forget: time.Hour}
)

func (p ThrottlePolicy) next(cur models.AuthThrottle, now time.Time) models.AuthThrottle {
	if now.Sub(cur.LastFailureAt) >= p.Forget {
		cur.Failures = 0
	}
	cur.Failures++
	cur.LastFailureAt = now
	cur.LockedUntil = nil
	if over := cur.Failures - p.Free; over > 0 {
		d := time.Duration(float64(p.Base) * math.Pow(2, float64(min(over-1, 20))))
		d = min(d, p.Max)
		until := now.Add(d)
		cur.LockedUntil = &until
	}
	return cur
}

// Throttle backs off repeated sign-in failures per account and per client
// address. Its state is in the database, so every API replica sees the
// same counts.
type Throttle struct {
	Store *store.Store
	// Audit records the attempts refused because a key is locked; nil
	// means an audit.Service on Store.
	Audit   *audit.Service
	Account ThrottlePolicy
	Address ThrottlePolicy
	Now     func() time.Time
}

func (t *Throttle) now() time.Time {
	if t.Now != nil {
		return t.Now().UTC()
	}
	return time.Now().UTC()
}

func (t *Throttle) policies() (ThrottlePolicy, ThrottlePolicy) {
	a, b := t.Account, t.Address
	if a == (ThrottlePolicy{}) {
		a = DefaultAccountThrottle
	}
	if b == (ThrottlePolicy{}) {
		b = DefaultAddressThrottle
	}
	return a, b
}

// AccountKey and AddressKey name the throttled keys. Accounts are keyed by
// normalised email, so unknown emails back off exactly like real ones.
func AccountKey(email string) string { return "account:" + store.NormalizeEmail(email) }

// AddressKey is the throttle key of a client address.
func AddressKey(addr string) string { return "addr:" + addr }

// Check returns errs.RateLimited, with the seconds to wait, while the
// account (email "" = none) or the address is locked.
func (t *Throttle) Check(ctx context.Context, email, addr string) error {
	keys := []string{AddressKey(addr)}
	if email != "" {
		keys = append(keys, AccountKey(email))
	}
	rows, err := t.Store.ThrottleRows(ctx, keys...)
	if err != nil {
		return err
	}
	now := t.now()
	var wait time.Duration
	for _, r := range rows {
		if r.LockedUntil != nil && r.LockedUntil.After(now) {
			wait = max(wait, r.LockedUntil.Sub(now))
		}
	}
	if wait == 0 {
		return nil
	}
	e := errs.E(errs.RateLimited, "too many failed sign-in attempts; wait a little and try again").WithCode("too_many_attempts")
	e.RetryAfterSeconds = int(math.Ceil(wait.Seconds()))
	return e
}

// Fail counts one failure against the account (email "" = none) and the
// address.
func (t *Throttle) Fail(ctx context.Context, email, addr string) error {
	acct, address := t.policies()
	now := t.now()
	if _, err := t.Store.RecordAuthFailure(ctx, AddressKey(addr), func(cur models.AuthThrottle) models.AuthThrottle {
		return address.next(cur, now)
	}); err != nil {
		return err
	}
	if email == "" {
		return nil
	}
	_, err := t.Store.RecordAuthFailure(ctx, AccountKey(email), func(cur models.AuthThrottle) models.AuthThrottle {
		return acct.next(cur, now)
	})
	return err
}

// Succeed clears the account's failures. The address keeps its count: one
// good password must not wash out a spray over other accounts.
func (t *Throttle) Succeed(ctx context.Context, email string) error {
	return t.Store.ClearThrottle(ctx, AccountKey(email))
}

// Guard runs one sign-in attempt (method "password", "totp", "passkey"…)
// under the throttle of the account (email "" = unknown yet) and the
// address: while either is locked the attempt is refused unseen and
// audited as denied; an attempt that fails as Unauthorized or Forbidden
// (wrong password or code, bad invite) counts against both; a success
// clears the account's failures.
func (t *Throttle) Guard(ctx context.Context, method, email, addr string, attempt func() error) error {
	if err := t.Check(ctx, email, addr); err != nil {
		if !errs.Is(err, errs.RateLimited) {
			return err
		}
		au := t.Audit
		if au == nil {
			au = &audit.Service{Store: t.Store}
		}
		detail := map[string]any{"method": method, "reason": "locked"}
		if email != "" {
			detail["email"] = store.NormalizeEmail(email)
		}
		if aerr := au.Record(ctx, audit.Entry{Action: audit.ActionUserLogin, Result: audit.Denied, ClientAddr: addr, Detail: detail}); aerr != nil {
			return aerr
		}
		return err
	}
	err := attempt()
	switch k := errs.KindOf(err); {
	case err == nil:
		if email != "" {
			return t.Succeed(ctx, email)
		}
		return nil
	case k == errs.Unauthorized || k == errs.Forbidden:
		if ferr := t.Fail(ctx, email, addr); ferr != nil {
			return ferr
		}
	}
	return err
}
