// Package notify is what the user chose to be told of — fills, strategies
// stopped by errors, new sign-ins, agents linked — shown in the dashboard
// and, when the user set a webhook, posted to it (signed, retried, logged),
// so it reaches a chat or email tool.
//
// A notification is written in the transaction of what it tells of (a
// fill, a strategy's error event, a sign-in's session, an agent's link),
// so it exists exactly when that happened. With a webhook it is also the
// delivery's outbox entry (webhook "pending"): the dispatcher
// (workflows.Webhooks) starts one durable delivery workflow per pending
// notification, whose activity posts it (Deliver) until the receiver
// accepts it or the retries run out, and logs every attempt.
//
// # Signature
//
// Each POST carries X-ATS-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256
// of "<t>.<body>" under the user's signing secret>, X-ATS-Event (the
// kind) and X-ATS-Delivery (the notification id, the same on every retry).
// A receiver recomputes the HMAC over the raw body, compares in constant
// time and refuses old timestamps (Verify does all three).
package notify

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/vault"
	"github.com/agent-trading/ats/venue/micro"
)

// Kind describes one kind of notification.
type Kind struct {
	Name, Label, Help string
}

// Kinds are the notifications a user can choose, in the settings' order.
var Kinds = []Kind{
	{models.NotifyFill, "Fills", "an order of one of your agents or strategies traded"},
	{models.NotifyStrategyError, "Strategy errors", "a strategy stopped after failing several times in a row"},
	{models.NotifySignIn, "New sign-ins", "someone signed in to your account"},
	{models.NotifyAgentLinked, "Agents linked", "a new agent was linked to your account"},
}

// KindLabel names kind for people.
func KindLabel(kind string) string {
	for _, k := range Kinds {
		if k.Name == kind {
			return k.Label
		}
	}
	return kind
}

// ActionSettings is the audit action of a change of the settings.
const ActionSettings = "user.notifications_update"

// Service keeps the settings, writes notifications and delivers them.
type Service struct {
	Store *store.Store
	Vault *vault.Vault
	Audit *audit.Service
	// PublicURL is the dashboard's {base_url}: a webhook payload links
	// to the page of what it tells of.
	PublicURL string
	// Delivery posts webhooks; its zero value refuses private addresses.
	Delivery Delivery
	// Now is the clock of signatures; nil means time.Now.
	Now func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Settings are a user's choices.
type Settings struct {
	// Kinds are the chosen kinds, by name.
	Kinds map[string]bool
	// WebhookURL is "" without a webhook.
	WebhookURL string
	// Secret is the webhook's signing secret ("" without one).
	Secret string
}

// defaultKinds: a user who never chose is told of everything in the
// dashboard (there is no webhook until they set one).
func defaultKinds() map[string]bool {
	m := map[string]bool{}
	for _, k := range Kinds {
		m[k.Name] = true
	}
	return m
}

func parseKinds(v string) map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields(v) {
		m[k] = true
	}
	return m
}

// settingsIn reads userID's settings through st (a transaction or not),
// without opening the secret.
func settingsIn(ctx context.Context, st *store.Store, userID string) (*models.NotificationSettings, map[string]bool, error) {
	row, err := st.NotificationSettingsOf(ctx, userID)
	switch {
	case errs.Is(err, errs.NotFound):
		return nil, defaultKinds(), nil
	case err != nil:
		return nil, nil, err
	}
	return row, parseKinds(row.Kinds), nil
}

// Settings returns userID's settings with the webhook secret opened.
func (s *Service) Settings(ctx context.Context, userID string) (Settings, error) {
	row, kinds, err := settingsIn(ctx, s.Store, userID)
	if err != nil {
		return Settings{}, err
	}
	out := Settings{Kinds: kinds}
	if row != nil {
		out.WebhookURL = row.WebhookURL
		if out.Secret, err = s.openSecret(row); err != nil {
			return Settings{}, err
		}
	}
	return out, nil
}

