package server

import (
	"crypto/ecdsa"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/sandbox/exchange"
	"github.com/agent-trading/ats/sandbox/markets"
	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/micro"
)

// The control API (operator surface, "The sandbox venue"): JSON in, JSON
// out, errors as {"error": message}. It is not part of Polymarket and has no
// authentication: the sandbox listens on loopback by default.
func (s *Server) controlRoutes() http.Handler {
	m := http.NewServeMux()
	m.HandleFunc("GET /control/markets", s.controlMarkets)
	m.HandleFunc("POST /control/markets", s.controlCreate)
	m.HandleFunc("POST /control/markets/{id}/price", s.controlPrice)
	m.HandleFunc("POST /control/markets/{id}/history", s.controlHistory)
	m.HandleFunc("POST /control/markets/{id}/resolve", s.controlResolve)
	m.HandleFunc("POST /control/wallets/{address}/fund", s.controlFund)
	m.HandleFunc("POST /control/trades", s.controlTrade)
	m.HandleFunc("POST /control/markets/{id}/tick", s.controlTick)
	m.HandleFunc("POST /control/streams/drop", s.controlStreamsDrop)
	m.HandleFunc("/control/", func(w http.ResponseWriter, _ *http.Request) { writeError(w, venue.E(venue.NotFound, "not found")) })
	return m
}

func decodeBody(r *http.Request, v any) error {
	b, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return venue.E(venue.Invalid, "could not read the request body")
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return venue.E(venue.Invalid, "invalid JSON body").WithCause(err)
	}
	return nil
}

func (s *Server) controlMarket(m markets.Info) map[string]any {
	mid, _ := s.v.Fair(m.TokenIDs[0])
	out := map[string]any{
		"id": m.ID, "question": m.Question, "slug": m.Slug, "conditionId": m.ConditionID,
		"tokenIds": m.TokenIDs, "outcomes": m.Outcomes, "midPrice": num(mid), "tickSize": num(m.TickMicro),
		"minOrderSize": num(m.MinMicro), "negRisk": m.NegRisk, "endDate": isoTime(m.End),
		"resolved": m.Resolved, "tags": m.Tags,
	}
	if m.Resolved {
		out["outcome"] = m.Outcomes[m.Winner]
	} else {
		out["outcome"] = nil
	}
	if m.UpDown != nil {
		out["upDown"] = map[string]any{"asset": m.UpDown.Asset, "timeframe": m.UpDown.Timeframe,
			"start": isoTime(m.UpDown.Start), "end": isoTime(m.UpDown.End)}
	}
	return out
}

func (s *Server) controlMarkets(w http.ResponseWriter, _ *http.Request) {
	ms := s.v.Markets()
	out := make([]map[string]any, len(ms))
	for i, m := range ms {
		out[i] = s.controlMarket(m)
	}
	writeJSON(w, 200, out)
}

// priceMicro converts a control-API price (0 < p < 1) to micro.
func priceMicro(d decimal.Decimal) (uint64, error) {
	if d.LessThanOrEqual(decimal.Zero) || d.GreaterThanOrEqual(decimal.NewFromInt(1)) {
		return 0, venue.E(venue.Invalid, "price must be between 0 and 1")
	}
	return micro.RoundUint64(d), nil
}

func (s *Server) controlPrice(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Price decimal.Decimal `json:"price"`
	}
	if err := decodeBody(r, &req); err != nil {
		writeError(w, err)
		return
	}
	p, err := priceMicro(req.Price)
	if err != nil {
		writeError(w, err)
		return
	}
	m, err := s.v.SetPrice(r.Context(), r.PathValue("id"), p)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, 200, s.controlMarket(m))
}

// controlHistory records a price path that has already happened
// ({"points": [{"time": RFC 3339, "price": 0.42}, …]}, oldest first, the
// token's price): /prices-history serves it, so a test can give a
// backtest the history it replays. It replaces what was recorded between
// the first and the last point and leaves the book as it is.
func (s *Server) controlHistory(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Points []struct {
			Time  time.Time       `json:"time"`
			Price decimal.Decimal `json:"price"`
		} `json:"points"`
	}
	if err := decodeBody(r, &req); err != nil {
		writeError(w, err)
		return
	}
	if len(req.Points) > 15_000 { // and the body is at most 1 MiB
		writeError(w, venue.E(venue.Invalid, "at most 15000 points per request"))
		return
	}
	pts := make([]markets.PricePoint, len(req.Points))
	for i, p := range req.Points {
		v, err := priceMicro(p.Price)
		if err != nil {
			writeError(w, err)
			return
		}
		pts[i] = markets.PricePoint{Time: p.Time.UTC(), Micro: v}
	}
	m, err := s.v.RecordHistory(r.PathValue("id"), pts)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, 200, s.controlMarket(m))
}

func (s *Server) controlResolve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Winner string `json:"winner"`
	}
	if err := decodeBody(r, &req); err != nil {
		writeError(w, err)
		return
	}
	m, err := s.v.Resolve(r.Context(), r.PathValue("id"), req.Winner)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, 200, s.controlMarket(m))
}

