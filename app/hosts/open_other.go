//go:build !unix

package hosts

// openNonblock is 0 where opening a file does not wait for a writer.
const openNonblock = 0
