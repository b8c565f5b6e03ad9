// Package skill serves the agent skill, {base_url}/skill.md: the document
// that teaches an AI agent to use the service (linking, the heartbeat
// loop, trading, strategies, errors and the rules). Its integer Version is
// the heartbeat's latest_skill_version; TestVersionMatchesContent fails
// when the text changes without a new version (and its digest) in
// versions.
//
// The skill states facts of the service — its version, limits, intervals,
// thresholds and field lists — and must never contradict it: skill.md is a
// text/template whose facts are filled from the very constants the code
// enforces (facts below), so a changed constant changes the skill (and,
// through the digest test, forces a new version); TestSkillFacts reads
// each stated fact back from the served text and compares it with the code.
package skill

import (
	"bytes"
	_ "embed"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/ratelimit"
	apistrategies "github.com/agent-trading/ats/api/strategies"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/heartbeat"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/venue/clob"
)

// Version is the skill's version. Bump it (and add the new digest to
// versions in skill_test.go) whenever the served skill changes: its text,
// or a fact of the code it states.
const Version = 6

// Path is where the skill is served.
const Path = "/skill.md"

//go:embed skill.md
var source string

// facts are what the skill states about the service, each taken from the
// constant the code enforces.
type facts struct {
	Version             int
	RateLimit           int    // requests per minute of a key by default
	HeartbeatIntervalMs int64  // a new agent's heartbeat interval
	DeviceExpiresIn     int    // seconds a device code lives
	DevicePoll          int    // seconds between token polls
	MaxStrategies       int    // strategies an agent may hold not finished
	CountedStatuses     string // the statuses that count against it
	Expiry              string // the default expiry of an agent's strategy
	MaxExtension        string // how far ahead an expiry may be set
	ErrorsToPause       int    // consecutive failed executions before ERROR
	DetailExecutions    int    // executions a strategy's detail shows
	MinIntervalMs       int64  // RECURRING_BUY's shortest interval
	MaxInterval         string // and longest
	BudgetLowFloor      string // BUDGET_LOW below this many USDC…
	BudgetLowPercent    string // …or this percent of the limit
	ExpiringWithin      string // POSITION_EXPIRING window
	MinPrice, MaxPrice  string // an order's price range
	Slippage            string // a strategy's market order beyond its start price
	CopySlippage        string // a copy's beyond the target's price
	MinPct, MaxPct      string // proportionPct's range
	MinMarketBuy        string // the venue's smallest marketable BUY, USDC
	FloatNoise          string // how far a number may be from a valid one
	AmountPlaces        int32  // decimals of a USDC amount or price
	SizePlaces          int32  // decimals of a size in shares
	EndedReasons        string // a finished strategy's endedReason values
	StrategyFields      string // a strategy answer's fields
	ExecutionFields     string // an execution entry's fields
	MarketFields        string // a market object's fields
	Actions             string // the heartbeat's action types
}

