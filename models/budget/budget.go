// Package budget is the agent budget engine: how much an agent may spend
// now (Snapshot) and the reservations that hold budget for orders
// (Reserve, Convert, Release). Orders and strategies go through it; it is
// the one place where the agent's spending limits are enforced.
//
// Definitions (all amounts in micro-USDC):
//
//	used      = Σ used + Σ held over the agent's reservations
//	            (filled buys plus what live buy orders still hold)
//	wallet    = wallet − Σ held over live reservations of all the user's
//	            agents (orders resting on the venue are not yet paid on chain)
//	fixed     = fixedLimit − used
//	percent   = budgetPercent × wallet balance − used
//	position  = maxPositionValue − open position value − agent's held
//	available = max(0, min of the constraints that are set)
//
// limitedBy names the smallest constraint (ties resolved in the order
// wallet, fixed_limit, percent, position_limit). Open position value is
// Σ size × current price over the agent's open positions, valued at the
// average entry price when the price source has no price for a token.
//
// Atomicity: Reserve computes the totals, checks and inserts inside one
// transaction holding the user's budget lock (store.WithBudgetLock), so
// concurrent reservations of one user never overspend, on PostgreSQL and
// SQLite alike. The wallet balance and position prices are read before the
// transaction (they come from the chain and the venue), so they are as
// fresh as the start of the call.
package budget

import (
	"context"
	"math"
	"math/big"
	"math/bits"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/venue/micro"
)

// Values of Budget.LimitedBy, as the API shows them.
const (
	LimitedByWallet   = "wallet"
	LimitedByFixed    = "fixed_limit"
	LimitedByPercent  = "percent"
	LimitedByPosition = "position_limit"
)

// WalletBalancer reads a user's trading-wallet collateral balance in
// micro-USDC, live from chain. A user without a wallet is errs.NotFound,
// which the engine treats as a zero balance.
type WalletBalancer interface {
	WalletBalance(ctx context.Context, userID string) (int64, error)
}

// PriceSource gives current prices (micro-USDC per share, 0–1_000_000) of
// outcome tokens. Tokens it has no price for are left out of the map.
type PriceSource interface {
	Prices(ctx context.Context, tokenIDs []string) (map[string]int64, error)
}

// Config is the agent's budget settings plus what it has committed.
type Config struct {
	// FixedLimit, BudgetPercent (a percentage, 25 = 25%) and
	// MaxPositionValue are nil when unset.
	FixedLimit       *decimal.Decimal
	BudgetPercent    *decimal.Decimal
	MaxPositionValue *decimal.Decimal
	// Used is filled buys plus the amounts live orders hold.
	Used decimal.Decimal
}

// Budget is what an agent can spend now. Amounts are USDC.
type Budget struct {
	Available decimal.Decimal
	// AvailableMicro is Available in micro-USDC.
	AvailableMicro int64
	LimitedBy      string
	// Wallet is the raw on-chain wallet balance.
	Wallet decimal.Decimal
	// Held is what the agent's live orders hold (part of Config.Used);
	// PositionValue the agent's open position value (zero unless
	// MaxPositionValue is set, since only that limit needs prices).
	Held          decimal.Decimal
	PositionValue decimal.Decimal
	Config        Config
}

// Service is the budget engine. It is safe for concurrent use.
type Service struct {
	st     *store.Store
	wallet WalletBalancer
	prices PriceSource
	// reads serve Snapshot (the store unless ReadingFrom); reservations
	// always read the store, under the budget lock.
	reads Reads
}

// Reads are what Snapshot reads from the database: *store.Store, or a
// cache of it (models/readcache) for the read endpoints.
type Reads interface {
	AgentByID(ctx context.Context, id string) (*models.Agent, error)
	BudgetTotals(ctx context.Context, userID, agentID string) (store.BudgetTotals, error)
	ListPositions(ctx context.Context, agentID string, statuses ...string) ([]models.Position, error)
}

// New returns the engine over st. prices may be nil: open positions are
// then valued at cost.
func New(st *store.Store, wallet WalletBalancer, prices PriceSource) *Service {
	return &Service{st: st, wallet: wallet, prices: prices, reads: st}
}

// ReadingFrom returns the engine with Snapshot reading through r (a read
// cache, for GET /budget and the heartbeat); Reserve still reads the
// store under the budget lock.
func (s *Service) ReadingFrom(r Reads) *Service {
	c := *s
	c.reads = r
	return &c
}

// Snapshot returns the agent's current budget. An unknown agent is
// NotFound.
func (s *Service) Snapshot(ctx context.Context, agentID string) (Budget, error) {
	return s.SnapshotKnown(ctx, agentID, Known{})
}

