package clob

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"math/big"
	"sort"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/network"
)

// gtdSecurityMargin is the venue's one-minute threshold on GTD expirations:
// an order expiring sooner is rejected.
const gtdSecurityMargin = 60 * time.Second

// MinMarketBuy is the venue's minimum notional of a marketable BUY.
var MinMarketBuy = decimal.NewFromInt(1)

// Trader builds, signs and posts orders for one wallet.
type Trader struct {
	// Client must carry the wallet's L2 credentials (Client.WithCreds).
	Client *Client
	// Network selects the chain id and exchanges of the signing domain.
	Network network.Network
	// Signer is the EOA that signs (the key never leaves it).
	Signer OrderSigner
	// SignatureType is the wallet kind (0 EOA, 1 proxy, 2 Safe, 3 deposit wallet).
	SignatureType SignatureType
	// Funder is the maker (proxy, Safe or deposit wallet); zero means the
	// signer's own address.
	Funder common.Address
	// Builder is the optional builder code signed into every order.
	Builder [32]byte
	// Now and Salt are the clock and salt source (defaults: time.Now and a
	// random 53-bit salt); tests pin them.
	Now  func() time.Time
	Salt func() uint64
}

// LimitOrderArgs describe a resting (GTC/GTD) order.
type LimitOrderArgs struct {
	TokenID string
	Side    Side
	Price   decimal.Decimal
	Size    decimal.Decimal // shares
	// OrderType is GTC (default) or GTD.
	OrderType OrderType
	// Expiration is required for GTD and must be more than a minute ahead.
	Expiration time.Time
	PostOnly   bool
	Metadata   [32]byte
}

// MarketOrderArgs describe an immediately executed order.
type MarketOrderArgs struct {
	TokenID string
	Side    Side
	// Amount is collateral to spend for a BUY, shares to sell for a SELL.
	Amount decimal.Decimal
	// OrderType is FOK (default) or FAK.
	OrderType OrderType
	// LimitPrice, when non-zero, bounds the execution: levels worse than it
	// are not used (max price for BUY, min price for SELL).
	LimitPrice decimal.Decimal
	Metadata   [32]byte
}

// Placed is the outcome of a successful post.
type Placed struct {
	OrderID  common.Hash
	Order    Order
	Price    decimal.Decimal
	Response *OrderResponse
}

func (t *Trader) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

// NewSalt returns a random salt below 2^53 (a JSON number every client can
// represent exactly).
func NewSalt() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return binary.BigEndian.Uint64(b[:]) & (1<<53 - 1)
}

func (t *Trader) salt() uint64 {
	if t.Salt != nil {
		return t.Salt()
	}
	return NewSalt()
}

func (t *Trader) maker() common.Address {
	if t.Funder != (common.Address{}) {
		return t.Funder
	}
	return t.Signer.Address()
}

// sign assembles and signs an order with the given amounts.
func (t *Trader) sign(ctx context.Context, tokenID string, side Side, makerAmt, takerAmt *big.Int, exp uint64, meta [32]byte, negRisk bool) (Order, EIP712Domain, error) {
	tok, ok := parseTokenID(tokenID)
	if !ok {
		return Order{}, EIP712Domain{}, venue.Ef(venue.Invalid, "invalid token id %q", tokenID).WithCode("invalid_token_id")
	}
	signer := t.Signer.Address()
	if t.SignatureType == SigPoly1271 {
		signer = t.maker()
	}
	o := Order{
		Salt: t.salt(), Maker: t.maker(), Signer: signer, TokenID: tok,
		MakerAmount: makerAmt, TakerAmount: takerAmt, Side: side, SignatureType: t.SignatureType,
		Timestamp: uint64(t.now().UnixMilli()), Expiration: exp, Metadata: meta, Builder: t.Builder,
	}
	d := NetworkDomain(t.Network, negRisk)
	if err := SignOrderWith(ctx, &o, t.Signer, d); err != nil {
		return Order{}, EIP712Domain{}, err
	}
	return o, d, nil
}

// marketChanged reports whether a post failure can be explained by stale
// cached market parameters (tick size moved, or neg-risk — and with it the
// verifying exchange — differs), in which case one refetch and rebuild is
// worthwhile. Anything else is final.
func marketChanged(err error) bool {
	switch venue.CodeOf(err) {
	case "invalid_tick_size", "invalid_signature":
		return true
	}
	return false
}

