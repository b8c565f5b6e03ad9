package clob

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/cache"
	"github.com/agent-trading/ats/venue/internal/rest"
	"github.com/agent-trading/ats/venue/network"
	"github.com/agent-trading/ats/venue/wire"
)

// Cursor sentinels of the venue's paginated endpoints.
const (
	FirstCursor = "MA=="
	EndCursor   = "LTE="
	// maxPages bounds pagination so a misbehaving server cannot loop us.
	maxPages = 1000
)

// DefaultCacheTTL is how long per-token tick size and neg-risk answers are
// trusted. Both rarely change; when they do the venue rejects the post and
// the Trader refetches once.
const DefaultCacheTTL = 30 * time.Second

// DefaultCacheSize bounds how many tokens' market parameters are kept.
const DefaultCacheSize = 10_000

// Config configures a Client.
type Config struct {
	// BaseURL is the CLOB root (network.Network.CLOBURL).
	BaseURL string
	// ChainID signs L1 headers (network.Network.ChainID).
	ChainID int64
	// HTTP, Timeout, Retries, Backoff: the HTTP client, the per-attempt
	// timeout (default 15s), extra attempts of safe calls (default 2;
	// negative: none) and the base delay between them (default 200ms).
	HTTP    *http.Client
	Timeout time.Duration
	Retries int
	Backoff time.Duration
	// CacheTTL for tick size / neg-risk / market info (default DefaultCacheTTL).
	CacheTTL time.Duration
	// Now is the clock for auth timestamps and caches (default time.Now).
	Now func() time.Time
}

// ConfigFor returns a Config for network n.
func ConfigFor(n network.Network) Config { return Config{BaseURL: n.CLOBURL, ChainID: n.ChainID} }

// Client is a CLOB V2 REST client. The zero-credential client serves public
// market data and L1 key management; WithCreds returns a client for one API
// key that shares this one's connection pool and caches.
type Client struct {
	rest    *rest.Client
	chainID int64
	now     func() time.Time
	cache   *cache.Cache[marketEntry] // by token id
	creds   Creds
	address common.Address
}

// NewClient returns a client for cfg.
func NewClient(cfg Config) *Client {
	rc := rest.New(rest.Config{BaseURL: cfg.BaseURL, HTTP: cfg.HTTP, Timeout: cfg.Timeout, Retries: cfg.Retries, Backoff: cfg.Backoff}, "clob")
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	ttl := cfg.CacheTTL
	if ttl <= 0 {
		ttl = DefaultCacheTTL
	}
	return &Client{rest: rc, chainID: cfg.ChainID, now: now, cache: cache.New[marketEntry](DefaultCacheSize, ttl, now)}
}

// WithCreds returns a client authenticating L2 calls with creds for the
// EOA address (POLY_ADDRESS is always the key's EOA, never the funder).
func (c *Client) WithCreds(creds Creds, address common.Address) *Client {
	cc := *c
	cc.creds, cc.address = creds, address
	return &cc
}

// ChainID is the chain the client signs L1 headers for.
func (c *Client) ChainID() int64 { return c.chainID }

// Creds returns the client's L2 credentials (zero for a public client).
func (c *Client) Creds() Creds { return c.creds }

func (c *Client) get(ctx context.Context, path string, q url.Values, out any) error {
	resp, err := c.rest.Do(ctx, rest.Request{Method: http.MethodGet, Path: path, Query: q, Idempotent: true})
	if err != nil {
		return mapErr(err, nil)
	}
	return decodeInto(resp, out)
}

func decodeInto(resp *rest.Response, out any) error {
	if out == nil {
		return nil
	}
	if err := rest.DecodeJSON(resp, out); err != nil {
		return venue.Wrap(venue.Unavailable, err, "unexpected venue response")
	}
	return nil
}

func (c *Client) l2Sign(method, path string, body []byte) (http.Header, error) {
	if c.creds.Key == "" {
		return nil, venue.E(venue.Unauthorized, "no API credentials for this venue call").WithCode("no_api_key")
	}
	return L2Headers(c.creds, c.address, c.now().Unix(), method, path, body)
}

// private performs an L2 call. idempotent marks calls safe to retry.
func (c *Client) private(ctx context.Context, method, path string, q url.Values, body []byte, idempotent bool, out any) error {
	resp, err := c.rest.Do(ctx, rest.Request{Method: method, Path: path, Query: q, Body: body, Sign: c.l2Sign, Idempotent: idempotent})
	if err != nil {
		return mapErr(err, nil)
	}
	return decodeInto(resp, out)
}

// ---- public market data ----

