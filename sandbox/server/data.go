package server

import (
	"context"
	"math"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agent-trading/ats/sandbox/exchange"
	"github.com/agent-trading/ats/sandbox/markets"
	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/micro"
)

func (s *Server) dataRoutes() http.Handler {
	m := http.NewServeMux()
	m.HandleFunc("GET /positions", s.positions)
	m.HandleFunc("GET /activity", s.activity)
	m.HandleFunc("GET /trades", s.dataTrades)
	m.HandleFunc("GET /value", s.value)
	m.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { writeError(w, venue.E(venue.NotFound, "not found")) })
	return m
}

func userParam(r *http.Request, required bool) (common.Address, error) {
	u := r.URL.Query().Get("user")
	if u == "" && !required {
		return common.Address{}, nil
	}
	if !common.IsHexAddress(u) {
		return common.Address{}, venue.E(venue.Invalid, "invalid user address")
	}
	return common.HexToAddress(u), nil
}

// fill is one side of a trade seen from one wallet.
type fill struct {
	trade   exchange.Trade
	wallet  common.Address
	side    exchange.Side
	shares  uint64
	price   uint64
	isTaker bool
}

// fillsOf flattens trades into per-wallet fills: the taker's and each
// maker's (makers trade the opposite side at their own price).
func fillsOf(ts []exchange.Trade, user common.Address) []fill {
	var out []fill
	for _, t := range ts {
		if user == (common.Address{}) || t.Maker == user {
			out = append(out, fill{trade: t, wallet: t.Maker, side: t.Side, shares: t.SizeMicro, price: t.PriceMicro, isTaker: true})
		}
		for _, m := range t.MakerOrders {
			if user == (common.Address{}) || m.Maker == user {
				out = append(out, fill{trade: t, wallet: m.Maker, side: m.Side, shares: m.MatchedShares, price: m.PriceMicro})
			}
		}
	}
	return out
}

type position struct {
	m                     markets.Info
	idx                   int
	size, bought, costBuy uint64
}

func (s *Server) positions(w http.ResponseWriter, r *http.Request) {
	user, err := userParam(r, true)
	if err != nil {
		writeError(w, err)
		return
	}
	q := r.URL.Query()
	condFilter := queryList(r, "market")
	fills := fillsOf(s.e.Trades(exchange.TradeFilter{Maker: user}), user)
	var out []map[string]any
	for _, m := range s.v.Markets() {
		if len(condFilter) > 0 && !containsFold(condFilter, m.ConditionID) {
			continue
		}
		for i, tok := range m.TokenIDs {
			bal, _, err := s.v.Chain().Funds(r.Context(), user, tok, m.NegRisk)
			if err != nil {
				writeError(w, venue.Wrap(venue.Unavailable, err, "could not read positions"))
				return
			}
			if bal.Sign() == 0 || !bal.IsUint64() {
				continue
			}
			p := position{m: m, idx: i, size: bal.Uint64()}
			for _, f := range fills {
				if f.trade.TokenID == tok && f.side == exchange.Buy {
					p.bought += f.shares
					p.costBuy += f.shares * f.price / exchange.One
				}
			}
			out = append(out, s.positionJSON(r.Context(), user, p))
		}
	}
	if v := q.Get("redeemable"); v != "" {
		want := v == "true"
		out = filterBool(out, "redeemable", want)
	}
	if v := q.Get("mergeable"); v != "" {
		out = filterBool(out, "mergeable", v == "true")
	}
	sort.SliceStable(out, func(i, j int) bool {
		return out[i]["currentValue"].(float64) > out[j]["currentValue"].(float64)
	})
	page, err := paginate(out, q.Get("limit"), q.Get("offset"))
	if err != nil {
		writeError(w, err)
		return
	}
	if page == nil {
		page = []map[string]any{}
	}
	writeJSON(w, 200, page)
}

func filterBool(in []map[string]any, key string, want bool) []map[string]any {
	var out []map[string]any
	for _, p := range in {
		if p[key].(bool) == want {
			out = append(out, p)
		}
	}
	return out
}

// micro2f converts micro-units to a float for the Data API's JSON numbers;
// the values are reports, never used for arithmetic.
func micro2f(v uint64) float64 {
	f, _ := strconv.ParseFloat(micro.String(v), 64)
	return f
}

