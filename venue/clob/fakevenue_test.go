package clob

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/network"
)

// fakeVenue is a small but real CLOB: it checks L1/L2 auth and order
// signatures with the same rules the sandbox uses, enforces tick and
// marketable precision, and answers with the venue's response shapes and
// error strings. Tests flip its market parameters and inject failures.
type fakeVenue struct {
	t      *testing.T
	srv    *httptest.Server
	net    network.Network
	creds  Creds
	owner  common.Address
	mu     sync.Mutex
	tick   TickSize
	neg    bool
	min    string
	asks   []PriceLevel // descending, as served
	bids   []PriceLevel // ascending, as served
	calls  map[string]int
	posted []PostOrderRequest
	// fail, when set for "METHOD /path", answers the next such call.
	fail map[string]func(w http.ResponseWriter)
	// orders known to GET /data/order.
	orders map[string]OpenOrder
}

const (
	fakeToken     = "71321045679252212594626385532706912750332728571942532289631379312455583992563"
	fakeToken2    = "123"
	fakeCondition = "0x5f65177b394277fd294cd75650044e32ba009a95022d88a0c1d565897d72f8f1"
)

func newFakeVenue(t *testing.T, owner common.Address) *fakeVenue {
	f := &fakeVenue{
		t: t, owner: owner, tick: Tick001, min: "5",
		creds:  Creds{Key: "11111111-2222-3333-4444-555555555555", Secret: "PadR-PcjXk3e6KwhaBirYKR9v2Pr-YdYtJXhEUJFSf4=", Passphrase: "pp"},
		calls:  map[string]int{},
		fail:   map[string]func(http.ResponseWriter){},
		orders: map[string]OpenOrder{},
		asks:   []PriceLevel{{d("0.60"), d("100")}, {d("0.55"), d("20")}, {d("0.52"), d("10")}},
		bids:   []PriceLevel{{d("0.40"), d("100")}, {d("0.45"), d("20")}, {d("0.48"), d("10")}},
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	f.net = network.Sandbox(f.srv.URL)
	f.net.CLOBURL = f.srv.URL
	return f
}

func (f *fakeVenue) count(k string) int { f.mu.Lock(); defer f.mu.Unlock(); return f.calls[k] }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func venueErr(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

func (f *fakeVenue) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	key := r.Method + " " + r.URL.Path
	f.mu.Lock()
	f.calls[key]++
	fail := f.fail[key]
	delete(f.fail, key)
	tick, neg, minSize := f.tick, f.neg, f.min
	f.mu.Unlock()
	if fail != nil {
		fail(w)
		return
	}
	q := r.URL.Query()
	switch {
	case key == "GET /ok":
		writeJSON(w, 200, "OK")
	case key == "GET /version":
		writeJSON(w, 200, map[string]int{"version": 2})
	case key == "GET /time":
		_, _ = io.WriteString(w, "1767225600")
	case key == "GET /book":
		if q.Get("token_id") != fakeToken {
			venueErr(w, 404, "No orderbook exists for the requested token id")
			return
		}
		f.mu.Lock()
		writeJSON(w, 200, map[string]any{"market": fakeCondition, "asset_id": fakeToken, "timestamp": "1767225600000", "hash": "x",
			"bids": f.bids, "asks": f.asks, "min_order_size": minSize, "tick_size": string(tick), "neg_risk": neg, "last_trade_price": ""})
		f.mu.Unlock()
	case key == "GET /price":
		_, _ = io.WriteString(w, `{"price": 0.45}`)
	case key == "GET /midpoint":
		_, _ = io.WriteString(w, `{"mid": "0.5"}`)
	case key == "GET /spread":
		_, _ = io.WriteString(w, `{"spread": "0.04"}`)
	case key == "GET /last-trade-price":
		_, _ = io.WriteString(w, `{"price": "0.52", "side": "BUY"}`)
	case key == "POST /books":
		var ps []BookParams
		if json.Unmarshal(body, &ps) != nil || len(ps) != 1 || ps[0].TokenID != fakeToken {
			venueErr(w, 400, "Invalid payload")
			return
		}
		writeJSON(w, 200, []map[string]any{{"market": fakeCondition, "asset_id": fakeToken, "bids": []PriceLevel{}, "asks": f.asks,
			"min_order_size": "5", "tick_size": "0.001", "neg_risk": true, "last_trade_price": "0.5"}})
	case key == "GET /markets/"+fakeCondition:
		_, _ = io.WriteString(w, `{"condition_id":"`+fakeCondition+`","question":"Q?","market_slug":"q","active":true,"closed":false,"accepting_orders":true,"minimum_order_size":5,"minimum_tick_size":0.01,"neg_risk":false,"end_date_iso":"2026-05-12T11:05:00Z","seconds_delay":0,"tokens":[{"token_id":"`+fakeToken+`","outcome":"Yes","price":0.515,"winner":false},{"token_id":"`+fakeToken2+`","outcome":"No","price":0.485,"winner":false}],"tags":["Crypto"]}`)
	case key == "GET /tick-size":
		_, _ = io.WriteString(w, `{"minimum_tick_size": `+string(tick)+`}`)
	case key == "GET /neg-risk":
		writeJSON(w, 200, map[string]bool{"neg_risk": neg})
	case key == "GET /markets-by-token/"+fakeToken, key == "GET /markets-by-token/"+fakeToken2:
		writeJSON(w, 200, map[string]any{"condition_id": fakeCondition, "primary_token_id": fakeToken, "secondary_token_id": fakeToken2})
	case key == "GET /clob-markets/"+fakeCondition:
		m := map[string]any{"c": fakeCondition, "t": []map[string]string{{"t": fakeToken, "o": "Yes"}, {"t": fakeToken2, "o": "No"}},
			"mts": json.Number(string(tick)), "mos": 5, "ao": true, "fd": map[string]any{"r": 0.07, "e": 1, "to": true}}
		if neg {
			m["nr"] = true
		}
		writeJSON(w, 200, m)
	case key == "POST /auth/api-key", key == "GET /auth/derive-api-key":
		addr, _, _, err := VerifyL1(r.Header, f.net.ChainID)
		if err != nil {
			venueErr(w, 401, "Invalid L1 Request headers")
			return
		}
		if addr != f.owner {
			venueErr(w, 400, "Could not create api key")
			return
		}
		writeJSON(w, 200, map[string]string{"apiKey": f.creds.Key, "secret": f.creds.Secret, "passphrase": f.creds.Passphrase})
	default:
		f.private(w, r, key, body, tick, neg)
	}
}

func (f *fakeVenue) private(w http.ResponseWriter, r *http.Request, key string, body []byte, tick TickSize, neg bool) {
	if _, err := VerifyL2(r.Header, f.creds, r.Method, r.URL.Path, body); err != nil {
		venueErr(w, 401, "Unauthorized/Invalid api key")
		return
	}
	switch {
	case key == "POST /order":
		var req PostOrderRequest
		if err := json.Unmarshal(body, &req); err != nil {
			venueErr(w, 400, "Invalid order payload")
			return
		}
		o := req.Order
		dom := NetworkDomain(f.net, neg)
		if _, err := VerifyOrderSignature(o, dom, common.Address{}); err != nil {
			venueErr(w, 400, "invalid signature")
			return
		}
		hash, _ := OrderHash(o, dom)
		price, _ := PriceFromAmounts(o.Side, o.MakerAmount, o.TakerAmount)
		if req.OrderType.Marketable() {
			if err := CheckMarketablePrecision(o.Side, o.MakerAmount, o.TakerAmount); err != nil {
				venueErr(w, 400, venue.MessageOf(err))
				return
			}
		} else if !OnTick(price, tick) {
			venueErr(w, 400, fmt.Sprintf("order %s is invalid. Price (%s) breaks minimum tick size rule: %s", hash.Hex(), price, tick))
			return
		}
		f.mu.Lock()
		f.posted = append(f.posted, req)
		f.mu.Unlock()
		writeJSON(w, 200, map[string]any{"success": true, "errorMsg": "", "orderID": hash.Hex(), "status": "live",
			"makingAmount": "", "takingAmount": "", "transactionsHashes": []string{}, "tradeIDs": []string{}})
	case key == "POST /orders":
		var reqs []json.RawMessage
		_ = json.Unmarshal(body, &reqs)
		out := make([]map[string]any, len(reqs))
		for i := range reqs {
			out[i] = map[string]any{"success": false, "errorMsg": "not enough balance / allowance", "orderID": "", "status": ""}
		}
		writeJSON(w, 200, out)
	case key == "DELETE /order":
		var b struct {
			OrderID string `json:"orderID"`
		}
		_ = json.Unmarshal(body, &b)
		writeJSON(w, 200, map[string]any{"canceled": []string{b.OrderID}, "not_canceled": map[string]string{}})
	case key == "POST /v1/heartbeats":
		if string(body) != `{"heartbeat_id":""}` {
			venueErr(w, 400, "Invalid heartbeat payload")
			return
		}
		writeJSON(w, 200, map[string]string{"heartbeat_id": "hb-1"})
	case key == "DELETE /cancel-market-orders":
		if string(body) != `{"market":"`+fakeCondition+`","asset_id":""}` {
			venueErr(w, 400, "Invalid payload")
			return
		}
		writeJSON(w, 200, map[string]any{"canceled": []string{"0x01"}, "not_canceled": map[string]string{}})
	case key == "DELETE /cancel-all":
		writeJSON(w, 200, map[string]any{"canceled": []string{}, "not_canceled": map[string]string{}})
	case strings.HasPrefix(key, "GET /data/order/"):
		id := strings.TrimPrefix(r.URL.Path, "/data/order/")
		f.mu.Lock()
		o, ok := f.orders[id]
		f.mu.Unlock()
		if !ok {
			_, _ = io.WriteString(w, "null")
			return
		}
		writeJSON(w, 200, o)
	case key == "GET /data/orders":
		switch r.URL.Query().Get("next_cursor") {
		case FirstCursor:
			writeJSON(w, 200, map[string]any{"data": []map[string]any{{"id": "0x01", "price": "0.5", "original_size": "10", "size_matched": "0", "created_at": 1767225600, "expiration": "0"}}, "next_cursor": "MTAw", "limit": 1, "count": 1})
		case "MTAw":
			writeJSON(w, 200, map[string]any{"data": []map[string]any{{"id": "0x02", "price": "0.51", "original_size": "5", "size_matched": "1.5", "created_at": "1767225601", "expiration": "0"}}, "next_cursor": EndCursor, "limit": 1, "count": 1})
		default:
			venueErr(w, 400, "invalid order params payload")
		}
	case key == "GET /data/trades":
		if r.URL.Query().Get("after") != "1767225000" {
			venueErr(w, 400, "Invalid trade params payload")
			return
		}
		switch r.URL.Query().Get("next_cursor") {
		case FirstCursor:
			_, _ = io.WriteString(w, `{"data":[{"id":"t1","taker_order_id":"0x01","market":"`+fakeCondition+`","asset_id":"`+fakeToken+`","side":"BUY","size":"10","fee_rate_bps":"0","price":"0.52","status":"TRADE_STATUS_CONFIRMED","match_time":"1767225600","outcome":"Yes","bucket_index":0,"owner":"k","maker_address":"0x1","maker_orders":[{"order_id":"0x9","matched_amount":"10","price":"0.52","side":"SELL"}],"transaction_hash":"0xabc","trader_side":"TAKER"}],"next_cursor":"MQ=="}`)
		default:
			_, _ = io.WriteString(w, `{"data":[],"next_cursor":"LTE="}`)
		}
	case key == "GET /balance-allowance/update":
		w.WriteHeader(200)
		_, _ = io.WriteString(w, `""`)
	case key == "GET /balance-allowance":
		if r.URL.Query().Get("asset_type") == "" {
			venueErr(w, 400, "Invalid asset type")
			return
		}
		writeJSON(w, 200, map[string]any{"balance": "1000000", "allowances": map[string]string{f.net.Exchange.Hex(): "115792089237316195423570985008687907853269984665640564039457584007913129639935"}})
	default:
		venueErr(w, 404, "not found")
	}
}

func (f *fakeVenue) client(timeout time.Duration) *Client {
	return NewClient(Config{BaseURL: f.srv.URL, ChainID: f.net.ChainID, Timeout: timeout, Backoff: time.Millisecond})
}

func (f *fakeVenue) trader(s OrderSigner) *Trader {
	return &Trader{
		Client:  f.client(2*time.Second).WithCreds(f.creds, s.Address()),
		Network: f.net, Signer: s, SignatureType: SigEOA,
		Now:  func() time.Time { return time.UnixMilli(1767225600000) },
		Salt: func() uint64 { return 7 },
	}
}
