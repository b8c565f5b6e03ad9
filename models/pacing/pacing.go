// Package pacing paces the venue order posts of each wallet.
//
// The venue throttles order posts per signer address with a token bucket
// (reference polymarket-clob-v2.md, "Rate limits per signer"), so every
// agent and strategy trading one wallet draws on one bucket. Posting
// blindly would let one busy strategy spend the bucket and have the
// venue refuse the others; instead every post of a wallet waits its turn
// here, below the venue's rate, and the turns go round-robin over the
// agents with posts waiting (first in, first out within an agent). Ten
// strategies firing at once are therefore queued and served fairly
// rather than throttled or refused.
//
// # Where the bound holds
//
// The bucket is a Bucket: NewMemoryBucket (golang.org/x/time/rate) holds
// it in this process, which is exact for one worker; NewRedisBucket
// (github.com/go-redis/redis_rate, GCRA in one Lua script) holds it in a
// Redis shared by every worker, so two workers posting for one wallet
// still stay within one bucket. The queue, and so the round-robin, is per
// process: with several workers each serves its own waiters in turn and
// the shared bucket decides whose turn comes first.
//
// A bucket that cannot be reached (Redis down) lets the post through
// and logs it: the venue's own limit still answers 429, which the
// placement retries, and an outage of the pacing store should not stop
// trading (the API's rate limiter makes the same choice).
package pacing

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
	"golang.org/x/time/rate"

	"github.com/agent-trading/ats/models/errs"
)

// Limit is a wallet's post budget: Rate posts per second sustained, and
// Burst posts at once after a quiet spell.
type Limit struct {
	Rate  float64
	Burst int
}

// DefaultLimit stays under the venue's documented post limits
// (POST /order: 3,500 per 10 s burst, 36,000 per 10 min sustained, i.e.
// 60 per second): the per-signer bucket's size is not published, so the
// service keeps to the sustained rate with a modest burst.
var DefaultLimit = Limit{Rate: 60, Burst: 20}

// DefaultCancelLimit stays under the venue's cancel limits (DELETE
// /order: 3,000 per 10 s burst, 30,000 per 10 min sustained, i.e. 50 per
// second), a bucket per signer of its own, apart from the posts'.
var DefaultCancelLimit = Limit{Rate: 50, Burst: 20}

func (l Limit) orDefault() Limit {
	if l.Rate <= 0 {
		l.Rate = DefaultLimit.Rate
	}
	if l.Burst <= 0 {
		l.Burst = DefaultLimit.Burst
	}
	return l
}

// Bucket grants post slots per key (a wallet's signer address).
type Bucket interface {
	// Take waits until key's bucket grants one slot, or ctx ends.
	Take(ctx context.Context, key string) error
}

// memoryBucket holds one rate.Limiter per key in this process.
type memoryBucket struct {
	limit Limit
	mu    sync.Mutex
	m     map[string]*rate.Limiter
}

// NewMemoryBucket returns a Bucket private to this process (one worker).
// Its limiters are kept for the life of the process, one small struct
// per wallet that ever posted.
func NewMemoryBucket(l Limit) Bucket {
	return &memoryBucket{limit: l.orDefault(), m: map[string]*rate.Limiter{}}
}

func (b *memoryBucket) Take(ctx context.Context, key string) error {
	b.mu.Lock()
	l, ok := b.m[key]
	if !ok {
		l = rate.NewLimiter(rate.Limit(b.limit.Rate), b.limit.Burst)
		b.m[key] = l
	}
	b.mu.Unlock()
	return l.Wait(ctx)
}

// KeyPrefix starts every post bucket's key in Redis, CancelKeyPrefix
// every cancel bucket's.
const (
	KeyPrefix       = "ats:pacing:post:"
	CancelKeyPrefix = "ats:pacing:cancel:"
)

// redisBucket is GCRA in Redis (redis_rate), shared by every process.
type redisBucket struct {
	l      *redis_rate.Limiter
	limit  redis_rate.Limit
	prefix string
}

// NewRedisBucket returns a post Bucket kept in the Redis behind client,
// shared by every worker that uses the same Redis.
func NewRedisBucket(client redis.UniversalClient, l Limit) Bucket {
	return NewRedisBucketAt(client, l, KeyPrefix)
}

// NewRedisBucketAt is NewRedisBucket with the buckets' keys under prefix
// (CancelKeyPrefix for the cancels').
func NewRedisBucketAt(client redis.UniversalClient, l Limit, prefix string) Bucket {
	l = l.orDefault()
	// redis_rate counts whole requests per period: Rate per second is
	// expressed per millisecond-precise period so fractional rates work.
	period := time.Second
	r := l.Rate
	for r != float64(int(r)) && period < time.Hour {
		r *= 10
		period *= 10
	}
	return &redisBucket{l: redis_rate.NewLimiter(client), limit: redis_rate.Limit{Rate: int(r), Burst: l.Burst, Period: period}, prefix: prefix}
}

