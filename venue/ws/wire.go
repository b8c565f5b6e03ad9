package ws

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/venue/wire"
)

// The wire format (reference §1, §2): JSON text frames holding one event
// object or an array of them, every price, size and timestamp a string,
// event_type the discriminator. Parse and Marshal are the one definition of
// it: the client parses with Parse and the sandbox serves frames built with
// Marshal, and the tests hold Parse to frames recorded from the live venue.

// ErrUnknownEvent is wrapped by Parse for an event_type it does not know;
// the other events of the frame are still returned.
var ErrUnknownEvent = errors.New("ws: unknown event type")

// pingFrame and pongFrame are the application keepalive: plain text, not
// WebSocket control frames.
const (
	pingFrame = "PING"
	pongFrame = "PONG"
)

// stamp is a timestamp sent as a string of digits (sometimes a number or
// ""): milliseconds on the market channel, seconds or milliseconds on the
// user channel (the docs and fixtures disagree, §7.8), told apart by
// magnitude.
type stamp string

func (s *stamp) UnmarshalJSON(b []byte) error {
	v := strings.Trim(strings.TrimSpace(string(b)), `"`)
	if v == "null" {
		v = ""
	}
	*s = stamp(v)
	return nil
}

// time converts by magnitude: below 1e11 the value is in seconds (1e11 s
// is the year 5138), otherwise in milliseconds.
func (s stamp) time() time.Time {
	if s == "" {
		return time.Time{}
	}
	n, err := strconv.ParseInt(string(s), 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}
	}
	if n < 1e11 {
		return time.Unix(n, 0)
	}
	return time.UnixMilli(n)
}

func millis(t time.Time) stamp {
	if t.IsZero() {
		return ""
	}
	return stamp(strconv.FormatInt(t.UnixMilli(), 10))
}

func seconds(t time.Time) stamp {
	if t.IsZero() {
		return ""
	}
	return stamp(strconv.FormatInt(t.Unix(), 10))
}

// dec is a decimal sent as a string; "" and null decode as absent.
type dec = wire.LooseDecimal

func d(x decimal.Decimal) dec { return dec{Decimal: x} }

func optDec(x decimal.NullDecimal) *dec {
	if !x.Valid {
		return nil
	}
	v := d(x.Decimal)
	return &v
}

func nullDec(x *dec) decimal.NullDecimal {
	if x == nil {
		return decimal.NullDecimal{}
	}
	return decimal.NewNullDecimal(x.Decimal)
}

type wireLevel struct {
	Price dec `json:"price"`
	Size  dec `json:"size"`
}

type wireBook struct {
	EventType      string      `json:"event_type"`
	AssetID        string      `json:"asset_id"`
	Market         string      `json:"market"`
	Bids           []wireLevel `json:"bids"`
	Asks           []wireLevel `json:"asks"`
	Timestamp      stamp       `json:"timestamp"`
	Hash           string      `json:"hash"`
	TickSize       *dec        `json:"tick_size,omitempty"`
	LastTradePrice *dec        `json:"last_trade_price,omitempty"`
	// Legacy names of the ladders (the old docs' buys/sells).
	Buys  []wireLevel `json:"buys,omitempty"`
	Sells []wireLevel `json:"sells,omitempty"`
}

type wirePriceChange struct {
	AssetID string `json:"asset_id"`
	Price   dec    `json:"price"`
	Size    *dec   `json:"size"`
	Side    Side   `json:"side"`
	Hash    string `json:"hash,omitempty"`
	BestBid *dec   `json:"best_bid,omitempty"`
	BestAsk *dec   `json:"best_ask,omitempty"`
}

type wirePriceChangeEvent struct {
	EventType    string            `json:"event_type"`
	Market       string            `json:"market"`
	PriceChanges []wirePriceChange `json:"price_changes"`
	Timestamp    stamp             `json:"timestamp"`
	// The shape before 2025-09-15: one asset per frame, entries in changes.
	AssetID string            `json:"asset_id,omitempty"`
	Changes []wirePriceChange `json:"changes,omitempty"`
	Hash    string            `json:"hash,omitempty"`
}