// Ok checks the venue's health endpoint.
func (c *Client) Ok(ctx context.Context) error { return c.get(ctx, "/ok", nil, nil) }

// Version returns the order version the venue expects (2 when absent).
func (c *Client) Version(ctx context.Context) (int, error) {
	var v struct {
		Version *int `json:"version"`
	}
	if err := c.get(ctx, "/version", nil, &v); err != nil {
		return 0, err
	}
	if v.Version == nil {
		return 2, nil
	}
	return *v.Version, nil
}

// ServerTime returns the venue clock (unix seconds).
func (c *Client) ServerTime(ctx context.Context) (int64, error) {
	var v wire.LooseInt64
	if err := c.get(ctx, "/time", nil, &v); err != nil {
		return 0, err
	}
	return int64(v), nil
}

// PriceLevel is one book level.
type PriceLevel struct {
	Price decimal.Decimal `json:"price"`
	Size  decimal.Decimal `json:"size"`
}

// OrderBook is the venue's OrderBookSummary. Bids are ascending and asks
// descending by price (the best level is the last element), as served.
type OrderBook struct {
	Market         string            `json:"market"`
	AssetID        string            `json:"asset_id"`
	Timestamp      string            `json:"timestamp"`
	Hash           string            `json:"hash"`
	Bids           []PriceLevel      `json:"bids"`
	Asks           []PriceLevel      `json:"asks"`
	MinOrderSize   wire.LooseDecimal `json:"min_order_size"`
	TickSize       TickSize          `json:"tick_size"`
	NegRisk        bool              `json:"neg_risk"`
	LastTradePrice wire.LooseDecimal `json:"last_trade_price"`
}

// OrderBook fetches the book of a token and refreshes the token's cached
// tick size, neg-risk flag and minimum size from it.
func (c *Client) OrderBook(ctx context.Context, tokenID string) (*OrderBook, error) {
	var b OrderBook
	if err := c.get(ctx, "/book", url.Values{"token_id": {tokenID}}, &b); err != nil {
		return nil, err
	}
	c.rememberBook(tokenID, &b)
	return &b, nil
}

// BookParams selects a book in POST /books.
type BookParams struct {
	TokenID string `json:"token_id"`
	Side    string `json:"side,omitempty"`
}

// OrderBooks fetches several books at once.
func (c *Client) OrderBooks(ctx context.Context, params []BookParams) ([]OrderBook, error) {
	body, err := json.Marshal(params)
	if err != nil {
		return nil, venue.Wrap(venue.Internal, err, "encode request")
	}
	// POST /books is a read: repeating it is harmless.
	resp, err := c.rest.Do(ctx, rest.Request{Method: http.MethodPost, Path: "/books", Body: body, Idempotent: true})
	if err != nil {
		return nil, mapErr(err, nil)
	}
	var out []OrderBook
	if err := decodeInto(resp, &out); err != nil {
		return nil, err
	}
	for i := range out {
		c.rememberBook(out[i].AssetID, &out[i])
	}
	return out, nil
}

// Price returns the venue's /price for a token and side (best bid for BUY,
// best ask for SELL, per the venue docs).
func (c *Client) Price(ctx context.Context, tokenID string, side Side) (decimal.Decimal, error) {
	var v struct {
		Price wire.LooseDecimal `json:"price"`
	}
	err := c.get(ctx, "/price", url.Values{"token_id": {tokenID}, "side": {side.String()}}, &v)
	return v.Price.Decimal, err
}

// Midpoint returns the mid price of a token.
func (c *Client) Midpoint(ctx context.Context, tokenID string) (decimal.Decimal, error) {
	var v struct {
		Mid wire.LooseDecimal `json:"mid"`
	}
	err := c.get(ctx, "/midpoint", url.Values{"token_id": {tokenID}}, &v)
	return v.Mid.Decimal, err
}

// Spread returns the bid-ask spread of a token.
func (c *Client) Spread(ctx context.Context, tokenID string) (decimal.Decimal, error) {
	var v struct {
		Spread wire.LooseDecimal `json:"spread"`
	}
	err := c.get(ctx, "/spread", url.Values{"token_id": {tokenID}}, &v)
	return v.Spread.Decimal, err
}

// LastTrade is the last traded price of a token.
type LastTrade struct {
	Price wire.LooseDecimal `json:"price"`
	Side  string            `json:"side"`
}

// LastTradePrice returns the last trade of a token.
func (c *Client) LastTradePrice(ctx context.Context, tokenID string) (LastTrade, error) {
	var v LastTrade
	err := c.get(ctx, "/last-trade-price", url.Values{"token_id": {tokenID}}, &v)
	return v, err
}

