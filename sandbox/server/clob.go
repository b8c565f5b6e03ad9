package server

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"math"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/sandbox/exchange"
	"github.com/agent-trading/ats/sandbox/markets"
	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/chain"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/contracts"
	"github.com/agent-trading/ats/venue/micro"
	"github.com/agent-trading/ats/venue/wire"
)

const (
	msgNoBook       = "No orderbook exists for the requested token id"
	msgInvalidToken = "Invalid token id"
	maxBatch        = 15
	pageSize        = 100
)

func (s *Server) clobRoutes() http.Handler {
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, "OK") })
	m.HandleFunc("GET /ok", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, "OK") })
	m.HandleFunc("GET /version", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, map[string]int{"version": 2}) })
	m.HandleFunc("GET /time", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, s.cfg.Clock().Unix()) })
	m.HandleFunc("GET /book", s.getBook)
	m.HandleFunc("POST /books", s.postBooks)
	m.HandleFunc("GET /price", s.getPrice)
	m.HandleFunc("POST /prices", s.postPrices)
	m.HandleFunc("GET /midpoint", s.tokenScalar("mid", midOf))
	m.HandleFunc("POST /midpoints", s.tokenBatch(midOf))
	m.HandleFunc("GET /spread", s.tokenScalar("spread", spreadOf))
	m.HandleFunc("POST /spreads", s.tokenBatch(spreadOf))
	m.HandleFunc("GET /prices-history", s.pricesHistory)
	m.HandleFunc("GET /last-trade-price", s.getLastTrade)
	m.HandleFunc("POST /last-trades-prices", s.postLastTrades)
	m.HandleFunc("GET /tick-size", s.withMarket(func(w http.ResponseWriter, mk markets.Info) {
		writeJSON(w, 200, map[string]any{"minimum_tick_size": num(mk.TickMicro)})
	}))
	m.HandleFunc("GET /neg-risk", s.withMarket(func(w http.ResponseWriter, mk markets.Info) {
		writeJSON(w, 200, map[string]any{"neg_risk": mk.NegRisk})
	}))
	m.HandleFunc("GET /fee-rate", s.withMarket(func(w http.ResponseWriter, _ markets.Info) {
		writeJSON(w, 200, map[string]any{"base_fee": 0})
	}))
	m.HandleFunc("GET /markets", s.listCLOBMarkets)
	m.HandleFunc("GET /sampling-markets", s.listCLOBMarkets)
	m.HandleFunc("GET /simplified-markets", s.listSimplified)
	m.HandleFunc("GET /sampling-simplified-markets", s.listSimplified)
	m.HandleFunc("GET /markets/{cond}", s.getCLOBMarket)
	m.HandleFunc("GET /markets-by-token/{token}", s.marketByToken)
	m.HandleFunc("GET /clob-markets/{cond}", s.compactMarket)

	m.HandleFunc("POST /auth/api-key", s.createAPIKey)
	m.HandleFunc("GET /auth/derive-api-key", s.deriveAPIKey)
	m.HandleFunc("GET /auth/api-keys", s.withL2(s.listAPIKeys))
	m.HandleFunc("DELETE /auth/api-key", s.withL2(s.deleteAPIKey))
	m.HandleFunc("GET /auth/ban-status/closed-only", s.withL2(func(w http.ResponseWriter, _ *http.Request, _ *apiKey, _ []byte) {
		writeJSON(w, 200, map[string]bool{"closed_only": false})
	}))

	m.HandleFunc("POST /order", s.withL2(s.postOrder))
	m.HandleFunc("POST /orders", s.withL2(s.postOrders))
	m.HandleFunc("DELETE /order", s.withL2(s.cancelOrder))
	m.HandleFunc("DELETE /orders", s.withL2(s.cancelOrders))
	m.HandleFunc("DELETE /cancel-all", s.withL2(s.cancelAll))
	m.HandleFunc("DELETE /cancel-market-orders", s.withL2(s.cancelMarketOrders))
	m.HandleFunc("GET /data/order/{id}", s.withL2(s.getOrder))
	m.HandleFunc("GET /data/orders", s.withL2(s.listOrders))
	m.HandleFunc("GET /data/trades", s.withL2(s.listTrades))
	m.HandleFunc("GET /balance-allowance", s.withL2(s.balanceAllowance))
	m.HandleFunc("GET /balance-allowance/update", s.withL2(s.balanceAllowance))
	m.HandleFunc("POST /v1/heartbeats", s.withL2(s.heartbeat))
	m.HandleFunc("GET /order-scoring", s.withL2(func(w http.ResponseWriter, _ *http.Request, _ *apiKey, _ []byte) {
		writeJSON(w, 200, map[string]bool{"scoring": false})
	}))
	m.HandleFunc("POST /orders-scoring", s.withL2(func(w http.ResponseWriter, _ *http.Request, _ *apiKey, body []byte) {
		var ids []string
		if err := json.Unmarshal(body, &ids); err != nil {
			writeError(w, invalid("Invalid payload"))
			return
		}
		out := map[string]bool{}
		for _, id := range ids {
			out[id] = false // the sandbox runs no liquidity-rewards programme
		}
		writeJSON(w, 200, out)
	}))
	m.HandleFunc("GET /notifications", s.withL2(func(w http.ResponseWriter, _ *http.Request, _ *apiKey, _ []byte) {
		writeJSON(w, 200, []any{})
	}))
	m.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, venue.E(venue.NotFound, "not found"))
	})
	return m
}

