// Package changes tells the parts of a deployment that show or act on a
// user's data what changed for which user, as it commits: the dashboard's
// live pages (server-sent events) and the notification dispatcher.
//
// The store reports every committed write a user may watch
// (store.OnChange: orders, fills, positions, strategies and their
// executions, agents, notifications). Feed hands those to a Hub, which
// fans them out in the process to whoever subscribed to the user (or to
// every user). With PostgreSQL, where `ats api` and `ats worker` are
// separate processes sharing the database, the changes travel through the
// database's own NOTIFY/LISTEN instead, so a fill the worker records
// reaches the page the API process serves; with SQLite there is one
// process, and the hub is fed directly.
//
// A change is a hint, never data: it names a user and a topic, and a
// subscriber reads the database again. Hints may be coalesced or, under
// overload, dropped: a subscriber that missed some is told so (Sub.Lost)
// and reads everything again. Nothing in a change decides anything.
//
// The API is small on purpose, so that another source of changes can feed
// the same subscribers: consumers (the /live stream, the webhook
// dispatcher) know only Hub.Subscribe, Sub.C, Sub.Lost and Sub.Close;
// producers only Hub.Publish(Change{UserID, Topic}) (a Change without a
// user meaning "anything may have changed"). Feed is one producer (the
// store's after-commit hints, through NOTIFY on PostgreSQL); a producer
// fed by database triggers instead would replace it, and no consumer
// would change.
package changes

import (
	"context"
	"log/slog"
	"strings"
	"sync"

	"github.com/agent-trading/ats/models/store"
)

// Topics are store's (store.TopicOrders …), plus Prices, which the
// dashboard's price subscriptions raise.
const (
	Orders        = store.TopicOrders
	Fills         = store.TopicFills
	Positions     = store.TopicPositions
	Strategies    = store.TopicStrategies
	Agents        = store.TopicAgents
	Wallet        = store.TopicWallet
	Notifications = store.TopicNotifications
	Prices        = "prices"
)

// Change is one hint: something of UserID under Topic changed.
type Change struct {
	UserID, Topic string
}

// subBuffer is how many changes a subscriber may fall behind before it is
// told it lost some.
const subBuffer = 64

// Hub fans changes out to subscribers in the process. The zero value is
// not usable; use NewHub.
type Hub struct {
	mu    sync.Mutex
	users map[string]map[*Sub]struct{}
	all   map[*Sub]struct{}
}

// NewHub returns an empty hub.
func NewHub() *Hub {
	return &Hub{users: map[string]map[*Sub]struct{}{}, all: map[*Sub]struct{}{}}
}

// Sub is one subscription. Read C; Close when done.
type Sub struct {
	C    chan Change
	hub  *Hub
	user string
	// topics, when set, are the only topics sent.
	topics map[string]bool

	mu   sync.Mutex
	lost bool
	once sync.Once
}

// Subscribe subscribes to userID's changes, or to every user's when
// userID is "", of the given topics (every topic when none is given).
func (h *Hub) Subscribe(userID string, topics ...string) *Sub {
	s := &Sub{C: make(chan Change, subBuffer), hub: h, user: userID}
	if len(topics) > 0 {
		s.topics = map[string]bool{}
		for _, t := range topics {
			s.topics[t] = true
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if userID == "" {
		h.all[s] = struct{}{}
		return s
	}
	m := h.users[userID]
	if m == nil {
		m = map[*Sub]struct{}{}
		h.users[userID] = m
	}
	m[s] = struct{}{}
	return s
}

// Close ends the subscription; C is not closed (the reader just stops).
func (s *Sub) Close() {
	s.once.Do(func() {
		h := s.hub
		h.mu.Lock()
		defer h.mu.Unlock()
		if s.user == "" {
			delete(h.all, s)
			return
		}
		if m := h.users[s.user]; m != nil {
			delete(m, s)
			if len(m) == 0 {
				delete(h.users, s.user)
			}
		}
	})
}

// Lost reports, once, that changes were dropped because the subscriber
// fell behind (or the process stopped hearing the database for a while):
// it should read everything again.
func (s *Sub) Lost() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.lost
	s.lost = false
	return l
}

func (s *Sub) send(c Change) {
	if s.topics != nil && !s.topics[c.Topic] {
		return
	}
	select {
	case s.C <- c:
	default:
		s.mu.Lock()
		s.lost = true
		s.mu.Unlock()
		// Wake the reader even with a full buffer: it checks Lost.
	}
}

// Publish hands c to the user's subscribers and to those of every user.
// It never blocks. A change without a user (the database connection was
// lost and found again) marks every subscriber Lost.
func (h *Hub) Publish(c Change) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if c.UserID == "" {
		for _, m := range h.users {
			for s := range m {
				s.markLost()
			}
		}
		for s := range h.all {
			s.markLost()
		}
		return
	}
	for s := range h.users[c.UserID] {
		s.send(c)
	}
	for s := range h.all {
		s.send(c)
	}
}

