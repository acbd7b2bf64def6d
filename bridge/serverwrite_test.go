package bridge

import (
	"os"
	"strings"
	"testing"
)

// TestServerWriteFailedSaysWhy: a message for a server whose input the
// relay already closed (the host left) is said in words in the host's log,
// not as "write |1: file already closed" (found by a new user: a TypeScript
// SDK host that timed its call out); other errors keep theirs.
func TestServerWriteFailedSaysWhy(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	w.Close()
	_, werr := w.Write([]byte("{}\n"))
	if werr == nil {
		t.Fatal("a write to a closed pipe succeeded")
	}
	if got := serverWriteFailed(werr); !strings.Contains(got, "its input was already closed") || strings.Contains(got, "|1") {
		t.Errorf("closed input said as %q", got)
	}
	other := os.ErrPermission
	if got := serverWriteFailed(other); got != "writing to the server: "+other.Error() {
		t.Errorf("another error said as %q", got)
	}
}
