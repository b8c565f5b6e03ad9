package orders

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/venue/chain"
	"github.com/agent-trading/ats/venue/micro"
	"github.com/agent-trading/ats/venue/ws"
)

// Kinds of venue event an order's workflow is told of.
const (
	// HintFill: the order matched (some or all of it).
	HintFill = "fill"
	// HintEnded: the order left the book (cancelled, expired, killed).
	HintEnded = "ended"
	// HintSweep: the reconciliation sweep found the venue and the order's
	// record disagreeing.
	HintSweep = "sweep"
)

// Sources of a hint.
const (
	SourceStream = "user_stream"
	SourceChain  = "chain"
	SourceSweep  = "sweep"
)

// EventHint is what an order's workflow is told when the venue or the
// chain reports a change of the order. It is a hint and nothing more: it
// carries no wallet data and decides nothing — the workflow asks the
// venue (SyncOrder) what happened and records that, so a forged, stale or
// repeated hint costs at most one venue read and changes nothing.
type EventHint struct {
	Kind   string `json:"kind"`
	Source string `json:"source"`
	// FilledMicro is the order's matched size in micro-shares when the
	// event says it (a user-channel UPDATE); 0 when unknown.
	FilledMicro int64 `json:"filled_micro,omitempty"`
}

// Worth reports whether the hint may tell the workflow something it does
// not know, given the order's status and filled size as it knows them:
// a repeated or stale event is not worth a venue read.
func (h EventHint) Worth(status string, filledMicro int64) bool {
	if TerminalStatus(status) {
		return false
	}
	switch h.Kind {
	case HintFill:
		return h.FilledMicro == 0 || h.FilledMicro > filledMicro
	case HintEnded, HintSweep:
		return true
	}
	return false
}

// Signaler tells an order's workflow of an event; workflows.OrderDeskClient
// implements it. An order whose workflow has ended is no error.
type Signaler interface {
	SignalOrder(ctx context.Context, orderID string, h EventHint) error
}

// Router turns venue and chain events into hints for the workflows of
// the orders concerned: it finds the order by its venue id (the order
// hash) and signals its workflow. Events of orders the service does not
// know, or knows as ended, are dropped. It is safe for concurrent use.
type Router struct {
	Store interface {
		OrderByVenueID(ctx context.Context, venueOrderID string) (*models.Order, error)
		ListFills(ctx context.Context, orderID string) ([]models.Fill, error)
	}
	Signaler Signaler
	Logger   *slog.Logger
	// PendingDelay is how long an event of an order still PENDING waits
	// before it is routed again (DefaultPendingDelay when zero); see route.
	PendingDelay time.Duration

	// mu guards closed and deferred: the timers of the events put off
	// (routeAfter), stopped by Close.
	mu       sync.Mutex
	closed   bool
	deferred map[*time.Timer]struct{}

	once sync.Once
	// told remembers the (order, trade) pairs signalled lately: a trade is
	// re-sent at each settlement status (MATCHED, MINED, CONFIRMED) and
	// the first signal is all the workflow needs.
	told *lru.Cache[string, struct{}]
}

// routerMemory bounds the (order, trade) pairs the router remembers.
const routerMemory = 10_000

func (r *Router) log() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.Default()
}

// DefaultPendingDelay is Router.PendingDelay's default: about what a
// placement takes from its post to its recorded answer, under load.
const DefaultPendingDelay = time.Second

// pendingDeferrals bounds how many times an event of an order that stays
// PENDING is put off before it is routed as it stands.
const pendingDeferrals = 5

// route signals the workflow of the order with venue id hash. With
// tradeID set, an order that recorded that trade already is not told
// again (a trade is re-sent at each settlement status).
func (r *Router) route(ctx context.Context, hash, tradeID string, h EventHint) error {
	return r.routeAfter(ctx, hash, tradeID, h, 0)
}

