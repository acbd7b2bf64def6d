package ui

import (
	"os"
	"testing"
	"time"
)

// TestMain keeps prompt windows from arming on a timer of their own, on
// another goroutine than the test's: a test that needs a window to take
// input arms it (PromptWindow.arm), as the guard's end would.
func TestMain(m *testing.M) {
	after = func(time.Duration, func()) func() { return func() {} }
	os.Exit(m.Run())
}
