package strategies

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/events"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/micro"
)

// Type is one strategy type: everything that differs between PRICE_ALERT,
// RECURRING_BUY, BUY_LOW_SELL_HIGH and COPY_TRADE. Each type is one file
// (price_alert.go, recurring_buy.go, buy_low_sell_high.go, copy_trade.go)
// and one line of registry below; the engine, the validation, the
// triggers and the summaries ask the type, never compare its name.
//
// Conditions and Decide are pure: they read only what they are given (the
// strategy's counters and config, the top of book, the clock), so the
// same decision runs in the engine and over recorded history (a
// backtest), without a store, a venue or Temporal.
type Type interface {
	// Name is the type as the API names it ("PRICE_ALERT").
	Name() string
	// Traits say how the engine runs the type (its market, its timer).
	Traits() Traits
	// Fields are the config fields the type accepts; the API refuses
	// any other.
	Fields() []string
	// Validate checks and normalises the type's own fields of c. For a
	// type with a market (Traits.Market != MarketNone) the market
	// selector (tokenId, marketQuery, outcome) was checked before.
	Validate(c *Config) error
	// Feasible refuses (CodeStrategyInfeasible) a valid config that could
	// never place its order with budget, in a market whose minimum order
	// size is minSize (zero when unknown).
	Feasible(c Config, budget, minSize decimal.Decimal) error
	// Conditions are the price conditions an ACTIVE strategy with a token
	// waits for (the triggers arm them); nil when a timer or a wallet's
	// trades wake it instead.
	Conditions(s Snapshot) []Cond
	// Decide is what to do now: an order to place (KindAction), a skip
	// recorded as such (KindSkip), or nothing to do (Kind "") with why.
	// The engine re-checks the schedule before (Traits.Interval) and
	// places, records and accounts for the plan after.
	Decide(in Input) (Plan, error)
	// Done is, after an execution whose counters are s, why the strategy
	// can never act again although budget is left (RECURRING_BUY: what
	// is left cannot buy the venue's minimum); "" otherwise. A spent
	// budget ends every type without asking.
	Done(s Snapshot) string
	// SellsHoldings reports whether the strategy sells what it bought,
	// so it ends only once it holds nothing (BUY_LOW_SELL_HIGH, a
	// COPY_TRADE that copies sells).
	SellsHoldings(c Config) bool
	// Summary is the config's key terms, for operators (the workflow's
	// memo) and the logs.
	Summary(c Config) string
}

// MarketUse is how a type trades markets.
type MarketUse int

const (
	// MarketOne: the strategy trades the one token its tokenId or
	// marketQuery names; a marketQuery moves it to the market it names
	// when its market ends, and what it holds is that token's
	// (PRICE_ALERT, BUY_LOW_SELL_HIGH).
	MarketOne MarketUse = iota
	// MarketEach: every execution resolves the marketQuery again and
	// simply trades in the market it names now (RECURRING_BUY).
	MarketEach
	// MarketNone: no market of its own; it follows a wallet's trades
	// (COPY_TRADE, see Follower).
	MarketNone
)

// Traits are how the engine runs a type.
type Traits struct {
	Market MarketUse
	// Interval: the strategy runs on a timer (NextEvaluationAt, every
	// Config.IntervalDuration) rather than on price conditions; a hint
	// only makes it look whether its time has come.
	Interval bool
	// EndsWhenPlaced is the ended reason once its order is placed (a
	// one-shot: PRICE_ALERT's EndFired); "" for types that go on.
	EndsWhenPlaced string
	// Unfilled, when set, makes an order of it that the book left
	// unfilled within its bound a skip (nothing was there), not a
	// failure; it is the skip's reason, a format of the order's price and
	// the plan's reason.
	Unfilled string
	// Action is an execution's action when it placed no order ("BUY").
	Action string
}

// Follower is a type that copies a wallet's trades (COPY_TRADE): the
// engine runs its executions over the recorded trades of Target (claimed
// one per execution, copied under a key derived from the trade, see
// copytrade.go) instead of a market's prices, and the service checks the
// target is not the user's own wallet.
type Follower interface {
	Type
	// Target is the wallet c follows.
	Target(c Config) string
}

// Snapshot is what a type's pure functions know of a strategy: its config,
// token and counters (micro-units, as stored).
type Snapshot struct {
	Config  Config
	TokenID string
	// MaxBudgetMicro and BudgetUsedMicro are the budget and what the
	// strategy's orders charged it (USDC).
	MaxBudgetMicro  int64
	BudgetUsedMicro int64
	// OpenSizeMicro is what its buys filled less what its sells filled or
	// offer (shares); BuyingMicro what its live buys may still fill.
	OpenSizeMicro int64
	BuyingMicro   int64
	Executions    int
}

// Left is the budget left (USDC).
func (s Snapshot) Left() decimal.Decimal { return micro.Decimal(s.MaxBudgetMicro - s.BudgetUsedMicro) }

