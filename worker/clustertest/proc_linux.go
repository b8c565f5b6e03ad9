package clustertest

import "syscall"

// sysProcAttr puts a server process in its own process group and has the
// kernel SIGKILL it when the test process dies, even by SIGKILL.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
