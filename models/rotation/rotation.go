// Package rotation re-seals every stored secret under a new master key:
// `ats admin master-key rotate`.
//
// The vault is built from the new master key and the old ones
// (vault.FromMasterKeys(new, old…)), so it opens what either sealed and
// seals under the new one. Rotate walks every secret the vault seals —
// wallet private keys, venue API credentials, 2FA secrets, webhook signing
// secrets — and re-seals
// those not sealed under the new key yet. Each row is replaced only if it
// still holds the ciphertext that was read, so a secret a running process
// re-wrote meanwhile is left for the next run. Running it again is safe:
// it re-seals what is left and changes nothing else.
package rotation

import (
	"context"

	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/vault"
)

// ActionRotate is the audit action of a rotation.
const ActionRotate = "master_key.rotate"

// pageSize bounds how many rows one read holds.
const pageSize = 200

// Report counts the secrets of one run.
type Report struct {
	// Resealed counts the secrets now sealed under the new key, by kind
	// (vault binding purpose).
	Resealed map[string]int `json:"resealed"`
	// Current counts the secrets that already were.
	Current int `json:"current"`
	// Changed counts secrets a running process replaced while they were
	// being re-sealed: run the rotation again.
	Changed int `json:"changed"`
}

// Total is the number of secrets re-sealed.
func (r Report) Total() int {
	n := 0
	for _, c := range r.Resealed {
		n += c
	}
	return n
}

// Rotate re-seals every secret of st that v's current key did not seal,
// audits the run (clientAddr is who ran it) and reports it.
func Rotate(ctx context.Context, st *store.Store, v *vault.Vault, clientAddr string) (Report, error) {
	rep := Report{Resealed: map[string]int{}}
	refresh := func(c store.SealedColumns, b vault.Binding, id string, s vault.Sealed) error {
		ns, changed, err := v.Refresh(b, s)
		if err != nil {
			return errs.Wrap(errs.KindOf(err), err, "cannot open the "+b.String()+" secret with the given master keys")
		}
		if !changed {
			rep.Current++
			return nil
		}
		err = st.ReplaceSealed(ctx, c, id, s.Ciphertext, ns.Ciphertext, ns.Nonce, ns.KeyVersion)
		switch {
		case errs.Is(err, errs.Conflict):
			rep.Changed++
		case err != nil:
			return err
		default:
			rep.Resealed[b.Purpose]++
		}
		return nil
	}
	for after := ""; ; {
		ws, err := st.WalletsAfter(ctx, after, pageSize)
		if err != nil {
			return rep, err
		}
		for _, w := range ws {
			if err := refresh(store.WalletKeyColumns, vault.WalletKey(w.UserID, w.ID), w.ID,
				vault.Sealed{Ciphertext: w.KeyCiphertext, Nonce: w.KeyNonce, KeyVersion: w.KeyVersion}); err != nil {
				return rep, err
			}
			if len(w.APICredsCiphertext) > 0 {
				if err := refresh(store.VenueCredsColumns, vault.VenueCreds(w.UserID, w.ID), w.ID,
					vault.Sealed{Ciphertext: w.APICredsCiphertext, Nonce: w.APICredsNonce, KeyVersion: w.APICredsKeyVersion}); err != nil {
					return rep, err
				}
			}
			after = w.ID
		}
		if len(ws) < pageSize {
			break
		}
	}
	for after := ""; ; {
		us, err := st.UsersWithTOTPAfter(ctx, after, pageSize)
		if err != nil {
			return rep, err
		}
		for _, u := range us {
			if err := refresh(store.TOTPSecretColumns, vault.TOTPSecret(u.ID), u.ID,
				vault.Sealed{Ciphertext: u.TOTPSecretCiphertext, Nonce: u.TOTPSecretNonce, KeyVersion: u.TOTPKeyVersion}); err != nil {
				return rep, err
			}
			after = u.ID
		}
		if len(us) < pageSize {
			break
		}
	}
	for after := ""; ; {
		ns, err := st.NotificationSettingsWithSecretAfter(ctx, after, pageSize)
		if err != nil {
			return rep, err
		}
		for _, n := range ns {
			if err := refresh(store.WebhookSecretColumns, vault.WebhookSecret(n.UserID), n.UserID,
				vault.Sealed{Ciphertext: n.WebhookSecretCiphertext, Nonce: n.WebhookSecretNonce, KeyVersion: n.WebhookSecretKeyVersion}); err != nil {
				return rep, err
			}
			after = n.UserID
		}
		if len(ns) < pageSize {
			break
		}
	}
	err := audit.Append(ctx, st, audit.Entry{Action: ActionRotate, Target: "master-key", Result: audit.Success, ClientAddr: clientAddr,
		Detail: map[string]any{"resealed": rep.Resealed, "current": rep.Current, "changed": rep.Changed}})
	return rep, err
}
