package dashboard

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/identities"
	"github.com/agent-trading/ats/models/sessions"
)

func (h *handler) oidcOn(c *gin.Context) bool {
	if h.d.Identities == nil || len(h.d.Identities.Providers()) == 0 {
		h.fail(c, errs.E(errs.NotFound, "no sign-in providers are configured on this service"))
		return false
	}
	return true
}

// oidcStart sends the browser to the provider, remembering state, nonce
// and the PKCE verifier in the session. With link=1 a signed-in user links
// an identity instead of signing in.
func (h *handler) oidcStart(c *gin.Context) {
	if !h.oidcOn(c) {
		return
	}
	link := c.PostForm("link") == "1" && userOf(c) != nil
	if link && !h.fresh(c, "/security") {
		return
	}
	u, st, err := h.d.Identities.Start(c.Request.Context(), c.Param("provider"), link, h.d.Sessions.Clock())
	if err != nil {
		h.fail(c, err)
		return
	}
	// The round trip's state, nonce and verifier must be kept: this step
	// needs a session.
	sess, err := h.ensureSession(c)
	if err != nil {
		h.fail(c, err)
		return
	}
	sess.State.OIDC = &st
	// Where a sign-in returns to (the /link review it started from).
	sess.State.Next = ""
	if !link {
		sess.State.Next = safeNext(c.PostForm("next"))
	}
	if err := h.d.Sessions.Save(c.Request.Context(), sess); err != nil {
		h.fail(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, u)
}

func (h *handler) oidcCallback(c *gin.Context) {
	if !h.oidcOn(c) {
		return
	}
	ctx, ip := c.Request.Context(), c.ClientIP()
	sess := sessionOf(c)
	var st *sessions.OIDCState
	if sess != nil {
		st, sess.State.OIDC = sess.State.OIDC, nil // one use
		if st != nil {
			if err := h.d.Sessions.Save(ctx, sess); err != nil {
				h.fail(c, err)
				return
			}
			if !h.d.Sessions.PendingValid(st.Started) {
				st = nil
			}
		}
	}
	name := c.Param("provider")
	id, err := h.d.Identities.Finish(ctx, st, name, c.Query("state"), c.Query("code"), c.Query("error"), ip)
	if err != nil {
		h.fail(c, err)
		return
	}
	if st.Link {
		u := userOf(c)
		if u == nil {
			h.fail(c, errs.E(errs.Unauthorized, "sign in first, then link the identity"))
			return
		}
		if err := h.d.Identities.Link(ctx, u.ID, id, false, ip); err != nil {
			h.fail(c, err)
			return
		}
		c.Redirect(http.StatusSeeOther, "/security?done=linked")
		return
	}
	outcome, userID, err := h.d.Identities.Resolve(ctx, id)
	if err != nil {
		h.fail(c, err)
		return
	}
	switch outcome {
	case identities.Linked:
		if err := h.d.Identities.RecordSignIn(ctx, userID, name, ip); err != nil {
			h.fail(c, err)
			return
		}
		u, err := h.d.Users.Get(ctx, userID)
		if err != nil {
			h.fail(c, err)
			return
		}
		method := sessions.MethodOIDC + ":" + name
		if u.TwoFactorEnabled {
			h.beginSecondFactor(c, sess, u.ID, method, sess.State.Next)
			return
		}
		target, err := h.completeSignIn(c, sess, u.ID, method, false, sess.State.Next)
		if err != nil {
			h.fail(c, err)
			return
		}
		c.Redirect(http.StatusSeeOther, target)
	default:
		sess.State.Identity = &sessions.PendingIdentity{Provider: id.Provider, Subject: id.Subject, Email: id.Email,
			Name: id.Name, Since: h.d.Sessions.Clock()}
		if err := h.d.Sessions.Save(ctx, sess); err != nil {
			h.fail(c, err)
			return
		}
		c.Redirect(http.StatusSeeOther, "/auth/identity")
	}
}

type identityData struct {
	Provider, Email string
	Create          bool
}

// pendingIdentityOf returns the identity waiting for a decision, or nil.
func (h *handler) pendingIdentityOf(c *gin.Context) *sessions.PendingIdentity {
	sess := sessionOf(c)
	if sess == nil || sess.State.Identity == nil || !h.d.Sessions.PendingValid(sess.State.Identity.Since) {
		return nil
	}
	return sess.State.Identity
}

func (h *handler) identityPage(c *gin.Context) {
	p := h.pendingIdentityOf(c)
	if p == nil || h.d.Identities == nil {
		c.Redirect(http.StatusSeeOther, "/signin")
		return
	}
	outcome, _, err := h.d.Identities.Resolve(c.Request.Context(), pendingIdentity(p))
	if err != nil {
		h.fail(c, err)
		return
	}
	if outcome == identities.Linked {
		// Linked meanwhile (another tab): sign in normally.
		c.Redirect(http.StatusSeeOther, "/signin")
		return
	}
	h.render(c, http.StatusOK, "identity", view{Title: "Confirm", Narrow: true,
		Data: identityData{Provider: p.Provider, Email: p.Email, Create: outcome == identities.CreateAccount}})
}

func (h *handler) identityDecide(c *gin.Context) {
	ctx, sess := c.Request.Context(), sessionOf(c)
	p := h.pendingIdentityOf(c)
	if sess == nil {
		c.Redirect(http.StatusSeeOther, "/signin")
		return
	}
	if p == nil || c.PostForm("action") != "create" {
		sess.State.Identity = nil
		if err := h.d.Sessions.Save(ctx, sess); err != nil {
			h.fail(c, err)
			return
		}
		c.Redirect(http.StatusSeeOther, "/signin")
		return
	}
	id := pendingIdentity(p)
	uid, err := h.d.Identities.CreateAccount(ctx, h.cfg.Signup, id, c.ClientIP())
	if err != nil {
		h.fail(c, err)
		return
	}
	sess.State.Identity = nil // created with the identity: nothing left to link
	target, err := h.completeSignIn(c, sess, uid, sessions.MethodOIDC+":"+id.Provider, false, "/?done=welcome")
	if err != nil {
		h.fail(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, target)
}
