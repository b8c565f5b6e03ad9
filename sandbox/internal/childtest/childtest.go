// Package childtest runs part of a test in a child process, so the test can
// kill it (SIGKILL) the way a crash or an operator's kill -9 would: the
// child gets no chance to close anything.
package childtest

import (
	"bufio"
	"os"
	"os/exec"
	"testing"
)

// Child is a running child test process.
type Child struct {
	cmd *exec.Cmd
	out *bufio.Scanner
}

// Start runs the test binary again, running only the test named, with
// env=value in its environment: the test finds value there and runs the
// child's part instead. The child's stderr is the test's; it is killed
// when the test ends, if it is still running.
func Start(t testing.TB, test, env, value string) *Child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.v=false")
	cmd.Env = append(os.Environ(), env+"="+value)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &Child{cmd: cmd, out: bufio.NewScanner(out)}
	t.Cleanup(c.Kill)
	return c
}

// Lines reads the child's standard output, line by line.
func (c *Child) Lines() *bufio.Scanner { return c.out }

// Kill sends SIGKILL and waits for the child to be gone.
func (c *Child) Kill() {
	if c.cmd.ProcessState != nil {
		return
	}
	_ = c.cmd.Process.Kill()
	_ = c.cmd.Wait()
}
