//go:build !linux

package journal

// LockHolder cannot tell who holds a lock here: only Linux lists the locks
// (/proc/locks). It returns 0, and the callers say less.
func LockHolder(path string) (pid int, cmd string) { return 0, "" }
