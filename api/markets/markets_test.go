package markets_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/agentauth"
	apimarkets "github.com/agent-trading/ats/api/markets"
	"github.com/agent-trading/ats/api/openapi/openapitest"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/markets"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/sandbox"
	smarkets "github.com/agent-trading/ats/sandbox/markets"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/gamma"
	"github.com/agent-trading/ats/venue/updown"
)

// One sandbox serves the whole package: starting it lists ~100 markets.
var sb *sandbox.Sandbox

func TestMain(m *testing.M) {
	var err error
	sb, err = sandbox.Start(context.Background(), sandbox.Config{
		Addr: "127.0.0.1:0", Seed: 42, BlockInterval: 100 * time.Millisecond,
		PaperChain: true, Ordinary: 24, QuoteInterval: time.Hour,
	})
	if err != nil {
		panic(err)
	}
	code := m.Run()
	_ = sb.Close()
	os.Exit(code)
}

// keys is an in-memory agentauth.Keys with one agent per scope set.
type keys map[string]struct {
	k *models.APIKey
	a *models.Agent
}

func (ks keys) AgentKeyByHash(_ context.Context, hash string) (*models.APIKey, *models.Agent, error) {
	e, ok := ks[hash]
	if !ok {
		return nil, nil, errs.E(errs.NotFound, "no such key")
	}
	k, a := *e.k, *e.a
	return &k, &a, nil
}

func (keys) TouchAPIKey(context.Context, string, time.Time) error { return nil }

var (
	readKey, tradeKey string
	authKeys          = keys{}
)

func init() {
	for i, scopes := range []string{"read", "trade"} {
		plain, hash, _ := secret.NewAPIKey()
		id := strconv.Itoa(i)
		authKeys[hash] = struct {
			k *models.APIKey
			a *models.Agent
		}{&models.APIKey{ID: "key" + id, AgentID: "agent" + id, Hash: hash},
			&models.Agent{ID: "agent" + id, UserID: "user", Status: models.AgentActive, Scopes: scopes}}
		if scopes == "read" {
			readKey = plain
		} else {
			tradeKey = plain
		}
	}
}

func newService(gammaURL, clobURL string) *markets.Service {
	return &markets.Service{
		Gamma: gamma.New(gamma.Config{BaseURL: gammaURL, Timeout: 2 * time.Second}),
		CLOB:  clob.NewClient(clob.Config{BaseURL: clobURL, Timeout: 2 * time.Second}),
	}
}

func engine(svc *markets.Service) *gin.Engine {
	return api.New(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{
		Routes: []api.Routes{apimarkets.Routes(svc, agentauth.Middleware(authKeys, nil))},
	})
}

var (
	initOnce sync.Once
	engOnce  *gin.Engine
	svcOnce  *markets.Service
)

// sandboxEngine is the API over the shared sandbox, built once so the
// service caches behave as in production across requests.
func sandboxEngine() *gin.Engine {
	initOnce.Do(func() {
		n := sb.Network()
		svcOnce = newService(n.GammaURL, n.CLOBURL)
		engOnce = engine(svcOnce)
	})
	return engOnce
}

type reply struct {
	Status  int
	Success bool            `json:"success"`
	Data    json.RawMessage `json:"data"`
	Context json.RawMessage `json:"context"`
	Meta    json.RawMessage `json:"meta"`
	Error   string          `json:"error"`
	Message string          `json:"message"`
	Code    string          `json:"code"`
}

func call(t testing.TB, e http.Handler, key, path string) reply {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/api/agent/v1"+path, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	w := httptest.NewRecorder()
	openapitest.Handler(t, e).ServeHTTP(w, req)
	var r reply
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &r), w.Body.String())
	r.Status = w.Code
	return r
}

func get(t testing.TB, path string) reply { return call(t, sandboxEngine(), readKey, path) }

// venue returns the service's venue clients, for cross-checks.
func venue() *markets.Service { sandboxEngine(); return svcOnce }

