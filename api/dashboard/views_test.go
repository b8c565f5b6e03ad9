package dashboard_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/csv"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/api/dashboard"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/changes"
	"github.com/agent-trading/ats/models/notify"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/users"
	"github.com/agent-trading/ats/models/vault"
)

// newTradingViews is the dashboard's test server with notifications and
// the live changes wired as in `ats dev`.
func newTradingViews(t *testing.T) (*env, *notify.Service) {
	t.Helper()
	var ns *notify.Service
	hub := changes.NewHub()
	e := newEnvWith(t, users.SignupOpen, func(d *dashboard.Deps) {
		key := make([]byte, vault.KeySize)
		_, _ = rand.Read(key)
		v, err := vault.FromMasterKey(key)
		require.NoError(t, err)
		st := d.Portfolio.Store
		ns = &notify.Service{Store: st, Vault: v, Audit: &audit.Service{Store: st}, PublicURL: "http://localhost",
			Delivery: notify.Delivery{AllowPrivate: true}}
		st.OnEvent(ns.Event)
		d.Notify, d.Changes = ns, hub
		d.Sessions.OnSignIn = ns.SignedIn
		ctx, cancel := context.WithCancel(context.Background())
		done := changes.Feed(ctx, st, hub, nil)
		t.Cleanup(func() { cancel(); <-done })
	})
	return e, ns
}

// seedTrades gives user uid two agents, orders in two markets and a fill.
func seedTrades(t *testing.T, st *store.Store, uid string) (bot, night *models.Agent, open, filled *models.Order) {
	t.Helper()
	ctx := context.Background()
	bot, night = &models.Agent{UserID: uid, Name: "bot"}, &models.Agent{UserID: uid, Name: "night-bot"}
	require.NoError(t, st.CreateAgent(ctx, bot))
	require.NoError(t, st.CreateAgent(ctx, night))
	mk := func(a *models.Agent, cond, q string, price int64) *models.Order {
		o := &models.Order{AgentID: a.ID, UserID: uid, WalletID: "wal_1", TokenID: "tok" + cond, ConditionID: cond, MarketQuestion: q,
			Outcome: "Yes", Side: "BUY", Type: "GTC", RequestType: "LIMIT", PriceMicro: price, SizeMicro: 5_000_000}
		require.NoError(t, st.CreateOrder(ctx, o))
		return o
	}
	open = mk(bot, "0xc1", "Will it rain in Paris?", 650_000)
	filled = mk(night, "0xc2", "=HYPERLINK(\"x\") market", 420_000)
	st1 := models.OrderOpen
	require.NoError(t, st.UpdateOrder(ctx, open.ID, nil, store.OrderUpdate{Status: &st1}))
	_, err := st.AddFill(ctx, &models.Fill{OrderID: filled.ID, VenueTradeID: "t1", PriceMicro: 415_000, SizeMicro: 5_000_000,
		FeeMicro: 20_000, TxHash: "0x" + strings.Repeat("ab", 32)})
	require.NoError(t, err)
	fst, avg, size := models.OrderFilled, int64(415_000), int64(5_000_000)
	require.NoError(t, st.UpdateOrder(ctx, filled.ID, nil, store.OrderUpdate{Status: &fst, AvgFillPriceMicro: &avg, FilledSizeMicro: &size}))
	return bot, night, open, filled
}