// PlaceLimitOrder validates, builds, signs and posts a GTC/GTD order. If the
// venue rejects it for a tick size or signature-domain reason, the cached
// market info is dropped and, if it changed, the order is rebuilt and posted
// once more (the first attempt was definitively rejected, so this cannot
// duplicate it).
func (t *Trader) PlaceLimitOrder(ctx context.Context, a LimitOrderArgs) (*Placed, error) {
	a, exp, err := t.limitArgs(a)
	if err != nil {
		return nil, err
	}
	info, err := t.Client.MarketInfo(ctx, a.TokenID)
	if err != nil {
		return nil, err
	}
	p, err := t.placeLimit(ctx, a, exp, info)
	if err == nil || !marketChanged(err) {
		return p, err
	}
	t.Client.InvalidateMarketInfo(a.TokenID)
	info2, ierr := t.Client.MarketInfo(ctx, a.TokenID)
	if ierr != nil || info2.TickSize == info.TickSize && info2.NegRisk == info.NegRisk {
		return nil, err
	}
	return t.placeLimit(ctx, a, exp, info2)
}

// limitArgs defaults and checks the type of a resting order and returns
// its expiration (unix seconds; 0 for GTC).
func (t *Trader) limitArgs(a LimitOrderArgs) (LimitOrderArgs, uint64, error) {
	if a.OrderType == "" {
		a.OrderType = GTC
	}
	if a.OrderType != GTC && a.OrderType != GTD {
		return a, 0, venue.E(venue.Invalid, "limit orders are GTC or GTD").WithCode("invalid_order_type")
	}
	if a.OrderType != GTD {
		return a, 0, nil
	}
	if a.Expiration.Before(t.now().Add(gtdSecurityMargin)) {
		return a, 0, venue.E(venue.Invalid, "invalid expiration: a GTD order must expire more than a minute from now").WithCode("invalid_expiration")
	}
	return a, uint64(a.Expiration.Unix()), nil
}

// Built is a signed order ready to post, with what identifies it: the
// order hash (the venue's order id) under the domain it was signed for.
// It holds no secret, so it may be stored and posted again later; posting
// the same Built twice is deduplicated by the venue by its hash.
type Built struct {
	Request PostOrderRequest
	Domain  EIP712Domain
	Hash    common.Hash
	// Price is the price the order was built at (the limit price, or for
	// a market order the book level it was priced from).
	Price decimal.Decimal
	// NegRisk is the market's neg-risk flag the domain was chosen by.
	NegRisk bool
}

// BuildLimitOrder validates, builds and signs a GTC/GTD order without
// posting it (see PlaceLimitOrder for the checks).
func (t *Trader) BuildLimitOrder(ctx context.Context, a LimitOrderArgs) (*Built, error) {
	a, exp, err := t.limitArgs(a)
	if err != nil {
		return nil, err
	}
	info, err := t.Client.MarketInfo(ctx, a.TokenID)
	if err != nil {
		return nil, err
	}
	return t.buildLimit(ctx, a, exp, info)
}

// BuildMarketableAt signs a FOK/FAK order for size shares at the caller's
// limit price (which must be on the market's tick) without walking the
// book: it executes at that price or better, entirely (FOK) or as far as
// the book allows (FAK).
func (t *Trader) BuildMarketableAt(ctx context.Context, tokenID string, side Side, price, size decimal.Decimal, ot OrderType) (*Built, error) {
	if !ot.Marketable() {
		return nil, venue.E(venue.Invalid, "marketable orders are FOK or FAK").WithCode("invalid_order_type")
	}
	info, err := t.Client.MarketInfo(ctx, tokenID)
	if err != nil {
		return nil, err
	}
	if err := ValidatePrice(price, info.TickSize); err != nil {
		return nil, err
	}
	if !OnTick(price, info.TickSize) {
		return nil, venue.Ef(venue.Invalid, "price (%s) breaks minimum tick size rule: %s", price.String(), string(info.TickSize)).WithCode("invalid_tick_size")
	}
	shares := size.RoundFloor(2)
	if shares.Sign() <= 0 {
		return nil, venue.Ef(venue.Invalid, "invalid size (%s): must be at least 0.01 shares", size.String()).WithCode("invalid_size")
	}
	if side == Sell && !info.MinOrderSize.IsZero() {
		if err := ValidateMinSize(shares, info.MinOrderSize); err != nil {
			return nil, err
		}
	}
	// A BUY spends collateral: amount = shares × price, floored to the
	// cent (the venue's precision for the maker leg); a SELL sells shares.
	amount := shares
	if side == Buy {
		amount = shares.Mul(price).RoundFloor(2)
		if amount.LessThan(MinMarketBuy) {
			return nil, venue.Ef(venue.Invalid, "invalid amount for a marketable BUY order ($%s), min size: $1", amount.String()).WithCode("below_min_size")
		}
	}
	maker, taker, err := MarketableAmounts(side, amount, price, info.TickSize)
	if err != nil {
		return nil, err
	}
	return t.signBuilt(ctx, tokenID, side, maker, taker, 0, [32]byte{}, info.NegRisk, PostOrderRequest{OrderType: ot}, price)
}

