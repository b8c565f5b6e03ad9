package server

import (
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agent-trading/ats/sandbox/exchange"
	"github.com/agent-trading/ats/sandbox/markets"
	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/micro"
)

func (s *Server) gammaRoutes() http.Handler {
	m := http.NewServeMux()
	m.HandleFunc("GET /markets", s.gammaMarkets)
	m.HandleFunc("GET /markets/slug/{slug}", s.gammaMarketBy(func(r *http.Request) (markets.Info, bool) {
		return s.v.BySlug(r.PathValue("slug"))
	}))
	m.HandleFunc("GET /markets/{id}", s.gammaMarketBy(func(r *http.Request) (markets.Info, bool) {
		id, err := strconv.Atoi(r.PathValue("id"))
		if err != nil {
			return markets.Info{}, false
		}
		return s.v.ByID(id)
	}))
	m.HandleFunc("GET /events", s.gammaEvents)
	m.HandleFunc("GET /events/slug/{slug}", s.gammaEventBy(func(r *http.Request, m markets.Info) bool {
		return m.EventSlug == r.PathValue("slug")
	}))
	m.HandleFunc("GET /events/{id}", s.gammaEventBy(func(r *http.Request, m markets.Info) bool {
		return strconv.Itoa(m.EventID) == r.PathValue("id")
	}))
	m.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { writeError(w, venue.E(venue.NotFound, "not found")) })
	return m
}

// jsonInString encodes v as JSON and returns it as a string: Gamma's
// outcomes, outcomePrices and clobTokenIds are JSON documents inside strings.
func jsonInString(v []string) string {
	b, _ := json.Marshal(v) // strings cannot fail
	return strings.ReplaceAll(string(b), `","`, `", "`)
}

// float renders micro-units as a JSON number (Gamma's numeric fields).
func float(v uint64) json.Number { return num(v) }

func tagObjects(tags []string) []map[string]string {
	out := make([]map[string]string, 0, len(tags))
	for _, t := range tags {
		out = append(out, map[string]string{"id": strconv.Itoa(tagID(t)), "label": strings.ToUpper(t[:1]) + t[1:], "slug": t})
	}
	return out
}

// tagID is a stable small number per tag slug.
func tagID(t string) int {
	h := 0
	for _, c := range t {
		h = (h*31 + int(c)) % 100_000
	}
	return h + 1
}

func (s *Server) gammaMarket(m markets.Info, withEvent bool) map[string]any {
	prices := make([]string, 2)
	var bestBid, bestAsk uint64
	for i := range 2 {
		p, _ := s.v.Fair(m.TokenIDs[i])
		prices[i] = micro.String(p)
	}
	var last uint64
	if b, ok := s.e.Book(m.TokenIDs[0]); ok {
		if len(b.Bids) > 0 {
			bestBid = b.Bids[0].PriceMicro
		}
		if len(b.Asks) > 0 {
			bestAsk = b.Asks[0].PriceMicro
		}
		last = b.LastTradeMicro
		if !b.HasLastTrade {
			last, _ = s.v.Fair(m.TokenIDs[0])
		}
	}
	spread := uint64(0)
	if bestAsk > bestBid && bestBid > 0 {
		spread = bestAsk - bestBid
	}
	liq := m.LiquidMicro
	if liq == 0 {
		liq = s.liquidity(m)
	}
	category := ""
	if len(m.Tags) > 0 {
		category = strings.ToUpper(m.Tags[0][:1]) + m.Tags[0][1:]
	}
	out := map[string]any{
		"id": strconv.Itoa(m.ID), "question": m.Question, "conditionId": m.ConditionID, "questionID": m.QuestionID,
		"slug": m.Slug, "groupItemTitle": "", "description": m.Description, "category": category,
		"image": "", "icon": "", "resolutionSource": "",
		"outcomes": jsonInString(m.Outcomes[:]), "outcomePrices": jsonInString(prices),
		"clobTokenIds": jsonInString(m.TokenIDs[:]),
		"active":       true, "closed": m.Resolved, "archived": false, "acceptingOrders": !m.Resolved,
		"acceptingOrdersTimestamp": isoTime(m.Start), "enableOrderBook": true,
		"negRisk": m.NegRisk, "negRiskMarketID": "", "negRiskRequestId": "", "restricted": false,
		"startDate": isoTime(m.Start), "endDate": isoTime(m.End), "endDateIso": m.End.UTC().Format("2006-01-02"),
		"volume": micro.String(m.VolumeMicro), "liquidity": micro.String(liq),
		"volumeNum": float(m.VolumeMicro), "liquidityNum": float(liq), "volume24hr": float(m.VolumeMicro / 30),
		"volume1wk": float(m.VolumeMicro / 4), "volume1mo": float(m.VolumeMicro), "volume1yr": float(m.VolumeMicro),
		"volumeClob": float(m.VolumeMicro), "liquidityClob": float(liq),
		"bestBid": float(bestBid), "bestAsk": float(bestAsk), "lastTradePrice": float(last), "spread": float(spread),
		"oneHourPriceChange": 0, "oneDayPriceChange": 0,
		"orderPriceMinTickSize": float(m.TickMicro), "orderMinSize": float(m.MinMicro / exchange.One),
		"secondsDelay": 0, "makerBaseFee": 0, "takerBaseFee": 0, "feesEnabled": false,
		"rewardsMinSize": 0, "rewardsMaxSpread": 0, "clobRewards": []any{},
		"umaResolutionStatus": "", "tags": tagObjects(m.Tags),
	}
	if m.Resolved {
		won := []string{"0", "0"}
		won[m.Winner] = "1"
		out["outcomePrices"] = jsonInString(won)
		out["closedTime"] = m.ResolvedAt.UTC().Format("2006-01-02 15:04:05+00")
		out["umaResolutionStatus"] = "resolved"
	}
	if m.UpDown != nil {
		out["eventStartTime"] = isoTime(m.UpDown.Start)
		out["seriesSlug"] = markets.SeriesSlug(m.UpDown.Asset, m.UpDown.Timeframe)
	}
	if withEvent {
		out["events"] = []map[string]any{s.eventHead(m)}
	}
	return out
}

