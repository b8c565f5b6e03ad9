package e2e

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/sandbox/exchange"
	"github.com/agent-trading/ats/venue/micro"
)

// venueWatch sees what reaches the sandbox venue's order endpoints, on the
// sandbox's own HTTP server (sandbox.Config.Observe): every order posted
// (its maker, signer, API key and the id the venue answered with) and
// every cancel, whoever sent it. Nothing of the service reports to it.
type venueWatch struct {
	mu      sync.Mutex
	posts   []venuePost
	cancels []string // order ids named by a cancel; "*" for cancel-all/market
}

type venuePost struct {
	maker, signer, owner, orderID string
}

// orderWrites are the CLOB endpoints that place or cancel orders.
var orderWrites = map[string]bool{"/clob/order": true, "/clob/orders": true, "/clob/cancel-all": true, "/clob/cancel-market-orders": true}

func (w *venueWatch) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if (r.Method != http.MethodPost && r.Method != http.MethodDelete) || !orderWrites[r.URL.Path] {
			next.ServeHTTP(rw, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		tee := &teeWriter{ResponseWriter: rw}
		next.ServeHTTP(tee, r)
		w.record(r.Method, r.URL.Path, body, tee.buf.Bytes())
	})
}

type wirePost struct {
	Order struct {
		Maker  string `json:"maker"`
		Signer string `json:"signer"`
	} `json:"order"`
	Owner string `json:"owner"`
}

type wireAnswer struct {
	OrderID string `json:"orderID"`
}

func (w *venueWatch) record(method, path string, body, answer []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case method == http.MethodPost && path == "/clob/order":
		var p wirePost
		var a wireAnswer
		_ = json.Unmarshal(body, &p)
		_ = json.Unmarshal(answer, &a)
		w.posts = append(w.posts, venuePost{maker: p.Order.Maker, signer: p.Order.Signer, owner: p.Owner, orderID: a.OrderID})
	case method == http.MethodPost && path == "/clob/orders":
		var ps []wirePost
		var as []wireAnswer
		_ = json.Unmarshal(body, &ps)
		_ = json.Unmarshal(answer, &as)
		for i, p := range ps {
			v := venuePost{maker: p.Order.Maker, signer: p.Order.Signer, owner: p.Owner}
			if i < len(as) {
				v.orderID = as[i].OrderID
			}
			w.posts = append(w.posts, v)
		}
	case path == "/clob/order":
		var c struct {
			OrderID string `json:"orderID"`
		}
		_ = json.Unmarshal(body, &c)
		w.cancels = append(w.cancels, c.OrderID)
	case path == "/clob/orders":
		var ids []string
		_ = json.Unmarshal(body, &ids)
		w.cancels = append(w.cancels, ids...)
	default:
		w.cancels = append(w.cancels, "*")
	}
}

func (w *venueWatch) seen() ([]venuePost, []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]venuePost(nil), w.posts...), append([]string(nil), w.cancels...)
}

// teeWriter keeps a copy of the answer it writes.
type teeWriter struct {
	http.ResponseWriter
	buf bytes.Buffer
}

func (t *teeWriter) Write(b []byte) (int, error) {
	t.buf.Write(b)
	return t.ResponseWriter.Write(b)
}

// serviceTxs are the hashes of the transactions mined on the sandbox chain
// after block from whose sender is not one of the sandbox's own keys (its
// operator, market maker and outside wallets): the transactions of the
// service (or anyone else), read from the chain's blocks.
func (e *tradingEnv) serviceTxs(t testing.TB, from uint64) []string {
	t.Helper()
	ctx := context.Background()
	cl := e.sb.EVM().Client()
	id, err := cl.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	own := map[common.Address]bool{}
	keys := append([]*ecdsa.PrivateKey{e.sb.EVM().Operator(), e.sb.EVM().MarketMaker()}, e.sb.EVM().OutsideWallets()...)
	for _, k := range keys {
		own[crypto.PubkeyToAddress(k.PublicKey)] = true
	}
	head, err := cl.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	signer := types.LatestSignerForChainID(id)
	var out []string
	for n := from + 1; n <= head; n++ {
		b, err := cl.BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range b.Transactions() {
			sender, err := types.Sender(signer, tx)
			if err != nil {
				t.Fatalf("block %d: %v", n, err)
			}
			if !own[sender] {
				out = append(out, tx.Hash().Hex())
			}
		}
	}
	return out
}

