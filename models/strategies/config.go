package strategies

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
)

// Dec is a decimal that reads a JSON number or decimal string and writes a
// JSON number (the spec's amounts and prices are numbers), exactly.
type Dec struct{ decimal.Decimal }

// D wraps d.
func D(d decimal.Decimal) *Dec { return &Dec{d} }

// MarshalJSON writes the exact decimal as a JSON number.
func (d Dec) MarshalJSON() ([]byte, error) { return []byte(d.Decimal.String()), nil }

// UnmarshalJSON reads a JSON number or a decimal string.
func (d *Dec) UnmarshalJSON(b []byte) error { return d.Decimal.UnmarshalJSON(b) }

func (d *Dec) val() decimal.Decimal {
	if d == nil {
		return decimal.Zero
	}
	return d.Decimal
}

// Config is a strategy's configuration: the union of the fields of every
// type; Parse accepts for each type only its own fields. It is stored as
// normalised JSON (ParseConfig's output) and shown as stored.
type Config struct {
	// Market: exactly one of TokenID and MarketQuery. Outcome picks the
	// token of a market found by MarketQuery (Yes/No; Up is Yes, Down is
	// No on the crypto up/down markets); RECURRING_BUY takes it always.
	TokenID     string `json:"tokenId,omitempty"`
	MarketQuery string `json:"marketQuery,omitempty"`
	Outcome     string `json:"outcome,omitempty"`

	// PRICE_ALERT (and PriceLimit below: the worst price of its MARKET or
	// FOK order).
	Side             string `json:"side,omitempty"`
	TriggerCondition string `json:"triggerCondition,omitempty"`
	TriggerPrice     *Dec   `json:"triggerPrice,omitempty"`
	Size             *Dec   `json:"size,omitempty"`
	OrderType        string `json:"orderType,omitempty"`

	// RECURRING_BUY.
	AmountPerInterval *Dec   `json:"amountPerInterval,omitempty"`
	IntervalMs        int64  `json:"intervalMs,omitempty"`
	Interval          string `json:"interval,omitempty"`
	MaxTotalAmount    *Dec   `json:"maxTotalAmount,omitempty"`
	PriceLimit        *Dec   `json:"priceLimit,omitempty"`

	// BUY_LOW_SELL_HIGH.
	BuyBelow     *Dec `json:"buyBelow,omitempty"`
	SellAbove    *Dec `json:"sellAbove,omitempty"`
	SizePerTrade *Dec `json:"sizePerTrade,omitempty"`
	MaxOpenSize  *Dec `json:"maxOpenSize,omitempty"`

	// COPY_TRADE (copytrade.go).
	TargetAddress   string   `json:"targetAddress,omitempty"`
	SizingMode      string   `json:"sizingMode,omitempty"`
	FixedAmount     *Dec     `json:"fixedAmount,omitempty"`
	ProportionPct   *Dec     `json:"proportionPct,omitempty"`
	CopySells       *bool    `json:"copySells,omitempty"`
	MaxPositionSize *Dec     `json:"maxPositionSize,omitempty"`
	TokenFilter     []string `json:"tokenFilter,omitempty"`
}

// Trigger conditions and order types of PRICE_ALERT.
const (
	PriceLTE = "PRICE_LTE"
	PriceGTE = "PRICE_GTE"

	OrderMarket = "MARKET"
	OrderLimit  = "LIMIT"
	OrderFOK    = "FOK"
)

// ConfigFields returns the config fields of type typ (nil for an unknown
// type): the API accepts these and no others.
func ConfigFields(typ string) []string {
	if t := TypeOf(typ); t != nil {
		return slices.Clone(t.Fields())
	}
	return nil
}

// CheckType validates a strategy type.
func CheckType(t string) error {
	if TypeOf(t) != nil {
		return nil
	}
	names := Types[:len(Types)-1]
	return errs.Ef(errs.Invalid, "type must be %s or %s, not %q", strings.Join(names, ", "), Types[len(Types)-1], t).WithCode(errs.CodeInvalidStrategyType)
}

