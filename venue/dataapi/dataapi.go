// Package dataapi is the client of the venue's Data API: a wallet's
// positions (with the redeemable flag), activity and trades. The Data API is
// keyed by the funder (proxy/Safe/deposit wallet) address, and lags the
// chain by a minute or so; use it for portfolio views, not for settlement.
package dataapi

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/internal/rest"
	"github.com/agent-trading/ats/venue/network"
	"github.com/agent-trading/ats/venue/wire"
)

// Config configures a Client; BaseURL is network.Network.DataAPIURL.
type Config = rest.Config

// ConfigFor returns the Config of network n.
func ConfigFor(n network.Network) Config { return Config{BaseURL: n.DataAPIURL} }

// Client is a Data API client (all calls are retried reads).
type Client struct{ rest *rest.Client }

// New returns a client for cfg.
func New(cfg Config) *Client { return &Client{rest: rest.New(cfg, "data api")} }

// Position is a wallet's holding of one outcome token.
type Position struct {
	ProxyWallet        string            `json:"proxyWallet"`
	Asset              string            `json:"asset"` // token id
	ConditionID        string            `json:"conditionId"`
	Size               wire.LooseDecimal `json:"size"` // shares
	AvgPrice           wire.LooseDecimal `json:"avgPrice"`
	InitialValue       wire.LooseDecimal `json:"initialValue"`
	CurrentValue       wire.LooseDecimal `json:"currentValue"`
	CashPnl            wire.LooseDecimal `json:"cashPnl"`
	PercentPnl         wire.LooseDecimal `json:"percentPnl"`
	TotalBought        wire.LooseDecimal `json:"totalBought"`
	RealizedPnl        wire.LooseDecimal `json:"realizedPnl"`
	PercentRealizedPnl wire.LooseDecimal `json:"percentRealizedPnl"`
	CurPrice           wire.LooseDecimal `json:"curPrice"`
	Redeemable         bool              `json:"redeemable"`
	Mergeable          bool              `json:"mergeable"`
	Title              string            `json:"title"`
	Slug               string            `json:"slug"`
	Icon               string            `json:"icon"`
	EventID            string            `json:"eventId"`
	EventSlug          string            `json:"eventSlug"`
	Outcome            string            `json:"outcome"`
	OutcomeIndex       int               `json:"outcomeIndex"`
	OppositeOutcome    string            `json:"oppositeOutcome"`
	OppositeAsset      string            `json:"oppositeAsset"`
	EndDate            string            `json:"endDate"` // YYYY-MM-DD
	NegativeRisk       bool              `json:"negativeRisk"`
}

// PositionsParams filter Positions. Zero values are omitted.
type PositionsParams struct {
	Markets       []string // condition ids
	EventID       string
	SizeThreshold decimal.Decimal
	Redeemable    *bool
	Mergeable     *bool
	Limit         int
	Offset        int
	SortBy        string // CURRENT, INITIAL, TOKENS, CASHPNL, PERCENTPNL, TITLE, RESOLVING, PRICE, AVGPRICE
	SortDirection string // ASC, DESC
	Title         string
}

func userQuery(user common.Address) (url.Values, error) {
	if user == (common.Address{}) {
		return nil, venue.E(venue.Invalid, "user address is required").WithCode("invalid_address")
	}
	return url.Values{"user": {user.Hex()}}, nil
}

func setBool(q url.Values, k string, v *bool) {
	if v != nil {
		q.Set(k, strconv.FormatBool(*v))
	}
}

func setInt(q url.Values, k string, v int) {
	if v > 0 {
		q.Set(k, strconv.Itoa(v))
	}
}

func setStr(q url.Values, k, v string) {
	if v != "" {
		q.Set(k, v)
	}
}

