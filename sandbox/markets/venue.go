package markets

import (
	"cmp"
	"context"
	"crypto/ecdsa"
	"fmt"
	"log/slog"
	"math/big"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agent-trading/ats/sandbox/exchange"
	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/micro"
	"github.com/agent-trading/ats/venue/network"
	"github.com/agent-trading/ats/venue/updown"
)

// MakerOwner is the API-key owner of the synthetic market makers' orders.
const MakerOwner = "sandbox-market-maker"

// OutsideOwner is the API-key owner of control-API outside trades.
const OutsideOwner = "sandbox-outside-trader"

// Config configures a venue.
type Config struct {
	Chain   Chain
	Network network.Network
	Seed    int64
	// Ordinary is the number of catalogue markets (default 24).
	Ordinary int
	// UpDownAhead is how many future up/down windows are listed besides the
	// current one (default 3).
	UpDownAhead int
	// QuoteInterval is how often Run steps prices and re-quotes (default 2s).
	QuoteInterval time.Duration
	// ConfirmAfter is passed to the engine (trade MINED → CONFIRMED).
	ConfirmAfter time.Duration
	// DisableUpDown skips the crypto up/down series (tests of ordinary markets).
	DisableUpDown bool
	// UpDownSeries, when set, lists only these series ("btc 15m": asset
	// symbol and timeframe) instead of every asset × timeframe (smaller
	// test sandboxes).
	UpDownSeries []string
	// UpDownWindow, when set (tests), makes each up/down window trade for
	// this long instead of its whole timeframe, one after another: the
	// first from its listing, each next one from the end of the one before
	// it (or its own listing, if later). A window then stops trading and
	// resolves, and its end date says so. Its slug and question stay its
	// timeframe's, so clients find it as on the live venue, and the next
	// window, listed ahead and accepting orders, takes its place: a window
	// roll in seconds rather than minutes.
	UpDownWindow time.Duration
	Clock        exchange.Clock
	Logger       *slog.Logger
	// Journal, when set, keeps the venue on disk (persist.go): Start
	// reopens the markets, books and trades it holds.
	Journal Journal
}

// Venue is the sandbox's market layer over the engine and the chain.
type Venue struct {
	cfg    Config
	log    *slog.Logger
	chain  Chain
	engine *exchange.Engine
	path   PricePath
	mmKey  *ecdsa.PrivateKey
	mmAddr common.Address

	mu      sync.Mutex
	rng     *rand.Rand
	markets []*Info
	byCond  map[string]*Info
	byToken map[string]*Info
	bySlug  map[string]*Info
	fair    map[string]uint64 // condition → fair price of outcome 0, micro
	dirty   map[string]bool   // condition → re-quote on next tick
	// pinned are the up/down windows whose price the control API set: the
	// price path no longer moves them (until they end).
	pinned  map[string]bool
	history map[string][]PricePoint // condition → fair price of outcome 0 over time
	nextID  int
	salt    uint64
	// restored is set when Start reopened the venue from its journal.
	restored bool

	quoteMu sync.Mutex // serialises quoting passes (Run and control calls)
}

