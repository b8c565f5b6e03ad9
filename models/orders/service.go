package orders

import (
	"context"
	"fmt"
	"log/slog"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"
	"golang.org/x/sync/errgroup"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/budget"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/wallets"
	"github.com/agent-trading/ats/venue/cache"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/micro"
	"github.com/agent-trading/ats/venue/network"
)

// MinPrice and MaxPrice bound every order's price (spec "Limits"), also on
// markets whose tick is finer than 0.01.
var (
	MinPrice = decimal.RequireFromString("0.01")
	MaxPrice = decimal.RequireFromString("0.99")
	// MaxSize bounds an order's shares so that sizes and costs stay exact
	// in int64 micro-units (9.2e12 shares) with a wide margin; no venue
	// book holds a billion shares of one outcome.
	MaxSize = decimal.New(1, 9)
)

// Wallets is what the order path needs of the wallet service;
// *wallets.Service implements it.
type Wallets interface {
	Get(ctx context.Context, userID string) (wallets.Wallet, error)
	Signer(ctx context.Context, userID string) (*wallets.Signer, error)
	Creds(ctx context.Context, userID string) (clob.Creds, error)
	InvalidateCreds(ctx context.Context, userID string) error
}

// tradingWallets is implemented by a Wallets (*wallets.Service) that
// gives Get, Signer and Creds from one read of the wallet, which each
// placement attempt needs; Wallets without it are asked three times.
type tradingWallets interface {
	Trading(ctx context.Context, userID string) (wallets.Wallet, *wallets.Signer, clob.Creds, error)
}

// Chain reads what validation needs from chain; *chain.Client implements it.
type Chain interface {
	CollateralBalance(ctx context.Context, addr common.Address) (*big.Int, error)
	CollateralAllowance(ctx context.Context, owner, spender common.Address) (*big.Int, error)
	OutcomeBalance(ctx context.Context, addr common.Address, tokenID *big.Int) (*big.Int, error)
	IsApprovedForAll(ctx context.Context, owner, operator common.Address) (bool, error)
}

// PositionRecomputer rebuilds an agent's position in a token from its
// fills inside tx, a transaction holding the user's lock
// (store.WithBudgetLock); models/positions.Service implements it.
type PositionRecomputer interface {
	RecomputeLocked(ctx context.Context, tx *store.Store, agentID, userID, tokenID string) error
}

// Pacer paces venue posts per wallet; *pacing.Pacer implements it.
type Pacer interface {
	// Wait blocks until wallet (the signer address) may post once more
	// for agent; the error is Transient when ctx ends first.
	Wait(ctx context.Context, wallet, agent string) error
}

// paceWait bounds the wait for a wallet's turn inside one placement
// attempt (whose activity has 20 s): a longer queue fails the attempt
// transiently, and the retry queues again.
const paceWait = 10 * time.Second

// Service is the order service. Accept checks and stores an order before
// its workflow places it; Get and List read orders; Submit, Sync,
// CancelAtVenue, CancelPending and Abandon are the lifecycle steps the
// order workflow runs as activities. It never drives a workflow itself:
// the order client (workflows.OrderDesk) calls Accept, then the workflow,
// whose activities call the steps, so the service is entered once on each
// side of Temporal. It is safe for concurrent use.
type Service struct {
	Store     *store.Store
	Budget    *budget.Service
	Wallets   Wallets
	CLOB      *clob.Client
	Chain     Chain
	Network   network.Network
	Audit     *audit.Service
	Positions PositionRecomputer
	// Pacer queues the venue posts of each wallet (models/pacing); nil
	// posts at once.
	Pacer Pacer
	// CancelPacer queues the venue cancels of each wallet in a bucket of
	// their own (the venue limits a signer's cancels apart from its
	// posts); nil cancels at once.
	CancelPacer Pacer
	// Listen, in a worker, is told before each post so the wallet's
	// venue events are listened to (*Listener); nil in other processes.
	Listen interface{ Watch() }
	// PaperListen, in a worker, is told when a paper order comes to rest
	// so its token's trades are watched (*PaperWatcher); nil elsewhere.
	PaperListen interface{ Watch() }
	// Attempts, when set, is told when each placement attempt returns
	// (see Attempts); set it before the worker starts.
	Attempts *Attempts
	// Accepts, when set, gates the placement attempts of orders whose
	// workflow this process started before their acceptance decided (see
	// Accepts); set it before the worker starts.
	Accepts *Accepts
	Logger  *slog.Logger
	// ListSyncWindow and ListSyncOrders bound the venue traffic of
	// GET /orders?sync=true (defaults DefaultListSyncWindow and
	// DefaultListSyncOrders; see listSyncs).
	ListSyncWindow time.Duration
	ListSyncOrders int

	metaOnce  sync.Once
	meta      *cache.Cache[tokenMeta] // by token id
	listSyncs listSyncs
}