type wireLastTrade struct {
	EventType       string `json:"event_type"`
	AssetID         string `json:"asset_id"`
	Market          string `json:"market"`
	Price           dec    `json:"price"`
	Size            dec    `json:"size"`
	Side            Side   `json:"side"`
	FeeRateBps      dec    `json:"fee_rate_bps"`
	Timestamp       stamp  `json:"timestamp"`
	TransactionHash string `json:"transaction_hash,omitempty"`
}

type wireTickSize struct {
	EventType   string `json:"event_type"`
	AssetID     string `json:"asset_id"`
	Market      string `json:"market"`
	OldTickSize dec    `json:"old_tick_size"`
	NewTickSize dec    `json:"new_tick_size"`
	Timestamp   stamp  `json:"timestamp"`
}

type wireBestBidAsk struct {
	EventType string `json:"event_type"`
	Market    string `json:"market"`
	AssetID   string `json:"asset_id"`
	BestBid   dec    `json:"best_bid"`
	BestAsk   dec    `json:"best_ask"`
	Spread    dec    `json:"spread"`
	Timestamp stamp  `json:"timestamp"`
}

type wireNewMarket struct {
	EventType             string        `json:"event_type"`
	ID                    string        `json:"id"`
	Question              string        `json:"question"`
	Market                string        `json:"market"`
	Slug                  string        `json:"slug"`
	Description           string        `json:"description,omitempty"`
	AssetsIDs             []string      `json:"assets_ids"`
	Outcomes              []string      `json:"outcomes"`
	EventMessage          *EventMessage `json:"event_message,omitempty"`
	Timestamp             stamp         `json:"timestamp"`
	Tags                  []string      `json:"tags,omitempty"`
	ConditionID           string        `json:"condition_id,omitempty"`
	Active                bool          `json:"active"`
	ClobTokenIDs          []string      `json:"clob_token_ids,omitempty"`
	OrderPriceMinTickSize *dec          `json:"order_price_min_tick_size,omitempty"`
	GroupItemTitle        string        `json:"group_item_title,omitempty"`
}

type wireResolved struct {
	EventType      string        `json:"event_type"`
	ID             string        `json:"id"`
	Market         string        `json:"market"`
	AssetsIDs      []string      `json:"assets_ids"`
	WinningAssetID string        `json:"winning_asset_id"`
	WinningOutcome string        `json:"winning_outcome"`
	EventMessage   *EventMessage `json:"event_message,omitempty"`
	Timestamp      stamp         `json:"timestamp"`
	Tags           []string      `json:"tags,omitempty"`
}

type wireOrder struct {
	EventType       string         `json:"event_type"`
	Type            OrderEventType `json:"type"`
	ID              string         `json:"id"`
	Owner           string         `json:"owner"`
	OrderOwner      string         `json:"order_owner,omitempty"`
	Market          string         `json:"market"`
	AssetID         string         `json:"asset_id"`
	Side            Side           `json:"side"`
	Outcome         string         `json:"outcome"`
	OriginalSize    dec            `json:"original_size"`
	SizeMatched     dec            `json:"size_matched"`
	Price           dec            `json:"price"`
	AssociateTrades []string       `json:"associate_trades"`
	CreatedAt       stamp          `json:"created_at"`
	Expiration      stamp          `json:"expiration"`
	OrderType       string         `json:"order_type"`
	Status          string         `json:"status"`
	MakerAddress    string         `json:"maker_address"`
	Timestamp       stamp          `json:"timestamp"`
}

type wireMakerOrder struct {
	OrderID       string `json:"order_id"`
	Owner         string `json:"owner"`
	MakerAddress  string `json:"maker_address"`
	MatchedAmount dec    `json:"matched_amount"`
	Price         dec    `json:"price"`
	FeeRateBps    dec    `json:"fee_rate_bps"`
	AssetID       string `json:"asset_id"`
	Outcome       string `json:"outcome"`
	Side          Side   `json:"side"`
}