// listSimplified is the CLOB's simplified market listing.
func (s *Server) listSimplified(w http.ResponseWriter, r *http.Request) {
	ms := s.v.Markets()
	out := make([]map[string]any, len(ms))
	for i, m := range ms {
		full := s.clobMarket(m)
		out[i] = map[string]any{"condition_id": m.ConditionID, "rewards": full["rewards"], "tokens": full["tokens"],
			"active": full["active"], "closed": full["closed"], "archived": false, "accepting_orders": full["accepting_orders"]}
	}
	env, err := page(out, r.URL.Query().Get("next_cursor"), 500)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, 200, env)
}

// ---- market data ----

// summary is the book as the venue serves it, in the client's own wire
// type; the hash is over its JSON (the live venue's key order) without it.
func (s *Server) summary(b exchange.Book) clob.OrderBook {
	sum := clob.OrderBook{
		Market: b.Market.ConditionID, AssetID: b.TokenID,
		Timestamp:    strconv.FormatInt(b.Timestamp.UnixMilli(), 10),
		Bids:         make([]clob.PriceLevel, 0, len(b.Bids)),
		Asks:         make([]clob.PriceLevel, 0, len(b.Asks)),
		MinOrderSize: wire.LooseDecimal{Decimal: micro.FromUint64(b.Market.MinSizeMicro)},
		TickSize:     clob.TickSize(micro.String(b.Market.TickMicro)),
		NegRisk:      b.Market.NegRisk, LastTradePrice: wire.LooseDecimal{Decimal: lastPriceDecimal(b)},
	}
	// Wire order: bids ascending and asks descending, best level last.
	for i := len(b.Bids) - 1; i >= 0; i-- {
		sum.Bids = append(sum.Bids, level(b.Bids[i]))
	}
	for i := len(b.Asks) - 1; i >= 0; i-- {
		sum.Asks = append(sum.Asks, level(b.Asks[i]))
	}
	raw, _ := json.Marshal(sum) // strings, decimals and bools cannot fail
	h := sha1.Sum(raw)
	sum.Hash = hex.EncodeToString(h[:])
	return sum
}

func level(l exchange.Level) clob.PriceLevel {
	return clob.PriceLevel{Price: micro.FromUint64(l.PriceMicro), Size: micro.FromUint64(l.SizeMicro)}
}

func lastPriceDecimal(b exchange.Book) decimal.Decimal {
	if !b.HasLastTrade {
		return decimal.RequireFromString("0.5")
	}
	return micro.FromUint64(b.LastTradeMicro)
}

func lastPrice(b exchange.Book) string { return lastPriceDecimal(b).String() }

func (s *Server) book(token string) (exchange.Book, error) {
	if token == "" {
		return exchange.Book{}, invalid(msgInvalidToken)
	}
	if _, ok := new(big.Int).SetString(token, 10); !ok {
		return exchange.Book{}, invalid(msgInvalidToken)
	}
	b, ok := s.e.Book(token)
	if !ok {
		return exchange.Book{}, venue.E(venue.NotFound, msgNoBook)
	}
	return b, nil
}

func (s *Server) getBook(w http.ResponseWriter, r *http.Request) {
	b, err := s.book(r.URL.Query().Get("token_id"))
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, 200, s.summary(b))
}

func readTokenParams(r *http.Request) ([]clob.BookParams, error) {
	var ps []clob.BookParams
	if err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 1<<20)).Decode(&ps); err != nil {
		return nil, invalid("Invalid payload")
	}
	if len(ps) > 500 {
		return nil, invalid("Too many tokens in payload, max allowed: 500")
	}
	return ps, nil
}

