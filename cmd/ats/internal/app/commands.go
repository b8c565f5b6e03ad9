package app

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/ops"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/sandbox"
	"github.com/agent-trading/ats/venue/network"
	"github.com/agent-trading/ats/worker/devserver"
)

const shutdownTimeout = 30 * time.Second

const flagLive = "live"

func devCommand() *cli.Command {
	flags := []cli.Flag{
		httpFlag(), DataDirFlag(), databaseFlag(), temporalFlag(true),
		&cli.StringFlag{Name: flagTemporalListen, EnvVars: []string{"ATS_TEMPORAL_LISTEN"}, Value: "127.0.0.1:7233",
			Usage: "where the embedded Temporal frontend listens (\":0\" picks a free port)"},
		&cli.StringFlag{Name: flagTemporalUIListen, EnvVars: []string{"ATS_TEMPORAL_UI_LISTEN"}, Value: "127.0.0.1:8233",
			Usage: "where the embedded Temporal Web UI listens (\":0\" picks a free port)"},
		&cli.StringFlag{Name: flagTemporalCLI, EnvVars: []string{"ATS_TEMPORAL_CLI"},
			Usage: "path of the Temporal CLI v1.5.1 binary; default .bin/temporal, then PATH"},
		temporalNamespaceFlag(), venueFlag("sandbox"),
		&cli.BoolFlag{Name: flagLive, EnvVars: []string{"ATS_LIVE"},
			Usage: "allow --venue polymarket: trade real funds on the live venue from a development stack"},
		sandboxAddrFlag(), MasterKeyFlag(), PreviousMasterKeyFlag(), publicURLFlag(), redisFlag(), chainRPCFlag(),
		venueWSFlag(), workflowCacheFlag(), copyConfirmationsFlag(),
		trustedProxiesFlag(), signupFlag(), oidcFlag(), githubFlag(), walletImportFlag(), webhookFlag(true),
		&cli.BoolFlag{Name: flagDemo, EnvVars: []string{"ATS_DEMO"},
			Usage: "create demo@example.com (password ATS_DEMO_PASSWORD, default demo-password) with a funded sandbox wallet"},
		&cli.Int64Flag{Name: flagSeed, EnvVars: []string{"ATS_SANDBOX_SEED"}, Value: 1, Usage: "seed of the sandbox's synthetic markets"},
		&cli.DurationFlag{Name: flagBlockInterval, EnvVars: []string{"ATS_SANDBOX_BLOCK_INTERVAL"}, Value: time.Second,
			Usage: "block time of the sandbox chain"},
	}
	flags = append(flags, opsFlags("dev")...)
	flags = append(flags, operatorFlags()...)
	flags = append(flags, temporalSecurityFlags()...)
	return &cli.Command{
		Name: "dev",
		Usage: "everything in one process: API, worker, embedded Temporal with Web UI, SQLite, sandbox venue. " +
			"A port-only address (\":8080\") binds loopback; binding every interface needs an explicit host (0.0.0.0:8080)",
		Flags:  append(flags, logFlags()...),
		Action: runDev,
	}
}

func runDev(c *cli.Context) error {
	ctx := c.Context
	log := newLogger(c)
	st := newStack(log)
	err := startDev(ctx, c, st)
	if err == nil {
		log.Info("ready: press Ctrl-C to stop")
		err = st.wait(ctx)
	}
	if serr := st.stop(shutdownTimeout); err == nil {
		err = serr
	}
	return err
}

// devAddr is where `ats dev` binds addr: a port-only address (":8080")
// means loopback, because a development stack (its sandbox control API,
// its unauthenticated embedded Temporal) must not be reachable from the
// network unless the operator names the interface.
func devAddr(addr string) string {
	if host, port, err := net.SplitHostPort(addr); err == nil && host == "" {
		return net.JoinHostPort("127.0.0.1", port)
	}
	return addr
}