// ParseConfig decodes and validates raw as the config of type typ and
// returns it with its normalised JSON.
func ParseConfig(typ string, raw json.RawMessage) (Config, json.RawMessage, error) {
	if err := CheckType(typ); err != nil {
		return Config{}, nil, err
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return Config{}, nil, errs.E(errs.Invalid, "config is required").WithCode(errs.CodeInvalidField)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return Config{}, nil, errs.E(errs.Invalid, "config must be a JSON object").WithCode(errs.CodeInvalidField)
	}
	allowed := TypeOf(typ).Fields()
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if !slices.Contains(allowed, k) {
			return Config{}, nil, errs.Ef(errs.Invalid, "config field %q is not a field of %s (fields: %s)", k, typ, strings.Join(allowed, ", ")).
				WithCode(errs.CodeUnknownField)
		}
	}
	var c Config
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&c); err != nil {
		return Config{}, nil, errs.E(errs.Invalid, "config has a field of the wrong type: "+jsonFieldOf(err)).WithCode(errs.CodeInvalidField).WithCause(err)
	}
	if err := c.Validate(typ); err != nil {
		return Config{}, nil, err
	}
	out, err := json.Marshal(c)
	if err != nil {
		return Config{}, nil, errs.Wrap(errs.Internal, err, "encode config")
	}
	return c, out, nil
}

func jsonFieldOf(err error) string {
	var te *json.UnmarshalTypeError
	if ok := asTypeErr(err, &te); ok && te.Field != "" {
		return te.Field
	}
	return "a number must be a JSON number or decimal string"
}

func asTypeErr(err error, te **json.UnmarshalTypeError) bool {
	t, ok := err.(*json.UnmarshalTypeError)
	if ok {
		*te = t
	}
	return ok
}

// Load decodes a stored config (already validated when stored).
func Load(raw string) (Config, error) {
	var c Config
	if err := json.Unmarshal([]byte(raw), &c); err != nil {
		return Config{}, errs.Wrap(errs.Internal, err, "stored strategy config is unreadable")
	}
	return c, nil
}

var (
	one = decimal.NewFromInt(1)
	// maxAmount keeps every amount exact in int64 micro-units with room.
	maxAmount = decimal.New(1, 9)
)

func amountErr(field, msg string) error {
	return errs.Ef(errs.Invalid, "config.%s %s", field, msg).WithCode(errs.CodeInvalidStrategyAmount)
}

// Decimal places: USDC amounts and prices have 6 (micro-units), sizes in
// shares 2 (the venue trades whole hundredths of a share).
const (
	AmountPlaces = 6
	SizePlaces   = 2
)

// precise normalises d to places decimals: a number within
// orders.FloatNoise of such a value (0.026000000000000002 for 0.026) is
// that value, used as such and stored so; one further away is refused,
// naming the valid values on either side.
func precise(d *Dec, places int32) (msg string, ok bool) {
	if v, ok := orders.SnapPlaces(d.Decimal, places); ok {
		d.Decimal = v
		return "", true
	}
	return fmt.Sprintf("has more than %d decimals: %s", places, orders.Nearest(d.Decimal, decimal.New(1, -places))), false
}

func positive(field string, d *Dec, required bool) error {
	return positiveIn(field, d, required, AmountPlaces)
}

// positiveIn checks a positive number of at most places decimals (after
// float noise is taken away).
func positiveIn(field string, d *Dec, required bool, places int32) error {
	if d == nil {
		if required {
			return amountErr(field, "is required")
		}
		return nil
	}
	if msg, ok := precise(d, places); !ok {
		return amountErr(field, msg)
	}
	if d.Sign() <= 0 {
		return amountErr(field, "must be positive")
	}
	if d.GreaterThan(maxAmount) {
		return amountErr(field, "must be at most 1000000000")
	}
	return nil
}

// price checks a price strictly between 0 and 1.
func price(field string, d *Dec, required bool, code string) error {
	if d == nil {
		if required {
			return errs.Ef(errs.Invalid, "config.%s is required", field).WithCode(code)
		}
		return nil
	}
	if msg, ok := precise(d, AmountPlaces); !ok {
		return errs.Ef(errs.Invalid, "config.%s %s", field, msg).WithCode(code)
	}
	if d.Sign() <= 0 || d.GreaterThanOrEqual(one) {
		return errs.Ef(errs.Invalid, "config.%s must be between 0 and 1 (exclusive), got %s", field, d.String()).WithCode(code)
	}
	return nil
}

