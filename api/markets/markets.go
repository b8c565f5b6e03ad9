// Package markets serves the market-data endpoints of the agent API
// (scope read): market search, detail by id or slug, the crypto up/down
// lookup, order books, prices, spreads and the combined market-data view.
// Handlers only decode and validate the query, call models/markets and
// encode the DTOs below, whose JSON names and types follow the spec: prices
// and amounts are decimal strings, never JSON numbers. docs/agent-api-markets.md
// documents every endpoint.
package markets

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/agentauth"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/markets"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/gamma"
)

// Query defaults of GET /markets/search.
const (
	DefaultSearchLimit = 10
	DefaultMinVolume   = 100
	// maxOffset bounds offset; a search only ever scans 1,000 markets.
	maxOffset = 10_000
	// maxMinVolume bounds min_volume to something a market can have.
	maxMinVolume = 1_000_000_000_000
	// maxText bounds q and slug.
	maxText = 200
)

// Routes mounts the market-data endpoints on /api/agent/v1 behind auth,
// each requiring scope read.
func Routes(svc *markets.Service, auth ...gin.HandlerFunc) api.Routes {
	h := &handler{svc: svc, bodies: newRendered()}
	return func(s *api.Server) {
		g := s.Group("/api/agent/v1", auth...)
		read := agentauth.Require("read")
		g.GET("/markets/search", read, h.search)
		g.GET("/markets/crypto", read, h.crypto)
		g.GET("/markets/by-slug", read, h.bySlug)
		g.GET("/markets/:id", read, h.byID)
		g.GET("/orderbook", read, h.orderbook)
		g.GET("/prices", read, h.prices)
		g.GET("/spread", read, h.spread)
		g.GET("/market-data", read, h.marketData)
	}
}

type handler struct {
	svc *markets.Service
	// bodies are the market detail answers already encoded.
	bodies *rendered
}

// ---- DTOs ----

// MarketItem is a search result (spec resource "Market").
type MarketItem struct {
	ID              string   `json:"id"`
	Slug            string   `json:"slug"`
	Question        string   `json:"question"`
	Outcomes        []string `json:"outcomes"`
	OutcomePrices   []string `json:"outcomePrices"`
	Volume          string   `json:"volume"`
	Liquidity       string   `json:"liquidity"`
	AcceptingOrders bool     `json:"acceptingOrders"`
	EndDate         *string  `json:"endDate"`
	ConditionID     string   `json:"conditionId"`
	ClobTokenIDs    []string `json:"clobTokenIds"`
}

// TopMatch is context.topMatch of a search.
type TopMatch struct {
	ID       string `json:"id"`
	Question string `json:"question"`
}

// Token is one outcome token of a market detail.
type Token struct {
	TokenID string `json:"tokenId"`
	Outcome string `json:"outcome"`
	Price   string `json:"price"`
}

// OutcomeSpread is the live top of book of one outcome.
type OutcomeSpread struct {
	Outcome string  `json:"outcome"`
	Bid     *string `json:"bid"`
	Ask     *string `json:"ask"`
	Spread  *string `json:"spread"`
}

// MarketDetail is GET /markets/{id} and /markets/by-slug.
type MarketDetail struct {
	ID              string          `json:"id"`
	ConditionID     string          `json:"conditionId"`
	Slug            string          `json:"slug"`
	Question        string          `json:"question"`
	Description     string          `json:"description"`
	Outcomes        []string        `json:"outcomes"`
	OutcomePrices   []string        `json:"outcomePrices"`
	Tokens          []Token         `json:"tokens"`
	ClobTokenIDs    []string        `json:"clobTokenIds"`
	Spreads         []OutcomeSpread `json:"spreads"`
	Volume          string          `json:"volume"`
	Liquidity       string          `json:"liquidity"`
	EndDate         *string         `json:"endDate"`
	Active          bool            `json:"active"`
	Closed          bool            `json:"closed"`
	AcceptingOrders bool            `json:"acceptingOrders"`
	NegRisk         bool            `json:"negRisk"`
	TickSize        string          `json:"tickSize"`
	MinOrderSize    string          `json:"minOrderSize"`
}