// TestTradingViews: orders across agents with filters and a CSV export,
// an order's page (lifecycle, fills, who placed it), the fills list with
// each transaction linked to the explorer, prices in cents with the
// decimal on hover, times for the viewer's zone; another user's order is
// not found.
func TestTradingViews(t *testing.T) {
	e, _ := newTradingViews(t)
	c := e.signUp("alice@example.com", "correct horse battery")
	u, err := e.store.UserByEmail(context.Background(), "alice@example.com")
	require.NoError(t, err)
	bot, _, open, filled := seedTrades(t, e.store, u.ID)

	r := c.Get("/orders")
	require.Equal(t, http.StatusOK, r.Status, r.Body)
	for _, want := range []string{open.ID, filled.ID, "Will it rain in Paris?", "bot", "night-bot", `<span class="px" title="0.65">65¢</span>`,
		`data-label="Status"`, ">filled<", `data-live="orders fills"`, `id="live-status"`, `data-local="datetime"`} {
		assert.Contains(t, r.Body, want)
	}
	r = c.Get("/orders?agent=" + bot.ID)
	assert.Contains(t, r.Body, open.ID)
	assert.NotContains(t, r.Body, filled.ID)
	r = c.Get("/orders?status=FILLED")
	assert.Contains(t, r.Body, filled.ID)
	assert.NotContains(t, r.Body, `id="row-`+open.ID)
	r = c.Get("/orders?market=0xc1")
	assert.Contains(t, r.Body, open.ID)
	assert.NotContains(t, r.Body, `id="row-`+filled.ID)
	r = c.Get("/orders?from=2000-01-01&to=2000-01-02")
	assert.Contains(t, r.Body, "No orders match this filter")
	r = c.Get("/orders?from=yesterday")
	assert.Equal(t, http.StatusBadRequest, r.Status)
	assert.Contains(t, r.Body, `value="yesterday" aria-invalid="true"`)
	assert.Contains(t, r.Body, "Give the date as YYYY-MM-DD")

	// The export: a CSV of the filtered orders; a cell a spreadsheet would
	// run as a formula is quoted as text.
	req, _ := http.NewRequest(http.MethodGet, e.url+"/orders?format=csv&status=FILLED", nil)
	resp, err := c.HTTP.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, "text/csv; charset=utf-8", resp.Header.Get("Content-Type"))
	assert.Contains(t, resp.Header.Get("Content-Disposition"), `attachment; filename="orders-`)
	rows, err := csv.NewReader(bufio.NewReader(resp.Body)).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 2, "the header and the filled order")
	assert.Equal(t, "placed_at", rows[0][0])
	assert.Equal(t, filled.ID, rows[1][1])
	assert.Equal(t, "night-bot", rows[1][2])
	assert.Equal(t, `'=HYPERLINK("x") market`, rows[1][3])
	assert.Equal(t, "0.42", rows[1][7])

	// The order's page.
	r = c.Get("/orders/" + filled.ID)
	require.Equal(t, http.StatusOK, r.Status, r.Body)
	body := html.UnescapeString(r.Body)
	// No explorer is configured in this server: the hash is shown without
	// a link (the browser test follows the sandbox explorer's).
	for _, want := range []string{"Lifecycle", ">pending<", ">open<"[0:0] + ">filled<", "accepted by the service", "night-bot", "the agent itself",
		"41.5¢", "$0.02", "0xabab…abab"} {
		assert.Contains(t, body, want)
	}
	assert.Equal(t, http.StatusNotFound, c.Get("/orders/ord_nosuchorder").Status)
	other := e.signUp("bob@example.com", "correct horse battery")
	assert.Equal(t, http.StatusNotFound, other.Get("/orders/"+filled.ID).Status, "another user's order")
	assert.NotContains(t, other.Get("/orders").Body, filled.ID)

	// The fills list.
	r = c.Get("/fills")
	require.Equal(t, http.StatusOK, r.Status, r.Body)
	for _, want := range []string{`id="fill-`, "41.5¢", "$0.02", `data-label="Transaction"`, "0xabab…abab", "fees $0.02"} {
		assert.Contains(t, html.UnescapeString(r.Body), want)
	}
	r = c.Get("/fills?agent=" + bot.ID)
	assert.Contains(t, r.Body, "No fills match this filter")

	// Positions without a venue say so instead of failing.
	r = c.Get("/positions")
	assert.Equal(t, http.StatusOK, r.Status)
	assert.Contains(t, r.Body, "trading is not configured on this server")
}

// TestLiveStream: /live tells a signed-in page, as it happens, which of
// its topics changed (a hint, no data); a visitor not signed in gets 204,
// which stops the browser's EventSource.
func TestLiveStream(t *testing.T) {
	e, _ := newTradingViews(t)
	anon := e.client()
	assert.Equal(t, http.StatusNoContent, anon.Get("/live?topics=orders").Status)
	c := e.signUp("alice@example.com", "correct horse battery")
	u, err := e.store.UserByEmail(context.Background(), "alice@example.com")
	require.NoError(t, err)
	assert.Equal(t, http.StatusNoContent, c.Get("/live?topics=weather").Status, "no topic it knows")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.url+"/live?topics="+url.QueryEscape("orders fills wallet"), nil)
	resp, err := c.HTTP.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	events := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		var ev string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				ev = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				events <- ev + " " + strings.TrimPrefix(line, "data: ")
			}
		}
		close(events)
	}()
	next := func() string {
		select {
		case ev := <-events:
			return ev
		case <-ctx.Done():
			t.Fatal("no event")
		}
		return ""
	}
	require.True(t, strings.HasPrefix(next(), "ready "))
	// A change of another user's, and of a topic the page does not show,
	// say nothing; this user's order does.
	require.NoError(t, e.store.CreateNotification(ctx, &models.Notification{UserID: u.ID, Kind: models.NotifyFill, Title: "x"}))
	require.NoError(t, e.store.CreateOrder(ctx, &models.Order{AgentID: "agt_x", UserID: "usr_someone", WalletID: "w", TokenID: "1",
		Side: "BUY", Type: "GTC", PriceMicro: 1, SizeMicro: 1}))
	require.NoError(t, e.store.CreateOrder(ctx, &models.Order{AgentID: "agt_x", UserID: u.ID, WalletID: "w", TokenID: "1",
		Side: "BUY", Type: "GTC", PriceMicro: 1, SizeMicro: 1}))
	ev := next()
	assert.True(t, strings.HasPrefix(ev, `change {"at":`), ev)
	assert.Contains(t, ev, `"topics":["orders"]`)

	// The stream outlives the listener's write deadline (the API's is a
	// minute; the test server's 5 s): it lifts it for itself.
	time.Sleep(6 * time.Second)
	require.NoError(t, e.store.CreateOrder(ctx, &models.Order{AgentID: "agt_x", UserID: u.ID, WalletID: "w", TokenID: "2",
		Side: "BUY", Type: "GTC", PriceMicro: 1, SizeMicro: 1}))
	assert.Contains(t, next(), `"topics":["orders"]`)

	// A wallet imported (here, or by another process) is told to the
	// wallet page, whose balance region follows it.
	require.NoError(t, e.store.UpsertWallet(ctx, &models.Wallet{ID: models.NewID(models.PrefixWallet), UserID: u.ID,
		KeyCiphertext: []byte{1}, KeyNonce: []byte{2}}))
	assert.Contains(t, next(), `"topics":["wallet"]`)
}