// Positions lists the positions of a funder address.
func (c *Client) Positions(ctx context.Context, user common.Address, p PositionsParams) ([]Position, error) {
	q, err := userQuery(user)
	if err != nil {
		return nil, err
	}
	if len(p.Markets) > 0 {
		q.Set("market", strings.Join(p.Markets, ","))
	}
	setStr(q, "eventId", p.EventID)
	if p.SizeThreshold.Sign() > 0 {
		q.Set("sizeThreshold", p.SizeThreshold.String())
	}
	setBool(q, "redeemable", p.Redeemable)
	setBool(q, "mergeable", p.Mergeable)
	setInt(q, "limit", p.Limit)
	setInt(q, "offset", p.Offset)
	setStr(q, "sortBy", p.SortBy)
	setStr(q, "sortDirection", p.SortDirection)
	setStr(q, "title", p.Title)
	var out []Position
	if err := c.rest.GetJSON(ctx, "/positions", q, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// Activity is one row of a wallet's on-venue activity.
type Activity struct {
	ProxyWallet     string            `json:"proxyWallet"`
	Timestamp       int64             `json:"timestamp"` // unix seconds
	TransactionHash string            `json:"transactionHash"`
	Type            string            `json:"type"` // TRADE, SPLIT, MERGE, REDEEM, REWARD, …
	ConditionID     string            `json:"conditionId"`
	Asset           string            `json:"asset"`
	Side            string            `json:"side"`
	Size            wire.LooseDecimal `json:"size"`     // shares
	UsdcSize        wire.LooseDecimal `json:"usdcSize"` // collateral
	Price           wire.LooseDecimal `json:"price"`
	Outcome         string            `json:"outcome"`
	// OutcomeIndex is 999 when not applicable (venue sentinel).
	OutcomeIndex int    `json:"outcomeIndex"`
	Title        string `json:"title"`
	Slug         string `json:"slug"`
	EventSlug    string `json:"eventSlug"`
}

// ActivityParams filter Activity.
type ActivityParams struct {
	Markets       []string
	EventID       string
	Types         []string
	Start, End    time.Time
	SortBy        string // TIMESTAMP, TOKENS, CASH
	SortDirection string
	Side          string
	Limit         int
	Offset        int
}

// Activity lists a funder address's activity.
func (c *Client) Activity(ctx context.Context, user common.Address, p ActivityParams) ([]Activity, error) {
	q, err := userQuery(user)
	if err != nil {
		return nil, err
	}
	if len(p.Markets) > 0 {
		q.Set("market", strings.Join(p.Markets, ","))
	}
	setStr(q, "eventId", p.EventID)
	if len(p.Types) > 0 {
		q.Set("type", strings.Join(p.Types, ","))
	}
	if !p.Start.IsZero() {
		q.Set("start", strconv.FormatInt(p.Start.Unix(), 10))
	}
	if !p.End.IsZero() {
		q.Set("end", strconv.FormatInt(p.End.Unix(), 10))
	}
	setStr(q, "sortBy", p.SortBy)
	setStr(q, "sortDirection", p.SortDirection)
	setStr(q, "side", p.Side)
	setInt(q, "limit", p.Limit)
	setInt(q, "offset", p.Offset)
	var out []Activity
	if err := c.rest.GetJSON(ctx, "/activity", q, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// Trade is a fill of the wallet (maker or taker).
type Trade struct {
	ProxyWallet     string            `json:"proxyWallet"`
	Side            string            `json:"side"`
	Asset           string            `json:"asset"`
	ConditionID     string            `json:"conditionId"`
	Size            wire.LooseDecimal `json:"size"`
	Price           wire.LooseDecimal `json:"price"`
	Timestamp       int64             `json:"timestamp"`
	Title           string            `json:"title"`
	Slug            string            `json:"slug"`
	EventSlug       string            `json:"eventSlug"`
	Outcome         string            `json:"outcome"`
	OutcomeIndex    int               `json:"outcomeIndex"`
	TransactionHash string            `json:"transactionHash"`
}

// TradesParams filter Trades.
type TradesParams struct {
	Markets    []string
	EventID    string
	Side       string
	Start, End time.Time
	Limit      int
	Offset     int
}

// Trades lists a funder address's fills, both as maker and as taker
// (takerOnly=false: the Data API defaults to taker fills only).
func (c *Client) Trades(ctx context.Context, user common.Address, p TradesParams) ([]Trade, error) {
	q, err := userQuery(user)
	if err != nil {
		return nil, err
	}
	q.Set("takerOnly", "false")
	if len(p.Markets) > 0 {
		q.Set("market", strings.Join(p.Markets, ","))
	}
	setStr(q, "eventId", p.EventID)
	setStr(q, "side", p.Side)
	if !p.Start.IsZero() {
		q.Set("start", strconv.FormatInt(p.Start.Unix(), 10))
	}
	if !p.End.IsZero() {
		q.Set("end", strconv.FormatInt(p.End.Unix(), 10))
	}
	setInt(q, "limit", p.Limit)
	setInt(q, "offset", p.Offset)
	var out []Trade
	if err := c.rest.GetJSON(ctx, "/trades", q, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// pageSize is the page a paged read asks for; maxOffset is how deep the
// Data API pages (its offset limit).
const (
	pageSize  = 500
	maxOffset = 10_000
)

// WalletTrades returns the wallet's TRADE activity in [from, to], oldest
// first, paging the Data API's /activity to its offset limit; complete is
// false when the wallet traded more than that in the window (the oldest
// pages are the ones read).
func (c *Client) WalletTrades(ctx context.Context, user common.Address, from, to time.Time) (out []Activity, complete bool, err error) {
	for off := 0; off < maxOffset; off += pageSize {
		page, err := c.Activity(ctx, user, ActivityParams{Types: []string{"TRADE"}, Start: from, End: to, SortBy: "TIMESTAMP",
			SortDirection: "ASC", Limit: pageSize, Offset: off})
		if err != nil {
			return nil, false, err
		}
		out = append(out, page...)
		if len(page) < pageSize {
			return out, true, nil
		}
	}
	return out, false, nil
}

// MarketTrades returns the fills of a market (condition id) in [from,
// to], newest first, taker fills only (each match once): the market's
// volume. The Data API's /trades does not filter by time: it pages back
// from the newest until a fill older than from, to its offset limit;
// since is the time from which the answer holds every fill (from, when
// complete).
func (c *Client) MarketTrades(ctx context.Context, conditionID string, from, to time.Time) (out []Trade, since time.Time, err error) {
	q := url.Values{"market": {conditionID}, "takerOnly": {"true"}, "limit": {strconv.Itoa(pageSize)}}
	for off := 0; off < maxOffset; off += pageSize {
		q.Set("offset", strconv.Itoa(off))
		var page []Trade
		if err := c.rest.GetJSON(ctx, "/trades", q, &page); err != nil {
			return nil, time.Time{}, err
		}
		for _, t := range page {
			at := time.Unix(t.Timestamp, 0)
			if at.Before(from) {
				return out, from, nil
			}
			if !at.After(to) {
				out = append(out, t)
			}
		}
		if len(page) < pageSize {
			return out, from, nil
		}
	}
	if len(out) == 0 {
		return nil, to, nil
	}
	return out, time.Unix(out[len(out)-1].Timestamp, 0), nil
}
