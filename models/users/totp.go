package users

import (
	"bytes"
	"context"
	cryptorand "crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/hex"
	"image/png"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/vault"
)

// DefaultTOTPIssuer is the name authenticator apps show for the account.
const DefaultTOTPIssuer = "Agent Trading Service"

// TOTP parameters: the RFC 6238 defaults every authenticator app supports.
const (
	totpPeriod = 30
	// totpSkew accepts the previous and the next step too, for clock drift
	// between the phone and the server.
	totpSkew = 1
	// BackupCodeCount is how many backup codes a user gets at a time.
	BackupCodeCount = 10
)

var totpOpts = totp.ValidateOpts{Period: totpPeriod, Skew: 0, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Service) issuer() string {
	if s.Issuer == "" {
		return DefaultTOTPIssuer
	}
	return s.Issuer
}

func (s *Service) vault() (*vault.Vault, error) {
	if s.Vault == nil {
		return nil, errs.E(errs.Internal, "users: no vault for TOTP secrets")
	}
	return s.Vault, nil
}

// Enrolment is a TOTP secret awaiting its confirming code.
type Enrolment struct {
	// Secret is the base32 secret, for typing into an app by hand.
	Secret string
	// URL is the otpauth:// URL the QR code carries.
	URL string
}

// BeginTOTP creates a new TOTP secret for the user (replacing an earlier
// unconfirmed one) and returns it for the QR code. Two-factor
// authentication is not on until ConfirmTOTP accepts a code from it.
func (s *Service) BeginTOTP(ctx context.Context, userID string) (Enrolment, error) {
	v, err := s.vault()
	if err != nil {
		return Enrolment{}, err
	}
	u, err := s.Store.UserByID(ctx, userID)
	if err != nil {
		return Enrolment{}, err
	}
	if u.TOTPEnabled {
		return Enrolment{}, errs.E(errs.Conflict, "two-factor authentication is already on").WithCode(errs.CodeTwoFactorEnabled)
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: s.issuer(), AccountName: u.Email, Period: totpPeriod,
		Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		return Enrolment{}, errs.Wrap(errs.Internal, err, "generate TOTP secret")
	}
	sealed, err := v.Seal(vault.TOTPSecret(userID), []byte(key.Secret()))
	if err != nil {
		return Enrolment{}, err
	}
	if err := s.Store.SetPendingTOTPSecret(ctx, userID, sealed.Ciphertext, sealed.Nonce, sealed.KeyVersion); err != nil {
		return Enrolment{}, err
	}
	return Enrolment{Secret: key.Secret(), URL: key.URL()}, nil
}

// PendingTOTP returns the unconfirmed enrolment of the user (for the QR
// code); NotFound when there is none.
func (s *Service) PendingTOTP(ctx context.Context, userID string) (Enrolment, error) {
	u, err := s.Store.UserByID(ctx, userID)
	if err != nil {
		return Enrolment{}, err
	}
	if u.TOTPEnabled || len(u.TOTPSecretCiphertext) == 0 {
		return Enrolment{}, errs.E(errs.NotFound, "no two-factor set-up in progress")
	}
	sec, err := s.openSecret(u)
	if err != nil {
		return Enrolment{}, err
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: s.issuer(), AccountName: u.Email, Period: totpPeriod,
		Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1, Secret: sec})
	if err != nil {
		return Enrolment{}, errs.Wrap(errs.Internal, err, "rebuild TOTP key")
	}
	return Enrolment{Secret: key.Secret(), URL: key.URL()}, nil
}

// QRCodePNG renders an enrolment's otpauth URL as a PNG QR code.
func QRCodePNG(e Enrolment, size int) ([]byte, error) {
	key, err := otp.NewKeyFromURL(e.URL)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, err, "parse otpauth URL")
	}
	img, err := key.Image(size, size)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, err, "render QR code")
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, errs.Wrap(errs.Internal, err, "encode QR code")
	}
	return buf.Bytes(), nil
}

// openSecret returns the raw TOTP secret bytes of u.
func (s *Service) openSecret(u *models.User) ([]byte, error) {
	v, err := s.vault()
	if err != nil {
		return nil, err
	}
	b32, err := v.Open(vault.TOTPSecret(u.ID), vault.Sealed{Ciphertext: u.TOTPSecretCiphertext, Nonce: u.TOTPSecretNonce, KeyVersion: u.TOTPKeyVersion})
	if err != nil {
		return nil, err
	}
	raw, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(string(b32)))
	if err != nil {
		return nil, errs.Wrap(errs.Internal, err, "stored TOTP secret")
	}
	return raw, nil
}