func ok(t testing.TB, path string, data any) reply {
	t.Helper()
	r := get(t, path)
	require.Equal(t, http.StatusOK, r.Status, "%s: %s", path, r.Message)
	require.True(t, r.Success)
	if data != nil {
		require.NoError(t, json.Unmarshal(r.Data, data), string(r.Data))
	}
	return r
}

// bad asserts a 400 whose message names param.
func bad(t *testing.T, path, param string) {
	t.Helper()
	r := get(t, path)
	assert.Equal(t, http.StatusBadRequest, r.Status, path)
	assert.False(t, r.Success)
	assert.Contains(t, r.Message, `"`+param+`"`, path)
}

func dec(t testing.TB, s string) decimal.Decimal {
	t.Helper()
	d, err := decimal.NewFromString(s)
	require.NoError(t, err, s)
	return d
}

type item struct {
	ID              string   `json:"id"`
	Slug            string   `json:"slug"`
	Question        string   `json:"question"`
	Outcomes        []string `json:"outcomes"`
	OutcomePrices   []string `json:"outcomePrices"`
	Volume          string   `json:"volume"`
	Liquidity       string   `json:"liquidity"`
	AcceptingOrders bool     `json:"acceptingOrders"`
	EndDate         string   `json:"endDate"`
}

func search(t *testing.T, query string) ([]item, *apimarkets.TopMatch) {
	t.Helper()
	var items []item
	r := ok(t, "/markets/search?"+query, &items)
	var ctx struct {
		TopMatch *apimarkets.TopMatch `json:"topMatch"`
	}
	require.NoError(t, json.Unmarshal(r.Context, &ctx), string(r.Context))
	return items, ctx.TopMatch
}

func ordinary(t *testing.T) []smarkets.Info {
	var out []smarkets.Info
	for _, m := range sb.Venue().Markets() {
		if m.UpDown == nil && !m.Resolved {
			out = append(out, m)
		}
	}
	require.NotEmpty(t, out)
	return out
}

func TestAuthAndScope(t *testing.T) {
	e := sandboxEngine()
	for _, p := range []string{"/markets/search", "/markets/1", "/markets/by-slug?slug=x", "/markets/crypto?asset=btc",
		"/orderbook?token_id=1", "/prices?token_id=1", "/spread?token_id=1", "/market-data?token_id=1"} {
		assert.Equal(t, http.StatusUnauthorized, call(t, e, "", p).Status, p)
		assert.Equal(t, http.StatusForbidden, call(t, e, tradeKey, p).Status, p)
	}
}

func TestSearchDefaults(t *testing.T) {
	items, top := search(t, "")
	require.NotEmpty(t, items)
	assert.LessOrEqual(t, len(items), 10)
	for i, it := range items {
		assert.True(t, it.AcceptingOrders)
		assert.True(t, dec(t, it.Volume).GreaterThanOrEqual(decimal.NewFromInt(100)))
		assert.Len(t, it.OutcomePrices, len(it.Outcomes))
		if i > 0 {
			assert.False(t, dec(t, it.Volume).GreaterThan(dec(t, items[i-1].Volume)), "sorted by volume desc")
		}
	}
	require.NotNil(t, top)
	assert.Equal(t, items[0].ID, top.ID)
	assert.Equal(t, items[0].Question, top.Question)

	// Decimal strings, not numbers.
	r := get(t, "/markets/search?limit=1")
	var raw []map[string]any
	require.NoError(t, json.Unmarshal(r.Data, &raw))
	require.Len(t, raw, 1)
	assert.IsType(t, "", raw[0]["volume"])
	assert.IsType(t, "", raw[0]["liquidity"])
	assert.IsType(t, "", raw[0]["outcomePrices"].([]any)[0])
}

func TestSearchLimitOffset(t *testing.T) {
	for _, q := range []string{"limit=101", "limit=0", "limit=-1", "limit=ten", "limit=1.5"} {
		bad(t, "/markets/search?"+q, "limit")
	}
	for _, q := range []string{"offset=-1", "offset=x", "offset=10001"} {
		bad(t, "/markets/search?"+q, "offset")
	}
	all, _ := search(t, "limit=100&min_volume=0")
	require.Greater(t, len(all), 10, "the sandbox lists more than one default page")
	three, _ := search(t, "limit=3&min_volume=0")
	assert.Equal(t, ids(all[:3]), ids(three))
	page2, _ := search(t, "limit=3&offset=3&min_volume=0")
	assert.Equal(t, ids(all[3:6]), ids(page2))
	past, top := search(t, "offset=10000&min_volume=0")
	assert.Empty(t, past)
	assert.NotNil(t, top, "topMatch looks at every match, not the page")
}

