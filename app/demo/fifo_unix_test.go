//go:build unix

package demo

import (
	"syscall"
	"testing"
)

// TestChangeAuditLogIsNotWrittenThroughAFIFO: a named pipe planted where
// the audit log goes is refused (a writer would block on it, or feed
// whoever reads it), and nothing is executed without its line.
func TestChangeAuditLogIsNotWrittenThroughAFIFO(t *testing.T) {
	auditPlantRefused(t, func(t *testing.T, audit string) {
		if err := syscall.Mkfifo(audit, 0o600); err != nil {
			t.Fatal(err)
		}
	}, "is not a regular file")
}
