package users_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/throttle"
	"github.com/agent-trading/ats/models/users"
	"github.com/agent-trading/ats/models/vault"
)

// cheap argon2 parameters keep the tests fast; DefaultArgon2 is covered in
// models/secret.
var cheap = secret.Argon2Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1, SaltLen: 16, KeyLen: 32}

func newService(s *store.Store) *users.Service {
	return &users.Service{Store: s, Audit: &audit.Service{Store: s}, Argon2: cheap, Attempts: throttle.NewMemory(nil)}
}

func TestValidateEmail(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"alice@example.com", "alice@example.com", true},
		{"  Alice@Example.COM ", "alice@example.com", true},
		{"a.b+tag@sub.example.org", "a.b+tag@sub.example.org", true},
		{"", "", false},
		{"alice", "", false},
		{"alice@", "", false},
		{"@example.com", "", false},
		{"alice@localhost", "", false},
		{"Alice <alice@example.com>", "", false},
		{"alice@example.com, bob@example.com", "", false},
		{"alice@.example.com", "", false},
		{strings.Repeat("a", 250) + "@example.com", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := users.ValidateEmail(tt.in)
			if !tt.ok {
				assert.Equal(t, errs.Invalid, errs.KindOf(err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestValidatePassword(t *testing.T) {
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{"min", "12345678", true},
		{"too short", "1234567", false},
		{"multibyte counts characters", "ééééééé", false},
		{"multibyte ok", "éééééééé", true},
		{"max", strings.Repeat("x", 256), true},
		{"too long", strings.Repeat("x", 257), false},
		{"invalid utf8", "abcdefg\xff", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := users.ValidatePassword(tt.in)
			if tt.ok {
				assert.NoError(t, err)
			} else {
				assert.Equal(t, errs.Invalid, errs.KindOf(err))
			}
		})
	}
}

func TestCreate(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		svc := newService(s)
		u, err := svc.Create(ctx, "Alice@Example.com", "correct horse")
		require.NoError(t, err)
		assert.Equal(t, "alice@example.com", u.Email)
		assert.False(t, u.TwoFactorEnabled)

		rec, err := s.UserByID(ctx, u.ID)
		require.NoError(t, err)
		assert.NotContains(t, rec.PasswordHash, "correct horse")
		ok, err := secret.VerifyPassword(rec.PasswordHash, "correct horse")
		require.NoError(t, err)
		assert.True(t, ok)

		got, err := svc.Get(ctx, u.ID)
		require.NoError(t, err)
		assert.Equal(t, u.Email, got.Email)

		tests := []struct {
			name     string
			email    string
			password string
			kind     errs.Kind
			msg      string
		}{
			{"duplicate", "alice@example.com", "another password", errs.Conflict, "a user with this email already exists"},
			{"duplicate other case", "ALICE@example.com", "another password", errs.Conflict, "a user with this email already exists"},
			{"bad email", "alice", "another password", errs.Invalid, "a valid email address is required"},
			{"short password", "bob@example.com", "short", errs.Invalid, "the password must be 8 to 256 characters long"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := svc.Create(ctx, tt.email, tt.password)
				require.Error(t, err)
				assert.Equal(t, tt.kind, errs.KindOf(err))
				assert.Equal(t, tt.msg, errs.PublicMessage(err))
			})
		}

		page, err := svc.Audit.List(ctx, audit.Filter{Action: audit.ActionUserCreate})
		require.NoError(t, err)
		require.Len(t, page.Entries, 1, "one successful sign-up audited")
		assert.Equal(t, u.ID, page.Entries[0].UserID)
	})
}

