package orders

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/agent-trading/ats/venue/micro"
	"github.com/agent-trading/ats/venue/ws"
)

// SourcePaper marks a hint from the paper exchange's trade watcher.
const SourcePaper = "paper"

// PaperSource is the venue's market channel as the paper watcher reads it;
// *ws.MarketStream implements it.
type PaperSource interface {
	Subscribe(assetIDs ...string)
	Unsubscribe(assetIDs ...string)
	Events() <-chan ws.Event
}

// PaperWatcher fills resting paper orders from the venue's trade stream
// (docs/paper-trading.md): it keeps the market channel subscribed to the
// tokens that have paper orders resting, hands each trade of those tokens
// to the queue model (Service.ApplyPaperTrade), and tells the workflow of
// each order that filled (a hint, as the live order events are: the
// workflow then reads the order, Sync). It reads the venue; it never
// writes to it. Every worker process runs one; a trade seen by two
// workers fills nothing twice (the fill's id is the trade's), though both
// draw the order's queue down — see the document's biases.
type PaperWatcher struct {
	Orders   *Service
	Source   PaperSource
	Signaler Signaler
	// Refresh is how often the set of tokens is read again, for paper
	// orders that came to rest in another process (default 5 s); one in
	// this process nudges it at once (Watch).
	Refresh time.Duration
	Logger  *slog.Logger

	once   sync.Once
	nudge  chan struct{}
	tokens map[string]bool
	seen   *lru.Cache[string, struct{}]
}

func (w *PaperWatcher) init() {
	w.once.Do(func() {
		w.nudge = make(chan struct{}, 1)
		w.tokens = map[string]bool{}
		w.seen, _ = lru.New[string, struct{}](routerMemory)
		if w.Refresh <= 0 {
			w.Refresh = 5 * time.Second
		}
		if w.Logger == nil {
			w.Logger = slog.Default()
		}
	})
}

// Watch tells the watcher a paper order came to rest: it subscribes its
// token at once. It never blocks.
func (w *PaperWatcher) Watch() {
	w.init()
	select {
	case w.nudge <- struct{}{}:
	default:
	}
}

// Run watches until ctx ends.
func (w *PaperWatcher) Run(ctx context.Context) error {
	w.init()
	tick := time.NewTicker(w.Refresh)
	defer tick.Stop()
	w.sync(ctx)
	events := w.Source.Events()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-w.nudge:
			w.sync(ctx)
		case <-tick.C:
			w.sync(ctx)
		case e, ok := <-events:
			if !ok {
				return nil
			}
			if t, ok := e.(*ws.LastTradePriceEvent); ok && w.tokens[t.AssetID] {
				w.trade(ctx, t)
			}
		}
	}
}

// sync subscribes the tokens with resting paper orders and drops the
// others.
func (w *PaperWatcher) sync(ctx context.Context) {
	rows, err := w.Orders.Store.RestingPaperOrders(ctx, "")
	if err != nil {
		w.Logger.WarnContext(ctx, "paper watcher cannot list resting paper orders", "err", err)
		return
	}
	want := map[string]bool{}
	var add []string
	for _, o := range rows {
		if !want[o.TokenID] && !w.tokens[o.TokenID] {
			add = append(add, o.TokenID)
		}
		want[o.TokenID] = true
	}
	var drop []string
	for t := range w.tokens {
		if !want[t] {
			drop = append(drop, t)
		}
	}
	if len(add) > 0 {
		w.Source.Subscribe(add...)
	}
	if len(drop) > 0 {
		w.Source.Unsubscribe(drop...)
	}
	w.tokens = want
}

func (w *PaperWatcher) trade(ctx context.Context, e *ws.LastTradePriceEvent) {
	price, err := micro.Round(e.Price)
	if err != nil {
		return
	}
	size := micro.Truncate(e.Size)
	if size <= 0 {
		return
	}
	id := e.TransactionHash
	if id == "" {
		id = strconv.FormatInt(e.Timestamp.UnixNano(), 10)
	}
	id = e.AssetID + ":" + id + ":" + price2s(price) + ":" + strconv.FormatInt(size, 10)
	if w.seen.Contains(id) {
		return
	}
	w.seen.Add(id, struct{}{})
	at := e.Timestamp
	if at.IsZero() {
		at = time.Now()
	}
	filled, err := w.Orders.ApplyPaperTrade(ctx, PaperTrade{TokenID: e.AssetID, PriceMicro: price, SizeMicro: size, ID: id, Time: at.UTC()})
	if err != nil {
		w.Logger.WarnContext(ctx, "paper fill from a venue trade failed", "token_id", e.AssetID, "err", err)
	}
	for _, f := range filled {
		if w.Signaler == nil {
			continue
		}
		if err := w.Signaler.SignalOrder(ctx, f.OrderID, EventHint{Kind: HintFill, Source: SourcePaper, FilledMicro: f.FilledMicro}); err != nil {
			w.Logger.WarnContext(ctx, "cannot tell a paper order's workflow of its fill", "order_id", f.OrderID, "err", err)
		}
	}
}

func price2s(p int64) string { return strconv.FormatInt(p, 10) }
