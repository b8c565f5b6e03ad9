// Package gamma is the client of the venue's Gamma API (market metadata):
// market lists and search, markets by slug or id, and events. It decodes the
// API's awkward encodings — arrays serialised as JSON strings, numbers sent
// as strings or numbers — into clean structs with decimal money fields.
package gamma

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/internal/rest"
	"github.com/agent-trading/ats/venue/network"
	"github.com/agent-trading/ats/venue/wire"
)

// Config configures a Client; BaseURL is network.Network.GammaURL.
type Config = rest.Config

// ConfigFor returns the Config of network n.
func ConfigFor(n network.Network) Config { return Config{BaseURL: n.GammaURL} }

// Client is a Gamma API client. All calls are reads and are retried on
// transport errors and 5xx answers.
type Client struct{ rest *rest.Client }

// New returns a client for cfg.
func New(cfg Config) *Client { return &Client{rest: rest.New(cfg, "gamma")} }

// Tag is a market or event tag.
type Tag struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	Slug  string `json:"slug"`
}

// EventRef is the short form of an event embedded in a market.
type EventRef struct {
	ID    string `json:"id"`
	Slug  string `json:"slug"`
	Title string `json:"title"`
}

// Market is a Gamma market, normalised.
type Market struct {
	ID              string
	Question        string
	ConditionID     string
	QuestionID      string
	Slug            string
	Description     string
	Category        string
	Image           string
	Outcomes        []string          // e.g. ["Yes","No"] or ["Up","Down"]
	OutcomePrices   []decimal.Decimal // parallel to Outcomes
	ClobTokenIDs    []string          // parallel to Outcomes
	Volume          decimal.Decimal   // USD, lifetime
	Volume24h       decimal.Decimal
	Liquidity       decimal.Decimal
	BestBid         decimal.Decimal
	BestAsk         decimal.Decimal
	LastTradePrice  decimal.Decimal
	Spread          decimal.Decimal
	StartDate       time.Time // zero when absent
	EndDate         time.Time
	EventStartTime  time.Time // start of the measured window (recurring markets)
	Active          bool
	Closed          bool
	Archived        bool
	AcceptingOrders bool
	EnableOrderBook bool
	NegRisk         bool
	NegRiskMarketID string
	TickSize        decimal.Decimal // orderPriceMinTickSize
	MinOrderSize    decimal.Decimal // orderMinSize, shares
	Tags            []Tag
	Events          []EventRef
}

// TokenFor returns the CLOB token id of an outcome (case-insensitive).
func (m Market) TokenFor(outcome string) (string, bool) {
	for i, o := range m.Outcomes {
		if strings.EqualFold(o, outcome) && i < len(m.ClobTokenIDs) {
			return m.ClobTokenIDs[i], true
		}
	}
	return "", false
}

// OutcomeOf returns the outcome label and price of a token id.
func (m Market) OutcomeOf(tokenID string) (outcome string, price decimal.Decimal, ok bool) {
	for i, t := range m.ClobTokenIDs {
		if t == tokenID && i < len(m.Outcomes) {
			if i < len(m.OutcomePrices) {
				price = m.OutcomePrices[i]
			}
			return m.Outcomes[i], price, true
		}
	}
	return "", decimal.Zero, false
}

// Tradable reports whether the market currently takes orders.
func (m Market) Tradable() bool {
	return m.AcceptingOrders && m.Active && !m.Closed && !m.Archived && len(m.ClobTokenIDs) > 0
}

type wireMarket struct {
	ID                    json.RawMessage   `json:"id"`
	Question              string            `json:"question"`
	ConditionID           string            `json:"conditionId"`
	QuestionID            string            `json:"questionID"`
	Slug                  string            `json:"slug"`
	Description           string            `json:"description"`
	Category              string            `json:"category"`
	Image                 string            `json:"image"`
	Outcomes              json.RawMessage   `json:"outcomes"`
	OutcomePrices         json.RawMessage   `json:"outcomePrices"`
	ClobTokenIDs          json.RawMessage   `json:"clobTokenIds"`
	Volume                wire.LooseDecimal `json:"volume"`
	VolumeNum             wire.LooseDecimal `json:"volumeNum"`
	Volume24hr            wire.LooseDecimal `json:"volume24hr"`
	Liquidity             wire.LooseDecimal `json:"liquidity"`
	LiquidityNum          wire.LooseDecimal `json:"liquidityNum"`
	BestBid               wire.LooseDecimal `json:"bestBid"`
	BestAsk               wire.LooseDecimal `json:"bestAsk"`
	LastTradePrice        wire.LooseDecimal `json:"lastTradePrice"`
	Spread                wire.LooseDecimal `json:"spread"`
	StartDate             string            `json:"startDate"`
	EndDate               string            `json:"endDate"`
	EndDateISO            string            `json:"endDateIso"`
	EventStartTime        string            `json:"eventStartTime"`
	Active                wire.LooseBool    `json:"active"`
	Closed                wire.LooseBool    `json:"closed"`
	Archived              wire.LooseBool    `json:"archived"`
	AcceptingOrders       wire.LooseBool    `json:"acceptingOrders"`
	EnableOrderBook       wire.LooseBool    `json:"enableOrderBook"`
	NegRisk               wire.LooseBool    `json:"negRisk"`
	NegRiskMarketID       string            `json:"negRiskMarketID"`
	OrderPriceMinTickSize wire.LooseDecimal `json:"orderPriceMinTickSize"`
	OrderMinSize          wire.LooseDecimal `json:"orderMinSize"`
	Tags                  []wireTag         `json:"tags"`
	Events                []wireEventRef    `json:"events"`
}

