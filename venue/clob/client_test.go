package clob

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/venue"
)

func hardhatSigner(t testing.TB) *KeySigner {
	key, err := crypto.HexToECDSA("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
	require.NoError(t, err)
	return NewKeySigner(key)
}

func TestPublicEndpoints(t *testing.T) {
	s := hardhatSigner(t)
	f := newFakeVenue(t, s.Address())
	c := f.client(time.Second)
	ctx := context.Background()

	require.NoError(t, c.Ok(ctx))
	v, err := c.Version(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, v)
	ts, err := c.ServerTime(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(1767225600), ts)

	b, err := c.OrderBook(ctx, fakeToken)
	require.NoError(t, err)
	require.Len(t, b.Asks, 3)
	require.Equal(t, Tick001, b.TickSize)
	require.True(t, b.MinOrderSize.Equal(d("5")))
	require.True(t, b.LastTradePrice.IsZero())

	p, err := c.Price(ctx, fakeToken, Buy)
	require.NoError(t, err)
	require.True(t, p.Equal(d("0.45")))
	m, err := c.Midpoint(ctx, fakeToken)
	require.NoError(t, err)
	require.True(t, m.Equal(d("0.5")))

	// Tick and neg-risk come from cache after the book fetch.
	tick, err := c.TickSize(ctx, fakeToken)
	require.NoError(t, err)
	require.Equal(t, Tick001, tick)
	require.Equal(t, 0, f.count("GET /tick-size"))
	c.InvalidateMarketInfo(fakeToken)
	tick, err = c.TickSize(ctx, fakeToken)
	require.NoError(t, err)
	require.Equal(t, Tick001, tick)
	require.Equal(t, 1, f.count("GET /tick-size"))
	neg, err := c.NegRisk(ctx, fakeToken)
	require.NoError(t, err)
	require.False(t, neg)
	require.Equal(t, 1, f.count("GET /neg-risk"))

	_, err = c.OrderBook(ctx, "999")
	require.Equal(t, venue.NotFound, venue.CategoryOf(err))

	info, err := c.MarketInfo(ctx, fakeToken2)
	require.NoError(t, err)
	require.Equal(t, Tick001, info.TickSize)
	require.True(t, info.MinOrderSize.Equal(d("5")))
}

func TestAPIKeys(t *testing.T) {
	s := hardhatSigner(t)
	f := newFakeVenue(t, s.Address())
	c := f.client(time.Second)
	ctx := context.Background()
	creds, err := c.CreateOrDeriveAPIKey(ctx, s, 0)
	require.NoError(t, err)
	require.Equal(t, f.creds, creds)

	// Creation refused ("already exists") falls back to derive.
	f.fail["POST /auth/api-key"] = func(w http.ResponseWriter) { venueErr(w, 400, "Could not create api key") }
	creds, err = c.CreateOrDeriveAPIKey(ctx, s, 0)
	require.NoError(t, err)
	require.Equal(t, f.creds.Key, creds.Key)
	require.Equal(t, 1, f.count("GET /auth/derive-api-key"))

	// A different key is refused by the venue's L1 check.
	other, _ := crypto.GenerateKey()
	_, err = c.CreateAPIKey(ctx, NewKeySigner(other), 0)
	require.Error(t, err)
}

func TestPlaceLimitOrder(t *testing.T) {
	s := hardhatSigner(t)
	f := newFakeVenue(t, s.Address())
	tr := f.trader(s)
	ctx := context.Background()

	p, err := tr.PlaceLimitOrder(ctx, LimitOrderArgs{TokenID: fakeToken, Side: Buy, Price: d("0.5"), Size: d("10")})
	require.NoError(t, err)
	require.Equal(t, p.OrderID.Hex(), p.Response.OrderID)
	require.Equal(t, "5000000", p.Order.MakerAmount.String())
	require.Len(t, f.posted, 1)
	require.Equal(t, f.creds.Key, f.posted[0].Owner)

	// Local validation, before any post.
	_, err = tr.PlaceLimitOrder(ctx, LimitOrderArgs{TokenID: fakeToken, Side: Buy, Price: d("0.995"), Size: d("10")})
	require.Equal(t, "invalid_price", venue.CodeOf(err))
	_, err = tr.PlaceLimitOrder(ctx, LimitOrderArgs{TokenID: fakeToken, Side: Buy, Price: d("0.5"), Size: d("4.99")})
	require.Equal(t, "below_min_size", venue.CodeOf(err))
	_, err = tr.PlaceLimitOrder(ctx, LimitOrderArgs{TokenID: fakeToken, Side: Buy, Price: d("0.5"), Size: d("10"), OrderType: GTD,
		Expiration: time.UnixMilli(1767225600000).Add(30 * time.Second)})
	require.Equal(t, "invalid_expiration", venue.CodeOf(err))
	require.Len(t, f.posted, 1)

	// GTD with a valid expiration carries it unsigned in the body.
	p, err = tr.PlaceLimitOrder(ctx, LimitOrderArgs{TokenID: fakeToken, Side: Sell, Price: d("0.61"), Size: d("10"), OrderType: GTD,
		Expiration: time.UnixMilli(1767225600000).Add(time.Hour)})
	require.NoError(t, err)
	require.Equal(t, uint64(1767229200), p.Order.Expiration)
}

func TestStaleMarketInfoRefetchedOnce(t *testing.T) {
	s := hardhatSigner(t)
	f := newFakeVenue(t, s.Address())
	tr := f.trader(s)
	ctx := context.Background()

	_, err := tr.Client.MarketInfo(ctx, fakeToken) // cache: tick 0.01, not neg-risk
	require.NoError(t, err)

	// The market becomes neg-risk: orders must now be signed for the
	// neg-risk exchange, and the venue reports an invalid signature.
	f.mu.Lock()
	f.neg = true
	f.mu.Unlock()
	p, err := tr.PlaceLimitOrder(ctx, LimitOrderArgs{TokenID: fakeToken, Side: Buy, Price: d("0.5"), Size: d("10")})
	require.NoError(t, err)
	require.Equal(t, 2, f.count("POST /order"))
	require.Equal(t, 2, f.count("GET /clob-markets/"+fakeCondition))
	require.Equal(t, p.OrderID.Hex(), p.Response.OrderID)

	// Tick size coarsens to 0.1: 0.55 is off-tick → one refetch, then a
	// local validation error (no third post).
	f.mu.Lock()
	f.tick = Tick01
	f.mu.Unlock()
	_, err = tr.PlaceLimitOrder(ctx, LimitOrderArgs{TokenID: fakeToken, Side: Buy, Price: d("0.55"), Size: d("10")})
	require.Error(t, err)
	require.Equal(t, "invalid_tick_size", venue.CodeOf(err))
	require.Equal(t, 3, f.count("POST /order"))

	// A rejection that is not about market parameters is not retried.
	f.fail["POST /order"] = func(w http.ResponseWriter) { venueErr(w, 400, "not enough balance / allowance") }
	_, err = tr.PlaceLimitOrder(ctx, LimitOrderArgs{TokenID: fakeToken, Side: Sell, Price: d("0.6"), Size: d("10")})
	require.Equal(t, "insufficient_balance_or_allowance", venue.CodeOf(err))
	e, _ := venue.As(err)
	require.Equal(t, venue.AssetConditional, e.Asset, "a SELL lacks the outcome tokens")
	require.Equal(t, 4, f.count("POST /order"))
}

func TestPostOrderNeverRetried(t *testing.T) {
	s := hardhatSigner(t)
	cases := map[string]func(w http.ResponseWriter){
		"502": func(w http.ResponseWriter) { w.WriteHeader(http.StatusBadGateway) },
		"drop": func(w http.ResponseWriter) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.Close()
			}
		},
		"garbage": func(w http.ResponseWriter) { w.WriteHeader(200); _, _ = w.Write([]byte("<html>")) },
	}
	for name, fail := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFakeVenue(t, s.Address())
			tr := f.trader(s)
			f.fail["POST /order"] = fail
			_, err := tr.PlaceLimitOrder(context.Background(), LimitOrderArgs{TokenID: fakeToken, Side: Buy, Price: d("0.5"), Size: d("10")})
			require.Error(t, err)
			require.Equal(t, venue.Unavailable, venue.CategoryOf(err))
			require.Equal(t, "unknown_outcome", venue.CodeOf(err))
			h, ok := UnknownOutcomeHash(err)
			require.True(t, ok)
			require.Contains(t, venue.MessageOf(err), h.Hex())
			require.Equal(t, 1, f.count("POST /order"))
		})
	}
	t.Run("timeout", func(t *testing.T) {
		f := newFakeVenue(t, s.Address())
		tr := f.trader(s)
		tr.Client = NewClient(Config{BaseURL: f.srv.URL, ChainID: f.net.ChainID, Timeout: 100 * time.Millisecond}).WithCreds(f.creds, s.Address())
		release := make(chan struct{})
		defer close(release)
		f.fail["POST /order"] = func(w http.ResponseWriter) { <-release }
		_, err := tr.PlaceLimitOrder(context.Background(), LimitOrderArgs{TokenID: fakeToken, Side: Buy, Price: d("0.5"), Size: d("10")})
		require.Equal(t, "unknown_outcome", venue.CodeOf(err))
		require.Equal(t, 1, f.count("POST /order"))
	})
	t.Run("not sent", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := l.Addr().String()
		require.NoError(t, l.Close())
		c := NewClient(Config{BaseURL: "http://" + addr, ChainID: 80002}).WithCreds(Creds{Key: "k", Secret: "AAAA", Passphrase: "p"}, s.Address())
		o, _, dom := testOrder(t, SigEOA)
		_, err = c.PostOrder(context.Background(), PostOrderRequest{Order: o, OrderType: GTC}, dom)
		require.Equal(t, "venue_unreachable", venue.CodeOf(err))
	})
}

