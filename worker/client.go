// Package worker wires the service to Temporal: the one client per
// process, the worker running every workflow and activity, and the
// readiness probe the API uses to check that a worker is polling.
package worker

import (
	"context"
	"crypto/tls"
	"log/slog"
	"sync"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/worker/codec"
	"github.com/agent-trading/ats/workflows"
)

// ClientConfig configures Dial.
type ClientConfig struct {
	// HostPort is the Temporal frontend, e.g. "127.0.0.1:7233".
	HostPort string
	// Namespace defaults to "default".
	Namespace string
	// CodecKey is the 32-byte AES-256 key encrypting every payload. It is
	// required: plaintext payloads would put order details and agent
	// inputs into the Temporal database.
	CodecKey []byte
	// PreviousCodecKeys still decrypt payloads written before a key
	// rotation.
	PreviousCodecKeys [][]byte
	// Codec, when set, is used instead of CodecKey and PreviousCodecKeys
	// (codec.FromMasterKeys).
	Codec *codec.Codec
	// TLS, when set, connects over TLS (with a client certificate for
	// mTLS when it has one).
	TLS *tls.Config
	// APIKey, when set, is sent as a bearer token with every call
	// (Temporal Cloud API keys). It implies TLS: a key is never sent in
	// clear.
	APIKey string
	// Logger receives the SDK's logs; slog.Default() when nil.
	Logger *slog.Logger
	// Interceptors run around every client call and, because the SDK
	// applies a client's interceptors to the workers built on it, around
	// every workflow and activity too (tracing).
	Interceptors []interceptor.ClientInterceptor
	// MetricsHandler receives the SDK's own metrics; none when nil.
	MetricsHandler client.MetricsHandler
}

// Converters returns the data and failure converters for key. Clients,
// workers and replayers must all use the same pair. The failure converter
// encodes failure messages and stack traces with the codec too, so error
// text (which may quote order details) is as private as payloads.
func Converters(key []byte, previous ...[]byte) (converter.DataConverter, converter.FailureConverter, error) {
	c, err := codec.New(key, previous...)
	if err != nil {
		return nil, nil, err
	}
	dc, fc := ConvertersFor(c)
	return dc, fc, nil
}

// ConvertersFor is Converters for a codec built already.
func ConvertersFor(c *codec.Codec) (converter.DataConverter, converter.FailureConverter) {
	dc := c.DataConverter()
	return dc, newFailureConverter(dc)
}

// failureConverter is the default failure converter made aware of the
// serialization context, so failure messages and details are bound to
// their workflow (and activity) like every other payload: the SDK's own
// failure converter encodes them without a context.
type failureConverter struct {
	*temporal.DefaultFailureConverter
	dc converter.DataConverter
}

func newFailureConverter(dc converter.DataConverter) *failureConverter {
	return &failureConverter{
		DefaultFailureConverter: temporal.NewDefaultFailureConverter(temporal.DefaultFailureConverterOptions{
			DataConverter:          dc,
			EncodeCommonAttributes: true,
		}),
		dc: dc,
	}
}

// WithSerializationContext implements
// converter.FailureConverterWithSerializationContext.
func (f *failureConverter) WithSerializationContext(sc converter.SerializationContext) converter.FailureConverter {
	return newFailureConverter(converter.WithDataConverterSerializationContext(f.dc, sc))
}