// PricePoint is one sample of a token's price history.
type PricePoint struct {
	Time  time.Time
	Price decimal.Decimal
}

// PricesHistory returns the token's price samples between from and to,
// one per fidelity minutes at most (GET /prices-history).
func (c *Client) PricesHistory(ctx context.Context, tokenID string, from, to time.Time, fidelityMinutes int) ([]PricePoint, error) {
	if fidelityMinutes < 1 {
		fidelityMinutes = 1
	}
	q := url.Values{"market": {tokenID}, "startTs": {strconv.FormatInt(from.Unix(), 10)},
		"endTs": {strconv.FormatInt(to.Unix(), 10)}, "fidelity": {strconv.Itoa(fidelityMinutes)}}
	var v struct {
		History []struct {
			T int64             `json:"t"`
			P wire.LooseDecimal `json:"p"`
		} `json:"history"`
	}
	if err := c.get(ctx, "/prices-history", q, &v); err != nil {
		return nil, err
	}
	out := make([]PricePoint, 0, len(v.History))
	for _, h := range v.History {
		out = append(out, PricePoint{Time: time.Unix(h.T, 0).UTC(), Price: h.P.Decimal})
	}
	return out, nil
}

// historyFidelities are the fidelities (minutes) PricesHistoryFinest
// tries, finest first.
var historyFidelities = []int{1, 5, 15, 60, 240, 1440}

// PricesHistoryFinest returns the token's price samples between from and
// to at the finest fidelity the venue serves for that span: the venue
// refuses too fine a fidelity for a long span ("minimum 'fidelity' for
// … range is …"), so each refusal that names the fidelity tries the next
// coarser one. It answers the fidelity used.
func (c *Client) PricesHistoryFinest(ctx context.Context, tokenID string, from, to time.Time) ([]PricePoint, int, error) {
	var err error
	for _, f := range historyFidelities {
		var pts []PricePoint
		pts, err = c.PricesHistory(ctx, tokenID, from, to, f)
		if err == nil {
			return pts, f, nil
		}
		if cat := venue.CategoryOf(err); cat != venue.Invalid && cat != venue.Rejected || !strings.Contains(strings.ToLower(venue.MessageOf(err)), "fidelity") {
			return nil, 0, err
		}
	}
	return nil, 0, err
}

// TickSize returns the token's minimum tick, from cache when fresh.
func (c *Client) TickSize(ctx context.Context, tokenID string) (TickSize, error) {
	if e, ok := c.cache.Peek(tokenID); ok && e.tick != "" {
		return e.tick, nil
	}
	var v struct {
		MinimumTickSize json.RawMessage `json:"minimum_tick_size"`
	}
	if err := c.get(ctx, "/tick-size", url.Values{"token_id": {tokenID}}, &v); err != nil {
		return "", err
	}
	d, err := wire.Decimal(v.MinimumTickSize)
	if err != nil {
		return "", venue.Wrap(venue.Unavailable, err, "unexpected venue response")
	}
	t, err := TickSizeFromDecimal(d)
	if err != nil {
		return "", venue.Wrap(venue.Unavailable, err, "venue returned an unknown tick size")
	}
	c.remember(tokenID, func(e *marketEntry) { e.tick = t })
	return t, nil
}

// NegRisk reports whether the token's market is neg-risk (its orders are
// verified by the neg-risk exchange), from cache when fresh.
func (c *Client) NegRisk(ctx context.Context, tokenID string) (bool, error) {
	if e, ok := c.cache.Peek(tokenID); ok && e.negRiskKnown {
		return e.negRisk, nil
	}
	var v struct {
		NegRisk bool `json:"neg_risk"`
	}
	if err := c.get(ctx, "/neg-risk", url.Values{"token_id": {tokenID}}, &v); err != nil {
		return false, err
	}
	c.remember(tokenID, func(e *marketEntry) { e.negRisk, e.negRiskKnown = v.NegRisk, true })
	return v.NegRisk, nil
}

// InvalidateMarketInfo drops cached tick size / neg-risk / min size of a token.
func (c *Client) InvalidateMarketInfo(tokenID string) { c.cache.Remove(tokenID) }

// MarketToken is one outcome token of a CLOB market.
type MarketToken struct {
	TokenID string            `json:"token_id"`
	Outcome string            `json:"outcome"`
	Price   wire.LooseDecimal `json:"price"`
	Winner  bool              `json:"winner"`
}

