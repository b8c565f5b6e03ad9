//go:build unix

package devserver

import "syscall"

// signalGroup sends sig to the process group led by pid, falling back to
// the process itself.
func signalGroup(pid int, sig syscall.Signal) error {
	if err := syscall.Kill(-pid, sig); err == nil {
		return nil
	}
	return syscall.Kill(pid, sig)
}
