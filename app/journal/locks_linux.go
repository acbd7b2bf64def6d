package journal

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// LockHolder returns the process holding a lock on the file at path and its
// command line, from Linux's /proc/locks, or 0 when it cannot tell (another
// OS, a holder in another pid namespace). bbolt locks its file with flock.
func LockHolder(path string) (pid int, cmd string) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, ""
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, ""
	}
	locks, err := os.ReadFile("/proc/locks")
	if err != nil {
		return 0, ""
	}
	want := fmt.Sprintf("%02x:%02x:%d", unix.Major(uint64(st.Dev)), unix.Minor(uint64(st.Dev)), st.Ino)
	for line := range strings.SplitSeq(string(locks), "\n") {
		// "1: FLOCK  ADVISORY  WRITE 1234 fe:01:5678 0 EOF"; waiters have "->".
		f := strings.Fields(strings.Replace(line, "->", "", 1))
		if len(f) < 6 || f[5] != want {
			continue
		}
		if pid, err = strconv.Atoi(f[4]); err != nil || pid == os.Getpid() {
			continue
		}
		return pid, commandLine(pid)
	}
	return 0, ""
}

// commandLine is process pid's command line, words joined by spaces, or its
// name when the line cannot be read.
func commandLine(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(b) == 0 {
		return "unknown command"
	}
	return strings.Join(strings.Fields(string(bytes.ReplaceAll(bytes.TrimRight(b, "\x00"), []byte{0}, []byte{' '}))), " ")
}
