package notify_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/notify"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/vault"
)

func service(t *testing.T, s *store.Store) *notify.Service {
	t.Helper()
	key := make([]byte, vault.KeySize)
	_, _ = rand.Read(key)
	v, err := vault.FromMasterKey(key)
	require.NoError(t, err)
	n := &notify.Service{Store: s, Vault: v, Audit: &audit.Service{Store: s}, PublicURL: "https://ats.example"}
	s.OnEvent(n.Event)
	return n
}

func user(t *testing.T, s *store.Store) string {
	t.Helper()
	u := &models.User{Email: models.NewID("u") + "@example.com", PasswordHash: "x"}
	require.NoError(t, s.CreateUser(context.Background(), u))
	return u.ID
}

// receiver is a webhook endpoint answering status, recording posts.
type receiver struct {
	mu     sync.Mutex
	status int
	posts  []*http.Request
	bodies [][]byte
	srv    *httptest.Server
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{status: http.StatusOK}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.posts, r.bodies = append(r.posts, req), append(r.bodies, b)
		st := r.status
		r.mu.Unlock()
		w.WriteHeader(st)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) count() int { r.mu.Lock(); defer r.mu.Unlock(); return len(r.posts) }

func TestSettings(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		n := service(t, s)
		uid := user(t, s)
		st, err := n.Settings(ctx, uid)
		require.NoError(t, err)
		assert.Len(t, st.Kinds, len(notify.Kinds), "every kind by default")
		assert.Empty(t, st.WebhookURL)

		_, err = n.Save(ctx, uid, []string{"fill", "weather"}, "", false, "1.2.3.4")
		assert.Equal(t, errs.Invalid, errs.KindOf(err), "an unknown kind")
		for _, bad := range []string{"http://hooks.example.com/x", "https://127.0.0.1/x", "https://localhost/x", "https://10.1.2.3/x",
			"https://user:pw@hooks.example.com/x", "ftp://hooks.example.com", "hooks.example.com/x", "https://[::1]/x", "https://169.254.169.254/latest"} {
			_, err = n.Save(ctx, uid, nil, bad, false, "")
			assert.Equal(t, errs.CodeInvalidWebhookURL, errs.CodeOf(err), bad)
		}
		st, err = n.Save(ctx, uid, []string{"fill", "sign_in"}, "https://hooks.example.com/ats", false, "1.2.3.4")
		require.NoError(t, err)
		assert.Equal(t, map[string]bool{"fill": true, "sign_in": true}, st.Kinds)
		assert.Regexp(t, `^whsec_[A-Za-z0-9_-]{40,}$`, st.Secret)
		again, err := n.Save(ctx, uid, []string{"fill"}, "https://hooks.example.com/other", false, "")
		require.NoError(t, err)
		assert.Equal(t, st.Secret, again.Secret, "a changed URL keeps its secret")
		rotated, err := n.Save(ctx, uid, []string{"fill"}, "https://hooks.example.com/other", true, "")
		require.NoError(t, err)
		assert.NotEqual(t, st.Secret, rotated.Secret)
		row, err := s.NotificationSettingsOf(ctx, uid)
		require.NoError(t, err)
		assert.NotContains(t, string(row.WebhookSecretCiphertext), rotated.Secret, "sealed at rest")
		none, err := n.Save(ctx, uid, nil, "", false, "")
		require.NoError(t, err)
		assert.Empty(t, none.Secret, "no webhook, no secret")
		assert.Empty(t, none.Kinds)

		entries, _, err := s.ListAudit(ctx, store.AuditFilter{UserID: uid, Action: notify.ActionSettings})
		require.NoError(t, err)
		assert.Len(t, entries, 4)
		assert.Contains(t, entries[len(entries)-1].Detail, `"kinds":["fill","sign_in"]`)

		private := &notify.Service{Store: s, Vault: n.Vault, Audit: n.Audit, Delivery: notify.Delivery{AllowPrivate: true}}
		_, err = private.Save(ctx, uid, nil, "http://127.0.0.1:9/x", false, "")
		assert.NoError(t, err, "the operator allows private receivers")
	})
}