// Token metadata never changes; the bound and the lifetime only keep a
// long-running process from holding every token it ever saw.
const (
	metaCacheSize = 10_000
	metaCacheTTL  = time.Hour
)

func (s *Service) log() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

// tokenMeta is a token's market metadata, which never changes.
type tokenMeta struct {
	ConditionID string
	Question    string
	Outcome     string
	NegRisk     bool
}

func (s *Service) tokenMeta(ctx context.Context, tokenID string) (tokenMeta, error) {
	s.metaOnce.Do(func() { s.meta = cache.New[tokenMeta](metaCacheSize, metaCacheTTL, nil) })
	return s.meta.Get(ctx, tokenID, func(ctx context.Context) (tokenMeta, error) {
		mb, err := s.CLOB.MarketByToken(ctx, tokenID)
		if err != nil {
			return tokenMeta{}, notFoundToken(err, tokenID)
		}
		m, err := s.CLOB.Market(ctx, mb.ConditionID)
		if err != nil {
			return tokenMeta{}, notFoundToken(err, tokenID)
		}
		tm := tokenMeta{ConditionID: m.ConditionID, Question: m.Question, NegRisk: m.NegRisk}
		for _, t := range m.Tokens {
			if t.TokenID == tokenID {
				tm.Outcome = t.Outcome
			}
		}
		return tm, nil
	})
}

func notFoundToken(err error, tokenID string) error {
	if errs.Is(err, errs.NotFound) {
		return errs.Ef(errs.NotFound, "no market trades token %s", tokenID).WithCode(errs.CodeUnknownToken).
			WithHint("take token ids from GET /markets/search or GET /markets/{id}")
	}
	return err
}

// checked is a validated order request.
type checked struct {
	req       PlaceRequest
	side      clob.Side
	info      clob.MarketInfo
	meta      tokenMeta
	wallet    wallets.Wallet
	priceMu   int64
	sizeMu    int64
	costMu    int64 // BUY: the most it can spend
	tokenID   *big.Int
	exchanges []common.Address
	// mode is the placing agent's (models.ModePaper or ModeLive).
	mode string
	// agent is the placing agent as read by validate, and collateral the
	// wallet's balance checkFunds read from chain (a live BUY's): the
	// budget takes both from here instead of reading them again in the
	// same request (budget.Known).
	agent      *models.Agent
	collateral *big.Int
}

// known is what the budget needs not read again (budget.Known).
func (c *checked) known() budget.Known {
	return budget.Known{Agent: c.agent, Wallet: c.collateral}
}

// normalize checks the request's own fields.
func normalize(r *PlaceRequest) (clob.Side, error) {
	r.TokenID = strings.TrimSpace(r.TokenID)
	if r.TokenID == "" {
		return 0, errs.E(errs.Invalid, "tokenId is required").WithCode(errs.CodeInvalidTokenID)
	}
	if x, ok := new(big.Int).SetString(r.TokenID, 10); !ok || x.Sign() <= 0 || x.BitLen() > 256 {
		return 0, errs.Ef(errs.Invalid, "tokenId %q is not a token id (a decimal number)", r.TokenID).WithCode(errs.CodeInvalidTokenID)
	}
	r.Side = strings.ToUpper(strings.TrimSpace(r.Side))
	side, err := clob.ParseSide(r.Side)
	if err != nil || !side.Valid() {
		return 0, errs.E(errs.Invalid, "side must be BUY or SELL").WithCode(errs.CodeInvalidSide)
	}
	r.Type = strings.ToUpper(strings.TrimSpace(r.Type))
	if r.Type == "" {
		r.Type = TypeLimit
	}
	switch r.Type {
	case TypeLimit, TypeMarket, TypeFOK, TypeFAK:
	default:
		return 0, errs.Ef(errs.Invalid, "type must be LIMIT, MARKET, FOK or FAK, not %q", r.Type).WithCode(errs.CodeInvalidOrderType)
	}
	// A bound given with float noise (0.9900000000000001) is the bound.
	for _, b := range []decimal.Decimal{MinPrice, MaxPrice} {
		if r.Price.Sub(b).Abs().LessThanOrEqual(FloatNoise) {
			r.Price = b
		}
	}
	if r.Price.LessThan(MinPrice) || r.Price.GreaterThan(MaxPrice) {
		return 0, errs.Ef(errs.Invalid, "price must be between 0.01 and 0.99, got %s", r.Price.String()).WithCode(errs.CodeInvalidPrice)
	}
	// A size within FloatNoise of whole hundredths is that size.
	if s, ok := SnapPlaces(r.Size, 2); ok {
		r.Size = s
	}
	if r.Size.Sign() <= 0 {
		return 0, errs.E(errs.Invalid, "size must be a positive number of shares").WithCode(errs.CodeInvalidSize)
	}
	if r.Size.GreaterThan(MaxSize) {
		return 0, errs.Ef(errs.Invalid, "size must be at most %s shares", MaxSize.String()).WithCode(errs.CodeInvalidSize)
	}
	if !r.Size.Equal(r.Size.RoundFloor(2)) {
		if side == clob.Sell {
			// The venue trades whole hundredths of a share: a sell of a
			// position with dust sells what can be sold.
			r.Size = r.Size.RoundFloor(2)
			if r.Size.Sign() <= 0 {
				return 0, errs.E(errs.Invalid, "size rounds to zero: the venue trades at least 0.01 shares").WithCode(errs.CodeInvalidSize)
			}
		} else {
			return 0, errs.Ef(errs.Invalid, "size %s has more than 2 decimals: %s", r.Size.String(), Nearest(r.Size, cent)).WithCode(errs.CodeInvalidSize)
		}
	}
	return side, nil
}