// devVenue refuses the live venue unless --live says the operator means
// it: a development stack trading real funds by a typo is a loss.
func devVenue(c *cli.Context) error {
	if v := c.String(flagVenue); v != "sandbox" && !c.Bool(flagLive) {
		return errs.Ef(errs.Invalid, "`ats dev --venue %s` trades real funds on the live venue: add --live if you mean it", v)
	}
	return nil
}

func startDev(ctx context.Context, c *cli.Context, st *stack) (err error) {
	log := st.log
	if err := devVenue(c); err != nil {
		return err
	}
	keys, err := LoadMasterKeys(c, true)
	if err != nil {
		return err
	}
	st.keys = keys
	cd, err := keys.Codec()
	if err != nil {
		return err
	}
	token, err := opsToken(c)
	if err != nil {
		return err
	}
	if token == "" {
		token = keys.devOpsToken()
	}
	if st.tracing, err = startTracing(ctx, st, "ats-dev"); err != nil {
		return err
	}
	external := c.String(flagTemporal) != ""
	conn, err := temporalConnFrom(c, c.String(flagTemporal))
	if err != nil {
		return err
	}
	conn.Tracing = st.tracing
	if conn.secured() && !external {
		return errs.Ef(errs.Invalid, "the --temporal-tls-* and --temporal-api-key flags apply to an external Temporal (--temporal); the embedded one listens on loopback without them")
	}

	// The API and operator listeners are bound first: the operator
	// listener's URL is the codec endpoint the embedded Web UI is given.
	apiLn, err := net.Listen("tcp", devAddr(c.String(flagHTTP)))
	if err != nil {
		return fmt.Errorf("api listener: %w", err)
	}
	apiURL := "http://" + apiLn.Addr().String()
	opsLn, err := net.Listen("tcp", devAddr(c.String(flagOpsListen)))
	if err != nil {
		apiLn.Close()
		return fmt.Errorf("ops listener: %w", err)
	}
	// Until the servers own them, the listeners are closed on any failure.
	defer func() {
		if err != nil {
			apiLn.Close()
			opsLn.Close()
		}
	}()

	var venueNet network.Network
	var sb *sandbox.Sandbox
	switch c.String(flagVenue) {
	case "sandbox":
		sb, err = sandbox.Start(ctx, sandbox.Config{
			Addr:          devAddr(c.String(flagSandboxAddr)),
			Seed:          c.Int64(flagSeed),
			BlockInterval: c.Duration(flagBlockInterval),
			Logger:        log.With("component", "sandbox"),
			DataDir:       sandboxDataDir(c.String(flagDataDir)),
		})
		if err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
		st.onStop("sandbox", func(context.Context) error { return sb.Close() })
		st.listening("sandbox", sb.URL())
		venueNet = sb.Network()
	default:
		n, err := network.ByName(c.String(flagVenue), "")
		if err != nil {
			return errs.Wrap(errs.Invalid, err, err.Error())
		}
		venueNet = n
	}
	venueCheck := venueProbe(venueNet)

	var uiOrigins []string
	devUI := ""
	if !external {
		bin, err := devserver.FindBinary(c.String(flagTemporalCLI))
		if err != nil {
			return err
		}
		ip, port, err := splitListen(c.String(flagTemporalListen))
		if err != nil {
			return err
		}
		_, uiPort, err := splitListen(c.String(flagTemporalUIListen))
		if err != nil {
			return err
		}
		srv, err := devserver.Start(ctx, devserver.Options{
			Binary:        bin,
			IP:            ip,
			Port:          port,
			UIPort:        uiPort,
			DBFile:        filepath.Join(c.String(flagDataDir), "temporal.db"),
			SQLitePragmas: DevTemporalPragmas,
			Namespace:     c.String(flagTemporalNS),
			// The Web UI's codec setting is a URL, so the operator
			// token travels in it (see api/ops).
			UICodecEndpoint: reachableURL(opsLn.Addr().String()) + "/codec/" + token,
		})
		if err != nil {
			return fmt.Errorf("embedded temporal: %w", err)
		}
		st.onStop("temporal", func(context.Context) error { return srv.Stop() })
		go func() {
			select {
			case <-srv.Done():
				st.fail("temporal", errs.E(errs.Transient, "the embedded Temporal server exited"))
			case <-ctx.Done():
			}
		}()
		conn.HostPort = srv.FrontendAddr()
		st.listening("temporal", conn.HostPort)
		st.listening("temporal-ui", srv.UIURL())
		devUI = srv.UIURL()
		if u, err := url.Parse(srv.UIURL()); err == nil {
			for _, h := range ops.LoopbackHosts(u.Host) {
				uiOrigins = append(uiOrigins, "http://"+h)
			}
		}
	}

	s, err := openStore(ctx, c, log)
	if err != nil {
		return err
	}
	st.onStop("database", func(context.Context) error { return s.Close() })

	tc, err := DialTemporal(ctx, conn, keys, log)
	if err != nil {
		return err
	}
	st.onStop("temporal-client", func(context.Context) error { tc.Close(); return nil })

	vc, err := ConnectVenue(ctx, venueNet, sb, c.String(flagChainRPC), st.tracing)
	if err != nil {
		return err
	}
	st.onStop("venue-clients", func(context.Context) error { vc.Close(); return nil })
	publicURL := baseURL(c, apiURL)
	svc, err := NewServices(s, tc, vc, keys, publicURL, log)
	if err != nil {
		return err
	}
	svc.policyFromFlags(c)
	sandboxIssuer, sandboxGitHub := "", ""
	if sb != nil {
		sandboxIssuer, sandboxGitHub = sb.OIDCIssuer(), sb.GitHubURL()
	}
	devOperator := ""
	if c.Bool(flagDemo) {
		devOperator = DemoEmail
	}
	// The price feed and the changes first: the dashboard's live pages
	// follow both.
	startPriceFeed(c, st, vc, svc, log)
	svc.Changes = startChanges(st, s, log)
	if err := svc.dashboardFromFlags(c, publicURL, sandboxIssuer, sandboxGitHub, devUI, devOperator); err != nil {
		return err
	}
	if err := svc.pacePosts(c, st); err != nil {
		return err
	}
	if err := startOrderListener(c, st, s, tc, vc, svc, log); err != nil {
		return err
	}
	if err := startCopyHub(c, st, s, vc, svc, log); err != nil {
		return err
	}
	if err := setWorkflowCache(c); err != nil {
		return err
	}
	svc.StartOrdersEagerly() // the worker below runs on tc
	if err := startWorker(ctx, st, tc, svc, WorkerDeps(s, svc), log); err != nil {
		return err
	}
	startWebhookDispatch(st, svc.Changes, tc, svc, log)

	if c.Bool(flagDemo) {
		if err := seedDemo(ctx, svc, sb, log); err != nil {
			return err
		}
	}

	limiter, err := rateLimiter(c, st)
	if err != nil {
		return err
	}
	svc.cacheReads(st)
	cfg, err := apiConfig(c, st.tracing)
	if err != nil {
		return err
	}
	srv := api.NewServer(cfg, api.Deps{
		Logger: log,
		Checks: readinessChecks(s, tc, venueCheck),
		Routes: svc.Routes(limiter),
	})
	serveOps(st, c, opsLn, opsSetup{token: token, origins: uiOrigins, codec: cd, namespace: c.String(flagTemporalNS)})
	serveListener(st, "api", apiLn, srv, api.APITimeouts)
	st.listening("dashboard", dashboardURL(apiLn.Addr(), publicURL))
	return nil
}