func (s *Sub) markLost() {
	s.mu.Lock()
	s.lost = true
	s.mu.Unlock()
	select {
	case s.C <- Change{}:
	default:
	}
}

// channel is the PostgreSQL notification channel of the users' changes
// ("<user id> <topic>"). It is not store.ChangesChannel, which the
// database's own triggers fill for the read caches ("<kind>:<id>"): the
// two listeners never parse each other's payloads.
const channel = "ats_user_changes"

// feedBuffer bounds the changes waiting to be resolved and published; a
// writer never waits for them.
const feedBuffer = 4096

// feedBatch bounds the changes resolved and sent together.
const feedBatch = 256

// ownerCache remembers whose the orders and strategies whose changes
// were resolved are (an order or strategy never changes owner), so the
// changes of an order being placed cost one read of its owner, not one
// each. Used by the feed's one goroutine only.
type ownerCache struct {
	users map[string]string // order or strategy id → user id
}

// ownerCacheSize bounds the cache; it starts over when full.
const ownerCacheSize = 10_000

func (o *ownerCache) of(ctx context.Context, st *store.Store, c store.Change) string {
	if c.UserID != "" {
		return c.UserID
	}
	id := c.OrderID
	if id == "" {
		id = c.StrategyID
	}
	if user, ok := o.users[id]; ok {
		return user
	}
	user, err := st.UserOf(ctx, c)
	if err != nil || user == "" {
		return ""
	}
	if o.users == nil || len(o.users) >= ownerCacheSize {
		o.users = make(map[string]string)
	}
	o.users[id] = user
	return user
}

// Feed connects st's changes to h until ctx ends, and returns when its
// goroutines have stopped. On SQLite the store's changes go to h; on
// PostgreSQL they go to every process through NOTIFY, and this process's
// hub hears every process's (its own included) through LISTEN. A change
// whose writer did not know the user (an order updated by id) is resolved
// to its user here, off the writer's path.
func Feed(ctx context.Context, st *store.Store, h *Hub, log *slog.Logger) (done <-chan struct{}) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	in := make(chan store.Change, feedBuffer)
	st.OnChange(func(c store.Change) {
		select {
		case in <- c:
		default:
			// Overloaded: the hint is dropped. Whoever watches this
			// user sees the next change; the dashboard's pages also
			// re-read on reconnect.
		}
	})
	pg := st.Dialect() == store.Postgres
	users := &ownerCache{}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case c := <-in:
				// What queued meanwhile goes with it, each (user, topic)
				// once: an order's placement writes its row several times
				// in a few milliseconds, and one hint tells the same.
				batch := []store.Change{c}
			drain:
				for len(batch) < feedBatch {
					select {
					case c := <-in:
						batch = append(batch, c)
					default:
						break drain
					}
				}
				sent := make(map[Change]bool, len(batch))
				for _, c := range batch {
					user := users.of(ctx, st, c)
					ch := Change{UserID: user, Topic: c.Topic}
					if user == "" || sent[ch] {
						continue
					}
					sent[ch] = true
					if !pg {
						h.Publish(ch)
						continue
					}
					if err := st.Notify(ctx, channel, user+" "+c.Topic); err != nil && ctx.Err() == nil {
						log.WarnContext(ctx, "change not sent to the other processes", "err", err)
					}
				}
			}
		}
	}()
	if pg {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = st.Listen(ctx, channel, func(p string) {
				user, topic, _ := strings.Cut(p, " ")
				h.Publish(Change{UserID: user, Topic: topic})
			}, func(err error) {
				log.WarnContext(ctx, "database notifications interrupted; listening again", "err", err)
			})
		}()
	}
	out := make(chan struct{})
	go func() {
		wg.Wait()
		close(out)
	}()
	return out
}
