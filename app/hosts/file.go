package hosts

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Errors of WriteFile.
var (
	// ErrSymlink: the config is a symbolic link that is not the user's own
	// (someone else may have planted it to make elicitray write elsewhere).
	ErrSymlink = errors.New("symbolic link not owned by you")
	// ErrChanged: the file changed since it was read (the host rewrote it).
	ErrChanged = errors.New("the file changed while elicitray was editing it")
)

// WriteFile replaces the file at path, whose contents were old when read,
// with new, and returns the path of the backup it made of old first:
// "PATH.elicitray-backup-YYYYMMDD-HHMMSS" (now's local time) beside it, mode
// 0600 (configs hold tokens). The new contents go to a temporary file in the
// same directory, get the old file's mode, and are renamed over it, so a
// reader sees the old file or the new one, never half of one.
//
// A path that is a symbolic link is written through (the link stays) only
// when the link is the user's own; else it is ErrSymlink and nothing is
// written. When the file no longer holds old, it is ErrChanged.
func WriteFile(path string, old, new []byte, now time.Time) (backup string, err error) {
	target, err := writeTarget(path)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(target)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", target)
	}
	if err := unchanged(target, old); err != nil {
		return "", err
	}
	backup, err = writeBackup(path, old, now)
	if err != nil {
		return "", fmt.Errorf("backing up %s (nothing was changed): %w", path, err)
	}
	dir, base := filepath.Split(target)
	tmp, err := os.CreateTemp(dir, "."+base+".elicitray-*")
	if err != nil {
		return backup, err
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(new); err == nil {
		if err = tmp.Chmod(fi.Mode().Perm()); err == nil {
			keepOwner(tmp, fi)
			err = tmp.Sync()
		}
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return backup, err
	}
	if err = unchanged(target, old); err != nil {
		return backup, err
	}
	if err = os.Rename(tmp.Name(), target); err != nil {
		return backup, err
	}
	syncDir(dir)
	return backup, nil
}

// writeTarget returns the file to replace for path: path itself, or the
// file a symbolic link of the user's own points to.
func writeTarget(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return "", err
	}
	if fi.Mode()&os.ModeSymlink == 0 {
		return path, nil
	}
	if uid, ok := owner(fi); !ok || uid != os.Getuid() {
		who := "another user"
		if ok {
			who = fmt.Sprintf("user %d", uid)
		}
		return "", fmt.Errorf("%s is a symbolic link owned by %s, not you: %w; elicitray does not write through it (check where it points, and replace it with a file of your own if it is yours)", path, who, ErrSymlink)
	}
	return filepath.EvalSymlinks(path)
}

func unchanged(path string, old []byte) error {
	now, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !bytes.Equal(now, old) {
		return fmt.Errorf("%s: %w (the host may have rewritten it); nothing was written, run the command again", path, ErrChanged)
	}
	return nil
}

// writeBackup writes data to a new 0600 file beside path named after now,
// never over an existing file.
func writeBackup(path string, data []byte, now time.Time) (string, error) {
	name := backupName(path, now, 1)
	for i := 2; ; i++ {
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) && i < 100 {
			name = backupName(path, now, i)
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", err
		}
		return name, nil
	}
}

// syncDir makes a rename in dir durable; where directories cannot be
// synced (Windows) it does nothing.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
