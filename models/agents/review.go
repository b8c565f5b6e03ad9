package agents

import (
	"context"
	"crypto/rand"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/intent"
	"github.com/agent-trading/ats/models/throttle"
	"github.com/agent-trading/ats/models/vault"
)

// ScopeDescriptions say what each scope lets an agent do, as the
// confirmation page lists them.
var ScopeDescriptions = map[string]string{
	ScopeRead:   "read markets, your balance and budget, and its own orders and positions",
	ScopeTrade:  "place orders with your wallet's funds, within its budget",
	ScopeCancel: "cancel its own orders",
	ScopeRedeem: "redeem resolved markets into your wallet",
}

// LinkReview is what the user is shown about a pending link before
// deciding it (RFC 8628 section 5.4): which agent asks, when, from which
// client address, and the access it would get.
type LinkReview struct {
	LinkID      string
	UserCode    string
	AgentName   string
	RequestedAt time.Time
	// RequestAddr is the address that asked for the code ("" for links
	// older than its recording).
	RequestAddr string
	Scopes      []string
	ExpiresAt   time.Time
	// Confirm goes back with the decision (Confirmed): it can only be had
	// from this review, so a decision always follows the page that showed
	// it.
	Confirm string
}

// ReviewDevice finds the pending link of a typed user code for the
// confirmation page. Anyone holding the code may see it: the code is what
// the agent showed its user. Unknown codes count as wrong guesses against
// clientAddr (too_many_attempts once exhausted); an expired or used code
// is Conflict.
func (s *Service) ReviewDevice(ctx context.Context, userCode, clientAddr string) (LinkReview, error) {
	keys := []string{throttle.AddrKey(clientAddr)}
	lim := s.codeGuesses()
	if err := lim.Check(ctx, keys...); err != nil {
		return LinkReview{}, err
	}
	code, ok := NormalizeUserCode(userCode)
	if !ok {
		return LinkReview{}, errBadUserCode // not a code at all: no guess
	}
	l, err := s.Store.DeviceLinkByUserCode(ctx, code)
	if errs.Is(err, errs.NotFound) {
		if ferr := lim.Fail(ctx, keys...); ferr != nil {
			return LinkReview{}, ferr
		}
		return LinkReview{}, errBadUserCode
	}
	if err != nil {
		return LinkReview{}, err
	}
	if err := linkStateErr(l, s.now()); err != nil {
		return LinkReview{}, err
	}
	return LinkReview{
		LinkID: l.ID, UserCode: l.UserCode, AgentName: l.AgentName, RequestedAt: l.CreatedAt.UTC(),
		RequestAddr: l.RequestAddr, Scopes: AllScopes, ExpiresAt: l.ExpiresAt.UTC(), Confirm: s.confirmToken(l),
	}, nil
}

// Confirmed checks that a decision about the link of userCode carries the
// Confirm of its review; otherwise it is errs.Invalid (review_required).
// It says nothing about who decides: the caller authenticates the user.
func (s *Service) Confirmed(ctx context.Context, userCode, confirm string) error {
	refused := errs.E(errs.Invalid, "review the request on the link page before approving or denying it").WithCode(errs.CodeReviewRequired)
	if confirm == "" {
		return refused
	}
	l, err := s.linkByCode(ctx, userCode)
	if errs.Is(err, errs.NotFound) {
		return refused
	}
	if err != nil {
		return err
	}
	s.init()
	if s.Intents.Verify(confirm, intent.DeviceReview, l.ID, l.UserCode) != nil {
		return refused
	}
	return nil
}

// linkByCode finds the link of a typed code; a code that cannot be one is
// NotFound.
func (s *Service) linkByCode(ctx context.Context, userCode string) (*models.DeviceLink, error) {
	code, ok := NormalizeUserCode(userCode)
	if !ok {
		return nil, errs.E(errs.NotFound, "device link not found")
	}
	return s.Store.DeviceLinkByUserCode(ctx, code)
}

// confirmToken binds a review to its link: link ids are never reused, and
// a link is decided once, so the token needs no expiry of its own.
func (s *Service) confirmToken(l *models.DeviceLink) string {
	s.init()
	return s.Intents.Sign(intent.DeviceReview, l.ID, l.UserCode)
}

// randomIntents are intent keys of a random master key, for a process
// without configured Intents: its reviews then confirm only in this
// process.
func randomIntents() *intent.Keys {
	k := make([]byte, vault.KeySize)
	if _, err := rand.Read(k); err != nil {
		panic("agents: random source failed: " + err.Error())
	}
	keys, err := intent.FromMaster(k)
	if err != nil {
		panic("agents: " + err.Error())
	}
	return keys
}