// validate runs every check that needs no reservation: the request, the
// market (tick, minimum size, accepting orders), the wallet, its balance
// and allowances.
func (s *Service) validate(ctx context.Context, p Principal, r PlaceRequest) (*checked, error) {
	side, err := normalize(&r)
	if err != nil {
		return nil, err
	}
	// The mode is the agent's as stored, never the caller's word: a paper
	// agent's order (its own, a strategy's, a close) is a paper order.
	a, err := s.Store.AgentByID(ctx, p.AgentID)
	if err != nil {
		return nil, err
	}
	c := &checked{req: r, side: side, mode: a.Mode, agent: a}
	c.tokenID, _ = new(big.Int).SetString(r.TokenID, 10)
	if c.info, err = s.CLOB.MarketInfo(ctx, r.TokenID); err != nil {
		return nil, notFoundToken(err, r.TokenID)
	}
	if c.meta, err = s.tokenMeta(ctx, r.TokenID); err != nil {
		return nil, err
	}
	// A price within FloatNoise of a tick (0.1 + 0.2 on a 0.01 tick) is
	// that tick; anything further is refused naming the ticks around it.
	if p, ok := Snap(r.Price, c.info.TickSize.Decimal()); ok {
		r.Price, c.req.Price = p, p
	}
	if !clob.OnTick(r.Price, c.info.TickSize) {
		return nil, errs.Ef(errs.Invalid, "price %s is not a multiple of the market's tick size %s: %s", r.Price.String(), string(c.info.TickSize),
			Nearest(r.Price, c.info.TickSize.Decimal())).WithCode(errs.CodeInvalidTickSize)
	}
	if err := clob.ValidatePrice(r.Price, c.info.TickSize); err != nil {
		return nil, err
	}
	if !c.info.MinOrderSize.IsZero() && r.Type == TypeLimit {
		if err := clob.ValidateMinSize(r.Size, c.info.MinOrderSize); err != nil {
			return nil, errs.Ef(errs.Invalid, "size %s is below the market's minimum of %s shares", r.Size.String(), c.info.MinOrderSize.String()).
				WithCode(errs.CodeBelowMinSize)
		}
	}
	c.priceMu = micro.Truncate(r.Price)
	c.sizeMu = micro.Truncate(r.Size)
	cost := r.Size.Mul(r.Price)
	if side == clob.Buy {
		c.costMu = micro.Ceil(cost)
		if r.Type != TypeLimit && cost.RoundFloor(2).LessThan(clob.MinMarketBuy) {
			return nil, errs.Ef(errs.Invalid, "a %s BUY must be worth at least $1 (size × price), this one is $%s", r.Type, cost.StringFixed(2)).
				WithCode(errs.CodeBelowMinSize)
		}
	}
	if c.mode == models.ModePaper {
		// Paper money: no wallet, no chain. The budget (whose wallet is
		// the paper balance for a paper agent) bounds a BUY; the agent's
		// paper position bounds a SELL (checkOwnShares).
		return c, nil
	}
	if c.wallet, err = s.Wallets.Get(ctx, p.UserID); err != nil {
		if errs.Is(err, errs.NotFound) {
			return nil, errs.E(errs.Conflict, "no trading wallet: import a wallet in the dashboard first").WithCode(errs.CodeNoWallet)
		}
		return nil, err
	}
	c.exchanges = []common.Address{s.Network.Exchange}
	if c.info.NegRisk {
		c.exchanges = []common.Address{s.Network.NegRiskExchange, s.Network.NegRiskAdapter}
	}
	if err := s.checkFunds(ctx, c); err != nil {
		return nil, err
	}
	return c, nil
}