// Market is the CLOB's (legacy) market object, fields the service uses.
type Market struct {
	ConditionID      string            `json:"condition_id"`
	QuestionID       string            `json:"question_id"`
	Question         string            `json:"question"`
	MarketSlug       string            `json:"market_slug"`
	Active           bool              `json:"active"`
	Closed           bool              `json:"closed"`
	Archived         bool              `json:"archived"`
	AcceptingOrders  bool              `json:"accepting_orders"`
	EnableOrderBook  bool              `json:"enable_order_book"`
	MinimumOrderSize wire.LooseDecimal `json:"minimum_order_size"`
	MinimumTickSize  wire.LooseDecimal `json:"minimum_tick_size"`
	NegRisk          bool              `json:"neg_risk"`
	NegRiskMarketID  string            `json:"neg_risk_market_id"`
	EndDateISO       string            `json:"end_date_iso"`
	GameStartTime    string            `json:"game_start_time"`
	SecondsDelay     wire.LooseInt64   `json:"seconds_delay"`
	Tokens           []MarketToken     `json:"tokens"`
	Tags             []string          `json:"tags"`
}

// Market fetches GET /markets/{conditionID}.
func (c *Client) Market(ctx context.Context, conditionID string) (*Market, error) {
	var m Market
	if err := c.get(ctx, "/markets/"+url.PathEscape(conditionID), nil, &m); err != nil {
		return nil, err
	}
	if t, err := TickSizeFromDecimal(m.MinimumTickSize.Decimal); err == nil {
		for _, tok := range m.Tokens {
			c.remember(tok.TokenID, func(e *marketEntry) {
				e.tick, e.negRisk, e.negRiskKnown, e.minSize, e.conditionID = t, m.NegRisk, true, m.MinimumOrderSize.Decimal, m.ConditionID
			})
		}
	}
	return &m, nil
}

// MarketByToken is the answer of GET /markets-by-token/{tokenID}.
type MarketByToken struct {
	ConditionID string `json:"condition_id"`
}

// MarketByToken maps a token to its market's condition id.
func (c *Client) MarketByToken(ctx context.Context, tokenID string) (*MarketByToken, error) {
	var m MarketByToken
	if err := c.get(ctx, "/markets-by-token/"+url.PathEscape(tokenID), nil, &m); err != nil {
		return nil, err
	}
	if m.ConditionID == "" {
		return nil, venue.E(venue.NotFound, "market not found").WithCode("not_found")
	}
	return &m, nil
}

// ClobMarketToken is a token of the compact market info.
type ClobMarketToken struct {
	TokenID string `json:"t"`
	Outcome string `json:"o"`
}

// FeeDetails are the platform fee parameters of a market.
type FeeDetails struct {
	Rate      wire.LooseDecimal `json:"r"`
	Exponent  wire.LooseDecimal `json:"e"`
	TakerOnly bool              `json:"to"`
}

// ClobMarketInfo is the compact V2 market info (GET /clob-markets/{c}).
type ClobMarketInfo struct {
	ConditionID     string            `json:"c"`
	Tokens          []ClobMarketToken `json:"t"`
	MinTickSize     wire.LooseDecimal `json:"mts"`
	NegRisk         bool              `json:"nr"`
	Fees            *FeeDetails       `json:"fd"`
	AcceptingOrders bool              `json:"ao"`
	MinOrderSize    wire.LooseDecimal `json:"mos"`
	SecondsDelay    wire.LooseInt64   `json:"sd"`
}

// ClobMarketInfo fetches compact market info and caches tick, neg-risk and
// minimum size for both tokens.
func (c *Client) ClobMarketInfo(ctx context.Context, conditionID string) (*ClobMarketInfo, error) {
	var m ClobMarketInfo
	if err := c.get(ctx, "/clob-markets/"+url.PathEscape(conditionID), nil, &m); err != nil {
		return nil, err
	}
	t, err := TickSizeFromDecimal(m.MinTickSize.Decimal)
	if err != nil {
		return nil, venue.Wrap(venue.Unavailable, err, "venue returned an unknown tick size")
	}
	for _, tok := range m.Tokens {
		c.remember(tok.TokenID, func(e *marketEntry) {
			e.tick, e.negRisk, e.negRiskKnown, e.minSize, e.conditionID = t, m.NegRisk, true, m.MinOrderSize.Decimal, m.ConditionID
		})
	}
	return &m, nil
}

// MarketInfo is what order building needs about a token's market.
type MarketInfo struct {
	TickSize     TickSize
	NegRisk      bool
	MinOrderSize decimal.Decimal // zero when unknown
}

