package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/ulule/limiter/v3"
	"github.com/ulule/limiter/v3/drivers/store/memory"
	sredis "github.com/ulule/limiter/v3/drivers/store/redis"

	"github.com/agent-trading/ats/models/errs"
)

// KeyPrefix starts every counter's key, in Redis ("ats:ratelimit:<scope>:
// <kind>:<id>") and in memory, so the service's counters are recognisable
// in a Redis shared with other data.
const KeyPrefix = "ats:ratelimit"

// memoryCleanUp is how often the memory store drops expired counters. It
// bounds the memory held by keys that stopped calling, at the cost of one
// scan per interval.
const memoryCleanUp = time.Minute

// redisConnectTimeout bounds the start-up check of NewRedisStore.
const redisConnectTimeout = 5 * time.Second

// Store holds the counters: in process memory (NewMemoryStore), or in Redis
// (NewRedisStore) so that several API instances share one budget per key.
type Store struct {
	s      limiter.Store
	kind   string
	remote bool
	client redis.UniversalClient
}

// NewMemoryStore returns a store private to this process: the default for a
// single API instance. Its counters are lost on restart, which at worst
// grants a fresh window early.
func NewMemoryStore() *Store {
	return &Store{
		s:    memory.NewStoreWithOptions(limiter.StoreOptions{Prefix: KeyPrefix, CleanUpInterval: memoryCleanUp}),
		kind: "memory",
	}
}

// NewRedisStore connects to the Redis at rawURL (redis://[user:password@]
// host:port[/db] or rediss:// for TLS, options as accepted by go-redis's
// ParseURL), checks that it answers and loads the counting script. Use it
// when more than one API instance serves the same keys.
//
// Errors are errs.Invalid for a malformed URL and errs.Transient when Redis
// does not answer; their text never contains the URL (it may hold a
// password). Close the store at shutdown.
func NewRedisStore(rawURL string) (*Store, error) {
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		// A *url.Error quotes the whole URL, password included; keep only
		// the reason.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, errs.Wrap(errs.Invalid, fmt.Errorf("ratelimit: parse redis URL: %w", err), "invalid Redis URL for the rate limiter")
	}
	client := redis.NewClient(opt)
	s, err := NewRedisStoreFromClient(client)
	if err != nil {
		_ = client.Close()
		return nil, err
	}
	return s, nil
}

// NewRedisStoreFromClient is NewRedisStore for a client built by the
// caller (for a Redis Cluster or Sentinel setup, say). Closing the store
// closes the client.
func NewRedisStoreFromClient(client redis.UniversalClient) (*Store, error) {
	ctx, cancel := context.WithTimeout(context.Background(), redisConnectTimeout)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		return nil, errs.Wrap(errs.Transient, fmt.Errorf("ratelimit: redis ping: %w", err), "the rate limiter's Redis is unreachable")
	}
	s, err := sredis.NewStoreWithOptions(client, limiter.StoreOptions{Prefix: KeyPrefix})
	if err != nil {
		return nil, errs.Wrap(errs.Transient, fmt.Errorf("ratelimit: redis script load: %w", err), "the rate limiter's Redis is unreachable")
	}
	return &Store{s: s, kind: "redis", remote: true, client: client}, nil
}

// Ping checks that the store answers; for a readiness check (api.Check).
// The memory store always does.
func (s *Store) Ping(ctx context.Context) error {
	if s.client == nil {
		return nil
	}
	if err := s.client.Ping(ctx).Err(); err != nil {
		return errs.Wrap(errs.Transient, fmt.Errorf("ratelimit: redis ping: %w", err), "rate limiter store unreachable")
	}
	return nil
}

// Close releases the Redis connections; a no-op for the memory store.
func (s *Store) Close() error {
	if s.client == nil {
		return nil
	}
	return s.client.Close()
}
