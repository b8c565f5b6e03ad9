package dashboard

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"

	"github.com/gin-gonic/gin"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/identities"
	"github.com/agent-trading/ats/models/sessions"
	"github.com/agent-trading/ats/models/users"
)

func urlQueryEscape(s string) string { return url.QueryEscape(s) }

type signinData struct {
	Email, Next string
	SignupOpen  bool
}

func (h *handler) signinPage(c *gin.Context) {
	if userOf(c) != nil {
		c.Redirect(http.StatusSeeOther, "/")
		return
	}
	h.render(c, http.StatusOK, "signin", view{Title: "Sign in", Narrow: true,
		Data: signinData{Next: safeNext(c.Query("next")), SignupOpen: h.cfg.Signup != users.SignupClosed}})
}

// signin checks the first factor. With 2FA on, the session remembers the
// user as pending and the second-factor page follows; otherwise the
// visitor is signed in on a new session.
func (h *handler) signin(c *gin.Context) {
	ctx, ip := c.Request.Context(), c.ClientIP()
	email, password, next := c.PostForm("email"), c.PostForm("password"), safeNext(c.PostForm("next"))
	v := view{Title: "Sign in", Narrow: true, Data: signinData{Email: email, Next: next, SignupOpen: h.cfg.Signup != users.SignupClosed}}
	u, err := h.d.Users.SignIn(ctx, email, password, ip)
	if err != nil {
		h.formError(c, "signin", v, err)
		return
	}
	sess := sessionOf(c)
	if u.TwoFactorEnabled {
		h.beginSecondFactor(c, sess, u.ID, sessions.MethodPassword, next)
		return
	}
	target, err := h.completeSignIn(c, sess, u.ID, sessions.MethodPassword, false, next)
	if err != nil {
		h.fail(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, target)
}

// beginSecondFactor remembers the user who passed the first factor, in a
// renewed session, and asks for the second.
func (h *handler) beginSecondFactor(c *gin.Context, sess *sessions.Session, userID, method, next string) {
	var st sessions.State
	if sess != nil {
		st = sess.State
	}
	st.PendingUserID, st.PendingMethod = userID, method
	st.PendingSince, st.Next = h.d.Sessions.Clock(), next
	st.WebAuthn, st.WebAuthnPurpose = nil, ""
	var (
		renewed *sessions.Session
		token   string
		err     error
	)
	if sess == nil {
		// The first thing this visitor's session remembers.
		renewed, token, err = h.d.Sessions.StartWith(c.Request.Context(), st, c.ClientIP(), c.Request.UserAgent())
	} else {
		if sess.UserID != "" {
			// A signed-in visitor signing in again: start from a fresh session.
			sess = &sessions.Session{ID: sess.ID}
		}
		sess.State = st
		renewed, token, err = h.d.Sessions.Renew(c.Request.Context(), sess, c.ClientIP(), c.Request.UserAgent())
	}
	if err != nil {
		h.fail(c, err)
		return
	}
	h.setCookie(c, token)
	c.Set(ctxSession, renewed)
	c.Redirect(http.StatusSeeOther, "/signin/second-factor")
}

// completeSignIn links an identity waiting for this sign-in, then replaces
// the visitor's session with a signed-in one (new token, new cookie) and
// returns where to go.
func (h *handler) completeSignIn(c *gin.Context, old *sessions.Session, userID, method string, secondFactor bool, next string) (string, error) {
	ctx, ip := c.Request.Context(), c.ClientIP()
	if old != nil && old.State.Identity != nil && h.d.Sessions.PendingValid(old.State.Identity.Since) {
		if err := h.d.Identities.Link(ctx, userID, pendingIdentity(old.State.Identity), true, ip); err != nil {
			_, msg := h.describe(c, err)
			api.LoggerFrom(c).InfoContext(ctx, "identity not linked at sign-in", "reason", msg)
			next = "/security?done=link-failed"
		} else {
			next = "/security?done=linked"
		}
	}
	sess, token, err := h.d.Sessions.SignIn(ctx, old, userID, method, secondFactor, ip, c.Request.UserAgent())
	if err != nil {
		return "", err
	}
	h.setCookie(c, token)
	// A page rendered in this same response carries the new session's
	// CSRF token.
	c.Set(ctxSession, sess)
	if next == "" {
		next = "/"
	}
	return next, nil
}

func pendingIdentity(p *sessions.PendingIdentity) identities.Identity {
	// Only provider-verified emails are ever kept pending.
	return identities.Identity{Provider: p.Provider, Subject: p.Subject, Email: p.Email, EmailVerified: true, Name: p.Name}
}

type factorData struct {
	StepUp                        bool
	HasTOTP, HasPasskey           bool
	Action, PasskeyEndpoint, Next string
}

// pendingUser returns the user waiting for their second factor, or "".
func (h *handler) pendingUser(sess *sessions.Session) string {
	if sess == nil || sess.State.PendingUserID == "" || !h.d.Sessions.PendingValid(sess.State.PendingSince) {
		return ""
	}
	return sess.State.PendingUserID
}

func (h *handler) factorData(c *gin.Context, userID string, stepUp bool) (factorData, error) {
	u, err := h.d.Users.Get(c.Request.Context(), userID)
	if err != nil {
		return factorData{}, err
	}
	d := factorData{StepUp: stepUp, HasTOTP: u.TwoFactorEnabled, Action: "/signin/second-factor", PasskeyEndpoint: "/signin/passkey"}
	if stepUp {
		d.Action, d.PasskeyEndpoint = "/reauth", "/reauth/passkey"
	}
	if h.d.Passkeys != nil {
		n, err := h.d.Passkeys.Count(c.Request.Context(), userID)
		if err != nil {
			return factorData{}, err
		}
		d.HasPasskey = n > 0
	}
	return d, nil
}

func (h *handler) secondFactorPage(c *gin.Context) {
	uid := h.pendingUser(sessionOf(c))
	if uid == "" {
		c.Redirect(http.StatusSeeOther, "/signin")
		return
	}
	d, err := h.factorData(c, uid, false)
	if err != nil {
		h.fail(c, err)
		return
	}
	h.render(c, http.StatusOK, "second_factor", view{Title: "Two-step verification", Narrow: true, Data: d})
}

func (h *handler) secondFactor(c *gin.Context) {
	ctx, ip := c.Request.Context(), c.ClientIP()
	sess := sessionOf(c)
	uid := h.pendingUser(sess)
	if uid == "" {
		c.Redirect(http.StatusSeeOther, "/signin")
		return
	}
	d, err := h.factorData(c, uid, false)
	if err != nil {
		h.fail(c, err)
		return
	}
	v := view{Title: "Two-step verification", Narrow: true, Data: d}
	// The account's second-factor count, which the password step that
	// led here does not reset.
	err = h.d.Users.GuardSecondFactor(ctx, uid, users.MethodSecondFactor, ip, func() error {
		_, err := h.d.Users.VerifySecondFactor(ctx, uid, c.PostForm("code"), "sign_in", ip)
		return err
	})
	if err != nil {
		h.formError(c, "second_factor", v, err)
		return
	}
	target, err := h.completeSignIn(c, sess, uid, sess.State.PendingMethod, true, sess.State.Next)
	if err != nil {
		h.fail(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, target)
}

// ---- passkeys at sign-in ----

func (h *handler) passkeysOn(c *gin.Context) bool {
	if h.d.Passkeys == nil {
		c.AbortWithStatusJSON(http.StatusNotFound, gin.H{"success": false, "message": "passkeys are not available on this service"})
		return false
	}
	return true
}

func (h *handler) passkeySigninOptions(c *gin.Context) {
	if !h.passkeysOn(c) {
		return
	}
	// The ceremony's challenge must be kept: this step needs a session.
	sess, err := h.ensureSession(c)
	if err != nil {
		h.fail(c, err)
		return
	}
	uid, purpose := h.pendingUser(sess), "sign_in"
	if uid != "" {
		purpose = "second_factor"
	} else {
		// A passwordless sign-in may name where to go after it (the
		// /link review it started from).
		var in struct {
			Next string `json:"next"`
		}
		_ = json.NewDecoder(io.LimitReader(c.Request.Body, 4096)).Decode(&in)
		sess.State.Next = safeNext(in.Next)
	}
	h.passkeyOptions(c, sess, uid, purpose)
}

// passkeyOptions begins a login ceremony for uid ("" = discoverable) and
// keeps its data in the session.
func (h *handler) passkeyOptions(c *gin.Context, sess *sessions.Session, uid, purpose string) {
	cer, err := h.d.Passkeys.BeginLogin(c.Request.Context(), uid)
	if err != nil {
		h.fail(c, err)
		return
	}
	sess.State.WebAuthn, sess.State.WebAuthnPurpose = cer.Session, purpose
	if err := h.d.Sessions.Save(c.Request.Context(), sess); err != nil {
		h.fail(c, err)
		return
	}
	c.Data(http.StatusOK, "application/json", cer.Options)
}

// passkeyBody reads {"credential": {...}, "name": "..."} from a script
// call.
func passkeyBody(c *gin.Context) (json.RawMessage, string, error) {
	b, err := io.ReadAll(c.Request.Body)
	if err != nil {
		return nil, "", errs.Wrap(errs.Invalid, err, "could not read the request")
	}
	var in struct {
		Credential json.RawMessage `json:"credential"`
		Name       string          `json:"name"`
	}
	if err := json.Unmarshal(b, &in); err != nil || len(in.Credential) == 0 {
		return nil, "", errs.E(errs.Invalid, "the passkey response is missing")
	}
	return in.Credential, in.Name, nil
}

// takeCeremony returns and forgets the session's ceremony of purpose, so
// a challenge answers once.
func (h *handler) takeCeremony(c *gin.Context, sess *sessions.Session, purposes ...string) (json.RawMessage, string, error) {
	if sess == nil {
		return nil, "", errs.E(errs.Invalid, "no passkey request in progress; try again").WithCode(errs.CodeNoCeremony)
	}
	raw, purpose := sess.State.WebAuthn, sess.State.WebAuthnPurpose
	ok := false
	for _, p := range purposes {
		ok = ok || p == purpose
	}
	if len(raw) == 0 || !ok {
		return nil, "", errs.E(errs.Invalid, "no passkey request in progress; try again").WithCode(errs.CodeNoCeremony)
	}
	sess.State.WebAuthn, sess.State.WebAuthnPurpose = nil, ""
	return raw, purpose, h.d.Sessions.Save(c.Request.Context(), sess)
}

func (h *handler) passkeySignin(c *gin.Context) {
	if !h.passkeysOn(c) {
		return
	}
	ctx, ip := c.Request.Context(), c.ClientIP()
	sess := sessionOf(c)
	cred, _, err := passkeyBody(c)
	if err != nil {
		h.fail(c, err)
		return
	}
	raw, purpose, err := h.takeCeremony(c, sess, "sign_in", "second_factor")
	if err != nil {
		h.fail(c, err)
		return
	}
	uid := ""
	if purpose == "second_factor" {
		if uid = h.pendingUser(sess); uid == "" {
			h.fail(c, errs.E(errs.Unauthorized, "the sign-in took too long; start again"))
			return
		}
	}
	var owner string
	finish := func() (err error) {
		owner, err = h.d.Passkeys.FinishLogin(ctx, uid, raw, cred, purpose, ip)
		return err
	}
	if uid != "" {
		// A passkey as the second factor counts with the codes.
		err = h.d.Users.GuardSecondFactor(ctx, uid, users.MethodPasskey, ip, finish)
	} else {
		err = h.d.Users.Guard(ctx, users.MethodPasskey, "", ip, finish)
	}
	if err != nil {
		h.fail(c, err)
		return
	}
	method, next := sessions.MethodPasskey, sess.State.Next
	if purpose == "second_factor" {
		method = sess.State.PendingMethod
	}
	target, err := h.completeSignIn(c, sess, owner, method, true, next)
	if err != nil {
		h.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"success": true, "redirect": target})
}

// ---- sign-up and sign-out ----

type signupData struct {
	Email, Invite      string
	Closed, InviteOnly bool
}

func (h *handler) signupData(email string, c *gin.Context) signupData {
	return signupData{Email: email, Invite: c.Query("invite"), Closed: h.cfg.Signup == users.SignupClosed,
		InviteOnly: h.cfg.Signup == users.SignupInvite}
}

func (h *handler) signupPage(c *gin.Context) {
	if userOf(c) != nil {
		c.Redirect(http.StatusSeeOther, "/")
		return
	}
	h.render(c, http.StatusOK, "signup", view{Title: "Create an account", Narrow: true, Data: h.signupData("", c)})
}

func (h *handler) signup(c *gin.Context) {
	ctx, ip := c.Request.Context(), c.ClientIP()
	email := c.PostForm("email")
	d := h.signupData(email, c)
	d.Invite = c.PostForm("invite")
	v := view{Title: "Create an account", Narrow: true, Data: d}
	// Wrong invites count like wrong passwords.
	var u users.User
	err := h.d.Users.Guard(ctx, users.MethodSignup, "", ip, func() (err error) {
		u, err = h.d.Users.SignUp(ctx, h.cfg.Signup, email, c.PostForm("password"), d.Invite, ip)
		return err
	})
	if err != nil {
		h.formError(c, "signup", v, err)
		return
	}
	target, err := h.completeSignIn(c, sessionOf(c), u.ID, sessions.MethodPassword, false, "/?done=welcome")
	if err != nil {
		h.fail(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, target)
}

func (h *handler) signout(c *gin.Context) {
	if sess := sessionOf(c); sess != nil {
		if err := h.d.Sessions.SignOut(c.Request.Context(), sess, c.ClientIP()); err != nil {
			h.fail(c, err)
			return
		}
	}
	h.clearCookie(c)
	c.Redirect(http.StatusSeeOther, "/signin?done=signed-out")
}

func (h *handler) signoutEverywhere(c *gin.Context) {
	if _, err := h.d.Sessions.SignOutEverywhere(c.Request.Context(), sessionOf(c), c.ClientIP()); err != nil {
		h.fail(c, err)
		return
	}
	h.clearCookie(c)
	c.Redirect(http.StatusSeeOther, "/signin?done=everywhere")
}

// ---- step-up (a fresh second factor for sensitive actions) ----

// needStepUp reports whether the user has a second factor and this session
// has not verified it recently.
func (h *handler) needStepUp(c *gin.Context) bool {
	u := userOf(c)
	return u != nil && u.TwoFactorEnabled && !h.d.Sessions.Fresh(sessionOf(c))
}

// fresh lets a sensitive action go ahead, or sends the user to confirm a
// second factor first (returning to back) and returns false.
func (h *handler) fresh(c *gin.Context, back string) bool {
	if !h.needStepUp(c) {
		return true
	}
	c.Redirect(http.StatusSeeOther, "/reauth?next="+url.QueryEscape(back))
	return false
}

func (h *handler) reauthPage(c *gin.Context) {
	next := safeNext(c.Query("next"))
	if next == "" {
		next = "/"
	}
	if !h.needStepUp(c) {
		c.Redirect(http.StatusSeeOther, next)
		return
	}
	d, err := h.factorData(c, userOf(c).ID, true)
	if err != nil {
		h.fail(c, err)
		return
	}
	d.Next = next
	h.render(c, http.StatusOK, "second_factor", view{Title: "Confirm it's you", Narrow: true, Data: d})
}

func (h *handler) reauth(c *gin.Context) {
	ctx, ip, u := c.Request.Context(), c.ClientIP(), userOf(c)
	next := safeNext(c.PostForm("next"))
	if next == "" {
		next = "/"
	}
	d, err := h.factorData(c, u.ID, true)
	if err != nil {
		h.fail(c, err)
		return
	}
	d.Next = next
	v := view{Title: "Confirm it's you", Narrow: true, Data: d}
	err = h.d.Users.GuardSecondFactor(ctx, u.ID, users.MethodSecondFactor, ip, func() error {
		_, err := h.d.Users.VerifySecondFactor(ctx, u.ID, c.PostForm("code"), "step_up", ip)
		return err
	})
	if err != nil {
		h.formError(c, "second_factor", v, err)
		return
	}
	if err := h.d.Sessions.MarkSecondFactor(ctx, sessionOf(c)); err != nil {
		h.fail(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, next)
}

func (h *handler) reauthPasskeyOptions(c *gin.Context) {
	if !h.passkeysOn(c) {
		return
	}
	sess := sessionOf(c)
	if ref, err := url.Parse(c.Request.Referer()); err == nil {
		sess.State.Next = safeNext(ref.Query().Get("next"))
	}
	h.passkeyOptions(c, sess, userOf(c).ID, "step_up")
}

func (h *handler) reauthPasskey(c *gin.Context) {
	if !h.passkeysOn(c) {
		return
	}
	ctx, ip, u, sess := c.Request.Context(), c.ClientIP(), userOf(c), sessionOf(c)
	cred, _, err := passkeyBody(c)
	if err != nil {
		h.fail(c, err)
		return
	}
	raw, _, err := h.takeCeremony(c, sess, "step_up")
	if err != nil {
		h.fail(c, err)
		return
	}
	err = h.d.Users.GuardSecondFactor(ctx, u.ID, users.MethodPasskey, ip, func() error {
		_, err := h.d.Passkeys.FinishLogin(ctx, u.ID, raw, cred, "step_up", ip)
		return err
	})
	if err != nil {
		h.fail(c, err)
		return
	}
	if err := h.d.Sessions.MarkSecondFactor(ctx, sess); err != nil {
		h.fail(c, err)
		return
	}
	next := sess.State.Next
	if next == "" {
		next = "/"
	}
	c.JSON(http.StatusOK, gin.H{"success": true, "redirect": next})
}