// dashboardURL is the address `ats dev` names for browsers: the API
// listener as http://localhost:PORT when it listens on loopback or every
// interface (passkeys and cookies need a host name, and localhost reaches
// both), else the public URL, which names the host it was bound to.
func dashboardURL(bound net.Addr, publicURL string) string {
	if tcp, ok := bound.(*net.TCPAddr); ok && (tcp.IP.IsLoopback() || tcp.IP.IsUnspecified()) {
		return "http://" + net.JoinHostPort("localhost", strconv.Itoa(tcp.Port))
	}
	return publicURL
}

// DevTemporalPragmas are the embedded Temporal server's SQLite settings:
// write-ahead logging, synced at checkpoints rather than at every commit.
// A commit is then one append to the log instead of a rollback journal
// written, synced and deleted, which roughly halves a placement's time
// in the server (docs/benchmarks.md, "Order path"). What `ats dev` has
// acknowledged still survives the process being killed (the log is in
// the file system's cache); only an operating-system crash or power loss
// can take the last commits since a checkpoint, never corrupt the file.
var DevTemporalPragmas = []string{"journal_mode=wal", "synchronous=normal"}

func apiCommand() *cli.Command {
	flags := []cli.Flag{httpFlag(), DataDirFlag(), databaseFlag(), temporalFlag(false), temporalNamespaceFlag(),
		venueFlag("polymarket"), sandboxAddrFlag(), MasterKeyFlag(), PreviousMasterKeyFlag(), publicURLFlag(), redisFlag(), chainRPCFlag(),
		trustedProxiesFlag(), venueWSFlag(), signupFlag(), oidcFlag(), githubFlag(), walletImportFlag(), webhookFlag(false)}
	flags = append(flags, opsFlags("api")...)
	flags = append(flags, operatorFlags()...)
	flags = append(flags, temporalSecurityFlags()...)
	return &cli.Command{
		Name:  "api",
		Usage: "the API server alone (production), with its operator listener",
		Flags: append(flags, logFlags()...),
		Action: func(c *cli.Context) error {
			return runProcess(c, func(ctx context.Context, st *stack, s *store.Store, tc tclient, n network.Network) (err error) {
				token, err := opsToken(c)
				if err != nil {
					return err
				}
				cd, err := st.keys.Codec()
				if err != nil {
					return err
				}
				ln, err := net.Listen("tcp", c.String(flagHTTP))
				if err != nil {
					return err
				}
				opsLn, err := net.Listen("tcp", c.String(flagOpsListen))
				if err != nil {
					ln.Close()
					return fmt.Errorf("ops listener: %w", err)
				}
				defer func() {
					if err != nil {
						ln.Close()
						opsLn.Close()
					}
				}()
				limiter, err := rateLimiter(c, st)
				if err != nil {
					return err
				}
				vc, err := ConnectVenue(ctx, n, nil, c.String(flagChainRPC), st.tracing)
				if err != nil {
					return err
				}
				st.onStop("venue-clients", func(context.Context) error { vc.Close(); return nil })
				publicURL := baseURL(c, "http://"+ln.Addr().String())
				svc, err := NewServices(s, tc, vc, st.keys, publicURL, st.log)
				if err != nil {
					return err
				}
				svc.policyFromFlags(c)
				startPriceFeed(c, st, vc, svc, st.log)
				svc.Changes = startChanges(st, s, st.log)
				if err := svc.dashboardFromFlags(c, publicURL, "", "", "", ""); err != nil {
					return err
				}
				svc.cacheReads(st)
				// The orders this process places start eagerly: its own
				// worker for the order task queue runs their first
				// workflow task, which places the order, here, and the
				// answer comes from that attempt (docs/benchmarks.md,
				// "The split deployment").
				if err := svc.pacePosts(c, st); err != nil {
					return err
				}
				svc.StartOrdersEagerly()
				if err := startPlacer(st, tc, svc, st.log); err != nil {
					return err
				}
				cfg, err := apiConfig(c, st.tracing)
				if err != nil {
					return err
				}
				srv := api.NewServer(cfg, api.Deps{
					Logger: st.log,
					Checks: readinessChecks(s, tc, venueProbe(n)),
					Routes: svc.Routes(limiter),
				})
				serveOps(st, c, opsLn, opsSetup{token: token, codec: cd, namespace: c.String(flagTemporalNS)})
				serveListener(st, "api", ln, srv, api.APITimeouts)
				return nil
			})
		},
	}
}

