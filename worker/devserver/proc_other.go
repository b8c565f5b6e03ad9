//go:build unix && !linux

package devserver

import "syscall"

// sysProcAttr puts the child in its own process group. There is no
// Pdeathsig outside Linux: a SIGKILLed parent can leave the server running.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
