package history

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// ErrCorrupt is returned by Open for a file that is not a readable history:
// not a bbolt file, a checksum error in its meta pages, a file cut short, or
// a bbolt file without the history's buckets. The file is left untouched;
// OpenOrRecover moves it aside.
var ErrCorrupt = errors.New("history file is unreadable")

// OpenOrRecover opens the history file at path like Open. When Open fails
// with ErrCorrupt, it renames the file to path + ".corrupt-" and the local
// date and time from Options.Now (".corrupt-20261130-070102"; "-2", "-3"…
// appended rather than replace an earlier one), starts a new, empty history
// at path, and returns the new path of the old file in movedTo, so that the
// caller can tell the user where it went. movedTo is "" when the file opened
// as it was. Any other error of Open is returned as is, with the file left
// where it is.
func OpenOrRecover(path string, opts *Options) (s *Store, movedTo string, err error) {
	s, err = Open(path, opts)
	if !errors.Is(err, ErrCorrupt) {
		return s, "", err
	}
	now := time.Now
	if opts != nil && opts.Now != nil {
		now = opts.Now
	}
	movedTo, merr := moveAside(path, path+".corrupt-"+now().Local().Format("20060102-150405"))
	if merr != nil {
		return nil, "", fmt.Errorf("%w; moving it aside: %v", err, merr)
	}
	s, err = Open(path, opts)
	if err != nil {
		return nil, movedTo, err
	}
	return s, movedTo, nil
}

// moveAside renames path to base, or to base with "-2", "-3"… appended when
// that name is taken, and returns the name it used. It never replaces a
// file: a hard link fails when the name exists, where a rename would not.
func moveAside(path, base string) (string, error) {
	for i := 1; ; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		err := os.Link(path, name)
		switch {
		case err == nil:
			if err := os.Remove(path); err != nil {
				os.Remove(name)
				return "", err
			}
			return name, nil
		case errors.Is(err, fs.ErrExist):
			continue
		}
		// A file system without hard links: check, then rename.
		if _, serr := os.Lstat(name); serr == nil {
			continue
		}
		if err := os.Rename(path, name); err != nil {
			return "", err
		}
		return name, nil
	}
}
