// Package persist keeps the sandbox venue's state on disk: the books'
// resting orders, trades, matches whose settlement is in flight, API keys
// and the market lifecycle, in a pebble database (the storage engine the
// sandbox chain already runs on) next to the chain's.
//
// Writers (the matching engine, the market layer, the API-key store) queue
// their changes while they hold their own locks, in the order the changes
// happen, and wait for them to be durable after releasing those locks. One
// goroutine writes the queue in order, a whole queue per batch synced to
// disk at once (group commit), so concurrent requests share an fsync and a
// slow disk never stalls the engine's lock. Values are JSON, encoded by
// that goroutine: a writer hands over a value nobody changes afterwards.
package persist

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/agent-trading/ats/venue"
)

// Store is an open state database.
type Store struct {
	db  *pebble.DB
	log *slog.Logger

	mu      sync.Mutex
	work    *sync.Cond // the writer waits here for changes
	written *sync.Cond // waiters wait here for the writer
	queue   []change
	queued  uint64 // sequence number of the newest queued change
	durable uint64 // sequence number of the newest change on disk
	err     error  // a failed write: nothing later can be called durable
	closing bool
	done    chan struct{}
}

type change struct {
	key    []byte
	value  any    // encoded by the writer
	end    []byte // set: delete [key, end)
	delete bool
}

// Options configure Open.
type Options struct {
	Logger *slog.Logger
	// FS is the file system; nil is the operating system's. Tests pass
	// vfs.NewCrashableMem to simulate a crash (MemFS.CrashClone).
	FS vfs.FS
}

// Open opens (creating) the database in dir.
func Open(dir string, o Options) (*Store, error) {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	fs := o.FS
	if fs == nil {
		fs = vfs.Default
	}
	if err := fs.MkdirAll(dir, 0o700); err != nil {
		return nil, venue.Wrap(venue.Internal, err, "create the sandbox state directory")
	}
	db, err := pebble.Open(dir, &pebble.Options{
		FS: fs,
		// The venue's state is small: a small memtable keeps the
		// footprint small.
		MemTableSize: 4 << 20,
		Logger:       pebbleLogger{log},
	})
	if err != nil {
		return nil, venue.Wrap(venue.Internal, err, "open the sandbox state database")
	}
	s := &Store{db: db, log: log, done: make(chan struct{})}
	s.work = sync.NewCond(&s.mu)
	s.written = sync.NewCond(&s.mu)
	go s.writer()
	return s, nil
}

// Put queues key = value and returns the change's sequence number. It never
// blocks on the disk; value is encoded later and must not change.
func (s *Store) Put(key string, value any) uint64 {
	return s.enqueue(change{key: []byte(key), value: value})
}

// Delete queues the removal of key.
func (s *Store) Delete(key string) uint64 {
	return s.enqueue(change{key: []byte(key), delete: true})
}

// DeleteRange queues the removal of every key in [start, end).
func (s *Store) DeleteRange(start, end string) uint64 {
	return s.enqueue(change{key: []byte(start), end: []byte(end), delete: true})
}

// Apply queues changes made together, as one: keys[i] gets values[i], or
// is deleted when values[i] is nil. They reach the disk in the same write
// or not at all. It returns the sequence number of the last.
func (s *Store) Apply(keys []string, values []any) uint64 {
	cs := make([]change, len(keys))
	for i, k := range keys {
		cs[i] = change{key: []byte(k), value: values[i], delete: values[i] == nil}
	}
	return s.enqueue(cs...)
}

// enqueue appends changes to the queue under one lock: the writer takes
// the whole queue at once, so changes queued together are written in the
// same batch (pebble applies a batch atomically).
func (s *Store) enqueue(cs ...change) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, cs...)
	s.queued += uint64(len(cs))
	s.work.Signal()
	return s.queued
}

// Wait returns once every change up to seq is on disk, or the error that
// kept one from getting there.
func (s *Store) Wait(seq uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.durable < seq && s.err == nil {
		s.written.Wait()
	}
	if s.durable >= seq {
		return nil
	}
	return s.err
}

