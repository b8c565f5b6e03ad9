package ws

import (
	"time"

	"github.com/shopspring/decimal"
)

// Event is one typed event of either channel. The concrete types are the
// *Event structs of this file; switch on them.
type Event interface {
	// EventType is the wire discriminator ("book", "price_change", "order",
	// "trade", …).
	EventType() string
}

// Side is BUY or SELL as the venue spells it.
type Side string

// Sides.
const (
	Buy  Side = "BUY"
	Sell Side = "SELL"
)

// Level is one aggregated price level.
type Level struct {
	Price decimal.Decimal
	Size  decimal.Decimal
}

// BookEvent is a full aggregated snapshot of one token's book. Bids are
// sorted best first (descending price) and asks best first (ascending),
// whatever order the venue sent them in: captures show worst-first, the
// docs best-first (reference §1.3, §7.3).
type BookEvent struct {
	AssetID   string
	Market    string // condition id
	Bids      []Level
	Asks      []Level
	Timestamp time.Time
	Hash      string
	// TickSize and LastTradePrice are observed on the wire but not in the
	// spec; they are zero when absent.
	TickSize       decimal.Decimal
	LastTradePrice decimal.NullDecimal
	// Backfill marks a snapshot fetched over REST after a reconnect rather
	// than received on the socket.
	Backfill bool
}

// EventType implements Event.
func (*BookEvent) EventType() string { return "book" }

// BestBid returns the highest bid, if any.
func (b *BookEvent) BestBid() (Level, bool) {
	if len(b.Bids) == 0 {
		return Level{}, false
	}
	return b.Bids[0], true
}

// BestAsk returns the lowest ask, if any.
func (b *BookEvent) BestAsk() (Level, bool) {
	if len(b.Asks) == 0 {
		return Level{}, false
	}
	return b.Asks[0], true
}

// PriceChange is one changed level of a price_change event.
type PriceChange struct {
	AssetID string
	Price   decimal.Decimal
	// Size is the new aggregate size at Price, not a delta; zero removes
	// the level.
	Size decimal.Decimal
	// Side is BUY for the bid ladder, SELL for the ask ladder.
	Side Side
	Hash string
	// BestBid and BestAsk are the token's top of book after the change;
	// the spec makes them optional (absent in legacy frames).
	BestBid decimal.NullDecimal
	BestAsk decimal.NullDecimal
}

// PriceChangeEvent lists the levels one book mutation touched. One frame
// is per market and may carry entries for both of its tokens.
type PriceChangeEvent struct {
	Market    string
	Changes   []PriceChange
	Timestamp time.Time
}

// EventType implements Event.
func (*PriceChangeEvent) EventType() string { return "price_change" }

// LastTradePriceEvent reports a match: the price of the level hit, the
// taker's size and side.
type LastTradePriceEvent struct {
	AssetID         string
	Market          string
	Price           decimal.Decimal
	Size            decimal.Decimal
	Side            Side // the taker's
	FeeRateBps      decimal.Decimal
	Timestamp       time.Time
	TransactionHash string
}

// EventType implements Event.
func (*LastTradePriceEvent) EventType() string { return "last_trade_price" }

// TickSizeChangeEvent reports a token's new minimum tick.
type TickSizeChangeEvent struct {
	AssetID     string
	Market      string
	OldTickSize decimal.Decimal
	NewTickSize decimal.Decimal
	Timestamp   time.Time
}

// EventType implements Event.
func (*TickSizeChangeEvent) EventType() string { return "tick_size_change" }

// BestBidAskEvent reports a new top of book (custom feature).
type BestBidAskEvent struct {
	AssetID   string
	Market    string
	BestBid   decimal.Decimal
	BestAsk   decimal.Decimal
	Spread    decimal.Decimal
	Timestamp time.Time
}

// EventType implements Event.
func (*BestBidAskEvent) EventType() string { return "best_bid_ask" }

// EventMessage is the event a new or resolved market belongs to.
type EventMessage struct {
	ID          string `json:"id"`
	Ticker      string `json:"ticker"`
	Slug        string `json:"slug"`
	Title       string `json:"title"`
	Description string `json:"description"`
}

