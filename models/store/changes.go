package store

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
)

// The topics of a Change: what kind of row changed.
const (
	TopicOrders        = "orders"
	TopicFills         = "fills"
	TopicPositions     = "positions"
	TopicStrategies    = "strategies"
	TopicAgents        = "agents"
	TopicWallet        = "wallet"
	TopicNotifications = "notifications"
)

// Change says that something of a user changed: a hint for whoever shows
// it live (the dashboard) or acts on it (the notification dispatcher). It
// names what changed, never how: a reader reads the database again.
// UserID is "" when the writer did not know it; OrderID or StrategyID then
// names the row it belongs to (see UserOf).
type Change struct {
	UserID string
	Topic  string
	// OrderID or StrategyID name the changed row: always for a strategy
	// (the strategy triggers re-read it), otherwise when UserID is "".
	OrderID, StrategyID string
}

// OnChange has f told, once each commits, of the changes this store (and
// every store derived from it) writes: orders placed or updated, fills,
// positions, strategies and their executions, agents, notifications. f
// runs in the writer's goroutine after its commit, so it must not block:
// hand the change to a goroutine of its own (models/changes does). Each
// call adds a listener (the dashboard's feed, the strategy triggers of a
// single-process deployment); every one is told of every change.
func (s *Store) OnChange(f func(Change)) {
	for {
		old := s.changes.Load()
		var next []func(Change)
		if old != nil {
			next = append(next, *old...)
		}
		next = append(next, f)
		if s.changes.CompareAndSwap(old, &next) {
			return
		}
	}
}

// changed tells the OnChange listeners of c once what s wrote commits.
func (s *Store) changed(c Change) {
	if fs := s.changes.Load(); fs != nil && len(*fs) > 0 {
		s.afterCommit(func() {
			for _, f := range *fs {
				f(c)
			}
		})
	}
}

// UserOf fills in c.UserID from its order or strategy when the writer did
// not know it ("" when neither exists any more).
func (s *Store) UserOf(ctx context.Context, c Change) (string, error) {
	if c.UserID != "" {
		return c.UserID, nil
	}
	var ids []string
	var err error
	switch {
	case c.OrderID != "":
		err = s.db.WithContext(ctx).Model(&models.Order{}).Where("id = ?", c.OrderID).Limit(1).Pluck("user_id", &ids).Error
	case c.StrategyID != "":
		err = s.db.WithContext(ctx).Model(&models.Strategy{}).Where("id = ?", c.StrategyID).Limit(1).Pluck("user_id", &ids).Error
	}
	if err != nil || len(ids) == 0 {
		return "", mapErr(err, "change")
	}
	return ids[0], nil
}

// Notify sends payload on the PostgreSQL notification channel (NOTIFY):
// every connection listening there, in any process, receives it once this
// statement's transaction commits. Not for SQLite (one process: nothing
// to tell).
func (s *Store) Notify(ctx context.Context, channel, payload string) error {
	if s.dialect != Postgres {
		return errs.E(errs.Internal, "NOTIFY needs PostgreSQL")
	}
	return mapErr(s.db.WithContext(ctx).Exec("SELECT pg_notify(?, ?)", channel, payload).Error, "notify")
}

// Listen receives the payloads sent on a PostgreSQL notification channel
// (LISTEN) and calls fn with each, until ctx ends. It holds one
// connection of the pool and, when that connection fails, reports the
// error to onErr and takes another after a short wait, calling fn("") each
// time it listens anew: what was sent while it was not listening is lost,
// so the caller treats "" as "anything may have changed". Not for SQLite.
func (s *Store) Listen(ctx context.Context, channel string, fn func(payload string), onErr func(error)) error {
	if s.dialect != Postgres {
		return errs.E(errs.Internal, "LISTEN needs PostgreSQL")
	}
	ident := `"` + strings.ReplaceAll(channel, `"`, `""`) + `"`
	wait := 250 * time.Millisecond
	for {
		listened, err := s.listenOnce(ctx, ident, fn)
		if ctx.Err() != nil {
			return nil
		}
		if listened {
			wait = 250 * time.Millisecond
		} else {
			wait = min(2*wait, 5*time.Second)
		}
		if onErr != nil {
			onErr(err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

// listenOnce listens on one connection until it fails or ctx ends, and
// reports whether it got as far as listening.
func (s *Store) listenOnce(ctx context.Context, ident string, fn func(string)) (listened bool, _ error) {
	conn, err := s.sqlDB.Conn(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	err = conn.Raw(func(driverConn any) error {
		c, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return errs.E(errs.Internal, "the PostgreSQL driver is not pgx")
		}
		pc := c.Conn()
		if _, err := pc.Exec(ctx, "LISTEN "+ident); err != nil {
			return err
		}
		// UNLISTEN before the connection goes back to the pool.
		defer func() { _, _ = pc.Exec(context.WithoutCancel(ctx), "UNLISTEN "+ident) }()
		listened = true
		fn("")
		for {
			n, err := pc.WaitForNotification(ctx)
			if err != nil {
				return err
			}
			fn(n.Payload)
		}
	})
	return listened, err
}