// New builds a venue; Start lists the markets.
func New(cfg Config) (*Venue, error) {
	if cfg.Chain == nil {
		return nil, venue.E(venue.Internal, "markets: a chain is required")
	}
	if cfg.Ordinary == 0 {
		cfg.Ordinary = 24
	}
	if cfg.UpDownAhead == 0 {
		cfg.UpDownAhead = 3
	}
	if cfg.QuoteInterval == 0 {
		cfg.QuoteInterval = 2 * time.Second
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	v := &Venue{
		cfg: cfg, log: cfg.Logger, chain: cfg.Chain, path: NewPricePath(cfg.Seed),
		mmKey:   cfg.Chain.MarketMaker(),
		rng:     rand.New(rand.NewPCG(uint64(cfg.Seed), 0x6d6b7421)),
		byCond:  map[string]*Info{},
		byToken: map[string]*Info{},
		bySlug:  map[string]*Info{},
		fair:    map[string]uint64{},
		dirty:   map[string]bool{},
		pinned:  map[string]bool{},
		history: map[string][]PricePoint{},
		nextID:  500_000,
		salt:    uint64(cfg.Seed)&0xffffffff<<16 + 1,
	}
	v.mmAddr = crypto.PubkeyToAddress(v.mmKey.PublicKey)
	ecfg := exchange.Config{
		Ledger: cfg.Chain, Settler: cfg.Chain, Clock: cfg.Clock, ConfirmAfter: cfg.ConfirmAfter,
		Logger: cfg.Logger.With("component", "exchange"), OnTrade: v.onTrade,
	}
	engineJournal(&ecfg, cfg.Journal)
	v.engine = exchange.New(ecfg)
	return v, nil
}

// Engine is the venue's matching engine.
func (v *Venue) Engine() *exchange.Engine { return v.engine }

// Chain is the chain the venue trades on.
func (v *Venue) Chain() Chain { return v.chain }

// Network is the network the venue's orders are signed for.
func (v *Venue) Network() network.Network { return v.cfg.Network }

// MarketMakerAddress is the synthetic makers' wallet.
func (v *Venue) MarketMakerAddress() common.Address { return v.mmAddr }

// PricePath is the up/down underlyings' price path.
func (v *Venue) PricePath() PricePath { return v.path }

func (v *Venue) onTrade(t exchange.Trade) {
	v.mu.Lock()
	defer v.mu.Unlock()
	info := v.byCond[t.ConditionID]
	if info == nil {
		return
	}
	// Traded notional accrues to Gamma's volume; a filled maker re-quotes.
	info.VolumeMicro += t.SizeMicro * t.PriceMicro / exchange.One
	v.saveLocked(info)
	for _, m := range t.MakerOrders {
		if m.Owner == MakerOwner {
			v.dirty[t.ConditionID] = true
			break
		}
	}
}

// Start seeds the catalogue and the current up/down windows: every market
// is prepared on chain, listed on the engine and quoted.
func (v *Venue) Start(ctx context.Context) error {
	restored, err := v.restore(ctx)
	if err != nil {
		return err
	}
	if restored {
		if err := v.requoteAll(ctx); err != nil {
			return err
		}
	}
	// The catalogue (on a reopened venue, whatever of it a first start
	// that stopped half way did not list).
	var ls []listing
	for _, s := range Catalogue(v.cfg.Seed, v.cfg.Ordinary, v.cfg.Clock()) {
		if _, listed := v.BySlug(s.Slug); !listed {
			ls = append(ls, listing{id: v.newID(), seed: s})
		}
	}
	if err := v.listAll(ctx, ls); err != nil {
		return err
	}
	if !v.cfg.DisableUpDown {
		if err := v.rollUpDown(ctx); err != nil {
			return err
		}
	}
	return nil
}

// listing is a market about to be listed.
type listing struct {
	id   int
	seed Seed
	ud   *UpDown
}

func (v *Venue) newID() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.nextID++
	return v.nextID
}

// listParallelism bounds concurrent listings. Each listing waits for its
// chain transactions to be mined; running them side by side lets one block
// carry many of them instead of one block interval per market.
const listParallelism = 64

// listAll lists markets concurrently and keeps the catalogue in id order.
func (v *Venue) listAll(ctx context.Context, ls []listing) error {
	sem := make(chan struct{}, listParallelism)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for _, l := range ls {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if _, err := v.list(ctx, l.id, l.seed, l.ud); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	v.mu.Lock()
	sort.SliceStable(v.markets, func(i, j int) bool { return v.markets[i].ID < v.markets[j].ID })
	v.mu.Unlock()
	return first
}

// Run steps prices, re-quotes, rolls the up/down series and expires GTD
// orders every QuoteInterval until ctx ends.
func (v *Venue) Run(ctx context.Context) {
	t := time.NewTicker(v.cfg.QuoteInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := v.Tick(ctx); err != nil && ctx.Err() == nil {
				v.log.Warn("market tick failed", "err", err)
			}
		}
	}
}

