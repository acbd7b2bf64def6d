//go:build !unix && !windows

package bridge

import (
	"os"
	"os/exec"
)

// group is the server alone where there are no process groups.
type group struct{}

func ownGroup(cmd *exec.Cmd) {}

func newGroup(p *os.Process) (group, error) { return group{}, nil }

func (g group) stop(p *os.Process, kill bool) string {
	_ = p.Kill()
	return "killing it"
}

func (g group) close() {}

func exitCode(ps *os.ProcessState) int {
	if code := ps.ExitCode(); code >= 0 {
		return code
	}
	return 1
}