func (s *Server) controlFund(w http.ResponseWriter, r *http.Request) {
	a := r.PathValue("address")
	if !common.IsHexAddress(a) {
		writeError(w, venue.E(venue.Invalid, "invalid address"))
		return
	}
	var req struct {
		USDC   decimal.Decimal  `json:"usdc"`
		Native *decimal.Decimal `json:"native"`
	}
	if err := decodeBody(r, &req); err != nil {
		writeError(w, err)
		return
	}
	if req.USDC.IsNegative() || (req.Native != nil && req.Native.IsNegative()) {
		writeError(w, venue.E(venue.Invalid, "amounts must not be negative"))
		return
	}
	var wei *big.Int
	if req.Native != nil {
		wei = req.Native.Shift(18).Truncate(0).BigInt()
	}
	addr := common.HexToAddress(a)
	// Funding mints on chain; one at a time keeps the operator's nonces in order.
	s.fundMu.Lock()
	err := s.v.Fund(r.Context(), addr, micro.RoundUint64(req.USDC), wei)
	s.fundMu.Unlock()
	if err != nil {
		writeError(w, err)
		return
	}
	out := map[string]any{"address": addr.Hex(), "usdc": req.USDC.String()}
	if req.Native != nil {
		out["native"] = req.Native.String()
	}
	writeJSON(w, 200, out)
}

func (s *Server) controlTrade(w http.ResponseWriter, r *http.Request) {
	var req struct {
		PrivateKey string          `json:"privateKey"`
		Address    string          `json:"address"`
		TokenID    string          `json:"tokenId"`
		Side       string          `json:"side"`
		Size       decimal.Decimal `json:"size"`
		Price      decimal.Decimal `json:"price"`
	}
	if err := decodeBody(r, &req); err != nil {
		writeError(w, err)
		return
	}
	var key *ecdsa.PrivateKey
	switch {
	case req.PrivateKey != "":
		k, err := crypto.HexToECDSA(strings.TrimPrefix(req.PrivateKey, "0x"))
		if err != nil {
			writeError(w, venue.E(venue.Invalid, "invalid privateKey"))
			return
		}
		key = k
	case req.Address != "":
		k, ok := s.v.OutsideKey(common.HexToAddress(req.Address))
		if !common.IsHexAddress(req.Address) || !ok {
			writeError(w, venue.E(venue.Invalid, "address is not one of the sandbox's outside wallets; send privateKey instead"))
			return
		}
		key = k
	default:
		k := s.v.Chain().OutsideWallets()
		if len(k) == 0 {
			writeError(w, venue.E(venue.Invalid, "privateKey or address is required"))
			return
		}
		key = k[0]
	}
	var side exchange.Side
	switch strings.ToUpper(req.Side) {
	case "BUY":
		side = exchange.Buy
	case "SELL":
		side = exchange.Sell
	default:
		writeError(w, venue.E(venue.Invalid, "side must be BUY or SELL"))
		return
	}
	p, err := priceMicro(req.Price)
	if err != nil {
		writeError(w, err)
		return
	}
	if !req.Size.IsPositive() {
		writeError(w, venue.E(venue.Invalid, "size must be positive"))
		return
	}
	res, err := s.v.OutsideTrade(r.Context(), key, req.TokenID, side, p, micro.RoundUint64(req.Size))
	if err != nil {
		writeError(w, err)
		return
	}
	hashes := make([]string, 0, len(res.TxHashes))
	for _, h := range res.TxHashes {
		hashes = append(hashes, h.Hex())
	}
	trades := res.TradeIDs
	if trades == nil {
		trades = []string{}
	}
	writeJSON(w, 200, map[string]any{
		"address": crypto.PubkeyToAddress(key.PublicKey).Hex(), "orderID": res.OrderID, "status": res.Status,
		"makingAmount": micro.String(res.MakingMicro), "takingAmount": micro.String(res.TakingMicro),
		"tradeIDs": trades, "transactionsHashes": hashes,
	})
}

func (s *Server) controlCreate(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Question string           `json:"question"`
		Slug     string           `json:"slug"`
		Outcomes []string         `json:"outcomes"`
		Price    *decimal.Decimal `json:"price"`
		EndDate  string           `json:"endDate"`
		NegRisk  bool             `json:"negRisk"`
		Tags     []string         `json:"tags"`
		Volume   decimal.Decimal  `json:"volume"`
	}
	if err := decodeBody(r, &req); err != nil {
		writeError(w, err)
		return
	}
	seed := markets.Seed{Question: req.Question, Slug: req.Slug, NegRisk: req.NegRisk, Tags: req.Tags,
		VolumeMicro: micro.RoundUint64(req.Volume), End: s.cfg.Clock().Add(30 * 24 * time.Hour)}
	switch len(req.Outcomes) {
	case 0:
	case 2:
		seed.Outcomes = [2]string{req.Outcomes[0], req.Outcomes[1]}
	default:
		writeError(w, venue.E(venue.Invalid, "a market has exactly two outcomes"))
		return
	}
	if req.Price != nil {
		p, err := priceMicro(*req.Price)
		if err != nil {
			writeError(w, err)
			return
		}
		seed.FairMicro = p
	}
	if req.EndDate != "" {
		t, err := time.Parse(time.RFC3339, req.EndDate)
		if err != nil {
			if t, err = time.Parse("2006-01-02", req.EndDate); err != nil {
				writeError(w, venue.E(venue.Invalid, "endDate must be RFC 3339 or YYYY-MM-DD"))
				return
			}
		}
		seed.End = t
	}
	m, err := s.v.Create(r.Context(), seed)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, 200, s.controlMarket(m))
}