// matchStep returns the time step whose code equals code, within the skew,
// or -1.
func (s *Service) matchStep(u *models.User, code string) (int64, error) {
	code = strings.TrimSpace(strings.ReplaceAll(code, " ", ""))
	if len(code) != 6 {
		return -1, nil
	}
	raw, err := s.openSecret(u)
	if err != nil {
		return -1, err
	}
	b32 := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(raw)
	now := s.now()
	step := now.Unix() / totpPeriod
	found := int64(-1)
	for off := int64(-totpSkew); off <= totpSkew; off++ {
		want, err := totp.GenerateCodeCustom(b32, time.Unix((step+off)*totpPeriod, 0), totpOpts)
		if err != nil {
			return -1, errs.Wrap(errs.Internal, err, "TOTP code")
		}
		// Compare every candidate, matched or not, in constant time.
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 && found < 0 {
			found = step + off
		}
	}
	return found, nil
}

var errBadCode = errs.E(errs.Unauthorized, "that code is not right; check your authenticator app and try again").WithCode(errs.CodeInvalidCode)

// ConfirmTOTP turns two-factor authentication on when code matches the
// pending secret, and returns the first backup codes (shown once).
func (s *Service) ConfirmTOTP(ctx context.Context, userID, code, clientAddr string) ([]string, error) {
	u, err := s.Store.UserByID(ctx, userID)
	if err != nil {
		return nil, err
	}
	if u.TOTPEnabled {
		return nil, errs.E(errs.Conflict, "two-factor authentication is already on").WithCode(errs.CodeTwoFactorEnabled)
	}
	if len(u.TOTPSecretCiphertext) == 0 {
		return nil, errs.E(errs.Conflict, "start the set-up again: no secret is waiting for confirmation").WithCode(errs.CodeTwoFactorState)
	}
	step, err := s.matchStep(u, code)
	if err != nil {
		return nil, err
	}
	if step < 0 {
		return nil, errBadCode
	}
	codes, rows := newBackupCodes(userID)
	err = s.Store.Tx(ctx, func(tx *store.Store) error {
		if err := tx.EnableTOTP(ctx, userID, step); err != nil {
			return err
		}
		if err := tx.ReplaceBackupCodes(ctx, userID, rows); err != nil {
			return err
		}
		return audit.Append(ctx, tx, audit.Entry{UserID: userID, Action: audit.ActionTwoFactorEnable, Target: userID,
			Result: audit.Success, ClientAddr: clientAddr, Detail: map[string]any{"method": "totp"}})
	})
	if err != nil {
		return nil, err
	}
	return codes, nil
}

// DisableTOTP turns two-factor authentication off and deletes the backup
// codes. The caller asks for a fresh second factor first.
func (s *Service) DisableTOTP(ctx context.Context, userID, clientAddr string) error {
	return s.Store.Tx(ctx, func(tx *store.Store) error {
		if err := tx.DisableTOTP(ctx, userID); err != nil {
			return err
		}
		return audit.Append(ctx, tx, audit.Entry{UserID: userID, Action: audit.ActionTwoFactorDisable, Target: userID,
			Result: audit.Success, ClientAddr: clientAddr})
	})
}

// RegenerateBackupCodes replaces the user's backup codes with ten new ones
// (the old ones stop working) and returns them, shown once.
func (s *Service) RegenerateBackupCodes(ctx context.Context, userID, clientAddr string) ([]string, error) {
	u, err := s.Store.UserByID(ctx, userID)
	if err != nil {
		return nil, err
	}
	if !u.TOTPEnabled {
		return nil, errs.E(errs.Conflict, "turn on two-factor authentication first").WithCode(errs.CodeTwoFactorDisabled)
	}
	codes, rows := newBackupCodes(userID)
	err = s.Store.Tx(ctx, func(tx *store.Store) error {
		if err := tx.ReplaceBackupCodes(ctx, userID, rows); err != nil {
			return err
		}
		return audit.Append(ctx, tx, audit.Entry{UserID: userID, Action: audit.ActionBackupCodes, Target: userID,
			Result: audit.Success, ClientAddr: clientAddr})
	})
	if err != nil {
		return nil, err
	}
	return codes, nil
}

// UnusedBackupCodes counts the user's backup codes still usable.
func (s *Service) UnusedBackupCodes(ctx context.Context, userID string) (int64, error) {
	return s.Store.UnusedBackupCodes(ctx, userID)
}

// Second-factor methods as audited.
const (
	FactorTOTP       = "totp"
	FactorBackupCode = "backup_code"
	FactorPasskey    = "passkey"
)