func (s *Server) eventHead(m markets.Info) map[string]any {
	e := map[string]any{
		"id": strconv.Itoa(m.EventID), "ticker": m.EventSlug, "slug": m.EventSlug, "title": m.EventTitle,
		"description": m.Description, "startDate": isoTime(m.Start), "endDate": isoTime(m.End),
		"active": true, "closed": m.Resolved, "archived": false, "negRisk": m.NegRisk,
		"liquidity": float(s.liquidity(m)), "volume": float(m.VolumeMicro), "openInterest": 0,
		"enableOrderBook": true, "tags": tagObjects(m.Tags), "series": []any{},
	}
	if m.UpDown != nil {
		slug := markets.SeriesSlug(m.UpDown.Asset, m.UpDown.Timeframe)
		e["series"] = []map[string]any{{"slug": slug, "ticker": slug, "title": slug, "recurrence": m.UpDown.Timeframe}}
		e["startTime"] = isoTime(m.UpDown.Start)
	}
	return e
}

// liquidity is the collateral value resting on the market's books.
func (s *Server) liquidity(m markets.Info) uint64 {
	var total uint64
	for _, tok := range m.TokenIDs {
		if b, ok := s.e.Book(tok); ok {
			for _, l := range append(b.Bids, b.Asks...) {
				total += l.PriceMicro * (l.SizeMicro / exchange.One)
			}
		}
	}
	return total
}

func boolParam(r *http.Request, key string) (*bool, error) {
	v := r.URL.Query().Get(key)
	if v == "" {
		return nil, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return nil, venue.Ef(venue.Invalid, "invalid %s", key)
	}
	return &b, nil
}

func timeParam(r *http.Request, key string) (time.Time, error) {
	v := r.URL.Query().Get(key)
	if v == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, nil
		}
	}
	return time.Time{}, venue.Ef(venue.Invalid, "invalid %s", key)
}

