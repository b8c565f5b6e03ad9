package dashboard

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/identities"
	"github.com/agent-trading/ats/models/passkeys"
	"github.com/agent-trading/ats/models/sessions"
	"github.com/agent-trading/ats/models/users"
)

type securityData struct {
	// NeedStepUp: adding a passkey or linking an identity (ways into the
	// account) first wants a fresh second factor.
	NeedStepUp  bool
	HasPassword bool
	BackupLeft  int64
	Passkeys    []passkeys.Passkey
	Identities  []identities.LinkedIdentity
	Sessions    []sessions.Info
}

func (h *handler) securityData(c *gin.Context) (securityData, error) {
	ctx, u := c.Request.Context(), userOf(c)
	d := securityData{NeedStepUp: h.needStepUp(c)}
	var err error
	if d.HasPassword, err = h.d.Users.HasPassword(ctx, u.ID); err != nil {
		return d, err
	}
	if u.TwoFactorEnabled {
		if d.BackupLeft, err = h.d.Users.UnusedBackupCodes(ctx, u.ID); err != nil {
			return d, err
		}
	}
	if h.d.Passkeys != nil {
		if d.Passkeys, err = h.d.Passkeys.List(ctx, u.ID); err != nil {
			return d, err
		}
	}
	if h.d.Identities != nil {
		if d.Identities, err = h.d.Identities.List(ctx, u.ID); err != nil {
			return d, err
		}
	}
	d.Sessions, err = h.d.Sessions.List(ctx, u.ID, sessionOf(c).ID)
	return d, err
}

func (h *handler) securityPage(c *gin.Context) {
	h.securityResult(c, nil)
}

// securityResult renders the security page, with err's message when a
// form failed.
func (h *handler) securityResult(c *gin.Context, ferr error) {
	d, err := h.securityData(c)
	if err != nil {
		h.fail(c, err)
		return
	}
	v := view{Title: "Security", Nav: "security", Data: d}
	if ferr != nil {
		h.formError(c, "security", v, ferr)
		return
	}
	h.render(c, http.StatusOK, "security", v)
}