// Tick is one pass of the living market.
func (v *Venue) Tick(ctx context.Context) error {
	v.engine.Sweep()
	if !v.cfg.DisableUpDown {
		if err := v.rollUpDown(ctx); err != nil {
			return err
		}
	}
	now := v.cfg.Clock()
	v.mu.Lock()
	var todo []string
	for _, m := range v.markets {
		if m.Resolved {
			continue
		}
		old := v.fair[m.ConditionID]
		var nf uint64
		switch {
		case m.UpDown != nil && v.pinned[m.ConditionID]:
			nf = old // set with the control API: it stays where it was put
		case m.UpDown != nil:
			nf = v.path.Fair(*m.UpDown, now)
		default:
			nf = v.walk(old, m.TickMicro)
		}
		if nf != old || v.dirty[m.ConditionID] {
			v.fair[m.ConditionID] = nf
			todo = append(todo, m.ConditionID)
		}
		if nf != old {
			v.saveFairLocked(m)
		}
		v.recordLocked(m.ConditionID, now)
	}
	v.mu.Unlock()
	var first error
	for _, c := range todo {
		if err := v.requote(ctx, c); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// walk moves a fair price by at most one tick, rarely: a seeded random walk
// bounded away from 0 and 1.
func (v *Venue) walk(p, tick uint64) uint64 {
	switch r := v.rng.IntN(10); {
	case r == 0 && p > 5*tick:
		return p - tick
	case r == 1 && p < exchange.One-5*tick:
		return p + tick
	}
	return p
}

// Create prepares a market on chain, lists it and quotes it.
func (v *Venue) Create(ctx context.Context, s Seed) (Info, error) {
	if s.Outcomes[0] == "" || s.Outcomes[1] == "" {
		s.Outcomes = [2]string{"Yes", "No"}
	}
	if s.Slug == "" {
		s.Slug = Slugify(s.Question)
	}
	if s.Question == "" || s.Slug == "" {
		return Info{}, venue.E(venue.Invalid, "a market needs a question")
	}
	if s.FairMicro == 0 {
		s.FairMicro = 500_000
	}
	if s.FairMicro%10_000 != 0 || s.FairMicro < 10_000 || s.FairMicro > 990_000 {
		return Info{}, venue.E(venue.Invalid, "price must be between 0.01 and 0.99 on a 0.01 tick")
	}
	v.mu.Lock()
	if _, dup := v.bySlug[s.Slug]; dup {
		v.mu.Unlock()
		return Info{}, venue.Ef(venue.Conflict, "a market with slug %q exists", s.Slug)
	}
	v.mu.Unlock()
	return v.list(ctx, v.newID(), s, nil)
}

func (v *Venue) list(ctx context.Context, id int, s Seed, ud *UpDown) (Info, error) {
	qid := crypto.Keccak256Hash([]byte(fmt.Sprintf("sandbox:%d:%s", v.cfg.Seed, s.Slug)))
	pm, err := v.chain.PrepareMarket(ctx, qid, s.NegRisk)
	if err != nil {
		return Info{}, venue.Wrap(venue.Unavailable, err, "could not prepare the market on chain")
	}
	now := v.cfg.Clock()
	info := &Info{
		ID: id, EventID: id + 100_000, Question: s.Question, Slug: s.Slug, EventSlug: s.Slug, EventTitle: s.Question,
		Description: "This market resolves on the sandbox chain (not Polymarket).",
		Tags:        s.Tags, Outcomes: s.Outcomes,
		ConditionID: pm.ConditionID.Hex(), QuestionID: qid.Hex(),
		TokenIDs: [2]string{pm.TokenIDs[0].String(), pm.TokenIDs[1].String()},
		NegRisk:  s.NegRisk, TickMicro: 10_000, MinMicro: 5 * exchange.One,
		Start: now.UTC().Truncate(time.Hour), End: s.End.UTC(),
		VolumeMicro: s.VolumeMicro, UpDown: ud,
	}
	if ud != nil {
		info.Start, info.EventStart, info.End = ud.Start.Add(-24*time.Hour), ud.Start, ud.End
	}
	if err := v.engine.AddMarket(exchange.Market{
		ConditionID: info.ConditionID, Tokens: info.TokenIDs, Outcomes: info.Outcomes,
		TickMicro: info.TickMicro, MinSizeMicro: info.MinMicro, NegRisk: info.NegRisk,
	}); err != nil {
		return Info{}, err
	}
	// Inventory: split collateral into both outcomes so the makers can
	// offer either side from real on-chain tokens.
	if err := v.chain.SplitTo(ctx, v.mmKey, pm.ConditionID, s.NegRisk, inventory); err != nil {
		return Info{}, venue.Wrap(venue.Unavailable, err, "could not mint market-maker inventory")
	}
	v.mu.Lock()
	v.markets = append(v.markets, info)
	v.byCond[info.ConditionID] = info
	v.byToken[info.TokenIDs[0]], v.byToken[info.TokenIDs[1]] = info, info
	v.bySlug[info.Slug] = info
	v.fair[info.ConditionID] = s.FairMicro
	v.recordLocked(info.ConditionID, now)
	v.saveFairLocked(info)
	seq := v.saveLocked(info)
	cp := *info
	v.mu.Unlock()
	if err := v.durable(seq); err != nil {
		return Info{}, err
	}
	v.engine.AnnounceListed(info.ConditionID)
	if err := v.requote(ctx, info.ConditionID); err != nil {
		return Info{}, err
	}
	return cp, nil
}

// inventory is how many micro-shares of each outcome a split mints for the
// market makers, and the level below which they split again.
const inventory = 5_000 * exchange.One

// quoteLevels are the makers' distances from fair (in ticks) and sizes.
var quoteLevels = []struct {
	ticks  uint64
	shares uint64
}{{1, 100 * exchange.One}, {2, 250 * exchange.One}, {4, 500 * exchange.One}}

// requote replaces the makers' quotes of a market around its fair price.
//
// Everything slow or fallible comes first, while the old quotes still
// stand: the inventory check and its split (a chain transaction) and the
// signing of every new quote. The engine then swaps the old quotes for the
// new in one step (ReplaceWhere), so a marketable order never meets an
// empty or half-built book and the market channel shows one update.
func (v *Venue) requote(ctx context.Context, conditionID string) error {
	v.quoteMu.Lock()
	defer v.quoteMu.Unlock()
	v.mu.Lock()
	info := v.byCond[conditionID]
	if info == nil || info.Resolved {
		v.mu.Unlock()
		return nil
	}
	fair := v.fair[conditionID]
	delete(v.dirty, conditionID)
	m := *info
	v.mu.Unlock()

	cond := common.HexToHash(conditionID)
	var quotes []exchange.Order
	sign := func(tok string, side exchange.Side, price, shares uint64) error {
		o, err := v.SignedOrder(v.mmKey, m, tok, side, price, shares, exchange.GTC, MakerOwner)
		quotes = append(quotes, o)
		return err
	}
	for i, tok := range m.TokenIDs {
		bal, _, err := v.chain.Funds(ctx, v.mmAddr, tok, m.NegRisk)
		if err != nil {
			return venue.Wrap(venue.Unavailable, err, "could not read market-maker inventory")
		}
		if bal.Cmp(new(big.Int).SetUint64(inventory/5)) < 0 {
			if err := v.chain.SplitTo(ctx, v.mmKey, cond, m.NegRisk, inventory); err != nil {
				return venue.Wrap(venue.Unavailable, err, "could not mint market-maker inventory")
			}
		}
		p := fair
		if i == 1 {
			p = exchange.One - fair
		}
		for _, l := range quoteLevels {
			d := l.ticks * m.TickMicro
			if p > d+m.TickMicro/2 && p-d >= m.TickMicro {
				if err := sign(tok, exchange.Buy, p-d, l.shares); err != nil {
					return err
				}
			}
			if p+d <= exchange.One-m.TickMicro {
				if err := sign(tok, exchange.Sell, p+d, l.shares); err != nil {
					return err
				}
			}
		}
	}
	rep, err := v.engine.ReplaceWhere(ctx, MakerOwner, conditionID, quotes)
	if err != nil {
		return err
	}
	var first error
	for _, err := range rep.Errs {
		// A quote that would cross an outside order simply trades; one the
		// venue refuses (funds) is skipped, not fatal to the other quotes.
		switch {
		case err == nil:
		case venue.CategoryOf(err) == venue.Invalid:
			v.log.Debug("quote refused", "market", m.Slug, "err", venue.MessageOf(err))
		default:
			first = cmp.Or(first, err)
		}
	}
	return first
}

func (v *Venue) nextSalt() uint64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.salt++
	return v.salt
}

// SignedOrder builds and signs a V2 limit order for key (signature type 0)
// and converts it into an engine order.
func (v *Venue) SignedOrder(key *ecdsa.PrivateKey, m Info, tokenID string, side exchange.Side, price, shares uint64, typ exchange.OrderType, owner string) (exchange.Order, error) {
	tid, ok := new(big.Int).SetString(tokenID, 10)
	if !ok {
		return exchange.Order{}, venue.E(venue.Invalid, "Invalid token id")
	}
	coll := shares / 10_000 * price / 100 // shares have 2 decimals; exact
	addr := crypto.PubkeyToAddress(key.PublicKey)
	o := clob.Order{
		Salt: v.nextSalt(), Maker: addr, Signer: addr, TokenID: tid, Side: clob.Side(side),
		SignatureType: clob.SigEOA, Timestamp: uint64(v.cfg.Clock().UnixMilli()),
	}
	if side == exchange.Buy {
		o.MakerAmount, o.TakerAmount = new(big.Int).SetUint64(coll), new(big.Int).SetUint64(shares)
	} else {
		o.MakerAmount, o.TakerAmount = new(big.Int).SetUint64(shares), new(big.Int).SetUint64(coll)
	}
	d := clob.NetworkDomain(v.cfg.Network, m.NegRisk)
	if err := clob.SignOrder(&o, key, d); err != nil {
		return exchange.Order{}, err
	}
	h, err := clob.OrderHash(o, d)
	if err != nil {
		return exchange.Order{}, err
	}
	return exchange.Order{
		ID: h.Hex(), Owner: owner, Maker: addr, Signer: addr, TokenID: tokenID, Side: side,
		MakerAmount: o.MakerAmount.Uint64(), TakerAmount: o.TakerAmount.Uint64(), Type: typ, Signed: o,
	}, nil
}

// Markets returns every listed market, in listing order.
func (v *Venue) Markets() []Info {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make([]Info, len(v.markets))
	for i, m := range v.markets {
		out[i] = *m
	}
	return out
}

// ByCondition, ByToken, BySlug and ByID look a market up.
func (v *Venue) ByCondition(id string) (Info, bool) {
	return v.lookup(func() *Info { return v.byCond[strings.ToLower(id)] }, id)
}

// ByToken looks a market up by one of its token ids.
func (v *Venue) ByToken(id string) (Info, bool) {
	return v.lookup(func() *Info { return v.byToken[id] }, "")
}

// BySlug looks a market up by slug.
func (v *Venue) BySlug(slug string) (Info, bool) {
	return v.lookup(func() *Info { return v.bySlug[slug] }, "")
}

// ByID looks a market up by its Gamma id.
func (v *Venue) ByID(id int) (Info, bool) {
	return v.lookup(func() *Info {
		for _, m := range v.markets {
			if m.ID == id {
				return m
			}
		}
		return nil
	}, "")
}

func (v *Venue) lookup(f func() *Info, cond string) (Info, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	m := f()
	if m == nil && cond != "" {
		for _, x := range v.markets {
			if strings.EqualFold(x.ConditionID, cond) {
				m = x
			}
		}
	}
	if m == nil {
		return Info{}, false
	}
	return *m, true
}

// Fair returns a token's fair price in micro.
func (v *Venue) Fair(tokenID string) (uint64, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	m := v.byToken[tokenID]
	if m == nil {
		return 0, false
	}
	f := v.fair[m.ConditionID]
	if tokenID == m.TokenIDs[1] {
		f = exchange.One - f
	}
	return f, true
}

// SetPrice re-centres a market on price for tokenID (the other outcome
// moves to 1 − price) and re-quotes at once.
func (v *Venue) SetPrice(ctx context.Context, tokenID string, price uint64) (Info, error) {
	v.mu.Lock()
	m := v.byToken[tokenID]
	if m == nil {
		v.mu.Unlock()
		return Info{}, venue.E(venue.NotFound, "market not found")
	}
	if m.Resolved {
		v.mu.Unlock()
		return Info{}, venue.E(venue.Conflict, "market is resolved")
	}
	if price%m.TickMicro != 0 || price < m.TickMicro || price > exchange.One-m.TickMicro {
		v.mu.Unlock()
		return Info{}, venue.Ef(venue.Invalid, "price must be between %s and %s on the market's tick", micro.String(m.TickMicro), micro.String(exchange.One-m.TickMicro))
	}
	if tokenID == m.TokenIDs[1] {
		price = exchange.One - price
	}
	v.fair[m.ConditionID] = price
	if m.UpDown != nil {
		v.pinned[m.ConditionID] = true
	}
	seq := v.saveFairLocked(m)
	cp := *m
	v.mu.Unlock()
	if err := v.durable(seq); err != nil {
		return Info{}, err
	}
	return cp, v.requote(ctx, cp.ConditionID)
}

// Resolve resolves a market on chain with the named (or indexed) outcome
// winning, closes its books and marks it resolved.
func (v *Venue) Resolve(ctx context.Context, conditionID, winner string) (Info, error) {
	m, ok := v.ByCondition(conditionID)
	if !ok {
		return Info{}, venue.E(venue.NotFound, "market not found")
	}
	idx := -1
	for i, o := range m.Outcomes {
		if strings.EqualFold(o, winner) {
			idx = i
		}
	}
	if idx < 0 {
		return Info{}, venue.Ef(venue.Invalid, "winner must be %q or %q", m.Outcomes[0], m.Outcomes[1])
	}
	return v.resolveIdx(ctx, m, idx)
}

func (v *Venue) resolveIdx(ctx context.Context, m Info, idx int) (Info, error) {
	if m.Resolved {
		return Info{}, venue.E(venue.Conflict, "market already resolved")
	}
	v.engine.CloseMarket(m.ConditionID)
	// Conflict: resolved on chain by a run that stopped before recording
	// it; the venue records it now.
	if err := v.chain.Resolve(ctx, common.HexToHash(m.ConditionID), m.NegRisk, idx); err != nil && !venue.Is(err, venue.Conflict) {
		return Info{}, venue.Wrap(venue.CategoryOf(err), err, "could not resolve the market on chain")
	}
	v.engine.MarkResolved(m.ConditionID, idx)
	v.mu.Lock()
	info := v.byCond[m.ConditionID]
	info.Resolved, info.Winner, info.ResolvedAt = true, idx, v.cfg.Clock()
	if idx == 0 {
		v.fair[m.ConditionID] = exchange.One
	} else {
		v.fair[m.ConditionID] = 0
	}
	seq := v.saveLocked(info)
	cp := *info
	v.mu.Unlock()
	return cp, v.durable(seq)
}

// Fund mints collateral (micro) and optionally gas (wei) to addr.
func (v *Venue) Fund(ctx context.Context, addr common.Address, usdcMicro uint64, nativeWei *big.Int) error {
	if err := v.chain.Fund(ctx, addr, usdcMicro, nativeWei); err != nil {
		return venue.Wrap(venue.Unavailable, err, "could not fund the wallet")
	}
	return nil
}

// OutsideKey returns the key of a known outside wallet.
func (v *Venue) OutsideKey(addr common.Address) (*ecdsa.PrivateKey, bool) {
	for _, k := range v.chain.OutsideWallets() {
		if crypto.PubkeyToAddress(k.PublicKey) == addr {
			return k, true
		}
	}
	return nil, false
}

// OutsideTrade has an outside wallet trade through the book with a limit
// order (GTC: what crosses fills and settles on chain, the rest rests). A
// seller without tokens first splits collateral into inventory.
func (v *Venue) OutsideTrade(ctx context.Context, key *ecdsa.PrivateKey, tokenID string, side exchange.Side, price, shares uint64) (exchange.Result, error) {
	m, ok := v.ByToken(tokenID)
	if !ok {
		return exchange.Result{}, venue.E(venue.NotFound, "market not found")
	}
	if shares%10_000 != 0 {
		return exchange.Result{}, venue.E(venue.Invalid, "size supports at most 2 decimals")
	}
	addr := crypto.PubkeyToAddress(key.PublicKey)
	if side == exchange.Sell {
		bal, _, err := v.chain.Funds(ctx, addr, tokenID, m.NegRisk)
		if err != nil {
			return exchange.Result{}, venue.Wrap(venue.Unavailable, err, "could not read balance")
		}
		if bal.Cmp(new(big.Int).SetUint64(shares)) < 0 {
			if err := v.chain.SplitTo(ctx, key, common.HexToHash(m.ConditionID), m.NegRisk, shares); err != nil {
				return exchange.Result{}, venue.Wrap(venue.CategoryOf(err), err, "could not mint tokens for the outside seller")
			}
		}
	}
	o, err := v.SignedOrder(key, m, tokenID, side, price, shares, exchange.GTC, OutsideOwner)
	if err != nil {
		return exchange.Result{}, err
	}
	return v.engine.Place(ctx, o)
}

// rollUpDown lists the current and next windows of every asset ×
// timeframe and resolves ended windows from the price path.
func (v *Venue) rollUpDown(ctx context.Context) error {
	now := v.cfg.Clock()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for _, m := range v.Markets() {
		if m.UpDown != nil && !m.Resolved && !now.Before(m.UpDown.End) {
			wg.Add(1)
			go func() { // resolutions of one boundary share a block
				defer wg.Done()
				if _, err := v.resolveIdx(ctx, m, v.path.Outcome(*m.UpDown)); err != nil && venue.CategoryOf(err) != venue.Conflict {
					mu.Lock()
					first = cmp.Or(first, err)
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	if first != nil {
		return first
	}
	// With UpDownWindow, the latest end of each series' listed windows: a
	// new window trades after it.
	last := map[string]time.Time{}
	for _, m := range v.Markets() {
		if ud := m.UpDown; ud != nil && ud.End.After(last[ud.Asset+" "+ud.Timeframe]) {
			last[ud.Asset+" "+ud.Timeframe] = ud.End
		}
	}
	var ls []listing
	for _, a := range updown.Assets() {
		for _, tf := range Timeframes {
			if !v.listsSeries(a.Symbol, tf) {
				continue
			}
			series := a.Symbol + " " + string(tf)
			ws, err := updown.Windows(a, tf, now, v.cfg.UpDownAhead)
			if err != nil {
				return err
			}
			for _, w := range ws {
				if _, ok := v.BySlug(w.Slug); ok {
					continue
				}
				end := w.End
				if d := v.cfg.UpDownWindow; d > 0 {
					// It trades d from its listing, or from the end of the
					// window before it: short windows one after another.
					opens := now
					if p := last[series]; p.After(opens) {
						opens = p
					}
					if short := opens.Add(d); short.Before(end) {
						end = short
					}
					last[series] = end
				}
				ud := &UpDown{Asset: a.Symbol, Timeframe: string(tf), Start: w.Start, End: end}
				ls = append(ls, listing{id: v.newID(), ud: ud, seed: Seed{
					Question: Title(a.Symbol, string(tf), w.Start, w.End), Slug: w.Slug,
					Tags:     []string{"crypto", "up-or-down", string(tf)},
					Outcomes: [2]string{"Up", "Down"}, FairMicro: v.path.Fair(*ud, now), End: end,
					VolumeMicro: 1_000 * exchange.One,
				}})
			}
		}
	}
	if err := v.listAll(ctx, ls); err != nil {
		return err
	}
	return nil
}

// listsSeries reports whether the venue lists the series of asset and tf
// (Config.UpDownSeries).
func (v *Venue) listsSeries(asset string, tf updown.Timeframe) bool {
	if len(v.cfg.UpDownSeries) == 0 {
		return true
	}
	for _, s := range v.cfg.UpDownSeries {
		a, t, _ := strings.Cut(strings.ToLower(strings.TrimSpace(s)), " ")
		if a != asset {
			continue
		}
		if parsed, err := updown.ParseTimeframe(t); err == nil && parsed == tf {
			return true
		}
	}
	return false
}

// PricePoint is one sample of a market's fair price.
type PricePoint struct {
	Time  time.Time
	Micro uint64 // price of outcome 0
}

// historyCap bounds the samples kept per market. Beyond it the older half
// is thinned to the first sample of each minute (all /prices-history
// serves of it, and all the journal keeps), so a market keeps weeks of
// one-minute history; only when that too passes three quarters of the cap
// are the oldest samples dropped.
const historyCap = 50_000

// recordLocked samples a market's fair price, at most once a second.
func (v *Venue) recordLocked(conditionID string, now time.Time) {
	h := v.history[conditionID]
	if n := len(h); n > 0 && now.Sub(h[n-1].Time) < time.Second {
		return
	}
	// The journal keeps the first sample of each minute: /prices-history
	// answers one point per bucket of whole minutes, the first, so a
	// reopened venue answers as this one does, from a sixtieth of the data.
	if v.cfg.Journal != nil && (len(h) == 0 || h[len(h)-1].Time.Unix()/60 != now.Unix()/60) {
		v.cfg.Journal.Put(historyKey(conditionID, now), v.fair[conditionID])
	}
	h = append(h, PricePoint{Time: now, Micro: v.fair[conditionID]})
	if len(h) > historyCap {
		h = v.thinLocked(conditionID, h)
	}
	v.history[conditionID] = h
}

// thinLocked keeps the first sample of each minute of h's older half, and
// drops the oldest samples when even that is too many.
func (v *Venue) thinLocked(conditionID string, h []PricePoint) []PricePoint {
	half := len(h) / 2
	out := make([]PricePoint, 0, len(h))
	for i, p := range h[:half] {
		if i == 0 || h[i-1].Time.Unix()/60 != p.Time.Unix()/60 {
			out = append(out, p)
		}
	}
	out = append(out, h[half:]...)
	if len(out) > historyCap*3/4 {
		out = append([]PricePoint(nil), out[len(out)-historyCap/2:]...)
		if v.cfg.Journal != nil {
			v.cfg.Journal.DeleteRange(historyKey(conditionID, time.UnixMilli(0)), historyKey(conditionID, out[0].Time))
		}
	}
	return out
}

// RecordHistory records a price path of tokenID that has already happened
// (the control API's history: a test sets the history a backtest replays).
// The points, oldest first, each at or before now, replace the samples
// recorded between the first and the last; prices are the token's (the
// other outcome's are 1 − price). The path is on disk when it returns.
func (v *Venue) RecordHistory(tokenID string, pts []PricePoint) (Info, error) {
	if len(pts) == 0 {
		return Info{}, venue.E(venue.Invalid, "points are required")
	}
	v.mu.Lock()
	m := v.byToken[tokenID]
	if m == nil {
		v.mu.Unlock()
		return Info{}, venue.E(venue.NotFound, "market not found")
	}
	now := v.cfg.Clock()
	for i, p := range pts {
		switch {
		case p.Micro == 0 || p.Micro >= exchange.One:
			v.mu.Unlock()
			return Info{}, venue.Ef(venue.Invalid, "point %d: the price must be strictly between 0 and 1", i)
		case p.Time.After(now):
			v.mu.Unlock()
			return Info{}, venue.Ef(venue.Invalid, "point %d is in the future: history is what already happened", i)
		case i > 0 && !p.Time.After(pts[i-1].Time):
			v.mu.Unlock()
			return Info{}, venue.Ef(venue.Invalid, "point %d is not after point %d: points go oldest first", i, i-1)
		}
	}
	first, last := pts[0].Time, pts[len(pts)-1].Time
	h := v.history[m.ConditionID]
	out := make([]PricePoint, 0, len(h)+len(pts))
	i := 0
	for ; i < len(h) && h[i].Time.Before(first); i++ {
		out = append(out, h[i])
	}
	for _, p := range pts {
		if tokenID == m.TokenIDs[1] {
			p.Micro = exchange.One - p.Micro
		}
		out = append(out, PricePoint{Time: p.Time, Micro: p.Micro})
	}
	for ; i < len(h); i++ {
		if h[i].Time.After(last) {
			out = append(out, h[i])
		}
	}
	var seq uint64
	if j := v.cfg.Journal; j != nil {
		j.DeleteRange(historyKey(m.ConditionID, first), historyKey(m.ConditionID, last.Add(time.Millisecond)))
		for _, p := range out {
			if !p.Time.Before(first) && !p.Time.After(last) {
				seq = j.Put(historyKey(m.ConditionID, p.Time), p.Micro)
			}
		}
	}
	if len(out) > historyCap {
		out = v.thinLocked(m.ConditionID, out)
	}
	v.history[m.ConditionID] = out
	cp := *m
	v.mu.Unlock()
	return cp, v.durable(seq)
}

// History returns a token's fair-price samples in [from, to].
func (v *Venue) History(tokenID string, from, to time.Time) ([]PricePoint, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	m := v.byToken[tokenID]
	if m == nil {
		return nil, false
	}
	var out []PricePoint
	for _, p := range v.history[m.ConditionID] {
		if p.Time.Before(from) || p.Time.After(to) {
			continue
		}
		if tokenID == m.TokenIDs[1] {
			p.Micro = exchange.One - p.Micro
		}
		out = append(out, p)
	}
	return out, true
}