func workerCommand() *cli.Command {
	flags := []cli.Flag{DataDirFlag(), databaseFlag(), temporalFlag(false), temporalNamespaceFlag(),
		venueFlag("polymarket"), sandboxAddrFlag(), MasterKeyFlag(), PreviousMasterKeyFlag(), chainRPCFlag(), redisFlag(), venueWSFlag(),
		workflowCacheFlag(), copyConfirmationsFlag(), webhookFlag(false)}
	flags = append(flags, opsFlags("worker")...)
	flags = append(flags, temporalSecurityFlags()...)
	return &cli.Command{
		Name:  "worker",
		Usage: "the Temporal worker alone (production), with its operator listener (/metrics, /debug/pprof)",
		Flags: append(flags, logFlags()...),
		Action: func(c *cli.Context) error {
			return runProcess(c, func(ctx context.Context, st *stack, s *store.Store, tc tclient, n network.Network) error {
				token, err := opsToken(c)
				if err != nil {
					return err
				}
				opsLn, err := net.Listen("tcp", c.String(flagOpsListen))
				if err != nil {
					return fmt.Errorf("ops listener: %w", err)
				}
				// Served at once: a worker's metrics matter most while it
				// starts (sticky cache, pollers, rebuilt triggers).
				serveOps(st, c, opsLn, opsSetup{token: token})
				vc, err := ConnectVenue(ctx, n, nil, c.String(flagChainRPC), st.tracing)
				if err != nil {
					return err
				}
				st.onStop("venue-clients", func(context.Context) error { vc.Close(); return nil })
				svc, err := NewServices(s, tc, vc, st.keys, "", st.log)
				if err != nil {
					return err
				}
				svc.Notify.Delivery.AllowPrivate = c.Bool(flagWebhookAllowPrivate)
				if err := svc.pacePosts(c, st); err != nil {
					return err
				}
				if err := startOrderListener(c, st, s, tc, vc, svc, st.log); err != nil {
					return err
				}
				if err := startCopyHub(c, st, s, vc, svc, st.log); err != nil {
					return err
				}
				// Strategy triggers wait in the worker's price feed.
				startPriceFeed(c, st, vc, svc, st.log)
				if err := setWorkflowCache(c); err != nil {
					return err
				}
				// A strategy's execution places its orders from this
				// process, whose worker runs on tc: their workflows start
				// eagerly, as in `ats dev`.
				svc.StartOrdersEagerly()
				if err := startWorker(ctx, st, tc, svc, WorkerDeps(s, svc), st.log); err != nil {
					return err
				}
				// The notifications' webhook deliveries start here, on
				// every change any process reports (PostgreSQL NOTIFY).
				svc.Changes = startChanges(st, s, st.log)
				startWebhookDispatch(st, svc.Changes, tc, svc, st.log)
				return nil
			})
		},
	}
}