// Validate checks c as the config of typ (fields of other types are
// refused by ParseConfig before).
func (c *Config) Validate(typ string) error {
	t := TypeOf(typ)
	if t == nil {
		return CheckType(typ)
	}
	if t.Traits().Market == MarketNone {
		// Copies follow a wallet, not a market.
		return t.Validate(c)
	}
	c.TokenID = strings.TrimSpace(c.TokenID)
	c.MarketQuery = strings.TrimSpace(c.MarketQuery)
	if (c.TokenID == "") == (c.MarketQuery == "") {
		return errs.E(errs.Invalid, "config needs exactly one of tokenId and marketQuery").WithCode(errs.CodeInvalidMarketSelector)
	}
	if c.TokenID != "" && !validTokenID(c.TokenID) {
		return errs.Ef(errs.Invalid, "config.tokenId %q is not a token id (a decimal number)", c.TokenID).WithCode(errs.CodeInvalidTokenID)
	}
	if len(c.MarketQuery) > 200 {
		return errs.E(errs.Invalid, "config.marketQuery is longer than 200 characters").WithCode(errs.CodeInvalidMarketSelector)
	}
	if c.Outcome != "" {
		switch strings.ToLower(c.Outcome) {
		case "yes":
			c.Outcome = "Yes"
		case "no":
			c.Outcome = "No"
		default:
			return errs.Ef(errs.Invalid, "config.outcome must be Yes or No, not %q", c.Outcome).WithCode(errs.CodeInvalidOutcome)
		}
	}
	return t.Validate(c)
}

var humanInterval = regexp.MustCompile(`^([0-9]+)\s*(m|min|mins|minutes?|h|hr|hours?|d|days?)$`)

// interval is RECURRING_BUY's interval: intervalMs, or interval ("15m",
// "1h", "1d"); exactly one.
func (c *Config) interval() (time.Duration, error) {
	bad := func(msg string) error { return errs.E(errs.Invalid, msg).WithCode(errs.CodeInvalidInterval) }
	c.Interval = strings.ToLower(strings.TrimSpace(c.Interval))
	var d time.Duration
	switch {
	case c.IntervalMs != 0 && c.Interval != "":
		return 0, bad("config needs one of intervalMs and interval, not both")
	case c.IntervalMs != 0:
		if c.IntervalMs < 0 || c.IntervalMs > MaxInterval.Milliseconds() {
			return 0, bad(fmt.Sprintf("config.intervalMs must be between %d and %d", MinInterval.Milliseconds(), MaxInterval.Milliseconds()))
		}
		d = time.Duration(c.IntervalMs) * time.Millisecond
	case c.Interval != "":
		m := humanInterval.FindStringSubmatch(c.Interval)
		if m == nil {
			return 0, bad(`config.interval must be a number of minutes, hours or days, e.g. "15m", "1h", "1d"`)
		}
		n, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil || n > MaxInterval.Milliseconds() {
			return 0, bad("config.interval is too long")
		}
		unit := time.Minute
		switch m[2][0] {
		case 'h':
			unit = time.Hour
		case 'd':
			unit = 24 * time.Hour
		}
		d = time.Duration(n) * unit
	default:
		return 0, bad("config needs intervalMs (at least 60000) or interval (e.g. \"15m\")")
	}
	if d < MinInterval {
		return 0, bad("the interval must be at least 60000 ms (1 minute)")
	}
	if d > MaxInterval {
		return 0, bad("the interval must be at most 30 days")
	}
	return d, nil
}

// IntervalDuration is RECURRING_BUY's interval (zero for other types).
func (c Config) IntervalDuration() time.Duration {
	d, err := c.interval()
	if err != nil {
		return 0
	}
	return d
}

func validTokenID(s string) bool {
	if len(s) == 0 || len(s) > 78 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return strings.TrimLeft(s, "0") != ""
}

// CheckMaxBudget validates a strategy budget (USDC).
func CheckMaxBudget(d *Dec) error {
	if d == nil {
		return errs.E(errs.Invalid, "maxBudget is required: every strategy has a budget").WithCode(errs.CodeInvalidMaxBudget)
	}
	if msg, ok := precise(d, AmountPlaces); !ok {
		return errs.E(errs.Invalid, "maxBudget "+msg).WithCode(errs.CodeInvalidMaxBudget)
	}
	if d.Sign() <= 0 || d.GreaterThan(maxAmount) {
		return errs.E(errs.Invalid, "maxBudget must be a positive USDC amount up to 1000000000 with at most 6 decimals").WithCode(errs.CodeInvalidMaxBudget)
	}
	return nil
}