// MarketInfo returns tick size, neg-risk and minimum size for a token, from
// cache when fresh, else via /markets-by-token + /clob-markets (one round
// trip each, as the official client does).
func (c *Client) MarketInfo(ctx context.Context, tokenID string) (MarketInfo, error) {
	e, ok := c.cache.Peek(tokenID)
	if !ok || e.tick == "" || !e.negRiskKnown || e.minSize.IsZero() {
		// Concurrent orders for one token share the two round trips.
		var err error
		e, err = c.cache.Load(ctx, tokenID, func(ctx context.Context) (marketEntry, error) {
			m, err := c.MarketByToken(ctx, tokenID)
			if err != nil {
				return marketEntry{}, err
			}
			info, err := c.ClobMarketInfo(ctx, m.ConditionID)
			if err != nil {
				return marketEntry{}, err
			}
			t, _ := TickSizeFromDecimal(info.MinTickSize.Decimal)
			return marketEntry{tick: t, negRisk: info.NegRisk, negRiskKnown: true, minSize: info.MinOrderSize.Decimal, conditionID: info.ConditionID}, nil
		})
		if err != nil {
			return MarketInfo{}, err
		}
	}
	return MarketInfo{TickSize: e.tick, NegRisk: e.negRisk, MinOrderSize: e.minSize}, nil
}

// ---- market cache ----

type marketEntry struct {
	tick         TickSize
	negRisk      bool
	negRiskKnown bool
	minSize      decimal.Decimal
	conditionID  string
}

// remember merges f into the cached parameters of token.
func (c *Client) remember(token string, f func(*marketEntry)) {
	if token != "" {
		c.cache.Update(token, f)
	}
}

// rememberBook caches what a book tells about its token's market.
func (c *Client) rememberBook(token string, b *OrderBook) {
	if token == "" {
		token = b.AssetID
	}
	c.remember(token, func(e *marketEntry) {
		if b.TickSize.Valid() {
			e.tick = b.TickSize
		}
		e.negRisk, e.negRiskKnown = b.NegRisk, true
		if !b.MinOrderSize.IsZero() {
			e.minSize = b.MinOrderSize.Decimal
		}
		if b.Market != "" {
			e.conditionID = b.Market
		}
	})
}

// ---- L1: API keys ----

type apiKeyResponse struct {
	APIKey     string `json:"apiKey"`
	Secret     string `json:"secret"`
	Passphrase string `json:"passphrase"`
}

func (c *Client) apiKeyCall(ctx context.Context, s OrderSigner, nonce uint64, method, path string, idempotent bool) (Creds, error) {
	sign := func(string, string, []byte) (http.Header, error) {
		return L1Headers(ctx, s, c.chainID, c.now().Unix(), nonce)
	}
	resp, err := c.rest.Do(ctx, rest.Request{Method: method, Path: path, Sign: sign, Idempotent: idempotent})
	if err != nil {
		return Creds{}, mapErr(err, nil)
	}
	var r apiKeyResponse
	if err := decodeInto(resp, &r); err != nil {
		return Creds{}, err
	}
	if r.APIKey == "" {
		return Creds{}, venue.E(venue.Rejected, "venue returned no API key").WithCode("api_key_create_failed")
	}
	return Creds{Key: r.APIKey, Secret: r.Secret, Passphrase: r.Passphrase}, nil
}

// CreateAPIKey creates API credentials for the signer's address and nonce.
func (c *Client) CreateAPIKey(ctx context.Context, s OrderSigner, nonce uint64) (Creds, error) {
	// Not retried: a lost answer to a create is recovered by DeriveAPIKey.
	return c.apiKeyCall(ctx, s, nonce, http.MethodPost, "/auth/api-key", false)
}

// DeriveAPIKey returns the existing credentials for the signer and nonce.
func (c *Client) DeriveAPIKey(ctx context.Context, s OrderSigner, nonce uint64) (Creds, error) {
	return c.apiKeyCall(ctx, s, nonce, http.MethodGet, "/auth/derive-api-key", true)
}

// CreateOrDeriveAPIKey creates credentials, falling back to deriving the
// existing ones when creation fails (the usual cause: they exist).
func (c *Client) CreateOrDeriveAPIKey(ctx context.Context, s OrderSigner, nonce uint64) (Creds, error) {
	creds, err := c.CreateAPIKey(ctx, s, nonce)
	if err == nil {
		return creds, nil
	}
	switch venue.CategoryOf(err) {
	case venue.Unauthorized, venue.Forbidden, venue.RateLimited:
		return Creds{}, err
	}
	return c.DeriveAPIKey(ctx, s, nonce)
}

// ---- L2: orders ----

