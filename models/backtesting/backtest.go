// Package backtest replays a strategy config over a window of the venue's
// recorded history: the type's own decision code (models/strategies'
// Decide, DecideCopy, Conditions and End, the code the live strategy runs)
// at each recorded price point, with orders filled by a documented model
// (fill.go, docs/backtesting.md). Nothing is placed and nothing is stored.
package backtesting

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/venue/clob"
)

// MaxWindow is the longest window a backtest replays.
const MaxWindow = 30 * 24 * time.Hour

// Source reads the venue's records a backtest replays.
type Source interface {
	// PriceHistory is the token's recorded price path in [from, to], at
	// the finest interval the venue serves for that span, oldest first.
	PriceHistory(ctx context.Context, token string, from, to time.Time) ([]clob.PricePoint, error)
	// Market is the token's market as the venue describes it now.
	Market(ctx context.Context, token string) (*Market, error)
	// MarketTrades are the fills the venue recorded in a market (by
	// condition id) in [from, to]: its volume. since is the time from which
	// they are every fill (from, unless the venue pages no further back).
	MarketTrades(ctx context.Context, conditionID string, from, to time.Time) (trades []Trade, since time.Time, err error)
	// WalletTrades are a wallet's recorded fills in [from, to] (the Data
	// API's activity), oldest first.
	WalletTrades(ctx context.Context, wallet string, from, to time.Time) ([]Trade, error)
}

// Market is what a backtest needs of a token's market.
type Market struct {
	TokenID     string
	ConditionID string
	Question    string
	Outcome     string
	Slug        string
	EndDate     *time.Time
	Tick        decimal.Decimal
	MinSize     decimal.Decimal // the market's minimum order size (zero: unknown)
	// Spread is the book's spread now: the model's typical spread.
	Spread decimal.Decimal
	Closed bool
	// Resolved and Won: the market resolved, and this token's outcome won.
	Resolved bool
	Won      bool
}

// Trade is one recorded fill.
type Trade struct {
	Time        time.Time
	TokenID     string
	ConditionID string
	Side        string // BUY or SELL
	Size        decimal.Decimal
	Price       decimal.Decimal
	TxHash      string
	LogIndex    int64
}

// Request is a backtest: a strategy's create body plus a window and a
// starting balance.
type Request struct {
	Type            string
	Config          json.RawMessage
	MaxBudget       *strategies.Dec
	From, To        time.Time
	StartingBalance decimal.Decimal
}

// Position is a holding at the end of the window.
type Position struct {
	TokenID  string
	Market   *strategies.Market
	Size     decimal.Decimal
	AvgPrice decimal.Decimal
	// Price is the last recorded price (the mark); Value Size × Price.
	Price         decimal.Decimal
	Value         decimal.Decimal
	UnrealizedPnL decimal.Decimal
}

// Result is what a backtest answers.
type Result struct {
	Type    string
	TokenID string
	Market  *strategies.Market
	From    time.Time
	To      time.Time
	// Resolution is the typical interval between the price points
	// replayed; Points how many there were.
	Resolution time.Duration
	Points     int
	// Status and EndedReason are where the strategy would stand at the
	// end of the window (ACTIVE, COMPLETED or ERROR).
	Status      string
	EndedReason string
	Executions  []strategies.Execution
	// StartingBalance and FinalBalance are collateral (USDC).
	StartingBalance decimal.Decimal
	FinalBalance    decimal.Decimal
	Positions       []Position
	RealizedPnL     decimal.Decimal
	UnrealizedPnL   decimal.Decimal
	// MaxDrawdown is the largest fall of equity (balance + positions at
	// their recorded price) from a previous peak, in USDC and as a
	// fraction of that peak.
	MaxDrawdown    decimal.Decimal
	MaxDrawdownPct decimal.Decimal
	// Trades counts fills.
	Trades     int
	BudgetUsed decimal.Decimal
	// Prices is the replayed price path (for a chart); Thresholds the
	// config's price levels drawn with it.
	Prices     []clob.PricePoint
	Thresholds map[string]decimal.Decimal
	Warnings   []string
}

// Service runs backtests.
type Service struct {
	Source Source
	// Resolver resolves a marketQuery to the token it names now (nil:
	// only tokenId configs).
	Resolver strategies.Resolver
	Now      func() time.Time
	// MaxConcurrent bounds the backtests a process runs at once (default
	// DefaultConcurrent); more wait for a slot while their request lasts.
	MaxConcurrent int

	once  sync.Once
	slots chan struct{}
}