// redisTimeout bounds one call to Redis.
const redisTimeout = 500 * time.Millisecond

func (b *redisBucket) Take(ctx context.Context, key string) error {
	for {
		cctx, cancel := context.WithTimeout(ctx, redisTimeout)
		res, err := b.l.Allow(cctx, b.prefix+key, b.limit)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return errs.Wrap(errs.Transient, err, "the post pacing store is unavailable")
		}
		if res.Allowed > 0 {
			return nil
		}
		t := time.NewTimer(res.RetryAfter)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// Pacer queues the posts of each wallet and lets them out as the
// wallet's bucket grants slots, round-robin over agents. The zero value
// is not usable; use New. It is safe for concurrent use; one Pacer
// serves the whole process.
type Pacer struct {
	bucket Bucket
	log    *slog.Logger

	mu      sync.Mutex
	wallets map[string]*queue
}

// New returns a Pacer over bucket. A nil logger means slog.Default().
func New(bucket Bucket, log *slog.Logger) *Pacer {
	if log == nil {
		log = slog.Default()
	}
	return &Pacer{bucket: bucket, log: log, wallets: map[string]*queue{}}
}

// waiter is one post waiting for its turn.
type waiter struct {
	ctx   context.Context
	grant chan struct{} // closed when the post may go
}

// queue is one wallet's waiting posts: per agent a FIFO, and the agents
// with posts waiting in the order their turns come.
type queue struct {
	byAgent map[string][]*waiter
	ring    []string // agents with waiters; ring[0] is served next
}

func (q *queue) push(agent string, w *waiter) {
	if len(q.byAgent[agent]) == 0 {
		q.ring = append(q.ring, agent)
	}
	q.byAgent[agent] = append(q.byAgent[agent], w)
}

// pop takes the next live waiter, round-robin over agents; waiters that
// gave up are dropped on the way. nil when none is left.
func (q *queue) pop() *waiter {
	for len(q.ring) > 0 {
		agent := q.ring[0]
		q.ring = q.ring[1:]
		ws := q.byAgent[agent]
		var w *waiter
		for len(ws) > 0 && w == nil {
			if ws[0].ctx.Err() == nil {
				w = ws[0]
			}
			ws[0] = nil
			ws = ws[1:]
		}
		if len(ws) > 0 {
			q.byAgent[agent] = ws
			q.ring = append(q.ring, agent) // its next post waits for the others' turns
		} else {
			delete(q.byAgent, agent)
		}
		if w != nil {
			return w
		}
	}
	return nil
}

// Wait blocks until the wallet may post once more for agent, or ctx
// ends (its error is returned and the turn passes to the next post).
func (p *Pacer) Wait(ctx context.Context, wallet, agent string) error {
	w := &waiter{ctx: ctx, grant: make(chan struct{})}
	p.mu.Lock()
	q, running := p.wallets[wallet]
	if !running {
		q = &queue{byAgent: map[string][]*waiter{}}
		p.wallets[wallet] = q
	}
	q.push(agent, w)
	p.mu.Unlock()
	if !running {
		go p.serve(wallet, q)
	}
	select {
	case <-w.grant:
		return nil
	case <-ctx.Done():
		// The dispatcher skips a waiter whose context ended; a grant
		// racing with the end is spent, which only slows the wallet by
		// one slot.
		return errs.Wrap(errs.Transient, ctx.Err(), "waited too long for the wallet's turn to post")
	}
}

// serve runs while the wallet has posts waiting: it takes a slot from the
// bucket, then hands it to the next post in turn. It ends when the queue
// is empty, so an idle wallet costs no goroutine.
func (p *Pacer) serve(wallet string, q *queue) {
	for {
		p.mu.Lock()
		empty := len(q.ring) == 0
		if empty {
			delete(p.wallets, wallet)
		}
		p.mu.Unlock()
		if empty {
			return
		}
		// The slot is taken before the turn is chosen, so a post that
		// gives up while the dispatcher waits does not hold up the rest.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if err := p.bucket.Take(ctx, wallet); err != nil {
			p.log.Warn("post pacing unavailable; letting the post through", "wallet", wallet, "err", err)
		}
		cancel()
		p.mu.Lock()
		w := q.pop()
		p.mu.Unlock()
		if w != nil {
			close(w.grant)
		}
	}
}

// Waiting is how many posts of wallet wait for their turn (a gauge for
// operators, and what the tests wait on).
func (p *Pacer) Waiting(wallet string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	q := p.wallets[wallet]
	if q == nil {
		return 0
	}
	n := 0
	for _, ws := range q.byAgent {
		n += len(ws)
	}
	return n
}
