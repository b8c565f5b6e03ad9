package store

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agent-trading/ats/models/errs"
)

// The change feed's whole API is ChangesChannel, the Change* kinds,
// CanListenChanges and ListenChanges: the database announces a commit as
// "<kind>:<id>", and a listener learns which agent's (or user's) data to
// read again — never the data itself, so a repeated or forged notification
// costs a re-read and nothing more. models/readcache is the consumer today; any other
// (a live page, a second cache) reuses the same triggers and channel, and
// within one process should share one ListenChanges (each call holds a
// database connection of its own) by fanning its callback out.

// ChangesChannel is the PostgreSQL channel the database notifies of every
// committed change the read caches depend on (migration 00018): the
// payload is "<kind>:<id>", one of the Change kinds below.
const ChangesChannel = "ats_changes"

// Kinds of change, with the id they carry.
const (
	// ChangeAgent: an agent's row (status, scopes, limits, heartbeat
	// settings) or one of its keys' revocation or hash; the id is the
	// agent's.
	ChangeAgent = "agent"
	// ChangeBudget: a budget reservation of a user (any of their agents);
	// the id is the user's.
	ChangeBudget = "budget"
	// ChangePositions, ChangeOrders, ChangeStrategies: an agent's
	// positions, the status of one of its orders or strategies; the id is
	// the agent's.
	ChangePositions  = "positions"
	ChangeOrders     = "orders"
	ChangeStrategies = "strategies"
	// ChangeStrategy: one strategy was created or deleted, or changed
	// its status, its stored price conditions or (while it has any) its
	// last evaluation (migration 00021); the id is the strategy's. The
	// strategy triggers of every worker re-read it (Triggers.Follow).
	ChangeStrategy = "strategy"
)

// changesPing is how often a quiet change connection is checked, so a
// connection that died without a word is noticed.
const changesPing = 5 * time.Second

// CanListenChanges reports whether the database notifies changes
// (PostgreSQL). On SQLite one process owns the file and nothing else
// changes it behind that process's back.
func (s *Store) CanListenChanges() bool { return s.dialect == Postgres }

// ListenChanges listens to ChangesChannel on a connection of its own:
// live is called once the listening has begun (every change committed
// after that call is delivered to change, in commit order), then change for
// each notification, until ctx ends or the connection fails — which it
// returns (nil when ctx ended). Whatever committed between a failure and
// the next ListenChanges is not delivered: a caller caching reads flushes
// them before relying on the feed again.
func (s *Store) ListenChanges(ctx context.Context, live func(), change func(kind, id string)) error {
	if !s.CanListenChanges() {
		return errs.E(errs.Internal, "change notifications need PostgreSQL")
	}
	conn, err := pgx.Connect(ctx, s.url)
	if err != nil {
		return errs.Wrap(errs.Transient, err, "cannot connect to listen for changes")
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = conn.Close(cctx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+ChangesChannel); err != nil {
		return errs.Wrap(errs.Transient, err, "cannot listen for changes")
	}
	live()
	for {
		wctx, cancel := context.WithTimeout(ctx, changesPing)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return nil
		case err == nil:
			if kind, id, ok := strings.Cut(n.Payload, ":"); ok {
				change(kind, id)
			}
		case wctx.Err() != nil:
			// Quiet: make sure the connection still answers.
			pctx, cancel := context.WithTimeout(ctx, changesPing)
			err := conn.Ping(pctx)
			cancel()
			if err != nil && ctx.Err() == nil {
				return errs.Wrap(errs.Transient, err, "the change connection stopped answering")
			}
		default:
			return errs.Wrap(errs.Transient, err, "the change connection failed")
		}
	}
}
