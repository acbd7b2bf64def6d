//go:build !linux

package platform

import "os"

// Reserve reserves nothing here: macOS's F_PREALLOCATE and Windows's
// allocation size change what the file reports or need the size set, and
// the spool's reserve is a Linux measure for a disk that fills up.
func Reserve(f *os.File, n int64) {}