type wireTrade struct {
	EventType    string      `json:"event_type"`
	Type         string      `json:"type"`
	ID           string      `json:"id"`
	TakerOrderID string      `json:"taker_order_id"`
	Market       string      `json:"market"`
	AssetID      string      `json:"asset_id"`
	Side         Side        `json:"side"`
	Size         dec         `json:"size"`
	Price        dec         `json:"price"`
	FeeRateBps   dec         `json:"fee_rate_bps"`
	Status       TradeStatus `json:"status"`
	// The AsyncAPI spells it matchtime, REST and other docs match_time
	// (§7.9): both are read, matchtime is written.
	MatchTime       stamp            `json:"matchtime"`
	MatchTimeAlt    stamp            `json:"match_time,omitempty"`
	LastUpdate      stamp            `json:"last_update"`
	Outcome         string           `json:"outcome"`
	Owner           string           `json:"owner"`
	TradeOwner      string           `json:"trade_owner,omitempty"`
	MakerAddress    string           `json:"maker_address"`
	TransactionHash string           `json:"transaction_hash"`
	BucketIndex     int              `json:"bucket_index"`
	MakerOrders     []wireMakerOrder `json:"maker_orders"`
	TraderSide      string           `json:"trader_side,omitempty"`
	Timestamp       stamp            `json:"timestamp"`
}

func levels(ws []wireLevel) []Level {
	out := make([]Level, len(ws))
	for i, l := range ws {
		out[i] = Level{Price: l.Price.Decimal, Size: l.Size.Decimal}
	}
	return out
}

// sortBook puts bids descending and asks ascending: best first.
func sortBook(bids, asks []Level) {
	sort.SliceStable(bids, func(i, j int) bool { return bids[i].Price.GreaterThan(bids[j].Price) })
	sort.SliceStable(asks, func(i, j int) bool { return asks[i].Price.LessThan(asks[j].Price) })
}

func (w *wireBook) event() *BookEvent {
	bids, asks := w.Bids, w.Asks
	if bids == nil && asks == nil {
		bids, asks = w.Buys, w.Sells
	}
	ev := &BookEvent{
		AssetID: w.AssetID, Market: w.Market, Bids: levels(bids), Asks: levels(asks),
		Timestamp: w.Timestamp.time(), Hash: w.Hash, LastTradePrice: nullDec(w.LastTradePrice),
	}
	if w.TickSize != nil {
		ev.TickSize = w.TickSize.Decimal
	}
	sortBook(ev.Bids, ev.Asks)
	return ev
}

func (w *wirePriceChangeEvent) event() *PriceChangeEvent {
	ev := &PriceChangeEvent{Market: w.Market, Timestamp: w.Timestamp.time()}
	entries := w.PriceChanges
	legacy := entries == nil && w.Changes != nil
	if legacy {
		entries = w.Changes
	}
	ev.Changes = make([]PriceChange, len(entries))
	for i, c := range entries {
		pc := PriceChange{AssetID: c.AssetID, Price: c.Price.Decimal, Side: c.Side, Hash: c.Hash,
			BestBid: nullDec(c.BestBid), BestAsk: nullDec(c.BestAsk)}
		if c.Size != nil {
			pc.Size = c.Size.Decimal
		}
		if legacy {
			pc.AssetID, pc.Hash = w.AssetID, w.Hash
		}
		ev.Changes[i] = pc
	}
	return ev
}

func (w *wireOrder) event() *OrderEvent {
	return &OrderEvent{
		Type: w.Type, ID: w.ID, Owner: w.Owner, OrderOwner: w.OrderOwner, Market: w.Market,
		AssetID: w.AssetID, Side: w.Side, Outcome: w.Outcome, OriginalSize: w.OriginalSize.Decimal,
		SizeMatched: w.SizeMatched.Decimal, Price: w.Price.Decimal, AssociateTrades: w.AssociateTrades,
		CreatedAt: w.CreatedAt.time(), Expiration: w.Expiration.time(), OrderType: w.OrderType,
		Status: w.Status, MakerAddress: w.MakerAddress, Timestamp: w.Timestamp.time(),
	}
}

