package e2e

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/uuid"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/vault"
	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/clob"
)

// TestOrderPathRederivesRejectedCredentials: the venue stops accepting the
// wallet's stored API credentials — deleted at the venue, or credentials it
// never issued (as after a venue that lost its keys) — and the next order
// through the agent API still succeeds: the rejection invalidates the
// stored credentials and the retried placement derives them again through
// L1 auth and stores them freshly sealed.
func TestOrderPathRederivesRejectedCredentials(t *testing.T) {
	e, tr, m := newTradingTest(t, tradingOpts{}, "Will the credentials be derived again")
	ctx := context.Background()
	place := func() {
		t.Helper()
		status, body := e.call(t, tr.key, "POST", "/orders", map[string]any{"tokenId": m.TokenIDs[0], "side": "BUY", "price": 0.2, "size": 5})
		if status != http.StatusOK {
			t.Fatalf("place: %d %s", status, body)
		}
		if o := dataOrder(t, body); o.Status != models.OrderOpen {
			t.Fatalf("placed order: %+v", o)
		}
	}
	stored := func() *models.Wallet {
		t.Helper()
		w, err := e.store.WalletByUser(ctx, tr.userID)
		if err != nil {
			t.Fatal(err)
		}
		if len(w.APICredsCiphertext) == 0 {
			t.Fatal("no stored API credentials")
		}
		return w
	}
	venueAccepts := func(c clob.Creds, owner common.Address) error {
		_, err := e.svc.Wallets.CLOB.WithCreds(c, owner).GetOpenOrders(ctx, clob.OpenOrderParams{})
		return err
	}

	place() // derives the credentials on first use
	before := stored()
	owner := common.HexToAddress(before.EOAAddress)
	creds, err := e.svc.Wallets.Creds(ctx, tr.userID)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("deleted at the venue", func(t *testing.T) {
		deleteAPIKey(t, e.sb.Network().CLOBURL, creds, owner)
		if err := venueAccepts(creds, owner); !venue.Is(err, venue.Unauthorized) {
			t.Fatalf("the venue still accepts the deleted credentials: %v", err)
		}
		place()
		after := stored()
		if string(after.APICredsCiphertext) == string(before.APICredsCiphertext) {
			t.Fatal("the stored credentials were not derived again")
		}
		again, err := e.svc.Wallets.Creds(ctx, tr.userID)
		if err != nil {
			t.Fatal(err)
		}
		if err := venueAccepts(again, owner); err != nil {
			t.Fatalf("the re-derived credentials do not authenticate: %v", err)
		}
		before = after
	})

	t.Run("never issued by the venue", func(t *testing.T) {
		bogus := clob.Creds{Key: uuid.NewString(), Secret: base64.URLEncoding.EncodeToString(randomBytes(t, 32)),
			Passphrase: hex.EncodeToString(randomBytes(t, 32))}
		v, err := vault.FromMasterKey(e.master)
		if err != nil {
			t.Fatal(err)
		}
		plain, _ := json.Marshal(map[string]string{"key": bogus.Key, "secret": bogus.Secret, "passphrase": bogus.Passphrase})
		sealed, err := v.Seal(vault.VenueCreds(tr.userID, before.ID), plain)
		if err != nil {
			t.Fatal(err)
		}
		before.APICredsCiphertext, before.APICredsNonce, before.APICredsKeyVersion = sealed.Ciphertext, sealed.Nonce, sealed.KeyVersion
		if err := e.store.UpsertWallet(ctx, before); err != nil {
			t.Fatal(err)
		}
		if got, err := e.svc.Wallets.Creds(ctx, tr.userID); err != nil || got.Key != bogus.Key {
			t.Fatalf("planted credentials not in use: %v", err)
		}
		place()
		got, err := e.svc.Wallets.Creds(ctx, tr.userID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Key == bogus.Key || got.Secret == bogus.Secret {
			t.Fatal("the rejected credentials are still stored")
		}
		if err := venueAccepts(got, owner); err != nil {
			t.Fatalf("the re-derived credentials do not authenticate: %v", err)
		}
	})
}

// deleteAPIKey deletes creds at the venue (DELETE /auth/api-key, L2 auth).
func deleteAPIKey(t *testing.T, clobURL string, creds clob.Creds, owner common.Address) {
	t.Helper()
	h, err := clob.L2Headers(creds, owner, time.Now().Unix(), http.MethodDelete, "/auth/api-key", nil)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodDelete, strings.TrimSuffix(clobURL, "/")+"/auth/api-key", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("delete the API key at the venue: %d", resp.StatusCode)
	}
}

func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}
