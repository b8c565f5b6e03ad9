package skill

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/api/ratelimit"
	apistrategies "github.com/agent-trading/ats/api/strategies"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/heartbeat"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/venue/clob"
)

// fact is one thing the skill states about the service: where the text
// says it (a pattern whose groups capture the values) and what the code
// enforces (want, computed here from the constants, not from the skill's
// own facts, so a template fed a wrong value is caught too). Every match
// of the pattern must state the code's value, and the pattern must match.
type fact struct {
	name    string
	pattern string
	want    func() []string
}

func itoa[T ~int | ~int32 | ~int64](v T) []string { return []string{strconv.FormatInt(int64(v), 10)} }

func hours(d time.Duration) []string { return itoa(int64(d / time.Hour)) }
func days(d time.Duration) []string  { return itoa(int64(d / (24 * time.Hour))) }

// codes lists the `code` spans of s in order.
func codes(s string) []string {
	var out []string
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

var stated = []fact{
	{"front matter version", `(?m)^version: (\d+)$`, func() []string { return itoa(Version) }},
	{"stated version", `skill \*\*version (\d+)\*\*`, func() []string { return itoa(Version) }},
	{"skill_version example", `skill_version=(\d+)`, func() []string { return itoa(Version) }},
	{"latest_skill_version example", `"latest_skill_version": (\d+)`, func() []string { return itoa(Version) }},
	{"rate limit", `Default (\d+) requests per minute per key`, func() []string { return itoa(ratelimit.DefaultLimit) }},
	{"heartbeat interval example", `"interval_ms": (\d+)`, func() []string { return itoa(models.DefaultHeartbeatIntervalMs) }},
	{"device code lifetime", `"expires_in": (\d+)`, func() []string { return itoa(int64(agents.DefaultDeviceCodeTTL / time.Second)) }},
	{"device poll interval", `"interval": (\d+)\}`, func() []string { return itoa(int64(agents.DefaultPollInterval / time.Second)) }},
	{"strategy limit", `At most (\d+) strategies per agent`, func() []string { return itoa(strategies.MaxNonFinal) }},
	{"statuses that count", `strategies per agent that are not finished:\s+([A-Z, or]+) all count`, func() []string {
		return []string{strings.Join(strategies.NonFinal[:len(strategies.NonFinal)-1], ", ") + " or " + strategies.NonFinal[len(strategies.NonFinal)-1]}
	}},
	{"expiry", `expires after (\d+) hours unless extended`, func() []string { return hours(strategies.DefaultExpiry) }},
	{"longest extension", `at most (\d+) days\s+ahead`, func() []string { return days(strategies.MaxExpiry) }},
	{"errors before ERROR", `(\d+) consecutive (?:failures|errors)`, func() []string { return itoa(strategies.MaxConsecutiveErrors) }},
	{"executions shown", `last (\d+) executions`, func() []string { return itoa(strategies.DetailExecutions) }},
	{"shortest interval", `at least (\d+) ms`, func() []string { return itoa(strategies.MinInterval.Milliseconds()) }},
	{"longest interval", `at most (\d+) days; or`, func() []string { return days(strategies.MaxInterval) }},
	{"budget low", `less than (\d+) USDC, or under (\d+)% of your limit`, func() []string {
		return []string{heartbeat.BudgetLowFloor.String(), heartbeat.BudgetLowShare.Mul(decimal.NewFromInt(100)).String()}
	}},
	{"expiring window", `closing within (\d+) minutes`, func() []string { return itoa(int64(heartbeat.ExpiringWithin / time.Minute)) }},
	{"price range", "`price` ([0-9.]+)–([0-9.]+) on the market's tick", func() []string {
		return []string{orders.MinPrice.StringFixed(2), orders.MaxPrice.StringFixed(2)}
	}},
	{"float noise", `within (1e-\d+)\s+of a valid one`, func() []string { return []string{"1e" + strconv.Itoa(int(orders.FloatNoise.Exponent()))} }},
	{"market order slippage", "`triggerPrice` ± ([0-9.]+)", func() []string { return []string{strategies.MarketSlippage.String()} }},
	{"market order slippage, recurring", `best ask \+ ([0-9.]+)\)`, func() []string { return []string{strategies.MarketSlippage.String()} }},
	{"copy slippage", `target's price\s+± ([0-9.]+)`, func() []string { return []string{strategies.CopySlippage.String()} }},
	{"copy proportion", "`proportionPct` ([0-9.]+)–([0-9.]+)", func() []string {
		return []string{strategies.MinProportionPct.String(), strategies.MaxProportionPct.String()}
	}},
	{"market buy minimum", `venue's \$([0-9.]+) minimum`, func() []string { return []string{clob.MinMarketBuy.String()} }},
	{"decimals", `at most (\d+) decimals, sizes in shares\s+(\d+)`, func() []string {
		return []string{strconv.Itoa(int(strategies.AmountPlaces)), strconv.Itoa(int(strategies.SizePlaces))}
	}},
}

// lists are the field and value lists the skill states, each compared as
// a whole with the code's.
var lists = []struct {
	name    string
	pattern string // group 1: the list's text
	want    func() []string
}{
	{"PRICE_ALERT fields", `Fields: ([^.]+)\. One-shot`, func() []string { return strategies.ConfigFields(strategies.TypePriceAlert) }},
	{"RECURRING_BUY fields", `Fields: ([^.]+)\. Buys .amountPerInterval.`, func() []string { return strategies.ConfigFields(strategies.TypeRecurringBuy) }},
	{"BUY_LOW_SELL_HIGH fields", `Fields: ([^.]+)\. Buys .sizePerTrade.`, func() []string { return strategies.ConfigFields(strategies.TypeBuyLowSellHigh) }},
	{"COPY_TRADE fields", `Fields: ([^.]+)\. Mirrors`, func() []string { return strategies.ConfigFields(strategies.TypeCopyTrade) }},
	{"strategy fields", `A strategy has\s+([^.]+)\. Each of its`, func() []string { return jsonNames(apistrategies.Strategy{}) }},
	{"execution fields", `executions has\s+([^.;]+); .market. there`, func() []string { return jsonNames(apistrategies.Execution{}) }},
	{"ended reasons", "`endedReason` is one of ([^.]+)\\.\n", func() []string {
		return []string{strategies.EndFired, strategies.EndBudget, strategies.EndTotal, strategies.EndCancelled, strategies.EndExpired, strategies.EndMarketClosed}
	}},
	{"heartbeat actions", `The action types are ([^.]+)\.`, func() []string {
		return []string{heartbeat.ActionRedeem, heartbeat.ActionOrderFilled, heartbeat.ActionBudgetLow, heartbeat.ActionPositionExpiring,
			heartbeat.ActionSeekTrades, heartbeat.ActionStrategyExecuted, heartbeat.ActionStrategyError, heartbeat.ActionStrategyCompleted,
			heartbeat.ActionStrategyPaused, heartbeat.ActionStrategyCancelled}
	}},
}

func jsonNames(v any) []string { return codes(jsonFields(v)) }

// checkFacts compares every fact and list the text states with the code;
// it returns one line per difference.
func checkFacts(text string) []string {
	var diffs []string
	for _, f := range stated {
		ms := regexp.MustCompile(f.pattern).FindAllStringSubmatch(text, -1)
		if len(ms) == 0 {
			diffs = append(diffs, fmt.Sprintf("%s: the skill no longer states it (%s)", f.name, f.pattern))
			continue
		}
		for _, m := range ms {
			if got := m[1:]; !slices.Equal(got, f.want()) {
				diffs = append(diffs, fmt.Sprintf("%s: the skill says %v, the code %v (%q)", f.name, got, f.want(), m[0]))
			}
		}
	}
	for _, l := range lists {
		m := regexp.MustCompile(l.pattern).FindStringSubmatch(text)
		if m == nil {
			diffs = append(diffs, fmt.Sprintf("%s: the skill no longer states it (%s)", l.name, l.pattern))
			continue
		}
		if got := codes(m[1]); !slices.Equal(got, l.want()) {
			diffs = append(diffs, fmt.Sprintf("%s: the skill lists %v, the code %v", l.name, got, l.want()))
		}
	}
	// Every action type of the heartbeat has a row in the skill's table.
	for _, a := range lists[len(lists)-1].want() {
		if !strings.Contains(text, "| `"+a+"` |") {
			diffs = append(diffs, fmt.Sprintf("heartbeat action %s has no row in the skill's table", a))
		}
	}
	return diffs
}

// TestSkillFacts: every fact the served skill states — version, limits,
// intervals, thresholds, field lists — is the code's.
func TestSkillFacts(t *testing.T) {
	for _, d := range checkFacts(string(Text())) {
		t.Error(d)
	}
}

// TestSkillFactsDetectDrift: the check fails when a fact differs — a
// constant the template was filled from, or a literal written into the
// text instead of a fact.
func TestSkillFactsDetectDrift(t *testing.T) {
	for name, mutate := range map[string]func(*facts){
		"strategy limit":  func(f *facts) { f.MaxStrategies++ },
		"version":         func(f *facts) { f.Version-- },
		"counted":         func(f *facts) { f.CountedStatuses = "ACTIVE" },
		"interval":        func(f *facts) { f.MinIntervalMs = 30_000 },
		"execution field": func(f *facts) { f.ExecutionFields = codeList([]string{"id", "seq"}) },
	} {
		f := current()
		mutate(&f)
		b, err := render(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(checkFacts(string(b))) == 0 {
			t.Errorf("%s: a skill stating another value passed the check", name)
		}
	}
	literal := strings.Replace(string(Text()), "Default "+strconv.Itoa(ratelimit.DefaultLimit)+" requests", "Default 60 requests", 1)
	if len(checkFacts(literal)) == 0 {
		t.Error("a literal rate limit in the text passed the check")
	}
	gone := strings.Replace(string(Text()), "At most ", "Up to ", 1)
	if len(checkFacts(gone)) == 0 {
		t.Error("a fact the skill stopped stating passed the check")
	}
}

// TestSkillRendersEveryFact: the template names only facts that exist
// (missingkey=error) and leaves no action unrendered.
func TestSkillRendersEveryFact(t *testing.T) {
	if strings.Contains(string(Text()), "{{") || strings.Contains(string(Text()), "<no value>") {
		t.Fatal("the skill has an unrendered template action")
	}
}