type wireTag struct {
	ID    json.RawMessage `json:"id"`
	Label string          `json:"label"`
	Slug  string          `json:"slug"`
}

type wireEventRef struct {
	ID    json.RawMessage `json:"id"`
	Slug  string          `json:"slug"`
	Title string          `json:"title"`
}

// idString renders an id sent as a number or a string.
func idString(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	if s == "null" {
		return ""
	}
	return strings.Trim(s, `"`)
}

// stringList decodes a list sent either as a JSON array or as a string
// holding a JSON array (Gamma's outcomes/outcomePrices/clobTokenIds).
func stringList(raw json.RawMessage) ([]string, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" || s == `""` {
		return nil, nil
	}
	if strings.HasPrefix(s, `"`) {
		var inner string
		if err := json.Unmarshal(raw, &inner); err != nil {
			return nil, err
		}
		if strings.TrimSpace(inner) == "" {
			return nil, nil
		}
		raw = json.RawMessage(inner)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, err
	}
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = idString(it) // elements may be strings or numbers
	}
	return out, nil
}

// parseTime accepts the ISO-8601 variants Gamma emits; empty is zero.
func parseTime(s string) time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05Z0700", "2006-01-02 15:04:05Z07", "2006-01-02 15:04:05-07:00", "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

func orDecimal(a, b wire.LooseDecimal) decimal.Decimal {
	if !a.IsZero() {
		return a.Decimal
	}
	return b.Decimal
}

func (w wireMarket) normalise() (Market, error) {
	m := Market{
		ID: idString(w.ID), Question: w.Question, ConditionID: w.ConditionID, QuestionID: w.QuestionID, Slug: w.Slug,
		Description: w.Description, Category: w.Category, Image: w.Image,
		Volume: orDecimal(w.Volume, w.VolumeNum), Volume24h: w.Volume24hr.Decimal, Liquidity: orDecimal(w.Liquidity, w.LiquidityNum),
		BestBid: w.BestBid.Decimal, BestAsk: w.BestAsk.Decimal, LastTradePrice: w.LastTradePrice.Decimal, Spread: w.Spread.Decimal,
		StartDate: parseTime(w.StartDate), EndDate: parseTime(w.EndDate), EventStartTime: parseTime(w.EventStartTime),
		Active: bool(w.Active), Closed: bool(w.Closed), Archived: bool(w.Archived), AcceptingOrders: bool(w.AcceptingOrders),
		EnableOrderBook: bool(w.EnableOrderBook), NegRisk: bool(w.NegRisk), NegRiskMarketID: w.NegRiskMarketID,
		TickSize: w.OrderPriceMinTickSize.Decimal, MinOrderSize: w.OrderMinSize.Decimal,
	}
	if m.EndDate.IsZero() {
		m.EndDate = parseTime(w.EndDateISO)
	}
	var err error
	if m.Outcomes, err = stringList(w.Outcomes); err != nil {
		return Market{}, err
	}
	if m.ClobTokenIDs, err = stringList(w.ClobTokenIDs); err != nil {
		return Market{}, err
	}
	prices, err := stringList(w.OutcomePrices)
	if err != nil {
		return Market{}, err
	}
	for _, p := range prices {
		d, err := decimal.NewFromString(p)
		if err != nil {
			return Market{}, err
		}
		m.OutcomePrices = append(m.OutcomePrices, d)
	}
	for _, t := range w.Tags {
		m.Tags = append(m.Tags, Tag{ID: idString(t.ID), Label: t.Label, Slug: t.Slug})
	}
	for _, e := range w.Events {
		m.Events = append(m.Events, EventRef{ID: idString(e.ID), Slug: e.Slug, Title: e.Title})
	}
	return m, nil
}