// runProcess is the shared start-up of `ats api` and `ats worker`: master
// key (required), database with migrations, Temporal client, then body.
func runProcess(c *cli.Context, body func(context.Context, *stack, *store.Store, tclient, network.Network) error) error {
	ctx := c.Context
	log := newLogger(c)
	st := newStack(log)
	err := func() error {
		keys, err := LoadMasterKeys(c, false)
		if err != nil {
			return err
		}
		st.keys = keys
		if st.tracing, err = startTracing(ctx, st, "ats-"+c.Command.Name); err != nil {
			return err
		}
		conn, err := temporalConnFrom(c, c.String(flagTemporal))
		if err != nil {
			return err
		}
		conn.Tracing = st.tracing
		n, err := network.ByName(c.String(flagVenue), "http://"+c.String(flagSandboxAddr))
		if err != nil {
			return errs.Wrap(errs.Invalid, err, err.Error())
		}
		s, err := openStore(ctx, c, log)
		if err != nil {
			return err
		}
		st.onStop("database", func(context.Context) error { return s.Close() })
		tc, err := DialTemporal(ctx, conn, keys, log)
		if err != nil {
			return err
		}
		st.onStop("temporal-client", func(context.Context) error { tc.Close(); return nil })
		return body(ctx, st, s, tc, n)
	}()
	if err == nil {
		err = st.wait(ctx)
	}
	if serr := st.stop(shutdownTimeout); err == nil {
		err = serr
	}
	return err
}

