//go:build linux

package hosts

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// hostWrites are the ways a host writes its config, at a moment a test
// picks.
var hostWrites = map[string]func(t *testing.T, path, data string){
	"renamed": func(t *testing.T, path, data string) {
		t.Helper()
		if err := os.WriteFile(path+".host", []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path+".host", path); err != nil {
			t.Fatal(err)
		}
	},
	"in place": func(t *testing.T, path, data string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	},
}

// hook sets a swap hook for the test.
func hook(t *testing.T, at *func(string), f func(string)) {
	t.Helper()
	was := *at
	*at = f
	t.Cleanup(func() { *at = was })
}

// TestHostsSwapHostWrites: a host that writes its config between
// elicitray's last look at it and the swap (before: renamed over, deleted),
// or right after the swap, never loses its version: it is in place, and a
// version the swap took out is also in a backup. Nothing of elicitray's is
// written then (ErrChanged), and no temporary file stays.
func TestHostsSwapHostWrites(t *testing.T) {
	for _, how := range []string{"renamed", "in place"} {
		write := hostWrites[how]
		for _, tt := range []struct {
			name          string
			before, after []string // what the host writes before the swap and after it
			noExchange    bool     // as on systems without RENAME_EXCHANGE
			want          string   // the file afterwards
			kept          []string // the backups afterwards
			changed       bool     // ErrChanged
		}{
			{name: "nobody writes", want: "new", kept: []string{"old"}},
			{name: "before the swap", before: []string{"host 1"}, want: "host 1", kept: []string{"host 1"}, changed: true},
			{name: "twice before the swap", before: []string{"host 1", "host 2"}, want: "host 2", kept: []string{"host 2"}, changed: true},
			{name: "before the swap and after it", before: []string{"host 1"}, after: []string{"host 2"}, want: "host 2", kept: []string{"host 1", "host 2"}, changed: true},
			{name: "after the swap", after: []string{"host 1"}, want: "host 1", kept: []string{"old"}},
			{name: "before the rename, no exchange", noExchange: true, before: []string{"host 1"}, want: "host 1", changed: true},
			{name: "nobody writes, no exchange", noExchange: true, want: "new", kept: []string{"old"}},
		} {
			t.Run(how+"/"+tt.name, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "mcp.json")
				os.WriteFile(path, []byte("old"), 0o600)
				hook(t, &beforeSwap, func(string) {
					for _, v := range tt.before {
						write(t, path, v)
					}
				})
				hook(t, &afterSwap, func(string) {
					for _, v := range tt.after {
						write(t, path, v)
					}
				})
				if tt.noExchange {
					was := exchange
					exchange = func(string, string) error { return errNoExchange }
					t.Cleanup(func() { exchange = was })
				}
				_, err := WriteFile(path, []byte("old"), []byte("new"), when)
				if errors.Is(err, ErrChanged) != tt.changed || !tt.changed && err != nil {
					t.Fatalf("error %v, want ErrChanged %v", err, tt.changed)
				}
				if got, _ := os.ReadFile(path); string(got) != tt.want {
					t.Errorf("the file holds %q, want %q", got, tt.want)
				}
				var kept []string
				names, _ := Backups(path)
				for _, name := range names {
					data, _ := os.ReadFile(name)
					kept = append(kept, string(data))
				}
				slices.Sort(kept)
				if diff := cmp.Diff(tt.kept, kept); diff != "" {
					t.Errorf("backups mismatch (-want +got):\n%s", diff)
				}
				ents, _ := os.ReadDir(dir)
				for _, e := range ents {
					if strings.HasPrefix(e.Name(), ".") {
						t.Errorf("left behind: %s", e.Name())
					}
				}
			})
		}
	}
}

// TestHostsSwapInPlaceAcross: a host writing in place opened (and so
// truncated) the file before the swap and writes after it, into the file
// the swap took out: that file is put back, and the host's write is in
// place.
func TestHostsSwapInPlaceAcross(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(path, []byte("old"), 0o600)
	var f *os.File
	hook(t, &beforeSwap, func(string) {
		var err error
		if f, err = os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0); err != nil {
			t.Fatal(err)
		}
	})
	hook(t, &afterSwap, func(string) {
		f.WriteString("host 1")
		f.Close()
	})
	if _, err := WriteFile(path, []byte("old"), []byte("new"), when); !errors.Is(err, ErrChanged) {
		t.Fatalf("error %v, want ErrChanged", err)
	}
	checkFile(t, path, "host 1", 0o600)
}

