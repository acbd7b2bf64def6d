package bridge

import "golang.org/x/sys/unix"

// mapMessage maps size bytes of anonymous memory, reserved but not yet
// taken: pages are taken as they are written (MAP_NORESERVE). It returns
// an empty slice with that capacity.
func mapMessage(size int) ([]byte, bool) {
	b, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	if err != nil {
		return nil, false
	}
	return b[:0], true
}

// unmapMessage gives back a mapping of mapMessage's (b is any slice of it
// from its start).
func unmapMessage(b []byte) { _ = unix.Munmap(b[:cap(b)]) }