// marketArgs defaults and checks a market order's type and amount.
func marketArgs(a MarketOrderArgs) (MarketOrderArgs, error) {
	if a.OrderType == "" {
		a.OrderType = FOK
	}
	if !a.OrderType.Marketable() {
		return a, venue.E(venue.Invalid, "market orders are FOK or FAK").WithCode("invalid_order_type")
	}
	if a.Amount.Sign() <= 0 {
		return a, venue.E(venue.Invalid, "amount must be positive").WithCode("invalid_amount")
	}
	if a.Side == Buy && a.Amount.LessThan(MinMarketBuy) {
		return a, venue.Ef(venue.Invalid, "invalid amount for a marketable BUY order ($%s), min size: $1", a.Amount.String()).WithCode("below_min_size")
	}
	return a, nil
}

// BuildMarketOrder prices a marketable order from the current book and
// signs it without posting (see PlaceMarketOrder).
func (t *Trader) BuildMarketOrder(ctx context.Context, a MarketOrderArgs) (*Built, error) {
	a, err := marketArgs(a)
	if err != nil {
		return nil, err
	}
	return t.buildMarket(ctx, a, nil, nil)
}

// Post posts a built order. Like Client.PostOrder it is never retried:
// no answer is an unknown_outcome error carrying b.Hash.
func (t *Trader) Post(ctx context.Context, b *Built) (*Placed, error) {
	return t.post(ctx, b.Request, b.Domain, b.Price)
}

// MarketChanged reports whether a post failed because the market's tick
// size or neg-risk flag (and with it the signing domain) changed since the
// order was built: the order was definitively rejected and should be
// rebuilt after Client.InvalidateMarketInfo.
func MarketChanged(err error) bool { return marketChanged(err) }

func (t *Trader) signBuilt(ctx context.Context, tokenID string, side Side, maker, taker *big.Int, exp uint64, meta [32]byte, negRisk bool, req PostOrderRequest, price decimal.Decimal) (*Built, error) {
	o, d, err := t.sign(ctx, tokenID, side, maker, taker, exp, meta, negRisk)
	if err != nil {
		return nil, err
	}
	hash, err := OrderHash(o, d)
	if err != nil {
		return nil, err
	}
	req.Order = o
	return &Built{Request: req, Domain: d, Hash: hash, Price: price, NegRisk: negRisk}, nil
}

func (t *Trader) placeLimit(ctx context.Context, a LimitOrderArgs, exp uint64, info MarketInfo) (*Placed, error) {
	b, err := t.buildLimit(ctx, a, exp, info)
	if err != nil {
		return nil, err
	}
	return t.Post(ctx, b)
}

func (t *Trader) buildLimit(ctx context.Context, a LimitOrderArgs, exp uint64, info MarketInfo) (*Built, error) {
	// Unlike the official client, never round a caller's limit price to the
	// tick: a BUY at 0.55 silently becoming 0.6 is not what was asked.
	if err := ValidatePrice(a.Price, info.TickSize); err != nil {
		return nil, err
	}
	if !OnTick(a.Price, info.TickSize) {
		return nil, venue.Ef(venue.Invalid, "price (%s) breaks minimum tick size rule: %s", a.Price.String(), string(info.TickSize)).WithCode("invalid_tick_size")
	}
	amt, err := ComputeLimitAmounts(a.Side, a.Price, a.Size, info.TickSize)
	if err != nil {
		return nil, err
	}
	if !info.MinOrderSize.IsZero() {
		if err := ValidateMinSize(amt.Shares, info.MinOrderSize); err != nil {
			return nil, err
		}
	}
	return t.signBuilt(ctx, a.TokenID, a.Side, amt.Maker, amt.Taker, exp, a.Metadata, info.NegRisk,
		PostOrderRequest{PostOnly: a.PostOnly, OrderType: a.OrderType}, amt.Price)
}

func (t *Trader) post(ctx context.Context, req PostOrderRequest, d EIP712Domain, price decimal.Decimal) (*Placed, error) {
	hash, err := OrderHash(req.Order, d)
	if err != nil {
		return nil, err
	}
	resp, err := t.Client.PostOrder(ctx, req, d)
	if err != nil {
		return nil, err
	}
	return &Placed{OrderID: hash, Order: req.Order, Price: price, Response: resp}, nil
}