// NewMarketEvent announces a market (custom feature; observed for all
// markets, not only subscribed ones).
type NewMarketEvent struct {
	ID                    string // Gamma market id
	Question              string
	Market                string // condition id
	Slug                  string
	Description           string
	AssetIDs              []string
	Outcomes              []string
	EventMessage          *EventMessage
	Tags                  []string
	Active                bool
	OrderPriceMinTickSize decimal.Decimal
	GroupItemTitle        string
	Timestamp             time.Time
}

// EventType implements Event.
func (*NewMarketEvent) EventType() string { return "new_market" }

// MarketResolvedEvent announces a resolution (custom feature).
type MarketResolvedEvent struct {
	ID             string
	Market         string
	AssetIDs       []string
	WinningAssetID string
	WinningOutcome string
	EventMessage   *EventMessage
	Tags           []string
	Timestamp      time.Time
}

// EventType implements Event.
func (*MarketResolvedEvent) EventType() string { return "market_resolved" }

// OrderEventType is the sub-type of an order event.
type OrderEventType string

// Order event sub-types: an order rests, part of it matches, it leaves the
// book unfilled.
const (
	OrderPlacement    OrderEventType = "PLACEMENT"
	OrderUpdate       OrderEventType = "UPDATE"
	OrderCancellation OrderEventType = "CANCELLATION"
)

// OrderEvent is a change of one of the key's orders (user channel).
type OrderEvent struct {
	Type         OrderEventType
	ID           string // order hash
	Owner        string // API key
	OrderOwner   string
	Market       string
	AssetID      string
	Side         Side
	Outcome      string
	OriginalSize decimal.Decimal
	// SizeMatched is zero when the venue sends "" (an FOK kill).
	SizeMatched     decimal.Decimal
	Price           decimal.Decimal
	AssociateTrades []string
	CreatedAt       time.Time
	Expiration      time.Time // zero when none
	OrderType       string    // GTC, GTD, FOK, FAK
	// Status is LIVE, MATCHED or CANCELED; an FOK kill carries the
	// venue's whole message ("CANCELED_order couldn't be fully filled…").
	Status       string
	MakerAddress string
	Timestamp    time.Time
	// Backfill marks an event synthesised from REST after a reconnect.
	Backfill bool
}

// EventType implements Event.
func (*OrderEvent) EventType() string { return "order" }

// TradeStatus is a trade's settlement state.
type TradeStatus string

// Trade states: MATCHED → MINED → CONFIRMED, or MATCHED → RETRYING →
// MINED | FAILED. CONFIRMED and FAILED are terminal.
const (
	TradeMatched   TradeStatus = "MATCHED"
	TradeMined     TradeStatus = "MINED"
	TradeConfirmed TradeStatus = "CONFIRMED"
	TradeRetrying  TradeStatus = "RETRYING"
	TradeFailed    TradeStatus = "FAILED"
)

// Terminal reports whether no later status follows.
func (s TradeStatus) Terminal() bool { return s == TradeConfirmed || s == TradeFailed }

// MakerOrder is a maker's part of a trade.
type MakerOrder struct {
	OrderID       string
	Owner         string
	MakerAddress  string
	MatchedAmount decimal.Decimal
	Price         decimal.Decimal
	FeeRateBps    decimal.Decimal
	AssetID       string
	Outcome       string
	Side          Side
}

// TradeEvent is a trade of the key as taker or maker, re-sent with the same
// ID at each status change. Side, Size and Price are the taker's; a maker
// finds its fill in MakerOrders.
type TradeEvent struct {
	ID              string
	TakerOrderID    string
	Market          string
	AssetID         string
	Side            Side
	Size            decimal.Decimal
	Price           decimal.Decimal
	FeeRateBps      decimal.Decimal
	Status          TradeStatus
	MatchTime       time.Time
	LastUpdate      time.Time
	Outcome         string
	Owner           string
	TradeOwner      string
	MakerAddress    string
	TransactionHash string
	BucketIndex     int
	MakerOrders     []MakerOrder
	TraderSide      string // TAKER or MAKER: the receiving key's role
	Timestamp       time.Time
	// Backfill marks an event synthesised from REST after a reconnect.
	Backfill bool
}

// EventType implements Event.
func (*TradeEvent) EventType() string { return "trade" }