func TestAuthenticate(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		svc := newService(s)
		const pw = "correct horse battery"
		u, err := svc.Create(ctx, "alice@example.com", pw)
		require.NoError(t, err)

		tests := []struct {
			name       string
			email      string
			password   string
			wantErr    bool
			wantResult string
			wantUser   string
			wantReason string
		}{
			{"success", "alice@example.com", pw, false, audit.Success, u.ID, ""},
			{"email case", " ALICE@example.com", pw, false, audit.Success, u.ID, ""},
			{"wrong password", "alice@example.com", "wrong horse battery", true, audit.Failure, u.ID, "wrong_password"},
			{"unknown email", "mallory@example.com", pw, true, audit.Failure, "", "unknown_email"},
			{"empty password", "alice@example.com", "", true, audit.Failure, u.ID, "wrong_password"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := svc.Authenticate(ctx, tt.email, tt.password, "203.0.113.7")
				if tt.wantErr {
					require.Error(t, err)
					assert.Equal(t, errs.Unauthorized, errs.KindOf(err))
					assert.Equal(t, "invalid email or password", errs.PublicMessage(err), "same answer for unknown email and wrong password")
				} else {
					require.NoError(t, err)
					assert.Equal(t, u.ID, got.ID)
				}
				page, err := svc.Audit.List(ctx, audit.Filter{Action: audit.ActionUserLogin, Limit: 1})
				require.NoError(t, err)
				require.Len(t, page.Entries, 1)
				last := page.Entries[0]
				assert.Equal(t, tt.wantResult, last.Result)
				assert.Equal(t, tt.wantUser, last.UserID)
				assert.Equal(t, "203.0.113.7", last.ClientAddr)
				if tt.wantReason != "" {
					assert.Contains(t, string(last.Detail), tt.wantReason)
				}
				if tt.password != "" {
					assert.NotContains(t, string(last.Detail), tt.password)
				}
			})
		}
		page, err := svc.Audit.List(ctx, audit.Filter{Action: audit.ActionUserLogin})
		require.NoError(t, err)
		assert.Len(t, page.Entries, len(tests), "one audit entry per attempt")
	})
}

func TestAuthenticatePasswordlessAccount(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		svc := newService(s)
		// A passkey/social-only account has no password hash.
		require.NoError(t, s.CreateUser(ctx, &models.User{Email: "social@example.com"}))
		for _, pw := range []string{"", "anything at all"} {
			_, err := svc.Authenticate(ctx, "social@example.com", pw, "")
			assert.Equal(t, errs.Unauthorized, errs.KindOf(err))
		}
		page, err := svc.Audit.List(ctx, audit.Filter{Action: audit.ActionUserLogin})
		require.NoError(t, err)
		require.Len(t, page.Entries, 2)
		assert.Contains(t, string(page.Entries[0].Detail), "no_password_set")
	})
}

func TestAuthenticateUpgradesHash(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		old := newService(s)
		u, err := old.Create(ctx, "alice@example.com", "correct horse")
		require.NoError(t, err)

		stronger := cheap
		stronger.Iterations = 2
		svc := &users.Service{Store: s, Audit: old.Audit, Argon2: stronger}
		_, err = svc.Authenticate(ctx, "alice@example.com", "correct horse", "")
		require.NoError(t, err)
		rec, err := s.UserByID(ctx, u.ID)
		require.NoError(t, err)
		assert.False(t, secret.NeedsRehashWith(rec.PasswordHash, stronger), "rehashed with the new parameters")
		_, err = svc.Authenticate(ctx, "alice@example.com", "correct horse", "")
		require.NoError(t, err, "the upgraded hash verifies")
	})
}