func (w *wireTrade) event() *TradeEvent {
	mt := w.MatchTime
	if mt == "" {
		mt = w.MatchTimeAlt
	}
	ev := &TradeEvent{
		ID: w.ID, TakerOrderID: w.TakerOrderID, Market: w.Market, AssetID: w.AssetID, Side: w.Side,
		Size: w.Size.Decimal, Price: w.Price.Decimal, FeeRateBps: w.FeeRateBps.Decimal, Status: w.Status,
		MatchTime: mt.time(), LastUpdate: w.LastUpdate.time(), Outcome: w.Outcome, Owner: w.Owner,
		TradeOwner: w.TradeOwner, MakerAddress: w.MakerAddress, TransactionHash: w.TransactionHash,
		BucketIndex: w.BucketIndex, TraderSide: w.TraderSide, Timestamp: w.Timestamp.time(),
	}
	for _, m := range w.MakerOrders {
		ev.MakerOrders = append(ev.MakerOrders, MakerOrder{
			OrderID: m.OrderID, Owner: m.Owner, MakerAddress: m.MakerAddress,
			MatchedAmount: m.MatchedAmount.Decimal, Price: m.Price.Decimal, FeeRateBps: m.FeeRateBps.Decimal,
			AssetID: m.AssetID, Outcome: m.Outcome, Side: m.Side,
		})
	}
	return ev
}