func sandboxCommand() *cli.Command {
	return &cli.Command{
		Name:  "sandbox",
		Usage: "the sandbox venue alone (CLOB, Gamma, Data API, chain RPC, control API)",
		Flags: append([]cli.Flag{sandboxAddrFlag(),
			&cli.StringFlag{Name: flagDataDir, EnvVars: []string{"ATS_DATA_DIR"}, Value: "./.ats",
				Usage: "the sandbox keeps its chain and venue state in DATA_DIR/sandbox (the same place as `ats dev` on that data dir); empty keeps it in memory"},
			&cli.Int64Flag{Name: flagSeed, EnvVars: []string{"ATS_SANDBOX_SEED"}, Value: 1, Usage: "seed of the synthetic markets"},
			&cli.DurationFlag{Name: flagBlockInterval, EnvVars: []string{"ATS_SANDBOX_BLOCK_INTERVAL"}, Value: time.Second, Usage: "block time"},
		}, logFlags()...),
		Action: func(c *cli.Context) error {
			log := newLogger(c)
			st := newStack(log)
			sb, err := sandbox.Start(c.Context, sandbox.Config{
				Addr: c.String(flagSandboxAddr), Seed: c.Int64(flagSeed), BlockInterval: c.Duration(flagBlockInterval), Logger: log,
				DataDir: sandboxDataDir(c.String(flagDataDir)),
			})
			if err != nil {
				return err
			}
			st.onStop("sandbox", func(context.Context) error { return sb.Close() })
			st.listening("sandbox", sb.URL())
			err = st.wait(c.Context)
			if serr := st.stop(shutdownTimeout); err == nil {
				err = serr
			}
			return err
		},
	}
}

func migrateCommand() *cli.Command {
	return &cli.Command{
		Name:  "migrate",
		Usage: "apply database migrations and exit",
		Flags: append([]cli.Flag{DataDirFlag(), databaseFlag()}, logFlags()...),
		Action: func(c *cli.Context) error {
			log := newLogger(c)
			s, err := openStore(c.Context, c, log)
			if err != nil {
				return err
			}
			defer s.Close()
			cur, latest, err := s.SchemaVersion(c.Context)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "database schema at version %d (latest %d, %s)\n", cur, latest, s.Dialect())
			return nil
		},
	}
}

// venueProbe answers whether the venue's CLOB is reachable (GET /ok).
func venueProbe(n network.Network) func(context.Context) error {
	hc := &http.Client{Timeout: 3 * time.Second}
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, n.CLOBURL+"/ok", nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return errs.Wrap(errs.Transient, err, "venue does not answer")
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return errs.Ef(errs.Transient, "venue answered %d", resp.StatusCode)
		}
		return nil
	}
}

// splitListen parses "host:port" where port may be 0.
func splitListen(addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, errs.Ef(errs.Invalid, "bad listen address %q: want host:port", addr)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, errs.Ef(errs.Invalid, "bad port in %q", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return host, port, nil
}

// sandboxDataDir is where the sandbox keeps its state in a data dir: its
// own subdirectory, shared by `ats dev` and `ats sandbox` on that data dir
// (one at a time). An empty data dir keeps the sandbox in memory.
func sandboxDataDir(dataDir string) string {
	if dataDir == "" {
		return ""
	}
	return filepath.Join(dataDir, "sandbox")
}
