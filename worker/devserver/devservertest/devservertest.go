// Package devservertest locates the Temporal CLI for integration tests the
// way `ats dev` does, so the README's test command runs them on any machine
// where its first command was run.
package devservertest

import (
	"os"
	"testing"

	"github.com/agent-trading/ats/worker/devserver"
)

// EnvBinary names an explicit Temporal CLI for tests; .ci/run sets it.
const EnvBinary = "TEMPORAL_CLI"

// Binary returns the Temporal CLI: $TEMPORAL_CLI, else what
// devserver.FindBinary finds ($ATS_TEMPORAL_CLI, .bin/temporal up to the
// module root, PATH). Without one the test is skipped, except under CI,
// where a skipped integration test would hide broken wiring.
func Binary(t testing.TB) string {
	t.Helper()
	bin, err := devserver.FindBinary(os.Getenv(EnvBinary))
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs the Temporal CLI: %v", err)
		}
		t.Skipf("Temporal CLI not found (%v); install it with the README's first command", err)
	}
	return bin
}
