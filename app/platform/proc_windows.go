package platform

import (
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// StartDetached starts cmd detached from the wrapper: no console
// (DETACHED_PROCESS), a process group of its own (a Ctrl+C to the host's
// group does not reach it), and out of the host's job object when the job
// allows it (a job that kills its processes when the host goes would take
// the hub with it; see breakawayFlags).
func StartDetached(cmd *exec.Cmd) error {
	var limits windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	// A nil job handle queries the job of this process; it fails when
	// there is none.
	inJob := windows.QueryInformationJobObject(0, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&limits)), uint32(unsafe.Sizeof(limits)), nil) == nil
	cmd.SysProcAttr = &syscall.SysProcAttr{
		CreationFlags: windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP |
			breakawayFlags(inJob, limits.BasicLimitInformation.LimitFlags),
		HideWindow: true,
	}
	return cmd.Start()
}

// stillActive is what GetExitCodeProcess says of a process still running.
const stillActive = 259

// Alive reports whether a process pid runs.
func Alive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		// A process of another user's, which this one may not open,
		// runs.
		return err == windows.ERROR_ACCESS_DENIED
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == stillActive
}
