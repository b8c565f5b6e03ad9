package redistest

import (
	"os/exec"
	"syscall"
)

// setParentDeath has the kernel kill redis-server if the test binary dies
// without running its cleanups (timeout, SIGKILL), so no server outlives it.
func setParentDeath(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