// CryptoToken is a token of the crypto lookup with its live top of book.
type CryptoToken struct {
	TokenID string  `json:"tokenId"`
	Outcome string  `json:"outcome"`
	Price   string  `json:"price"`
	Bid     *string `json:"bid"`
	Ask     *string `json:"ask"`
}

// CryptoMarket is GET /markets/crypto (spec resource "Crypto market").
type CryptoMarket struct {
	ID              string        `json:"id"`
	ConditionID     string        `json:"conditionId"`
	Slug            string        `json:"slug"`
	Question        string        `json:"question"`
	Outcomes        []string      `json:"outcomes"`
	OutcomePrices   []string      `json:"outcomePrices"`
	StartDate       string        `json:"startDate"`
	EndDate         string        `json:"endDate"`
	AcceptingOrders bool          `json:"acceptingOrders"`
	NegRisk         bool          `json:"negRisk"`
	ClobTokenIDs    []string      `json:"clobTokenIds,omitempty"`
	Tokens          []CryptoToken `json:"tokens,omitempty"`
}

// CryptoMeta is the top-level meta of the crypto lookup.
type CryptoMeta struct {
	Asset        string `json:"asset"`
	Timeframe    string `json:"timeframe"`
	SearchMethod string `json:"searchMethod"`
	WindowStart  string `json:"windowStart"`
	WindowEnd    string `json:"windowEnd"`
}

// Level is one price level.
type Level struct {
	Price string `json:"price"`
	Size  string `json:"size"`
}

// BookSummary is the top of a book; members are null when a side is empty.
type BookSummary struct {
	BestBid *string `json:"bestBid"`
	BestAsk *string `json:"bestAsk"`
	Spread  *string `json:"spread"`
}

// OrderBook is GET /orderbook (spec resource "Order book"); levels best first.
type OrderBook struct {
	TokenID string      `json:"tokenId"`
	Bids    []Level     `json:"bids"`
	Asks    []Level     `json:"asks"`
	Summary BookSummary `json:"summary"`
}

// Prices is GET /prices (spec resource "Prices").
type Prices struct {
	TokenID        string  `json:"tokenId"`
	Midpoint       *string `json:"midpoint"`
	BuyPrice       *string `json:"buyPrice"`
	SellPrice      *string `json:"sellPrice"`
	LastTradePrice *string `json:"lastTradePrice"`
}

// Spread is GET /spread (spec resource "Spread").
type Spread struct {
	TokenID       string  `json:"tokenId"`
	Bid           *string `json:"bid"`
	Ask           *string `json:"ask"`
	Spread        *string `json:"spread"`
	SpreadPercent *string `json:"spreadPercent"`
}

// BookStats summarises a book for GET /market-data.
type BookStats struct {
	BestBid   *string `json:"bestBid"`
	BestAsk   *string `json:"bestAsk"`
	Spread    *string `json:"spread"`
	BidDepth  string  `json:"bidDepth"`
	AskDepth  string  `json:"askDepth"`
	BidLevels int     `json:"bidLevels"`
	AskLevels int     `json:"askLevels"`
}

// MarketData is GET /market-data: prices, spread and book summary of one
// token from one book snapshot.
type MarketData struct {
	TokenID      string    `json:"tokenId"`
	Prices       Prices    `json:"prices"`
	Spread       Spread    `json:"spread"`
	Book         BookStats `json:"book"`
	TickSize     string    `json:"tickSize"`
	MinOrderSize string    `json:"minOrderSize"`
	NegRisk      bool      `json:"negRisk"`
}

// ---- conversions ----

func dec(d decimal.Decimal) string { return d.String() }

func nullDec(d decimal.NullDecimal) *string {
	if !d.Valid {
		return nil
	}
	s := d.Decimal.String()
	return &s
}

func decs(ds []decimal.Decimal) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.String()
	}
	return out
}

func nonNil(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

func isoOrNil(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339)
	return &s
}