// Dial connects to Temporal and verifies the connection. Call it once per
// process and share the client between the API and the worker: it is
// goroutine-safe and holds the gRPC connection pool.
func Dial(ctx context.Context, cfg ClientConfig) (client.Client, error) {
	if cfg.HostPort == "" {
		return nil, errs.E(errs.Invalid, "temporal host:port is required")
	}
	cd := cfg.Codec
	if cd == nil {
		var err error
		if cd, err = codec.New(cfg.CodecKey, cfg.PreviousCodecKeys...); err != nil {
			return nil, err
		}
	}
	dc, fc := ConvertersFor(cd)
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	opts := client.Options{
		HostPort:         cfg.HostPort,
		Namespace:        cfg.Namespace,
		Logger:           log.NewStructuredLogger(logger),
		DataConverter:    dc,
		FailureConverter: fc,
		Interceptors:     cfg.Interceptors,
		MetricsHandler:   cfg.MetricsHandler,
	}
	opts.ConnectionOptions.TLS = cfg.TLS
	// No gzip on the gRPC calls (the SDK's default): every payload is
	// AES-GCM ciphertext (worker/codec), which does not compress, and
	// the rest of a request is a few hundred bytes of ids; compressing
	// them cost the order path's API process ~5 % of its CPU (a flate
	// writer reset and Huffman tables per call) for nothing on the wire.
	opts.ConnectionOptions.GrpcCompression = &client.GrpcCompressionNone{}
	if cfg.APIKey != "" {
		if opts.ConnectionOptions.TLS == nil {
			opts.ConnectionOptions.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		opts.Credentials = client.NewAPIKeyStaticCredentials(cfg.APIKey)
	}
	c, err := client.DialContext(ctx, opts)
	if err != nil {
		return nil, errs.Wrap(errs.Transient, err, "cannot connect to Temporal")
	}
	return c, nil
}

// Deps are the dependencies of the worker's activities.
type Deps = activities.Deps

// Options returns the worker options used by New. Exposed so tests and
// tools can start a worker identical to production.
func Options(logger *slog.Logger) worker.Options {
	return worker.Options{
		// Graceful shutdown: give running activities (an order
		// placement mid-flight) time to finish before the process exits.
		WorkerStopTimeout: 30 * time.Second,
		// A non-deterministic workflow blocks (and shows as failing
		// workflow tasks) until a fixed worker is deployed, instead of
		// failing a user's order or strategy irreversibly.
		WorkflowPanicPolicy: worker.BlockWorkflow,
		// Workers are small; bound concurrency so one busy strategy can't
		// starve the process (2-core machines).
		MaxConcurrentActivityExecutionSize:     64,
		MaxConcurrentWorkflowTaskExecutionSize: 64,
		// Pollers bound throughput by the server's round trip, not by
		// CPU: with the SDK's default of 2 a worker took about 4 workflow
		// tasks a second from a loaded dev server while idle, and 10,000
		// strategy workflows waited minutes for their first task; 16 keep
		// a burst of executions (each a workflow task with its local
		// activity) flowing.
		MaxConcurrentWorkflowTaskPollers: 16,
		MaxConcurrentActivityTaskPollers: 8,
		// A burst (1,000 copiers of one wallet hinted at once) queues
		// their workflow tasks on this worker's sticky queue; at the
		// SDK's 5 s a task still queued there timed out and went to the
		// normal queue, where it waited about a minute more (half of a
		// burst's copies, docs/benchmarks.md "Session 6"). Waiting longer
		// on the sticky queue costs nothing when the worker is gone: the
		// server sends a dead worker's tasks to the normal queue once its
		// sticky poller has been missing for 10 s.
		StickyScheduleToStartTimeout: 30 * time.Second,
		OnFatalError: func(err error) {
			if logger != nil {
				logger.Error("temporal worker stopped on a fatal error", "err", err)
			}
		},
	}
}

// DefaultWorkflowCacheSize is how many workflows a worker process keeps
// in memory between their tasks (the SDK's sticky cache; its own default
// is 10,000). A waiting strategy or resting order costs about 64 KB
// there; beyond the cap the least recently used is evicted, and its next
// task replays its history, which stays short (continue-as-new bounds
// it). 2,000 keeps a worker holding 10,000 waiting strategies near 250 MB
// instead of 740 MB (docs/benchmarks.md).
const DefaultWorkflowCacheSize = 2000

var (
	cacheMu           sync.Mutex
	workflowCacheSize = DefaultWorkflowCacheSize
)

// SetWorkflowCacheSize sets the sticky workflow cache of the process's
// workers (0 turns sticky execution off: every task replays its
// history). The SDK's cache is one per process, sized when the first
// worker is created: call it before New.
func SetWorkflowCacheSize(n int) {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	workflowCacheSize = max(n, 0)
}

// WorkflowCacheSize is the size SetWorkflowCacheSize set (the default
// until then).
func WorkflowCacheSize() int {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	return workflowCacheSize
}

// New returns the process's workers: one on workflows.TaskQueue with every
// workflow and activity of the service registered, and one on
// workflows.OrderTaskQueue with the order workflow and its activities.
// Start it with Run(worker.InterruptCh()) or Start/Stop.
func New(c client.Client, deps Deps) (worker.Worker, error) {
	return NewWithLogger(c, deps, slog.Default())
}

// NewWithLogger is New with the logger used for fatal worker errors.
func NewWithLogger(c client.Client, deps Deps, logger *slog.Logger) (worker.Worker, error) {
	cacheMu.Lock()
	worker.SetStickyWorkflowCacheSize(workflowCacheSize)
	cacheMu.Unlock()
	w := worker.New(c, workflows.TaskQueue, Options(logger))
	workflows.Register(w)
	if err := activities.Register(w, deps); err != nil {
		return nil, err
	}
	if deps.Strategies != nil {
		// A strategy's execution starts its order's workflow; eagerly
		// when this process also runs the order task queue (below).
		w.RegisterActivity(&workflows.StrategyPlacer{Engine: deps.Strategies,
			Orders: workflows.OrderDeskClient{Client: c, Eager: deps.Orders != nil}})
	}
	if deps.Orders == nil {
		return w, nil
	}
	o := worker.New(c, workflows.OrderTaskQueue, Options(logger))
	o.RegisterWorkflow(workflows.Order)
	if err := activities.RegisterOrders(o, deps); err != nil {
		return nil, err
	}
	return &pair{Worker: w, orders: o}, nil
}

// NewPlacer returns the worker of a process that places orders and runs
// no other workflow (`ats api`): on workflows.OrderTaskQueue, the order
// workflow and, as a local activity, its placement, no activity task
// poller. The server hands it the first workflow task of each order this
// process starts (eager start), which places the order; the order's
// activities (syncs, cancels) and the tasks of any process that died go
// to whichever worker polls the queue. deps.Orders is required.
func NewPlacer(c client.Client, deps Deps, logger *slog.Logger) (worker.Worker, error) {
	cacheMu.Lock()
	worker.SetStickyWorkflowCacheSize(workflowCacheSize)
	cacheMu.Unlock()
	opts := Options(logger)
	opts.LocalActivityWorkerOnly = true
	// The placements this process starts come back eagerly; the pollers
	// only take over the workflow tasks of others, so a few do.
	opts.MaxConcurrentWorkflowTaskPollers = 2
	w := worker.New(c, workflows.OrderTaskQueue, opts)
	w.RegisterWorkflow(workflows.Order)
	if err := activities.RegisterOrders(w, deps); err != nil {
		return nil, err
	}
	return w, nil
}

// pair is a process's two workers, started and stopped together;
// registrations go to the main one.
type pair struct {
	worker.Worker
	orders worker.Worker
}

func (p *pair) Start() error {
	if err := p.Worker.Start(); err != nil {
		return err
	}
	if err := p.orders.Start(); err != nil {
		p.Worker.Stop()
		return err
	}
	return nil
}

func (p *pair) Run(interruptCh <-chan any) error {
	if err := p.Start(); err != nil {
		return err
	}
	<-interruptCh
	p.Stop()
	return nil
}

func (p *pair) Stop() {
	p.orders.Stop()
	p.Worker.Stop()
}

// PollerFreshness is how recently a poller must have been seen for
// WorkerAlive to count it. Pollers long-poll for up to ~70 s, and the server
// records the time a poll started, so anything shorter flaps.
const PollerFreshness = 2 * time.Minute

// WorkerAlive reports whether some worker polled taskQueue recently for
// both workflow and activity tasks: the API's /readyz "worker" check.
// The error is Transient when no worker is polling or Temporal is
// unreachable.
func WorkerAlive(ctx context.Context, c client.Client, taskQueue string) error {
	for _, tqt := range []enumspb.TaskQueueType{enumspb.TASK_QUEUE_TYPE_WORKFLOW, enumspb.TASK_QUEUE_TYPE_ACTIVITY} {
		resp, err := c.DescribeTaskQueue(ctx, taskQueue, tqt)
		if err != nil {
			return errs.Wrap(errs.Transient, err, "cannot describe the Temporal task queue")
		}
		alive := false
		for _, p := range resp.GetPollers() {
			if t := p.GetLastAccessTime(); t != nil && time.Since(t.AsTime()) < PollerFreshness {
				alive = true
				break
			}
		}
		if !alive {
			return errs.Ef(errs.Transient, "no Temporal worker is polling task queue %s (%s)", taskQueue, tqt)
		}
	}
	return nil
}