// TestHostsEditFile: when the host writes the file while elicitray edits
// it, the edit is made again on the host's version, which keeps what the
// host wrote; a host that writes every time gets a sentence saying so, and
// its last version stays, unedited.
func TestHostsEditFile(t *testing.T) {
	edit := func(data []byte) ([]byte, error) { return append(data, " +edit"...), nil }
	for _, tt := range []struct {
		name   string
		writes int // how many times the host writes, each just before a swap
		want   string
		tries  int
		err    string
	}{
		{name: "host idle", writes: 0, want: "v0 +edit", tries: 1},
		{name: "host writes twice", writes: 2, want: "host 2 +edit", tries: 3},
		{name: "host keeps writing", writes: 100, want: "host 10", tries: editAttempts, err: "the file changed while elicitray was editing it, 10 times in a row: the host keeps rewriting it; nothing was changed (run the command again, or quit the host first)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mcp.json")
			os.WriteFile(path, []byte("v0"), 0o600)
			n := 0
			hook(t, &beforeSwap, func(string) {
				if n < tt.writes {
					n++
					hostWrites["renamed"](t, path, "host "+strconv.Itoa(n))
				}
			})
			_, tries, err := EditFile(path, []byte("v0"), []byte("v0 +edit"), edit, when)
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.HasSuffix(err.Error(), tt.err)) {
				t.Fatalf("error %v, want %q", err, tt.err)
			}
			if tries != tt.tries {
				t.Errorf("%d tries, want %d", tries, tt.tries)
			}
			checkFile(t, path, tt.want, 0o600)
		})
	}
}

// TestHostsEditFileHostMidWrite: the host began writing its config in
// place (the file truncated, empty) just before the swap. elicitray edits
// its version once the host's write has ended and the file stays as it is
// (before: it edited the empty file, where the server was not found, or,
// for wrap --all, found no server and said it was done). A host whose file
// keeps changing gets the sentence saying so; a version that stays as it
// is can fail the edit (here the host removed the server).
func TestHostsEditFileHostMidWrite(t *testing.T) {
	for _, tt := range []struct {
		name   string
		host   []string // what the host's write leaves at each of elicitray's looks
		want   string
		edited []string
		tries  int // writes
		err    string
	}{
		{name: "the host's write ends", host: []string{"host 1 server"}, want: "host 1 server +edit", edited: []string{"host 1 server"}, tries: 2},
		{name: "the host's write ends in two steps", host: []string{`host 1 ser`, "host 1 server"}, want: "host 1 server +edit", edited: []string{"host 1 server"}, tries: 2},
		{name: "the host removed the server", host: []string{"host 1"}, want: "host 1", edited: []string{"host 1"}, tries: 1, err: "no such server"},
		{name: "the host keeps writing", host: []string{"h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "h9", "h10", "h11"}, want: "h10", tries: 1,
			err: "the file changed while elicitray was editing it, 10 times in a row: the host keeps rewriting it; nothing was changed (run the command again, or quit the host first)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mcp.json")
			os.WriteFile(path, []byte("v0 server"), 0o600)
			var f *os.File
			hook(t, &beforeSwap, func(string) {
				if f != nil {
					return
				}
				var err error
				if f, err = os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0); err != nil {
					t.Fatal(err)
				}
			})
			looks := 0
			hook(t, &settling, func(string) {
				if looks < len(tt.host) {
					if err := os.WriteFile(path, []byte(tt.host[looks]), 0o600); err != nil {
						t.Fatal(err)
					}
				}
				looks++
			})
			var edited []string
			edit := func(data []byte) ([]byte, error) {
				edited = append(edited, string(data))
				if !strings.Contains(string(data), "server") {
					return nil, ErrUnknownServer
				}
				return append(data, " +edit"...), nil
			}
			_, tries, err := EditFile(path, []byte("v0 server"), []byte("v0 server +edit"), edit, when)
			f.Close()
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.HasSuffix(err.Error(), tt.err)) {
				t.Fatalf("error %v, want %q", err, tt.err)
			}
			if tries != tt.tries {
				t.Errorf("%d tries, want %d", tries, tt.tries)
			}
			if !slices.Equal(edited, tt.edited) {
				t.Errorf("edited %q, want %q: the host's version once its write ended", edited, tt.edited)
			}
			checkFile(t, path, tt.want, 0o600)
		})
	}
}

// TestHostsReadForEditWaitsOutAnEmptyFile: a config read empty, as a host
// writing it in place leaves it for a moment, is read again once the host
// has written it; one that stays empty is empty (a new config).
func TestHostsReadForEditWaitsOutAnEmptyFile(t *testing.T) {
	for _, tt := range []struct {
		name, host, want string
	}{
		{"the host's write ends", `{"mcpServers": {"fs": {}}}`, `{"mcpServers": {"fs": {}}}`},
		{"empty it stays", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mcp.json")
			os.WriteFile(path, nil, 0o600)
			wrote := false
			hook(t, &settling, func(string) {
				if !wrote && tt.host != "" {
					wrote = true
					os.WriteFile(path, []byte(tt.host), 0o600)
				}
			})
			got, err := ReadForEdit(path)
			if err != nil || string(got) != tt.want {
				t.Errorf("ReadForEdit = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	// A file with something in it is read once, with no wait.
	path := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(path, []byte("{}"), 0o600)
	hook(t, &settling, func(string) { t.Error("a config with text in it was waited on") })
	if got, err := ReadForEdit(path); err != nil || string(got) != "{}" {
		t.Errorf("ReadForEdit = %q, %v", got, err)
	}
}