// Sellable is what the strategy can sell of its open size: the venue
// trades whole hundredths of a share, so dust below 0.01 (a market buy,
// sized in USDC at the level read, that filled at a better price gets a
// little more than its size) is neither sold nor counted as held.
func (s Snapshot) Sellable() decimal.Decimal { return micro.Decimal(s.OpenSizeMicro).RoundFloor(2) }

// Top is a token's top of book (zero on an empty side) and tick.
type Top struct {
	Bid, Ask decimal.Decimal
	Tick     string
}

// Input is what Decide decides from.
type Input struct {
	Snapshot
	Now time.Time
	// Top is the top of book of Snapshot.TokenID (types with a market).
	Top Top
	// Book reads the token's whole book, for a type that walks it
	// (RECURRING_BUY); called only when the decision needs it.
	Book func() (*clob.OrderBook, error)
	// Trade is the target's trade to copy (a Follower), with what the
	// strategy holds of its token.
	Trade *TargetTrade
}

// TargetTrade is a recorded trade (or non-trade) of a followed wallet and
// the copier's shares of its token: held (what it may sell), committed
// (held plus what its live buys may still fill).
type TargetTrade struct {
	Event          *models.CopyTrade
	HeldMicro      int64
	CommittedMicro int64
}

// Plan is what an execution decided.
type Plan struct {
	// Kind is KindAction (place Order), KindSkip (record a skip) or ""
	// (nothing to do; Reason says why, nothing is recorded).
	Kind   string
	Reason string
	Order  orders.PlaceRequest
	// Complete ends the strategy after this execution (ended reason).
	Complete string
	// Stop puts the strategy in ERROR at once (a KindError that no retry
	// can cure: a COPY_TRADE whose target is the user's own wallet).
	Stop bool
	// Conds, when set (non-nil; empty arms none), are the conditions
	// armed after this execution instead of the type's own (a PRICE_ALERT waiting for the price to
	// come back within its bound; a BUY_LOW_SELL_HIGH that cannot afford
	// another lot waiting to sell). A plan that does nothing while its
	// type's conditions are met sets them, or the met condition fires
	// again at once.
	Conds []Cond
}

// Nothing is a plan with nothing to do, and why.
func Nothing(why string) Plan { return Plan{Reason: why} }

// registry is every strategy type, in the order the API lists them: a new
// type is its file and one line here.
var registry = []Type{
	priceAlert{},
	recurringBuy{},
	buyLowSellHigh{},
	copyTrade{},
}

// byName indexes registry.
var byName = indexTypes()

// The events of a strategy carry its type: one of the registry's.
func init() { events.SetStrategyTypes(func(name string) bool { return TypeOf(name) != nil }) }

func indexTypes() map[string]Type {
	m := make(map[string]Type, len(registry))
	for _, t := range registry {
		m[t.Name()] = t
	}
	return m
}

// Types lists the strategy types' names.
var Types = typeNames()

func typeNames() []string {
	out := make([]string, 0, len(registry))
	for _, t := range registry {
		out = append(out, t.Name())
	}
	return out
}

// TypeOf is the type named name (nil for an unknown name).
func TypeOf(name string) Type { return byName[name] }

// typeOf is the type of a stored strategy, whose type was checked when it
// was created: an unknown one (a row written by a newer version) runs as
// a type that never acts.
func typeOf(name string) Type {
	if t := byName[name]; t != nil {
		return t
	}
	return unknownType(name)
}

// followerOf is the type named name when it follows a wallet.
// Scheduled reports whether a stored strategy of this type runs on an
// interval (its workflow wakes at NextEvaluationAt), from the registry
// rather than a list of type names in the workflow.
func Scheduled(name string) bool { return typeOf(name).Traits().Interval }

func followerOf(name string) (Follower, bool) {
	f, ok := byName[name].(Follower)
	return f, ok
}

// register adds t to the registry (tests: a type defined in a _test.go
// file) and returns what removes it again.
func register(t Type) (undo func()) {
	registry = append(registry, t)
	byName, Types = indexTypes(), typeNames()
	return func() {
		registry = registry[:len(registry)-1]
		byName, Types = indexTypes(), typeNames()
	}
}

// unknownType stands for a type no entry of the registry names: it
// accepts no config, waits for nothing and refuses to decide.
type unknownType string

func (u unknownType) Name() string                                          { return string(u) }
func (unknownType) Traits() Traits                                          { return Traits{Action: "BUY"} }
func (unknownType) Fields() []string                                        { return nil }
func (u unknownType) Validate(*Config) error                                { return CheckType(string(u)) }
func (unknownType) Feasible(Config, decimal.Decimal, decimal.Decimal) error { return nil }
func (unknownType) Conditions(Snapshot) []Cond                              { return nil }
func (u unknownType) Decide(Input) (Plan, error) {
	return Plan{}, errs.Ef(errs.Internal, "strategy type %s has no executor", string(u))
}
func (unknownType) Done(Snapshot) string      { return "" }
func (unknownType) SellsHoldings(Config) bool { return false }
func (unknownType) Summary(Config) string     { return "" }