func (s *Service) openSecret(row *models.NotificationSettings) (string, error) {
	if len(row.WebhookSecretCiphertext) == 0 {
		return "", nil
	}
	if s.Vault == nil {
		return "", errs.E(errs.Internal, "notify: no vault to open the webhook secret")
	}
	pt, err := s.Vault.Open(vault.WebhookSecret(row.UserID), vault.Sealed{Ciphertext: row.WebhookSecretCiphertext,
		Nonce: row.WebhookSecretNonce, KeyVersion: row.WebhookSecretKeyVersion})
	if err != nil {
		return "", err
	}
	return string(pt), nil
}

// newSecret makes a signing secret: "whsec_" and 256 random bits.
func newSecret() string { return "whsec_" + secret.RandomToken() }

// Save stores userID's choices: kinds (names of Kinds; others are
// refused) and the webhook URL ("" for none; see Delivery.CheckURL). A
// first webhook gets a new signing secret; an existing one keeps its
// secret unless rotate is set. The change is audited.
func (s *Service) Save(ctx context.Context, userID string, kinds []string, webhookURL string, rotate bool, clientAddr string) (Settings, error) {
	chosen := map[string]bool{}
	for _, k := range kinds {
		if !slices.ContainsFunc(Kinds, func(x Kind) bool { return x.Name == k }) {
			return Settings{}, errs.Ef(errs.Invalid, "unknown notification kind %q", k)
		}
		chosen[k] = true
	}
	webhookURL = strings.TrimSpace(webhookURL)
	if webhookURL != "" {
		if err := s.Delivery.CheckURL(webhookURL); err != nil {
			return Settings{}, err
		}
	}
	names := make([]string, 0, len(chosen))
	for _, k := range Kinds {
		if chosen[k.Name] {
			names = append(names, k.Name)
		}
	}
	err := s.Store.Tx(ctx, func(tx *store.Store) error {
		row, _, err := settingsIn(ctx, tx, userID)
		if err != nil {
			return err
		}
		if row == nil {
			row = &models.NotificationSettings{UserID: userID}
		}
		row.Kinds, row.WebhookURL = strings.Join(names, " "), webhookURL
		switch {
		case webhookURL == "":
			row.WebhookSecretCiphertext, row.WebhookSecretNonce, row.WebhookSecretKeyVersion = nil, nil, 0
		case len(row.WebhookSecretCiphertext) == 0 || rotate:
			if s.Vault == nil {
				return errs.E(errs.Internal, "notify: no vault to seal the webhook secret")
			}
			sealed, err := s.Vault.Seal(vault.WebhookSecret(userID), []byte(newSecret()))
			if err != nil {
				return err
			}
			row.WebhookSecretCiphertext, row.WebhookSecretNonce, row.WebhookSecretKeyVersion = sealed.Ciphertext, sealed.Nonce, sealed.KeyVersion
		}
		if err := tx.SaveNotificationSettings(ctx, row); err != nil {
			return err
		}
		detail := map[string]any{"kinds": names, "webhook": webhookURL != ""}
		if rotate {
			detail["secret_rotated"] = true
		}
		return audit.Append(ctx, tx, audit.Entry{UserID: userID, Action: ActionSettings, Target: userID,
			Result: audit.Success, ClientAddr: clientAddr, Detail: detail})
	})
	if err != nil {
		return Settings{}, err
	}
	return s.Settings(ctx, userID)
}

// record writes a notification of kind for userID through tx, when the
// user chose that kind: pending for the webhook when they set one.
func record(ctx context.Context, tx *store.Store, userID, kind, title, body, link string, data map[string]any) error {
	row, kinds, err := settingsIn(ctx, tx, userID)
	if err != nil || !kinds[kind] {
		return err
	}
	n := &models.Notification{UserID: userID, Kind: kind, Title: title, Body: body, Link: link}
	if len(data) > 0 {
		b, err := json.Marshal(data)
		if err != nil {
			return errs.Wrap(errs.Internal, err, "notification data")
		}
		n.Data = string(b)
	}
	if row != nil && row.WebhookURL != "" {
		n.Webhook = models.WebhookPending
	}
	return tx.CreateNotification(ctx, n)
}