func ids(items []item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

func TestSearchSort(t *testing.T) {
	bad(t, "/markets/search?sort=price", "sort")
	cases := []struct {
		sort string
		ok   func(prev, cur item) bool
	}{
		{"volume", func(p, c item) bool { return !dec(t, c.Volume).GreaterThan(dec(t, p.Volume)) }},
		{"liquidity", func(p, c item) bool { return !dec(t, c.Liquidity).GreaterThan(dec(t, p.Liquidity)) }},
		{"end_date", func(p, c item) bool { return p.EndDate <= c.EndDate }},
	}
	for _, tc := range cases {
		t.Run(tc.sort, func(t *testing.T) {
			items, _ := search(t, "limit=50&min_volume=0&sort="+tc.sort)
			require.Greater(t, len(items), 2)
			for i := 1; i < len(items); i++ {
				assert.True(t, tc.ok(items[i-1], items[i]), "%s at %d: %+v then %+v", tc.sort, i, items[i-1], items[i])
			}
		})
	}
	t.Run("recent", func(t *testing.T) {
		items, _ := search(t, "limit=50&min_volume=0&sort=RECENT")
		require.Greater(t, len(items), 2)
		var prev time.Time
		for i, it := range items {
			m, err := venue().Gamma.MarketByID(context.Background(), it.ID)
			require.NoError(t, err)
			if i > 0 {
				assert.False(t, m.StartDate.After(prev), "newest first")
			}
			prev = m.StartDate
		}
	})
}

func TestSearchTagAndMinVolume(t *testing.T) {
	bad(t, "/markets/search?tag=weather", "tag")
	for _, tag := range []string{"politics", "sports", "crypto"} {
		items, _ := search(t, "limit=100&min_volume=0&tag="+tag)
		require.NotEmpty(t, items, tag)
		for _, it := range items {
			m, err := venue().Gamma.MarketByID(context.Background(), it.ID)
			require.NoError(t, err)
			assert.True(t, slices.ContainsFunc(m.Tags, func(tg gamma.Tag) bool { return tg.Slug == tag }), "%s: %s", tag, it.Question)
		}
	}
	for _, q := range []string{"min_volume=-1", "min_volume=abc"} {
		bad(t, "/markets/search?"+q, "min_volume")
	}
	all, _ := search(t, "limit=100&min_volume=0")
	vols := make([]decimal.Decimal, len(all))
	for i, it := range all {
		vols[i] = dec(t, it.Volume)
	}
	slices.SortFunc(vols, func(a, b decimal.Decimal) int { return a.Cmp(b) })
	threshold := vols[len(vols)-1].Div(decimal.NewFromInt(2)).Ceil()
	some, _ := search(t, "limit=100&min_volume="+threshold.String())
	require.NotEmpty(t, some)
	got := ids(some)
	excluded := 0
	for _, it := range all {
		if dec(t, it.Volume).LessThan(threshold) {
			excluded++
			assert.NotContains(t, got, it.ID)
		}
	}
	assert.Positive(t, excluded)
	for _, it := range some {
		assert.True(t, dec(t, it.Volume).GreaterThanOrEqual(threshold))
	}
	none, top := search(t, "min_volume=1000000000000")
	assert.Empty(t, none)
	assert.Nil(t, top)
}

func TestSearchTextAndSlug(t *testing.T) {
	target := ordinary(t)[0]
	words := strings.Fields(strings.TrimSuffix(target.Question, "?"))
	q := strings.Join(words[len(words)-3:], " ")
	items, top := search(t, "min_volume=0&limit=100&q="+urlEscape(q))
	require.NotEmpty(t, items)
	for _, it := range items {
		assert.Contains(t, strings.ToLower(it.Question+" "+it.Slug), strings.ToLower(words[len(words)-1]))
	}
	require.NotNil(t, top)
	m, err := venue().Gamma.MarketByID(context.Background(), top.ID)
	require.NoError(t, err)
	assert.Contains(t, strings.ToLower(m.Question), strings.ToLower(q))

	none, top := search(t, "q=zzqqxx+nothing+like+this")
	assert.Empty(t, none)
	assert.Nil(t, top)
	bad(t, "/markets/search?q="+strings.Repeat("a", 201), "q")

	bySlug, top := search(t, "min_volume=0&slug="+target.Slug)
	require.Len(t, bySlug, 1)
	assert.Equal(t, target.Slug, bySlug[0].Slug)
	assert.Equal(t, strconv.Itoa(target.ID), top.ID)
	missing, _ := search(t, "slug=no-such-market-slug")
	assert.Empty(t, missing)
}

func urlEscape(s string) string { return strings.ReplaceAll(s, " ", "+") }

func TestSearchAcceptingOrdersAndEndingSoon(t *testing.T) {
	bad(t, "/markets/search?accepting_orders=maybe", "accepting_orders")
	bad(t, "/markets/search?ending_soon=2", "ending_soon")

	// Resolve one market: it stops accepting orders and leaves the results.
	target := ordinary(t)[1]
	_, err := sb.Venue().Resolve(context.Background(), target.ConditionID, target.Outcomes[0])
	require.NoError(t, err)
	items, _ := search(t, "min_volume=0&slug="+target.Slug)
	assert.Empty(t, items)
	items, _ = search(t, "min_volume=0&accepting_orders=false&limit=100")
	require.NotEmpty(t, items)

	// Up/down windows end within a day; ordinary markets end in a week or more.
	now := time.Now()
	plain, _ := search(t, "min_volume=0&limit=100&sort=volume")
	soon, _ := search(t, "min_volume=0&limit=100&sort=volume&ending_soon=true")
	require.Equal(t, len(plain), len(soon))
	within := func(it item) bool {
		e, err := time.Parse(time.RFC3339, it.EndDate)
		require.NoError(t, err)
		return e.After(now) && e.Before(now.Add(24*time.Hour+time.Minute))
	}
	n := 0
	for _, it := range soon {
		if !within(it) {
			break
		}
		n++
	}
	require.Positive(t, n)
	for _, it := range soon[n:] {
		assert.False(t, within(it), "all markets ending soon come first")
	}
	assert.False(t, within(plain[0]) && n == len(plain), "the flag changes the order")
}

type detail struct {
	ID          string `json:"id"`
	ConditionID string `json:"conditionId"`
	Slug        string `json:"slug"`
	Question    string `json:"question"`
	Tokens      []struct {
		TokenID string `json:"tokenId"`
		Outcome string `json:"outcome"`
		Price   string `json:"price"`
	} `json:"tokens"`
	ClobTokenIDs []string `json:"clobTokenIds"`
	Spreads      []struct {
		Outcome string  `json:"outcome"`
		Bid     *string `json:"bid"`
		Ask     *string `json:"ask"`
		Spread  *string `json:"spread"`
	} `json:"spreads"`
}

func checkDetail(t *testing.T, d detail, m smarkets.Info) {
	t.Helper()
	assert.Equal(t, strconv.Itoa(m.ID), d.ID)
	assert.Equal(t, m.ConditionID, d.ConditionID)
	assert.Equal(t, m.Question, d.Question)
	assert.Equal(t, m.TokenIDs[:], d.ClobTokenIDs)
	require.Len(t, d.Tokens, 2)
	require.Len(t, d.Spreads, 2)
	for i, tok := range d.Tokens {
		assert.Equal(t, m.TokenIDs[i], tok.TokenID)
		assert.Equal(t, m.Outcomes[i], tok.Outcome)
		dec(t, tok.Price)
		sp := d.Spreads[i]
		assert.Equal(t, m.Outcomes[i], sp.Outcome)
		require.NotNil(t, sp.Bid, "the market makers quote both sides")
		require.NotNil(t, sp.Ask)
		require.NotNil(t, sp.Spread)
		assert.True(t, dec(t, *sp.Ask).Sub(dec(t, *sp.Bid)).Equal(dec(t, *sp.Spread)))
	}
}

func TestMarketDetail(t *testing.T) {
	m := ordinary(t)[2]
	var d detail
	ok(t, "/markets/"+strconv.Itoa(m.ID), &d)
	checkDetail(t, d, m)
	var byCond detail
	ok(t, "/markets/"+m.ConditionID, &byCond)
	checkDetail(t, byCond, m)
	var bySlug detail
	ok(t, "/markets/by-slug?slug="+m.Slug, &bySlug)
	checkDetail(t, bySlug, m)

	assert.Equal(t, http.StatusNotFound, get(t, "/markets/987654321").Status)
	assert.Equal(t, http.StatusNotFound, get(t, "/markets/0x"+strings.Repeat("ab", 32)).Status)
	assert.Equal(t, http.StatusNotFound, get(t, "/markets/by-slug?slug=no-such-market").Status)
	for _, id := range []string{"abc", "0x12", "12a"} {
		r := get(t, "/markets/"+id)
		assert.Equal(t, http.StatusBadRequest, r.Status, id)
		assert.Contains(t, r.Message, "market id")
	}
	bad(t, "/markets/by-slug", "slug")
	bad(t, "/markets/by-slug?slug=", "slug")
}

type cryptoMarket struct {
	ConditionID     string   `json:"conditionId"`
	Slug            string   `json:"slug"`
	Question        string   `json:"question"`
	Outcomes        []string `json:"outcomes"`
	OutcomePrices   []string `json:"outcomePrices"`
	EndDate         string   `json:"endDate"`
	AcceptingOrders bool     `json:"acceptingOrders"`
	NegRisk         *bool    `json:"negRisk"`
	ClobTokenIDs    []string `json:"clobTokenIds"`
	Tokens          []struct {
		TokenID string  `json:"tokenId"`
		Outcome string  `json:"outcome"`
		Price   string  `json:"price"`
		Bid     *string `json:"bid"`
		Ask     *string `json:"ask"`
	} `json:"tokens"`
}

type cryptoMeta struct {
	Asset        string `json:"asset"`
	Timeframe    string `json:"timeframe"`
	SearchMethod string `json:"searchMethod"`
}

func TestCryptoEveryAssetAndTimeframe(t *testing.T) {
	for _, a := range updown.Assets() {
		for _, tf := range smarkets.Timeframes {
			t.Run(a.Symbol+"/"+string(tf), func(t *testing.T) {
				var c cryptoMarket
				r := ok(t, "/markets/crypto?asset="+a.Symbol+"&timeframe="+string(tf), &c)
				var meta cryptoMeta
				require.NoError(t, json.Unmarshal(r.Meta, &meta))
				assert.Equal(t, cryptoMeta{Asset: a.Symbol, Timeframe: string(tf), SearchMethod: "slug"}, meta)
				ws, err := updown.Windows(a, tf, time.Now().Add(-time.Minute), updown.LookAhead+1)
				require.NoError(t, err)
				var slugs []string
				for _, w := range ws {
					slugs = append(slugs, w.Slugs()...)
				}
				assert.Contains(t, slugs, c.Slug)
				assert.True(t, c.AcceptingOrders)
				assert.Equal(t, []string{"Up", "Down"}, c.Outcomes)
				require.NotNil(t, c.NegRisk)
				end, err := time.Parse(time.RFC3339, c.EndDate)
				require.NoError(t, err)
				assert.True(t, end.After(time.Now().Add(-time.Minute)))
				require.Len(t, c.ClobTokenIDs, 2)
				require.Len(t, c.Tokens, 2)
				for i, tok := range c.Tokens {
					assert.Equal(t, c.ClobTokenIDs[i], tok.TokenID)
					dec(t, tok.Price)
					if tok.Bid != nil && tok.Ask != nil {
						assert.True(t, dec(t, *tok.Bid).LessThan(dec(t, *tok.Ask)))
					}
				}
			})
		}
	}
}

func TestCryptoParameters(t *testing.T) {
	for _, name := range []string{"bitcoin", "Ethereum", "solana", "dogecoin", "polygon", "BTC", "pol"} {
		var c cryptoMarket
		r := ok(t, "/markets/crypto?asset="+name, &c)
		var meta cryptoMeta
		require.NoError(t, json.Unmarshal(r.Meta, &meta))
		assert.Equal(t, "daily", meta.Timeframe, "default timeframe")
		a, err := updown.ParseAsset(name)
		require.NoError(t, err)
		assert.Equal(t, a.Symbol, meta.Asset)
		assert.Contains(t, c.Slug, "up-or-down-on-", name)
	}
	var c cryptoMarket
	r := get(t, "/markets/crypto?asset=btc&timeframe=15m&include_tokens=false")
	require.Equal(t, http.StatusOK, r.Status)
	require.NoError(t, json.Unmarshal(r.Data, &c))
	assert.Nil(t, c.ClobTokenIDs)
	assert.Nil(t, c.Tokens)
	assert.NotContains(t, string(r.Data), "clobTokenIds")
	assert.True(t, strings.HasPrefix(c.Slug, "btc-updown-15m-"))

	bad(t, "/markets/crypto", "asset")
	bad(t, "/markets/crypto?asset=ada", "asset")
	bad(t, "/markets/crypto?asset=btc&timeframe=7m", "timeframe")
	bad(t, "/markets/crypto?asset=btc&include_tokens=yes", "include_tokens")
}

type book struct {
	TokenID string `json:"tokenId"`
	Bids    []struct{ Price, Size string }
	Asks    []struct{ Price, Size string }
	Summary struct {
		BestBid *string `json:"bestBid"`
		BestAsk *string `json:"bestAsk"`
		Spread  *string `json:"spread"`
	} `json:"summary"`
}

func TestOrderBook(t *testing.T) {
	m := ordinary(t)[3]
	var b book
	ok(t, "/orderbook?token_id="+m.TokenIDs[0], &b)
	assert.Equal(t, m.TokenIDs[0], b.TokenID)
	require.NotEmpty(t, b.Bids)
	require.NotEmpty(t, b.Asks)
	for i := 1; i < len(b.Bids); i++ {
		assert.True(t, dec(t, b.Bids[i].Price).LessThan(dec(t, b.Bids[i-1].Price)), "bids best first")
	}
	for i := 1; i < len(b.Asks); i++ {
		assert.True(t, dec(t, b.Asks[i].Price).GreaterThan(dec(t, b.Asks[i-1].Price)), "asks best first")
	}
	assert.Equal(t, b.Bids[0].Price, *b.Summary.BestBid)
	assert.Equal(t, b.Asks[0].Price, *b.Summary.BestAsk)
	assert.True(t, dec(t, *b.Summary.BestAsk).Sub(dec(t, *b.Summary.BestBid)).Equal(dec(t, *b.Summary.Spread)))

	var batch []book
	ok(t, "/orderbook?token_ids="+m.TokenIDs[1]+","+m.TokenIDs[0]+","+m.TokenIDs[1], &batch)
	require.Len(t, batch, 2, "duplicates collapse")
	assert.Equal(t, m.TokenIDs[1], batch[0].TokenID)
	assert.Equal(t, m.TokenIDs[0], batch[1].TokenID)

	var all []string
	for _, mk := range sb.Venue().Markets() {
		all = append(all, mk.TokenIDs[:]...)
	}
	require.GreaterOrEqual(t, len(all), 21)
	var twenty []book
	ok(t, "/orderbook?token_ids="+strings.Join(all[:20], ","), &twenty)
	assert.Len(t, twenty, 20)
	r := get(t, "/orderbook?token_ids="+strings.Join(all[:21], ","))
	assert.Equal(t, http.StatusBadRequest, r.Status)
	assert.Equal(t, "too_many_tokens", r.Code)
	assert.Contains(t, r.Message, `"token_ids"`)

	bad(t, "/orderbook", "token_id")
	bad(t, "/orderbook?token_id=abc", "token_id")
	bad(t, "/orderbook?token_ids=1,x", "token_ids")
	bad(t, "/orderbook?token_ids=,", "token_ids")
	bad(t, "/orderbook?token_id=1&token_ids=2", "token_id")
	r = get(t, "/orderbook?token_id=123456789")
	assert.Equal(t, http.StatusNotFound, r.Status)
	assert.Contains(t, r.Message, "123456789")
	r = get(t, "/orderbook?token_ids="+m.TokenIDs[0]+",987654321")
	assert.Equal(t, http.StatusNotFound, r.Status)
	assert.Contains(t, r.Message, "987654321")
}

type prices struct {
	TokenID        string  `json:"tokenId"`
	Midpoint       *string `json:"midpoint"`
	BuyPrice       *string `json:"buyPrice"`
	SellPrice      *string `json:"sellPrice"`
	LastTradePrice *string `json:"lastTradePrice"`
}

type spread struct {
	TokenID       string  `json:"tokenId"`
	Bid           *string `json:"bid"`
	Ask           *string `json:"ask"`
	Spread        *string `json:"spread"`
	SpreadPercent *string `json:"spreadPercent"`
}

func TestPricesSpreadMarketData(t *testing.T) {
	m := ordinary(t)[4]
	tok := m.TokenIDs[0]
	var b book
	ok(t, "/orderbook?token_id="+tok, &b)

	var p prices
	ok(t, "/prices?token_id="+tok, &p)
	assert.Equal(t, tok, p.TokenID)
	require.NotNil(t, p.BuyPrice)
	require.NotNil(t, p.SellPrice)
	assert.Equal(t, *b.Summary.BestAsk, *p.BuyPrice, "buyPrice is the best ask")
	assert.Equal(t, *b.Summary.BestBid, *p.SellPrice, "sellPrice is the best bid")
	mid := dec(t, *p.BuyPrice).Add(dec(t, *p.SellPrice)).Div(decimal.NewFromInt(2))
	assert.True(t, mid.Equal(dec(t, *p.Midpoint)))
	require.NotNil(t, p.LastTradePrice)
	dec(t, *p.LastTradePrice)

	// Cross-check with the venue's own /price and /midpoint.
	venueMid, err := venue().CLOB.Midpoint(context.Background(), tok)
	require.NoError(t, err)
	assert.True(t, venueMid.Equal(mid), "venue mid %s, ours %s", venueMid, mid)

	var batch []prices
	ok(t, "/prices?token_ids="+m.TokenIDs[0]+","+m.TokenIDs[1], &batch)
	require.Len(t, batch, 2)
	assert.Equal(t, p, batch[0])
	assert.Equal(t, m.TokenIDs[1], batch[1].TokenID)
	bad(t, "/prices", "token_id")
	var many []string
	for i := range 21 {
		many = append(many, strconv.Itoa(i+1))
	}
	bad(t, "/prices?token_ids="+strings.Join(many, ","), "token_ids")
	assert.Equal(t, http.StatusNotFound, get(t, "/prices?token_id=42").Status)

	var s spread
	ok(t, "/spread?token_id="+tok, &s)
	assert.Equal(t, *p.SellPrice, *s.Bid)
	assert.Equal(t, *p.BuyPrice, *s.Ask)
	sp := dec(t, *s.Ask).Sub(dec(t, *s.Bid))
	assert.True(t, sp.Equal(dec(t, *s.Spread)))
	assert.True(t, sp.Div(mid).Mul(decimal.NewFromInt(100)).Round(2).Equal(dec(t, *s.SpreadPercent)))
	bad(t, "/spread", "token_id")
	bad(t, "/spread?token_id=-1", "token_id")
	assert.Equal(t, http.StatusNotFound, get(t, "/spread?token_id=42").Status)

	var md struct {
		TokenID string `json:"tokenId"`
		Prices  prices `json:"prices"`
		Spread  spread `json:"spread"`
		Book    struct {
			BestBid   *string `json:"bestBid"`
			BidDepth  string  `json:"bidDepth"`
			AskDepth  string  `json:"askDepth"`
			BidLevels int     `json:"bidLevels"`
			AskLevels int     `json:"askLevels"`
		} `json:"book"`
		TickSize     string `json:"tickSize"`
		MinOrderSize string `json:"minOrderSize"`
	}
	ok(t, "/market-data?token_id="+tok, &md)
	assert.Equal(t, tok, md.TokenID)
	assert.Equal(t, p, md.Prices)
	assert.Equal(t, s, md.Spread)
	assert.Equal(t, len(b.Bids), md.Book.BidLevels)
	assert.Equal(t, len(b.Asks), md.Book.AskLevels)
	depth := decimal.Zero
	for _, l := range b.Bids {
		depth = depth.Add(dec(t, l.Size))
	}
	assert.True(t, depth.Equal(dec(t, md.Book.BidDepth)))
	assert.NotEmpty(t, md.TickSize)
	bad(t, "/market-data", "token_id")
	assert.Equal(t, http.StatusNotFound, get(t, "/market-data?token_id=42").Status)
}

func TestVenueDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())
	e := engine(newService(addr, addr))
	for _, p := range []string{"/markets/search", "/markets/1", "/markets/by-slug?slug=x", "/markets/crypto?asset=btc&timeframe=5m",
		"/orderbook?token_id=1", "/orderbook?token_ids=1,2", "/prices?token_id=1", "/spread?token_id=1", "/market-data?token_id=1"} {
		r := call(t, e, readKey, p)
		assert.Equal(t, http.StatusServiceUnavailable, r.Status, p)
		assert.False(t, r.Success)
		assert.Equal(t, "Service Unavailable", r.Error)
		assert.Contains(t, r.Message, "unreachable", p)
	}
}

