package app

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

// version is set at release build time with
// -ldflags "-X github.com/agent-trading/ats/cmd/ats/internal/app.version=…".
var version = "dev"

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print version and build info",
		Action: func(c *cli.Context) error {
			fmt.Fprintf(c.App.Writer, "ats %s\n", version)
			fmt.Fprintf(c.App.Writer, "go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
			if bi, ok := debug.ReadBuildInfo(); ok {
				for _, s := range bi.Settings {
					switch s.Key {
					case "vcs.revision", "vcs.time", "vcs.modified":
						fmt.Fprintf(c.App.Writer, "%s: %s\n", s.Key, s.Value)
					}
				}
				for _, d := range bi.Deps {
					switch d.Path {
					case "go.temporal.io/sdk", "github.com/ethereum/go-ethereum", "github.com/gin-gonic/gin", "gorm.io/gorm":
						fmt.Fprintf(c.App.Writer, "%s: %s\n", d.Path, d.Version)
					}
				}
			}
			return nil
		},
	}
}
