package dashboard

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/models/changes"
	"github.com/agent-trading/ats/models/pricefeed"
)

// LiveQuotes is the process's price feed as the live pages use it:
// *pricefeed.Feed implements it.
type LiveQuotes interface {
	Subscribe(tokenID string) *pricefeed.Subscription
}

// Live stream timings: changes are gathered for liveCoalesce before they
// are sent (a fill touches the order, the fill and the position at once);
// price changes are sent at most every livePriceEvery; a comment every
// liveKeepAlive keeps proxies from closing an idle stream.
const (
	liveCoalesce   = 250 * time.Millisecond
	livePriceEvery = 2 * time.Second
	liveKeepAlive  = 20 * time.Second
	// liveMaxAge ends a stream after a while; the browser reconnects at
	// once, so a session that ended meanwhile stops getting hints.
	liveMaxAge = 30 * time.Minute
)

// liveTopics are the topics a page may follow.
var liveTopics = []string{changes.Orders, changes.Fills, changes.Positions, changes.Strategies, changes.Agents,
	changes.Wallet, changes.Notifications, changes.Prices}

// live is the live pages' server-sent event stream (GET /live?topics=…):
// it tells the page, as it happens, that something it shows changed —
// "change" events naming the topics — and the page then reads itself
// again. It sends hints only, never data: what the page shows is always
// what the signed-in session reads. The sources are the service's own
// (models/changes: the order lifecycle, fills, strategy executions,
// positions, agents, notifications — from this process or, on
// PostgreSQL, any process; the price feed for the prices of the user's
// open positions), so the stream never polls the venue. A visitor not
// signed in gets 204, which tells EventSource to stop.
func (h *handler) live(c *gin.Context) {
	u := userOf(c)
	if u == nil || h.d.Changes == nil {
		c.Status(http.StatusNoContent)
		return
	}
	want := map[string]bool{}
	for _, t := range strings.Split(c.Query("topics"), " ") {
		if slices.Contains(liveTopics, t) {
			want[t] = true
		}
	}
	if len(want) == 0 {
		c.Status(http.StatusNoContent)
		return
	}
	ctx := c.Request.Context()
	rc := http.NewResponseController(c.Writer)
	// The API listener's write deadline is for answers, not streams.
	_ = rc.SetWriteDeadline(time.Time{})
	hd := c.Writer.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Accel-Buffering", "no")
	c.Status(http.StatusOK)

	sub := h.d.Changes.Subscribe(u.ID)
	defer sub.Close()
	prices := make(chan struct{}, 1)
	var follow *priceFollow
	if want[changes.Prices] && h.d.Quotes != nil {
		follow = &priceFollow{quotes: h.d.Quotes, ping: prices}
		defer follow.close()
		follow.set(h.openTokens(c, u.ID))
	}

	send := func(event string, v any) bool {
		b, _ := json.Marshal(v)
		if _, err := fmt.Fprintf(c.Writer, "event: %s\ndata: %s\n\n", event, b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !send("ready", map[string]any{"at": time.Now().UTC()}) {
		return
	}
	pending := map[string]bool{}
	var flush <-chan time.Time
	lastPrice := time.Time{}
	keep := time.NewTicker(liveKeepAlive)
	defer keep.Stop()
	end := time.After(liveMaxAge)
	for {
		select {
		case <-ctx.Done():
			return
		case <-end:
			return
		case <-keep.C:
			if _, err := fmt.Fprint(c.Writer, ": keep-alive\n\n"); err != nil || rc.Flush() != nil {
				return
			}
		case ch := <-sub.C:
			if sub.Lost() {
				for t := range want {
					pending[t] = true
				}
			} else if want[ch.Topic] {
				pending[ch.Topic] = true
			}
			if follow != nil && (ch.Topic == changes.Positions || ch.Topic == changes.Fills) {
				follow.set(h.openTokens(c, u.ID))
			}
			if len(pending) > 0 && flush == nil {
				flush = time.After(liveCoalesce)
			}
		case <-prices:
			wait := livePriceEvery - time.Since(lastPrice)
			pending[changes.Prices] = true
			if flush == nil {
				flush = time.After(max(wait, liveCoalesce))
			}
		case <-flush:
			flush = nil
			if pending[changes.Prices] {
				lastPrice = time.Now()
			}
			topics := make([]string, 0, len(pending))
			for t := range pending {
				topics = append(topics, t)
			}
			slices.Sort(topics)
			clear(pending)
			if !send("change", map[string]any{"topics": topics, "at": time.Now().UTC()}) {
				return
			}
		}
	}
}

// openTokens lists the tokens of the user's open positions (an error
// only means no price following until the next change).
func (h *handler) openTokens(c *gin.Context, userID string) []string {
	toks, err := h.d.Portfolio.OpenTokens(c.Request.Context(), userID)
	if err != nil {
		api.LoggerFrom(c).WarnContext(c.Request.Context(), "live prices: the open positions could not be read", "error", err)
	}
	return toks
}

// priceFollow holds the price feed's subscriptions of one stream's tokens
// and pings when any of their quotes changes.
type priceFollow struct {
	quotes LiveQuotes
	ping   chan struct{}
	subs   map[string]*priceSub
}

type priceSub struct {
	sub  *pricefeed.Subscription
	done chan struct{}
}

// set follows exactly tokens: new ones are subscribed, gone ones released.
func (f *priceFollow) set(tokens []string) {
	if f.subs == nil {
		f.subs = map[string]*priceSub{}
	}
	keep := map[string]bool{}
	for _, t := range tokens {
		keep[t] = true
		if f.subs[t] != nil {
			continue
		}
		ps := &priceSub{sub: f.quotes.Subscribe(t), done: make(chan struct{})}
		f.subs[t] = ps
		go func() {
			for {
				select {
				case <-ps.done:
					return
				case <-ps.sub.Updates():
					select {
					case f.ping <- struct{}{}:
					default:
					}
				}
			}
		}()
	}
	for t, ps := range f.subs {
		if !keep[t] {
			ps.stop()
			delete(f.subs, t)
		}
	}
}

func (ps *priceSub) stop() {
	close(ps.done)
	ps.sub.Close()
}

func (f *priceFollow) close() {
	for t, ps := range f.subs {
		ps.stop()
		delete(f.subs, t)
	}
}