func iso(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func itemOf(m gamma.Market) MarketItem {
	return MarketItem{ID: m.ID, Slug: m.Slug, Question: m.Question, Outcomes: nonNil(m.Outcomes),
		OutcomePrices: decs(m.OutcomePrices), Volume: dec(m.Volume), Liquidity: dec(m.Liquidity),
		AcceptingOrders: m.AcceptingOrders, EndDate: isoOrNil(m.EndDate), ConditionID: m.ConditionID,
		ClobTokenIDs: nonNil(m.ClobTokenIDs)}
}

func priceAt(m gamma.Market, i int) string {
	if i < len(m.OutcomePrices) {
		return m.OutcomePrices[i].String()
	}
	return "0"
}

func outcomeAt(m gamma.Market, i int) string {
	if i < len(m.Outcomes) {
		return m.Outcomes[i]
	}
	return ""
}

func quoteOf(token string, b *clob.OrderBook) markets.Quote {
	if b == nil {
		return markets.Quote{TokenID: token}
	}
	return markets.QuoteOf(token, b)
}

func detailOf(d *markets.Detail) MarketDetail {
	m := d.Market
	out := MarketDetail{ID: m.ID, ConditionID: m.ConditionID, Slug: m.Slug, Question: m.Question,
		Description: m.Description, Outcomes: nonNil(m.Outcomes), OutcomePrices: decs(m.OutcomePrices),
		ClobTokenIDs: nonNil(m.ClobTokenIDs), Volume: dec(m.Volume), Liquidity: dec(m.Liquidity),
		EndDate: isoOrNil(m.EndDate), Active: m.Active, Closed: m.Closed, AcceptingOrders: m.AcceptingOrders,
		NegRisk: m.NegRisk, TickSize: dec(m.TickSize), MinOrderSize: dec(m.MinOrderSize),
		Tokens: []Token{}, Spreads: []OutcomeSpread{}}
	for i, t := range m.ClobTokenIDs {
		out.Tokens = append(out.Tokens, Token{TokenID: t, Outcome: outcomeAt(m, i), Price: priceAt(m, i)})
		var b *clob.OrderBook
		if i < len(d.Books) {
			b = d.Books[i]
		}
		q := quoteOf(t, b)
		out.Spreads = append(out.Spreads, OutcomeSpread{Outcome: outcomeAt(m, i),
			Bid: nullDec(q.BestBid), Ask: nullDec(q.BestAsk), Spread: nullDec(q.Spread)})
	}
	return out
}

func bookOf(token string, b *clob.OrderBook) OrderBook {
	q := markets.QuoteOf(token, b)
	out := OrderBook{TokenID: token, Bids: make([]Level, len(b.Bids)), Asks: make([]Level, len(b.Asks)),
		Summary: BookSummary{BestBid: nullDec(q.BestBid), BestAsk: nullDec(q.BestAsk), Spread: nullDec(q.Spread)}}
	for i, l := range b.Bids {
		out.Bids[i] = Level{Price: dec(l.Price), Size: dec(l.Size)}
	}
	for i, l := range b.Asks {
		out.Asks[i] = Level{Price: dec(l.Price), Size: dec(l.Size)}
	}
	return out
}

func pricesOf(q markets.Quote) Prices {
	return Prices{TokenID: q.TokenID, Midpoint: nullDec(q.Midpoint), BuyPrice: nullDec(q.BestAsk),
		SellPrice: nullDec(q.BestBid), LastTradePrice: nullDec(q.LastTradePrice)}
}

func spreadOf(q markets.Quote) Spread {
	return Spread{TokenID: q.TokenID, Bid: nullDec(q.BestBid), Ask: nullDec(q.BestAsk),
		Spread: nullDec(q.Spread), SpreadPercent: nullDec(q.SpreadPercent)}
}

// ---- query helpers ----

// text reads an optional free-text parameter of at most maxText characters.
func text(c *gin.Context, name string) (string, error) {
	v := strings.TrimSpace(c.Query(name))
	if len(v) > maxText {
		return "", errs.Ef(errs.Invalid, "query parameter %q must be at most %d characters", name, maxText).WithCode(errs.CodeInvalidQuery)
	}
	return v, nil
}

// enum reads an optional lower-cased parameter.
func enum(c *gin.Context, name string) string {
	return strings.ToLower(strings.TrimSpace(c.Query(name)))
}

// tokens reads token_id or token_ids; batch reports which one was used.
func tokens(c *gin.Context, allowBatch bool) (ids []string, batch bool, err error) {
	one, hasOne := c.GetQuery("token_id")
	many, hasMany := c.GetQuery("token_ids")
	if !allowBatch {
		hasMany = false
	}
	switch {
	case hasOne && hasMany:
		return nil, false, errs.E(errs.Invalid, `use either query parameter "token_id" or "token_ids", not both`).WithCode(errs.CodeInvalidQuery)
	case hasMany:
		ids, err = markets.ParseTokenIDs("token_ids", many)
		return ids, true, err
	}
	one = strings.TrimSpace(one)
	if one == "" {
		return nil, false, errs.Ef(errs.Invalid, "query parameter %q is required", "token_id").WithCode(errs.CodeInvalidQuery)
	}
	if !markets.ValidTokenID(one) {
		return nil, false, errs.Ef(errs.Invalid, "query parameter %q must be a decimal token id", "token_id").WithCode(errs.CodeInvalidQuery)
	}
	return []string{one}, false, nil
}

// ---- handlers ----

func (h *handler) search(c *gin.Context) {
	var p markets.SearchParams
	var err error
	fail := func(err error) { api.Fail(c, err) }
	if p.Query, err = text(c, "q"); err != nil {
		fail(err)
		return
	}
	if p.Slug, err = text(c, "slug"); err != nil {
		fail(err)
		return
	}
	p.Tag, p.Sort = enum(c, "tag"), enum(c, "sort")
	if p.Limit, err = api.QueryInt(c, "limit", DefaultSearchLimit, 1, markets.MaxSearchLimit); err != nil {
		fail(err)
		return
	}
	if p.Offset, err = api.QueryInt(c, "offset", 0, 0, maxOffset); err != nil {
		fail(err)
		return
	}
	minVol, err := api.QueryInt(c, "min_volume", DefaultMinVolume, 0, maxMinVolume)
	if err != nil {
		fail(err)
		return
	}
	p.MinVolume = decimal.NewFromInt(int64(minVol))
	if p.AcceptingOrders, err = api.QueryBool(c, "accepting_orders", true); err != nil {
		fail(err)
		return
	}
	if p.EndingSoon, err = api.QueryBool(c, "ending_soon", false); err != nil {
		fail(err)
		return
	}
	res, err := h.svc.Search(c.Request.Context(), p)
	if err != nil {
		fail(err)
		return
	}
	items := make([]MarketItem, len(res.Markets))
	for i, m := range res.Markets {
		items[i] = itemOf(m)
	}
	var top *TopMatch
	if res.TopMatch != nil {
		top = &TopMatch{ID: res.TopMatch.ID, Question: res.TopMatch.Question}
	}
	api.OKWith(c, 200, items, map[string]any{"context": map[string]any{"topMatch": top}})
}

func (h *handler) byID(c *gin.Context) {
	d, err := h.svc.MarketByID(c.Request.Context(), c.Param("id"))
	if err != nil {
		api.Fail(c, err)
		return
	}
	h.detail(c, d)
}

// detail answers with d's detail, encoded once for as long as the
// service's caches hand out the same market and books (rendered).
func (h *handler) detail(c *gin.Context, d *markets.Detail) {
	if body, ok := h.bodies.get(d); ok {
		c.Data(http.StatusOK, jsonContentType, body)
		return
	}
	body, err := json.Marshal(api.Envelope{Success: true, Data: detailOf(d)})
	if err != nil {
		api.Fail(c, err)
		return
	}
	h.bodies.put(d, body)
	c.Data(http.StatusOK, jsonContentType, body)
}

func (h *handler) bySlug(c *gin.Context) {
	slug, err := text(c, "slug")
	if err != nil {
		api.Fail(c, err)
		return
	}
	d, err := h.svc.MarketBySlug(c.Request.Context(), slug)
	if err != nil {
		api.Fail(c, err)
		return
	}
	h.detail(c, d)
}

func (h *handler) crypto(c *gin.Context) {
	include, err := api.QueryBool(c, "include_tokens", true)
	if err != nil {
		api.Fail(c, err)
		return
	}
	tfRaw, hasTF := c.GetQuery("timeframe")
	if hasTF && strings.TrimSpace(tfRaw) == "" {
		tfRaw = "daily"
	}
	r, err := h.svc.CryptoMarket(c.Request.Context(), c.Query("asset"), tfRaw, include)
	if err != nil {
		api.Fail(c, err)
		return
	}
	m := r.Market
	out := CryptoMarket{ID: m.ID, ConditionID: m.ConditionID, Slug: m.Slug, Question: m.Question,
		Outcomes: nonNil(m.Outcomes), OutcomePrices: decs(m.OutcomePrices),
		StartDate: iso(r.Window.Start), EndDate: iso(m.EndDate), AcceptingOrders: m.AcceptingOrders, NegRisk: m.NegRisk}
	if out.EndDate == "" {
		out.EndDate = iso(r.Window.End)
	}
	if include {
		out.ClobTokenIDs = nonNil(m.ClobTokenIDs)
		out.Tokens = []CryptoToken{}
		for i, t := range m.ClobTokenIDs {
			var b *clob.OrderBook
			if i < len(r.Books) {
				b = r.Books[i]
			}
			q := quoteOf(t, b)
			out.Tokens = append(out.Tokens, CryptoToken{TokenID: t, Outcome: outcomeAt(m, i), Price: priceAt(m, i),
				Bid: nullDec(q.BestBid), Ask: nullDec(q.BestAsk)})
		}
	}
	meta := CryptoMeta{Asset: r.Asset.Symbol, Timeframe: string(r.Timeframe), SearchMethod: "slug",
		WindowStart: iso(r.Window.Start), WindowEnd: iso(r.Window.End)}
	api.OKWith(c, 200, out, map[string]any{"meta": meta})
}

func (h *handler) orderbook(c *gin.Context) {
	ids, batch, err := tokens(c, true)
	if err != nil {
		api.Fail(c, err)
		return
	}
	books, err := h.svc.Books(c.Request.Context(), ids)
	if err != nil {
		api.Fail(c, err)
		return
	}
	if !batch {
		api.OK(c, bookOf(ids[0], books[0]))
		return
	}
	out := make([]OrderBook, len(ids))
	for i, b := range books {
		out[i] = bookOf(ids[i], b)
	}
	api.OK(c, out)
}

func (h *handler) prices(c *gin.Context) {
	ids, batch, err := tokens(c, true)
	if err != nil {
		api.Fail(c, err)
		return
	}
	qs, err := h.svc.Quotes(c.Request.Context(), ids)
	if err != nil {
		api.Fail(c, err)
		return
	}
	if !batch {
		api.OK(c, pricesOf(qs[0]))
		return
	}
	out := make([]Prices, len(qs))
	for i, q := range qs {
		out[i] = pricesOf(q)
	}
	api.OK(c, out)
}

func (h *handler) spread(c *gin.Context) {
	ids, _, err := tokens(c, false)
	if err != nil {
		api.Fail(c, err)
		return
	}
	qs, err := h.svc.Quotes(c.Request.Context(), ids)
	if err != nil {
		api.Fail(c, err)
		return
	}
	api.OK(c, spreadOf(qs[0]))
}

func (h *handler) marketData(c *gin.Context) {
	ids, _, err := tokens(c, false)
	if err != nil {
		api.Fail(c, err)
		return
	}
	qs, err := h.svc.Quotes(c.Request.Context(), ids)
	if err != nil {
		api.Fail(c, err)
		return
	}
	q := qs[0]
	api.OK(c, MarketData{TokenID: q.TokenID, Prices: pricesOf(q), Spread: spreadOf(q),
		Book: BookStats{BestBid: nullDec(q.BestBid), BestAsk: nullDec(q.BestAsk), Spread: nullDec(q.Spread),
			BidDepth: dec(q.BidDepth), AskDepth: dec(q.AskDepth), BidLevels: q.BidLevels, AskLevels: q.AskLevels},
		TickSize: q.TickSize, MinOrderSize: dec(q.MinOrderSize), NegRisk: q.NegRisk})
}