// TestSignInLimitsGuessing performs the password-guessing attacks on
// one account and from one network: an account takes 5 failures from any
// addresses, then each further one locks it for 30 s, doubling (the
// correct password included: a locked attempt is refused before the hash
// is checked); a success clears the failures. A client address takes 10
// failures (for any accounts) per 15 minutes, an IPv6 client per /64, so
// rotating addresses within a /64 gains nothing while another /64 is not
// affected.
func TestSignInLimitsGuessing(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
		var mu sync.Mutex
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
		svc := newService(s)
		svc.Attempts = throttle.NewMemory(clock)
		const pw = "correct horse battery"
		_, err := svc.Create(ctx, "alice@example.com", pw)
		require.NoError(t, err)
		limited := func(t *testing.T, err error) int {
			t.Helper()
			e, ok := errs.As(err)
			require.True(t, ok && e.Kind == errs.RateLimited && e.Code == errs.CodeTooManyAttempts, "err %v, want too_many_attempts", err)
			return e.RetryAfterSeconds
		}

		// The account, from a new address each time.
		for i := range users.FreeAccountFailures {
			_, err := svc.SignIn(ctx, "alice@example.com", "guess", fmt.Sprintf("198.51.100.%d", i+1))
			require.Equal(t, errs.Unauthorized, errs.KindOf(err), "failure %d", i+1)
		}
		_, err = svc.SignIn(ctx, "Alice@example.com", pw, "198.51.100.99")
		assert.Equal(t, 30, limited(t, err), "locked for the base backoff")
		advance(30 * time.Second)
		_, err = svc.SignIn(ctx, "alice@example.com", "guess", "198.51.100.100")
		require.Equal(t, errs.Unauthorized, errs.KindOf(err))
		_, err = svc.SignIn(ctx, "alice@example.com", pw, "198.51.100.101")
		assert.Equal(t, 60, limited(t, err), "the next failure doubles the lock")
		advance(time.Minute)
		_, err = svc.SignIn(ctx, "alice@example.com", pw, "198.51.100.102")
		require.NoError(t, err, "once the lock ran out the right password signs in")
		for i := range users.FreeAccountFailures - 1 {
			_, err := svc.SignIn(ctx, "alice@example.com", "guess", "198.51.100.103")
			require.Equal(t, errs.Unauthorized, errs.KindOf(err), "a success clears the failures: %d", i+1)
		}

		// Rotating addresses within one IPv6 /64, one account each.
		for i := range users.MaxAddrFailures {
			_, err := svc.SignIn(ctx, fmt.Sprintf("guess%d@example.com", i), "guess", fmt.Sprintf("2001:db8:5:6::%x", i+1))
			require.Equal(t, errs.Unauthorized, errs.KindOf(err), "failure %d", i+1)
		}
		_, err = svc.SignIn(ctx, "alice@example.com", pw, "2001:db8:5:6:ffff::beef")
		assert.Equal(t, int(users.AddrFailureWindow/time.Second), limited(t, err), "another address of the same /64")
		_, err = svc.SignIn(ctx, "alice@example.com", pw, "2001:db8:5:7::1")
		require.NoError(t, err, "another /64 is not limited")
		advance(users.AddrFailureWindow)
		_, err = svc.SignIn(ctx, "alice@example.com", pw, "2001:db8:5:6::1")
		require.NoError(t, err, "after the window")
	})
}

// TestAuthenticateBusy: when the Argon2 gate has no room, a sign-in is
// refused with 503 server_busy (retry in a second) instead of queueing.
func TestAuthenticateBusy(t *testing.T) {
	s := storetest.NewSQLite(t)
	ctx := context.Background()
	svc := newService(s)
	_, err := svc.Create(ctx, "busy@example.com", "correct horse battery")
	require.NoError(t, err)
	svc.Gate = secret.NewGate(int64(cheap.MemoryKiB), 20*time.Millisecond)
	hold, held := make(chan struct{}), make(chan struct{})
	go func() { _ = svc.Gate.Do(ctx, cheap.MemoryKiB, func() { close(held); <-hold }) }()
	<-held
	_, err = svc.Authenticate(ctx, "busy@example.com", "correct horse battery", "192.0.2.1")
	assert.Equal(t, errs.Transient, errs.KindOf(err))
	assert.Equal(t, errs.CodeServerBusy, errs.CodeOf(err))
	close(hold)
	_, err = svc.Authenticate(ctx, "busy@example.com", "correct horse battery", "192.0.2.1")
	require.NoError(t, err)
}

