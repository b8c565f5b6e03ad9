// Package passkeys registers WebAuthn credentials (passkeys) for dashboard
// users and verifies them at sign-in, either passwordless with a
// discoverable credential or as the second factor of a password sign-in.
// The ceremonies use github.com/go-webauthn/webauthn; this package keeps
// the credential records and the audit trail.
package passkeys

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
)

// Config is the relying party: the dashboard's host and origin.
type Config struct {
	// RPID is the host name of the public URL ("example.com", "127.0.0.1").
	RPID string
	// Origins are the public URL's origins ("https://example.com").
	Origins []string
	// DisplayName names the service in the browser's passkey dialogs.
	DisplayName string
}

// Service registers and verifies passkeys.
type Service struct {
	Store *store.Store
	Audit *audit.Service
	wa    *webauthn.WebAuthn
}

// New builds the service for the relying party cfg.
func New(st *store.Store, au *audit.Service, cfg Config) (*Service, error) {
	if cfg.DisplayName == "" {
		cfg.DisplayName = "Agent Trading Service"
	}
	wa, err := webauthn.New(&webauthn.Config{
		RPID: cfg.RPID, RPDisplayName: cfg.DisplayName, RPOrigins: cfg.Origins,
	})
	if err != nil {
		return nil, errs.Wrap(errs.Invalid, err, "passkeys: bad relying party configuration: "+err.Error())
	}
	return &Service{Store: st, Audit: au, wa: wa}, nil
}

// Passkey is a registered passkey as the security page lists it.
type Passkey struct {
	ID         string
	Name       string
	CreatedAt  string
	LastUsedAt string
	// Synced says the credential may be copied between devices (backup
	// eligible), as password-manager passkeys are.
	Synced bool
}

// user adapts an account to the library's User.
type user struct {
	id, email string
	creds     []webauthn.Credential
}

func (u *user) WebAuthnID() []byte                         { return []byte(u.id) }
func (u *user) WebAuthnName() string                       { return u.email }
func (u *user) WebAuthnDisplayName() string                { return u.email }
func (u *user) WebAuthnCredentials() []webauthn.Credential { return u.creds }

func (s *Service) load(ctx context.Context, userID string) (*user, []models.UserCredential, error) {
	u, err := s.Store.UserByID(ctx, userID)
	if err != nil {
		return nil, nil, err
	}
	rows, err := s.Store.ListCredentials(ctx, userID, models.CredentialWebAuthn)
	if err != nil {
		return nil, nil, err
	}
	out := &user{id: u.ID, email: u.Email}
	for _, r := range rows {
		c, err := record(r)
		if err != nil {
			return nil, nil, err
		}
		out.creds = append(out.creds, c)
	}
	return out, rows, nil
}

func record(r models.UserCredential) (webauthn.Credential, error) {
	var c webauthn.Credential
	if err := json.Unmarshal([]byte(r.WebAuthnRecord), &c); err != nil {
		return c, errs.Wrap(errs.Internal, err, "stored passkey record")
	}
	return c, nil
}

// Ceremony is what the browser needs to run a WebAuthn ceremony (the
// options JSON for navigator.credentials) and what the server must keep
// until it finishes (Session, stored in the dashboard session).
type Ceremony struct {
	Options json.RawMessage
	Session json.RawMessage
}

func ceremony(opts any, sd *webauthn.SessionData) (Ceremony, error) {
	o, err := json.Marshal(opts)
	if err != nil {
		return Ceremony{}, errs.Wrap(errs.Internal, err, "passkey options")
	}
	sj, err := json.Marshal(sd)
	if err != nil {
		return Ceremony{}, errs.Wrap(errs.Internal, err, "passkey session")
	}
	return Ceremony{Options: o, Session: sj}, nil
}

func sessionData(raw json.RawMessage) (webauthn.SessionData, error) {
	var sd webauthn.SessionData
	if len(raw) == 0 {
		return sd, errs.E(errs.Invalid, "no passkey ceremony in progress; start again").WithCode(errs.CodeNoCeremony)
	}
	if err := json.Unmarshal(raw, &sd); err != nil {
		return sd, errs.Wrap(errs.Internal, err, "passkey session")
	}
	return sd, nil
}

// BeginRegistration starts registering a new passkey for userID. The
// credential must be discoverable (so it can sign in without an email)
// and verify the user; the user's existing passkeys are excluded.
func (s *Service) BeginRegistration(ctx context.Context, userID string) (Ceremony, error) {
	u, _, err := s.load(ctx, userID)
	if err != nil {
		return Ceremony{}, err
	}
	var excl []protocol.CredentialDescriptor
	for _, c := range u.creds {
		excl = append(excl, c.Descriptor())
	}
	opts, sd, err := s.wa.BeginRegistration(u,
		webauthn.WithAuthenticatorSelection(protocol.AuthenticatorSelection{
			ResidentKey: protocol.ResidentKeyRequirementRequired, RequireResidentKey: protocol.ResidentKeyRequired(),
			UserVerification: protocol.VerificationRequired,
		}),
		webauthn.WithExclusions(excl),
	)
	if err != nil {
		return Ceremony{}, errs.Wrap(errs.Internal, err, "begin passkey registration")
	}
	return ceremony(opts, sd)
}

