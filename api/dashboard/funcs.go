package dashboard

import (
	"fmt"
	"html/template"
	"net/url"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/heartbeat"
	"github.com/agent-trading/ats/models/notify"
	"github.com/agent-trading/ats/models/sessions"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/venue/micro"
)

func init() {
	notices["link-failed"] = "You are signed in, but the identity could not be linked: it may already belong to another account."
}

var funcs = template.FuncMap{
	"usd":           usd,
	"usdMicro":      func(m int64) string { return usd(micro.Decimal(m)) },
	"signedUSD":     signedUSD,
	"dec":           func(d decimal.Decimal) string { return d.Round(4).String() },
	"cents":         cents,
	"exact":         exact,
	"shares":        shares,
	"pct":           func(d decimal.Decimal) string { return d.Round(2).StringFixed(2) + "%" },
	"sign":          sign,
	"when":          when,
	"ago":           ago,
	"interval":      interval,
	"seconds":       func(ms int64) int64 { return ms / 1000 },
	"microField":    microField,
	"bpsField":      bpsField,
	"budgetSummary": budgetSummary,
	"kindHelp":      kindHelp,
	"actionLabel":   actionLabel,
	"browser":       browser,
	"until":         until,
	"final":         strategies.Final,
	"typeLabel":     typeLabel,
	"statusLabel":   func(s string) string { return strings.ToLower(s) },
	"endedLabel":    func(s string) string { return strings.ReplaceAll(s, "_", " ") },
	"orderStatus":   orderStatus,
	"expiry":        expiry,
	"heartbeat":     heartbeatOf,
	"auditText":     auditText,
	"providerLabel": providerLabel,
	"shortHash":     shortHash,
	"txURL":         txURL,
	"fieldErr":      fieldErr,
	"formValue":     formValue,
	"posted":        posted,
	"kindLabel":     notify.KindLabel,
	"methodLabel":   notify.MethodLabel,
	"withQuery":     withQuery,
	"invalid":       invalid,
	"dict":          dict,
	"isoTime":       func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"deref": func(t *time.Time) time.Time {
		if t == nil {
			return time.Time{}
		}
		return *t
	},
}

// until says how far ahead a time is, in words.
func until(v any) string {
	t, ok := asTime(v)
	if !ok {
		return "—"
	}
	d := time.Until(t)
	switch {
	case d <= 0:
		return "passed"
	case d < time.Hour:
		return fmt.Sprintf("in %d min", int(d.Minutes())+1)
	case d < 48*time.Hour:
		return fmt.Sprintf("in %d h", int(d.Hours()))
	}
	return fmt.Sprintf("in %d days", int(d.Hours()/24))
}

var typeLabels = map[string]string{
	strategies.TypePriceAlert: "Price alert", strategies.TypeRecurringBuy: "Recurring buy",
	strategies.TypeBuyLowSellHigh: "Buy low, sell high", strategies.TypeCopyTrade: "Copy trade",
}

func typeLabel(t string) string {
	if l, ok := typeLabels[t]; ok {
		return l
	}
	return t
}

// usd formats an amount as "$1,234.56".
func usd(d decimal.Decimal) string {
	neg := d.IsNegative()
	s := d.Abs().StringFixed(2)
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	out := "$" + b.String() + "." + frac
	if neg {
		return "−" + out
	}
	return out
}

func signedUSD(d decimal.Decimal) string {
	if d.IsPositive() {
		return "+" + usd(d)
	}
	return usd(d)
}

func sign(d decimal.Decimal) string {
	switch {
	case d.IsPositive():
		return "pos"
	case d.IsNegative():
		return "neg"
	}
	return ""
}

func asTime(v any) (time.Time, bool) {
	switch t := v.(type) {
	case time.Time:
		return t, !t.IsZero()
	case *time.Time:
		if t == nil {
			return time.Time{}, false
		}
		return *t, !t.IsZero()
	}
	return time.Time{}, false
}

// when writes a time for people: in UTC on the server (and without
// script), in the viewer's own time zone once the page's script ran
// (data-local), with the UTC time on hover.
func when(v any) template.HTML {
	t, ok := asTime(v)
	if !ok {
		return "—"
	}
	return timeTag(t, t.UTC().Format("2006-01-02 15:04 UTC"), "datetime")
}

