// Package markets is the market-data service of the agent API: market
// search, market detail, the deterministic crypto up/down lookup, and order
// book derived quotes (prices, spread, book summary). It reads the venue
// through venue/gamma (metadata) and venue/clob (books), keeps short-lived
// caches so bursts of agents asking for the same market cost one venue
// call, and returns errors classified with models/errs: unknown markets and
// tokens are NotFound, bad arguments Invalid, venue outages Transient.
package markets

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/venue/cache"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/gamma"
	"github.com/agent-trading/ats/venue/updown"
)

// Default cache lifetimes. Market metadata (question, tokens, flags) changes
// rarely and a few seconds of staleness is harmless; books move with every
// order, so they are only shared within a burst.
const (
	DefaultMarketTTL = 5 * time.Second
	DefaultBookTTL   = 500 * time.Millisecond
)

// maxCacheEntries bounds each cache, so a stream of distinct keys cannot
// grow memory without limit.
const maxCacheEntries = 10_000

// Limits of the search and batch endpoints.
const (
	// MaxSearchLimit is the largest page of search results.
	MaxSearchLimit = 100
	// MaxBatchTokens is the most tokens one book/price batch may name.
	MaxBatchTokens = 20
	// searchPage is the Gamma page size used while scanning for matches.
	searchPage = 200
	// searchScan bounds how many Gamma markets one search inspects, so a
	// selective filter cannot make a request walk the whole catalogue.
	searchScan = 1000
	// endingSoonWindow is what "ending soon" means.
	endingSoonWindow = 24 * time.Hour
)

// Service answers the market-data queries. Gamma and CLOB are required; the
// zero values of the other fields select the defaults. A Service must not
// be copied after first use.
type Service struct {
	Gamma *gamma.Client
	CLOB  *clob.Client
	// Now is the clock (default time.Now); tests of the crypto lookup and
	// of ending_soon pin it.
	Now func() time.Time
	// MarketTTL and BookTTL override DefaultMarketTTL and DefaultBookTTL;
	// a negative value disables that cache.
	MarketTTL time.Duration
	BookTTL   time.Duration
	// Live, when set, serves the books of tokens the process's price feed
	// holds, before the cache and the venue.
	Live LiveBooks

	once    sync.Once
	markets *cache.Cache[*gamma.Market]
	books   *cache.Cache[*clob.OrderBook]
	batches *cache.Cache[map[string]*clob.OrderBook] // keyed by the token list
}

func (s *Service) init() {
	s.once.Do(func() {
		if s.Now == nil {
			s.Now = time.Now
		}
		mt, bt := s.MarketTTL, s.BookTTL
		if mt == 0 {
			mt = DefaultMarketTTL
		}
		if bt == 0 {
			bt = DefaultBookTTL
		}
		s.markets = cache.New[*gamma.Market](maxCacheEntries, mt, s.Now)
		s.books = cache.New[*clob.OrderBook](maxCacheEntries, bt, s.Now)
		s.batches = cache.New[map[string]*clob.OrderBook](maxCacheEntries, bt, s.Now)
	})
}

// ---- search ----

// Sort orders of Search.
const (
	SortVolume    = "volume"    // lifetime volume, largest first (default)
	SortLiquidity = "liquidity" // liquidity, largest first
	SortEndDate   = "end_date"  // end date, soonest first
	SortRecent    = "recent"    // start date, newest first
)

// Tags accepted by Search.
var Tags = []string{"crypto", "politics", "sports", "entertainment"}

// SearchParams selects markets. Limit and Offset must already be in range.
type SearchParams struct {
	Query           string          // free text; every word must match
	Slug            string          // exact slug
	Tag             string          // one of Tags, or empty
	Limit, Offset   int             // page
	Sort            string          // one of the Sort constants; empty = volume
	MinVolume       decimal.Decimal // minimum lifetime USD volume
	AcceptingOrders bool            // only markets accepting orders; false: closed ones too
	EndingSoon      bool            // markets ending within 24 hours first
}

// SearchResult is one page of matches and the best match overall.
type SearchResult struct {
	Markets []gamma.Market
	// TopMatch is the most relevant match among those scanned (the first
	// in order when there is no text query); nil when nothing matched.
	TopMatch *gamma.Market
}