const maxNameLen = 64

// CleanName validates a passkey name: 1–64 printable characters.
func CleanName(name string) (string, error) {
	n := strings.TrimSpace(name)
	if n == "" || utf8.RuneCountInString(n) > maxNameLen || !utf8.ValidString(n) || strings.ContainsFunc(n, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "", errs.E(errs.Invalid, "give the passkey a name of 1 to 64 characters").WithCode(errs.CodeInvalidPasskeyName)
	}
	return n, nil
}

// FinishRegistration verifies the browser's attestation response against
// the ceremony and stores the passkey under name.
func (s *Service) FinishRegistration(ctx context.Context, userID, name string, session json.RawMessage, response []byte, clientAddr string) (Passkey, error) {
	name, err := CleanName(name)
	if err != nil {
		return Passkey{}, err
	}
	sd, err := sessionData(session)
	if err != nil {
		return Passkey{}, err
	}
	u, _, err := s.load(ctx, userID)
	if err != nil {
		return Passkey{}, err
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes(response)
	if err != nil {
		return Passkey{}, s.refuse(ctx, userID, audit.ActionPasskeyAdd, clientAddr, err)
	}
	cred, err := s.wa.CreateCredential(u, sd, parsed)
	if err != nil {
		return Passkey{}, s.refuse(ctx, userID, audit.ActionPasskeyAdd, clientAddr, err)
	}
	rec, err := json.Marshal(cred)
	if err != nil {
		return Passkey{}, errs.Wrap(errs.Internal, err, "passkey record")
	}
	row := &models.UserCredential{
		UserID: userID, Kind: models.CredentialWebAuthn, WebAuthnCredentialID: cred.ID, WebAuthnPublicKey: cred.PublicKey,
		WebAuthnSignCount: int64(cred.Authenticator.SignCount), WebAuthnRecord: string(rec), Name: name,
	}
	err = s.Store.Tx(ctx, func(tx *store.Store) error {
		if err := tx.CreateCredential(ctx, row); err != nil {
			if errs.Is(err, errs.Conflict) {
				return errs.E(errs.Conflict, "this passkey is already registered").WithCode(errs.CodePasskeyExists)
			}
			return err
		}
		return audit.Append(ctx, tx, audit.Entry{UserID: userID, Action: audit.ActionPasskeyAdd, Target: row.ID,
			Result: audit.Success, ClientAddr: clientAddr, Detail: map[string]any{"name": name}})
	})
	if err != nil {
		return Passkey{}, err
	}
	return toPasskey(*row, cred), nil
}

// refuse audits a failed ceremony and returns the one client-safe answer.
func (s *Service) refuse(ctx context.Context, userID, action, clientAddr string, cause error) error {
	reason := "invalid_response"
	if pe, ok := cause.(*protocol.Error); ok && pe.Type != "" {
		reason = pe.Type
	}
	_ = s.Audit.Record(ctx, audit.Entry{UserID: userID, Action: action, Target: userID, Result: audit.Failure,
		ClientAddr: clientAddr, Detail: map[string]any{"method": "passkey", "reason": reason}})
	return errs.E(errs.Unauthorized, "the passkey could not be verified; try again").WithCode(errs.CodePasskeyFailed).WithCause(cause)
}

// BeginLogin starts a passkey sign-in. With userID "" it is passwordless:
// any discoverable credential of this site may answer. With a userID (the
// second factor of a password sign-in, or a step-up) only that user's
// passkeys are allowed. User verification is required either way.
func (s *Service) BeginLogin(ctx context.Context, userID string) (Ceremony, error) {
	if userID == "" {
		opts, sd, err := s.wa.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationRequired))
		if err != nil {
			return Ceremony{}, errs.Wrap(errs.Internal, err, "begin passkey sign-in")
		}
		return ceremony(opts, sd)
	}
	u, _, err := s.load(ctx, userID)
	if err != nil {
		return Ceremony{}, err
	}
	if len(u.creds) == 0 {
		return Ceremony{}, errs.E(errs.NotFound, "this account has no passkey").WithCode(errs.CodeNoPasskey)
	}
	opts, sd, err := s.wa.BeginLogin(u, webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return Ceremony{}, errs.Wrap(errs.Internal, err, "begin passkey sign-in")
	}
	return ceremony(opts, sd)
}