// VerifySecondFactor checks a code typed at the second-factor step or at a
// step-up: six digits are a TOTP code (each time step accepted once), any
// other shape a backup code (each accepted once). Every attempt is
// audited under purpose ("sign_in" or "step_up"); it returns the method
// that matched.
func (s *Service) VerifySecondFactor(ctx context.Context, userID, code, purpose, clientAddr string) (string, error) {
	u, err := s.Store.UserByID(ctx, userID)
	if err != nil {
		return "", err
	}
	if !u.TOTPEnabled {
		return "", errs.E(errs.Conflict, "two-factor authentication is not on for this account").WithCode(errs.CodeTwoFactorDisabled)
	}
	method, reason := FactorTOTP, ""
	compact := strings.ReplaceAll(strings.TrimSpace(code), " ", "")
	if isDigits(compact) && len(compact) == 6 {
		step, err := s.matchStep(u, compact)
		if err != nil {
			return "", err
		}
		switch {
		case step < 0:
			reason = "wrong_code"
		default:
			if err := s.Store.AdvanceTOTPStep(ctx, userID, step); err != nil {
				if !errs.Is(err, errs.Conflict) {
					return "", err
				}
				reason = "code_replayed"
			}
		}
	} else {
		method = FactorBackupCode
		norm, ok := normalizeBackupCode(code)
		if !ok {
			reason = "malformed_code"
		} else if err := s.Store.UseBackupCode(ctx, userID, hashBackupCode(userID, norm)); err != nil {
			if !errs.Is(err, errs.NotFound) {
				return "", err
			}
			reason = "unknown_or_used_backup_code"
			// One of the user's codes, spent already: say so, so they
			// reach for another rather than retype this one.
			if spent, err := s.Store.BackupCodeSpent(ctx, userID, hashBackupCode(userID, norm)); err != nil {
				return "", err
			} else if spent {
				reason = "backup_code_used"
			}
		}
	}
	entry := audit.Entry{UserID: userID, Action: audit.ActionSecondFactor, Target: userID, ClientAddr: clientAddr,
		Result: audit.Success, Detail: map[string]any{"method": method, "purpose": purpose}}
	if reason != "" {
		entry.Result = audit.Failure
		entry.Detail["reason"] = reason
	}
	if err := s.Audit.Record(ctx, entry); err != nil {
		return "", err
	}
	if reason != "" {
		if reason == "code_replayed" {
			return "", errs.E(errs.Unauthorized, "that code was already used; wait for the next one").WithCode(errs.CodeCodeReplayed)
		}
		if reason == "backup_code_used" {
			return "", errs.E(errs.Unauthorized, "that backup code was already used: each works once; use another one, or your authenticator app").
				WithCode(errs.CodeBackupCodeUsed)
		}
		return "", errBadCode
	}
	return method, nil
}

func isDigits(v string) bool {
	for _, r := range v {
		if r < '0' || r > '9' {
			return false
		}
	}
	return v != ""
}

// Backup codes are ten characters from an unambiguous alphabet (50 bits),
// shown as xxxxx-xxxxx. That entropy, the sign-in throttle and one-time
// use make a fast keyed hash enough; argon2 over ten codes per attempt
// would cost seconds.
const backupAlphabet = "abcdefghjkmnpqrstuvwxyz23456789"

func newBackupCodes(userID string) ([]string, []models.BackupCode) {
	codes := make([]string, BackupCodeCount)
	rows := make([]models.BackupCode, BackupCodeCount)
	for i := range codes {
		raw := randomFrom(backupAlphabet, 10)
		codes[i] = raw[:5] + "-" + raw[5:]
		rows[i] = models.BackupCode{CodeHash: hashBackupCode(userID, raw)}
	}
	return codes, rows
}

func normalizeBackupCode(code string) (string, bool) {
	var b strings.Builder
	for _, r := range strings.ToLower(code) {
		switch {
		case r == '-' || r == ' ':
		case strings.ContainsRune(backupAlphabet, r):
			b.WriteRune(r)
		default:
			return "", false
		}
	}
	return b.String(), b.Len() == 10
}

func hashBackupCode(userID, code string) string {
	sum := sha256.Sum256([]byte("backup-code|" + userID + "|" + code))
	return hex.EncodeToString(sum[:])
}

// randomFrom draws n characters uniformly from alphabet.
func randomFrom(alphabet string, n int) string {
	out := make([]byte, 0, n)
	limit := 256 - 256%len(alphabet)
	buf := make([]byte, 2*n)
	for len(out) < n {
		if _, err := cryptorand.Read(buf); err != nil {
			panic("users: random source failed: " + err.Error())
		}
		for _, b := range buf {
			if int(b) < limit && len(out) < n {
				out = append(out, alphabet[int(b)%len(alphabet)])
			}
		}
	}
	return string(out)
}