// checkFunds checks the wallet's balance and allowance for the order: a
// BUY needs the collateral, a SELL the shares, each approved to the
// exchange that will settle the order.
func (s *Service) checkFunds(ctx context.Context, c *checked) error {
	maker := common.HexToAddress(c.wallet.Address)
	if c.side == clob.Buy {
		// The two reads go to the node at once: one round trip of wait
		// instead of two on every BUY (and every dry run of one).
		var bal, allow *big.Int
		g, gctx := errgroup.WithContext(ctx)
		g.Go(func() (err error) { bal, err = s.Chain.CollateralBalance(gctx, maker); return err })
		g.Go(func() (err error) { allow, err = s.Chain.CollateralAllowance(gctx, maker, c.exchanges[0]); return err })
		if err := g.Wait(); err != nil {
			return err
		}
		if bal.Cmp(big.NewInt(c.costMu)) < 0 {
			return errs.Ef(errs.Conflict, "insufficient balance: the order needs %s USDC but the wallet holds %s USDC",
				micro.Decimal(c.costMu).String(), micro.DecimalBig(bal).String()).WithCode(errs.CodeInsufficientBalance)
		}
		c.collateral = bal
		if allow.Cmp(big.NewInt(c.costMu)) < 0 {
			return errs.E(errs.Conflict, "allowance error: the exchange may not spend the wallet's USDC").WithCode(errs.CodeAllowanceError).
				WithHint(`POST /wallet/approve {"token":"USDC"}, then retry`)
		}
		return nil
	}
	bal, err := s.Chain.OutcomeBalance(ctx, maker, c.tokenID)
	if err != nil {
		return err
	}
	if bal.Cmp(big.NewInt(c.sizeMu)) < 0 {
		return errs.Ef(errs.Conflict, "insufficient balance: selling %s shares but the wallet holds %s",
			c.req.Size.String(), micro.DecimalBig(bal).String()).WithCode(errs.CodeInsufficientBalance)
	}
	for _, ex := range c.exchanges {
		ok, err := s.Chain.IsApprovedForAll(ctx, maker, ex)
		if err != nil {
			return err
		}
		if !ok {
			token := "CTF"
			if c.info.NegRisk {
				token = "NEG_RISK"
			}
			return errs.E(errs.Conflict, "allowance error: the exchange may not move the wallet's outcome tokens").WithCode(errs.CodeAllowanceError).
				WithHint(`POST /wallet/approve {"token":"` + token + `"} (or "all"), then retry`)
		}
	}
	return nil
}

// checkOwnShares refuses a SELL of more shares than the agent's own open
// position holds beyond what its live SELL orders in the token already
// offer. The agents of a user share one wallet, so the wallet's balance
// (checkFunds) would let one agent sell another's shares; this is the
// check that keeps each agent to its own. Place runs it under the user's
// lock, together with the insert of the order.
func checkOwnShares(ctx context.Context, st *store.Store, agentID string, c *checked) error {
	held, committed, err := st.SellableShares(ctx, agentID, c.req.TokenID)
	if err != nil {
		return err
	}
	if c.sizeMu <= held-committed {
		return nil
	}
	msg := fmt.Sprintf("insufficient position: selling %s shares but this agent holds %s", c.req.Size.String(), micro.Decimal(held).String())
	if committed > 0 {
		msg += fmt.Sprintf(", of which %s are already offered by its open sell orders", micro.Decimal(committed).String())
	}
	return errs.E(errs.Conflict, msg).WithCode(errs.CodeInsufficientPosition).
		WithHint("an agent sells only shares its own orders bought (GET /positions); cancel an open SELL order to sell its shares otherwise")
}

// checkStrategyShares refuses a strategy's SELL of more shares than the
// strategy's own orders hold beyond what its live SELL orders already
// offer: the strategies of one agent share the agent's position, and
// each sells only what its own buys filled. checkOwnShares still caps the
// agent's total. Place runs it under the user's lock with the insert.
func checkStrategyShares(ctx context.Context, st *store.Store, agentID, strategyID string, c *checked) error {
	held, offered, err := st.StrategyShares(ctx, agentID, strategyID, c.req.TokenID)
	if err != nil {
		return err
	}
	if c.sizeMu <= held-offered {
		return nil
	}
	msg := fmt.Sprintf("insufficient position: selling %s shares but strategy %s holds %s", c.req.Size.String(), strategyID, micro.Decimal(held).String())
	if offered > 0 {
		msg += fmt.Sprintf(", of which %s are already offered by its open sell orders", micro.Decimal(offered).String())
	}
	return errs.E(errs.Conflict, msg).WithCode(errs.CodeInsufficientPosition).
		WithHint("a strategy sells only shares its own orders bought")
}