func TestGetRetriedOn5xx(t *testing.T) {
	s := hardhatSigner(t)
	f := newFakeVenue(t, s.Address())
	c := f.client(time.Second)
	f.fail["GET /book"] = func(w http.ResponseWriter) { venueErr(w, 500, "internal") }
	_, err := c.OrderBook(context.Background(), fakeToken)
	require.NoError(t, err)
	require.Equal(t, 2, f.count("GET /book"))

	// Cancels are idempotent and retried too.
	tr := f.trader(s)
	f.fail["DELETE /order"] = func(w http.ResponseWriter) { w.WriteHeader(http.StatusBadGateway) }
	r, err := tr.Client.CancelOrder(context.Background(), "0xabc")
	require.NoError(t, err)
	require.Equal(t, []string{"0xabc"}, r.Canceled)
	require.Equal(t, 2, f.count("DELETE /order"))

	// 4xx is final.
	f.fail["GET /book"] = func(w http.ResponseWriter) { venueErr(w, 400, "Invalid token id") }
	_, err = c.OrderBook(context.Background(), fakeToken)
	require.Equal(t, venue.Rejected, venue.CategoryOf(err))
	require.Equal(t, 3, f.count("GET /book"))

	// 429 is RateLimited with Retry-After, not retried.
	f.fail["GET /book"] = func(w http.ResponseWriter) {
		w.Header().Set("Retry-After", "7")
		venueErr(w, 429, "Too Many Requests")
	}
	_, err = c.OrderBook(context.Background(), fakeToken)
	e, ok := venue.As(err)
	require.True(t, ok)
	require.Equal(t, venue.RateLimited, e.Category)
	require.Equal(t, 7, e.RetryAfterSeconds)
	require.Equal(t, 4, f.count("GET /book"))
}

