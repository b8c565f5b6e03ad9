package app

import (
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/urfave/cli/v2"
	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/client"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/ratelimit"
	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/intent"
	"github.com/agent-trading/ats/models/pacing"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/users"
	"github.com/agent-trading/ats/models/vault"
	"github.com/agent-trading/ats/worker"
	"github.com/agent-trading/ats/workflows"
)

const (
	flagPublicURL      = "public-url"
	flagRedisURL       = "ratelimit-redis-url"
	flagTrustedProxies = "trusted-proxies"
	// deviceEndpointsPerMinute bounds device-code requests and token polls
	// per client address; a polite agent polls every 5 s (12/min).
	deviceEndpointsPerMinute = 60
)

func publicURLFlag() cli.Flag {
	return &cli.StringFlag{Name: flagPublicURL, EnvVars: []string{"ATS_PUBLIC_URL"},
		Usage: "public {base_url} the service is reached at (verification links use it); default: http://<--http address>"}
}

func trustedProxiesFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: flagTrustedProxies, EnvVars: []string{"ATS_TRUSTED_PROXIES"},
		Usage: "addresses or CIDRs of the load balancers in front of the API, comma-separated; their X-Forwarded-For " +
			"names the client for per-address rate limits and audit entries; empty = the peer address is the client"}
}

// apiConfig is the HTTP server configuration from the flags. A malformed
// proxy address is refused at start-up rather than silently trusting, or
// not trusting, the wrong peers.
// tp, when set, traces every request.
func apiConfig(c *cli.Context, tp trace.TracerProvider) (api.Config, error) {
	var proxies []string
	for _, v := range c.StringSlice(flagTrustedProxies) {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p == "" {
				continue
			}
			if net.ParseIP(p) == nil {
				if _, _, err := net.ParseCIDR(p); err != nil {
					return api.Config{}, errs.Ef(errs.Invalid, "--%s: %q is neither an IP address nor a CIDR", flagTrustedProxies, p)
				}
			}
			proxies = append(proxies, p)
		}
	}
	return api.Config{TrustedProxies: proxies, TracerProvider: tp}, nil
}

const flagWorkflowCache = "workflow-cache-size"

func workflowCacheFlag() cli.Flag {
	return &cli.IntFlag{Name: flagWorkflowCache, EnvVars: []string{"ATS_WORKFLOW_CACHE_SIZE"}, Value: worker.DefaultWorkflowCacheSize,
		Usage: "workflows the worker keeps in memory between their tasks (about 64 KB each); the least recently used beyond it " +
			"replay their short history at their next task; 0 = none"}
}

// setWorkflowCache sizes the worker's workflow cache from the flag; it
// runs before the worker is created.
func setWorkflowCache(c *cli.Context) error {
	n := c.Int(flagWorkflowCache)
	if n < 0 {
		return errs.Ef(errs.Invalid, "--%s must be 0 or more, not %d", flagWorkflowCache, n)
	}
	worker.SetWorkflowCacheSize(n)
	return nil
}

func redisFlag() cli.Flag {
	return &cli.StringFlag{Name: flagRedisURL, EnvVars: []string{"ATS_RATELIMIT_REDIS_URL"},
		Usage: "redis://… shared by all API instances so they enforce one rate limit per key, and by all workers so they pace each wallet's venue posts together; empty = in-process"}
}

// WorkerDeps are the activities' dependencies in every worker process.
func WorkerDeps(s *store.Store, svc *Services) worker.Deps {
	d := worker.Deps{Housekeeper: s, DeviceLinks: &agents.Recorder{Store: s, Intents: svc.Intents, OnLinked: svc.Notify.AgentLinked},
		Intents: svc.Intents, Webhooks: svc.Notify}
	if svc != nil && svc.Agents != nil {
		d.AgentControl = svc.Agents
	}
	if svc != nil && svc.Orders != nil {
		d.Orders, d.RevokedOrders = svc.Orders, svc.Orders
	}
	if svc != nil && svc.Settlements != nil {
		d.Settlements = svc.Settlements
	}
	if svc != nil && svc.StrategyEngine != nil {
		d.Strategies = svc.StrategyEngine
	}
	return d
}

// agentService is the one linking and agent-management service, shared by
// the HTTP routes and the admin commands.
func agentService(s *store.Store, baseURL string) *agents.Service {
	return &agents.Service{
		Store:   s,
		Users:   &users.Service{Store: s, Audit: &audit.Service{Store: s}},
		BaseURL: baseURL,
	}
}

// deviceLinks is the device flow through its workflows, for the HTTP
// routes and the admin commands (Runs is nil without a Temporal client).
func deviceLinks(ag *agents.Service, tc client.Client, intents *intent.Keys) *workflows.DeviceLinks {
	d := &workflows.DeviceLinks{Agents: ag}
	if tc != nil {
		d.Runs = workflows.DeviceLinkClient{Client: tc, Intents: intents}
		d.Control = workflows.AgentControlClient{Client: tc}
	}
	return d
}