func (e *tradingEnv) chainHead(t testing.TB) uint64 {
	t.Helper()
	n, err := e.sb.EVM().Client().BlockNumber(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// publicLevel and publicBook are a book as the sandbox's public API
// (GET /clob/book) answers, read apart from the service's venue client.
type publicLevel struct {
	Price decimal.Decimal `json:"price"`
	Size  decimal.Decimal `json:"size"`
}

type publicBook struct {
	Hash string        `json:"hash"`
	Bids []publicLevel `json:"bids"`
	Asks []publicLevel `json:"asks"`
}

func (e *tradingEnv) publicBook(t testing.TB, token string) publicBook {
	t.Helper()
	resp, err := http.Get(e.sb.URL() + "/clob/book?token_id=" + token)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b publicBook
	if err := json.NewDecoder(resp.Body).Decode(&b); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /clob/book: %d %v", resp.StatusCode, err)
	}
	return b
}

func (b publicBook) same(o publicBook) bool {
	eq := func(x, y []publicLevel) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !x[i].Price.Equal(y[i].Price) || !x[i].Size.Equal(y[i].Size) {
				return false
			}
		}
		return true
	}
	return eq(b.Bids, o.Bids) && eq(b.Asks, o.Asks)
}

// sizeAt is the shares at exactly price on one side of a book.
func sizeAt(side []publicLevel, price decimal.Decimal) decimal.Decimal {
	n := decimal.Zero
	for _, l := range side {
		if l.Price.Equal(price) {
			n = n.Add(l.Size)
		}
	}
	return n
}

// walkAsks is what a marketable BUY of size shares up to limit takes from
// asks, best level first: each level's price and at most its size.
func walkAsks(asks []publicLevel, limit, size decimal.Decimal) []models.Fill {
	asks = append([]publicLevel(nil), asks...)
	sort.SliceStable(asks, func(i, j int) bool { return asks[i].Price.LessThan(asks[j].Price) })
	var out []models.Fill
	left := size
	for _, l := range asks {
		if l.Price.GreaterThan(limit) || !left.IsPositive() {
			break
		}
		take := decimal.Min(left, l.Size)
		out = append(out, models.Fill{PriceMicro: micro.Truncate(l.Price), SizeMicro: micro.Truncate(take)})
		left = left.Sub(take)
	}
	return out
}

// cost is Σ price × size of fills, as the paper balance moves by them.
func cost(fs []models.Fill) int64 {
	var n int64
	for _, f := range fs {
		n += micro.Mul(f.PriceMicro, f.SizeMicro)
	}
	return n
}

// modeOrder is an order answer with its mode.
type modeOrder struct {
	apiOrder
	Mode       string  `json:"mode"`
	StrategyID *string `json:"strategyId"`
}

func (e *tradingEnv) placeOrder(t testing.TB, tr trader, body map[string]any) modeOrder {
	t.Helper()
	status, b := e.call(t, tr.key, "POST", "/orders", body)
	if status != http.StatusOK {
		t.Fatalf("POST /orders %v: %d %s", body, status, b)
	}
	return modeOrderOf(t, b)
}

func modeOrderOf(t testing.TB, b map[string]json.RawMessage) modeOrder {
	t.Helper()
	var d struct {
		Order modeOrder `json:"order"`
	}
	if err := json.Unmarshal(b["data"], &d); err != nil {
		t.Fatalf("data.order: %v in %s", err, b["data"])
	}
	return d.Order
}

func (e *tradingEnv) getOrder(t testing.TB, tr trader, id string) modeOrder {
	t.Helper()
	status, b := e.call(t, tr.key, "GET", "/orders/"+id, nil)
	if status != http.StatusOK {
		t.Fatalf("GET /orders/%s: %d %s", id, status, b)
	}
	return modeOrderOf(t, b)
}