// checkActing refuses an order in the name of an agent that is paused or
// revoked, unless the user places it (Principal.ByUser): every placement
// path — the agent's API orders and closes, each strategy's orders, a
// copy trade's copies — comes through Accept, so this check, run under
// the user's lock with the insert of the order, is the one that binds
// them all. (A BUY's budget reservation runs the same check under the
// same lock.) Refused: 409 agent_inactive.
func checkActing(ctx context.Context, st *store.Store, p Principal) error {
	if p.ByUser {
		return nil
	}
	a, err := st.AgentByID(ctx, p.AgentID)
	if err != nil {
		return err
	}
	return actingAs(p, a)
}

// actingAs is checkActing on the agent a as read already.
func actingAs(p Principal, a *models.Agent) error {
	if p.ByUser {
		return nil
	}
	if a.ID != p.AgentID || a.UserID != p.UserID {
		return errs.E(errs.NotFound, "agent not found")
	}
	return agentActive(a)
}

// agentActive is nil for an active agent, else the Conflict that says
// what it is.
func agentActive(a *models.Agent) error {
	if a.Status == models.AgentActive {
		return nil
	}
	return errs.Ef(errs.Conflict, "the agent is %s: nothing is placed in its name until the user resumes it", a.Status).
		WithCode(errs.CodeAgentInactive)
}

// checkSell runs the sell checks of the agent (and of the strategy, for a
// strategy's sell of its own shares) under the user's lock.
func checkSell(ctx context.Context, st *store.Store, agentID string, c *checked) error {
	if err := checkOwnShares(ctx, st, agentID, c); err != nil {
		return err
	}
	if c.req.StrategyID != "" && c.req.OwnSharesOnly {
		return checkStrategyShares(ctx, st, agentID, c.req.StrategyID, c)
	}
	return nil
}

// Ref names a stored order and labels its workflow.
type Ref struct {
	ID, UserID, AgentID, TokenID string
	// Mode is the order's mode (models.ModePaper or ModeLive).
	Mode string
}

func refOf(o *models.Order) Ref {
	return Ref{ID: o.ID, UserID: o.UserID, AgentID: o.AgentID, TokenID: o.TokenID, Mode: o.Mode}
}

// Accepted is the outcome of Accept: a final answer (a dry run's preview,
// or a retried order that is placed already), or an order stored PENDING
// that its workflow places (Await), after which Placed answers it.
type Accepted struct {
	Result PlaceResult
	// Await is the PENDING order to hand to its workflow (started, or
	// joined when it runs already); nil when Result is the answer.
	Await *Ref
}

// Accept validates the request, reserves budget for a BUY or checks a
// SELL against the agent's own position (checkOwnShares) and persists the
// order as PENDING (atomically with the reservation or check), for its
// workflow to place. A dry run stops after the checks and reports what
// would be placed. A request whose idempotency key placed an order within
// store.IdempotencyRetention answers that order as it stands now, before
// any check (its funds and budget are spent already): still PENDING, it
// is to be awaited like a new one.
func (s *Service) Accept(ctx context.Context, p Principal, r PlaceRequest) (Accepted, error) {
	if acc, ok, err := s.placedByKey(ctx, p, r); ok || err != nil {
		return acc, err
	}
	c, err := s.validate(ctx, p, r)
	if err != nil {
		if !r.DryRun {
			s.auditPlace(ctx, p, &models.Order{TokenID: r.TokenID, Side: r.Side, RequestType: r.Type,
				PriceMicro: micro.Truncate(r.Price), SizeMicro: micro.Truncate(r.Size)}, refusal(err), err)
		}
		return Accepted{}, err
	}
	r = c.req
	if r.DryRun {
		res, err := s.preview(ctx, p, c)
		return Accepted{Result: res}, err
	}
	id := r.OrderID
	if id == "" {
		id = models.NewID(models.PrefixOrder)
	}
	o := &models.Order{
		ID: id, AgentID: p.AgentID, UserID: p.UserID, WalletID: c.wallet.ID,
		TokenID: r.TokenID, ConditionID: c.meta.ConditionID, MarketQuestion: c.meta.Question, Outcome: c.meta.Outcome,
		Side: r.Side, Type: string(venueType(r.Type)), RequestType: r.Type, NegRisk: c.info.NegRisk,
		PriceMicro: c.priceMu, SizeMicro: c.sizeMu, Status: models.OrderPending, ReservedMicro: c.costMu,
		Mode: c.mode,
	}
	if r.IdempotencyKey != "" {
		k := r.IdempotencyKey
		o.IdempotencyKey = &k
	}
	if r.StrategyID != "" {
		sid := r.StrategyID
		o.StrategyID = &sid
	}
	create := func(tx *store.Store) error {
		if err := tx.CreateOrder(ctx, o); err != nil {
			return err
		}
		if s.Audit == nil {
			return nil
		}
		// The entry commits with the order it records: one commit for
		// both (a refusal is recorded after the rollback, below).
		return audit.Append(ctx, tx, placeEntry(p, o, audit.Success, nil))
	}
	if c.side == clob.Buy {
		// The reservation checks the agent's status under the user's lock
		// (an order the user places for the agent is a SELL: a close).
		known := c.known()
		known.NewRef = true // o.ID was made above
		_, err = s.Budget.ReserveKnown(ctx, p.AgentID, p.UserID, c.costMu, o.ID, known, create)
	} else {
		// The user's lock is the one position recomputes hold: the agent's
		// own shares, its other live sells and this insert are one view,
		// and the one the agent's status changes take (agents.Service), so
		// a pause or revoke and this check never interleave.
		err = s.Store.WithBudgetLock(ctx, p.UserID, func(tx *store.Store) error {
			if err := checkActing(ctx, tx, p); err != nil {
				return err
			}
			if err := checkSell(ctx, tx, p.AgentID, c); err != nil {
				return err
			}
			return create(tx)
		})
	}
	if errs.Is(err, errs.Conflict) && r.IdempotencyKey != "" && errs.CodeOf(err) != errs.CodeBudgetExceeded {
		// A concurrent request with the key placed its order first: answer
		// as a retry would, with the same check that it is this order.
		if acc, ok, perr := s.placedByKey(ctx, p, r); ok || perr != nil {
			return acc, perr
		}
	}
	if err != nil {
		s.auditPlace(ctx, p, o, refusal(err), err)
		return Accepted{}, err
	}
	if r.OrderID != "" {
		// Committed: the early-started workflow's attempt here may go on,
		// with the row as stored.
		s.Accepts.stored(o)
	}
	ref := refOf(o)
	return Accepted{Await: &ref}, nil
}