// TestGuardIsOneThrottleForEveryMethod: the dashboard's forms (passkey,
// sign-up, password change) and the password sign-in of /link and the
// dashboard count in one throttle: failures of any method lock the account
// for every method, Forbidden outcomes (a bad invite) count like wrong
// passwords, other errors do not, and each refused attempt is audited as
// denied with its method. (Second factors count per account on their own:
// TestSecondFactorGuessingSurvivesPasswordSuccesses.)
func TestGuardIsOneThrottleForEveryMethod(t *testing.T) {
	s := storetest.NewSQLite(t)
	ctx := context.Background()
	svc := newService(s)
	const pw = "correct horse battery"
	_, err := svc.Create(ctx, "carol@example.com", pw)
	require.NoError(t, err)
	wrong := errs.E(errs.Unauthorized, "invalid email or password")
	for i := range users.FreeAccountFailures - 2 {
		err := svc.Guard(ctx, users.MethodPasswordChange, "carol@example.com", fmt.Sprintf("198.51.100.%d", i+1), func() error { return wrong })
		require.Equal(t, errs.Unauthorized, errs.KindOf(err))
	}
	// Errors that say nothing about a guess do not count.
	err = svc.Guard(ctx, users.MethodPasswordChange, "carol@example.com", "198.51.100.20", func() error {
		return errs.E(errs.Invalid, "the password must be 8 to 256 characters long")
	})
	require.Equal(t, errs.Invalid, errs.KindOf(err))
	_, err = svc.SignIn(ctx, "carol@example.com", "guess", "198.51.100.21")
	require.Equal(t, errs.Unauthorized, errs.KindOf(err))
	err = svc.Guard(ctx, users.MethodSignup, "carol@example.com", "198.51.100.22", func() error {
		return errs.E(errs.Forbidden, "this invite is not valid")
	})
	require.Equal(t, errs.Forbidden, errs.KindOf(err), "the failure that locks")

	ran := false
	_, err = svc.SignIn(ctx, "carol@example.com", pw, "198.51.100.23")
	require.Equal(t, errs.RateLimited, errs.KindOf(err), "the password sign-in is locked by the other methods' failures")
	err = svc.Guard(ctx, users.MethodPasskey, "carol@example.com", "198.51.100.24", func() error { ran = true; return nil })
	require.Equal(t, errs.RateLimited, errs.KindOf(err))
	assert.False(t, ran, "a refused attempt is not run")
	// A passkey attempt that names no account is limited by its address only.
	require.NoError(t, svc.Guard(ctx, users.MethodPasskey, "", "198.51.100.25", func() error { return nil }))

	denied, err := svc.Audit.List(ctx, audit.Filter{Action: audit.ActionUserLogin, Result: audit.Denied})
	require.NoError(t, err)
	require.Len(t, denied.Entries, 2)
	methods := []string{string(denied.Entries[0].Detail), string(denied.Entries[1].Detail)}
	assert.Contains(t, strings.Join(methods, " "), `"method":"password"`)
	assert.Contains(t, strings.Join(methods, " "), `"method":"passkey"`)
	for _, d := range methods {
		assert.Contains(t, d, `"reason":"locked"`)
		assert.Contains(t, d, `"email":"carol@example.com"`)
	}
}

// secondFactorEnv is an account with TOTP on, on a clock the service, its
// failure counter and the store share, with backup codes.
type secondFactorEnv struct {
	svc     *users.Service
	user    string
	secret  string
	backups []string
	advance func(time.Duration)
	now     func() time.Time
}

const sfPassword = "correct horse battery"

