package orders

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/micro"
	"github.com/agent-trading/ats/venue/ws"
)

// Listener keeps the worker listening to the venue for the orders it
// follows, so that fills and cancellations reach the orders' workflows as
// signals (through Router) instead of each order polling:
//
//   - one user-channel stream (venue/ws) per wallet with a live order —
//     pending or resting — using the wallet's venue API credentials,
//     which stay in this process and never enter Temporal;
//   - the funder addresses of those wallets, handed to the chain fill
//     watcher (SetMakers), whose OrderFilled logs are routed too;
//   - a reconciliation sweep per wallet, not per order: every SweepEvery
//     one REST call lists the wallet's open orders on the venue, and each
//     resting order the venue shows differently (filled further, or gone)
//     gets a sweep hint. It is the safety net for an event the stream and
//     the chain both missed.
//
// A stream starts within Refresh of a wallet's first live order, or at
// once when the placement calls Watch before it posts; it stays up Linger
// after the wallet's last order ended, so a wallet that trades on and off
// keeps its socket.
//
// Several workers may each run a Listener: every hint is verified by the
// workflow against the venue and a hint that tells it nothing new is
// dropped without a venue read (EventHint.Worth), so duplicates cost a
// lookup, never a wrong state.
type Listener struct {
	Store interface {
		UsersWithLiveOrders(ctx context.Context) ([]string, error)
		RestingOrders(ctx context.Context, userID string) ([]models.Order, error)
	}
	Wallets Wallets
	CLOB    *clob.Client
	// StreamsURL is the venue's WebSocket base (network.StreamsURL).
	StreamsURL string
	Router     *Router
	// SetMakers, when set, receives the funder addresses of the wallets
	// listened to (chain.Watcher.SetMakers).
	SetMakers func([]common.Address)
	// Refresh (15 s), SweepEvery (1 min) and Linger (2 min) pace the
	// listener; zero means the default.
	Refresh, SweepEvery, Linger time.Duration
	// Stream tunes the user streams (tests shorten the keepalive).
	Stream ws.Options
	Logger *slog.Logger

	mu      sync.Mutex
	streams map[string]*userStream // by user id
	nudge   chan struct{}
	once    sync.Once
}

// userStream is one wallet's user channel.
type userStream struct {
	funder  common.Address
	rest    *clob.Client
	cancel  context.CancelFunc
	done    chan struct{}
	idleFor time.Time // when the wallet's last live order ended; zero while it has some
}

// Listener defaults.
const (
	listenerRefresh    = 15 * time.Second
	listenerSweepEvery = time.Minute
	listenerLinger     = 2 * time.Minute
	// streamSince: a new stream replays the trades of this long before
	// it started, covering a match between a placement's Watch and the
	// socket's subscription.
	streamSince = time.Minute
	// eventTimeout bounds the routing of one event.
	eventTimeout = 10 * time.Second
)

func (l *Listener) init() {
	l.once.Do(func() {
		l.streams = map[string]*userStream{}
		l.nudge = make(chan struct{}, 1)
		if l.Logger == nil {
			l.Logger = slog.Default()
		}
		if l.Refresh <= 0 {
			l.Refresh = listenerRefresh
		}
		if l.SweepEvery <= 0 {
			l.SweepEvery = listenerSweepEvery
		}
		if l.Linger <= 0 {
			l.Linger = listenerLinger
		}
	})
}

// Watch asks the listener to look for new wallets now (the placement
// calls it before posting, so the wallet's stream is coming up while the
// order is posted). It never blocks.
func (l *Listener) Watch() {
	l.init()
	select {
	case l.nudge <- struct{}{}:
	default:
	}
}

// Listening reports how many wallets have a stream.
func (l *Listener) Listening() int {
	l.init()
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.streams)
}

// Run listens until ctx ends; it always returns ctx's error, after every
// stream stopped.
func (l *Listener) Run(ctx context.Context) error {
	l.init()
	refresh := time.NewTicker(l.Refresh)
	defer refresh.Stop()
	sweep := time.NewTicker(l.SweepEvery)
	defer sweep.Stop()
	defer l.stopAll()
	l.refresh(ctx)
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-l.nudge:
			l.refresh(ctx)
		case <-refresh.C:
			l.refresh(ctx)
		case <-sweep.C:
			l.Sweep(ctx)
		}
	}
}