// TestErrorPages: a browser gets HTML pages for a path nothing serves and
// for a method a page does not take; an API client keeps its JSON.
func TestErrorPages(t *testing.T) {
	e := newEnv(t, users.SignupOpen)
	do := func(method, path, accept string) (int, string, string) {
		req, _ := http.NewRequest(method, e.url+path, nil)
		req.Header.Set("Accept", accept)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b := new(strings.Builder)
		_, _ = bufio.NewReader(resp.Body).WriteTo(b)
		return resp.StatusCode, resp.Header.Get("Content-Type"), b.String()
	}
	st, ct, body := do(http.MethodGet, "/nowhere", "text/html,*/*")
	assert.Equal(t, http.StatusNotFound, st)
	assert.Equal(t, "text/html; charset=utf-8", ct)
	assert.Contains(t, body, "Page not found")
	st, _, body = do(http.MethodDelete, "/signin", "text/html")
	assert.Equal(t, http.StatusMethodNotAllowed, st)
	assert.Contains(t, body, "This page does not take that request")
	st, ct, body = do(http.MethodGet, "/nowhere", "application/json")
	assert.Equal(t, http.StatusNotFound, st)
	assert.Contains(t, ct, "application/json")
	assert.Contains(t, body, `"success":false`)
	st, _, body = do(http.MethodGet, "/api/agent/v1/nowhere", "text/html")
	assert.Equal(t, http.StatusNotFound, st)
	assert.Contains(t, body, `"success":false`, "the API answers JSON even to a browser")
	// A 404 page starts no session for a crawler.
	req, _ := http.NewRequest(http.MethodGet, e.url+"/nowhere", nil)
	req.Header.Set("Accept", "text/html")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Empty(t, resp.Header.Values("Set-Cookie"))
}

// TestNotificationsPage: the choices and the webhook are saved; a bad
// webhook URL is refused next to its field, the form keeping what was
// typed; the signing secret is shown; notifications are listed and marked
// read; the navigation counts the unread.
func TestNotificationsPage(t *testing.T) {
	e, ns := newTradingViews(t)
	c := e.signUp("alice@example.com", "correct horse battery")
	u, err := e.store.UserByEmail(context.Background(), "alice@example.com")
	require.NoError(t, err)
	page := c.Get("/notifications")
	require.Equal(t, http.StatusOK, page.Status, page.Body)
	assert.Contains(t, page.Body, "New sign-in to your account", "the sign-up's session is a sign-in")
	assert.Contains(t, page.Body, `<span class="count" aria-label="1 unread">1</span>`)

	r := c.Submit("/notifications", "/notifications/settings", url.Values{"kind": {"fill", "agent_linked"}, "webhook_url": {"ftp://nope"}})
	assert.Equal(t, http.StatusBadRequest, r.Status)
	assert.Contains(t, r.Body, `value="ftp://nope" aria-invalid="true" aria-describedby="webhook_url-err"`)
	assert.Contains(t, r.Body, `id="webhook_url-err">the webhook URL must use https`)
	assert.Contains(t, r.Body, `value="agent_linked" checked`, "the choices as ticked")
	assert.NotContains(t, r.Body, `value="sign_in" checked`)

	r = c.Submit("/notifications", "/notifications/settings", url.Values{"kind": {"fill", "agent_linked"}, "webhook_url": {"https://hooks.example.com/x"}})
	require.Equal(t, "/notifications?done=notifications", r.Location, r.Body)
	page = c.Follow(r)
	assert.Contains(t, page.Body, "Notification settings saved")
	assert.Regexp(t, `id="webhook-secret">whsec_`, page.Body)
	st, err := ns.Settings(context.Background(), u.ID)
	require.NoError(t, err)
	assert.Equal(t, map[string]bool{"fill": true, "agent_linked": true}, st.Kinds)

	r = c.Submit("/notifications", "/notifications/read", nil)
	require.Equal(t, "/notifications?done=notifications-read", r.Location)
	assert.NotContains(t, c.Get("/").Body, `class="count"`)
	assert.Contains(t, c.Get("/audit").Body, "Told of: fills, agents linked · webhook set")
}