// exact is when to the second (an order's lifecycle).
func exact(v any) template.HTML {
	t, ok := asTime(v)
	if !ok {
		return "—"
	}
	return timeTag(t, t.UTC().Format("2006-01-02 15:04:05 UTC"), "seconds")
}

func timeTag(t time.Time, text, format string) template.HTML {
	u := t.UTC()
	return template.HTML(`<time datetime="` + u.Format(time.RFC3339) + `" title="` + u.Format("2006-01-02 15:04:05 UTC") +
		`" data-local="` + format + `">` + template.HTMLEscapeString(text) + `</time>`)
}

// ago says how long ago a time was, with the time itself on hover.
func ago(v any) template.HTML {
	t, ok := asTime(v)
	if !ok {
		return "never"
	}
	return timeTag(t, agoText(t), "ago")
}

func agoText(t time.Time) string {
	d := time.Since(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Hours()))
	}
	return t.UTC().Format("2006-01-02")
}

// cents writes a price as traders read it on Polymarket (0.65 → 65¢,
// 0.655 → 65.5¢), with the decimal price on hover.
func cents(d decimal.Decimal) template.HTML {
	return template.HTML(`<span class="px" title="` + d.Round(6).String() + `">` + notify.Cents(d) + `</span>`)
}

// shares writes a number of shares without trailing zeros.
func shares(d decimal.Decimal) string { return d.Round(4).String() }

// orderStatus writes an order status in words.
func orderStatus(s string) string {
	if s == "PARTIALLY_FILLED" {
		return "partly filled"
	}
	return strings.ToLower(s)
}

// expiry says when a strategy expires: an ended one says it ended (not
// "expires in 23 h"); a running one how far ahead.
func expiry(status string, at *time.Time) string {
	if strategies.Final(status) {
		return "ended"
	}
	if at == nil {
		return "never"
	}
	return until(at)
}

// heartbeatInfo is how an agent's heartbeat reads: Warn when it never
// came, or is late, for an agent that is meant to be running.
type heartbeatInfo struct {
	Text template.HTML
	Warn bool
	Note string
}

// heartbeatOf says whether an agent's last heartbeat is a worry. Late is
// more than an interval (and a minute) after the check it was due for —
// the interval after the last one, or, outside the agent's active hours,
// the hours' next opening — so a sleeping agent is not late.
func heartbeatOf(last *time.Time, hb agents.Heartbeat, status string) heartbeatInfo {
	running := status == "active"
	if last == nil || last.IsZero() {
		h := heartbeatInfo{Text: "never", Warn: running}
		if running {
			h.Note = "the agent has not checked in yet"
		}
		return h
	}
	h := heartbeatInfo{Text: ago(last)}
	var hours *heartbeat.Hours
	if ah := hb.ActiveHours; ah != nil {
		hours, _ = heartbeat.ParseHours(ah.Start, ah.End, ah.Timezone)
	}
	every := time.Duration(hb.IntervalMs) * time.Millisecond
	due := heartbeat.NextCheck(*last, every, hours)
	if running && time.Since(due) > every+time.Minute {
		h.Warn, h.Note = true, "late: expected every "+interval(hb.IntervalMs)
	}
	return h
}

// providerLabel names a sign-in provider on its button.
func providerLabel(name string) string {
	switch name {
	case "github":
		return "GitHub"
	case "google":
		return "Google"
	case "sandbox":
		return "sandbox"
	}
	if name == "" {
		return name
	}
	return strings.ToUpper(name[:1]) + name[1:]
}

// shortHash shortens a transaction hash for a table: 0x1234…cdef.
func shortHash(h string) string {
	if len(h) <= 14 {
		return h
	}
	return h[:6] + "…" + h[len(h)-4:]
}

// txURL is a transaction's page on the network's explorer ("" without
// one).
func txURL(explorer, hash string) string {
	if explorer == "" || !strings.HasPrefix(hash, "0x") {
		return ""
	}
	return strings.TrimRight(explorer, "/") + "/tx/" + hash
}

// invalid marks form field name of v invalid when it has an error
// (aria-invalid, and its message as the field's description).
func invalid(v view, name string) template.HTMLAttr {
	if v.Fields[name] == "" {
		return ""
	}
	n := template.HTMLEscapeString(name)
	return template.HTMLAttr(`aria-invalid="true" aria-describedby="` + n + `-err"`)
}

