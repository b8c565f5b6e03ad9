package devserver

import "syscall"

// sysProcAttr puts the child in its own process group (so terminal ^C
// handling and Stop address it as a unit) and asks the kernel to SIGKILL it
// when its parent dies, even by SIGKILL.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
