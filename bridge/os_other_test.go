//go:build !linux

package bridge

import (
	"errors"
	"os"
)

const isLinux = false

// pipeSize is a Linux question (F_GETPIPE_SZ).
func pipeSize(*os.File) (int, error) { return 0, errors.New("pipe sizes are Linux's") }