func newSecondFactorEnv(t *testing.T, s *store.Store) *secondFactorEnv {
	t.Helper()
	ctx := context.Background()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	s.SetClock(clock)
	master := make([]byte, 32)
	master[0] = 7
	v, err := vault.FromMasterKey(master)
	require.NoError(t, err)
	svc := newService(s)
	svc.Vault, svc.Now, svc.Attempts = v, clock, throttle.NewMemory(clock)
	u, err := svc.Create(ctx, "dora@example.com", sfPassword)
	require.NoError(t, err)
	enr, err := svc.BeginTOTP(ctx, u.ID)
	require.NoError(t, err)
	code, err := totp.GenerateCode(enr.Secret, clock())
	require.NoError(t, err)
	backups, err := svc.ConfirmTOTP(ctx, u.ID, code, "192.0.2.1")
	require.NoError(t, err)
	// The enrolment used this step's code.
	advance(30 * time.Second)
	return &secondFactorEnv{svc: svc, user: u.ID, secret: enr.Secret, backups: backups, advance: advance, now: clock}
}

// try checks code as the dashboard's second-factor step does and reports
// whether the check ran at all.
func (e *secondFactorEnv) try(code, addr string) (ran bool, err error) {
	ctx := context.Background()
	err = e.svc.GuardSecondFactor(ctx, e.user, users.MethodSecondFactor, addr, func() error {
		ran = true
		_, err := e.svc.VerifySecondFactor(ctx, e.user, code, "sign_in", addr)
		return err
	})
	return ran, err
}

// wrong is a six-digit code no step within the skew accepts.
func (e *secondFactorEnv) wrong(t *testing.T) string {
	t.Helper()
	for n := 0; ; n++ {
		c := fmt.Sprintf("%06d", n*7919%1000000)
		ok := true
		for _, d := range []time.Duration{-30 * time.Second, 0, 30 * time.Second} {
			want, err := totp.GenerateCode(e.secret, e.now().Add(d))
			require.NoError(t, err)
			ok = ok && want != c
		}
		if ok {
			return c
		}
	}
}

func (e *secondFactorEnv) code(t *testing.T) string {
	t.Helper()
	c, err := totp.GenerateCode(e.secret, e.now())
	require.NoError(t, err)
	return c
}

// TestSecondFactorGuessingSurvivesPasswordSuccesses performs the reported
// attack: the right password, then 4 wrong second factors, repeated 5
// times from a new address each time (20 wrong codes, TOTP and backup
// codes mixed). The password keeps working, but the account's second
// factor is checked only 5 times: the 5th failure locks it for 30 s, and
// every later guess, and the right code, is refused unchecked and audited
// as denied. The lock then doubles like the password step's; the right
// code once the lock ran out clears the count.
func TestSecondFactorGuessingSurvivesPasswordSuccesses(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		e := newSecondFactorEnv(t, s)
		limited := func(t *testing.T, err error) int {
			t.Helper()
			ee, ok := errs.As(err)
			require.True(t, ok && ee.Kind == errs.RateLimited && ee.Code == errs.CodeTooManyAttempts, "err %v, want too_many_attempts", err)
			return ee.RetryAfterSeconds
		}
		guesses := []string{e.wrong(t), "zzzzz-zzzzz", e.wrong(t), "not a code"}
		checked, refused := 0, 0
		for round := range 5 {
			addr := fmt.Sprintf("198.51.100.%d", round+1)
			u, err := e.svc.SignIn(ctx, "dora@example.com", sfPassword, addr)
			require.NoError(t, err, "round %d: the password is not locked", round+1)
			require.True(t, u.TwoFactorEnabled)
			for _, g := range guesses {
				ran, err := e.try(g, addr)
				if ran {
					checked++
					require.Equal(t, errs.Unauthorized, errs.KindOf(err))
					continue
				}
				refused++
				assert.Equal(t, 30, limited(t, err))
			}
		}
		assert.Equal(t, users.FreeSecondFactorFailures, checked, "5 guesses checked in all, not 5 per password success")
		assert.Equal(t, 20-users.FreeSecondFactorFailures, refused)

		ran, err := e.try(e.code(t), "198.51.100.50")
		assert.False(t, ran, "the right code is not checked while locked")
		limited(t, err)
		denied, err := e.svc.Audit.List(ctx, audit.Filter{Action: audit.ActionUserLogin, Result: audit.Denied, Limit: 100})
		require.NoError(t, err)
		assert.Len(t, denied.Entries, refused+1, "every refusal audited")
		assert.Contains(t, string(denied.Entries[0].Detail), `"method":"second_factor"`)
		assert.Equal(t, e.user, denied.Entries[0].UserID)
		failed, err := e.svc.Audit.List(ctx, audit.Filter{Action: audit.ActionSecondFactor, Result: audit.Failure, Limit: 100})
		require.NoError(t, err)
		assert.Len(t, failed.Entries, users.FreeSecondFactorFailures, "only the checked codes reached the verifier")

		// The lock runs out; the next failure locks for twice as long.
		e.advance(30 * time.Second)
		ran, err = e.try(e.wrong(t), "198.51.100.60")
		require.True(t, ran)
		require.Equal(t, errs.Unauthorized, errs.KindOf(err))
		_, err = e.try(e.code(t), "198.51.100.61")
		assert.Equal(t, 60, limited(t, err))
		e.advance(time.Minute)
		ran, err = e.try(e.backups[0], "198.51.100.62")
		require.True(t, ran)
		require.NoError(t, err, "a right factor once the lock ran out")
		for i := range users.FreeSecondFactorFailures - 1 {
			ran, err := e.try(e.wrong(t), "198.51.100.63")
			require.True(t, ran, "a success cleared the count: %d", i+1)
			require.Equal(t, errs.Unauthorized, errs.KindOf(err))
		}
	})
}