// current are the facts of this build.
func current() facts {
	return facts{
		Version:             Version,
		RateLimit:           ratelimit.DefaultLimit,
		HeartbeatIntervalMs: models.DefaultHeartbeatIntervalMs,
		DeviceExpiresIn:     int(agents.DefaultDeviceCodeTTL / time.Second),
		DevicePoll:          int(agents.DefaultPollInterval / time.Second),
		MaxStrategies:       strategies.MaxNonFinal,
		CountedStatuses:     orList(strategies.NonFinal),
		Expiry:              duration(strategies.DefaultExpiry),
		MaxExtension:        duration(strategies.MaxExpiry),
		ErrorsToPause:       strategies.MaxConsecutiveErrors,
		DetailExecutions:    strategies.DetailExecutions,
		MinIntervalMs:       strategies.MinInterval.Milliseconds(),
		MaxInterval:         duration(strategies.MaxInterval),
		BudgetLowFloor:      heartbeat.BudgetLowFloor.String(),
		BudgetLowPercent:    heartbeat.BudgetLowShare.Mul(decimal.NewFromInt(100)).String(),
		ExpiringWithin:      duration(heartbeat.ExpiringWithin),
		MinPrice:            orders.MinPrice.StringFixed(2),
		MaxPrice:            orders.MaxPrice.StringFixed(2),
		Slippage:            strategies.MarketSlippage.String(),
		CopySlippage:        strategies.CopySlippage.String(),
		MinPct:              strategies.MinProportionPct.String(),
		MaxPct:              strategies.MaxProportionPct.String(),
		MinMarketBuy:        clob.MinMarketBuy.String(),
		FloatNoise:          "1e" + strconv.Itoa(int(orders.FloatNoise.Exponent())),
		AmountPlaces:        strategies.AmountPlaces,
		SizePlaces:          strategies.SizePlaces,
		EndedReasons: codeList([]string{strategies.EndFired, strategies.EndBudget, strategies.EndTotal, strategies.EndCancelled,
			strategies.EndExpired, strategies.EndMarketClosed}),
		StrategyFields:  jsonFields(apistrategies.Strategy{}),
		ExecutionFields: jsonFields(apistrategies.Execution{}),
		MarketFields:    jsonFields(apistrategies.Market{}),
		Actions: codeList([]string{heartbeat.ActionRedeem, heartbeat.ActionOrderFilled, heartbeat.ActionBudgetLow, heartbeat.ActionPositionExpiring,
			heartbeat.ActionSeekTrades, heartbeat.ActionStrategyExecuted, heartbeat.ActionStrategyError, heartbeat.ActionStrategyCompleted,
			heartbeat.ActionStrategyPaused, heartbeat.ActionStrategyCancelled}),
	}
}

// duration says d in the largest whole unit of which it is at least two:
// "24 hours", "30 days", "30 minutes".
func duration(d time.Duration) string {
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{24 * time.Hour, "day"}, {time.Hour, "hour"}, {time.Minute, "minute"}} {
		if d >= 2*u.d && d%u.d == 0 {
			n := int(d / u.d)
			if n == 1 {
				return "1 " + u.name
			}
			return strconv.Itoa(n) + " " + u.name + "s"
		}
	}
	return d.String()
}

// codeList is "`a`, `b` and `c`".
func codeList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = "`" + x + "`"
	}
	return join(q, "and")
}

// orList is "A, B or C".
func orList(xs []string) string { return join(xs, "or") }

func join(xs []string, last string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " " + last + " " + xs[len(xs)-1]
}

// jsonFields lists the JSON names of a DTO's fields, in order, as code.
func jsonFields(v any) string {
	t := reflect.TypeOf(v)
	var names []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return codeList(names)
}

// configFields lists the config fields of a strategy type, as code.
func configFields(typ string) string { return codeList(strategies.ConfigFields(typ)) }

// render fills the skill's template with f.
func render(f facts) ([]byte, error) {
	t, err := template.New("skill.md").Option("missingkey=error").
		Funcs(template.FuncMap{"fields": configFields}).Parse(source)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, f); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

var text = func() []byte {
	b, err := render(current())
	if err != nil {
		panic(fmt.Sprintf("skill.md does not render: %v", err)) // caught by every test of the package
	}
	return b
}()

// Text returns the skill document.
func Text() []byte { return append([]byte(nil), text...) }

// Routes serves the skill: public (no key), text/markdown, cacheable for
// an hour; the version is also in the X-Skill-Version header. baseURL,
// when set, replaces the text's "{base_url}" placeholders, so an agent can
// use the examples as they are.
func Routes(baseURL string) api.Routes {
	body := text
	if baseURL = strings.TrimRight(baseURL, "/"); baseURL != "" {
		body = bytes.ReplaceAll(text, []byte("{base_url}"), []byte(baseURL))
	}
	return func(s *api.Server) {
		s.Engine().GET(Path, func(c *gin.Context) {
			c.Header("Cache-Control", "public, max-age=3600")
			c.Header("X-Skill-Version", strconv.Itoa(Version))
			c.Data(http.StatusOK, "text/markdown; charset=utf-8", body)
		})
	}
}