// KeyUsed reports whether r's idempotency key has placed an order of the
// agent within store.IdempotencyRetention (Accept then answers that
// order): the order desk starts no workflow early for a retry.
func (s *Service) KeyUsed(ctx context.Context, p Principal, r PlaceRequest) (bool, error) {
	if r.IdempotencyKey == "" {
		return false, nil
	}
	_, err := s.Store.OrderByIdempotencyKey(ctx, p.AgentID, r.IdempotencyKey)
	if errs.Is(err, errs.NotFound) {
		return false, nil
	}
	return err == nil, err
}

// placedByKey answers a retried placement: ok when r's idempotency key
// placed a live order of the agent, which it returns as it stands now
// (to be awaited while PENDING, synchronised with the venue otherwise). A
// different order under the key is a Conflict. A request that fails its
// own checks is left to validate, which reports it.
func (s *Service) placedByKey(ctx context.Context, p Principal, r PlaceRequest) (Accepted, bool, error) {
	if r.IdempotencyKey == "" || r.DryRun {
		return Accepted{}, false, nil
	}
	if _, err := normalize(&r); err != nil {
		return Accepted{}, false, nil
	}
	prev, err := s.Store.OrderByIdempotencyKey(ctx, p.AgentID, r.IdempotencyKey)
	switch {
	case errs.Is(err, errs.NotFound):
		return Accepted{}, false, nil
	case err != nil:
		return Accepted{}, false, err
	}
	typ := prev.RequestType
	if typ == "" {
		typ = TypeLimit // orders stored before request types were
	}
	if prev.TokenID != r.TokenID || prev.Side != r.Side || typ != r.Type ||
		prev.PriceMicro != micro.Truncate(r.Price) || prev.SizeMicro != micro.Truncate(r.Size) {
		return Accepted{}, false, errs.E(errs.Conflict, "this Idempotency-Key was used for another order").
			WithCode(errs.CodeIdempotencyKeyReused).WithHint("use a new Idempotency-Key for a different request")
	}
	if prev.Status == models.OrderPending {
		ref := refOf(prev)
		return Accepted{Await: &ref}, true, nil
	}
	v, err := s.Get(ctx, p.AgentID, prev.ID)
	return Accepted{Result: PlaceResult{Order: v}}, err == nil, err
}

// Placed answers an accepted order as it stands after its placement was
// awaited: answered says whether the placement result came; when it did
// not, an order still PENDING is answered as pending (it is durable and
// its workflow keeps going).
func (s *Service) Placed(ctx context.Context, orderID string, answered bool) (PlaceResult, error) {
	cur, err := s.Store.OrderByID(context.WithoutCancel(ctx), orderID)
	if err != nil {
		return PlaceResult{}, err
	}
	v := view(cur)
	return PlaceResult{Order: v, Pending: !answered && !v.Terminal() && v.Status == models.OrderPending}, nil
}

// refusal is the audit result of a placement that err stopped: denied
// when the request or the account's state refused it, failure otherwise.
func refusal(err error) string {
	if refused(err) {
		return audit.Denied
	}
	return audit.Failure
}