// OrderResponse is the venue's answer to one posted order.
type OrderResponse struct {
	Success            bool     `json:"success"`
	ErrorMsg           string   `json:"errorMsg"`
	OrderID            string   `json:"orderID"`
	Status             string   `json:"status"`
	MakingAmount       string   `json:"makingAmount"`
	TakingAmount       string   `json:"takingAmount"`
	TransactionsHashes []string `json:"transactionsHashes"`
	TradeIDs           []string `json:"tradeIDs"`
}

// Accepted reports whether the venue took the order (it rests, matched or is
// delayed), by the official SDK's rule.
func (r OrderResponse) Accepted() bool {
	switch r.Status {
	case "live", "matched", "delayed", "unmatched":
		return r.Success && r.ErrorMsg == "" && r.OrderID != ""
	}
	return false
}

// Err classifies a non-accepted response (nil when accepted).
func (r OrderResponse) Err(side Side) error {
	if r.Accepted() {
		return nil
	}
	msg := r.ErrorMsg
	if msg == "" {
		msg = "order not accepted (status " + strconv.Quote(r.Status) + ")"
	}
	// The refusal came inside a 2xx answer: classified by its text alone.
	return MapVenueError(http.StatusOK, msg, 0, &side)
}

// PostOrder posts one signed order. It is never retried: if no answer
// arrives the error is Unavailable/unknown_outcome carrying the order hash
// (see UnknownOutcomeHash). A response with success=false is returned as
// the mapped error. d is the domain the order was signed under, used only
// to compute the hash for reconciliation.
func (c *Client) PostOrder(ctx context.Context, req PostOrderRequest, d EIP712Domain) (*OrderResponse, error) {
	if req.Owner == "" {
		req.Owner = c.creds.Key
	}
	if req.PostOnly && req.OrderType.Marketable() {
		return nil, venue.E(venue.Invalid, "postOnly is not supported for FOK/FAK orders").WithCode("invalid_post_only")
	}
	hash, err := OrderHash(req.Order, d)
	if err != nil {
		return nil, err
	}
	body, err := req.MarshalJSON()
	if err != nil {
		return nil, venue.Wrap(venue.Invalid, err, "invalid order")
	}
	side := req.Order.Side
	resp, err := c.rest.Do(ctx, rest.Request{Method: http.MethodPost, Path: "/order", Body: body, Sign: c.l2Sign})
	if err != nil {
		return nil, postErr(err, hash, &side)
	}
	var r OrderResponse
	if err := json.Unmarshal(resp.Body, &r); err != nil {
		// The venue answered 2xx but unreadably: it may hold the order.
		return nil, unknownOutcome(hash, err)
	}
	if err := r.Err(side); err != nil {
		return &r, err
	}
	return &r, nil
}

// MaxBatch is the venue's limit of orders per POST /orders.
const MaxBatch = 15

// PostOrders posts up to MaxBatch signed orders in one call. Per-order
// outcomes are in the responses (use OrderResponse.Err); the error is
// non-nil only when the call as a whole failed, with unknown_outcome (hash
// of the first order) when no answer arrived.
func (c *Client) PostOrders(ctx context.Context, reqs []PostOrderRequest, d EIP712Domain) ([]OrderResponse, error) {
	if len(reqs) == 0 {
		return nil, nil
	}
	if len(reqs) > MaxBatch {
		return nil, venue.Ef(venue.Invalid, "Too many orders in payload: %d, max allowed: %d", len(reqs), MaxBatch).WithCode("too_many_orders")
	}
	for i := range reqs {
		if reqs[i].Owner == "" {
			reqs[i].Owner = c.creds.Key
		}
	}
	body, err := MarshalPostOrders(reqs)
	if err != nil {
		return nil, venue.Wrap(venue.Invalid, err, "invalid order")
	}
	hash, err := OrderHash(reqs[0].Order, d)
	if err != nil {
		return nil, err
	}
	resp, err := c.rest.Do(ctx, rest.Request{Method: http.MethodPost, Path: "/orders", Body: body, Sign: c.l2Sign})
	if err != nil {
		return nil, postErr(err, hash, nil)
	}
	var out []OrderResponse
	if err := json.Unmarshal(resp.Body, &out); err != nil {
		return nil, unknownOutcome(hash, err)
	}
	return out, nil
}

// CancelResponse is the venue's answer to a cancel.
type CancelResponse struct {
	Canceled    []string          `json:"canceled"`
	NotCanceled map[string]string `json:"not_canceled"`
}