// FinishLogin verifies the browser's assertion against the ceremony and
// returns the user it proves. userID must be what BeginLogin was given.
// The credential's counter and flags are stored; the attempt is audited as
// a sign-in (purpose "sign_in") or a second factor ("second_factor",
// "step_up").
func (s *Service) FinishLogin(ctx context.Context, userID string, session json.RawMessage, response []byte, purpose, clientAddr string) (string, error) {
	sd, err := sessionData(session)
	if err != nil {
		return "", err
	}
	action := audit.ActionSecondFactor
	if purpose == "sign_in" {
		action = audit.ActionUserLogin
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes(response)
	if err != nil {
		return "", s.refuse(ctx, userID, action, clientAddr, err)
	}
	var (
		cred  *webauthn.Credential
		row   *models.UserCredential
		owner = userID
	)
	if userID == "" {
		var found webauthn.User
		found, cred, err = s.wa.ValidatePasskeyLogin(func(rawID, userHandle []byte) (webauthn.User, error) {
			r, err := s.Store.CredentialByWebAuthnID(ctx, rawID)
			if err != nil {
				return nil, err
			}
			if string(userHandle) != r.UserID {
				return nil, errs.E(errs.Unauthorized, "the passkey belongs to another account")
			}
			row = r
			u, _, err := s.load(ctx, r.UserID)
			return u, err
		}, sd, parsed)
		if err == nil {
			owner = string(found.WebAuthnID())
		}
	} else {
		var u *user
		if u, _, err = s.load(ctx, userID); err != nil {
			return "", err
		}
		cred, err = s.wa.ValidateLogin(u, sd, parsed)
		if err == nil {
			row, err = s.Store.CredentialByWebAuthnID(ctx, cred.ID)
		}
	}
	if err != nil {
		return "", s.refuse(ctx, owner, action, clientAddr, err)
	}
	if cred.Authenticator.CloneWarning {
		return "", s.refuse(ctx, owner, action, clientAddr, errs.E(errs.Unauthorized, "passkey counter went backwards"))
	}
	rec, err := json.Marshal(cred)
	if err != nil {
		return "", errs.Wrap(errs.Internal, err, "passkey record")
	}
	if err := s.Store.UpdatePasskeyUse(ctx, row.ID, string(rec), int64(cred.Authenticator.SignCount)); err != nil {
		return "", err
	}
	if err := s.Audit.Record(ctx, audit.Entry{UserID: owner, Action: action, Target: owner, Result: audit.Success,
		ClientAddr: clientAddr, Detail: map[string]any{"method": "passkey", "passkey": row.ID, "purpose": purpose}}); err != nil {
		return "", err
	}
	return owner, nil
}

// List returns the user's passkeys, oldest first.
func (s *Service) List(ctx context.Context, userID string) ([]Passkey, error) {
	rows, err := s.Store.ListCredentials(ctx, userID, models.CredentialWebAuthn)
	if err != nil {
		return nil, err
	}
	out := make([]Passkey, 0, len(rows))
	for _, r := range rows {
		c, _ := record(r)
		out = append(out, toPasskey(r, &c))
	}
	return out, nil
}

// Count is how many passkeys the user has.
func (s *Service) Count(ctx context.Context, userID string) (int, error) {
	rows, err := s.Store.ListCredentials(ctx, userID, models.CredentialWebAuthn)
	return len(rows), err
}

func toPasskey(r models.UserCredential, c *webauthn.Credential) Passkey {
	p := Passkey{ID: r.ID, Name: r.Name, CreatedAt: r.CreatedAt.UTC().Format("2006-01-02 15:04 UTC")}
	if r.LastUsedAt != nil {
		p.LastUsedAt = r.LastUsedAt.UTC().Format("2006-01-02 15:04 UTC")
	}
	if c != nil {
		p.Synced = c.Flags.BackupEligible
	}
	return p
}

// Rename renames one of the user's passkeys.
func (s *Service) Rename(ctx context.Context, userID, id, name, clientAddr string) error {
	name, err := CleanName(name)
	if err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx *store.Store) error {
		if err := tx.RenameCredential(ctx, userID, id, name); err != nil {
			return err
		}
		return audit.Append(ctx, tx, audit.Entry{UserID: userID, Action: audit.ActionPasskeyRename, Target: id,
			Result: audit.Success, ClientAddr: clientAddr, Detail: map[string]any{"name": name}})
	})
}

// Remove deletes one of the user's passkeys.
func (s *Service) Remove(ctx context.Context, userID, id, clientAddr string) error {
	return s.Store.Tx(ctx, func(tx *store.Store) error {
		c, err := tx.DeleteCredential(ctx, userID, models.CredentialWebAuthn, id)
		if err != nil {
			return err
		}
		return audit.Append(ctx, tx, audit.Entry{UserID: userID, Action: audit.ActionPasskeyRemove, Target: id,
			Result: audit.Success, ClientAddr: clientAddr, Detail: map[string]any{"name": c.Name}})
	})
}