func (s *Service) auditPlace(ctx context.Context, p Principal, o *models.Order, result string, cause error) {
	if s.Audit == nil {
		return
	}
	if err := s.Audit.Record(ctx, placeEntry(p, o, result, cause)); err != nil {
		s.log().WarnContext(ctx, "audit of an order placement failed", "order_id", o.ID, "err", err)
	}
}

// placeEntry is the audit entry of a placement of o.
func placeEntry(p Principal, o *models.Order, result string, cause error) audit.Entry {
	detail := map[string]any{
		"tokenId": o.TokenID, "side": o.Side, "type": o.RequestType,
		"price": micro.Decimal(o.PriceMicro).String(), "size": micro.Decimal(o.SizeMicro).String(),
	}
	if cause != nil {
		detail["error"] = errs.PublicMessage(cause)
	}
	if p.ByUser {
		detail["by"] = "user"
	}
	return audit.Entry{
		UserID: p.UserID, AgentID: p.AgentID, Action: "order.place", Target: o.ID, Result: result,
		ClientAddr: p.ClientAddr, Detail: detail,
	}
}

// preview answers a dry run: every check ran; the budget is read, not
// reserved.
func (s *Service) preview(ctx context.Context, p Principal, c *checked) (PlaceResult, error) {
	// The agent validate read in this request: a dry run reserves
	// nothing, so the same read answers whether the agent may act.
	if err := actingAs(p, c.agent); err != nil {
		return PlaceResult{}, err
	}
	b, err := s.Budget.SnapshotKnown(ctx, p.AgentID, c.known())
	if err != nil {
		return PlaceResult{}, err
	}
	pv := &Preview{
		TokenID: c.req.TokenID, Side: c.req.Side, Type: c.req.Type, Price: c.req.Price, Size: c.req.Size,
		MarketQuestion: c.meta.Question, Outcome: c.meta.Outcome, BudgetAvailable: b.Available,
		TickSize: string(c.info.TickSize), MinSize: c.info.MinOrderSize, NegRisk: c.info.NegRisk,
	}
	if c.side == clob.Buy {
		pv.Cost = micro.Decimal(c.costMu)
		if c.costMu > b.AvailableMicro {
			return PlaceResult{}, errs.Ef(errs.Conflict, "budget exceeded: the order needs %s USDC but %s USDC is available (limited by %s)",
				pv.Cost.String(), b.Available.String(), b.LimitedBy).WithCode(errs.CodeBudgetExceeded).
				WithHint("GET /budget shows the limits; lower the order size")
		}
	} else {
		if err := checkSell(ctx, s.Store, p.AgentID, c); err != nil {
			return PlaceResult{}, err
		}
		pv.Proceeds = c.req.Size.Mul(c.req.Price)
	}
	return PlaceResult{Preview: pv}, nil
}

// venueType is the venue order type a request type is placed as.
func venueType(t string) clob.OrderType {
	switch t {
	case TypeMarket, TypeFOK:
		return clob.FOK
	case TypeFAK:
		return clob.FAK
	}
	return clob.GTC
}

// view is the service's view of a stored order.
func view(o *models.Order) Order {
	v := Order{
		ID: o.ID, PolyOrderID: o.VenueOrderID, Status: o.Status, Side: o.Side, Type: o.RequestType,
		TokenID: o.TokenID, ConditionID: o.ConditionID,
		Price: micro.Decimal(o.PriceMicro), Size: micro.Decimal(o.SizeMicro),
		FilledSize: micro.Decimal(o.FilledSizeMicro), AvgFillPrice: micro.Decimal(o.AvgFillPriceMicro),
		MarketQuestion: o.MarketQuestion, Outcome: o.Outcome, FailureReason: o.FailureReason,
		CreatedAt: o.CreatedAt.UTC(), UpdatedAt: o.UpdatedAt.UTC(), FilledAt: o.FilledAt, Mode: o.Mode,
	}
	if v.Type == "" {
		v.Type = TypeLimit
	}
	if v.Mode == "" {
		v.Mode = models.ModeLive
	}
	if v.Mode == models.ModePaper {
		v.PolyOrderID = "" // the paper exchange's id is the service's own
	}
	if o.StrategyID != nil {
		v.StrategyID = *o.StrategyID
	}
	if o.Status == models.OrderPending && !strings.HasPrefix(o.VenueOrderID, "0x") {
		v.PolyOrderID = ""
	}
	return v
}

// Get returns the agent's order, synchronised with the venue first when
// it can still change (live status).
func (s *Service) Get(ctx context.Context, agentID, id string) (Order, error) {
	o, err := s.Store.OrderForAgent(ctx, agentID, id)
	if err != nil {
		return Order{}, err
	}
	if !TerminalStatus(o.Status) && o.VenueOrderID != "" {
		if v, err := s.Sync(ctx, o.ID); err == nil {
			return v, nil
		} else {
			s.log().WarnContext(ctx, "live order status unavailable; answering the stored one", "order_id", o.ID, "err", err)
		}
	}
	return view(o), nil
}