// CancelOrder cancels one order by id (hash). Cancels are idempotent and
// retried on transport errors.
func (c *Client) CancelOrder(ctx context.Context, orderID string) (*CancelResponse, error) {
	body, _ := json.Marshal(map[string]string{"orderID": orderID})
	var r CancelResponse
	if err := c.private(ctx, http.MethodDelete, "/order", nil, body, true, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// CancelOrders cancels several orders by id.
func (c *Client) CancelOrders(ctx context.Context, orderIDs []string) (*CancelResponse, error) {
	if orderIDs == nil {
		orderIDs = []string{}
	}
	body, _ := json.Marshal(orderIDs)
	var r CancelResponse
	if err := c.private(ctx, http.MethodDelete, "/orders", nil, body, true, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// CancelAll cancels every open order of the API key.
func (c *Client) CancelAll(ctx context.Context) (*CancelResponse, error) {
	var r CancelResponse
	if err := c.private(ctx, http.MethodDelete, "/cancel-all", nil, nil, true, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// OpenOrder is an order as the venue reports it.
type OpenOrder struct {
	ID              string            `json:"id"`
	Status          string            `json:"status"`
	Owner           string            `json:"owner"`
	MakerAddress    string            `json:"maker_address"`
	Market          string            `json:"market"`
	AssetID         string            `json:"asset_id"`
	Side            string            `json:"side"`
	OriginalSize    wire.LooseDecimal `json:"original_size"`
	SizeMatched     wire.LooseDecimal `json:"size_matched"`
	Price           wire.LooseDecimal `json:"price"`
	AssociateTrades []string          `json:"associate_trades"`
	Outcome         string            `json:"outcome"`
	CreatedAt       wire.LooseInt64   `json:"created_at"`
	Expiration      wire.LooseInt64   `json:"expiration"`
	OrderType       string            `json:"order_type"`
}

// GetOrder fetches one order by id; an unknown id is NotFound.
func (c *Client) GetOrder(ctx context.Context, orderID string) (*OpenOrder, error) {
	var raw json.RawMessage
	if err := c.private(ctx, http.MethodGet, "/data/order/"+url.PathEscape(orderID), nil, nil, true, &raw); err != nil {
		return nil, err
	}
	// The venue answers null (or {}) for an order it does not know.
	var o OpenOrder
	if string(raw) != "null" {
		if err := json.Unmarshal(raw, &o); err != nil {
			return nil, venue.Wrap(venue.Unavailable, err, "unexpected venue response")
		}
	}
	if o.ID == "" {
		return nil, venue.E(venue.NotFound, "order not found").WithCode("not_found")
	}
	return &o, nil
}

// OpenOrderParams filters GetOpenOrders.
type OpenOrderParams struct {
	ID      string
	Market  string
	AssetID string
}

type page[T any] struct {
	Data       []T    `json:"data"`
	NextCursor string `json:"next_cursor"`
}

func paginate[T any](ctx context.Context, c *Client, path string, q url.Values) ([]T, error) {
	var all []T
	cursor := FirstCursor
	for range maxPages {
		qq := url.Values{}
		for k, v := range q {
			qq[k] = v
		}
		qq.Set("next_cursor", cursor)
		var p page[T]
		if err := c.private(ctx, http.MethodGet, path, qq, nil, true, &p); err != nil {
			return nil, err
		}
		all = append(all, p.Data...)
		if p.NextCursor == "" || p.NextCursor == EndCursor || p.NextCursor == cursor {
			return all, nil
		}
		cursor = p.NextCursor
	}
	return nil, venue.E(venue.Unavailable, "venue pagination did not terminate").WithCode("pagination_overflow")
}

func setIf(q url.Values, k, v string) {
	if v != "" {
		q.Set(k, v)
	}
}

// GetOpenOrders lists the key's open orders, following every page.
func (c *Client) GetOpenOrders(ctx context.Context, p OpenOrderParams) ([]OpenOrder, error) {
	q := url.Values{}
	setIf(q, "id", p.ID)
	setIf(q, "market", p.Market)
	setIf(q, "asset_id", p.AssetID)
	return paginate[OpenOrder](ctx, c, "/data/orders", q)
}

// MakerOrder is a maker leg of a trade.
type MakerOrder struct {
	OrderID       string            `json:"order_id"`
	Owner         string            `json:"owner"`
	MakerAddress  string            `json:"maker_address"`
	MatchedAmount wire.LooseDecimal `json:"matched_amount"`
	Price         wire.LooseDecimal `json:"price"`
	FeeRateBps    wire.LooseDecimal `json:"fee_rate_bps"`
	AssetID       string            `json:"asset_id"`
	Outcome       string            `json:"outcome"`
	Side          string            `json:"side"`
}

// Trade is a fill as the venue reports it (/data/trades).
type Trade struct {
	ID              string            `json:"id"`
	TakerOrderID    string            `json:"taker_order_id"`
	Market          string            `json:"market"`
	AssetID         string            `json:"asset_id"`
	Side            string            `json:"side"`
	Size            wire.LooseDecimal `json:"size"`
	FeeRateBps      wire.LooseDecimal `json:"fee_rate_bps"`
	Price           wire.LooseDecimal `json:"price"`
	Status          string            `json:"status"`
	MatchTime       string            `json:"match_time"`
	LastUpdate      string            `json:"last_update"`
	Outcome         string            `json:"outcome"`
	BucketIndex     int               `json:"bucket_index"`
	Owner           string            `json:"owner"`
	MakerAddress    string            `json:"maker_address"`
	MakerOrders     []MakerOrder      `json:"maker_orders"`
	TransactionHash string            `json:"transaction_hash"`
	TraderSide      string            `json:"trader_side"`
	ErrMsg          string            `json:"err_msg"`
}

// TradeParams filters GetTrades. Before/After are unix seconds (0 = unset).
type TradeParams struct {
	ID           string
	MakerAddress string
	Market       string
	AssetID      string
	Before       int64
	After        int64
}

// GetTrades lists the key's trades, following every page.
func (c *Client) GetTrades(ctx context.Context, p TradeParams) ([]Trade, error) {
	q := url.Values{}
	setIf(q, "id", p.ID)
	setIf(q, "maker_address", p.MakerAddress)
	setIf(q, "market", p.Market)
	setIf(q, "asset_id", p.AssetID)
	if p.Before > 0 {
		q.Set("before", strconv.FormatInt(p.Before, 10))
	}
	if p.After > 0 {
		q.Set("after", strconv.FormatInt(p.After, 10))
	}
	return paginate[Trade](ctx, c, "/data/trades", q)
}

// AssetType selects collateral or an outcome token in balance calls.
type AssetType string

// Asset types of /balance-allowance.
const (
	AssetCollateral  AssetType = "COLLATERAL"
	AssetConditional AssetType = "CONDITIONAL"
)

// BalanceAllowanceParams selects the balance to read.
type BalanceAllowanceParams struct {
	AssetType     AssetType
	TokenID       string // for CONDITIONAL
	SignatureType SignatureType
}

func (p BalanceAllowanceParams) query() url.Values {
	q := url.Values{"asset_type": {string(p.AssetType)}, "signature_type": {strconv.Itoa(int(p.SignatureType))}}
	setIf(q, "token_id", p.TokenID)
	return q
}

// BalanceAllowance is the venue's view of a balance (base units) and the
// allowances per spender (V2) or the single allowance (V1 shape).
type BalanceAllowance struct {
	Balance    wire.LooseDecimal            `json:"balance"`
	Allowances map[string]wire.LooseDecimal `json:"allowances"`
	Allowance  wire.LooseDecimal            `json:"allowance"`
}

// GetBalanceAllowance reads the funder's balance and allowances.
func (c *Client) GetBalanceAllowance(ctx context.Context, p BalanceAllowanceParams) (*BalanceAllowance, error) {
	var r BalanceAllowance
	if err := c.private(ctx, http.MethodGet, "/balance-allowance", p.query(), nil, true, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// UpdateBalanceAllowance asks the venue to refresh its cached balance and
// allowance (after a deposit or approval).
func (c *Client) UpdateBalanceAllowance(ctx context.Context, p BalanceAllowanceParams) error {
	return c.private(ctx, http.MethodGet, "/balance-allowance/update", p.query(), nil, true, nil)
}

// CancelMarketOrders cancels the key's open orders in a market and/or for
// one token (either may be empty).
func (c *Client) CancelMarketOrders(ctx context.Context, conditionID, tokenID string) (*CancelResponse, error) {
	body, _ := json.Marshal(struct {
		Market  string `json:"market"`
		AssetID string `json:"asset_id"`
	}{conditionID, tokenID})
	var r CancelResponse
	if err := c.private(ctx, http.MethodDelete, "/cancel-market-orders", nil, body, true, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// PostHeartbeat keeps the key's dead-man switch alive: once a chain of
// heartbeats has started, the venue cancels all open orders if none arrives
// within 10 s. Pass "" to start a chain and the returned id afterwards. Not
// retried: a late duplicate heartbeat would carry a stale id.
func (c *Client) PostHeartbeat(ctx context.Context, heartbeatID string) (string, error) {
	body, _ := json.Marshal(map[string]string{"heartbeat_id": heartbeatID})
	var r struct {
		HeartbeatID string `json:"heartbeat_id"`
	}
	if err := c.private(ctx, http.MethodPost, "/v1/heartbeats", nil, body, false, &r); err != nil {
		return "", err
	}
	return r.HeartbeatID, nil
}
