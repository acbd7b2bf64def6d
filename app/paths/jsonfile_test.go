package paths

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJSONFileNeverWritesWhatItCannotRead: an edit that would grow the
// file past what Read takes is refused and leaves the file as it was, so
// the next Read still works.
func TestJSONFileNeverWritesWhatItCannotRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f := JSONFile{Path: filepath.Join(dir, "tools.json"), Lock: "tools.lock", What: "pinned tools"}
	var v map[string]string
	if err := f.Edit(&v, func() error { v = map[string]string{"a": "small"}; return nil }); err != nil {
		t.Fatal(err)
	}
	err := f.Edit(&v, func() error { v["b"] = strings.Repeat("x", maxJSONFile); return nil })
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Edit past the limit: %v", err)
	}
	var back map[string]string
	if err := f.Read(&back); err != nil || back["a"] != "small" || len(back) != 1 {
		t.Fatalf("after the refused edit: %v %v", back, err)
	}
	if info, _ := os.Stat(f.Path); info.Size() > 100 {
		t.Errorf("the file grew to %d bytes", info.Size())
	}
}
