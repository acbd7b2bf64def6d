package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLoadConfig: the timeout a user writes is the one the hub uses; no file
// means the 10-minute default; a typo is an error that names the file.
func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, text string
		want       time.Duration
		err        string
	}{
		{"missing file", "", DefaultTimeout, ""},
		{"timeout", `timeout = "90s"`, 90 * time.Second, ""},
		{"zero means default", `timeout = "0s"`, DefaultTimeout, ""},
		{"bad duration", `timeout = "ten minutes"`, 0, `not a duration like "10m"`},
		{"not TOML", `timeout = `, 0, "config.toml"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name, "config.toml")
			if tt.text != "" {
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(tt.text+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			c, err := LoadConfig(path)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil || c.Timeout.Duration != tt.want {
				t.Fatalf("got %v, %v; want %v", c.Timeout.Duration, err, tt.want)
			}
		})
	}
}

// TestStampWriter: every line of the hub's log starts with when it was
// written, however the writes split the lines.
func TestStampWriter(t *testing.T) {
	var b strings.Builder
	at := time.Date(2026, 11, 30, 9, 5, 0, 0, time.Local)
	w := &stampWriter{w: &b, now: func() time.Time { return at }}
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