// TestSecondFactorBurstNeverOvershoots: 60 wrong codes sent at once, each
// from its own address, reach the verifier exactly 5 times: the count is
// taken and checked in one locked transaction before each check (the
// reported attack got 7 of 20 and 6 of 60 through a limit of 5).
func TestSecondFactorBurstNeverOvershoots(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		e := newSecondFactorEnv(t, s)
		var (
			wg           sync.WaitGroup
			mu           sync.Mutex
			ran, refused int
		)
		guess := e.wrong(t)
		for i := range 60 {
			wg.Go(func() {
				r, err := e.try(guess, fmt.Sprintf("203.0.113.%d", i+1))
				mu.Lock()
				defer mu.Unlock()
				switch {
				case r:
					ran++
					assert.Equal(t, errs.Unauthorized, errs.KindOf(err))
				case errs.Is(err, errs.RateLimited):
					refused++
				default:
					t.Errorf("attempt %d: %v", i, err)
				}
			})
		}
		wg.Wait()
		assert.Equal(t, users.FreeSecondFactorFailures, ran, "checked codes")
		assert.Equal(t, 60-users.FreeSecondFactorFailures, refused)
		row, err := s.SecondFactorFailures(context.Background(), e.user)
		require.NoError(t, err)
		assert.Equal(t, int64(users.FreeSecondFactorFailures), row.Failures)
	})
}

// TestSecondFactorFailuresOtherThanGuessesAreRefunded: an attempt that
// fails for another reason than a wrong factor (the store, the vault) is
// not held against the account, and its lock is taken back.
func TestSecondFactorFailuresOtherThanGuessesAreRefunded(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		e := newSecondFactorEnv(t, s)
		for range users.FreeSecondFactorFailures - 1 {
			_, err := e.try(e.wrong(t), "192.0.2.10")
			require.Equal(t, errs.Unauthorized, errs.KindOf(err))
		}
		broken := errs.E(errs.Transient, "database unavailable")
		err := e.svc.GuardSecondFactor(ctx, e.user, users.MethodSecondFactor, "192.0.2.10", func() error { return broken })
		require.Equal(t, errs.Transient, errs.KindOf(err))
		row, err := s.SecondFactorFailures(ctx, e.user)
		require.NoError(t, err)
		assert.Equal(t, int64(users.FreeSecondFactorFailures-1), row.Failures)
		assert.Nil(t, row.LockedUntil, "the failed attempt's lock is taken back")
		ran, err := e.try(e.code(t), "192.0.2.10")
		require.True(t, ran)
		require.NoError(t, err)
	})
}