// fill records an order of userID and one fill of it, through the event
// hook, and returns the order.
func fill(t *testing.T, s *store.Store, userID string) *models.Order {
	t.Helper()
	ctx := context.Background()
	a := &models.Agent{UserID: userID, Name: "research-agent"}
	require.NoError(t, s.CreateAgent(ctx, a))
	o := &models.Order{AgentID: a.ID, UserID: userID, WalletID: "wal_1", TokenID: "1", Side: "BUY", Type: "GTC",
		MarketQuestion: "Will it ship?", Outcome: "Yes", PriceMicro: 410_000, SizeMicro: 2_000_000}
	require.NoError(t, s.CreateOrder(ctx, o))
	_, err := s.AddFill(ctx, &models.Fill{OrderID: o.ID, VenueTradeID: "t-" + o.ID, PriceMicro: 405_000, SizeMicro: 2_000_000,
		FeeMicro: 10_000, TxHash: "0xfeed"})
	require.NoError(t, err)
	return o
}

// TestNotificationsFromTheirCauses: a fill, a strategy's error, a sign-in
// and an agent's link each write the notification the user chose, in
// their own transaction; a kind the user turned off writes none; with a
// webhook the notification waits for its delivery.
func TestNotificationsFromTheirCauses(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		n := service(t, s)
		uid := user(t, s)
		o := fill(t, s, uid)
		list, unread, err := n.List(ctx, uid, 10)
		require.NoError(t, err)
		require.Len(t, list, 1)
		assert.EqualValues(t, 1, unread)
		assert.Equal(t, "Bought 2 Yes at 40.5¢", list[0].Title)
		assert.Equal(t, "research-agent bought 2 Yes at 40.5¢ in “Will it ship?”.", list[0].Body)
		assert.Equal(t, "/orders/"+o.ID, list[0].Link)
		assert.Equal(t, models.WebhookNone, list[0].Webhook, "no webhook set")

		_, err = n.Save(ctx, uid, []string{models.NotifySignIn, models.NotifyStrategyError, models.NotifyAgentLinked}, "https://hooks.example.com/x", false, "")
		require.NoError(t, err)
		fill(t, s, uid)
		require.NoError(t, s.Tx(ctx, func(tx *store.Store) error {
			e := &models.AgentEvent{AgentID: o.AgentID, UserID: uid, Type: models.EventStrategyError, StrategyID: "str_1",
				StrategyType: models.StrategyPriceAlert, Summary: "paused after 3 failed executions", Details: `{"lastError":"venue down","failures":3}`}
			return tx.AppendEvent(ctx, e)
		}))
		require.NoError(t, s.Tx(ctx, func(tx *store.Store) error {
			return n.SignedIn(ctx, tx, uid, "password", "203.0.113.9", "Chrome on Linux")
		}))
		require.NoError(t, s.Tx(ctx, func(tx *store.Store) error {
			return n.AgentLinked(ctx, tx, &models.Agent{ID: "agt_x", UserID: uid, Name: "night-bot"})
		}))
		// A rolled-back sign-in tells nothing.
		_ = s.Tx(ctx, func(tx *store.Store) error {
			require.NoError(t, n.SignedIn(ctx, tx, uid, "passkey", "203.0.113.10", ""))
			return errs.E(errs.Conflict, "roll back")
		})
		list, unread, err = n.List(ctx, uid, 10)
		require.NoError(t, err)
		var kinds []string
		for _, it := range list {
			kinds = append(kinds, it.Kind)
			if it.Kind != models.NotifyFill {
				assert.Equal(t, models.WebhookPending, it.Webhook, it.Kind)
			}
		}
		assert.Equal(t, []string{models.NotifyAgentLinked, models.NotifySignIn, models.NotifyStrategyError, models.NotifyFill}, kinds,
			"the second fill, with fills turned off, tells nothing")
		assert.EqualValues(t, 4, unread)
		assert.Contains(t, list[1].Body, "Signed in with a password from 203.0.113.9 (Chrome on Linux)")
		assert.Contains(t, list[2].Body, "research-agent's price alert: paused after 3 failed executions")
		pending, err := n.Pending(ctx, 10)
		require.NoError(t, err)
		assert.Len(t, pending, 3)

		require.NoError(t, n.MarkRead(ctx, uid, time.Now().Add(time.Minute)))
		_, unread, err = n.List(ctx, uid, 10)
		require.NoError(t, err)
		assert.Zero(t, unread)
	})
}