// Known is what a caller read already, live, in the same request, for
// the engine to use instead of reading it again: the order service's
// checks read the agent and the wallet's collateral balance just before
// they reserve (or preview). What decides is unchanged: a reservation
// still re-reads the agent (status, limits) and the totals under the
// user's lock.
type Known struct {
	// Agent is the agent as read in this request (nil: read it).
	Agent *models.Agent
	// Wallet, when set, is the wallet's collateral balance (micro-USDC)
	// read live from chain in this request (a live agent's; a paper
	// agent's paper balance is always read here).
	Wallet *big.Int
	// NewRef says the reservation's ref was made for this call (a new
	// order's id): no reservation holds it, so it is not looked up (the
	// unique ref still refuses a second one).
	NewRef bool
}

// SnapshotKnown is Snapshot with what the caller read already (Known).
func (s *Service) SnapshotKnown(ctx context.Context, agentID string, known Known) (Budget, error) {
	a := known.Agent
	if a == nil || a.ID != agentID {
		var err error
		if a, err = s.reads.AgentByID(ctx, agentID); err != nil {
			return Budget{}, err
		}
	}
	in, err := s.external(ctx, a, s.reads, known.Wallet)
	if err != nil {
		return Budget{}, err
	}
	totals, err := s.reads.BudgetTotals(ctx, a.UserID, a.ID)
	if err != nil {
		return Budget{}, err
	}
	in.agent, in.totals = a, totals
	return in.budget(), nil
}

// inputs is everything the budget of one agent is computed from.
type inputs struct {
	agent         *models.Agent
	totals        store.BudgetTotals
	walletMicro   int64
	positionMicro int64
	// positionKnown is false when the position value was not computed
	// (no position limit when it was read).
	positionKnown bool
}

// external reads the inputs that live outside the database: the wallet
// balance and, when a position limit is set, the open position value.
func (s *Service) external(ctx context.Context, a *models.Agent, reads Reads, wallet *big.Int) (inputs, error) {
	var in inputs
	var bal int64
	var err error
	switch {
	case wallet != nil && a.Mode != models.ModePaper:
		bal = saturate(wallet) // read live by the caller, in this request
	case a.Mode == models.ModePaper:
		// A paper agent spends the user's paper balance, never the wallet.
		bal, err = s.st.PaperBalance(ctx, a.UserID)
	default:
		bal, err = s.wallet.WalletBalance(ctx, a.UserID)
	}
	switch {
	case errs.Is(err, errs.NotFound):
		bal = 0 // no wallet yet: nothing to spend
	case err != nil:
		return in, err
	}
	in.walletMicro = max(bal, 0)
	if a.MaxPositionValueMicro != nil {
		if in.positionMicro, err = s.positionValue(ctx, reads, a.ID); err != nil {
			return in, err
		}
		in.positionKnown = true
	}
	return in, nil
}

// positionValue is Σ size × price over the agent's open positions, at the
// average entry price when no current price is known.
func (s *Service) positionValue(ctx context.Context, reads Reads, agentID string) (int64, error) {
	ps, err := reads.ListPositions(ctx, agentID, models.PositionOpen)
	if err != nil || len(ps) == 0 {
		return 0, err
	}
	var prices map[string]int64
	if s.prices != nil {
		ids := make([]string, 0, len(ps))
		for _, p := range ps {
			ids = append(ids, p.TokenID)
		}
		if prices, err = s.prices.Prices(ctx, ids); err != nil {
			if _, ok := errs.As(err); !ok {
				err = errs.Wrap(errs.Transient, err, "market prices are unavailable; retry later")
			}
			return 0, err
		}
	}
	price := func(p models.Position) int64 {
		if v, ok := prices[p.TokenID]; ok {
			return v
		}
		return p.AvgEntryMicro
	}
	// In int64 while every term and the sum fit (always, for real
	// positions: no allocation per request); exactly, in big.Int, else.
	var sum int64
	fits := true
	for _, p := range ps {
		v, ok := mulDiv64(p.SizeMicro, price(p), models.MicroPerUnit)
		if !ok || sum > math.MaxInt64-v {
			fits = false
			break
		}
		sum += v
	}
	if fits {
		return sum, nil
	}
	total := new(big.Int)
	for _, p := range ps {
		total.Add(total, mulDiv(p.SizeMicro, price(p), models.MicroPerUnit))
	}
	return saturate(total), nil
}