// Validate checks the parameters that are not plain ranges.
func (p SearchParams) Validate() error {
	switch p.Sort {
	case "", SortVolume, SortLiquidity, SortEndDate, SortRecent:
	default:
		return errs.Ef(errs.Invalid, "query parameter %q must be one of volume, liquidity, end_date, recent", "sort").WithCode(errs.CodeInvalidQuery)
	}
	if p.Tag != "" && !slices.Contains(Tags, p.Tag) {
		return errs.Ef(errs.Invalid, "query parameter %q must be one of %s", "tag", strings.Join(Tags, ", ")).WithCode(errs.CodeInvalidQuery)
	}
	if p.Limit < 1 || p.Limit > MaxSearchLimit {
		return errs.Ef(errs.Invalid, "query parameter %q must be an integer between 1 and %d", "limit", MaxSearchLimit).WithCode(errs.CodeInvalidQuery)
	}
	if p.Offset < 0 {
		return errs.Ef(errs.Invalid, "query parameter %q must not be negative", "offset").WithCode(errs.CodeInvalidQuery)
	}
	if p.MinVolume.IsNegative() {
		return errs.Ef(errs.Invalid, "query parameter %q must not be negative", "min_volume").WithCode(errs.CodeInvalidQuery)
	}
	return nil
}

// gammaOrder maps a sort to Gamma's order field and direction.
func gammaOrder(sort string) (field string, ascending bool) {
	switch sort {
	case SortLiquidity:
		return "liquidityNum", false
	case SortEndDate:
		return "endDate", true
	case SortRecent:
		return "startDate", false
	}
	return "volumeNum", false
}

// compareMarkets orders two markets by sort (stable tie: keep venue order).
func compareMarkets(sort string) func(a, b gamma.Market) int {
	switch sort {
	case SortLiquidity:
		return func(a, b gamma.Market) int { return b.Liquidity.Cmp(a.Liquidity) }
	case SortEndDate:
		return func(a, b gamma.Market) int {
			// Markets without an end date go last, not first.
			if a.EndDate.IsZero() != b.EndDate.IsZero() {
				return boolRank(!a.EndDate.IsZero()) - boolRank(!b.EndDate.IsZero())
			}
			return a.EndDate.Compare(b.EndDate)
		}
	case SortRecent:
		return func(a, b gamma.Market) int { return b.StartDate.Compare(a.StartDate) }
	}
	return func(a, b gamma.Market) int { return b.Volume.Cmp(a.Volume) }
}

// Search finds markets. Text, tag, volume and accepting-orders filters are
// applied here over Gamma's sorted market lists (at most searchScan markets
// of each list are inspected per request: the open markets, and with
// AcceptingOrders false the closed ones too), because the venue's list
// endpoint does not filter on all of them; a slug is an exact Gamma lookup.
func (s *Service) Search(ctx context.Context, p SearchParams) (*SearchResult, error) {
	s.init()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	terms := splitTerms(p.Query)
	now := s.Now()
	keep := func(m gamma.Market) bool {
		if p.AcceptingOrders && !m.Tradable() {
			return false
		}
		if m.Volume.LessThan(p.MinVolume) {
			return false
		}
		if p.Tag != "" && !hasTag(m, p.Tag) {
			return false
		}
		return len(terms) == 0 || matchScore(m, terms, p.Query) > 0
	}
	// Every filter is local, so the page can only be cut once enough
	// matches are known; ending_soon and the top match look at everything
	// scanned.
	need := p.Offset + p.Limit
	scanAll := p.EndingSoon || len(terms) > 0

	field, asc := gammaOrder(p.Sort)
	base := gamma.MarketsParams{Order: field, Ascending: &asc, VolumeNumMin: p.MinVolume}
	if p.Slug != "" {
		base.Slugs = []string{p.Slug}
	}
	// Gamma lists open markets, or with closed=true only closed ones:
	// markets that no longer accept orders because they closed (resolved)
	// are a second list, scanned when the caller wants them too. Each list
	// is in sort order, so the first need matches of each hold the first
	// need of both.
	lists := []bool{false}
	if !p.AcceptingOrders {
		lists = append(lists, true)
	}
	var matched []gamma.Market
	for _, closed := range lists {
		q := base
		q.Closed = &closed
		found, err := s.scan(ctx, q, keep, need, scanAll)
		if err != nil {
			return nil, err
		}
		matched = append(matched, found...)
	}
	slices.SortStableFunc(matched, compareMarkets(p.Sort))
	if p.EndingSoon {
		soon := func(m gamma.Market) bool {
			return !m.EndDate.IsZero() && m.EndDate.After(now) && !m.EndDate.After(now.Add(endingSoonWindow))
		}
		slices.SortStableFunc(matched, func(a, b gamma.Market) int {
			return boolRank(soon(a)) - boolRank(soon(b))
		})
	}
	res := &SearchResult{}
	if len(matched) > 0 {
		best, bestScore := 0, -1
		for i, m := range matched {
			sc := 1
			if len(terms) > 0 {
				sc = matchScore(m, terms, p.Query)
			}
			if sc > bestScore {
				best, bestScore = i, sc
			}
		}
		top := matched[best]
		res.TopMatch = &top
	}
	if p.Offset < len(matched) {
		res.Markets = matched[p.Offset:min(len(matched), need)]
	}
	return res, nil
}

