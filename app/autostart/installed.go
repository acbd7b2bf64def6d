package autostart

import "path/filepath"

// Installed reports whether exe is an installed elicitray: one of
// dataDirs (the XDG data directories, $XDG_DATA_HOME first) holds the
// launcher entry applications/ID.desktop that `make install` or a package
// puts there, and its TryExec names exe. It returns that entry. A binary
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
		if te := tryExecOf(b); te != "" && resolved(te) == self {
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