func (s *Server) postBooks(w http.ResponseWriter, r *http.Request) {
	ps, err := readTokenParams(r)
	if err != nil {
		writeError(w, err)
		return
	}
	out := make([]clob.OrderBook, 0, len(ps))
	for _, p := range ps {
		if b, err := s.book(p.TokenID); err == nil {
			out = append(out, s.summary(b))
		}
	}
	writeJSON(w, 200, out)
}

// priceOf is the best bid for BUY and the best ask for SELL, as the venue's
// docs define /price.
func priceOf(b exchange.Book, side string) (string, error) {
	switch strings.ToUpper(side) {
	case "BUY":
		if len(b.Bids) > 0 {
			return micro.String(b.Bids[0].PriceMicro), nil
		}
	case "SELL":
		if len(b.Asks) > 0 {
			return micro.String(b.Asks[0].PriceMicro), nil
		}
	default:
		return "", invalid("Invalid side")
	}
	return "", venue.E(venue.NotFound, "No orderbook exists for the requested token id")
}

func (s *Server) getPrice(w http.ResponseWriter, r *http.Request) {
	b, err := s.book(r.URL.Query().Get("token_id"))
	if err == nil {
		var p string
		if p, err = priceOf(b, r.URL.Query().Get("side")); err == nil {
			writeJSON(w, 200, map[string]string{"price": p})
			return
		}
	}
	writeError(w, err)
}

func (s *Server) postPrices(w http.ResponseWriter, r *http.Request) {
	ps, err := readTokenParams(r)
	if err != nil {
		writeError(w, err)
		return
	}
	out := map[string]map[string]string{}
	for _, p := range ps {
		b, err := s.book(p.TokenID)
		if err != nil {
			continue
		}
		sides := []string{"BUY", "SELL"}
		if p.Side != "" {
			sides = []string{strings.ToUpper(p.Side)}
		}
		for _, sd := range sides {
			if v, err := priceOf(b, sd); err == nil {
				if out[p.TokenID] == nil {
					out[p.TokenID] = map[string]string{}
				}
				out[p.TokenID][sd] = v
			}
		}
	}
	writeJSON(w, 200, out)
}

func midOf(b exchange.Book) (string, bool) {
	if len(b.Bids) == 0 || len(b.Asks) == 0 {
		return "", false
	}
	sum := b.Bids[0].PriceMicro + b.Asks[0].PriceMicro
	return micro.String(sum/2) + halfMicro(sum), true
}

// halfMicro appends the half micro-unit a midpoint of two micro prices may
// have ("0.455" from 0.45 and 0.46 needs none; odd micro sums add "5").
func halfMicro(sum uint64) string {
	if sum%2 == 0 {
		return ""
	}
	return "5"
}

func spreadOf(b exchange.Book) (string, bool) {
	if len(b.Bids) == 0 || len(b.Asks) == 0 {
		return "", false
	}
	if b.Asks[0].PriceMicro < b.Bids[0].PriceMicro {
		return "0", true
	}
	return micro.String(b.Asks[0].PriceMicro - b.Bids[0].PriceMicro), true
}

func (s *Server) tokenScalar(field string, f func(exchange.Book) (string, bool)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := s.book(r.URL.Query().Get("token_id"))
		if err != nil {
			writeError(w, err)
			return
		}
		v, ok := f(b)
		if !ok {
			writeError(w, venue.E(venue.NotFound, msgNoBook))
			return
		}
		writeJSON(w, 200, map[string]string{field: v})
	}
}

func (s *Server) tokenBatch(f func(exchange.Book) (string, bool)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ps, err := readTokenParams(r)
		if err != nil {
			writeError(w, err)
			return
		}
		out := map[string]string{}
		for _, p := range ps {
			if b, err := s.book(p.TokenID); err == nil {
				if v, ok := f(b); ok {
					out[p.TokenID] = v
				}
			}
		}
		writeJSON(w, 200, out)
	}
}

func lastSide(b exchange.Book) string {
	if !b.HasLastTrade {
		return ""
	}
	return b.LastTradeSide.String()
}

func (s *Server) getLastTrade(w http.ResponseWriter, r *http.Request) {
	b, err := s.book(r.URL.Query().Get("token_id"))
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, 200, map[string]string{"price": lastPrice(b), "side": lastSide(b)})
}

func (s *Server) postLastTrades(w http.ResponseWriter, r *http.Request) {
	ps, err := readTokenParams(r)
	if err != nil {
		writeError(w, err)
		return
	}
	out := []map[string]string{}
	for _, p := range ps {
		if b, err := s.book(p.TokenID); err == nil {
			out = append(out, map[string]string{"token_id": p.TokenID, "price": lastPrice(b), "side": lastSide(b)})
		}
	}
	writeJSON(w, 200, out)
}