// Sync waits for everything queued so far.
func (s *Store) Sync() error {
	s.mu.Lock()
	seq := s.queued
	s.mu.Unlock()
	return s.Wait(seq)
}

// writer commits the queue in order, one synced batch at a time.
func (s *Store) writer() {
	defer close(s.done)
	for {
		s.mu.Lock()
		for len(s.queue) == 0 && !s.closing {
			s.work.Wait()
		}
		if len(s.queue) == 0 {
			s.mu.Unlock()
			return
		}
		batch, last := s.queue, s.queued
		s.queue = nil
		failed := s.err != nil
		s.mu.Unlock()

		var err error
		if !failed {
			err = s.commit(batch)
		}
		s.mu.Lock()
		if err != nil && s.err == nil {
			s.log.Error("sandbox state: write failed; the venue refuses changes from now on", "err", err)
			s.err = venue.Wrap(venue.Internal, err, "the sandbox could not write its state")
		}
		if s.err == nil {
			s.durable = last
		}
		s.written.Broadcast()
		s.mu.Unlock()
	}
}

func (s *Store) commit(cs []change) error {
	b := s.db.NewBatch()
	defer b.Close()
	for _, c := range cs {
		var err error
		switch {
		case c.end != nil:
			err = b.DeleteRange(c.key, c.end, nil)
		case c.delete:
			err = b.Delete(c.key, nil)
		default:
			var v []byte
			if v, err = json.Marshal(c.value); err == nil {
				err = b.Set(c.key, v, nil)
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", c.key, err)
		}
	}
	return b.Commit(pebble.Sync)
}

// Scan calls fn for every key with the prefix, in key order, with the
// value's JSON.
func (s *Store) Scan(prefix string, fn func(key string, value []byte) error) error {
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte(prefix), UpperBound: prefixEnd([]byte(prefix))})
	if err != nil {
		return venue.Wrap(venue.Internal, err, "read the sandbox state")
	}
	defer it.Close()
	for it.First(); it.Valid(); it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			return venue.Wrap(venue.Internal, err, "read the sandbox state")
		}
		if err := fn(string(it.Key()), v); err != nil {
			return err
		}
	}
	if err := it.Error(); err != nil {
		return venue.Wrap(venue.Internal, err, "read the sandbox state")
	}
	return nil
}

// Get decodes the value of key into v and reports whether it exists.
func (s *Store) Get(key string, v any) (bool, error) {
	raw, closer, err := s.db.Get([]byte(key))
	if err == pebble.ErrNotFound {
		return false, nil
	}
	if err != nil {
		return false, venue.Wrap(venue.Internal, err, "read the sandbox state")
	}
	defer closer.Close()
	if err := json.Unmarshal(raw, v); err != nil {
		return false, venue.Wrap(venue.Internal, err, "the sandbox state is unreadable at "+key)
	}
	return true, nil
}

// Close writes what is queued and closes the database.
func (s *Store) Close() error {
	s.mu.Lock()
	s.closing = true
	s.work.Signal()
	s.mu.Unlock()
	<-s.done
	err := s.db.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	// Changes queued from now on are never written.
	s.err = venue.E(venue.Unavailable, "the sandbox is shutting down")
	s.written.Broadcast()
	return err
}

// prefixEnd is the smallest key greater than every key with the prefix.
func prefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil // every byte 0xff: no upper bound
}

// pebbleLogger sends pebble's errors to the sandbox's log and drops its
// chatter (it logs every flush and compaction).
type pebbleLogger struct{ log *slog.Logger }

func (pebbleLogger) Infof(string, ...any) {}

func (l pebbleLogger) Errorf(format string, args ...any) {
	l.log.Error("sandbox state database: " + fmt.Sprintf(format, args...))
}

func (l pebbleLogger) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	l.log.Error("sandbox state database: " + msg)
	panic("sandbox state database: " + msg)
}
