package dashboard

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/notify"
	"github.com/agent-trading/ats/venue/micro"
)

// auditText writes an audit entry's detail in words: a sentence for the
// entries people read most (sign-ins, settings, wallet, orders), and
// "Label: value" pairs in words for the rest, never raw JSON keys. The
// Activity page shows the action's own label next to it.
func auditText(action string, raw json.RawMessage) string {
	var m map[string]any
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return ""
	}
	var out string
	switch action {
	case "user.login", "user.second_factor":
		out = signInWords(m)
	case "agent.update":
		out = agentUpdateWords(m)
	case "wallet.import":
		if a, ok := m["address"].(string); ok {
			out = "Trading wallet " + a
			if k, ok := m["kind"].(string); ok {
				out += " (" + walletKindWords(k) + ")"
			}
			if m["unchanged"] == true {
				out += ", already imported"
			}
		}
	case "order.cancel":
		if p, ok := m["previousStatus"].(string); ok {
			out = "Was " + orderStatus(p)
		}
	case "user.stop":
		out = fmt.Sprintf("Agents paused: %v · Strategies paused: %v · Orders cancelled: %v", m["agentsPaused"], m["strategiesPaused"], m["ordersCancelled"])
		if n, ok := m["ordersFailed"].(float64); ok && n > 0 {
			out += fmt.Sprintf(" · Orders not cancelled: %v", n)
		}
	case "device.approve":
		out = approvalWords(m)
	case "agent.link":
		if sc, ok := m["scopes"].([]any); ok {
			parts := make([]string, 0, len(sc))
			for _, s := range sc {
				parts = append(parts, fmt.Sprint(s))
			}
			out = "May " + strings.Join(parts, ", ")
		}
	case notify.ActionSettings:
		out = notificationWords(m)
	}
	if strings.HasPrefix(action, "strategy.") {
		if by, ok := m["by"].(string); ok {
			out = "By " + by
			if t, ok := m["type"].(string); ok {
				out += " · " + typeLabel(t)
			}
			if id, ok := m["strategy"].(string); ok {
				out += " " + id
			}
		}
	}
	if out == "" {
		out = pairs(m)
	} else if e, ok := m["error"].(string); ok {
		out += " · " + e
	}
	if len(out) > 240 {
		out = out[:240] + "…"
	}
	return out
}

// reasonWords are the audited reasons of refusals, in words.
var reasonWords = map[string]string{
	"wrong_password": "wrong password", "wrong_current_password": "wrong current password", "unknown_email": "no account with this email",
	"no_password_set": "the account has no password", "locked": "refused: too many failed attempts", "wrong_code": "wrong code",
	"code_replayed": "code already used", "malformed_code": "not a code", "unknown_or_used_backup_code": "unknown backup code",
	"backup_code_used": "backup code already used", "unknown_code": "unknown code", "expired": "expired",
	"key_not_collected": "the agent never collected its key", "state_mismatch": "the sign-in round trip did not match",
	"provider_error": "the provider refused", "token_exchange": "the provider did not confirm the sign-in",
	"id_token_invalid": "the provider's answer was not valid", "nonce_mismatch": "the sign-in round trip did not match",
	"no_id_token": "the provider's answer was incomplete", "github_user": "GitHub did not say who signed in",
	"github_emails": "GitHub did not give the email addresses", "passkey": "the passkey was not accepted",
}

func words(s string) string {
	if w, ok := reasonWords[s]; ok {
		return w
	}
	return strings.ReplaceAll(s, "_", " ")
}

func signInWords(m map[string]any) string {
	var parts []string
	if meth, ok := m["method"].(string); ok {
		switch meth {
		case "totp":
			meth = "authenticator code"
		case "backup_code":
			meth = "backup code"
		case "second_factor":
			meth = "second factor"
		default:
			meth = notify.MethodLabel(meth)
		}
		parts = append(parts, "With "+meth)
	}
	if p, ok := m["purpose"].(string); ok {
		switch p {
		case "step_up":
			parts = append(parts, "to confirm it's you")
		case "sign_in":
			parts = append(parts, "at sign-in")
		}
	}
	if r, ok := m["reason"].(string); ok {
		parts = append(parts, words(r))
	}
	if e, ok := m["email"].(string); ok {
		parts = append(parts, "as "+e)
	}
	return strings.Join(parts, " · ")
}

func microWords(v any) string {
	f, ok := v.(float64)
	if !ok {
		return "none"
	}
	return usd(micro.Decimal(int64(f)))
}