func (s *Server) withMarket(f func(http.ResponseWriter, markets.Info)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tok := r.URL.Query().Get("token_id")
		if tok == "" {
			writeError(w, invalid(msgInvalidToken))
			return
		}
		m, ok := s.v.ByToken(tok)
		if !ok {
			writeError(w, venue.E(venue.NotFound, msgNoBook))
			return
		}
		f(w, m)
	}
}

// ---- CLOB markets ----

func (s *Server) clobMarket(m markets.Info) map[string]any {
	toks := make([]map[string]any, 2)
	for i := range 2 {
		price, _ := s.v.Fair(m.TokenIDs[i])
		toks[i] = map[string]any{"token_id": m.TokenIDs[i], "outcome": m.Outcomes[i], "price": num(price),
			"winner": m.Resolved && m.Winner == i}
	}
	tags := m.Tags
	if tags == nil {
		tags = []string{}
	}
	return map[string]any{
		"enable_order_book": true, "active": !m.Resolved, "closed": m.Resolved, "archived": false,
		"accepting_orders": !m.Resolved, "accepting_order_timestamp": isoTime(m.Start),
		"minimum_order_size": num(m.MinMicro), "minimum_tick_size": num(m.TickMicro),
		"condition_id": m.ConditionID, "question_id": m.QuestionID, "question": m.Question,
		"description": m.Description, "market_slug": m.Slug, "end_date_iso": isoTime(m.End),
		"game_start_time": nil, "seconds_delay": 0, "fpmm": "", "maker_base_fee": 0, "taker_base_fee": 0,
		"notifications_enabled": false, "neg_risk": m.NegRisk, "neg_risk_market_id": "", "neg_risk_request_id": "",
		"icon": "", "image": "", "rewards": map[string]any{"rates": nil, "min_size": 0, "max_spread": 0},
		"is_50_50_outcome": false, "tokens": toks, "tags": tags,
	}
}

func (s *Server) listCLOBMarkets(w http.ResponseWriter, r *http.Request) {
	ms := s.v.Markets()
	out := make([]map[string]any, len(ms))
	for i, m := range ms {
		out[i] = s.clobMarket(m)
	}
	env, err := page(out, r.URL.Query().Get("next_cursor"), 500)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, 200, env)
}

func (s *Server) getCLOBMarket(w http.ResponseWriter, r *http.Request) {
	m, ok := s.v.ByCondition(r.PathValue("cond"))
	if !ok {
		writeError(w, venue.E(venue.NotFound, "market not found"))
		return
	}
	writeJSON(w, 200, s.clobMarket(m))
}

func (s *Server) marketByToken(w http.ResponseWriter, r *http.Request) {
	m, ok := s.v.ByToken(r.PathValue("token"))
	if !ok {
		writeError(w, venue.E(venue.NotFound, "market not found"))
		return
	}
	writeJSON(w, 200, map[string]any{"condition_id": m.ConditionID, "primary_token_id": m.TokenIDs[0], "secondary_token_id": m.TokenIDs[1]})
}

func (s *Server) compactMarket(w http.ResponseWriter, r *http.Request) {
	m, ok := s.v.ByCondition(r.PathValue("cond"))
	if !ok {
		writeError(w, venue.E(venue.NotFound, "market not found"))
		return
	}
	out := map[string]any{
		"c":   m.ConditionID,
		"t":   []map[string]string{{"t": m.TokenIDs[0], "o": m.Outcomes[0]}, {"t": m.TokenIDs[1], "o": m.Outcomes[1]}},
		"mts": num(m.TickMicro),
		"fd":  map[string]any{"r": 0, "e": 0, "to": true},
		"mbf": 0, "tbf": 0, "r": nil, "ao": !m.Resolved, "mos": num(m.MinMicro), "sd": 0,
		"cbos": false, "aot": isoTime(m.Start), "rfqe": false, "itode": false, "ibce": false,
	}
	if m.NegRisk {
		out["nr"] = true
	}
	if m.UpDown != nil {
		out["gst"] = isoTime(m.UpDown.Start)
	}
	writeJSON(w, 200, out)
}

// ---- orders ----