func TestPrivateEndpoints(t *testing.T) {
	s := hardhatSigner(t)
	f := newFakeVenue(t, s.Address())
	tr := f.trader(s)
	c := tr.Client
	ctx := context.Background()

	orders, err := c.GetOpenOrders(ctx, OpenOrderParams{Market: fakeCondition})
	require.NoError(t, err)
	require.Len(t, orders, 2)
	require.Equal(t, "0x02", orders[1].ID)
	require.True(t, orders[1].SizeMatched.Equal(d("1.5")))
	require.Equal(t, int64(1767225601), int64(orders[1].CreatedAt))
	require.Equal(t, 2, f.count("GET /data/orders"))

	_, err = c.GetOrder(ctx, "0xdead")
	require.Equal(t, venue.NotFound, venue.CategoryOf(err))
	f.orders["0xbeef"] = OpenOrder{ID: "0xbeef", Status: "LIVE"}
	o, err := c.GetOrder(ctx, "0xbeef")
	require.NoError(t, err)
	require.Equal(t, "LIVE", o.Status)

	ba, err := c.GetBalanceAllowance(ctx, BalanceAllowanceParams{AssetType: AssetCollateral})
	require.NoError(t, err)
	require.True(t, ba.Balance.Equal(d("1000000")))
	require.Len(t, ba.Allowances, 1)

	_, err = c.CancelAll(ctx)
	require.NoError(t, err)
	cr, err := c.CancelMarketOrders(ctx, fakeCondition, "")
	require.NoError(t, err)
	require.Equal(t, []string{"0x01"}, cr.Canceled)
	hb, err := c.PostHeartbeat(ctx, "")
	require.NoError(t, err)
	require.Equal(t, "hb-1", hb)

	// Batch answers carry per-order errors.
	o1, _, dom := testOrder(t, SigEOA)
	rs, err := c.PostOrders(ctx, []PostOrderRequest{{Order: o1, OrderType: GTC}}, dom)
	require.NoError(t, err)
	require.Len(t, rs, 1)
	require.Equal(t, "insufficient_balance_or_allowance", venue.CodeOf(rs[0].Err(Buy)))

	// Wrong credentials are Unauthorized.
	bad := c.WithCreds(Creds{Key: f.creds.Key, Secret: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", Passphrase: "pp"}, s.Address())
	_, err = bad.GetOpenOrders(ctx, OpenOrderParams{})
	require.Equal(t, venue.Unauthorized, venue.CategoryOf(err))
	// No credentials at all fail locally.
	_, err = f.client(time.Second).CancelAll(ctx)
	require.Equal(t, "no_api_key", venue.CodeOf(err))
}

func TestPlaceMarketOrder(t *testing.T) {
	s := hardhatSigner(t)
	f := newFakeVenue(t, s.Address())
	tr := f.trader(s)
	ctx := context.Background()

	// $10 BUY: asks best-first 0.52×10 ($5.2), 0.55×20 → covered at 0.55.
	p, err := tr.PlaceMarketOrder(ctx, MarketOrderArgs{TokenID: fakeToken, Side: Buy, Amount: d("10")})
	require.NoError(t, err)
	require.True(t, p.Price.Equal(d("0.55")))
	require.Equal(t, "10000000", p.Order.MakerAmount.String())
	require.Equal(t, "18181800", p.Order.TakerAmount.String()) // 18.1818 shares, 4 dp
	require.Equal(t, FOK, f.posted[0].OrderType)

	// More than the book holds: FOK no match (nothing posted); FAK at worst level.
	_, err = tr.PlaceMarketOrder(ctx, MarketOrderArgs{TokenID: fakeToken, Side: Buy, Amount: d("1000")})
	require.Equal(t, "no_match", venue.CodeOf(err))
	p, err = tr.PlaceMarketOrder(ctx, MarketOrderArgs{TokenID: fakeToken, Side: Buy, Amount: d("1000"), OrderType: FAK})
	require.NoError(t, err)
	require.True(t, p.Price.Equal(d("0.6")))

	// SELL 25 shares: bids best-first 0.48×10, 0.45×20 → 0.45.
	p, err = tr.PlaceMarketOrder(ctx, MarketOrderArgs{TokenID: fakeToken, Side: Sell, Amount: d("25")})
	require.NoError(t, err)
	require.True(t, p.Price.Equal(d("0.45")))
	require.Equal(t, "25000000", p.Order.MakerAmount.String())
	require.Equal(t, "11250000", p.Order.TakerAmount.String())

	// A limit price excludes worse levels.
	_, err = tr.PlaceMarketOrder(ctx, MarketOrderArgs{TokenID: fakeToken, Side: Sell, Amount: d("25"), LimitPrice: d("0.46")})
	require.Equal(t, "no_match", venue.CodeOf(err))
	_, err = tr.PlaceMarketOrder(ctx, MarketOrderArgs{TokenID: fakeToken, Side: Buy, Amount: d("0.5")})
	require.Equal(t, "below_min_size", venue.CodeOf(err))
	require.Equal(t, 3, f.count("POST /order"))

	// An invalid-signature rejection with unchanged market parameters is
	// final: no second order is built.
	f.fail["POST /order"] = func(w http.ResponseWriter) { venueErr(w, 400, "invalid signature") }
	_, err = tr.PlaceMarketOrder(ctx, MarketOrderArgs{TokenID: fakeToken, Side: Buy, Amount: d("10")})
	require.Equal(t, "invalid_signature", venue.CodeOf(err))
	require.Equal(t, 4, f.count("POST /order"))

	// If the market turned neg-risk between the book read and the post, the
	// order is rebuilt for the neg-risk exchange once.
	f.fail["POST /order"] = func(w http.ResponseWriter) {
		f.mu.Lock()
		f.neg = true
		f.mu.Unlock()
		venueErr(w, 400, "invalid signature")
	}
	p, err = tr.PlaceMarketOrder(ctx, MarketOrderArgs{TokenID: fakeToken, Side: Buy, Amount: d("10")})
	require.NoError(t, err)
	require.Equal(t, 6, f.count("POST /order"))
	require.Equal(t, p.OrderID.Hex(), p.Response.OrderID)
}

func TestMarketPrice(t *testing.T) {
	book := &OrderBook{
		Asks: []PriceLevel{{d("0.6"), d("100")}, {d("0.55"), d("20")}, {d("0.52"), d("10")}},
		Bids: []PriceLevel{{d("0.4"), d("100")}, {d("0.45"), d("20")}, {d("0.48"), d("10")}},
	}
	cases := []struct {
		side   Side
		amount string
		ot     OrderType
		limit  string
		want   string
		code   string
	}{
		{Buy, "5.2", FOK, "0", "0.52", ""},
		{Buy, "5.21", FOK, "0", "0.55", ""},
		{Buy, "76.2", FOK, "0", "0.6", ""},
		{Buy, "76.21", FOK, "0", "", "no_match"},
		{Buy, "76.21", FAK, "0", "0.6", ""},
		{Buy, "20", FAK, "0.55", "0.55", ""},
		{Sell, "10", FOK, "0", "0.48", ""},
		{Sell, "30", FOK, "0", "0.45", ""},
		{Sell, "131", FOK, "0", "", "no_match"},
		{Sell, "131", FAK, "0.45", "0.45", ""},
	}
	for _, c := range cases {
		got, err := MarketPrice(book, c.side, d(c.amount), c.ot, d(c.limit))
		if c.code != "" {
			require.Equal(t, c.code, venue.CodeOf(err), "%+v", c)
			continue
		}
		require.NoError(t, err, "%+v", c)
		require.True(t, got.Equal(d(c.want)), "%+v got %s", c, got)
	}
	_, err := MarketPrice(&OrderBook{}, Buy, decimal.NewFromInt(1), FAK, decimal.Zero)
	require.Equal(t, "no_match", venue.CodeOf(err))
}

func TestMapVenueError(t *testing.T) {
	sell, buy := Sell, Buy
	cases := []struct {
		status int
		msg    string
		side   *Side
		kind   venue.Category
		code   string
		asset  string
	}{
		{400, "not enough balance / allowance", &sell, venue.Rejected, "insufficient_balance_or_allowance", venue.AssetConditional},
		{400, "not enough balance / allowance", &buy, venue.Rejected, "insufficient_balance_or_allowance", venue.AssetCollateral},
		{400, "invalid signature", nil, venue.Rejected, "invalid_signature", ""},
		{400, "order 0x1 is invalid. Price (0.555) breaks minimum tick size rule: 0.01", nil, venue.Rejected, "invalid_tick_size", ""},
		{400, "order 0x1 is invalid. Size (1) lower than the minimum: 5", nil, venue.Rejected, "below_min_size", ""},
		{403, "Access restricted. Regional restrictions", nil, venue.Forbidden, "geoblocked", ""},
		{503, "Trading is currently disabled. Check polymarket.com for updates", nil, venue.Unavailable, "trading_disabled", ""},
		{503, "Trading is currently cancel-only. New orders are not accepted, but cancels are allowed.", nil, venue.Rejected, "cancel_only", ""},
		{429, "Too Many Requests", nil, venue.RateLimited, "rate_limited", ""},
		{404, "market not found", nil, venue.NotFound, "not_found", ""},
		{400, "Invalid orderID", nil, venue.NotFound, "not_found", ""},
		{400, "order couldn't be fully filled. FOK orders are fully filled or killed.", nil, venue.Rejected, "fok_not_filled", ""},
		{400, "no orders found to match with FAK order. FAK orders are partially filled or killed if no match is found.", nil, venue.Rejected, "fak_no_match", ""},
		{400, "invalid post-only order: order crosses book", nil, venue.Rejected, "post_only_rejected", ""},
		{400, "order 0x1 is invalid. Duplicated.", nil, venue.Conflict, "duplicate_order", ""},
		{400, "invalid amounts, the market buy orders maker amount supports a max accuracy of 2 decimals, taker amount a max of 4 decimals", nil, venue.Rejected, "invalid_amounts", ""},
		{400, "the market is not yet ready to process new orders", nil, venue.Unavailable, "market_not_ready", ""},
		{400, "'0xabc' address in closed only mode", nil, venue.Forbidden, "closed_only", ""},
		{400, "order_version_mismatch", nil, venue.Rejected, "order_version_mismatch", ""},
		{401, "Unauthorized/Invalid api key", nil, venue.Unauthorized, "unauthorized", ""},
		{400, "Invalid order payload", nil, venue.Invalid, "invalid_order_payload", ""},
		{425, "", nil, venue.Unavailable, "engine_restarting", ""},
		{502, "bad gateway", nil, venue.Unavailable, "venue_unavailable", ""},
		{400, "something new", nil, venue.Rejected, "venue_rejected", ""},
	}
	for _, c := range cases {
		t.Run(c.code+"_"+c.msg, func(t *testing.T) {
			e := MapVenueError(c.status, c.msg, 3, c.side)
			require.Equal(t, c.kind, e.Category)
			require.Equal(t, c.code, e.Code)
			require.Equal(t, c.asset, e.Asset)
			require.Equal(t, c.status, e.Status)
		})
	}
}

// TestDuplicate: a duplicate post is recognised by the code the mapping
// gave it, through wrapping, and never by text alone.
func TestDuplicate(t *testing.T) {
	dup := MapVenueError(400, "order 0x1 is invalid. Duplicated.", 0, nil)
	require.True(t, Duplicate(dup))
	require.True(t, Duplicate(fmt.Errorf("post: %w", dup)))
	require.False(t, Duplicate(venue.E(venue.Rejected, "order 0x1 is invalid. Duplicated.").WithCode("venue_rejected")))
	require.False(t, Duplicate(MapVenueError(400, "invalid signature", 0, nil)))
	require.False(t, Duplicate(nil))
}

func TestTraderWalletKinds(t *testing.T) {
	s := hardhatSigner(t)
	f := newFakeVenue(t, s.Address())
	for _, c := range []struct {
		st     SignatureType
		funder string
	}{{SigPolyProxy, "0x365f0CA36Ae1f641E02fE3B7743673da42A13A70"}, {SigGnosisSafe, "0xd93B25cb943D14d0d34FBaF01Fc93a0f8b5F6E47"}, {SigPoly1271, "0xDeaDbeefdEAdbeefdEadbEEFdeadbeEFdEaDbeeF"}} {
		tr := f.trader(s)
		tr.SignatureType = c.st
		tr.Funder = common.HexToAddress(c.funder)
		p, err := tr.PlaceLimitOrder(context.Background(), LimitOrderArgs{TokenID: fakeToken, Side: Buy, Price: d("0.5"), Size: d("10")})
		require.NoError(t, err, "type %d", c.st)
		require.Equal(t, tr.Funder, p.Order.Maker)
		if c.st == SigPoly1271 {
			require.Equal(t, tr.Funder, p.Order.Signer)
			require.Len(t, p.Order.Signature, Poly1271SignatureLen)
		} else {
			require.Equal(t, s.Address(), p.Order.Signer)
		}
		rec, err := RecoverOrderSigner(p.Order, NetworkDomain(f.net, false))
		require.NoError(t, err)
		require.Equal(t, s.Address(), rec)
	}
}

func TestMoreEndpoints(t *testing.T) {
	s := hardhatSigner(t)
	f := newFakeVenue(t, s.Address())
	c := f.trader(s).Client
	ctx := context.Background()

	sp, err := c.Spread(ctx, fakeToken)
	require.NoError(t, err)
	require.True(t, sp.Equal(d("0.04")))
	lt, err := c.LastTradePrice(ctx, fakeToken)
	require.NoError(t, err)
	require.True(t, lt.Price.Equal(d("0.52")))
	require.Equal(t, "BUY", lt.Side)

	books, err := c.OrderBooks(ctx, []BookParams{{TokenID: fakeToken}})
	require.NoError(t, err)
	require.Len(t, books, 1)
	// The batch answer refreshed the cache: no /tick-size or /neg-risk calls.
	tick, err := c.TickSize(ctx, fakeToken)
	require.NoError(t, err)
	require.Equal(t, Tick0001, tick)
	neg, err := c.NegRisk(ctx, fakeToken)
	require.NoError(t, err)
	require.True(t, neg)
	require.Equal(t, 0, f.count("GET /tick-size")+f.count("GET /neg-risk"))

	m, err := c.Market(ctx, fakeCondition)
	require.NoError(t, err)
	require.Len(t, m.Tokens, 2)
	require.True(t, m.Tokens[0].Price.Equal(d("0.515")))
	require.True(t, m.MinimumTickSize.Equal(d("0.01")))

	trades, err := c.GetTrades(ctx, TradeParams{After: 1767225000})
	require.NoError(t, err)
	require.Len(t, trades, 1)
	require.True(t, trades[0].MakerOrders[0].MatchedAmount.Equal(d("10")))
	require.Equal(t, 2, f.count("GET /data/trades"))

	require.NoError(t, c.UpdateBalanceAllowance(ctx, BalanceAllowanceParams{AssetType: AssetConditional, TokenID: fakeToken, SignatureType: SigPolyProxy}))

	creds, err := c.DeriveAPIKey(ctx, s, 0)
	require.NoError(t, err)
	require.Equal(t, f.creds.Key, creds.Key)
}