// filterMarkets applies Gamma's list parameters. closed defaults to false,
// as on the live Gamma.
func (s *Server) filterMarkets(r *http.Request) ([]markets.Info, error) {
	q := r.URL.Query()
	closed, err := boolParam(r, "closed")
	if err != nil {
		return nil, err
	}
	active, err := boolParam(r, "active")
	if err != nil {
		return nil, err
	}
	endMin, err := timeParam(r, "end_date_min")
	if err != nil {
		return nil, err
	}
	endMax, err := timeParam(r, "end_date_max")
	if err != nil {
		return nil, err
	}
	ids, slugs := queryList(r, "id"), queryList(r, "slug")
	toks, conds := queryList(r, "clob_token_ids"), queryList(r, "condition_ids")
	tag := strings.ToLower(firstNonEmpty(q.Get("tag_slug"), q.Get("tag"), q.Get("tag_id")))
	series := q.Get("series_slug")
	var out []markets.Info
	for _, m := range s.v.Markets() {
		switch {
		case closed != nil && m.Resolved != *closed,
			closed == nil && m.Resolved,
			active != nil && !*active,
			len(ids) > 0 && !slices.Contains(ids, strconv.Itoa(m.ID)),
			len(slugs) > 0 && !slices.Contains(slugs, m.Slug),
			len(toks) > 0 && !slices.Contains(toks, m.TokenIDs[0]) && !slices.Contains(toks, m.TokenIDs[1]),
			len(conds) > 0 && !containsFold(conds, m.ConditionID),
			tag != "" && !slices.Contains(m.Tags, tag) && tag != strconv.Itoa(tagIDOfAny(m.Tags, tag)),
			series != "" && (m.UpDown == nil || markets.SeriesSlug(m.UpDown.Asset, m.UpDown.Timeframe) != series),
			!endMin.IsZero() && m.End.Before(endMin),
			!endMax.IsZero() && m.End.After(endMax):
			continue
		}
		out = append(out, m)
	}
	if err := sortMarkets(out, q.Get("order"), q.Get("ascending") == "true"); err != nil {
		return nil, err
	}
	return paginate(out, q.Get("limit"), q.Get("offset"))
}

func tagIDOfAny(tags []string, want string) int {
	for _, t := range tags {
		if strconv.Itoa(tagID(t)) == want {
			return tagID(t)
		}
	}
	return -1
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

func sortMarkets(ms []markets.Info, order string, asc bool) error {
	if order == "" {
		return nil
	}
	var less func(a, b markets.Info) bool
	switch strings.Split(order, ",")[0] {
	case "volume", "volumeNum", "volume24hr":
		less = func(a, b markets.Info) bool { return a.VolumeMicro < b.VolumeMicro }
	case "endDate", "end_date":
		less = func(a, b markets.Info) bool { return a.End.Before(b.End) }
	case "startDate", "start_date":
		less = func(a, b markets.Info) bool { return a.Start.Before(b.Start) }
	case "id":
		less = func(a, b markets.Info) bool { return a.ID < b.ID }
	case "liquidity", "liquidityNum":
		less = func(a, b markets.Info) bool { return a.LiquidMicro < b.LiquidMicro }
	default:
		return venue.Ef(venue.Invalid, "invalid order field %q", order)
	}
	sort.SliceStable(ms, func(i, j int) bool {
		if asc {
			return less(ms[i], ms[j])
		}
		return less(ms[j], ms[i])
	})
	return nil
}

func paginate[T any](items []T, limitS, offsetS string) ([]T, error) {
	limit, offset := 500, 0
	var err error
	if limitS != "" {
		if limit, err = strconv.Atoi(limitS); err != nil || limit < 0 {
			return nil, venue.E(venue.Invalid, "invalid limit")
		}
	}
	if offsetS != "" {
		if offset, err = strconv.Atoi(offsetS); err != nil || offset < 0 {
			return nil, venue.E(venue.Invalid, "invalid offset")
		}
	}
	if offset > len(items) {
		offset = len(items)
	}
	return items[offset:min(len(items), offset+limit)], nil
}

func (s *Server) gammaMarkets(w http.ResponseWriter, r *http.Request) {
	ms, err := s.filterMarkets(r)
	if err != nil {
		writeError(w, err)
		return
	}
	out := make([]map[string]any, 0, len(ms))
	for _, m := range ms {
		out = append(out, s.gammaMarket(m, true))
	}
	writeJSON(w, 200, out)
}

func (s *Server) gammaMarketBy(find func(*http.Request) (markets.Info, bool)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		m, ok := find(r)
		if !ok {
			writeError(w, venue.E(venue.NotFound, "market not found"))
			return
		}
		writeJSON(w, 200, s.gammaMarket(m, true))
	}
}

func (s *Server) event(m markets.Info) map[string]any {
	e := s.eventHead(m)
	e["markets"] = []map[string]any{s.gammaMarket(m, false)}
	return e
}

func (s *Server) gammaEvents(w http.ResponseWriter, r *http.Request) {
	ms, err := s.filterMarkets(r)
	if err != nil {
		writeError(w, err)
		return
	}
	out := make([]map[string]any, 0, len(ms))
	for _, m := range ms {
		out = append(out, s.event(m))
	}
	writeJSON(w, 200, out)
}

func (s *Server) gammaEventBy(match func(*http.Request, markets.Info) bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for _, m := range s.v.Markets() {
			if match(r, m) {
				writeJSON(w, 200, s.event(m))
				return
			}
		}
		writeError(w, venue.E(venue.NotFound, "event not found"))
	}
}
