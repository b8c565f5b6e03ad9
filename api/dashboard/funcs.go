package dashboard

import (
	"encoding/json"
	"fmt"
	"html/template"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/agents"
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
	"detail":        detail,
	"browser":       browser,
	"until":         until,
	"final":         strategies.Final,
	"typeLabel":     typeLabel,
	"statusLabel":   func(s string) string { return strings.ToLower(s) },
	"endedLabel":    func(s string) string { return strings.ReplaceAll(s, "_", " ") },
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

func when(v any) string {
	t, ok := asTime(v)
	if !ok {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

func ago(v any) string {
	t, ok := asTime(v)
	if !ok {
		return "never"
	}
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
	"user.passkey_rename": "Passkey renamed", "user.passkey_remove": "Passkey removed",
	"user.identity_link": "Identity linked", "user.identity_unlink": "Identity unlinked",
	"device.approve": "Link approved", "device.deny": "Link denied", "agent.link": "Agent linked",
	"agent.key_issue": "Agent key issued", "agent.pause": "Agent paused", "agent.resume": "Agent resumed",
	"agent.revoke": "Agent revoked", "agent.update": "Agent settings", "order.place": "Order placed",
	"order.cancel": "Order cancelled", "wallet.import": "Wallet imported", "wallet.delete": "Wallet deleted",
	"wallet.approve": "Token approval", "wallet.redeem": "Redemption",
	"strategy.create": "Strategy created", "strategy.pause": "Strategy paused", "strategy.resume": "Strategy resumed",
	"strategy.cancel": "Strategy cancelled", "strategy.extend": "Strategy extended", "strategy.patch": "Strategy changed",
}

func actionLabel(a string) string {
	if l, ok := actionLabels[a]; ok {
		return l
	}
	return a
}

// detail renders an audit entry's detail object as "key: value" pairs.
func detail(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		if v == nil {
			continue
		}
		b, _ := json.Marshal(v)
		parts = append(parts, k+": "+strings.Trim(string(b), `"`))
	}
	out := strings.Join(parts, " · ")
	if len(out) > 200 {
		out = out[:200] + "…"
	}
	return out
}

// browser names the browser and platform of a user agent, roughly.
func browser(ua string) string {
	name := "Browser"
	for _, b := range []struct{ key, name string }{{"Edg/", "Edge"}, {"Firefox/", "Firefox"}, {"Chrome/", "Chrome"}, {"Safari/", "Safari"}, {"curl/", "curl"}, {"Go-http-client", "Go client"}} {
		if strings.Contains(ua, b.key) {
			name = b.name
			break
		}
	}
	for _, p := range []struct{ key, name string }{{"Android", "Android"}, {"iPhone", "iPhone"}, {"iPad", "iPad"}, {"Mac OS X", "macOS"}, {"Windows", "Windows"}, {"Linux", "Linux"}} {
		if strings.Contains(ua, p.key) {
			return name + " on " + p.name
		}
	}
	return name
}
