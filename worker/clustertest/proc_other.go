//go:build !linux

package clustertest

import "syscall"

// sysProcAttr puts a server process in its own process group.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