// UnmarshalJSON decodes a Gamma market object.
func (m *Market) UnmarshalJSON(b []byte) error {
	var w wireMarket
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	v, err := w.normalise()
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// Event is a Gamma event with its markets.
type Event struct {
	ID          string
	Ticker      string
	Slug        string
	Title       string
	Description string
	StartDate   time.Time
	EndDate     time.Time
	Active      bool
	Closed      bool
	Archived    bool
	NegRisk     bool
	Liquidity   decimal.Decimal
	Volume      decimal.Decimal
	Markets     []Market
	Tags        []Tag
}

type wireEvent struct {
	ID          json.RawMessage   `json:"id"`
	Ticker      string            `json:"ticker"`
	Slug        string            `json:"slug"`
	Title       string            `json:"title"`
	Description string            `json:"description"`
	StartDate   string            `json:"startDate"`
	EndDate     string            `json:"endDate"`
	Active      wire.LooseBool    `json:"active"`
	Closed      wire.LooseBool    `json:"closed"`
	Archived    wire.LooseBool    `json:"archived"`
	NegRisk     wire.LooseBool    `json:"negRisk"`
	Liquidity   wire.LooseDecimal `json:"liquidity"`
	Volume      wire.LooseDecimal `json:"volume"`
	Markets     []Market          `json:"markets"`
	Tags        []wireTag         `json:"tags"`
}

// UnmarshalJSON decodes a Gamma event object.
func (e *Event) UnmarshalJSON(b []byte) error {
	var w wireEvent
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = Event{ID: idString(w.ID), Ticker: w.Ticker, Slug: w.Slug, Title: w.Title, Description: w.Description,
		StartDate: parseTime(w.StartDate), EndDate: parseTime(w.EndDate), Active: bool(w.Active), Closed: bool(w.Closed),
		Archived: bool(w.Archived), NegRisk: bool(w.NegRisk), Liquidity: w.Liquidity.Decimal, Volume: w.Volume.Decimal, Markets: w.Markets}
	for _, t := range w.Tags {
		e.Tags = append(e.Tags, Tag{ID: idString(t.ID), Label: t.Label, Slug: t.Slug})
	}
	return nil
}

// MarketsParams are the /markets query parameters (§4.1). Zero values are
// omitted; pointers distinguish "false" from "unset".
type MarketsParams struct {
	Limit        int
	Offset       int
	Order        string // comma-separated fields, e.g. "volumeNum"
	Ascending    *bool
	IDs          []string
	Slugs        []string
	ClobTokenIDs []string
	ConditionIDs []string
	Active       *bool
	// Closed: Gamma implicitly filters closed=false when unset; set it to
	// true to find resolved markets.
	Closed          *bool
	Archived        *bool
	LiquidityNumMin decimal.Decimal
	VolumeNumMin    decimal.Decimal
	StartDateMin    time.Time
	EndDateMin      time.Time
	EndDateMax      time.Time
	TagID           string
	RelatedTags     bool
}

func setBool(q url.Values, k string, v *bool) {
	if v != nil {
		q.Set(k, strconv.FormatBool(*v))
	}
}

func setTime(q url.Values, k string, t time.Time) {
	if !t.IsZero() {
		q.Set(k, t.UTC().Format(time.RFC3339))
	}
}

func (p MarketsParams) query() url.Values {
	q := url.Values{}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	if p.Offset > 0 {
		q.Set("offset", strconv.Itoa(p.Offset))
	}
	if p.Order != "" {
		q.Set("order", p.Order)
	}
	setBool(q, "ascending", p.Ascending)
	for _, v := range p.IDs {
		q.Add("id", v)
	}
	for _, v := range p.Slugs {
		q.Add("slug", v)
	}
	for _, v := range p.ClobTokenIDs {
		q.Add("clob_token_ids", v)
	}
	for _, v := range p.ConditionIDs {
		q.Add("condition_ids", v)
	}
	setBool(q, "active", p.Active)
	setBool(q, "closed", p.Closed)
	setBool(q, "archived", p.Archived)
	if p.LiquidityNumMin.Sign() > 0 {
		q.Set("liquidity_num_min", p.LiquidityNumMin.String())
	}
	if p.VolumeNumMin.Sign() > 0 {
		q.Set("volume_num_min", p.VolumeNumMin.String())
	}
	setTime(q, "start_date_min", p.StartDateMin)
	setTime(q, "end_date_min", p.EndDateMin)
	setTime(q, "end_date_max", p.EndDateMax)
	if p.TagID != "" {
		q.Set("tag_id", p.TagID)
	}
	if p.RelatedTags {
		q.Set("related_tags", "true")
	}
	return q
}

// Markets lists markets.
func (c *Client) Markets(ctx context.Context, p MarketsParams) ([]Market, error) {
	var out []Market
	if err := c.rest.GetJSON(ctx, "/markets", p.query(), &out); err != nil {
		return nil, err
	}
	return out, nil
}

func notFound(what string) error {
	return venue.E(venue.NotFound, what+" not found").WithCode("not_found")
}

// MarketBySlug fetches one market by slug (open or closed).
func (c *Client) MarketBySlug(ctx context.Context, slug string) (*Market, error) {
	if slug == "" {
		return nil, venue.E(venue.Invalid, "slug is required").WithCode("invalid_slug")
	}
	return c.market(ctx, "/markets/slug/"+url.PathEscape(slug))
}

// MarketByID fetches one market by its Gamma id.
func (c *Client) MarketByID(ctx context.Context, id string) (*Market, error) {
	if id == "" {
		return nil, venue.E(venue.Invalid, "market id is required").WithCode("invalid_id")
	}
	return c.market(ctx, "/markets/"+url.PathEscape(id))
}

// market fetches the single market at path; an empty object is NotFound.
func (c *Client) market(ctx context.Context, path string) (*Market, error) {
	var m Market
	if err := c.rest.GetJSON(ctx, path, nil, &m); err != nil {
		return nil, err
	}
	if m.ID == "" && m.ConditionID == "" {
		return nil, notFound("market")
	}
	return &m, nil
}

// EventBySlug fetches one event (with its markets) by slug.
func (c *Client) EventBySlug(ctx context.Context, slug string) (*Event, error) {
	if slug == "" {
		return nil, venue.E(venue.Invalid, "slug is required").WithCode("invalid_slug")
	}
	var e Event
	if err := c.rest.GetJSON(ctx, "/events/slug/"+url.PathEscape(slug), nil, &e); err != nil {
		return nil, err
	}
	if e.ID == "" && e.Slug == "" {
		return nil, notFound("event")
	}
	return &e, nil
}

// EventsParams are the /events query parameters used by the service.
type EventsParams struct {
	Limit     int
	Offset    int
	Order     string
	Ascending *bool
	Slugs     []string
	TagSlug   string
	Active    *bool
	Closed    *bool
	Archived  *bool
	SeriesID  string
}

// Events lists events.
func (c *Client) Events(ctx context.Context, p EventsParams) ([]Event, error) {
	q := url.Values{}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	if p.Offset > 0 {
		q.Set("offset", strconv.Itoa(p.Offset))
	}
	if p.Order != "" {
		q.Set("order", p.Order)
	}
	setBool(q, "ascending", p.Ascending)
	for _, s := range p.Slugs {
		q.Add("slug", s)
	}
	if p.TagSlug != "" {
		q.Set("tag_slug", p.TagSlug)
	}
	setBool(q, "active", p.Active)
	setBool(q, "closed", p.Closed)
	setBool(q, "archived", p.Archived)
	if p.SeriesID != "" {
		q.Set("series_id", p.SeriesID)
	}
	var out []Event
	if err := c.rest.GetJSON(ctx, "/events", q, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// SearchParams are the /public-search parameters.
type SearchParams struct {
	Limit       int // limit_per_type
	Page        int
	EventStatus string // "active", "closed", …
	Tag         string // events_tag
	Sort        string // volume, volume_24hr, liquidity, competitive, end_date, …
	Ascending   *bool
	KeepClosed  bool
}

// SearchResult is the relevant part of a /public-search answer.
type SearchResult struct {
	Events []Event `json:"events"`
	Tags   []Tag   `json:"tags"`
}

// Search runs a free-text search across events (each with its markets).
func (c *Client) Search(ctx context.Context, text string, p SearchParams) (*SearchResult, error) {
	q := url.Values{"q": {text}}
	if p.Limit > 0 {
		q.Set("limit_per_type", strconv.Itoa(p.Limit))
	}
	if p.Page > 0 {
		q.Set("page", strconv.Itoa(p.Page))
	}
	if p.EventStatus != "" {
		q.Set("events_status", p.EventStatus)
	}
	if p.Tag != "" {
		q.Set("events_tag", p.Tag)
	}
	if p.Sort != "" {
		q.Set("sort", p.Sort)
	}
	setBool(q, "ascending", p.Ascending)
	if p.KeepClosed {
		q.Set("keep_closed_markets", "1")
	}
	var raw struct {
		Events []Event           `json:"events"`
		Tags   []json.RawMessage `json:"tags"`
	}
	if err := c.rest.GetJSON(ctx, "/public-search", q, &raw); err != nil {
		return nil, err
	}
	res := &SearchResult{Events: raw.Events}
	for _, t := range raw.Tags {
		var w wireTag
		if json.Unmarshal(t, &w) == nil {
			res.Tags = append(res.Tags, Tag{ID: idString(w.ID), Label: w.Label, Slug: w.Slug})
		}
	}
	return res, nil
}