// DefaultConcurrent is how many backtests a process runs at once: each
// is CPU-bound for up to a couple of seconds.
const DefaultConcurrent = 2

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

func windowErr(msg string) error {
	return errs.E(errs.Invalid, msg).WithCode(errs.CodeInvalidBacktestWindow)
}

// Check validates a request's window and balance.
func (s *Service) Check(r Request) error {
	switch {
	case r.From.IsZero() || r.To.IsZero():
		return windowErr("from and to are required (RFC 3339 times)")
	case !r.To.After(r.From):
		return windowErr("to must be after from")
	case r.To.After(s.now().Add(time.Minute)):
		return windowErr("to is in the future: a backtest replays recorded history")
	case r.To.Sub(r.From) > MaxWindow:
		return windowErr("the window is longer than 30 days")
	case r.StartingBalance.Sign() <= 0:
		return windowErr("startingBalance must be a positive USDC amount")
	case r.StartingBalance.Exponent() < -6:
		return windowErr("startingBalance has more than 6 decimals")
	}
	return nil
}

// Run replays the request's window through the type's decision code.
func (s *Service) Run(ctx context.Context, r Request) (*Result, error) {
	if err := s.Check(r); err != nil {
		return nil, err
	}
	s.once.Do(func() { s.slots = make(chan struct{}, max(1, cmp.Or(s.MaxConcurrent, DefaultConcurrent))) })
	select {
	case s.slots <- struct{}{}:
		defer func() { <-s.slots }()
	case <-ctx.Done():
		return nil, errs.Wrap(errs.Transient, ctx.Err(), "the service is busy with other backtests; retry shortly")
	}
	if err := strategies.CheckType(r.Type); err != nil {
		return nil, err
	}
	cfg, norm, err := strategies.ParseConfig(r.Type, r.Config)
	if err != nil {
		return nil, err
	}
	if err := strategies.CheckMaxBudget(r.MaxBudget); err != nil {
		return nil, err
	}
	typ := strategies.TypeOf(r.Type)
	from, to := r.From.UTC(), r.To.UTC()
	st := &models.Strategy{ID: "backtest", Type: r.Type, Status: strategies.StatusActive, Config: string(norm),
		MaxBudgetMicro: micro(r.MaxBudget.Decimal)}
	sm := &sim{cfg: cfg, typ: typ, st: st, balance: r.StartingBalance, peak: r.StartingBalance, hold: map[string]*lot{},
		marks: map[string]decimal.Decimal{}, markets: map[string]*strategies.Market{}, execOrder: map[int]int{}}
	res := &Result{Type: r.Type, From: from, To: to, StartingBalance: r.StartingBalance}
	if _, ok := typ.(strategies.Follower); ok {
		err = s.runCopy(ctx, sm, res, from, to)
	} else {
		err = s.runToken(ctx, sm, res, from, to)
	}
	if err != nil {
		return nil, err
	}
	sm.finish(res)
	return res, nil
}