// TestDeliver: a delivery posts the notification signed, logs every
// attempt, retries what is worth retrying, ends refused or exhausted ones
// as failed, and never posts a delivered one again; without the
// operator's leave, it never connects to a private address, whatever the
// stored URL says.
func TestDeliver(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		n := service(t, s)
		n.Delivery.AllowPrivate = true
		rcv := newReceiver(t)
		uid := user(t, s)
		st, err := n.Save(ctx, uid, []string{models.NotifyFill}, rcv.srv.URL+"/hook", false, "")
		require.NoError(t, err)
		o := fill(t, s, uid)
		ids, err := n.Pending(ctx, 10)
		require.NoError(t, err)
		require.Len(t, ids, 1)
		id := ids[0]
		require.NoError(t, n.Started(ctx, id))

		rcv.status = http.StatusInternalServerError
		out, err := n.Deliver(ctx, id, 1)
		assert.Equal(t, errs.Transient, errs.KindOf(err), "a 500 is retried")
		assert.False(t, out.Final)
		rcv.status = http.StatusOK
		out, err = n.Deliver(ctx, id, 2)
		require.NoError(t, err)
		assert.True(t, out.Delivered && out.Final)
		out, err = n.Deliver(ctx, id, 3)
		require.NoError(t, err)
		assert.True(t, out.Delivered)
		require.Equal(t, 2, rcv.count(), "a delivered notification is not posted again")

		req, body := rcv.posts[1], rcv.bodies[1]
		assert.Equal(t, "fill", req.Header.Get("X-ATS-Event"))
		assert.Equal(t, id, req.Header.Get("X-ATS-Delivery"))
		require.NoError(t, notify.Verify(st.Secret, req.Header.Get("X-ATS-Signature"), body, time.Now(), time.Minute))
		assert.Error(t, notify.Verify(st.Secret, req.Header.Get("X-ATS-Signature"), append(body, ' '), time.Now(), time.Minute), "a changed body")
		assert.Error(t, notify.Verify(st.Secret, req.Header.Get("X-ATS-Signature"), body, time.Now().Add(10*time.Minute), time.Minute), "a stale post")
		var p notify.Payload
		require.NoError(t, json.Unmarshal(body, &p))
		assert.Equal(t, "fill", p.Type)
		assert.Equal(t, "https://ats.example/orders/"+o.ID, p.URL)
		assert.Equal(t, o.ID, p.Data["orderId"])
		assert.Equal(t, "0.405", p.Data["price"])
		assert.Equal(t, "0xfeed", p.Data["txHash"])
		assert.Contains(t, p.Text, "Bought 2 Yes at 40.5¢")

		log, err := n.Deliveries(ctx, uid, 10)
		require.NoError(t, err)
		require.Len(t, log, 2)
		assert.Equal(t, 200, log[0].StatusCode)
		assert.Equal(t, 500, log[1].StatusCode)
		assert.Equal(t, "the receiver answered HTTP 500", log[1].Error)

		// A receiver that refuses the post for good, and one down to the
		// last attempt: failed, not retried.
		fill(t, s, uid)
		fill(t, s, uid)
		ids, err = n.Pending(ctx, 10)
		require.NoError(t, err)
		require.Len(t, ids, 2)
		rcv.status = http.StatusGone
		out, err = n.Deliver(ctx, ids[0], 1)
		require.NoError(t, err)
		assert.True(t, out.Final && !out.Delivered)
		rcv.status = http.StatusBadGateway
		out, err = n.Deliver(ctx, ids[1], notify.MaxAttempts)
		require.NoError(t, err)
		assert.True(t, out.Final && !out.Delivered, "the last attempt gives up")
		for _, id := range ids {
			got, err := s.NotificationByID(ctx, id)
			require.NoError(t, err)
			assert.Equal(t, models.WebhookFailed, got.Webhook)
		}

		// The guarded dialer refuses a private address even when the
		// stored URL names one.
		guarded := &notify.Service{Store: s, Vault: n.Vault}
		fill(t, s, uid)
		ids, err = n.Pending(ctx, 10)
		require.NoError(t, err)
		before := rcv.count()
		_, err = guarded.Deliver(ctx, ids[0], 1)
		assert.Equal(t, errs.Transient, errs.KindOf(err))
		assert.Equal(t, before, rcv.count(), "nothing reached the private receiver")
		log, err = n.Deliveries(ctx, uid, 1)
		require.NoError(t, err)
		assert.Equal(t, "the webhook's address is not public", log[0].Error)
	})
}

func TestCents(t *testing.T) {
	for in, want := range map[string]string{"0.65": "65¢", "0.655": "65.5¢", "0": "0¢", "1": "100¢", "0.0001": "0.01¢"} {
		d, _ := decimalFrom(in)
		if got := notify.Cents(d); got != want {
			t.Errorf("Cents(%s) = %s, want %s", in, got, want)
		}
	}
}

func decimalFrom(s string) (decimal.Decimal, error) { return decimal.NewFromString(s) }
