package backtesting

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/markets"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/dataapi"
)

// week is a 7-day window at one-minute resolution (10,080 points): a
// price swinging between 0.30 and 0.70 (a sine of a few hours' period,
// so BUY_LOW_SELL_HIGH trades many cycles) and a fill of 20 shares every
// five minutes (2,016 trades).
func week() ([]clob.PricePoint, []Trade) {
	start := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	pts := make([]clob.PricePoint, 7*24*60)
	for i := range pts {
		p := 0.5 + 0.2*math.Sin(float64(i)/90)
		pts[i] = clob.PricePoint{Time: start.Add(time.Duration(i) * time.Minute), Price: decimal.NewFromFloat(p).Round(3)}
	}
	var trades []Trade
	for i := 0; i < len(pts); i += 5 {
		trades = append(trades, Trade{Time: pts[i].Time.Add(10 * time.Second), TokenID: tok, ConditionID: cond, Side: "BUY",
			Size: decimal.NewFromInt(20), Price: pts[i].Price})
	}
	return pts, trades
}

var weekConfigs = []struct{ typ, config, budget string }{
	{"BUY_LOW_SELL_HIGH", `{"tokenId":"1001","buyBelow":"0.35","sellAbove":"0.65","sizePerTrade":"10","maxOpenSize":"30"}`, "1000"},
	{"RECURRING_BUY", `{"tokenId":"1001","amountPerInterval":"2","interval":"15m"}`, "1000"},
	{"PRICE_ALERT", `{"tokenId":"1001","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":"0.29","size":"10"}`, "100"},
}

// BenchmarkBacktestWeek replays a 7-day window at one-minute resolution:
// "replay" from records in memory (the simulation alone); "venue" through
// VenueSource, reading the 10,080 points from a CLOB /prices-history and
// the trades from a data API /trades over loopback HTTP (JSON as the
// venue's), as a request does.
func BenchmarkBacktestWeek(b *testing.B) {
	pts, trades := week()
	from, to := pts[0].Time, pts[len(pts)-1].Time
	now := func() time.Time { return to.Add(time.Hour) }
	mux := http.NewServeMux()
	mux.HandleFunc("GET /clob/prices-history", func(w http.ResponseWriter, r *http.Request) {
		type pt struct {
			T int64   `json:"t"`
			P float64 `json:"p"`
		}
		out := make([]pt, len(pts))
		for i, p := range pts {
			f, _ := p.Price.Float64()
			out[i] = pt{T: p.Time.Unix(), P: f}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"history": out})
	})
	mux.HandleFunc("GET /data/trades", func(w http.ResponseWriter, r *http.Request) {
		off, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		var rows []map[string]any
		for i := len(trades) - 1 - off; i >= 0 && len(rows) < 500; i-- { // newest first
			t := trades[i]
			rows = append(rows, map[string]any{"side": t.Side, "asset": t.TokenID, "conditionId": t.ConditionID, "size": 20,
				"price": t.Price.InexactFloat64(), "timestamp": t.Time.Unix()})
		}
		_ = json.NewEncoder(w).Encode(rows)
	})
	srv := httptest.NewServer(mux)
	b.Cleanup(srv.Close)
	venueSrc := VenueSource{CLOB: clob.NewClient(clob.Config{BaseURL: srv.URL + "/clob", ChainID: 80002}),
		Data: dataapi.New(dataapi.Config{BaseURL: srv.URL + "/data"}), Markets: staticMarkets{}}
	memSrc := &records{prices: map[string][]clob.PricePoint{tok: pts}, markets: map[string]*Market{tok: market()},
		trades: map[string][]Trade{cond: trades}}
	for _, src := range []struct {
		name string
		s    Source
	}{{"replay", memSrc}, {"venue", venueSrc}} {
		for _, c := range weekConfigs {
			b.Run(fmt.Sprintf("%s/%s", src.name, c.typ), func(b *testing.B) {
				svc := &Service{Source: src.s, Now: now}
				var res *Result
				for b.Loop() {
					var err error
					res, err = svc.Run(context.Background(), Request{Type: c.typ, Config: json.RawMessage(c.config), MaxBudget: budget(c.budget),
						From: from, To: to, StartingBalance: decimal.NewFromInt(10_000)})
					if err != nil {
						b.Fatal(err)
					}
				}
				if res.Points != len(pts) {
					b.Fatalf("%d points replayed", res.Points)
				}
				b.ReportMetric(float64(len(res.Executions)), "executions")
			})
		}
	}
}

// staticMarkets is the market of token 1001 (VenueSource's reader).
type staticMarkets struct{}

func (staticMarkets) TokenMarket(_ context.Context, token string) (*markets.TokenMarket, error) {
	return &markets.TokenMarket{TokenID: token, ConditionID: cond, Question: "Will it?", Outcome: "Yes", AcceptingOrders: true,
		TickSize: decimal.RequireFromString("0.01"), MinOrderSize: decimal.NewFromInt(5)}, nil
}

func (staticMarkets) Quotes(_ context.Context, tokens []string) ([]markets.Quote, error) {
	out := make([]markets.Quote, len(tokens))
	for i, t := range tokens {
		out[i] = markets.Quote{TokenID: t, Spread: decimal.NewNullDecimal(decimal.RequireFromString("0.02"))}
	}
	return out, nil
}