// dict builds a map for a template call with several values.
func dict(kv ...any) map[string]any {
	m := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		if k, ok := kv[i].(string); ok {
			m[k] = kv[i+1]
		}
	}
	return m
}

// fieldErr is the error of form field name in v ("" for none).
func fieldErr(v view, name string) string { return v.Fields[name] }

// formValue is what the user typed in field name when the form came back
// with an error, else def (the stored value).
func formValue(v view, name, def string) string {
	if v.Form != nil {
		if vs, ok := v.Form[name]; ok {
			return strings.Join(vs, "")
		}
	}
	return def
}

// posted reports whether the form that came back with an error had field
// name (which of a page's forms it was).
func posted(v view, name string) bool {
	_, ok := v.Form[name]
	return ok
}

// withQuery is base with query key set to value (others kept, value ""
// removes it): the filter links.
func withQuery(q url.Values, base string, kv ...string) string {
	out := url.Values{}
	for k, v := range q {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			out.Del(kv[i])
		} else {
			out.Set(kv[i], kv[i+1])
		}
	}
	if len(out) == 0 {
		return base
	}
	return base + "?" + out.Encode()
}

func interval(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%d h", int(d.Hours()))
	case d%time.Minute == 0:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	}
	return d.String()
}

func microField(v *int64) string {
	if v == nil {
		return ""
	}
	return micro.Decimal(*v).String()
}

func bpsField(v *int32) string {
	if v == nil {
		return ""
	}
	return decimal.New(int64(*v), -2).String()
}

func budgetSummary(b agents.Budget) string {
	var parts []string
	if b.FixedLimitMicro != nil {
		parts = append(parts, usd(micro.Decimal(*b.FixedLimitMicro))+" limit")
	}
	if b.PercentBps != nil {
		parts = append(parts, bpsField(b.PercentBps)+"% of wallet")
	}
	if b.MaxPositionValueMicro != nil {
		parts = append(parts, usd(micro.Decimal(*b.MaxPositionValueMicro))+" max positions")
	}
	if len(parts) == 0 {
		return "wallet balance"
	}
	return strings.Join(parts, " · ")
}

func kindHelp(kind string) string {
	switch kind {
	case "proxy":
		return "a venue proxy wallet owned by your key"
	case "safe":
		return "a Safe owned by your key"
	case "deposit":
		return "a venue deposit wallet owned by your key"
	}
	return "the key's own address"
}

var actionLabels = map[string]string{
	"user.create": "Account created", "user.login": "Sign-in", "user.logout": "Signed out",
	"user.logout_all": "Signed out everywhere", "user.session_revoke": "Session ended",
	"user.2fa_enable": "Two-step verification on", "user.2fa_disable": "Two-step verification off",
	"user.second_factor": "Second factor", "user.password_change": "Password changed",
	"user.backup_codes_regenerate": "New backup codes", "user.passkey_add": "Passkey added",
	"user.notifications_update": "Notifications", "user.invite_create": "Invite created", "master_key.rotate": "Master key rotated",
	"user.passkey_rename": "Passkey renamed", "user.passkey_remove": "Passkey removed",
	"user.identity_link": "Identity linked", "user.identity_unlink": "Identity unlinked",
	"device.approve": "Link approved", "device.deny": "Link denied", "agent.link": "Agent linked",
	"agent.key_issue": "Agent key issued", "agent.pause": "Agent paused", "agent.resume": "Agent resumed",
	"agent.revoke": "Agent revoked", "agent.update": "Agent settings", "order.place": "Order placed",
	"order.cancel": "Order cancelled", "wallet.import": "Wallet imported", "wallet.delete": "Wallet deleted",
	"wallet.approve": "Token approval", "wallet.redeem": "Redemption",
	"strategy.create": "Strategy created", "strategy.pause": "Strategy paused", "strategy.resume": "Strategy resumed",
	"strategy.cancel": "Strategy cancelled", "strategy.extend": "Strategy extended", "strategy.patch": "Strategy changed",
	"strategy.stop": "Strategy stopped", "user.stop": "Stopped everything",
}

func actionLabel(a string) string {
	if l, ok := actionLabels[a]; ok {
		return l
	}
	return a
}

// browser names the browser and platform of a user agent, roughly.
func browser(ua string) string { return sessions.DeviceName(ua) }