// runToken replays PRICE_ALERT, RECURRING_BUY and BUY_LOW_SELL_HIGH over
// their token's price path.
func (s *Service) runToken(ctx context.Context, sm *sim, res *Result, from, to time.Time) error {
	c := sm.cfg
	token := c.TokenID
	if token == "" {
		if s.Resolver == nil {
			return errs.E(errs.Internal, "market search is not configured in this process")
		}
		t, err := s.Resolver.Resolve(ctx, c.MarketQuery, c.Outcome)
		if err != nil {
			return err
		}
		token = t
		sm.warn(fmt.Sprintf("marketQuery %q was replayed on the market it names now (token %s); the live strategy follows the query from window to window", c.MarketQuery, token))
	}
	m, err := s.Source.Market(ctx, token)
	if err != nil {
		return err
	}
	hist, err := s.Source.PriceHistory(ctx, token, from, to)
	if err != nil {
		return err
	}
	if len(hist) == 0 {
		return errs.Ef(errs.NotFound, "the venue has no price history of token %s between %s and %s", token,
			from.Format(time.RFC3339), to.Format(time.RFC3339)).WithCode(errs.CodeNoPriceHistory)
	}
	// The volume of the hour before the window caps its first points.
	trades, since, err := s.Source.MarketTrades(ctx, m.ConditionID, from.Add(-VolumeWindow), to)
	if err != nil {
		return err
	}
	if len(trades) > 0 && since.After(from.Add(-VolumeWindow)) {
		sm.warn(fmt.Sprintf("the venue's trade record of this market reaches back only to %s: fills before it are not capped by volume", since.Format(time.RFC3339)))
	}
	sm.st.TokenID = token
	sm.mkt = m
	sm.markets[token] = marketView(m)
	sm.model = Model{Tick: m.Tick, Spread: m.Spread}
	// A config that could never place its order is refused as on create.
	if err := sm.typ.Feasible(c, dec(sm.st.MaxBudgetMicro), m.MinSize); err != nil {
		return err
	}
	pts := points(hist, trades, since, to, sm.model)
	if len(trades) == 0 {
		sm.warn("the venue recorded no trades of this market in the window (or the hour before it): fills are not capped by volume")
	}
	res.TokenID, res.Market, res.Prices = token, sm.markets[token], hist
	res.Points, res.Resolution = len(pts), resolution(hist)
	res.Thresholds = thresholds(c)
	sparse(sm, hist, from, to, res.Resolution)
	if sm.typ.Traits().Interval {
		first := pts[0].Time // the first buy at once, as on create
		sm.st.NextEvaluationAt = &first
	}
	sm.conds = sm.conditions()
	for _, p := range pts {
		// After the strategy ends the path still marks its holdings.
		sm.at(p)
	}
	if m.Resolved && hist[len(hist)-1].Time.Before(to) {
		sm.settle(token, m.Won, hist[len(hist)-1].Time)
	} else if m.Closed {
		sm.warn("the market closed in the window")
	}
	return nil
}

// points turns the price path into model points with each one's volume
// cap: a share of the volume recorded over the VolumeWindow ending with
// the point's interval (which runs to the next point), or over the
// interval when it is longer.
func points(hist []clob.PricePoint, trades []Trade, since, to time.Time, m Model) []Point {
	sort.Slice(trades, func(i, j int) bool { return trades[i].Time.Before(trades[j].Time) })
	// cum[i] is the volume of trades[:i]: a span's volume is a difference.
	cum := make([]decimal.Decimal, len(trades)+1)
	for i, t := range trades {
		// Both outcomes of a market trade against one book (a buy of one
		// is a sell of the other): every fill of the market is volume of
		// this token.
		cum[i+1] = cum[i].Add(t.Size)
	}
	at := func(t time.Time) int { // trades before t
		return sort.Search(len(trades), func(i int) bool { return !trades[i].Time.Before(t) })
	}
	out := make([]Point, len(hist))
	for i, h := range hist {
		end := to.Add(time.Nanosecond)
		if i+1 < len(hist) {
			end = hist[i+1].Time
		}
		start := end.Add(-VolumeWindow)
		if h.Time.Before(start) {
			start = h.Time
		}
		vol := cum[at(end)].Sub(cum[at(start)])
		bid, ask := m.Quote(h.Price)
		cp, capped := Cap(vol, len(trades) > 0 && !start.Before(since))
		out[i] = Point{Time: h.Time, Price: h.Price, Bid: bid, Ask: ask, Cap: cp, Capped: capped}
	}
	return out
}

// resolution is the median interval between price points.
func resolution(hist []clob.PricePoint) time.Duration {
	if len(hist) < 2 {
		return 0
	}
	gaps := make([]time.Duration, 0, len(hist)-1)
	for i := 1; i < len(hist); i++ {
		gaps = append(gaps, hist[i].Time.Sub(hist[i-1].Time))
	}
	sort.Slice(gaps, func(i, j int) bool { return gaps[i] < gaps[j] })
	return gaps[len(gaps)/2]
}

