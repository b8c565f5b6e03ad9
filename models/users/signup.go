package users

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store"
)

// SignupMode says who may create a dashboard account.
type SignupMode string

// Sign-up modes (the --signup flag).
const (
	SignupOpen   SignupMode = "open"
	SignupInvite SignupMode = "invite"
	SignupClosed SignupMode = "closed"
)

// ParseSignupMode accepts open, invite or closed.
func ParseSignupMode(v string) (SignupMode, error) {
	switch m := SignupMode(v); m {
	case SignupOpen, SignupInvite, SignupClosed:
		return m, nil
	}
	return "", errs.Ef(errs.Invalid, "sign-up mode must be open, invite or closed, not %q", v)
}

// DefaultInviteTTL is how long an invite stays usable.
const DefaultInviteTTL = 7 * 24 * time.Hour

func hashInvite(code string) string {
	sum := sha256.Sum256([]byte("invite|" + code))
	return hex.EncodeToString(sum[:])
}

// CreateInvite makes a one-time invite code, bound to email when it is
// not "", valid for ttl (0 = DefaultInviteTTL). The code is returned once;
// only its hash is stored.
func (s *Service) CreateInvite(ctx context.Context, email string, ttl time.Duration) (string, error) {
	if email != "" {
		e, err := ValidateEmail(email)
		if err != nil {
			return "", err
		}
		email = e
	}
	if ttl <= 0 {
		ttl = DefaultInviteTTL
	}
	code := secret.RandomToken()
	inv := &models.Invite{CodeHash: hashInvite(code), Email: email, ExpiresAt: time.Now().Add(ttl)}
	err := s.Store.Tx(ctx, func(tx *store.Store) error {
		if err := tx.CreateInvite(ctx, inv); err != nil {
			return err
		}
		return audit.Append(ctx, tx, audit.Entry{Action: audit.ActionInviteCreate, Target: inv.ID, Result: audit.Success,
			ClientAddr: "cli", Detail: map[string]any{"email": email, "expires_at": inv.ExpiresAt.UTC()}})
	})
	if err != nil {
		return "", err
	}
	return code, nil
}

var errSignupClosed = errs.E(errs.Forbidden, "sign-up is closed on this service; ask its operator for an account").WithCode(errs.CodeSignupClosed)

// SignupAllowed says whether mode lets someone without an invite sign up.
func SignupAllowed(mode SignupMode) error {
	if mode == SignupOpen || mode == "" {
		return nil
	}
	if mode == SignupInvite {
		return errs.E(errs.Forbidden, "sign-up needs an invite on this service").WithCode(errs.CodeInviteRequired)
	}
	return errSignupClosed
}

// SignUp creates an account under mode: open needs nothing, invite needs a
// valid invite code (spent in the same transaction), closed refuses.
func (s *Service) SignUp(ctx context.Context, mode SignupMode, email, password, invite, clientAddr string) (User, error) {
	if mode == SignupClosed {
		return User{}, errSignupClosed
	}
	e, err := ValidateEmail(email)
	if err != nil {
		return User{}, err
	}
	if err := ValidatePassword(password); err != nil {
		return User{}, err
	}
	if mode == SignupInvite && invite == "" {
		return User{}, SignupAllowed(mode)
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
		detail := map[string]any{"method": "password"}
		if mode == SignupInvite {
			if err := tx.UseInvite(ctx, hashInvite(invite), e, u.ID); err != nil {
				if errs.Is(err, errs.NotFound) {
					return errs.E(errs.Forbidden, "this invite is not valid for this email, expired or already used").WithCode(errs.CodeInvalidInvite)
				}
				return err
			}
			detail["invite"] = true
		}
		return audit.Append(ctx, tx, audit.Entry{UserID: u.ID, Action: audit.ActionUserCreate, Target: u.ID,
			Result: audit.Success, ClientAddr: clientAddr, Detail: detail})
	})
	if err != nil {
		return User{}, err
	}
	return toDTO(u), nil
}

// HasPassword reports whether the user can sign in with a password.
func (s *Service) HasPassword(ctx context.Context, userID string) (bool, error) {
	u, err := s.Store.UserByID(ctx, userID)
	if err != nil {
		return false, err
	}
	return u.PasswordHash != "", nil
}

// ChangePassword replaces the user's password after checking the current
// one (an account without a password, made by social login, sets its
// first). Audited either way.
func (s *Service) ChangePassword(ctx context.Context, userID, current, next, clientAddr string) error {
	u, err := s.Store.UserByID(ctx, userID)
	if err != nil {
		return err
	}
	entry := audit.Entry{UserID: userID, Action: audit.ActionPasswordChange, Target: userID, ClientAddr: clientAddr, Result: audit.Failure}
	if u.PasswordHash != "" {
		ok, err := secret.VerifyPasswordContext(ctx, s.Gate, u.PasswordHash, current)
		if err != nil {
			return err
		}
		if !ok {
			entry.Detail = map[string]any{"reason": "wrong_current_password"}
			if err := s.Audit.Record(ctx, entry); err != nil {
				return err
			}
			return errs.E(errs.Unauthorized, "the current password is not right").WithCode(errs.CodeWrongPassword)
		}
	}
	if err := ValidatePassword(next); err != nil {
		return err
	}
	h, err := s.hash(ctx, next)
	if err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx *store.Store) error {
		if err := tx.UpdateUserPassword(ctx, userID, h); err != nil {
			return err
		}
		entry.Result = audit.Success
		entry.Detail = map[string]any{"first_password": u.PasswordHash == ""}
		return audit.Append(ctx, tx, entry)
	})
}