// budget applies the limits (see the package comment).
func (in inputs) budget() Budget {
	a, t := in.agent, in.totals
	used := t.AgentUsedMicro + t.AgentHeldMicro
	avail, by := in.walletMicro-t.UserHeldMicro, LimitedByWallet
	consider := func(v int64, name string) {
		if v < avail {
			avail, by = v, name
		}
	}
	cfg := Config{Used: micro.Decimal(used)}
	if a.BudgetLimitMicro != nil {
		consider(*a.BudgetLimitMicro-used, LimitedByFixed)
		d := micro.Decimal(*a.BudgetLimitMicro)
		cfg.FixedLimit = &d
	}
	if a.BudgetPercentBps != nil {
		share, ok := mulDiv64(in.walletMicro, int64(*a.BudgetPercentBps), 10_000)
		if !ok {
			share = saturate(mulDiv(in.walletMicro, int64(*a.BudgetPercentBps), 10_000))
		}
		consider(share-used, LimitedByPercent)
		d := decimal.New(int64(*a.BudgetPercentBps), -2)
		cfg.BudgetPercent = &d
	}
	if a.MaxPositionValueMicro != nil {
		consider(*a.MaxPositionValueMicro-in.positionMicro-t.AgentHeldMicro, LimitedByPosition)
		d := micro.Decimal(*a.MaxPositionValueMicro)
		cfg.MaxPositionValue = &d
	}
	avail = max(avail, 0)
	return Budget{
		Available:      micro.Decimal(avail),
		AvailableMicro: avail,
		LimitedBy:      by,
		Wallet:         micro.Decimal(in.walletMicro),
		Held:           micro.Decimal(t.AgentHeldMicro),
		PositionValue:  micro.Decimal(in.positionMicro),
		Config:         cfg,
	}
}

// Reserve holds amountMicro of agentID's budget for the order ref. It fails
// with errs.Conflict code "budget_exceeded" when the amount does not fit
// in what is available, and code "agent_inactive" when the agent is paused
// or revoked. It is idempotent by ref: reserving an existing ref of the
// same agent returns that reservation unchanged (whatever amount is asked
// now); a ref of another agent is a Conflict. An agent not owned by userID
// is NotFound.
func (s *Service) Reserve(ctx context.Context, agentID, userID string, amountMicro int64, ref string) (models.BudgetReservation, error) {
	return s.ReserveWith(ctx, agentID, userID, amountMicro, ref, nil)
}

// ReserveWith is Reserve that also runs then, in the same transaction and
// under the same lock, after the reservation is inserted: the order that
// the reservation is for is created atomically with it, so a crash can
// leave neither an order without its budget nor budget held for no order.
// An error from then rolls both back. then does not run when the ref was
// already reserved.
func (s *Service) ReserveWith(ctx context.Context, agentID, userID string, amountMicro int64, ref string, then func(tx *store.Store) error) (models.BudgetReservation, error) {
	return s.ReserveKnown(ctx, agentID, userID, amountMicro, ref, Known{}, then)
}

// ReserveKnown is ReserveWith with what the caller read already in this
// request (Known): the agent read before the lock (its owner, mode and
// position limit; status and limits are re-read under the lock as
// always) and the wallet balance, so neither is read twice.
func (s *Service) ReserveKnown(ctx context.Context, agentID, userID string, amountMicro int64, ref string, known Known,
	then func(tx *store.Store) error) (models.BudgetReservation, error) {
	if ref == "" {
		return models.BudgetReservation{}, errs.E(errs.Invalid, "a budget reservation needs a reference")
	}
	if amountMicro <= 0 {
		return models.BudgetReservation{}, errs.E(errs.Invalid, "the amount to reserve must be positive")
	}
	pre := known.Agent
	if pre == nil || pre.ID != agentID {
		var err error
		if pre, err = s.st.AgentByID(ctx, agentID); err != nil {
			return models.BudgetReservation{}, err
		}
	}
	if pre.UserID != userID {
		return models.BudgetReservation{}, errs.E(errs.NotFound, "agent not found")
	}
	if known.Wallet == nil && !known.NewRef {
		// A retried ref answers before the chain is read; with the balance
		// known there is nothing to save, and the check under the lock
		// below answers it the same.
		if r, err := s.st.BudgetReservationByRef(ctx, ref); err == nil {
			return sameAgent(r, agentID)
		} else if !errs.Is(err, errs.NotFound) {
			return models.BudgetReservation{}, err
		}
	}
	in, err := s.external(ctx, pre, s.st, known.Wallet)
	if err != nil {
		return models.BudgetReservation{}, err
	}

	var out models.BudgetReservation
	err = s.st.WithBudgetLock(ctx, userID, func(tx *store.Store) error {
		if !known.NewRef {
			if r, err := tx.BudgetReservationByRef(ctx, ref); err == nil {
				out, err = sameAgent(r, agentID)
				return err
			} else if !errs.Is(err, errs.NotFound) {
				return err
			}
		}
		// Re-read the settings under the lock: a limit lowered in the
		// dashboard a moment ago applies.
		a, err := tx.AgentByID(ctx, agentID)
		if err != nil {
			return err
		}
		if a.Status != models.AgentActive {
			return errs.Ef(errs.Conflict, "the agent is %s", a.Status).WithCode(errs.CodeAgentInactive)
		}
		if a.MaxPositionValueMicro != nil && !in.positionKnown {
			if in.positionMicro, err = s.positionValue(ctx, s.st, a.ID); err != nil {
				return err
			}
		}
		if in.totals, err = tx.BudgetTotals(ctx, userID, agentID); err != nil {
			return err
		}
		in.agent = a
		b := in.budget()
		if amountMicro > b.AvailableMicro {
			return errs.Ef(errs.Conflict, "budget exceeded: the order needs %s USDC but %s USDC is available (limited by %s)",
				micro.Decimal(amountMicro).String(), b.Available.String(), b.LimitedBy).
				WithCode(errs.CodeBudgetExceeded).WithHint("GET /budget shows the limits; lower the order size")
		}
		out = models.BudgetReservation{Ref: ref, AgentID: agentID, UserID: userID, AmountMicro: amountMicro}
		if err := tx.CreateBudgetReservation(ctx, &out); err != nil {
			return err
		}
		if then != nil {
			return then(tx)
		}
		return nil
	})
	if err != nil {
		return models.BudgetReservation{}, err
	}
	return out, nil
}

