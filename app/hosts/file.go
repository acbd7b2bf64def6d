package hosts

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Errors of ReadConfig and WriteFile.
var (
	// ErrNotRegular: the config is not a regular file but a named pipe, a
	// device, a directory or a socket. ReadConfig refuses it before
	// reading, as reading a pipe waits for a writer, maybe forever.
	ErrNotRegular = errors.New("not a regular file")
	// ErrDanglingLink: the config is a symbolic link to a file that does
	// not exist. It is not fs.ErrNotExist: the user made the link, and
	// "no config file yet" would hide where it points.
	ErrDanglingLink = errors.New("symbolic link to nothing")
	// ErrSymlink: the config is a symbolic link that is not the user's own
	// (someone else may have planted it to make elicitray write elsewhere).
	ErrSymlink = errors.New("symbolic link not owned by you")
	// ErrChanged: the file changed since it was read (the host rewrote it).
	ErrChanged = errors.New("the file changed while elicitray was editing it")
)

// ReadConfig returns the contents of the config file at path. A missing
// file is an error satisfying errors.Is(err, fs.ErrNotExist); a symbolic
// link to a missing file is ErrDanglingLink instead. Anything but a
// regular file (after symbolic links) is ErrNotRegular, found out before a
// byte is read: the file is opened without waiting for a writer and looked
// at again once open, in case it was swapped meanwhile.
func ReadConfig(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if li, lerr := os.Lstat(path); lerr == nil && li.Mode()&os.ModeSymlink != 0 {
			to, _ := os.Readlink(path)
			return nil, fmt.Errorf("%s is a %w (%s, which does not exist): point it at the config file, or remove it", path, ErrDanglingLink, to)
		}
	}
	if err != nil {
		return nil, err
	}
	if err := regular(path, fi); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := regular(path, fi); err != nil {
		return nil, err
	}
	data := make([]byte, 0, fi.Size()+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // it grew since the Stat
		}
	}
}

// regular says, as a sentence, what fi is when it is not a regular file.
func regular(path string, fi os.FileInfo) error {
	m := fi.Mode()
	if m.IsRegular() {
		return nil
	}
	what := "not a regular file"
	switch {
	case m.IsDir():
		what = "a directory"
	case m&os.ModeNamedPipe != 0:
		what = "a named pipe"
	case m&os.ModeSocket != 0:
		what = "a socket"
	case m&os.ModeDevice != 0:
		what = "a device"
	}
	return fmt.Errorf("%s is %s, not a config file: %w; elicitray reads and writes only regular files (reading a pipe or device could wait forever or never end)", path, what, ErrNotRegular)
}

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
	if err := regular(target, fi); err != nil {
		return "", err
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
	now, err := ReadConfig(path)
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