// MarketPrice walks the book as the official client does and returns the
// price of the level at which the cumulative size covers amount (BUY:
// collateral, Σ size·price over asks; SELL: shares, Σ size over bids),
// best level first. When the book cannot cover the amount, FOK fails with
// code no_match and FAK uses the worst level reached. limit (non-zero)
// excludes levels worse than it.
func MarketPrice(b *OrderBook, side Side, amount decimal.Decimal, ot OrderType, limit decimal.Decimal) (decimal.Decimal, error) {
	levels := append([]PriceLevel(nil), b.Asks...)
	if side == Sell {
		levels = append([]PriceLevel(nil), b.Bids...)
	}
	// Best first, whatever order the server used.
	sort.SliceStable(levels, func(i, j int) bool {
		if side == Buy {
			return levels[i].Price.LessThan(levels[j].Price)
		}
		return levels[i].Price.GreaterThan(levels[j].Price)
	})
	if !limit.IsZero() {
		n := 0
		for _, l := range levels {
			if side == Buy && l.Price.GreaterThan(limit) || side == Sell && l.Price.LessThan(limit) {
				break
			}
			n++
		}
		levels = levels[:n]
	}
	noMatch := venue.E(venue.Rejected, "no match").WithCode("no_match")
	if len(levels) == 0 {
		return decimal.Zero, noMatch
	}
	sum := decimal.Zero
	for _, l := range levels {
		if side == Buy {
			sum = sum.Add(l.Size.Mul(l.Price))
		} else {
			sum = sum.Add(l.Size)
		}
		if sum.GreaterThanOrEqual(amount) {
			return l.Price, nil
		}
	}
	if ot == FAK {
		return levels[len(levels)-1].Price, nil
	}
	return decimal.Zero, noMatch
}

// PlaceMarketOrder prices a marketable order from the current book, builds
// amounts that satisfy the venue's FOK/FAK precision, signs and posts it.
func (t *Trader) PlaceMarketOrder(ctx context.Context, a MarketOrderArgs) (*Placed, error) {
	a, err := marketArgs(a)
	if err != nil {
		return nil, err
	}
	var used marketParams
	p, err := t.placeMarket(ctx, a, nil, &used)
	if err == nil || !marketChanged(err) {
		return p, err
	}
	// The book fetch refreshes tick/neg-risk; rebuild only if they moved.
	t.Client.InvalidateMarketInfo(a.TokenID)
	p, err2 := t.placeMarket(ctx, a, &used, nil)
	if err2 == errMarketUnchanged {
		return nil, err
	}
	return p, err2
}

// marketParams are the market parameters an order was built with.
type marketParams struct {
	tick    TickSize
	negRisk bool
}

var errMarketUnchanged = venue.E(venue.Internal, "market parameters unchanged")

// placeMarket builds and posts a market order. With prev set it gives up
// (errMarketUnchanged) when the book shows the same parameters as prev;
// with used set it records the parameters it built with.
func (t *Trader) placeMarket(ctx context.Context, a MarketOrderArgs, prev, used *marketParams) (*Placed, error) {
	b, err := t.buildMarket(ctx, a, prev, used)
	if err != nil {
		return nil, err
	}
	return t.Post(ctx, b)
}

func (t *Trader) buildMarket(ctx context.Context, a MarketOrderArgs, prev, used *marketParams) (*Built, error) {
	book, err := t.Client.OrderBook(ctx, a.TokenID)
	if err != nil {
		return nil, err
	}
	tick := book.TickSize
	if !tick.Valid() {
		if tick, err = t.Client.TickSize(ctx, a.TokenID); err != nil {
			return nil, err
		}
	}
	mp := marketParams{tick: tick, negRisk: book.NegRisk}
	if prev != nil && *prev == mp {
		return nil, errMarketUnchanged
	}
	if used != nil {
		*used = mp
	}
	price, err := MarketPrice(book, a.Side, a.Amount, a.OrderType, a.LimitPrice)
	if err != nil {
		return nil, err
	}
	if a.Side == Sell && !book.MinOrderSize.IsZero() {
		if err := ValidateMinSize(a.Amount.RoundFloor(2), book.MinOrderSize.Decimal); err != nil {
			return nil, err
		}
	}
	maker, taker, err := MarketableAmounts(a.Side, a.Amount, price, tick)
	if err != nil {
		return nil, err
	}
	return t.signBuilt(ctx, a.TokenID, a.Side, maker, taker, 0, a.Metadata, book.NegRisk, PostOrderRequest{OrderType: a.OrderType}, price)
}

// parseTokenID parses a decimal uint256 token id.
func parseTokenID(s string) (*big.Int, bool) {
	x, ok := new(big.Int).SetString(s, 10)
	if !ok || x.Sign() < 0 || x.BitLen() > 256 {
		return nil, false
	}
	return x, true
}
