package autostart

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestInstalled: a binary is installed when a launcher entry of
// elicitray's in the data directories names it (make install's, in
// ~/.local/share or /usr/share, by TryExec; fyne package's, by Exec, a bare
// name found in PATH); the same program run from its build directory is
// not, nor is one whose entry is a link someone put there.
func TestInstalled(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("desktop entries are Linux's: on Windows the start at login is the Run value")
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "prefix", "bin", "elicitray")
	build := filepath.Join(tmp, "build", "elicitray")
	spaced := filepath.Join(tmp, "my apps", "bin", "elicitray")
	for _, f := range []string{bin, build, spaced} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", filepath.Dir(bin)) // where a bare Exec name is found
	linkToBin := filepath.Join(tmp, "elicitray-link")
	if err := os.Symlink(bin, linkToBin); err != nil {
		t.Fatal(err)
	}
	entryFor := func(exe string) string {
		return "[Desktop Entry]\nType=Application\nName=elicitray\nExec=\"" + exe + "\" history window\nTryExec=" + exe + "\n"
	}
	for _, tt := range []struct {
		name string
		exe  string
		// entries: data dir → its entry's content; "link:" before it
		// makes the entry a link to a file with that content.
		entries map[string]string
		want    string // the data dir whose entry counts, "" for none
	}{
		{"installed in the data home", bin, map[string]string{"home": entryFor(bin)}, "home"},
		{"installed for everyone", bin, map[string]string{"home": "", "usr": entryFor(bin)}, "usr"},
		{"run from the build directory", build, map[string]string{"home": entryFor(bin)}, ""},
		{"no entry", bin, map[string]string{}, ""},
		{"run through a link to the installed one", linkToBin, map[string]string{"home": entryFor(bin)}, "home"},
		{"an entry that names a link to it", bin, map[string]string{"home": entryFor(linkToBin)}, "home"},
		{"an entry that is a link", bin, map[string]string{"home": "link:" + entryFor(bin)}, ""},
		{"an entry without TryExec names it in Exec", bin, map[string]string{"home": "[Desktop Entry]\nExec=" + bin + " history window\n"}, "home"},
		{"Exec quoted, with a space", spaced, map[string]string{"home": "[Desktop Entry]\nExec=\"" + spaced + "\" history window\n"}, "home"},
		{"Exec a bare name found in PATH (fyne package's)", bin, map[string]string{"home": "[Desktop Entry]\nExec=elicitray history window\n"}, "home"},
		{"Exec a bare name, PATH finding another", build, map[string]string{"home": "[Desktop Entry]\nExec=elicitray history window\n"}, ""},
		{"neither TryExec nor Exec", bin, map[string]string{"home": "[Desktop Entry]\nName=elicitray\n"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			var dirs []string
			for _, d := range []string{"home", "usr"} {
				dir := filepath.Join(root, d)
				dirs = append(dirs, dir)
				content, ok := tt.entries[d]
				if !ok || content == "" {
					continue
				}
				apps := filepath.Join(dir, "applications")
				if err := os.MkdirAll(apps, 0o755); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(apps, ID+".desktop")
				if c, ok := cutLink(content); ok {
					target := filepath.Join(root, "elsewhere.desktop")
					if err := os.WriteFile(target, []byte(c), 0o644); err != nil {
						t.Fatal(err)
					}
					if err := os.Symlink(target, path); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			entry, ok := Installed(tt.exe, dirs)
			want := ""
			if tt.want != "" {
				want = filepath.Join(root, tt.want, "applications", ID+".desktop")
			}
			if ok != (want != "") || entry != want {
				t.Errorf("Installed(%s) = %q, %v; want %q", tt.exe, entry, ok, want)
			}
		})
	}
}

func cutLink(s string) (string, bool) { return strings.CutPrefix(s, "link:") }