// admit verifies a posted order (owner, signature, maker/signer rules) and
// converts it into an engine order.
func (s *Server) admit(r *http.Request, key *apiKey, req clob.PostOrderRequest) (exchange.Order, error) {
	o := req.Order
	if req.Owner != key.creds.Key {
		return exchange.Order{}, invalid("the order owner has to be the owner of the API KEY")
	}
	if o.TokenID == nil || o.MakerAmount == nil || o.TakerAmount == nil ||
		!o.MakerAmount.IsUint64() || !o.TakerAmount.IsUint64() || !o.Side.Valid() {
		return exchange.Order{}, invalid(exchange.MsgInvalidPayload)
	}
	m, ok := s.v.ByToken(o.TokenID.String())
	if !ok {
		return exchange.Order{}, invalid(msgInvalidToken)
	}
	d := clob.NetworkDomain(s.cfg.Network, m.NegRisk)
	hash, err := clob.OrderHash(o, d)
	if err != nil {
		return exchange.Order{}, invalid(exchange.MsgInvalidPayload)
	}
	badSig := venue.E(venue.Invalid, "invalid signature")
	switch o.SignatureType {
	case clob.SigEOA, clob.SigPolyProxy, clob.SigGnosisSafe:
		if o.Signer != key.address {
			return exchange.Order{}, invalid("the order signer address has to be the address of the API KEY")
		}
		if _, err := clob.VerifyOrderSignature(o, d, common.Address{}); err != nil {
			return exchange.Order{}, badSig.WithCause(err)
		}
	case clob.SigPoly1271:
		if _, err := clob.VerifyOrderSignature(o, d, key.address); err != nil {
			return exchange.Order{}, badSig.WithCause(err)
		}
	default:
		return exchange.Order{}, invalid(exchange.MsgInvalidPayload)
	}
	if err := s.checkFunder(r, key.address, o); err != nil {
		return exchange.Order{}, err
	}
	if o.Expiration > math.MaxInt64 {
		return exchange.Order{}, invalid(exchange.MsgInvalidExpiration)
	}
	return exchange.Order{
		ID: hash.Hex(), Owner: key.creds.Key, Maker: o.Maker, Signer: o.Signer, TokenID: o.TokenID.String(),
		Side: exchange.Side(o.Side), MakerAmount: o.MakerAmount.Uint64(), TakerAmount: o.TakerAmount.Uint64(),
		Type: exchange.OrderType(req.OrderType), Expiration: int64(o.Expiration), PostOnly: req.PostOnly, Signed: o,
	}, nil
}

// checkFunder applies the maker rule of the signature type: the EOA itself
// (type 0), its CREATE2 proxy (1) or Safe (2), or a deposit wallet it owns
// (3, checked on chain when a resolver is configured).
func (s *Server) checkFunder(r *http.Request, eoa common.Address, o clob.Order) error {
	if o.SignatureType == clob.SigEOA && s.cfg.RefuseEOAMakers {
		return invalid("maker address not allowed, please use the deposit wallet flow")
	}
	want := map[clob.SignatureType]chain.Kind{clob.SigEOA: chain.EOA, clob.SigPolyProxy: chain.Proxy, clob.SigGnosisSafe: chain.Safe, clob.SigPoly1271: chain.Deposit}[o.SignatureType]
	if s.cfg.Wallets != nil {
		k, err := s.cfg.Wallets.DetectKind(r.Context(), eoa, o.Maker)
		if err != nil {
			if venue.CategoryOf(err) == venue.Unavailable {
				return err
			}
			return invalid("the order owner has to be the owner of the API KEY")
		}
		if k != want {
			return venue.E(venue.Invalid, "invalid signature")
		}
		return nil
	}
	switch o.SignatureType {
	case clob.SigPolyProxy:
		if o.Maker != chain.DeriveProxyAddress(s.cfg.Network, eoa) {
			return venue.E(venue.Invalid, "invalid signature")
		}
	case clob.SigGnosisSafe:
		if o.Maker != chain.DeriveSafeAddress(s.cfg.Network, eoa) {
			return venue.E(venue.Invalid, "invalid signature")
		}
	}
	return nil
}

func (s *Server) place(r *http.Request, key *apiKey, req clob.PostOrderRequest) (clob.OrderResponse, error) {
	o, err := s.admit(r, key, req)
	if err != nil {
		return clob.OrderResponse{}, err
	}
	res, err := s.e.Place(r.Context(), o)
	if err != nil {
		return clob.OrderResponse{}, err
	}
	out := clob.OrderResponse{Success: true, OrderID: res.OrderID, Status: res.Status,
		TransactionsHashes: []string{}, TradeIDs: []string{}}
	if res.Status == "matched" {
		out.MakingAmount, out.TakingAmount = micro.String(res.MakingMicro), micro.String(res.TakingMicro)
	}
	for _, h := range res.TxHashes {
		out.TransactionsHashes = append(out.TransactionsHashes, h.Hex())
	}
	out.TradeIDs = append(out.TradeIDs, res.TradeIDs...)
	return out, nil
}

