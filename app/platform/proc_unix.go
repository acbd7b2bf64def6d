//go:build unix

package platform

import (
	"errors"
	"os/exec"
	"syscall"
)

// StartDetached starts cmd in a session of its own (setsid), so that the
// host stopping the wrapper, its process group or its terminal does not
// stop the hub.
func StartDetached(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd.Start()
}

// Alive reports whether a process pid runs (of any user).
func Alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