// routeAfter is route for an event put off deferred times already. An
// event of an order still PENDING — the venue reporting the match of
// the post in flight, which the placement attempt records from the
// post's own answer — is routed again after PendingDelay rather than at
// once: by then the order is placed and the event usually tells nothing
// new (a marketable copy is FILLED), while a signal that reached its
// workflow during the placement's workflow task made the server refuse
// that task's completion (new events) and the attempt run again. An event
// the placement does not account for (a fill after the post's answer) is
// still routed, later; one lost with this process is found by the
// listener's sweep, as any.
func (r *Router) routeAfter(ctx context.Context, hash, tradeID string, h EventHint, deferred int) error {
	if hash == "" {
		return nil
	}
	o, err := r.Store.OrderByVenueID(ctx, normHash(hash))
	if errs.Is(err, errs.NotFound) {
		return nil // not ours (another client of the same key), or not recorded yet
	}
	if err != nil {
		return err
	}
	if o.Status == models.OrderPending && deferred < pendingDeferrals {
		r.putOff(ctx, o.ID, func(ctx context.Context) error { return r.routeAfter(ctx, hash, tradeID, h, deferred+1) })
		return nil
	}
	if !h.Worth(o.Status, o.FilledSizeMicro) {
		return nil
	}
	if tradeID != "" {
		r.once.Do(func() { r.told, _ = lru.New[string, struct{}](routerMemory) })
		if r.told.Contains(o.ID + "/" + tradeID) {
			return nil
		}
		fills, err := r.Store.ListFills(ctx, o.ID)
		if err != nil {
			return err
		}
		for _, f := range fills {
			if f.VenueTradeID == tradeID {
				return nil
			}
		}
	}
	if err := r.Signaler.SignalOrder(ctx, o.ID, h); err != nil {
		return err
	}
	if tradeID != "" {
		r.told.Add(o.ID+"/"+tradeID, struct{}{})
	}
	r.log().DebugContext(ctx, "order event routed", "order_id", o.ID, "kind", h.Kind, "source", h.Source)
	return nil
}

// deferredTimeout bounds the routing of an event put off (the caller's
// own bound ended with its call).
const deferredTimeout = 10 * time.Second

// putOff runs route after PendingDelay, unless the router is closed
// first (the event is then left to the sweep, as one lost with the
// process is).
func (r *Router) putOff(ctx context.Context, orderID string, route func(context.Context) error) {
	delay := r.PendingDelay
	if delay <= 0 {
		delay = DefaultPendingDelay
	}
	base := context.WithoutCancel(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	if r.deferred == nil {
		r.deferred = map[*time.Timer]struct{}{}
	}
	var t *time.Timer
	t = time.AfterFunc(delay, func() {
		r.mu.Lock()
		delete(r.deferred, t)
		r.mu.Unlock()
		ctx, cancel := context.WithTimeout(base, deferredTimeout)
		defer cancel()
		if err := route(ctx); err != nil {
			r.log().WarnContext(ctx, "routing a deferred order event failed; the sweep will find it", "order_id", orderID, "err", err)
		}
	})
	r.deferred[t] = struct{}{}
}

// Close stops the events put off and puts off no more: the process is
// stopping, its Temporal client and store about to close. A deferred
// route already running finishes.
func (r *Router) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	for t := range r.deferred {
		t.Stop()
	}
	r.deferred = nil
}

// StreamEvent routes one user-channel event: an order UPDATE (matched
// size), a CANCELLATION, or a trade for the taker order and each maker
// order in it that has not recorded it yet (a trade is first seen
// MATCHED, or at a later status when it matched during a gap). PLACEMENT
// and a FAILED or RETRYING trade are left to the sweep: the first
// changes nothing the order records, the others are rare and settle
// later.
func (r *Router) StreamEvent(ctx context.Context, ev ws.Event) error {
	switch e := ev.(type) {
	case *ws.OrderEvent:
		switch e.Type {
		case ws.OrderUpdate:
			return r.route(ctx, e.ID, "", EventHint{Kind: HintFill, Source: SourceStream, FilledMicro: micro.Truncate(e.SizeMatched)})
		case ws.OrderCancellation:
			return r.route(ctx, e.ID, "", EventHint{Kind: HintEnded, Source: SourceStream})
		}
	case *ws.TradeEvent:
		switch e.Status {
		case ws.TradeMatched, ws.TradeMined, ws.TradeConfirmed:
		default:
			return nil
		}
		hint := EventHint{Kind: HintFill, Source: SourceStream}
		err := r.route(ctx, e.TakerOrderID, e.ID, hint)
		for _, m := range e.MakerOrders {
			err = errors.Join(err, r.route(ctx, m.OrderID, e.ID, hint))
		}
		return err
	}
	return nil
}

// ChainFill routes one OrderFilled log: the order with that hash filled
// (some of it) on chain. The log names no venue trade, so an order told
// of the fill by the user channel already reads the venue once more.
func (r *Router) ChainFill(ctx context.Context, f chain.Fill) error {
	return r.route(ctx, f.OrderHash.Hex(), "", EventHint{Kind: HintFill, Source: SourceChain})
}

// normHash is an order hash as the store keeps it (go-ethereum's Hex:
// lower case).
func normHash(h string) string { return strings.ToLower(h) }