// Event writes the notification an agent event calls for, in the event's
// transaction (store.OnEvent): a fill of one of the user's orders, or a
// strategy stopped by errors. Other events tell the user nothing new.
func (s *Service) Event(ctx context.Context, tx *store.Store, e *models.AgentEvent) error {
	switch e.Type {
	case models.EventOrderFill:
		return fillNotification(ctx, tx, e)
	case models.EventStrategyError:
		data := map[string]any{"strategyId": e.StrategyID, "strategyType": e.StrategyType, "agentId": e.AgentID}
		var details map[string]any
		if e.Details != "" && json.Unmarshal([]byte(e.Details), &details) == nil {
			if v, ok := details["lastError"]; ok {
				data["lastError"] = v
			}
			if v, ok := details["failures"]; ok {
				data["failures"] = v
			}
		}
		name := agentName(ctx, tx, e.AgentID)
		return record(ctx, tx, e.UserID, models.NotifyStrategyError, "Strategy stopped after errors",
			fmt.Sprintf("%s's %s: %s", name, strategyLabel(e.StrategyType), e.Summary),
			"/strategies/"+e.StrategyID, data)
	}
	return nil
}

func agentName(ctx context.Context, tx *store.Store, id string) string {
	var names []string
	if err := tx.DB().WithContext(ctx).Model(&models.Agent{}).Where("id = ?", id).Limit(1).Pluck("name", &names).Error; err != nil || len(names) == 0 {
		return "an agent"
	}
	return names[0]
}

func strategyLabel(t string) string {
	switch t {
	case models.StrategyPriceAlert:
		return "price alert"
	case models.StrategyRecurringBuy:
		return "recurring buy"
	case models.StrategyBuyLowSellHigh:
		return "buy-low/sell-high strategy"
	case models.StrategyCopyTrade:
		return "copy trade"
	}
	return "strategy"
}

// Cents writes a price as traders read it: 0.65 → "65¢", 0.655 → "65.5¢".
func Cents(p decimal.Decimal) string {
	return p.Mul(decimal.NewFromInt(100)).Round(4).String() + "¢"
}

func fillNotification(ctx context.Context, tx *store.Store, e *models.AgentEvent) error {
	var o models.Order
	if err := tx.DB().WithContext(ctx).Where("id = ?", e.OrderID).Take(&o).Error; err != nil {
		return store.MapError(err, "order")
	}
	var f models.Fill
	if err := tx.DB().WithContext(ctx).Where("id = ?", e.FillID).Take(&f).Error; err != nil {
		return store.MapError(err, "fill")
	}
	price, size, fee := micro.Decimal(f.PriceMicro), micro.Decimal(f.SizeMicro), micro.Decimal(f.FeeMicro)
	verb := "bought"
	if o.Side == "SELL" {
		verb = "sold"
	}
	market := o.MarketQuestion
	if market == "" {
		market = "token " + o.TokenID
	}
	outcome := o.Outcome
	if outcome == "" {
		outcome = "shares"
	}
	name := agentName(ctx, tx, o.AgentID)
	title := fmt.Sprintf("%s %s %s at %s", strings.ToUpper(verb[:1])+verb[1:], size.String(), outcome, Cents(price))
	body := fmt.Sprintf("%s %s %s %s at %s in “%s”.", name, verb, size.String(), outcome, Cents(price), market)
	data := map[string]any{"orderId": o.ID, "fillId": f.ID, "agentId": o.AgentID, "side": o.Side,
		"price": price.String(), "size": size.String(), "fee": fee.String(), "market": o.MarketQuestion,
		"conditionId": o.ConditionID, "tokenId": o.TokenID, "outcome": o.Outcome, "txHash": f.TxHash,
		"time": f.Time.UTC().Format(time.RFC3339)}
	if o.StrategyID != nil {
		data["strategyId"] = *o.StrategyID
	}
	return record(ctx, tx, o.UserID, models.NotifyFill, title, body, "/orders/"+o.ID, data)
}

