package backtesting

import (
	"context"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/markets"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/dataapi"
)

// MarketReader is what VenueSource reads of markets; *markets.Service
// implements it.
type MarketReader interface {
	TokenMarket(ctx context.Context, tokenID string) (*markets.TokenMarket, error)
	Quotes(ctx context.Context, tokens []string) ([]markets.Quote, error)
}

// VenueSource reads a backtest's records from the venue: the CLOB's
// /prices-history (at the finest fidelity it serves for the span) and
// market, the Data API's trades (a market's volume) and activity (a
// wallet's fills).
type VenueSource struct {
	CLOB    *clob.Client
	Data    *dataapi.Client
	Markets MarketReader
}

// PriceHistory implements Source.
func (v VenueSource) PriceHistory(ctx context.Context, token string, from, to time.Time) ([]clob.PricePoint, error) {
	pts, _, err := v.CLOB.PricesHistoryFinest(ctx, token, from, to)
	return pts, err
}

// Market implements Source: the token's market, its spread now and,
// once closed, whether it resolved for this token.
func (v VenueSource) Market(ctx context.Context, token string) (*Market, error) {
	tm, err := v.Markets.TokenMarket(ctx, token)
	if err != nil {
		return nil, err
	}
	m := &Market{TokenID: token, ConditionID: tm.ConditionID, Question: tm.Question, Outcome: tm.Outcome, Slug: tm.Slug,
		EndDate: tm.EndDate, Tick: tm.TickSize, MinSize: tm.MinOrderSize, Closed: tm.Closed}
	if !tm.Closed {
		// A closed market has no book: its spread stays the tick.
		if qs, err := v.Markets.Quotes(ctx, []string{token}); err == nil && len(qs) == 1 && qs[0].Spread.Valid {
			m.Spread = qs[0].Spread.Decimal
		}
		return m, nil
	}
	cm, err := v.CLOB.Market(ctx, tm.ConditionID)
	if err != nil {
		return nil, err
	}
	for _, t := range cm.Tokens {
		if t.Winner {
			m.Resolved = true
			m.Won = t.TokenID == token
		}
	}
	return m, nil
}

// MarketTrades implements Source.
func (v VenueSource) MarketTrades(ctx context.Context, conditionID string, from, to time.Time) ([]Trade, time.Time, error) {
	if v.Data == nil || conditionID == "" {
		return nil, from, nil
	}
	ts, since, err := v.Data.MarketTrades(ctx, conditionID, from, to)
	if err != nil {
		return nil, from, err
	}
	out := make([]Trade, len(ts))
	for i, t := range ts {
		out[i] = Trade{Time: time.Unix(t.Timestamp, 0).UTC(), TokenID: t.Asset, ConditionID: t.ConditionID, Side: strings.ToUpper(t.Side),
			Size: t.Size.Decimal, Price: t.Price.Decimal, TxHash: t.TransactionHash}
	}
	return out, since, nil
}

// WalletTrades implements Source: the wallet's TRADE activity. Activity
// rows carry no log index: the rows of one transaction are numbered in
// their order.
func (v VenueSource) WalletTrades(ctx context.Context, wallet string, from, to time.Time) ([]Trade, error) {
	if v.Data == nil {
		return nil, errs.E(errs.Internal, "the venue's data API is not configured in this process")
	}
	as, _, err := v.Data.WalletTrades(ctx, common.HexToAddress(wallet), from, to)
	if err != nil {
		return nil, err
	}
	out := make([]Trade, 0, len(as))
	seen := map[string]int64{}
	for _, a := range as {
		if a.Type != "TRADE" || a.Asset == "" {
			continue
		}
		idx := seen[a.TransactionHash]
		seen[a.TransactionHash] = idx + 1
		out = append(out, Trade{Time: time.Unix(a.Timestamp, 0).UTC(), TokenID: a.Asset, ConditionID: a.ConditionID,
			Side: strings.ToUpper(a.Side), Size: a.Size.Decimal, Price: a.Price.Decimal, TxHash: a.TransactionHash, LogIndex: idx})
	}
	return out, nil
}
