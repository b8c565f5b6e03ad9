package app

import (
	"log/slog"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agent-trading/ats/api/logging"
	"github.com/agent-trading/ats/models/errs"
)

// Flag names shared by several commands. Every flag has an ATS_* environment
// twin (operator surface, "Configuration").
const (
	flagHTTP             = "http"
	flagDataDir          = "data-dir"
	flagDatabaseURL      = "database-url"
	flagTemporal         = "temporal"
	flagTemporalListen   = "temporal-listen"
	flagTemporalUIListen = "temporal-ui-listen"
	flagTemporalNS       = "temporal-namespace"
	flagTemporalCLI      = "temporal-cli"
	flagVenue            = "venue"
	flagSandboxAddr      = "sandbox-addr"
	flagMasterKeyFile    = "master-key-file"
	flagDemo             = "demo"
	flagLogLevel         = "log-level"
	flagLogFormat        = "log-format"
	flagBlockInterval    = "block-interval"
	flagSeed             = "seed"
)

func httpFlag() cli.Flag {
	return &cli.StringFlag{Name: flagHTTP, EnvVars: []string{"ATS_HTTP_ADDR"}, Value: "127.0.0.1:8080",
		Usage: "address the API server listens on (the {base_url}); \":0\" picks a free port"}
}

// DataDirFlag is --data-dir, where `ats dev` and the admin commands keep
// their SQLite database and generated master key.
func DataDirFlag() cli.Flag {
	return &cli.StringFlag{Name: flagDataDir, EnvVars: []string{"ATS_DATA_DIR"}, Value: "./.ats",
		Usage: "directory for the embedded SQLite database, the generated master key, the embedded Temporal state and the sandbox (sandbox/)"}
}

func databaseFlag() cli.Flag {
	return &cli.StringFlag{Name: flagDatabaseURL, EnvVars: []string{"ATS_DATABASE_URL"},
		Usage: "empty = embedded SQLite in the data dir; postgres://… = PostgreSQL. The URL (it holds the password) may instead be in a file named by ATS_DATABASE_URL_FILE"}
}

// databaseURL is --database-url, else the content of the file named by
// ATS_DATABASE_URL_FILE (a mounted secret: the URL carries the password).
func databaseURL(c *cli.Context) (string, error) {
	if u := c.String(flagDatabaseURL); u != "" {
		return u, nil
	}
	f := os.Getenv("ATS_DATABASE_URL_FILE")
	if f == "" {
		return "", nil
	}
	b, err := os.ReadFile(f)
	if err != nil {
		return "", errs.Wrap(errs.Invalid, err, "cannot read ATS_DATABASE_URL_FILE")
	}
	return strings.TrimSpace(string(b)), nil
}

func temporalFlag(devDefault bool) cli.Flag {
	usage := "host:port of the Temporal frontend"
	value := "127.0.0.1:7233"
	if devDefault {
		usage = "host:port of an external Temporal cluster; empty = start the embedded dev server"
		value = ""
	}
	return &cli.StringFlag{Name: flagTemporal, EnvVars: []string{"ATS_TEMPORAL_ADDRESS"}, Value: value, Usage: usage}
}

func temporalNamespaceFlag() cli.Flag {
	return &cli.StringFlag{Name: flagTemporalNS, EnvVars: []string{"ATS_TEMPORAL_NAMESPACE"}, Value: "default",
		Usage: "Temporal namespace"}
}

// MasterKeyFlag is --master-key-file, the key every secret and Temporal
// payload is sealed under (LoadMasterKeys reads it).
func MasterKeyFlag() cli.Flag {
	return &cli.StringFlag{Name: flagMasterKeyFile, EnvVars: []string{"ATS_MASTER_KEY_FILE"},
		Usage: "file holding the 32-byte master key (base64); the key itself may instead be given in ATS_MASTER_KEY"}
}

func venueFlag(def string) cli.Flag {
	return &cli.StringFlag{Name: flagVenue, EnvVars: []string{"ATS_VENUE"}, Value: def,
		Usage: "venue to trade on: sandbox (local) or polymarket (live)"}
}

func sandboxAddrFlag() cli.Flag {
	return &cli.StringFlag{Name: flagSandboxAddr, EnvVars: []string{"ATS_SANDBOX_ADDR"}, Value: "127.0.0.1:8090",
		Usage: "address of the sandbox venue listener (CLOB, Gamma, Data API, chain RPC, control API); \":0\" picks a free port"}
}

func logFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: flagLogLevel, EnvVars: []string{"ATS_LOG_LEVEL"}, Value: "info", Usage: "debug, info, warn or error"},
		&cli.StringFlag{Name: flagLogFormat, EnvVars: []string{"ATS_LOG_FORMAT"}, Value: "json", Usage: "json or text"},
	}
}

func parseLevel(s string) slog.Level {
	if l, ok := logging.ParseLevel(s); ok {
		return l
	}
	return slog.LevelInfo
}

// masterKeyEnv is read directly rather than through a flag so that the key
// never appears in --help output or in a process listing.
func masterKeyEnv() string { return os.Getenv("ATS_MASTER_KEY") }