// ListRequest filters List.
type ListRequest struct {
	Status        string
	Limit, Offset int
	Sync          bool
}

// ListResult is a page of orders and what syncing did.
type ListResult struct {
	Orders  []Order
	Synced  bool
	Updated int
}

// List returns the agent's orders newest first. With Sync the agent's
// open orders are first synchronised with the venue (coalesced per agent
// and bounded, see syncAgent); Updated counts the orders whose status or
// fills changed.
func (s *Service) List(ctx context.Context, agentID string, r ListRequest) (ListResult, error) {
	f := store.OrderFilter{AgentID: agentID, Limit: r.Limit, Offset: r.Offset}
	if r.Status != "" {
		st := strings.ToUpper(r.Status)
		switch st {
		case models.OrderPending, models.OrderOpen, models.OrderFilled, models.OrderPartiallyFilled, models.OrderCancelled, models.OrderFailed:
		default:
			return ListResult{}, errs.Ef(errs.Invalid, "status must be one of PENDING, OPEN, FILLED, PARTIALLY_FILLED, CANCELLED, FAILED, not %q", r.Status).
				WithCode(errs.CodeInvalidStatus)
		}
		f.Statuses = []string{st}
	}
	res := ListResult{Synced: r.Sync}
	if r.Sync {
		res.Updated = s.syncAgent(ctx, agentID)
	}
	rows, err := s.Store.ListOrders(ctx, f)
	if err != nil {
		return ListResult{}, err
	}
	res.Orders = make([]Order, len(rows))
	for i := range rows {
		res.Orders[i] = view(&rows[i])
	}
	return res, nil
}

// CancelTarget returns the agent's order that a cancel is about; only
// PENDING, OPEN and PARTIALLY_FILLED orders can be cancelled, anything
// else is a Conflict with code order_not_cancellable. The order's workflow
// cancels it (or CancelDirect when it has none), then Cancelled answers.
func (s *Service) CancelTarget(ctx context.Context, p Principal, id string) (Order, error) {
	o, err := s.Store.OrderForAgent(ctx, p.AgentID, id)
	if err != nil {
		return Order{}, err
	}
	if TerminalStatus(o.Status) {
		return Order{}, notCancellable(o.Status)
	}
	return view(o), nil
}

// CancelDirect cancels an order whose workflow does not exist (the API
// died between storing it and starting the workflow), under the same
// guards as the workflow's cancel steps: CancelPending for a PENDING
// order, CancelAtVenue otherwise.
func (s *Service) CancelDirect(ctx context.Context, o Order) (previous string, _ error) {
	s.log().InfoContext(ctx, "order has no workflow; cancelling it directly", "order_id", o.ID, "status", o.Status)
	var err error
	if o.Status == models.OrderPending {
		previous, _, err = s.CancelPending(ctx, o.ID)
	} else {
		previous, _, err = s.CancelAtVenue(ctx, o.ID)
	}
	return previous, err
}

// Cancelled answers a completed cancel: the order as it stands, with the
// status it had before, and records the cancel in the audit log.
func (s *Service) Cancelled(ctx context.Context, p Principal, id, previous string) (Order, error) {
	cur, err := s.Store.OrderByID(ctx, id)
	if err != nil {
		return Order{}, err
	}
	v := view(cur)
	v.PreviousStatus = previous
	if s.Audit != nil {
		detail := map[string]any{"previousStatus": previous}
		if p.ByUser {
			detail["by"] = "user"
		}
		_ = s.Audit.Record(ctx, audit.Entry{UserID: p.UserID, AgentID: p.AgentID, Action: "order.cancel", Target: id,
			Result: audit.Success, ClientAddr: p.ClientAddr, Detail: detail})
	}
	return v, nil
}

func notCancellable(status string) error {
	return errs.Ef(errs.Conflict, "cannot cancel an order that is %s: only PENDING, OPEN and PARTIALLY_FILLED orders can be cancelled", status).
		WithCode(errs.CodeOrderNotCancellable)
}

// NotCancellable is the error of a cancel of an order in status.
func NotCancellable(status string) error { return notCancellable(status) }

// StalePending lists (at most 500, oldest first) the orders still
// PENDING that were stored before cutoff: their workflow may never have
// started (the API process died between storing the order and starting
// it).
func (s *Service) StalePending(ctx context.Context, cutoff time.Time) ([]Ref, error) {
	rows, err := s.Store.StalePendingOrders(ctx, cutoff, 500)
	if err != nil {
		return nil, err
	}
	refs := make([]Ref, len(rows))
	for i := range rows {
		refs[i] = refOf(&rows[i])
	}
	return refs, nil
}
