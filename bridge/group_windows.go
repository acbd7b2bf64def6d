//go:build windows

package bridge

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// group is a job object holding the server and every process it starts.
// The job is made to kill them all when its last handle closes, which is
// when the wrapper exits, however it exits: a server never outlives the
// wrapper that started it.
type group struct{ job windows.Handle }

// ownGroup starts the server in a process group of its own, so that a
// console's Ctrl+C meant for the host does not reach it first.
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP
}

// newGroup puts the started server into a new job. (What the server starts
// in the moment before that is not in the job; everything after is.)
func newGroup(p *os.Process) (group, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return group{}, fmt.Errorf("creating a job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
			LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
		},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return group{}, fmt.Errorf("setting up the job object: %w", err)
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(p.Pid))
	if err != nil {
		windows.CloseHandle(job)
		return group{}, fmt.Errorf("opening the server's process: %w", err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		windows.CloseHandle(job)
		return group{}, fmt.Errorf("putting the server into a job object: %w", err)
	}
	return group{job: job}, nil
}

// stop ends the job: Windows has no polite request a console-less process
// reads, so the first step already terminates the server and what it
// started (the server had its grace to exit when its input closed).
func (g group) stop(p *os.Process, kill bool) string {
	if g.job != 0 {
		if err := windows.TerminateJobObject(g.job, 1); err == nil {
			return "ending its job (the server and what it started)"
		}
	}
	_ = p.Kill()
	return "terminating it"
}

func (g group) close() {
	if g.job != 0 {
		windows.CloseHandle(g.job)
	}
}

// exitCode is the server's exit code, which the wrapper exits with.
func exitCode(ps *os.ProcessState) int {
	if code := ps.ExitCode(); code >= 0 {
		return code
	}
	return 1
}