func agentUpdateWords(m map[string]any) string {
	switch m["setting"] {
	case "budget":
		from, _ := m["from"].(map[string]any)
		to, _ := m["to"].(map[string]any)
		var parts []string
		for _, f := range []struct{ key, label string }{{"fixed_limit_micro", "Fixed limit"}, {"percent_bps", "Budget percent"},
			{"max_position_value_micro", "Max position value"}} {
			show := func(m map[string]any) string {
				if f.key == "percent_bps" {
					if v, ok := m[f.key].(float64); ok {
						return decimal.New(int64(v), -2).String() + "%"
					}
					return "none"
				}
				return microWords(m[f.key])
			}
			a, b := show(from), show(to)
			if a != b {
				parts = append(parts, fmt.Sprintf("%s %s (was %s)", f.label, b, a))
			}
		}
		if len(parts) == 0 {
			return "Budget unchanged"
		}
		return "Budget: " + strings.Join(parts, "; ")
	case "heartbeat":
		out := "Heartbeat"
		if ms, ok := m["interval_ms"].(float64); ok {
			out += " every " + interval(int64(ms))
		}
		if ah, ok := m["active_hours"].(map[string]any); ok {
			out += fmt.Sprintf(", active %v–%v %v", ah["start"], ah["end"], ah["timezone"])
		} else {
			out += ", always active"
		}
		return out
	case "rate_limit":
		return fmt.Sprintf("Rate limit %v requests per minute (was %v)", num(m["per_minute"]), num(m["from_per_minute"]))
	}
	return ""
}

func notificationWords(m map[string]any) string {
	var kinds []string
	if ks, ok := m["kinds"].([]any); ok {
		for _, k := range ks {
			kinds = append(kinds, strings.ToLower(notify.KindLabel(fmt.Sprint(k))))
		}
	}
	out := "Told of: none"
	if len(kinds) > 0 {
		out = "Told of: " + strings.Join(kinds, ", ")
	}
	if m["webhook"] == true {
		out += " · webhook set"
	} else {
		out += " · no webhook"
	}
	if m["secret_rotated"] == true {
		out += " · new signing secret"
	}
	return out
}

func walletKindWords(k string) string {
	switch k {
	case "eoa":
		return "the key's own address"
	case "proxy":
		return "venue proxy wallet"
	case "safe":
		return "Safe"
	case "deposit":
		return "deposit wallet"
	}
	return k
}

func num(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// labelOf turns a detail key into words: "agent_name" and "agentName" are
// "Agent name".
func labelOf(k string) string {
	var b strings.Builder
	for i, r := range k {
		switch {
		case r == '_' || r == '-':
			b.WriteByte(' ')
		case unicode.IsUpper(r) && i > 0:
			b.WriteByte(' ')
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
	}
	s := strings.TrimSuffix(strings.TrimSuffix(b.String(), " micro"), " id")
	if s == "" {
		return k
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// pairs writes every detail as "Label: value", values in words.
func pairs(m map[string]any) string {
	out := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		if v == nil {
			continue
		}
		var s string
		switch x := v.(type) {
		case string:
			s = x
			if k == "reason" || k == "method" || k == "by" || k == "kind" {
				s = words(x)
			}
		case bool:
			s = map[bool]string{true: "yes", false: "no"}[x]
		case float64:
			switch {
			case strings.HasSuffix(k, "_micro") || strings.HasSuffix(k, "Micro"):
				s = usd(micro.Decimal(int64(x)))
			case strings.HasSuffix(k, "_ms") || strings.HasSuffix(k, "Ms"):
				s = interval(int64(x))
			default:
				s = num(x)
			}
		case []any:
			parts := make([]string, 0, len(x))
			for _, e := range x {
				parts = append(parts, fmt.Sprint(e))
			}
			s = strings.Join(parts, ", ")
		default:
			b, _ := json.Marshal(x)
			s = string(b)
		}
		out = append(out, labelOf(k)+": "+s)
	}
	return strings.Join(out, " · ")
}

// approvalWords says what a link's approval gave the agent: its name and
// the spending limit it starts with.
func approvalWords(m map[string]any) string {
	var parts []string
	if n, ok := m["agent_name"].(string); ok && n != "" {
		parts = append(parts, "Agent "+n)
	}
	if b, ok := m["budget"].(map[string]any); ok {
		switch {
		case b["no_limit"] == true:
			parts = append(parts, "No spending limit (chosen)")
		case b["fixed_limit"] != nil:
			if d, err := decimal.NewFromString(fmt.Sprint(b["fixed_limit"])); err == nil {
				parts = append(parts, "Fixed limit "+usd(d))
			}
		}
	}
	return strings.Join(parts, " · ")
}