// sparse warns of a history that covers the window thinly: a late start,
// an early end, or gaps of more than an hour (and ten intervals).
func sparse(sm *sim, hist []clob.PricePoint, from, to time.Time, res time.Duration) {
	limit := max(time.Hour, 10*res)
	if d := hist[0].Time.Sub(from); d > limit {
		sm.warn(fmt.Sprintf("sparse history: the first price point is %s after from", d.Round(time.Second)))
	}
	if d := to.Sub(hist[len(hist)-1].Time); d > limit {
		sm.warn(fmt.Sprintf("sparse history: the last price point is %s before to", d.Round(time.Second)))
	}
	var worst time.Duration
	var at time.Time
	for i := 1; i < len(hist); i++ {
		if g := hist[i].Time.Sub(hist[i-1].Time); g > worst {
			worst, at = g, hist[i-1].Time
		}
	}
	if worst > limit {
		sm.warn(fmt.Sprintf("sparse history: no price recorded for %s from %s", worst.Round(time.Second), at.Format(time.RFC3339)))
	}
	if len(hist) < 2 {
		sm.warn("sparse history: one price point in the window")
	}
}

// thresholds are the config's price levels, for a chart.
func thresholds(c strategies.Config) map[string]decimal.Decimal {
	out := map[string]decimal.Decimal{}
	put := func(k string, d *strategies.Dec) {
		if d != nil {
			out[k] = d.Decimal
		}
	}
	put("triggerPrice", c.TriggerPrice)
	put("priceLimit", c.PriceLimit)
	put("buyBelow", c.BuyBelow)
	put("sellAbove", c.SellAbove)
	return out
}

func marketView(m *Market) *strategies.Market {
	if m == nil || m.Question == "" {
		return nil
	}
	return &strategies.Market{Question: m.Question, Outcome: m.Outcome, Slug: m.Slug, EndDate: m.EndDate}
}

// runCopy replays a COPY_TRADE over its target's recorded fills.
func (s *Service) runCopy(ctx context.Context, sm *sim, res *Result, from, to time.Time) error {
	c := sm.cfg
	trades, err := s.Source.WalletTrades(ctx, c.TargetAddress, from, to)
	if err != nil {
		return err
	}
	sort.SliceStable(trades, func(i, j int) bool { return trades[i].Time.Before(trades[j].Time) })
	if len(trades) == 0 {
		sm.warn("the target made no trades in the window: nothing to copy")
	}
	// The volume of each market the target traded, for the cap.
	vols := map[string][]Trade{}
	for _, t := range trades {
		if _, ok := vols[t.ConditionID]; ok || t.ConditionID == "" {
			continue
		}
		v, _, err := s.Source.MarketTrades(ctx, t.ConditionID, from.Add(-VolumeWindow), to)
		if err != nil {
			return err
		}
		sort.Slice(v, func(i, j int) bool { return v[i].Time.Before(v[j].Time) })
		vols[t.ConditionID] = v
	}
	sm.model = Model{}
	res.Points = len(trades)
	sm.warn("copies fill at the target's recorded price, at most 10% of the market's volume recorded in the hour up to the target's fill (its own included); the live copy follows the target a few seconds later, at the book's price then")
	for _, t := range trades {
		if _, ok := sm.markets[t.TokenID]; !ok {
			if m, err := s.Source.Market(ctx, t.TokenID); err == nil {
				sm.markets[t.TokenID] = marketView(m)
				if m.Resolved && m.Won {
					sm.won = append(sm.won, t.TokenID)
				} else if m.Resolved {
					sm.lost = append(sm.lost, t.TokenID)
				}
			}
		}
		vol, recorded := decimal.Zero, false
		if v := vols[t.ConditionID]; len(v) > 0 {
			recorded = true
			for _, x := range v {
				if !x.Time.Before(t.Time.Add(-VolumeWindow)) && !x.Time.After(t.Time) {
					vol = vol.Add(x.Size)
				}
			}
		}
		sm.copyAt(t, vol, recorded)
		if sm.st.Status != strategies.StatusActive {
			break
		}
	}
	// Marks: each held token at its last recorded price in the window;
	// a market that resolved settles.
	for tok, l := range sm.hold {
		if l.shares.Sign() <= 0 {
			continue
		}
		if h, err := s.Source.PriceHistory(ctx, tok, from, to); err == nil && len(h) > 0 {
			sm.marks[tok] = h[len(h)-1].Price
		}
	}
	for _, tok := range sm.won {
		sm.settle(tok, true, to)
	}
	for _, tok := range sm.lost {
		sm.settle(tok, false, to)
	}
	return nil
}

func micro(d decimal.Decimal) int64 { return d.Shift(6).Truncate(0).IntPart() }

func dec(m int64) decimal.Decimal { return decimal.New(m, -6) }

func upper(s string) string { return strings.ToUpper(s) }