// scan pages through Gamma's list q (at most searchScan markets) and
// returns the markets keep accepts, stopping at need of them unless all
// must be seen.
func (s *Service) scan(ctx context.Context, q gamma.MarketsParams, keep func(gamma.Market) bool, need int, all bool) ([]gamma.Market, error) {
	var matched []gamma.Market
	for off := 0; off < searchScan; off += searchPage {
		q.Limit, q.Offset = searchPage, off
		page, err := s.Gamma.Markets(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, m := range page {
			if keep(m) {
				matched = append(matched, m)
			}
		}
		if len(page) < searchPage || (!all && len(matched) >= need) {
			break
		}
	}
	return matched, nil
}

// boolRank sorts true before false.
func boolRank(b bool) int {
	if b {
		return 0
	}
	return 1
}

func hasTag(m gamma.Market, tag string) bool {
	for _, t := range m.Tags {
		if strings.EqualFold(t.Slug, tag) || strings.EqualFold(t.Label, tag) {
			return true
		}
	}
	return strings.EqualFold(m.Category, tag)
}

// splitTerms lower-cases and splits a text query into words.
func splitTerms(q string) []string { return strings.Fields(strings.ToLower(q)) }

// matchScore is 0 when some term is missing, else 1 (terms found somewhere
// in the market's text), 2 (all terms in the question) or 3 (the whole
// query is a phrase of the question).
func matchScore(m gamma.Market, terms []string, query string) int {
	question := strings.ToLower(m.Question)
	hay := question + " " + strings.ToLower(m.Slug) + " " + strings.ToLower(m.Description)
	for _, e := range m.Events {
		hay += " " + strings.ToLower(e.Title)
	}
	inQuestion := true
	for _, t := range terms {
		if !strings.Contains(hay, t) {
			return 0
		}
		if !strings.Contains(question, t) {
			inQuestion = false
		}
	}
	switch {
	case strings.Contains(question, strings.ToLower(strings.Join(strings.Fields(query), " "))):
		return 3
	case inQuestion:
		return 2
	}
	return 1
}

// ---- detail ----

// Detail is a market with the current books of its outcome tokens.
type Detail struct {
	Market gamma.Market
	// Source is the cached market Market was copied from: the same
	// pointer for as long as the cache holds that answer, so a caller may
	// key what it derives from a Detail by Source and Books.
	Source *gamma.Market
	// Books is parallel to Market.ClobTokenIDs; an entry is nil when the
	// venue has no book for that token (e.g. a resolved market).
	Books []*clob.OrderBook
}

// validMarketID accepts Gamma's numeric ids and 0x condition ids.
func validMarketID(id string) bool {
	if isDigits(id) && len(id) <= 20 {
		return true
	}
	if len(id) == 66 && (strings.HasPrefix(id, "0x") || strings.HasPrefix(id, "0X")) {
		for _, c := range id[2:] {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
		return true
	}
	return false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// ValidTokenID reports whether s looks like a CLOB token id (a uint256 in
// decimal).
func ValidTokenID(s string) bool { return isDigits(s) && len(s) <= 78 }

// MarketByID returns a market by Gamma id or condition id (0x…), with the
// books of its tokens.
func (s *Service) MarketByID(ctx context.Context, id string) (*Detail, error) {
	s.init()
	if !validMarketID(id) {
		return nil, errs.E(errs.Invalid, "market id must be a numeric market id or a 0x condition id").WithCode(errs.CodeInvalidID)
	}
	m, err := s.markets.Get(ctx, "id:"+strings.ToLower(id), func(ctx context.Context) (*gamma.Market, error) {
		if isDigits(id) {
			return s.Gamma.MarketByID(ctx, id)
		}
		ms, err := s.Gamma.Markets(ctx, gamma.MarketsParams{ConditionIDs: []string{id}, Limit: 1})
		if err == nil && len(ms) == 0 {
			// Gamma hides closed markets unless asked for them.
			closed := true
			ms, err = s.Gamma.Markets(ctx, gamma.MarketsParams{ConditionIDs: []string{id}, Closed: &closed, Limit: 1})
		}
		if err != nil {
			return nil, err
		}
		if len(ms) == 0 {
			return nil, errs.E(errs.NotFound, "market not found").WithCode(errs.CodeNotFound)
		}
		return &ms[0], nil
	})
	if err != nil {
		return nil, marketErr(err)
	}
	return s.detail(ctx, m)
}

// MarketBySlug returns a market by its exact slug, with its books.
func (s *Service) MarketBySlug(ctx context.Context, slug string) (*Detail, error) {
	s.init()
	slug = strings.TrimSpace(slug)
	if slug == "" {
		return nil, errs.Ef(errs.Invalid, "query parameter %q is required", "slug").WithCode(errs.CodeInvalidQuery)
	}
	m, err := s.marketBySlug(ctx, slug)
	if err != nil {
		return nil, marketErr(err)
	}
	return s.detail(ctx, m)
}

func (s *Service) marketBySlug(ctx context.Context, slug string) (*gamma.Market, error) {
	return s.markets.Get(ctx, "slug:"+slug, func(ctx context.Context) (*gamma.Market, error) {
		return s.Gamma.MarketBySlug(ctx, slug)
	})
}

// marketErr gives venue NotFound answers one client message.
func marketErr(err error) error {
	if errs.Is(err, errs.NotFound) {
		return errs.E(errs.NotFound, "market not found").WithCode(errs.CodeMarketNotFound).WithCause(err)
	}
	return err
}

func (s *Service) detail(ctx context.Context, m *gamma.Market) (*Detail, error) {
	d := &Detail{Market: *m, Source: m, Books: make([]*clob.OrderBook, len(m.ClobTokenIDs))}
	if len(m.ClobTokenIDs) == 0 || !m.EnableOrderBook {
		return d, nil
	}
	books, err := s.fetchBooks(ctx, m.ClobTokenIDs, false)
	if err != nil {
		return nil, err
	}
	copy(d.Books, books)
	return d, nil
}

// ---- crypto ----

// Crypto is the result of the deterministic up/down lookup.
type Crypto struct {
	Asset     updown.Asset
	Timeframe updown.Timeframe
	Window    updown.Window
	Market    gamma.Market
	// Books is parallel to Market.ClobTokenIDs, or nil when the lookup was
	// asked without tokens.
	Books []*clob.OrderBook
}

// slugFinder lets updown.FindAccepting read through the market cache.
type slugFinder struct{ s *Service }

func (f slugFinder) MarketBySlug(ctx context.Context, slug string) (*gamma.Market, error) {
	return f.s.marketBySlug(ctx, slug)
}

// CryptoMarket finds the up/down market of asset (symbol or long name) and
// timeframe (5m, 15m, 4h, hourly, daily; empty = daily) currently accepting
// orders: the window containing now or one of the next updown.LookAhead.
func (s *Service) CryptoMarket(ctx context.Context, asset, timeframe string, includeTokens bool) (*Crypto, error) {
	s.init()
	if strings.TrimSpace(asset) == "" {
		return nil, errs.Ef(errs.Invalid, "query parameter %q is required", "asset").WithCode(errs.CodeInvalidQuery)
	}
	a, err := updown.ParseAsset(asset)
	if err != nil {
		return nil, errs.Ef(errs.Invalid, "query parameter %q must be one of btc, eth, sol, xrp, doge, matic (or bitcoin, ethereum, solana, dogecoin, polygon)", "asset").WithCode(errs.CodeInvalidQuery)
	}
	tf, err := updown.ParseTimeframe(timeframe)
	if err != nil {
		return nil, errs.Ef(errs.Invalid, "query parameter %q must be one of 5m, 15m, 4h, hourly, daily", "timeframe").WithCode(errs.CodeInvalidQuery)
	}
	m, w, err := updown.FindAccepting(ctx, slugFinder{s}, a, tf, s.Now())
	if err != nil {
		return nil, err
	}
	c := &Crypto{Asset: a, Timeframe: tf, Window: w, Market: *m}
	if includeTokens && len(m.ClobTokenIDs) > 0 {
		books, err := s.fetchBooks(ctx, m.ClobTokenIDs, false)
		if err != nil {
			return nil, err
		}
		c.Books = books
	}
	return c, nil
}

// ---- books and quotes ----

// ParseTokenIDs validates a comma-separated token list: 1 to
// MaxBatchTokens decimal ids, duplicates removed (first kept). param names
// the query parameter in errors.
func ParseTokenIDs(param, raw string) ([]string, error) {
	var out []string
	for _, t := range strings.Split(raw, ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if !ValidTokenID(t) {
			return nil, errs.Ef(errs.Invalid, "query parameter %q must hold decimal token ids", param).WithCode(errs.CodeInvalidQuery)
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, errs.Ef(errs.Invalid, "query parameter %q is required", param).WithCode(errs.CodeInvalidQuery)
	}
	if len(out) > MaxBatchTokens {
		return nil, errs.Ef(errs.Invalid, "query parameter %q accepts at most %d token ids, got %d", param, MaxBatchTokens, len(out)).WithCode(errs.CodeTooManyTokens)
	}
	return out, nil
}

// Books returns the books of tokens in order. A token the venue has no book
// for is NotFound (code token_not_found) naming it.
func (s *Service) Books(ctx context.Context, tokens []string) ([]*clob.OrderBook, error) {
	s.init()
	for _, t := range tokens {
		if !ValidTokenID(t) {
			return nil, errs.E(errs.Invalid, "token ids must be decimal numbers").WithCode(errs.CodeInvalidTokenID)
		}
	}
	if len(tokens) > MaxBatchTokens {
		return nil, errs.Ef(errs.Invalid, "at most %d token ids per request", MaxBatchTokens).WithCode(errs.CodeTooManyTokens)
	}
	return s.fetchBooks(ctx, tokens, true)
}

// Book returns the book of one token.
func (s *Service) Book(ctx context.Context, token string) (*clob.OrderBook, error) {
	bs, err := s.Books(ctx, []string{token})
	if err != nil {
		return nil, err
	}
	return bs[0], nil
}

func tokenNotFound(tokens []string) *errs.Error {
	return errs.Ef(errs.NotFound, "no order book for token %s", strings.Join(tokens, ", ")).WithCode(errs.CodeTokenNotFound)
}

// books_ serves tokens from the cache, fetches the rest in one call (GET
// /book for one, POST /books for several) and normalises every book to
// best-first order. With strict, a token without a book is an error;
// otherwise its entry is nil.
func (s *Service) fetchBooks(ctx context.Context, tokens []string, strict bool) ([]*clob.OrderBook, error) {
	out := make([]*clob.OrderBook, len(tokens))
	var missing []string
	for i, t := range tokens {
		if b, ok := s.liveBook(ctx, t); ok {
			out[i] = b
		} else if b, ok := s.books.Peek(t); ok {
			out[i] = b
		} else {
			missing = append(missing, t)
		}
	}
	switch len(missing) {
	case 0:
		return out, nil
	case 1:
		b, err := s.books.Get(ctx, missing[0], func(ctx context.Context) (*clob.OrderBook, error) {
			b, err := s.CLOB.OrderBook(ctx, missing[0])
			if err != nil {
				return nil, err
			}
			normalise(b)
			return b, nil
		})
		if errs.Is(err, errs.NotFound) {
			if strict {
				return nil, tokenNotFound(missing).WithCause(err)
			}
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out[slices.Index(tokens, missing[0])] = b
		return out, nil
	}
	// Concurrent requests for the same set (e.g. one market's outcome
	// tokens) share one POST /books.
	byToken, err := s.batches.Get(ctx, strings.Join(missing, ","), func(ctx context.Context) (map[string]*clob.OrderBook, error) {
		params := make([]clob.BookParams, len(missing))
		for i, t := range missing {
			params[i] = clob.BookParams{TokenID: t}
		}
		got, err := s.CLOB.OrderBooks(ctx, params)
		if err != nil {
			return nil, err
		}
		byToken := make(map[string]*clob.OrderBook, len(got))
		for i := range got {
			b := &got[i]
			normalise(b)
			byToken[b.AssetID] = b
			s.books.Put(b.AssetID, b)
		}
		return byToken, nil
	})
	if err != nil {
		return nil, err
	}
	var unknown []string
	for i, t := range tokens {
		if out[i] != nil {
			continue
		}
		if b, ok := byToken[t]; ok {
			out[i] = b
		} else {
			unknown = append(unknown, t)
		}
	}
	if strict && len(unknown) > 0 {
		return nil, tokenNotFound(unknown)
	}
	return out, nil
}

// normalise sorts a book best-first: bids by price descending, asks
// ascending. The venue serves the opposite order (best last); agents read
// the top of the book first.
func normalise(b *clob.OrderBook) {
	slices.SortStableFunc(b.Bids, func(x, y clob.PriceLevel) int { return y.Price.Cmp(x.Price) })
	slices.SortStableFunc(b.Asks, func(x, y clob.PriceLevel) int { return x.Price.Cmp(y.Price) })
}

// Quote is what one book says about a token's prices. Fields are invalid
// (NullDecimal.Valid false) when the book side they need is empty.
type Quote struct {
	TokenID        string
	BestBid        decimal.NullDecimal // highest bid: what a seller receives
	BestAsk        decimal.NullDecimal // lowest ask: what a buyer pays
	Midpoint       decimal.NullDecimal // (bid+ask)/2
	Spread         decimal.NullDecimal // ask − bid
	SpreadPercent  decimal.NullDecimal // spread / midpoint × 100, 2 dp
	LastTradePrice decimal.NullDecimal // price of the token's latest fill
	BidDepth       decimal.Decimal     // shares resting on the bid side
	AskDepth       decimal.Decimal     // shares resting on the ask side
	BidLevels      int
	AskLevels      int
	TickSize       string
	MinOrderSize   decimal.Decimal
	NegRisk        bool
}

// QuoteOf derives a Quote from a best-first book (as returned by Books).
func QuoteOf(token string, b *clob.OrderBook) Quote {
	q := Quote{TokenID: token, BidLevels: len(b.Bids), AskLevels: len(b.Asks),
		TickSize: string(b.TickSize), MinOrderSize: b.MinOrderSize.Decimal, NegRisk: b.NegRisk}
	for _, l := range b.Bids {
		q.BidDepth = q.BidDepth.Add(l.Size)
	}
	for _, l := range b.Asks {
		q.AskDepth = q.AskDepth.Add(l.Size)
	}
	if len(b.Bids) > 0 {
		q.BestBid = valid(b.Bids[0].Price)
	}
	if len(b.Asks) > 0 {
		q.BestAsk = valid(b.Asks[0].Price)
	}
	if q.BestBid.Valid && q.BestAsk.Valid {
		bid, ask := q.BestBid.Decimal, q.BestAsk.Decimal
		mid := bid.Add(ask).Div(decimal.NewFromInt(2))
		q.Midpoint = valid(mid)
		q.Spread = valid(ask.Sub(bid))
		if mid.IsPositive() {
			q.SpreadPercent = valid(ask.Sub(bid).Div(mid).Mul(decimal.NewFromInt(100)).Round(2))
		}
	}
	if !b.LastTradePrice.IsZero() {
		q.LastTradePrice = valid(b.LastTradePrice.Decimal)
	}
	return q
}

func valid(d decimal.Decimal) decimal.NullDecimal {
	return decimal.NullDecimal{Decimal: d, Valid: true}
}

// Quotes returns a Quote per token, in order, from one consistent book
// snapshot each.
func (s *Service) Quotes(ctx context.Context, tokens []string) ([]Quote, error) {
	books, err := s.Books(ctx, tokens)
	if err != nil {
		return nil, err
	}
	out := make([]Quote, len(tokens))
	for i, b := range books {
		out[i] = QuoteOf(tokens[i], b)
	}
	return out, nil
}

// maxHistoryPoints bounds a price history: enough for a chart's width.
const maxHistoryPoints = 300

// PriceHistory returns the token's price samples in [from, to], thinned
// by the venue to at most about maxHistoryPoints.
func (s *Service) PriceHistory(ctx context.Context, token string, from, to time.Time) ([]clob.PricePoint, error) {
	if !to.After(from) {
		return nil, errs.E(errs.Invalid, "a price history needs a time span")
	}
	fidelity := int(to.Sub(from)/time.Minute)/maxHistoryPoints + 1
	return s.CLOB.PricesHistory(ctx, token, from, to, fidelity)
}