// Parse decodes one text frame: a single event object or an array of them.
// PONG and empty frames yield no events. Unknown event types are skipped
// and reported with an error wrapping ErrUnknownEvent next to the events
// that did parse; a malformed frame is an error.
func Parse(frame []byte) ([]Event, error) {
	b := bytes.TrimSpace(frame)
	if len(b) == 0 || string(b) == pongFrame || string(b) == pingFrame {
		return nil, nil
	}
	var raws []json.RawMessage
	switch b[0] {
	case '[':
		if err := json.Unmarshal(b, &raws); err != nil {
			return nil, fmt.Errorf("ws: malformed frame: %w", err)
		}
	case '{':
		raws = []json.RawMessage{b}
	default:
		return nil, fmt.Errorf("ws: unexpected frame %.40q", b)
	}
	out := make([]Event, 0, len(raws))
	var unknown []string
	for _, raw := range raws {
		ev, err := parseOne(raw)
		if errors.Is(err, ErrUnknownEvent) {
			unknown = append(unknown, err.Error())
			continue
		}
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
	if len(unknown) > 0 {
		return out, fmt.Errorf("%w: %s", ErrUnknownEvent, strings.Join(unknown, "; "))
	}
	return out, nil
}

func parseOne(raw json.RawMessage) (Event, error) {
	var head struct {
		EventType string `json:"event_type"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("ws: malformed event: %w", err)
	}
	var ev Event
	var err error
	switch head.EventType {
	case "book":
		var w wireBook
		if err = json.Unmarshal(raw, &w); err == nil {
			ev = w.event()
		}
	case "price_change":
		var w wirePriceChangeEvent
		if err = json.Unmarshal(raw, &w); err == nil {
			ev = w.event()
		}
	case "last_trade_price":
		var w wireLastTrade
		if err = json.Unmarshal(raw, &w); err == nil {
			ev = &LastTradePriceEvent{AssetID: w.AssetID, Market: w.Market, Price: w.Price.Decimal, Size: w.Size.Decimal,
				Side: w.Side, FeeRateBps: w.FeeRateBps.Decimal, Timestamp: w.Timestamp.time(), TransactionHash: w.TransactionHash}
		}
	case "tick_size_change":
		var w wireTickSize
		if err = json.Unmarshal(raw, &w); err == nil {
			ev = &TickSizeChangeEvent{AssetID: w.AssetID, Market: w.Market, OldTickSize: w.OldTickSize.Decimal,
				NewTickSize: w.NewTickSize.Decimal, Timestamp: w.Timestamp.time()}
		}
	case "best_bid_ask":
		var w wireBestBidAsk
		if err = json.Unmarshal(raw, &w); err == nil {
			ev = &BestBidAskEvent{AssetID: w.AssetID, Market: w.Market, BestBid: w.BestBid.Decimal,
				BestAsk: w.BestAsk.Decimal, Spread: w.Spread.Decimal, Timestamp: w.Timestamp.time()}
		}
	case "new_market":
		var w wireNewMarket
		if err = json.Unmarshal(raw, &w); err == nil {
			nm := &NewMarketEvent{ID: w.ID, Question: w.Question, Market: w.Market, Slug: w.Slug,
				Description: w.Description, AssetIDs: w.AssetsIDs, Outcomes: w.Outcomes, EventMessage: w.EventMessage,
				Tags: w.Tags, Active: w.Active, GroupItemTitle: w.GroupItemTitle, Timestamp: w.Timestamp.time()}
			if w.OrderPriceMinTickSize != nil {
				nm.OrderPriceMinTickSize = w.OrderPriceMinTickSize.Decimal
			}
			if len(nm.AssetIDs) == 0 {
				nm.AssetIDs = w.ClobTokenIDs
			}
			ev = nm
		}
	case "market_resolved":
		var w wireResolved
		if err = json.Unmarshal(raw, &w); err == nil {
			ev = &MarketResolvedEvent{ID: w.ID, Market: w.Market, AssetIDs: w.AssetsIDs, WinningAssetID: w.WinningAssetID,
				WinningOutcome: w.WinningOutcome, EventMessage: w.EventMessage, Tags: w.Tags, Timestamp: w.Timestamp.time()}
		}
	case "order":
		var w wireOrder
		if err = json.Unmarshal(raw, &w); err == nil {
			ev = w.event()
		}
	case "trade":
		var w wireTrade
		if err = json.Unmarshal(raw, &w); err == nil {
			ev = w.event()
		}
	default:
		return nil, fmt.Errorf("%w %q", ErrUnknownEvent, head.EventType)
	}
	if err != nil {
		return nil, fmt.Errorf("ws: malformed %s event: %w", head.EventType, err)
	}
	return ev, nil
}

// Marshal encodes events as the venue does: one object, or an array for
// several. Books are written worst level first on both sides, as captured
// from the live venue (§1.3). Backfill flags are not part of the wire
// format and are not written.
func Marshal(evs ...Event) ([]byte, error) { return marshal(evs, len(evs) != 1) }

// MarshalArray encodes events as one array frame even when there is one:
// the venue's initial book dump is an array per subscribe frame.
func MarshalArray(evs ...Event) ([]byte, error) { return marshal(evs, true) }

func marshal(evs []Event, array bool) ([]byte, error) {
	ws := make([]any, len(evs))
	for i, ev := range evs {
		w, err := toWire(ev)
		if err != nil {
			return nil, err
		}
		ws[i] = w
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	var err error
	if array {
		err = enc.Encode(ws)
	} else {
		err = enc.Encode(ws[0])
	}
	if err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func wireLevels(ls []Level, worstFirstAscending bool) []wireLevel {
	out := make([]wireLevel, len(ls))
	for i, l := range ls {
		out[i] = wireLevel{Price: d(l.Price), Size: d(l.Size)}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if worstFirstAscending {
			return out[i].Price.LessThan(out[j].Price.Decimal)
		}
		return out[i].Price.GreaterThan(out[j].Price.Decimal)
	})
	return out
}

func toWire(ev Event) (any, error) {
	switch e := ev.(type) {
	case *BookEvent:
		w := wireBook{EventType: "book", AssetID: e.AssetID, Market: e.Market,
			Bids: wireLevels(e.Bids, true), Asks: wireLevels(e.Asks, false),
			Timestamp: millis(e.Timestamp), Hash: e.Hash, LastTradePrice: optDec(e.LastTradePrice)}
		if !e.TickSize.IsZero() {
			t := d(e.TickSize)
			w.TickSize = &t
		}
		return w, nil
	case *PriceChangeEvent:
		w := wirePriceChangeEvent{EventType: "price_change", Market: e.Market, Timestamp: millis(e.Timestamp),
			PriceChanges: make([]wirePriceChange, len(e.Changes))}
		for i, c := range e.Changes {
			size := d(c.Size)
			w.PriceChanges[i] = wirePriceChange{AssetID: c.AssetID, Price: d(c.Price), Size: &size, Side: c.Side,
				Hash: c.Hash, BestBid: optDec(c.BestBid), BestAsk: optDec(c.BestAsk)}
		}
		return w, nil
	case *LastTradePriceEvent:
		return wireLastTrade{EventType: "last_trade_price", AssetID: e.AssetID, Market: e.Market, Price: d(e.Price),
			Size: d(e.Size), Side: e.Side, FeeRateBps: d(e.FeeRateBps), Timestamp: millis(e.Timestamp),
			TransactionHash: e.TransactionHash}, nil
	case *TickSizeChangeEvent:
		return wireTickSize{EventType: "tick_size_change", AssetID: e.AssetID, Market: e.Market,
			OldTickSize: d(e.OldTickSize), NewTickSize: d(e.NewTickSize), Timestamp: millis(e.Timestamp)}, nil
	case *BestBidAskEvent:
		return wireBestBidAsk{EventType: "best_bid_ask", Market: e.Market, AssetID: e.AssetID, BestBid: d(e.BestBid),
			BestAsk: d(e.BestAsk), Spread: d(e.Spread), Timestamp: millis(e.Timestamp)}, nil
	case *NewMarketEvent:
		w := wireNewMarket{EventType: "new_market", ID: e.ID, Question: e.Question, Market: e.Market, Slug: e.Slug,
			Description: e.Description, AssetsIDs: e.AssetIDs, Outcomes: e.Outcomes, EventMessage: e.EventMessage,
			Timestamp: millis(e.Timestamp), Tags: e.Tags, ConditionID: e.Market, Active: e.Active,
			ClobTokenIDs: e.AssetIDs, GroupItemTitle: e.GroupItemTitle}
		if !e.OrderPriceMinTickSize.IsZero() {
			t := d(e.OrderPriceMinTickSize)
			w.OrderPriceMinTickSize = &t
		}
		return w, nil
	case *MarketResolvedEvent:
		return wireResolved{EventType: "market_resolved", ID: e.ID, Market: e.Market, AssetsIDs: e.AssetIDs,
			WinningAssetID: e.WinningAssetID, WinningOutcome: e.WinningOutcome, EventMessage: e.EventMessage,
			Timestamp: millis(e.Timestamp), Tags: e.Tags}, nil
	case *OrderEvent:
		exp := seconds(e.Expiration)
		if exp == "" {
			exp = "0"
		}
		return wireOrder{EventType: "order", Type: e.Type, ID: e.ID, Owner: e.Owner, OrderOwner: e.OrderOwner,
			Market: e.Market, AssetID: e.AssetID, Side: e.Side, Outcome: e.Outcome, OriginalSize: d(e.OriginalSize),
			SizeMatched: d(e.SizeMatched), Price: d(e.Price), AssociateTrades: e.AssociateTrades,
			CreatedAt: seconds(e.CreatedAt), Expiration: exp, OrderType: e.OrderType, Status: e.Status,
			MakerAddress: e.MakerAddress, Timestamp: millis(e.Timestamp)}, nil
	case *TradeEvent:
		w := wireTrade{EventType: "trade", Type: "TRADE", ID: e.ID, TakerOrderID: e.TakerOrderID, Market: e.Market,
			AssetID: e.AssetID, Side: e.Side, Size: d(e.Size), Price: d(e.Price), FeeRateBps: d(e.FeeRateBps),
			Status: e.Status, MatchTime: seconds(e.MatchTime), LastUpdate: seconds(e.LastUpdate), Outcome: e.Outcome,
			Owner: e.Owner, TradeOwner: e.TradeOwner, MakerAddress: e.MakerAddress, TransactionHash: e.TransactionHash,
			BucketIndex: e.BucketIndex, TraderSide: e.TraderSide, Timestamp: millis(e.Timestamp),
			MakerOrders: make([]wireMakerOrder, len(e.MakerOrders))}
		for i, m := range e.MakerOrders {
			w.MakerOrders[i] = wireMakerOrder{OrderID: m.OrderID, Owner: m.Owner, MakerAddress: m.MakerAddress,
				MatchedAmount: d(m.MatchedAmount), Price: d(m.Price), FeeRateBps: d(m.FeeRateBps), AssetID: m.AssetID,
				Outcome: m.Outcome, Side: m.Side}
		}
		return w, nil
	}
	return nil, fmt.Errorf("ws: cannot marshal %T", ev)
}
