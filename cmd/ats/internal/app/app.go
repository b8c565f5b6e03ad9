// Package app is the `ats` binary's code: its commands, flags and the one
// place where every service, worker and listener is wired (the composition
// root). cmd/ats's main only calls Main; the end-to-end tests in cmd/ats/e2e
// build the real binary and drive what this package exports.
package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/agent-trading/ats/models/errs"
)

// Main runs the `ats` command line args (args[0] is the program name) until
// it finishes or SIGINT/SIGTERM cancels it, and returns the process's exit
// code: 0, or what exitCode gives for the error, which it prints first.
func Main(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newApp().RunContext(ctx, args); err != nil {
		fmt.Fprintln(os.Stderr, "ats:", cliMessage(err))
		return exitCode(err)
	}
	return 0
}

// cliMessage is what the operator sees: the classified message when there is
// one (a conflict says just that), the whole error chain otherwise, since an
// operator needs the cause of a start-up failure.
func cliMessage(err error) string {
	if e, ok := errs.As(err); ok && e.Kind != errs.Internal && e.Message != "" {
		if e.Hint != "" {
			return e.Message + " (" + e.Hint + ")"
		}
		return e.Message
	}
	return err.Error()
}

func exitCode(err error) int {
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	switch errs.KindOf(err) {
	case errs.Invalid:
		return 2
	case errs.Conflict:
		return 3
	case errs.NotFound:
		return 4
	}
	return 1
}

func newApp() *cli.App {
	return &cli.App{
		Name:  "ats",
		Usage: "Agent Trading Service: lets AI agents trade on Polymarket for a user",
		Description: "Run `ats dev --demo` for everything in one process (API, worker, embedded Temporal with Web UI,\n" +
			"SQLite, sandbox venue). Production runs `ats migrate`, then `ats api` and `ats worker` against\n" +
			"PostgreSQL and a Temporal cluster. Every flag has an ATS_* environment variable twin.",
		HideVersion:          true,
		EnableBashCompletion: true,
		Commands: []*cli.Command{
			devCommand(),
			apiCommand(),
			workerCommand(),
			sandboxCommand(),
			migrateCommand(),
			adminCommand(),
			mcpCommand(),
			versionCommand(),
		},
	}
}