func sameAgent(r *models.BudgetReservation, agentID string) (models.BudgetReservation, error) {
	if r.AgentID != agentID {
		return models.BudgetReservation{}, errs.E(errs.Conflict, "the reservation reference is already used").WithCode(errs.CodeReservationRef)
	}
	return *r, nil
}

// Convert records that the order ref has spent filledMicro in total so
// far (cumulative, not a delta, so repeated and out-of-order reports are
// harmless): that much becomes used and the rest of the reservation stays
// held while the order can still fill. A fully converted reservation
// closes. Call Release when the order becomes terminal with a remainder.
// A fill reported after Release still raises used. Unknown ref: NotFound.
func (s *Service) Convert(ctx context.Context, ref string, filledMicro int64) (models.BudgetReservation, error) {
	return s.settle(ctx, ref, filledMicro, false)
}

// Release ends the reservation of order ref (cancelled, failed, expired or
// finished): what it still holds returns to the budget; what was converted
// stays used. Idempotent; unknown ref: NotFound.
func (s *Service) Release(ctx context.Context, ref string) (models.BudgetReservation, error) {
	return s.settle(ctx, ref, 0, true)
}

// Finish is Convert and Release in one step, for an order that ends with
// filledMicro spent in total.
func (s *Service) Finish(ctx context.Context, ref string, filledMicro int64) (models.BudgetReservation, error) {
	return s.settle(ctx, ref, filledMicro, true)
}

func (s *Service) settle(ctx context.Context, ref string, filledMicro int64, terminal bool) (models.BudgetReservation, error) {
	r, err := s.st.BudgetReservationByRef(ctx, ref)
	if err != nil {
		return models.BudgetReservation{}, err
	}
	var out *models.BudgetReservation
	err = s.st.WithBudgetLock(ctx, r.UserID, func(tx *store.Store) error {
		out, err = tx.SettleBudgetReservation(ctx, ref, filledMicro, terminal)
		return err
	})
	if err != nil {
		return models.BudgetReservation{}, err
	}
	return *out, nil
}

// mulDiv64 is mulDiv without allocating, for a and b non-negative, c
// positive and a result that fits in int64; ok is false otherwise.
func mulDiv64(a, b, c int64) (v int64, ok bool) {
	if a < 0 || b < 0 || c <= 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi >= uint64(c) {
		return 0, false // the quotient needs more than 64 bits
	}
	q, _ := bits.Div64(hi, lo, uint64(c))
	if q > math.MaxInt64 {
		return 0, false
	}
	return int64(q), true
}

// mulDiv is a × b / c, truncated, without overflow.
func mulDiv(a, b, c int64) *big.Int {
	x := new(big.Int).Mul(big.NewInt(a), big.NewInt(b))
	return x.Quo(x, big.NewInt(c))
}

// saturate clamps v to int64.
func saturate(v *big.Int) int64 {
	if v.IsInt64() {
		return v.Int64()
	}
	if v.Sign() < 0 {
		return -1 << 63
	}
	return 1<<63 - 1
}