// rateLimiter builds the process's limiter: in memory, or in Redis when
// configured so several API instances share one budget per key.
func rateLimiter(c *cli.Context, st *stack) (*ratelimit.Limiter, error) {
	var rs *ratelimit.Store
	if u := c.String(flagRedisURL); u != "" {
		var err error
		if rs, err = ratelimit.NewRedisStore(u); err != nil {
			return nil, err
		}
	} else {
		// Made only without Redis: the memory store starts a cleanup goroutine.
		rs = ratelimit.NewMemoryStore()
	}
	st.onStop("ratelimit", func(context.Context) error { return rs.Close() })
	return ratelimit.New(rs, ratelimit.Options{}), nil
}

// walletPacers pace the venue posts and, in a bucket of their own, the
// venue cancels of each wallet (issue 15; the venue limits a signer's
// posts and cancels apart): in a Redis shared by every worker when
// --ratelimit-redis-url is set, so two workers stay within one bucket per
// wallet; otherwise in this process, which is exact for a single worker.
func walletPacers(c *cli.Context, st *stack) (posts, cancels *pacing.Pacer, err error) {
	postBucket := pacing.NewMemoryBucket(pacing.DefaultLimit)
	cancelBucket := pacing.NewMemoryBucket(pacing.DefaultCancelLimit)
	if u := c.String(flagRedisURL); u != "" {
		opt, err := redis.ParseURL(u)
		if err != nil {
			// The parse error may quote the URL, password included.
			return nil, nil, errs.E(errs.Invalid, "invalid Redis URL for the post pacing")
		}
		rc := redis.NewClient(opt)
		pctx, cancel := context.WithTimeout(c.Context, 5*time.Second)
		err = rc.Ping(pctx).Err()
		cancel()
		if err != nil {
			_ = rc.Close()
			return nil, nil, errs.Wrap(errs.Transient, err, "the Redis of the post pacing does not answer")
		}
		st.onStop("pacing-redis", func(context.Context) error { return rc.Close() })
		postBucket = pacing.NewRedisBucket(rc, pacing.DefaultLimit)
		cancelBucket = pacing.NewRedisBucketAt(rc, pacing.DefaultCancelLimit, pacing.CancelKeyPrefix)
	}
	return pacing.New(postBucket, st.log), pacing.New(cancelBucket, st.log), nil
}

// pacePosts puts the process's post and cancel pacing in front of the
// order service's venue posts and cancels.
func (svc *Services) pacePosts(c *cli.Context, st *stack) error {
	if svc.Orders == nil {
		return nil
	}
	posts, cancels, err := walletPacers(c, st)
	if err != nil {
		return err
	}
	svc.Orders.Pacer, svc.Orders.CancelPacer = posts, cancels
	return nil
}

// baseURL is --public-url, or the bound API address (a loopback IP
// named localhost, see LoopbackAsLocalhost).
func baseURL(c *cli.Context, boundURL string) string {
	if u := c.String(flagPublicURL); u != "" {
		return strings.TrimRight(u, "/")
	}
	return LoopbackAsLocalhost(boundURL)
}

// adminMasterKey finds the master key an admin command needs (for
// Temporal, the vault, the proofs): the flag or environment, else the key
// `ats dev` generated in the data dir. It never generates one.
func adminMasterKey(c *cli.Context) (MasterKeys, error) {
	if f := c.String(flagMasterKeyFile); f != "" || masterKeyEnv() != "" {
		k, err := vault.LoadMasterKey(f, masterKeyEnv())
		return MasterKeys{Current: k}, err
	}
	p := filepath.Join(c.String(flagDataDir), MasterKeyFileName)
	if _, err := os.Stat(p); err != nil {
		return MasterKeys{}, errs.E(errs.Invalid, "no master key: set --master-key-file or ATS_MASTER_KEY, or run from the directory of `ats dev` (its key is in --data-dir)")
	}
	k, err := vault.LoadMasterKey(p, "")
	return MasterKeys{Current: k}, err
}

// adminEnv opens what an admin command needs. withTemporal is false for
// commands that only touch the database.
type adminEnv struct {
	log     *slog.Logger
	store   *store.Store
	tc      client.Client
	intents *intent.Keys
}

func openAdmin(c *cli.Context, withTemporal bool) (*adminEnv, error) {
	log := newLogger(c)
	s, err := openStore(c.Context, c, log)
	if err != nil {
		return nil, err
	}
	env := &adminEnv{log: log, store: s}
	if withTemporal {
		err := func() error {
			keys, err := adminMasterKey(c)
			if err != nil {
				return err
			}
			if env.intents, err = keys.intents(); err != nil {
				return err
			}
			conn, err := temporalConnFrom(c, c.String(flagTemporal))
			if err != nil {
				return err
			}
			env.tc, err = DialTemporal(c.Context, conn, keys, log)
			return err
		}()
		if err != nil {
			s.Close()
			return nil, err
		}
	}
	return env, nil
}

func (e *adminEnv) close() {
	if e.tc != nil {
		e.tc.Close()
	}
	_ = e.store.Close()
}