// refresh starts a stream for each wallet with a live order, stops the
// streams of wallets idle for Linger, and hands the watched funders to
// the chain watcher.
func (l *Listener) refresh(ctx context.Context) {
	users, err := l.Store.UsersWithLiveOrders(ctx)
	if err != nil {
		l.Logger.WarnContext(ctx, "cannot list the wallets with live orders; trying at the next refresh", "err", err)
		return
	}
	live := make(map[string]bool, len(users))
	for _, u := range users {
		live[u] = true
		l.mu.Lock()
		us := l.streams[u]
		if us != nil {
			us.idleFor = time.Time{}
		}
		l.mu.Unlock()
		if us == nil {
			if err := l.start(ctx, u); err != nil {
				l.Logger.WarnContext(ctx, "cannot open the wallet's user stream; trying at the next refresh", "user_id", u, "err", err)
			}
		}
	}
	now := time.Now()
	var stop []*userStream
	var makers []common.Address
	l.mu.Lock()
	for u, us := range l.streams {
		if !live[u] {
			if us.idleFor.IsZero() {
				us.idleFor = now
			} else if now.Sub(us.idleFor) >= l.Linger {
				delete(l.streams, u)
				stop = append(stop, us)
				continue
			}
		}
		makers = append(makers, us.funder)
	}
	l.mu.Unlock()
	for _, us := range stop {
		us.cancel()
		<-us.done
	}
	if l.SetMakers != nil {
		l.SetMakers(makers)
	}
}

// start opens the user's stream with the wallet's venue credentials.
func (l *Listener) start(ctx context.Context, userID string) error {
	w, err := l.Wallets.Get(ctx, userID)
	if err != nil {
		return err
	}
	signer, err := l.Wallets.Signer(ctx, userID)
	if err != nil {
		return err
	}
	creds, err := l.Wallets.Creds(ctx, userID)
	if err != nil {
		return err
	}
	rest := l.CLOB.WithCreds(creds, signer.Address())
	opts := l.Stream
	opts.URL = l.StreamsURL
	s := ws.NewUserStream(ws.UserConfig{
		Options: opts,
		Auth:    ws.Auth{APIKey: creds.Key, Secret: creds.Secret, Passphrase: creds.Passphrase},
		REST:    rest,
		Since:   time.Now().Add(-streamSince),
	})
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	us := &userStream{funder: common.HexToAddress(w.Address), rest: rest, cancel: cancel, done: make(chan struct{})}
	l.mu.Lock()
	l.streams[userID] = us
	l.mu.Unlock()
	log := l.Logger.With("user_id", userID)
	go func() {
		defer close(us.done)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ev := range s.Events() {
				ectx, cancel := context.WithTimeout(sctx, eventTimeout)
				if err := l.Router.StreamEvent(ectx, ev); err != nil {
					// The sweep will find what this event said.
					log.WarnContext(ectx, "cannot route a venue event", "event", ev.EventType(), "err", err)
				}
				cancel()
			}
		}()
		_ = s.Run(sctx)
		wg.Wait()
	}()
	log.InfoContext(ctx, "listening to the wallet's venue events")
	return nil
}

func (l *Listener) stopAll() {
	l.mu.Lock()
	all := l.streams
	l.streams = map[string]*userStream{}
	l.mu.Unlock()
	for _, us := range all {
		us.cancel()
	}
	for _, us := range all {
		<-us.done
	}
}

// Sweep reconciles every listened wallet's resting orders with the venue
// in one REST call per wallet: an order the venue shows filled further
// than recorded, or no longer open, gets a sweep hint.
func (l *Listener) Sweep(ctx context.Context) {
	l.init()
	l.mu.Lock()
	users := make(map[string]*clob.Client, len(l.streams))
	for u, us := range l.streams {
		users[u] = us.rest
	}
	l.mu.Unlock()
	for u, rest := range users {
		if err := l.sweepWallet(ctx, u, rest); err != nil {
			l.Logger.WarnContext(ctx, "reconciliation sweep of a wallet failed; trying at the next sweep", "user_id", u, "err", err)
		}
	}
}

func (l *Listener) sweepWallet(ctx context.Context, userID string, rest *clob.Client) error {
	resting, err := l.Store.RestingOrders(ctx, userID)
	if err != nil || len(resting) == 0 {
		return err
	}
	open, err := rest.GetOpenOrders(ctx, clob.OpenOrderParams{})
	if err != nil {
		return err
	}
	matched := make(map[string]int64, len(open))
	for _, o := range open {
		matched[normHash(o.ID)] = micro.Truncate(o.SizeMatched.Decimal)
	}
	for _, o := range resting {
		m, isOpen := matched[normHash(o.VenueOrderID)]
		if isOpen && m == o.FilledSizeMicro {
			continue
		}
		if err := l.Router.Signaler.SignalOrder(ctx, o.ID, EventHint{Kind: HintSweep, Source: SourceSweep}); err != nil {
			return err
		}
	}
	return nil
}