// SignedIn writes the notification of a sign-in, in the transaction that
// starts its session (sessions.Service.OnSignIn).
func (s *Service) SignedIn(ctx context.Context, tx *store.Store, userID, method, clientAddr, device string) error {
	from := clientAddr
	if from == "" {
		from = "an unknown address"
	}
	body := fmt.Sprintf("Signed in with %s from %s", MethodLabel(method), from)
	if device != "" {
		body += " (" + device + ")"
	}
	return record(ctx, tx, userID, models.NotifySignIn, "New sign-in to your account",
		body+". If this was not you, change your password and sign out everywhere on the Security page.",
		"/security", map[string]any{"method": method, "clientAddr": clientAddr, "device": device})
}

// MethodLabel names a session's sign-in method for people.
func MethodLabel(method string) string {
	switch {
	case method == "password":
		return "a password"
	case method == "passkey":
		return "a passkey"
	case method == "oidc:github":
		return "GitHub"
	case strings.HasPrefix(method, "oidc:"):
		return strings.TrimPrefix(method, "oidc:")
	}
	return method
}

// AgentLinked writes the notification of an agent linked to userID, in
// the approval's transaction (agents.Recorder.OnLinked).
func (s *Service) AgentLinked(ctx context.Context, tx *store.Store, a *models.Agent) error {
	return record(ctx, tx, a.UserID, models.NotifyAgentLinked, "Agent linked: "+a.Name,
		a.Name+" can now trade with your wallet. Check its budget on its page.",
		"/agents/"+a.ID, map[string]any{"agentId": a.ID, "agentName": a.Name})
}

// Notification is a notification as the dashboard lists it.
type Notification struct {
	ID, Kind, Title, Body, Link string
	Time                        time.Time
	Read                        bool
	// Webhook is its delivery state ("" without a webhook).
	Webhook  string
	Attempts int
}

// List returns the user's latest notifications and how many are unread.
func (s *Service) List(ctx context.Context, userID string, limit int) ([]Notification, int64, error) {
	rows, err := s.Store.ListNotifications(ctx, userID, limit)
	if err != nil {
		return nil, 0, err
	}
	unread, err := s.Store.UnreadNotifications(ctx, userID)
	if err != nil {
		return nil, 0, err
	}
	out := make([]Notification, len(rows))
	for i, r := range rows {
		out[i] = Notification{ID: r.ID, Kind: r.Kind, Title: r.Title, Body: r.Body, Link: r.Link, Time: r.CreatedAt,
			Read: r.ReadAt != nil, Webhook: r.Webhook, Attempts: r.WebhookAttempts}
	}
	return out, unread, nil
}

// Unread counts the user's unread notifications.
func (s *Service) Unread(ctx context.Context, userID string) (int64, error) {
	return s.Store.UnreadNotifications(ctx, userID)
}

// MarkRead marks the user's notifications up to upTo read.
func (s *Service) MarkRead(ctx context.Context, userID string, upTo time.Time) error {
	return s.Store.MarkNotificationsRead(ctx, userID, upTo)
}

// Deliveries returns the user's latest webhook delivery attempts.
func (s *Service) Deliveries(ctx context.Context, userID string, limit int) ([]models.WebhookDelivery, error) {
	return s.Store.ListWebhookDeliveries(ctx, userID, limit)
}

// Sign computes the X-ATS-Signature header of body at t under secret.
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + mac(secret, ts, body)
}

func mac(secret, ts string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte("."))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Verify checks a signature header against body and secret: the HMAC in
// constant time, and a timestamp no further than tolerance from now (a
// captured delivery cannot be replayed later). Receivers in Go can use it
// as is; it is also the reference for receivers in other languages.
func Verify(secret, header string, body []byte, now time.Time, tolerance time.Duration) error {
	var ts, sig string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sig = v
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || sig == "" {
		return errs.E(errs.Unauthorized, "malformed signature header")
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return errs.E(errs.Unauthorized, "signature timestamp out of tolerance")
	}
	if !hmac.Equal([]byte(sig), []byte(mac(secret, ts, body))) {
		return errs.E(errs.Unauthorized, "signature does not match")
	}
	return nil
}