// awaitOrder polls order id (as tr) until ok holds (30 s at most).
func (e *tradingEnv) awaitOrder(t testing.TB, tr trader, id, what string, ok func(modeOrder) bool) modeOrder {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		o := e.getOrder(t, tr, id)
		if ok(o) {
			return o
		}
		if time.Now().After(deadline) {
			t.Fatalf("order %s never %s: %+v", id, what, o)
		}
	}
}

// money reads a decimal member of a GET answer of tr's.
func (e *tradingEnv) money(t testing.TB, tr trader, path, field string) int64 {
	t.Helper()
	status, b := e.call(t, tr.key, "GET", path, nil)
	var m map[string]json.RawMessage
	var v decimal.Decimal
	if status != http.StatusOK || json.Unmarshal(b["data"], &m) != nil || json.Unmarshal(m[field], &v) != nil {
		t.Fatalf("GET %s: %d %s", path, status, b)
	}
	return micro.Truncate(v)
}

// awaitMoney polls a money reading until it is want (30 s at most: live
// fills move the wallet once the chain settles them).
func awaitMoney(t testing.TB, what string, want int64, read func() int64) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		got := read()
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is %s, want %s", what, micro.Decimal(got), micro.Decimal(want))
		}
	}
}

func (e *tradingEnv) fills(t testing.TB, orderID string) []models.Fill {
	t.Helper()
	fs, err := e.store.ListFills(context.Background(), orderID)
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// paperTwin is a paper agent of tr's user, linked as the /link page's
// "Paper" choice stores it.
func (e *tradingEnv) paperTwin(t testing.TB, tr trader) trader {
	t.Helper()
	plain, hash, prefix := secret.NewAPIKey()
	a := &models.Agent{UserID: tr.userID, Name: "paper twin", Scopes: "read trade cancel redeem", RateLimitPerMinute: 100_000, Mode: models.ModePaper}
	if err := e.store.CreateAgentWithKey(context.Background(), a, &models.APIKey{Hash: hash, DisplayPrefix: prefix}); err != nil {
		t.Fatal(err)
	}
	return trader{userID: tr.userID, agentID: a.ID, key: plain, wallet: tr.wallet}
}

// TestPaperBesideLiveOnTheSandbox is issue 29's end-to-end test on `ats
// dev`'s wiring: one user, a paper agent and a live agent, one sandbox
// market (its makers re-quoting only when the test moves the price, so a
// book read stays the book). The paper agent's marketable buy fills at
// exactly the levels the sandbox's public book held, and takes nothing
// from it; the live agent's same buy then gets those same levels at the
// venue. The paper agent's resting limit ignores a trade above its price,
// spends a trade at its price on the queue that was ahead of it, then
// fills no more than each later trade at or through its price. Its four
// strategy types run and place paper orders. After the market resolves,
// its redeem credits the paper balance. Watched on the sandbox's HTTP
// server and on the chain's blocks: every order the venue received and
// every service transaction the chain mined is the live agent's. The
// live agent's wallet moves by exactly its own fills and redemption.
func TestPaperBesideLiveOnTheSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the sandbox and Temporal")
	}
	ctx := context.Background()
	watch := &venueWatch{}
	e := newTradingEnv(t, tradingOpts{observeSandbox: watch.wrap, quoteInterval: time.Hour})
	e.withStrategyFeed(t)
	live := e.newTrader(t, 0)
	paper := e.paperTwin(t, live)
	m := e.newMarket(t, "Will paper trade beside live", "0.5")
	yes := m.TokenIDs[0]
	chainFrom := e.chainHead(t)
	for _, a := range []struct {
		tr   trader
		mode string
	}{{live, models.ModeLive}, {paper, models.ModePaper}} {
		tr, mode := a.tr, a.mode
		if status, b := e.call(t, tr.key, "GET", "/me", nil); status != http.StatusOK || !strings.Contains(string(b["data"]), `"mode":"`+mode+`"`) {
			t.Fatalf("GET /me of the %s agent: %d %s", mode, status, b)
		}
	}
	liveCash := func() int64 { return e.money(t, live, "/balance", "usdc") }
	paperCash := func() int64 { return e.money(t, paper, "/budget", "wallet") }
	liveStart, paperStart := liveCash(), paperCash()
	if paperStart != models.DefaultPaperBalanceMicro {
		t.Fatalf("paper balance %s, want the default", micro.Decimal(paperStart))
	}
	liveSpent, paperSpent := int64(0), int64(0)
	var liveOrders []string // the live agent's venue order ids
	// venueSaw checks, after each step, that every order the venue has
	// received is one of the live agent's, in order, and nothing was
	// cancelled there.
	venueSaw := func(step string) {
		t.Helper()
		posts, cancels := watch.seen()
		if len(posts) != len(liveOrders) || len(cancels) != 0 {
			t.Fatalf("%s: the venue received %d orders and cancels %v, the live agent placed %d: %+v", step, len(posts), cancels, len(liveOrders), posts)
		}
		for i, p := range posts {
			if !strings.EqualFold(p.orderID, liveOrders[i]) || !strings.EqualFold(p.maker, live.wallet.Address) {
				t.Fatalf("%s: order %d the venue received: %+v, want the live agent's %s", step, i, p, liveOrders[i])
			}
		}
	}

	// 1. The paper agent's marketable buy walks the book as the sandbox's
	// public API shows it.
	buy := map[string]any{"tokenId": yes, "side": "BUY", "price": 0.53, "size": 200, "type": "FAK"}
	book := e.publicBook(t, yes)
	want := walkAsks(book.Asks, decimal.RequireFromString("0.53"), decimal.NewFromInt(200))
	if len(want) < 2 {
		t.Fatalf("the buy should walk two levels of %+v", book.Asks)
	}
	po := e.placeOrder(t, paper, buy)
	venueSaw("the paper buy")
	if !e.publicBook(t, yes).same(book) {
		t.Fatal("the sandbox's book changed under the paper buy: it took from the venue")
	}
	got := e.fills(t, po.ID)
	// One fill per level, all at the same moment: best level first.
	sort.Slice(got, func(i, j int) bool { return got[i].PriceMicro < got[j].PriceMicro })
	if po.Mode != models.ModePaper || po.PolyOrderID != "" || po.Status != models.OrderFilled || len(got) != len(want) {
		t.Fatalf("paper buy %+v with fills %+v, want %+v from the book", po, got, want)
	}
	for i := range want {
		if got[i].PriceMicro != want[i].PriceMicro || got[i].SizeMicro != want[i].SizeMicro {
			t.Fatalf("paper fill %d: %d at %d, the book held %d at %d", i, got[i].SizeMicro, got[i].PriceMicro, want[i].SizeMicro, want[i].PriceMicro)
		}
	}
	paperSpent += cost(want)
	if p := paperCash(); p != paperStart-paperSpent {
		t.Fatalf("paper balance %s after the buy, want %s", micro.Decimal(p), micro.Decimal(paperStart-paperSpent))
	}

	// 2. The live agent's same buy meets the same book at the venue.
	lo := e.placeOrder(t, live, buy)
	if lo.Mode != models.ModeLive || lo.PolyOrderID == "" || lo.Status != models.OrderFilled || lo.FilledSize.String() != po.FilledSize.String() ||
		lo.AvgFillPrice.String() != po.AvgFillPrice.String() {
		t.Fatalf("live buy %+v beside paper %+v", lo, po)
	}
	liveOrders = append(liveOrders, lo.PolyOrderID)
	venueSaw("the live buy")
	liveSpent += cost(want)
	if e.publicBook(t, yes).same(book) {
		t.Fatal("the live buy left the sandbox's book as it was")
	}
	awaitMoney(t, "the live wallet after its buy", liveStart-liveSpent, liveCash)

	// 3. A resting paper limit fills from the venue's trades only.
	book = e.publicBook(t, yes)
	bid := decimal.RequireFromString("0.48")
	ahead, above := sizeAt(book.Bids, bid), sizeAt(book.Bids, decimal.RequireFromString("0.49"))
	if !ahead.IsPositive() || !above.IsPositive() {
		t.Fatalf("the makers should bid at 0.49 and 0.48: %+v", book.Bids)
	}
	rest := e.placeOrder(t, paper, map[string]any{"tokenId": yes, "side": "BUY", "price": 0.48, "size": 20})
	if rest.Status != models.OrderOpen || rest.Mode != models.ModePaper {
		t.Fatalf("resting paper bid %+v", rest)
	}
	venueSaw("the paper bid")
	row, err := e.store.OrderByID(ctx, rest.ID)
	if err != nil || row.PaperQueueMicro != micro.Truncate(ahead) {
		t.Fatalf("queue ahead of the paper bid %d (%v), the book showed %s", row.PaperQueueMicro, err, ahead)
	}
	lr := e.placeOrder(t, live, map[string]any{"tokenId": yes, "side": "BUY", "price": 0.48, "size": 10})
	if lr.Status != models.OrderOpen || lr.PolyOrderID == "" {
		t.Fatalf("resting live bid %+v", lr)
	}
	liveOrders = append(liveOrders, lr.PolyOrderID)
	// A trade above the bid's price, then one at it the size of the queue
	// ahead: the queue is gone, nothing filled (had the trade above
	// counted, the second would have filled the order).
	e.outsideTrade(t, yes, "SELL", above.String(), "0.49")
	e.outsideTrade(t, yes, "SELL", ahead.String(), "0.48")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if row, err = e.store.OrderByID(ctx, rest.ID); err != nil {
			t.Fatal(err)
		}
		if row.PaperQueueMicro == 0 || time.Now().After(deadline) {
			break
		}
	}
	if row.PaperQueueMicro != 0 || row.FilledSizeMicro != 0 {
		t.Fatalf("after trades of %s above and %s at its price the paper bid has %d ahead and %d filled, want 0 and 0",
			above, ahead, row.PaperQueueMicro, row.FilledSizeMicro)
	}
	// The live bid, next in the venue's queue, takes a trade of 10 at
	// 0.48: the paper bid fills 10 of its 20 (no more than was traded).
	e.outsideTrade(t, yes, "SELL", "10", "0.48")
	e.awaitOrder(t, live, lr.ID, "filled", func(o modeOrder) bool { return o.Status == models.OrderFilled })
	liveSpent += micro.Mul(micro.Truncate(bid), 10*models.MicroPerUnit)
	part := e.awaitOrder(t, paper, rest.ID, "partly filled", func(o modeOrder) bool { return o.FilledSize.String() != "0" })
	if part.Status != models.OrderPartiallyFilled || part.FilledSize.String() != "10" {
		t.Fatalf("after a trade of 10 at its price: %+v", part)
	}
	// A trade through its price (a sell at 0.46) fills the rest, at the
	// bid's own price.
	e.outsideTrade(t, yes, "SELL", "50", "0.46")
	full := e.awaitOrder(t, paper, rest.ID, "filled", func(o modeOrder) bool { return o.Status == models.OrderFilled })
	if full.FilledSize.String() != "20" || full.AvgFillPrice.String() != "0.48" {
		t.Fatalf("paper bid after a trade through it: %+v", full)
	}
	paperSpent += cost(e.fills(t, rest.ID))
	if p := paperCash(); p != paperStart-paperSpent {
		t.Fatalf("paper balance %s after the resting bid, want %s", micro.Decimal(p), micro.Decimal(paperStart-paperSpent))
	}
	awaitMoney(t, "the live wallet after its resting bid", liveStart-liveSpent, liveCash)

	// 4. The paper agent's strategies run and place paper orders.
	target := e.outsideAddress(t)
	alert := e.createStrategy(t, paper, map[string]any{"type": "PRICE_ALERT", "maxBudget": 20, "config": map[string]any{
		"tokenId": yes, "side": "BUY", "triggerCondition": "PRICE_LTE", "triggerPrice": 0.40, "size": 10}})
	blsh := e.createStrategy(t, paper, map[string]any{"type": "BUY_LOW_SELL_HIGH", "maxBudget": 50, "config": map[string]any{
		"tokenId": yes, "buyBelow": 0.4, "sellAbove": 0.6, "sizePerTrade": 5}})
	recurring := e.createStrategy(t, paper, map[string]any{"type": "RECURRING_BUY", "maxBudget": 10, "config": map[string]any{
		"tokenId": yes, "amountPerInterval": 2, "interval": "1h", "priceLimit": 0.9}})
	copier := e.createCopy(t, paper, target, map[string]any{"sizingMode": "fixed", "fixedAmount": 5, "copySells": false})
	// An execution is listed once decided, its order still PENDING: each
	// await below waits for the order's outcome before the price moves,
	// or the order would meet the book the next step makes.
	settled := func(s apiStrategy, n int) bool {
		return len(s.Executions) == n && s.Executions[0].OrderStatus != nil && *s.Executions[0].OrderStatus != models.OrderPending
	}
	e.awaitStrategy(t, paper, recurring.ID, "bought", func(s apiStrategy) bool { return settled(s, 1) })
	time.Sleep(300 * time.Millisecond) // the copier's workflow loads and the hub follows the target
	e.setPrice(t, yes, "0.35")
	e.awaitStrategy(t, paper, alert.ID, "completed", func(s apiStrategy) bool { return s.Status == "COMPLETED" })
	e.awaitStrategy(t, paper, blsh.ID, "bought", func(s apiStrategy) bool { return len(s.Executions) == 1 && s.OpenSize.String() != "0" })
	e.outsideTrade(t, yes, "BUY", "10", "0.4")
	e.awaitStrategy(t, paper, copier, "copied", func(s apiStrategy) bool { return settled(s, 1) })
	e.setPrice(t, yes, "0.65")
	e.awaitStrategy(t, paper, blsh.ID, "sold", func(s apiStrategy) bool { return len(s.Executions) == 2 && s.OpenSize.String() == "0" })
	venueSaw("the paper strategies")
	for _, id := range []string{alert.ID, blsh.ID, recurring.ID, copier} {
		os := e.strategyOrders(t, paper.agentID, id)
		if len(os) == 0 {
			t.Fatalf("strategy %s placed no order", id)
		}
		for _, o := range os {
			v := e.getOrder(t, paper, o.ID)
			if v.Mode != models.ModePaper || v.PolyOrderID != "" || v.FilledSize.String() == "0" {
				t.Fatalf("strategy %s's order %+v, want a filled paper order", id, v)
			}
			f := cost(e.fills(t, o.ID))
			if o.Side == "SELL" {
				f = -f
			}
			paperSpent += f
		}
	}
	if p := paperCash(); p != paperStart-paperSpent {
		t.Fatalf("paper balance %s after the strategies, want %s", micro.Decimal(p), micro.Decimal(paperStart-paperSpent))
	}
	// Strategies and positions carry their agent's mode in the answers.
	for _, id := range []string{alert.ID, blsh.ID, recurring.ID, copier} {
		if st := e.awaitStrategy(t, paper, id, "listed", func(apiStrategy) bool { return true }); st.Mode != models.ModePaper {
			t.Fatalf("strategy %s answers mode %q, want paper", id, st.Mode)
		}
	}
	for _, tr := range []struct {
		trader
		mode string
	}{{paper, models.ModePaper}, {live, models.ModeLive}} {
		status, b := e.call(t, tr.key, "GET", "/positions", nil)
		var l struct {
			Positions []struct {
				Mode string `json:"mode"`
			} `json:"positions"`
		}
		if status != http.StatusOK || json.Unmarshal(b["data"], &l) != nil || len(l.Positions) == 0 {
			t.Fatalf("positions of the %s agent: %d %s", tr.mode, status, b)
		}
		for _, p := range l.Positions {
			if p.Mode != tr.mode {
				t.Fatalf("a position of the %s agent answers mode %q", tr.mode, p.Mode)
			}
		}
	}
	for _, id := range []string{blsh.ID, recurring.ID, copier} {
		if status, b := e.call(t, paper.key, "DELETE", "/strategies/"+id, nil); status != http.StatusOK {
			t.Fatalf("stop %s: %d %s", id, status, b)
		}
	}

	// 5. The market resolves: each agent's redeem pays its own winning
	// shares, the paper one into the paper balance and without a
	// transaction.
	e.control(t, "/control/markets/"+m.ConditionID+"/resolve", `{"winner":"Yes"}`, nil)
	redeem := func(tr trader) (payout int64, hashes []string) {
		t.Helper()
		status, b := e.call(t, tr.key, "POST", "/settlements/redeem", nil)
		var r struct {
			Redeemed []struct {
				Shares json.Number `json:"shares"`
				TxHash string      `json:"txHash"`
			} `json:"redeemed"`
			TotalPayout json.Number `json:"totalPayout"`
		}
		if status != http.StatusOK || json.Unmarshal(b["data"], &r) != nil || len(r.Redeemed) != 1 {
			t.Fatalf("redeem: %d %s", status, b)
		}
		if r.Redeemed[0].TxHash != "" {
			hashes = append(hashes, r.Redeemed[0].TxHash)
		}
		return micro.Truncate(decimal.RequireFromString(r.TotalPayout.String())), hashes
	}
	held := func(tr trader) int64 {
		var n int64
		ps, err := e.store.ListPositions(ctx, tr.agentID)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if p.TokenID == yes {
				n += p.SizeMicro
			}
		}
		return n
	}
	paperShares, liveShares := held(paper), held(live)
	if liveShares != 210*models.MicroPerUnit {
		t.Fatalf("the live agent holds %s YES, want its own 210", micro.Decimal(liveShares))
	}
	// The live redeem first: it burns the wallet's tokens and must leave
	// the paper positions (which hold none) to the paper redeem.
	paid, liveTx := redeem(live)
	if paid != liveShares || len(liveTx) != 1 {
		t.Fatalf("live redeem paid %s with transactions %v, want %s in one", micro.Decimal(paid), liveTx, micro.Decimal(liveShares))
	}
	awaitMoney(t, "the live wallet after its redeem", liveStart-liveSpent+liveShares, liveCash)
	eoa := common.HexToAddress(live.wallet.EOAAddress)
	nonce, err := e.sb.EVM().Client().PendingNonceAt(ctx, eoa)
	if err != nil {
		t.Fatal(err)
	}
	head := e.chainHead(t)
	paid, paperTx := redeem(paper)
	if paid != paperShares || len(paperTx) != 0 {
		t.Fatalf("paper redeem paid %s with transactions %v, want %s and none", micro.Decimal(paid), paperTx, micro.Decimal(paperShares))
	}
	if p := paperCash(); p != paperStart-paperSpent+paperShares {
		t.Fatalf("paper balance %s after the redeem, want %s", micro.Decimal(p), micro.Decimal(paperStart-paperSpent+paperShares))
	}
	if n, err := e.sb.EVM().Client().PendingNonceAt(ctx, eoa); err != nil || n != nonce {
		t.Fatalf("the wallet's signer sent a transaction during the paper redeem: nonce %d → %d (%v)", nonce, n, err)
	}
	// Two blocks later anything the paper redeem sent would be mined.
	for e.chainHead(t) < head+2 {
		time.Sleep(50 * time.Millisecond)
	}

	// 6. What the venue and the chain saw: the live agent's alone.
	venueSaw("the redemptions")
	held2 := e.sb.Venue().Engine().Orders(exchange.OrderFilter{Maker: common.HexToAddress(live.wallet.Address)})
	if len(held2) != len(liveOrders) {
		t.Fatalf("the venue's engine holds %d orders of the wallet, the live agent placed %d", len(held2), len(liveOrders))
	}
	if txs := e.serviceTxs(t, chainFrom); len(txs) != 1 || !strings.EqualFold(txs[0], liveTx[0]) {
		t.Fatalf("the chain mined %v from the service, want the live redeem %v alone", txs, liveTx)
	}
}
