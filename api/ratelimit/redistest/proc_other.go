//go:build !linux

package redistest

import "os/exec"

// setParentDeath has no portable equivalent outside Linux; t.Cleanup still
// stops the server on every normal test exit.
func setParentDeath(*exec.Cmd) {}
