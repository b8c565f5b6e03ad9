package markets

import (
	"slices"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/agent-trading/ats/models/markets"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/gamma"
)

// jsonContentType is what gin's JSON renderer sends.
const jsonContentType = "application/json; charset=utf-8"

// rendered keeps the encoded answer of a market detail for as long as the
// service's caches hand out the same market and books (5 s and 0.5 s by
// default): a market read many times a second is encoded once per book
// refresh instead of at every read — the answer is byte for byte what
// encoding the same market and books gives, never older than the caches
// it comes from.
type rendered struct {
	c *lru.Cache[*gamma.Market, renderedBody]
}

type renderedBody struct {
	books []*clob.OrderBook
	body  []byte
}

// renderedMarkets bounds the memory: the markets read most recently.
const renderedMarkets = 1024

func newRendered() *rendered {
	c, err := lru.New[*gamma.Market, renderedBody](renderedMarkets)
	if err != nil {
		panic(err) // only for a non-positive size
	}
	return &rendered{c: c}
}

// get is the encoded answer of d, when it was encoded from the same
// cached market and books.
func (r *rendered) get(d *markets.Detail) ([]byte, bool) {
	if d.Source == nil {
		return nil, false
	}
	b, ok := r.c.Get(d.Source)
	if !ok || !slices.Equal(b.books, d.Books) {
		return nil, false
	}
	return b.body, true
}

func (r *rendered) put(d *markets.Detail, body []byte) {
	if d.Source != nil {
		r.c.Add(d.Source, renderedBody{books: slices.Clone(d.Books), body: body})
	}
}
