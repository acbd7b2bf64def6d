package desktop

import (
	"strings"
	"testing"
	"time"
)

// TestStampWriter: every line of the hub's log starts with when it was
// written, however the writes split the lines.
func TestStampWriter(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	at := time.Date(2026, 11, 30, 9, 5, 0, 0, time.Local)
	w := &StampWriter{W: &b, Now: func() time.Time { return at }}
	for _, s := range []string{"elicitray hub: listening\n", "first ", "half\nsecond\n", "\n"} {
		if _, err := w.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	want := "2026-11-30 09:05:00 elicitray hub: listening\n2026-11-30 09:05:00 first half\n2026-11-30 09:05:00 second\n2026-11-30 09:05:00 \n"
	if b.String() != want {
		t.Errorf("log %q, want %q", b.String(), want)
	}
}
