// Command ats is the Agent Trading Service: one binary for the API server,
// the Temporal worker, the sandbox venue, the embedded development stack,
// migrations and administration. See README.md and the operator surface.
// Its code is in internal/app; its end-to-end tests are in e2e.
package main

import (
	"os"

	"github.com/agent-trading/ats/cmd/ats/internal/app"
)

func main() { os.Exit(app.Main(os.Args)) }