func (h *handler) changePassword(c *gin.Context) {
	ctx, u, ip := c.Request.Context(), userOf(c), c.ClientIP()
	err := h.d.Users.Guard(ctx, users.MethodPasswordChange, u.Email, ip, func() error {
		return h.d.Users.ChangePassword(ctx, u.ID, c.PostForm("current"), c.PostForm("new"), ip)
	})
	if err != nil {
		h.securityResult(c, err)
		return
	}
	if _, err := h.d.Sessions.EndOthers(ctx, u.ID, sessionOf(c).ID); err != nil {
		h.fail(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/security?done=password")
}

// ---- TOTP ----

func (h *handler) totpBegin(c *gin.Context) {
	if _, err := h.d.Users.BeginTOTP(c.Request.Context(), userOf(c).ID); err != nil {
		h.securityResult(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/security/2fa")
}

func (h *handler) totpPage(c *gin.Context) {
	h.totpRender(c, nil)
}

func (h *handler) totpRender(c *gin.Context, ferr error) {
	e, err := h.d.Users.PendingTOTP(c.Request.Context(), userOf(c).ID)
	if errs.Is(err, errs.NotFound) {
		c.Redirect(http.StatusSeeOther, "/security")
		return
	}
	if err != nil {
		h.fail(c, err)
		return
	}
	v := view{Title: "Set up an authenticator app", Nav: "security", Narrow: true, Data: map[string]string{"Secret": e.Secret}}
	if ferr != nil {
		h.formError(c, "totp_setup", v, ferr)
		return
	}
	h.render(c, http.StatusOK, "totp_setup", v)
}

func (h *handler) totpQR(c *gin.Context) {
	e, err := h.d.Users.PendingTOTP(c.Request.Context(), userOf(c).ID)
	if err != nil {
		c.Status(http.StatusNotFound)
		return
	}
	png, err := users.QRCodePNG(e, 200)
	if err != nil {
		h.fail(c, err)
		return
	}
	c.Data(http.StatusOK, "image/png", png)
}

func (h *handler) totpConfirm(c *gin.Context) {
	ctx, u := c.Request.Context(), userOf(c)
	codes, err := h.d.Users.ConfirmTOTP(ctx, u.ID, c.PostForm("code"), c.ClientIP())
	if err != nil {
		h.totpRender(c, err)
		return
	}
	// Enrolling proved the factor just now.
	if err := h.d.Sessions.MarkSecondFactor(ctx, sessionOf(c)); err != nil {
		h.fail(c, err)
		return
	}
	u.TwoFactorEnabled = true
	h.render(c, http.StatusOK, "backup_codes", view{Title: "Backup codes", Nav: "security", Narrow: true,
		Flash: notices["2fa-on"], Data: map[string]any{"Codes": codes}})
}

func (h *handler) totpDisable(c *gin.Context) {
	if !h.fresh(c, "/security") {
		return
	}
	if err := h.d.Users.DisableTOTP(c.Request.Context(), userOf(c).ID, c.ClientIP()); err != nil {
		h.securityResult(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/security?done=2fa-off")
}

func (h *handler) backupCodes(c *gin.Context) {
	if !h.fresh(c, "/security") {
		return
	}
	codes, err := h.d.Users.RegenerateBackupCodes(c.Request.Context(), userOf(c).ID, c.ClientIP())
	if err != nil {
		h.securityResult(c, err)
		return
	}
	h.render(c, http.StatusOK, "backup_codes", view{Title: "Backup codes", Nav: "security", Narrow: true, Data: map[string]any{"Codes": codes}})
}

// ---- passkeys ----

func (h *handler) passkeyRegisterOptions(c *gin.Context) {
	if !h.passkeysOn(c) {
		return
	}
	if h.needStepUp(c) {
		h.fail(c, errs.E(errs.Forbidden, "confirm it's you first: reload the page and use “Confirm it's you”").WithCode(errs.CodeStepUpRequired))
		return
	}
	sess := sessionOf(c)
	cer, err := h.d.Passkeys.BeginRegistration(c.Request.Context(), userOf(c).ID)
	if err != nil {
		h.fail(c, err)
		return
	}
	sess.State.WebAuthn, sess.State.WebAuthnPurpose = cer.Session, "register"
	if err := h.d.Sessions.Save(c.Request.Context(), sess); err != nil {
		h.fail(c, err)
		return
	}
	c.Data(http.StatusOK, "application/json", cer.Options)
}

func (h *handler) passkeyRegister(c *gin.Context) {
	if !h.passkeysOn(c) {
		return
	}
	cred, name, err := passkeyBody(c)
	if err != nil {
		h.fail(c, err)
		return
	}
	raw, _, err := h.takeCeremony(c, sessionOf(c), "register")
	if err != nil {
		h.fail(c, err)
		return
	}
	if _, err := h.d.Passkeys.FinishRegistration(c.Request.Context(), userOf(c).ID, name, raw, cred, c.ClientIP()); err != nil {
		h.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"success": true, "redirect": "/security?done=passkey"})
}

func (h *handler) passkeyRename(c *gin.Context) {
	if !h.passkeysOn(c) {
		return
	}
	if err := h.d.Passkeys.Rename(c.Request.Context(), userOf(c).ID, c.Param("id"), c.PostForm("name"), c.ClientIP()); err != nil {
		h.securityResult(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/security?done=passkey-name")
}

func (h *handler) passkeyDelete(c *gin.Context) {
	if !h.passkeysOn(c) || !h.fresh(c, "/security") {
		return
	}
	if err := h.d.Passkeys.Remove(c.Request.Context(), userOf(c).ID, c.Param("id"), c.ClientIP()); err != nil {
		h.securityResult(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/security?done=passkey-gone")
}

// ---- identities and sessions ----

func (h *handler) identityUnlink(c *gin.Context) {
	if h.d.Identities == nil {
		h.fail(c, errs.E(errs.NotFound, "no sign-in providers are configured"))
		return
	}
	if err := h.d.Identities.Unlink(c.Request.Context(), userOf(c).ID, c.Param("id"), c.ClientIP()); err != nil {
		h.securityResult(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/security?done=unlinked")
}

func (h *handler) sessionRevoke(c *gin.Context) {
	if err := h.d.Sessions.Revoke(c.Request.Context(), userOf(c).ID, c.Param("id"), c.ClientIP()); err != nil {
		h.securityResult(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/security?done=session-gone")
}
