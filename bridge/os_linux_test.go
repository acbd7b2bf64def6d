package bridge

import (
	"os"

	"golang.org/x/sys/unix"
)

const isLinux = true

// pipeSize is the capacity of the pipe f is an end of.
func pipeSize(f *os.File) (int, error) { return unix.FcntlInt(f.Fd(), unix.F_GETPIPE_SZ, 0) }