func TestResolvedMarketDetail(t *testing.T) {
	target := ordinary(t)[5]
	_, err := sb.Venue().Resolve(context.Background(), target.ConditionID, target.Outcomes[1])
	require.NoError(t, err)
	for _, p := range []string{"/markets/" + strconv.Itoa(target.ID), "/markets/" + target.ConditionID, "/markets/by-slug?slug=" + target.Slug} {
		var d struct {
			detail
			Closed          bool     `json:"closed"`
			AcceptingOrders bool     `json:"acceptingOrders"`
			OutcomePrices   []string `json:"outcomePrices"`
		}
		ok(t, p, &d)
		assert.Equal(t, target.ConditionID, d.ConditionID, p)
		assert.True(t, d.Closed, p)
		assert.False(t, d.AcceptingOrders, p)
		assert.Equal(t, []string{"0", "1"}, d.OutcomePrices, p)
		assert.Len(t, d.Spreads, 2, p)
	}
}

// countingTransport counts the requests that reach the venue.
type countingTransport struct{ n atomic.Int32 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

func TestConcurrentDetailSharesVenueCalls(t *testing.T) {
	n := sb.Network()
	gt, ct := &countingTransport{}, &countingTransport{}
	svc := &markets.Service{
		Gamma: gamma.New(gamma.Config{BaseURL: n.GammaURL, HTTP: &http.Client{Transport: gt, Timeout: 5 * time.Second}}),
		CLOB:  clob.NewClient(clob.Config{BaseURL: n.CLOBURL, HTTP: &http.Client{Transport: ct, Timeout: 5 * time.Second}}),
		// A fixed clock keeps every entry fresh for the whole test.
		Now: func() time.Time { return time.Unix(1_800_000_000, 0) },
	}
	e := engine(svc)
	m := ordinary(t)[0]
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := call(t, e, readKey, "/markets/"+strconv.Itoa(m.ID))
			assert.Equal(t, http.StatusOK, r.Status)
		}()
	}
	wg.Wait()
	assert.Equal(t, int32(1), gt.n.Load(), "one Gamma call for 16 concurrent requests")
	assert.Equal(t, int32(1), ct.n.Load(), "one CLOB call for 16 concurrent requests")

	// Books of the market's tokens are now cached: prices cost nothing more.
	r := call(t, e, readKey, "/prices?token_ids="+m.TokenIDs[0]+","+m.TokenIDs[1])
	assert.Equal(t, http.StatusOK, r.Status)
	assert.Equal(t, int32(1), ct.n.Load())
}