func (s *Server) postOrder(w http.ResponseWriter, r *http.Request, key *apiKey, body []byte) {
	var req clob.PostOrderRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, invalid(exchange.MsgInvalidPayload))
		return
	}
	out, err := s.place(r, key, req)
	if err != nil {
		s.log.Debug("order refused", "api_key", key.creds.Key, "err", venue.MessageOf(err))
		writeError(w, err)
		return
	}
	writeJSON(w, 200, out)
}

func (s *Server) postOrders(w http.ResponseWriter, r *http.Request, key *apiKey, body []byte) {
	var raws []json.RawMessage
	if err := json.Unmarshal(body, &raws); err != nil {
		writeError(w, invalid(exchange.MsgInvalidPayload))
		return
	}
	if len(raws) > maxBatch {
		writeError(w, invalid("Too many orders in payload: "+strconv.Itoa(len(raws))+", max allowed: "+strconv.Itoa(maxBatch)))
		return
	}
	out := make([]clob.OrderResponse, 0, len(raws))
	for _, raw := range raws {
		var req clob.PostOrderRequest
		err := json.Unmarshal(raw, &req)
		var res clob.OrderResponse
		if err == nil {
			res, err = s.place(r, key, req)
		} else {
			err = invalid(exchange.MsgInvalidPayload)
		}
		if err != nil {
			res = clob.OrderResponse{ErrorMsg: venue.MessageOf(err), TransactionsHashes: []string{}, TradeIDs: []string{}}
		}
		out = append(out, res)
	}
	writeJSON(w, 200, out)
}

func (s *Server) cancelIDs(key *apiKey, ids []string) clob.CancelResponse {
	out := clob.CancelResponse{Canceled: []string{}, NotCanceled: map[string]string{}}
	for _, id := range ids {
		if err := s.e.Cancel(id, key.creds.Key); err != nil {
			out.NotCanceled[id] = venue.MessageOf(err)
			continue
		}
		out.Canceled = append(out.Canceled, id)
	}
	return out
}

