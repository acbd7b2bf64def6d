//go:build unix

package hosts

import "syscall"

// openNonblock makes opening a named pipe return at once instead of waiting
// for a writer, so ReadConfig can see what it opened and refuse it. Reads
// of a regular file do not block either way.
const openNonblock = syscall.O_NONBLOCK
