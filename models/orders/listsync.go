package orders

import (
	"context"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/micro"
)

// Defaults of the list sync (GET /orders?sync=true).
const (
	// DefaultListSyncWindow: a list sync that finished this recently is
	// not run again for the same agent. The order workflows follow every
	// live order anyway (every 2–30 s); the list sync only freshens the
	// answer, so an agent listing in a loop gets no more venue traffic
	// than one sync per window.
	DefaultListSyncWindow = 5 * time.Second
	// DefaultListSyncOrders bounds the orders one list sync brings up to
	// date one by one (those the venue's open-order list shows changed or
	// no longer lists); the rest are left to their workflows.
	DefaultListSyncOrders = 20
	// listSyncTimeout bounds a shared sync: it runs detached from the
	// request that started it, since other requests wait for it too.
	listSyncTimeout = 30 * time.Second
)

// listSyncs coalesces the list syncs of each agent: concurrent ones share
// one run (singleflight), and a run that finished within the window
// answers the next ones without reaching the venue. It is per process:
// with several API instances each coalesces its own requests, and the
// per-key rate limit bounds the total.
type listSyncs struct {
	flight singleflight.Group
	mu     sync.Mutex
	done   map[string]time.Time // agent id → when its last sync finished
}

// recent reports whether agentID's last sync finished within window of now.
func (l *listSyncs) recent(agentID string, now time.Time, window time.Duration) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	t, ok := l.done[agentID]
	return ok && now.Sub(t) < window
}

func (l *listSyncs) finished(agentID string, now time.Time, window time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done == nil {
		l.done = map[string]time.Time{}
	}
	if len(l.done) >= 10_000 {
		for id, t := range l.done {
			if now.Sub(t) >= window {
				delete(l.done, id)
			}
		}
	}
	l.done[agentID] = now
}

// syncAgent brings the agent's live orders up to date with the venue for a
// listing, coalesced and bounded as listSyncs says, and returns how many
// orders changed (shared by the requests that joined the same run; 0 when
// a recent run answered). A failed run is logged, not returned: the
// listing answers the stored orders.
func (s *Service) syncAgent(ctx context.Context, agentID string) int {
	window := s.ListSyncWindow
	if window <= 0 {
		window = DefaultListSyncWindow
	}
	if s.listSyncs.recent(agentID, time.Now(), window) {
		return 0
	}
	v, _, _ := s.listSyncs.flight.Do(agentID, func() (any, error) {
		// A run that finished while this caller was arriving counts too.
		if s.listSyncs.recent(agentID, time.Now(), window) {
			return 0, nil
		}
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), listSyncTimeout)
		defer cancel()
		n, err := s.syncLive(sctx, agentID)
		if err != nil {
			s.log().WarnContext(ctx, "order list sync failed; answering the stored orders", "agent_id", agentID, "err", err)
		}
		// A failed run also counts: retrying it at once would only send
		// the venue the same requests again.
		s.listSyncs.finished(agentID, time.Now(), window)
		return n, nil
	})
	n, _ := v.(int)
	return n
}

// syncLive is one list sync: one paginated request for the wallet's open
// orders on the venue, then a full sync (order and trades) only of the
// agent's orders the venue shows changed or no longer lists as open, at
// most ListSyncOrders of them.
func (s *Service) syncLive(ctx context.Context, agentID string) (int, error) {
	open, err := s.Store.ListOrders(ctx, store.OrderFilter{AgentID: agentID, Limit: 100,
		Statuses: []string{models.OrderOpen, models.OrderPartiallyFilled, models.OrderPending}})
	if err != nil {
		return 0, err
	}
	placed := open[:0]
	for _, o := range open {
		if o.VenueOrderID != "" {
			placed = append(placed, o)
		}
	}
	if len(placed) == 0 {
		return 0, nil // nothing on the venue: no request at all
	}
	t, err := s.trader(ctx, placed[0].UserID)
	if err != nil {
		return 0, err
	}
	live, err := t.Client.GetOpenOrders(ctx, clob.OpenOrderParams{})
	if err != nil {
		return 0, s.venueErr(ctx, placed[0].UserID, err)
	}
	byID := make(map[string]clob.OpenOrder, len(live))
	for _, vo := range live {
		byID[strings.ToLower(vo.ID)] = vo
	}
	limit := s.ListSyncOrders
	if limit <= 0 {
		limit = DefaultListSyncOrders
	}
	updated, synced := 0, 0
	for i := range placed {
		o := &placed[i]
		if vo, ok := byID[strings.ToLower(o.VenueOrderID)]; ok && unchangedOnVenue(o, vo) {
			continue
		}
		if synced == limit {
			s.log().InfoContext(ctx, "order list sync bounded; the rest are left to their workflows", "agent_id", agentID, "limit", limit)
			break
		}
		synced++
		v, err := s.syncWith(ctx, t, o)
		if err != nil {
			s.log().WarnContext(ctx, "order sync failed", "order_id", o.ID, "err", err)
			continue
		}
		if v.Status != o.Status || micro.Truncate(v.FilledSize) != o.FilledSizeMicro {
			updated++
		}
	}
	return updated, nil
}

// unchangedOnVenue reports whether the venue's open-order entry vo says
// nothing new about o: o is recorded open with the size the venue reports
// matched.
func unchangedOnVenue(o *models.Order, vo clob.OpenOrder) bool {
	if o.Status != models.OrderOpen && o.Status != models.OrderPartiallyFilled {
		return false // PENDING: the venue's answer moves it on
	}
	matched, err := micro.Round(vo.SizeMatched.Decimal)
	return err == nil && matched == o.FilledSizeMicro && venueStatus(vo.Status, o, matched) == o.Status
}