func (s *Server) positionJSON(ctx context.Context, user common.Address, p position) map[string]any {
	m := p.m
	cur, _ := s.v.Fair(m.TokenIDs[p.idx])
	if m.Resolved {
		cur = 0
		if m.Winner == p.idx {
			cur = exchange.One
		}
	}
	avg := uint64(0)
	if p.bought > 0 {
		avg = p.costBuy * exchange.One / p.bought
	}
	initial := p.size / exchange.One * avg
	initial += (p.size % exchange.One) * avg / exchange.One
	current := p.size / exchange.One * cur
	current += (p.size % exchange.One) * cur / exchange.One
	pnl := micro2f(current) - micro2f(initial)
	pct := 0.0
	if initial > 0 {
		pct = pnl / micro2f(initial) * 100
	}
	other := 1 - p.idx
	mergeable := false
	if bal, _, err := s.v.Chain().Funds(ctx, user, m.TokenIDs[other], m.NegRisk); err == nil && bal.Sign() > 0 && !m.Resolved {
		mergeable = true
	}
	return map[string]any{
		"proxyWallet": strings.ToLower(user.Hex()), "asset": m.TokenIDs[p.idx], "conditionId": m.ConditionID,
		"size": micro2f(p.size), "avgPrice": micro2f(avg), "initialValue": micro2f(initial),
		"currentValue": micro2f(current), "cashPnl": pnl, "percentPnl": pct, "totalBought": micro2f(p.bought),
		"realizedPnl": 0.0, "percentRealizedPnl": 0.0, "curPrice": micro2f(cur),
		"redeemable": m.Resolved, "mergeable": mergeable, "title": m.Question, "slug": m.Slug, "icon": "",
		"eventId": strconv.Itoa(m.EventID), "eventSlug": m.EventSlug, "outcome": m.Outcomes[p.idx],
		"outcomeIndex": p.idx, "oppositeOutcome": m.Outcomes[other], "oppositeAsset": m.TokenIDs[other],
		"endDate": m.End.UTC().Format("2006-01-02"), "negativeRisk": m.NegRisk,
	}
}

func (s *Server) tradeRows(r *http.Request, activity bool) ([]map[string]any, error) {
	user, err := userParam(r, activity)
	if err != nil {
		return nil, err
	}
	q := r.URL.Query()
	f := exchange.TradeFilter{Maker: user}
	ts := s.e.Trades(f)
	takerOnly := q.Get("takerOnly") != "false" && !activity
	conds := queryList(r, "market")
	side := strings.ToUpper(q.Get("side"))
	if t := q.Get("type"); activity && t != "" && !containsFold(strings.Split(t, ","), "TRADE") {
		return []map[string]any{}, nil
	}
	// start/end (unix seconds) bound the fills' times, as the Data API's
	// do.
	start, end := int64(math.MinInt64), int64(math.MaxInt64)
	for k, dst := range map[string]*int64{"start": &start, "end": &end} {
		if v := q.Get(k); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, venue.Ef(venue.Invalid, "invalid %s", k)
			}
			*dst = n
		}
	}
	var out []map[string]any
	fills := fillsOf(ts, user)
	for i := len(fills) - 1; i >= 0; i-- { // newest first
		f := fills[i]
		if takerOnly && !f.isTaker {
			continue
		}
		if len(conds) > 0 && !containsFold(conds, f.trade.ConditionID) {
			continue
		}
		if side != "" && f.side.String() != side {
			continue
		}
		if at := f.trade.MatchTime.Unix(); at < start || at > end {
			continue
		}
		m, _ := s.v.ByCondition(f.trade.ConditionID)
		idx := 0
		if f.trade.TokenID == m.TokenIDs[1] {
			idx = 1
		}
		row := map[string]any{
			"proxyWallet": strings.ToLower(f.wallet.Hex()), "side": f.side.String(), "asset": f.trade.TokenID,
			"conditionId": f.trade.ConditionID, "size": micro2f(f.shares), "price": micro2f(f.price),
			"timestamp": f.trade.MatchTime.Unix(), "title": m.Question, "slug": m.Slug, "icon": "",
			"eventSlug": m.EventSlug, "outcome": m.Outcomes[idx], "outcomeIndex": idx,
			"name": "", "pseudonym": "", "bio": "", "profileImage": "", "profileImageOptimized": "",
			"transactionHash": f.trade.TxHash.Hex(),
		}
		if activity {
			row["type"] = "TRADE"
			row["usdcSize"] = micro2f(f.shares / exchange.One * f.price)
		}
		out = append(out, row)
	}
	if out == nil {
		out = []map[string]any{}
	}
	if strings.EqualFold(q.Get("sortDirection"), "ASC") {
		slices.Reverse(out)
	}
	limit := q.Get("limit")
	if limit == "" {
		limit = "100"
	}
	return paginate(out, limit, q.Get("offset"))
}

func (s *Server) activity(w http.ResponseWriter, r *http.Request) {
	rows, err := s.tradeRows(r, true)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, 200, rows)
}

func (s *Server) dataTrades(w http.ResponseWriter, r *http.Request) {
	rows, err := s.tradeRows(r, false)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, 200, rows)
}

func (s *Server) value(w http.ResponseWriter, r *http.Request) {
	user, err := userParam(r, true)
	if err != nil {
		writeError(w, err)
		return
	}
	var total uint64
	for _, m := range s.v.Markets() {
		for i, tok := range m.TokenIDs {
			bal, _, err := s.v.Chain().Funds(r.Context(), user, tok, m.NegRisk)
			if err != nil || !bal.IsUint64() {
				continue
			}
			p, _ := s.v.Fair(m.TokenIDs[i])
			if m.Resolved {
				p = 0
				if m.Winner == i {
					p = exchange.One
				}
			}
			total += bal.Uint64() / exchange.One * p
		}
	}
	writeJSON(w, 200, []map[string]any{{"user": strings.ToLower(user.Hex()), "value": micro2f(total)}})
}
