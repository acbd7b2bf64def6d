package autostart

import (
	"os/exec"
	"path/filepath"
	"strings"
)

// Installed reports whether exe is an installed elicitray: one of
// dataDirs (the XDG data directories, $XDG_DATA_HOME first) holds the
// launcher entry applications/ID.desktop that `make install` or a package
// puts there, and its TryExec names exe (or, in an entry without one, as
// `fyne package` makes, its Exec's program, looked up in PATH when it is a
// bare name). It returns that entry. A binary
// run from where it was built (tests, `make demo`) is not installed, even
// when an installed one's entry exists: that entry names the other binary.
// Paths are compared with their links resolved; an entry that is a link is
// not read.
func Installed(exe string, dataDirs []string) (entry string, ok bool) {
	self := resolved(exe)
	for _, dir := range dataDirs {
		if dir == "" {
			continue
		}
		path := filepath.Join(dir, "applications", ID+".desktop")
		b, err := readRegular(path)
		if err != nil {
			continue
		}
		if prog := programOfEntry(b); prog != "" && resolved(prog) == self {
			return path, true
		}
	}
	return "", false
}

// resolved is path with its links resolved, or path when that fails.
func resolved(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return filepath.Clean(path)
}

// programOfEntry is the program a launcher entry runs: its TryExec, else
// the first argument of its Exec (Desktop Entry Specification, "The Exec
// key": quoted in double quotes, with \", \`, \$ and \\ escaped, under
// the string escaping of every value), looked up in PATH when it names no
// directory; "" when neither tells.
func programOfEntry(content []byte) string {
	if te := tryExecOf(content); te != "" {
		return te
	}
	var line string
	for l := range strings.SplitSeq(string(content), "\n") {
		if v, ok := strings.CutPrefix(l, "Exec="); ok {
			line = desktopUnstring.Replace(strings.TrimSpace(v))
			break
		}
	}
	prog, _, _ := strings.Cut(line, " ")
	if rest, ok := strings.CutPrefix(line, `"`); ok {
		var b strings.Builder
		for i := 0; i < len(rest); i++ {
			c := rest[i]
			if c == '\\' && i+1 < len(rest) {
				i++
				b.WriteByte(rest[i])
				continue
			}
			if c == '"' {
				break
			}
			b.WriteByte(c)
		}
		prog = b.String()
	}
	if prog == "" || strings.ContainsRune(prog, '/') {
		return prog
	}
	found, err := exec.LookPath(prog)
	if err != nil {
		return ""
	}
	return found
}
