//go:build unix

package bridge

import (
	"os"
	"os/exec"
	"syscall"
)

// group is the server's process group: it and every process it starts,
// signalled together, so that a server started by a shell or npx (the
// program that then runs it) stops as a whole.
type group struct{ pgid int }

// ownGroup makes the server, once started, lead a process group of its own.
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

func newGroup(p *os.Process) (group, error) { return group{pgid: p.Pid}, nil }

// stop sends the group SIGTERM, or SIGKILL when kill is set (the server
// itself when the group is gone), and says what it did.
func (g group) stop(p *os.Process, kill bool) string {
	sig, name := syscall.SIGTERM, "sending SIGTERM"
	if kill {
		sig, name = syscall.SIGKILL, "sending SIGKILL"
	}
	if err := syscall.Kill(-g.pgid, sig); err != nil {
		_ = p.Signal(sig)
	}
	return name
}

func (g group) close() {}

// exitCode is the code the wrapper exits with for the server's: a server
// killed by a signal is reported as a shell would, 128 plus the signal.
func exitCode(ps *os.ProcessState) int {
	code := ps.ExitCode()
	if code < 0 {
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return 1
	}
	return code
}