func (s *Server) cancelOrder(w http.ResponseWriter, _ *http.Request, key *apiKey, body []byte) {
	var req struct {
		OrderID string `json:"orderID"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.OrderID == "" {
		writeError(w, invalid("Invalid orderID"))
		return
	}
	writeJSON(w, 200, s.cancelIDs(key, []string{req.OrderID}))
}

func (s *Server) cancelOrders(w http.ResponseWriter, _ *http.Request, key *apiKey, body []byte) {
	var ids []string
	if err := json.Unmarshal(body, &ids); err != nil {
		writeError(w, invalid("Invalid orderID"))
		return
	}
	if len(ids) > 3000 {
		writeError(w, invalid("Too many orders in payload, max allowed: 3000"))
		return
	}
	writeJSON(w, 200, s.cancelIDs(key, ids))
}

func (s *Server) cancelAll(w http.ResponseWriter, _ *http.Request, key *apiKey, _ []byte) {
	ids := s.e.CancelWhere(key.creds.Key, "", "")
	if ids == nil {
		ids = []string{}
	}
	writeJSON(w, 200, clob.CancelResponse{Canceled: ids, NotCanceled: map[string]string{}})
}

func (s *Server) cancelMarketOrders(w http.ResponseWriter, _ *http.Request, key *apiKey, body []byte) {
	var req struct {
		Market  string `json:"market"`
		AssetID string `json:"asset_id"`
	}
	if len(body) > 0 {
		if err := json.Unmarshal(body, &req); err != nil {
			writeError(w, invalid("Invalid payload"))
			return
		}
	}
	cond := req.Market
	if m, ok := s.v.ByCondition(cond); ok {
		cond = m.ConditionID
	}
	ids := s.e.CancelWhere(key.creds.Key, cond, req.AssetID)
	if ids == nil {
		ids = []string{}
	}
	writeJSON(w, 200, clob.CancelResponse{Canceled: ids, NotCanceled: map[string]string{}})
}

func openOrderJSON(v exchange.OrderView) map[string]any {
	trades := v.TradeIDs
	if trades == nil {
		trades = []string{}
	}
	return map[string]any{
		"id": v.ID, "status": string(v.Status), "owner": v.Owner, "maker_address": v.Maker.Hex(),
		"market": v.ConditionID, "asset_id": v.TokenID, "side": v.Side.String(),
		"original_size": micro.String(v.SizeMicro), "size_matched": micro.String(v.MatchedMicro),
		"price": micro.String(v.PriceMicro), "associate_trades": trades, "outcome": v.Outcome,
		"created_at": v.CreatedAt.Unix(), "expiration": strconv.FormatInt(v.Expiration, 10),
		"order_type": string(v.Type),
	}
}

func (s *Server) getOrder(w http.ResponseWriter, r *http.Request, key *apiKey, _ []byte) {
	v, ok := s.e.Order(r.PathValue("id"))
	if !ok || v.Owner != key.creds.Key {
		writeError(w, venue.E(venue.NotFound, "order not found"))
		return
	}
	writeJSON(w, 200, openOrderJSON(v))
}

func (s *Server) listOrders(w http.ResponseWriter, r *http.Request, key *apiKey, _ []byte) {
	q := r.URL.Query()
	f := exchange.OrderFilter{Owner: key.creds.Key, ID: q.Get("id"), TokenID: q.Get("asset_id"), LiveOnly: true}
	if c := q.Get("market"); c != "" {
		f.ConditionID = c
		if m, ok := s.v.ByCondition(c); ok {
			f.ConditionID = m.ConditionID
		}
	}
	views := s.e.Orders(f)
	out := make([]map[string]any, len(views))
	for i, v := range views {
		out[i] = openOrderJSON(v)
	}
	env, err := page(out, q.Get("next_cursor"), pageSize)
	if err != nil {
		writeError(w, venue.E(venue.Invalid, "invalid order params payload"))
		return
	}
	writeJSON(w, 200, env)
}

func tradeJSON(t exchange.Trade, viewer *apiKey) map[string]any {
	makers := make([]map[string]any, 0, len(t.MakerOrders))
	side := "TAKER"
	if t.Owner != viewer.creds.Key {
		side = "MAKER"
	}
	for _, m := range t.MakerOrders {
		makers = append(makers, map[string]any{
			"order_id": m.OrderID, "owner": m.Owner, "maker_address": m.Maker.Hex(),
			"matched_amount": micro.String(m.MatchedShares), "price": micro.String(m.PriceMicro),
			"fee_rate_bps": "0", "asset_id": m.TokenID, "outcome": m.Outcome, "side": m.Side.String(),
		})
	}
	return map[string]any{
		"id": t.ID, "taker_order_id": t.TakerOrderID, "market": t.ConditionID, "asset_id": t.TokenID,
		"side": t.Side.String(), "size": micro.String(t.SizeMicro), "fee_rate_bps": "0",
		"price": micro.String(t.PriceMicro), "status": string(t.Status),
		"match_time": strconv.FormatInt(t.MatchTime.Unix(), 10), "last_update": strconv.FormatInt(t.LastUpdate.Unix(), 10),
		"match_time_nano": strconv.FormatInt(t.MatchTime.UnixNano(), 10),
		"outcome":         t.Outcome, "bucket_index": 0, "owner": t.Owner, "maker_address": t.Maker.Hex(),
		"maker_orders": makers, "transaction_hash": t.TxHash.Hex(), "trader_side": side, "err_msg": "",
	}
}

func unixParam(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, invalid("Invalid trade params payload")
	}
	return time.Unix(n, 0), nil
}

func (s *Server) listTrades(w http.ResponseWriter, r *http.Request, key *apiKey, _ []byte) {
	q := r.URL.Query()
	f := exchange.TradeFilter{Owner: key.creds.Key, ID: q.Get("id"), TokenID: q.Get("asset_id"), ConditionID: q.Get("market")}
	if m, ok := s.v.ByCondition(f.ConditionID); ok {
		f.ConditionID = m.ConditionID
	}
	var err error
	if f.After, err = unixParam(q.Get("after")); err == nil {
		f.Before, err = unixParam(q.Get("before"))
	}
	if a := q.Get("maker_address"); err == nil && a != "" {
		if !common.IsHexAddress(a) {
			err = invalid("Invalid trade params payload")
		}
		f.Maker = common.HexToAddress(a)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	ts := s.e.Trades(f)
	out := make([]map[string]any, len(ts))
	for i, t := range ts {
		out[i] = tradeJSON(t, key)
	}
	env, err := page(out, q.Get("next_cursor"), pageSize)
	if err != nil {
		writeError(w, invalid("Invalid trade params payload"))
		return
	}
	writeJSON(w, 200, env)
}

// funderOf is the address whose funds back orders of a signature type.
func (s *Server) funderOf(key *apiKey, sigType string) (common.Address, error) {
	switch sigType {
	case "", "0":
		return key.address, nil
	case "1":
		return chain.DeriveProxyAddress(s.cfg.Network, key.address), nil
	case "2":
		return chain.DeriveSafeAddress(s.cfg.Network, key.address), nil
	case "3":
		// The key's deposit wallet is where the deposit-wallet factory
		// deploys it (deployed or not), as the wallet check requires.
		return contracts.DepositWalletAddress(s.cfg.Network.DepositWalletFactory, contracts.DepositWalletImplementation, key.address), nil
	}
	return common.Address{}, invalid("Invalid signature_type")
}

func (s *Server) balanceAllowance(w http.ResponseWriter, r *http.Request, key *apiKey, _ []byte) {
	q := r.URL.Query()
	owner, err := s.funderOf(key, q.Get("signature_type"))
	if err != nil {
		writeError(w, err)
		return
	}
	n := s.cfg.Network
	var asset string
	switch strings.ToUpper(q.Get("asset_type")) {
	case "COLLATERAL":
	case "CONDITIONAL":
		asset = q.Get("token_id")
		if _, ok := s.v.ByToken(asset); !ok {
			writeError(w, invalid(msgInvalidToken))
			return
		}
	default:
		writeError(w, invalid("Invalid asset type"))
		return
	}
	ledger := s.v.Chain()
	bal, allow, err := ledger.Funds(r.Context(), owner, asset, false)
	if err != nil {
		writeError(w, venue.Wrap(venue.Unavailable, err, "could not read balance"))
		return
	}
	_, allowNR, err := ledger.Funds(r.Context(), owner, asset, true)
	if err != nil {
		writeError(w, venue.Wrap(venue.Unavailable, err, "could not read balance"))
		return
	}
	allowances := map[string]string{n.Exchange.Hex(): bigOrZero(allow), n.NegRiskExchange.Hex(): bigOrZero(allowNR)}
	if asset != "" {
		allowances[n.NegRiskAdapter.Hex()] = bigOrZero(allowNR)
	}
	writeJSON(w, 200, map[string]any{"balance": bigOrZero(bal), "allowances": allowances})
}

func (s *Server) heartbeat(w http.ResponseWriter, _ *http.Request, key *apiKey, body []byte) {
	var req struct {
		ID *string `json:"heartbeat_id"`
	}
	if len(body) > 0 {
		if err := json.Unmarshal(body, &req); err != nil {
			writeError(w, invalid("Invalid payload"))
			return
		}
	}
	s.hbMu.Lock()
	defer s.hbMu.Unlock()
	prev, started := s.hb[key.creds.Key]
	if started && req.ID != nil && *req.ID != "" && *req.ID != prev.id {
		writeError(w, invalid("Invalid heartbeat id"))
		return
	}
	id := uuid.NewString()
	s.hb[key.creds.Key] = heartbeat{id: id, last: s.cfg.Clock()}
	writeJSON(w, 200, map[string]string{"heartbeat_id": id})
}

// pricesHistory serves the fair-price samples of a token: market=<token>,
// startTs/endTs (unix s) or interval (max, 1w, 1d, 6h, 1h), fidelity in
// minutes (one point per bucket).
func (s *Server) pricesHistory(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	now := s.cfg.Clock()
	from, to := time.Time{}, now
	if q.Get("interval") == "" && (q.Get("startTs") == "" || q.Get("endTs") == "") {
		// As the venue: a span is interval, or both timestamps.
		writeError(w, invalid("interval or both startTs and endTs are required"))
		return
	}
	switch q.Get("interval") {
	case "1h":
		from = now.Add(-time.Hour)
	case "6h":
		from = now.Add(-6 * time.Hour)
	case "1d":
		from = now.Add(-24 * time.Hour)
	case "1w":
		from = now.Add(-7 * 24 * time.Hour)
	case "max", "":
	default:
		writeError(w, invalid("invalid interval"))
		return
	}
	var err error
	if v := q.Get("startTs"); v != "" {
		if from, err = unixParam(v); err != nil {
			writeError(w, invalid("invalid startTs"))
			return
		}
	}
	if v := q.Get("endTs"); v != "" {
		if to, err = unixParam(v); err != nil {
			writeError(w, invalid("invalid endTs"))
			return
		}
	}
	fidelity := int64(1)
	if v := q.Get("fidelity"); v != "" {
		if fidelity, err = strconv.ParseInt(v, 10, 64); err != nil || fidelity <= 0 {
			writeError(w, invalid("invalid fidelity"))
			return
		}
	}
	pts, ok := s.v.History(q.Get("market"), from, to)
	if !ok {
		writeError(w, invalid("Invalid market"))
		return
	}
	out := []map[string]any{}
	lastBucket := int64(-1)
	for _, p := range pts {
		b := p.Time.Unix() / (60 * fidelity)
		if b == lastBucket {
			continue
		}
		lastBucket = b
		out = append(out, map[string]any{"t": p.Time.Unix(), "p": num(p.Micro)})
	}
	writeJSON(w, 200, map[string]any{"history": out})
}
