// Package intent lets the authenticated paths vouch for what they hand to
// Temporal.
//
// Nothing that arrives through Temporal — a workflow input, an update, a
// signal — may decide who is authorised: anyone who reaches the Temporal
// frontend can send those. So a request that acts for a user (approve a
// device link for them, cancel their order, spend their wallet's gas) is
// sent with a proof: an HMAC-SHA256, under a key derived from the master key
// for this purpose alone, over the kind of action and exactly the fields it
// acts on (link id and user id, order id, user and agent and token…). Only
// our own processes hold the key, and they make a proof only on the
// authenticated path (the /link page after the password check, the admin
// commands, an agent's request after its key was checked). The activity
// that performs the action verifies the proof before it does anything.
//
// A proof names its action completely, so sent again it can only repeat
// the action it was made for. The actions that can be undone — a
// strategy's pause, resume, patch, extend — are bound to the strategy's
// version, which every change moves, so each applies at most once; the
// others are idempotent or final (a link is decided once, an order
// cancelled once, approvals granted are skipped, a redemption finds
// nothing left). A proof is not a secret, and it is not a credential for
// anything else.
//
// The same keys sign one token that never reaches Temporal: the /link
// confirmation page's (DeviceReview), which ties a decision to the page
// that showed the link.
package intent

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/vault"
)

// Kinds of vouched actions. Each kind is one action; a proof for one never
// verifies as another. Never reuse a kind string for a different meaning.
const (
	// DeviceApprove: fields link id, user id, client address.
	DeviceApprove = "device-link/approve"
	// DeviceDeny: fields link id, user id, client address.
	DeviceDeny = "device-link/deny"
	// OrderCancel: field order id.
	OrderCancel = "order/cancel"
	// WalletApprove: fields user id, agent id, token, client address.
	WalletApprove = "settlement/approve"
	// Redeem: fields user id, agent id, condition id, client address.
	Redeem = "settlement/redeem"
	// Strategy changes: fields strategy id, who (agent or user), the
	// strategy's version the change was made for, the client address, and
	// the change's own payload (canonical JSON; empty for pause, resume
	// and cancel): strategies.Change.ProofFields. Made by
	// models/strategies.Service after it checked the strategy is the
	// agent's or the user's; verified by the activity that applies the
	// change, which applies it only to that version (so a change taken
	// from the workflow's history cannot be applied again).
	StrategyPause  = "strategy/pause"
	StrategyResume = "strategy/resume"
	StrategyCancel = "strategy/cancel"
	StrategyPatch  = "strategy/patch"
	StrategyExtend = "strategy/extend"
	// DeviceReview: fields link id, user code. Not a Temporal input: the
	// /link confirmation page's token, so that a decision can only follow
	// the page that showed the link (agents.Service.ReviewDevice).
	DeviceReview = "device-link/review"
)

// Keys makes proofs with the current master key's intent key and verifies
// them with it or a previous one (a rotation must not fail the requests in
// flight while processes restart).
type Keys struct {
	keys [][]byte // current first
}

// FromMaster derives the intent keys from the current master key and any
// previous ones.
func FromMaster(master []byte, previous ...[]byte) (*Keys, error) {
	k := &Keys{}
	for _, m := range append([][]byte{master}, previous...) {
		if len(m) != vault.KeySize {
			return nil, errs.Ef(errs.Invalid, "a master key must be %d bytes", vault.KeySize)
		}
		k.keys = append(k.keys, vault.DeriveKey(m, vault.PurposeTemporalIntents))
	}
	return k, nil
}

// Sign returns the proof for the action kind on fields.
func (k *Keys) Sign(kind string, fields ...string) string {
	return base64.RawURLEncoding.EncodeToString(mac(k.keys[0], kind, fields))
}

// Verify checks proof for the action kind on fields. A missing, malformed
// or wrong proof is errs.Forbidden with code errs.CodeUnvouchedRequest; so is a nil
// *Keys (a process wired without the key refuses rather than trusts).
func (k *Keys) Verify(proof, kind string, fields ...string) error {
	refused := errs.E(errs.Forbidden, "the request was not made through an authenticated path").WithCode(errs.CodeUnvouchedRequest)
	if k == nil || proof == "" {
		return refused
	}
	got, err := base64.RawURLEncoding.DecodeString(proof)
	if err != nil || len(got) != sha256.Size {
		return refused
	}
	for _, key := range k.keys {
		if hmac.Equal(got, mac(key, kind, fields)) {
			return nil
		}
	}
	return refused
}

// mac is HMAC-SHA256 over the kind and the fields, each length-prefixed so
// that no choice of field values makes two different requests collide.
func mac(key []byte, kind string, fields []string) []byte {
	h := hmac.New(sha256.New, key)
	var n [4]byte
	for _, p := range append([]string{"ats-intent/v1", kind}, fields...) {
		binary.BigEndian.PutUint32(n[:], uint32(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
	}
	return h.Sum(nil)
}
