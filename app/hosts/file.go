package hosts

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
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
	// ErrReadOnly: the config's mode does not let its owner write it
	// (0444): someone made it read-only, so elicitray does not rewrite it.
	ErrReadOnly = errors.New("read-only")
	// ErrOwner: the config belongs to another user, and elicitray, not
	// being root, cannot give the file it writes that owner.
	ErrOwner = errors.New("the file is not yours")
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
	data, _, err := readConfig(path)
	return data, err
}

// readConfig is ReadConfig, also returning what the open file was: the
// identity of the version read, to tell later whether the file at path is
// still that one.
func readConfig(path string) ([]byte, os.FileInfo, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if li, lerr := os.Lstat(path); lerr == nil && li.Mode()&os.ModeSymlink != 0 {
			to, _ := os.Readlink(path)
			return nil, nil, fmt.Errorf("%s is a %w (%s, which does not exist): point it at the config file, or remove it", path, ErrDanglingLink, to)
		}
	}
	if err != nil {
		return nil, nil, err
	}
	if err := regular(path, fi); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, nil, err
	}
	if err := regular(path, fi); err != nil {
		return nil, nil, err
	}
	data := make([]byte, 0, fi.Size()+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, fi, nil
		}
		if err != nil {
			return nil, nil, err
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
	what := "something else"
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
	return fmt.Errorf("%s is %s, %w: elicitray reads and writes only regular files (reading a pipe or a device could wait forever or never end)", path, what, ErrNotRegular)
}

// backupsKept is how many backups of one config WriteFile keeps: the
// newest, the one it just made included. Each is a full copy (100 wrap and
// unwrap cycles of a 38 MB ~/.claude.json left 7.6 GB), and the newest few
// are what a user or Unwrap (UnwrapOptions.Earlier) turns to.
const backupsKept = 5

// The ways of writing the new file, replaced by tests to fail as a full
// disk or a user who is not root would.
var (
	writeTemp = func(f *os.File, data []byte) error { _, err := f.Write(data); return err }
	getuid    = os.Getuid
)

// WriteFile replaces the file at path, whose contents were old when read,
// with new, and returns the path of the backup it made of old first:
// "PATH.elicitray-backup-YYYYMMDD-HHMMSS" (now's local time) beside it, mode
// 0600 (configs hold tokens). The new contents go to a temporary file in the
// same directory, get the old file's mode and owner, and are swapped in
// (swap.go), so a reader sees the old file or the new one, never half of
// one, and a version the host wrote meanwhile is not lost. Once swapped in,
// backups of path beyond the newest backupsKept are deleted (only files
// named as WriteFile names them).
//
// It refuses, with nothing written: a symbolic link that is not the user's
// own (ErrSymlink; the user's own is written through and stays a link), a
// file that is not regular (ErrNotRegular), one whose owner may not write
// it (ErrReadOnly: mode 0444), one owned by another user when elicitray is
// not root, as the rewritten file would be the user's (ErrOwner), and one
// that no longer holds old, or was rewritten up to the swap (ErrChanged: the
// host's version is in place, EditFile makes the edit again on it). When
// writing fails midway (a full disk), the temporary file and the backup
// are removed and the error says nothing was changed.
func WriteFile(path string, old, new []byte, now time.Time) (backup string, err error) {
	target, err := writeTarget(path)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(target)
	if err != nil {
		return "", err
	}
	if err := writable(target, fi); err != nil {
		return "", err
	}
	read, err := unchanged(target, old)
	if err != nil {
		return "", err
	}
	backup, err = writeBackup(path, old, now)
	if err != nil {
		return "", fmt.Errorf("backing up %s: %w; nothing was changed", path, err)
	}
	made := backup
	defer func() {
		if err != nil {
			os.Remove(made) // nothing changed: there is nothing to go back to
		}
	}()
	dir, base := filepath.Split(target)
	tmp, err := os.CreateTemp(dir, "."+base+".elicitray-*")
	if err != nil {
		return "", fmt.Errorf("writing %s: %w; nothing was changed", target, err)
	}
	var ours os.FileInfo
	if err = writeTemp(tmp, new); err == nil {
		if err = tmp.Chmod(fi.Mode().Perm()); err == nil {
			if err = keepOwner(tmp, fi); err == nil {
				if err = tmp.Sync(); err == nil {
					ours, err = tmp.Stat()
				}
			}
		}
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		if errors.Is(err, ErrOwner) {
			return "", fmt.Errorf("%s: %w; nothing was changed", target, err)
		}
		return "", fmt.Errorf("writing %s: %w; nothing was changed", target, err)
	}
	if err = swap(path, tmp.Name(), target, read, ours, old, new, now); err != nil {
		return "", err
	}
	syncDir(dir)
	pruneBackups(path, backup)
	return backup, nil
}

// Writable returns the error WriteFile would refuse the file at path with
// before writing anything (ErrSymlink, ErrNotRegular, ErrReadOnly,
// ErrOwner), or nil: `hosts wrap` asks it of every file before writing the
// first, so that one refusal does not leave the files before it changed.
func Writable(path string) error {
	target, err := writeTarget(path)
	if err != nil {
		return err
	}
	fi, err := os.Stat(target)
	if err != nil {
		return err
	}
	return writable(target, fi)
}

func writable(target string, fi os.FileInfo) error {
	if err := regular(target, fi); err != nil {
		return err
	}
	if fi.Mode().Perm()&0o200 == 0 {
		if runtime.GOOS == "windows" {
			return fmt.Errorf("%s is %w: elicitray does not rewrite a file made read-only; clear Read-only in its Properties if it should, and run the command again", target, ErrReadOnly)
		}
		return fmt.Errorf("%s is %w (mode %04o): elicitray does not rewrite a file made read-only; make it writable (chmod u+w) if it should, and run the command again", target, ErrReadOnly, fi.Mode().Perm())
	}
	if uid, ok := owner(fi); ok && uid != getuid() && getuid() != 0 {
		return fmt.Errorf("%s is owned by user %d: %w; elicitray replaces a config with a new file, which would be yours, and only root can give it back (run it as that user)", target, uid, ErrOwner)
	}
	return nil
}

// pruneBackups deletes the backups of path beyond the newest backupsKept,
// never the one just made (kept, which a clock set back could sort older).
// What cannot be deleted stays: a backup too many is no harm.
func pruneBackups(path, kept string) {
	names, err := Backups(path)
	if err != nil || len(names) <= backupsKept {
		return
	}
	n := 0
	for _, name := range names {
		if name == kept {
			continue
		}
		if n++; n >= backupsKept {
			os.Remove(name)
		}
	}
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
	if uid, ok := owner(fi); !ok || uid != getuid() {
		who := "another user"
		if ok {
			who = fmt.Sprintf("user %d", uid)
		}
		return "", fmt.Errorf("%s is a symbolic link owned by %s, not you: %w; elicitray does not write through it (check where it points, and replace it with a file of your own if it is yours)", path, who, ErrSymlink)
	}
	return filepath.EvalSymlinks(path)
}

// unchanged returns what the file at path is when it still holds old, and
// ErrChanged otherwise.
func unchanged(path string, old []byte) (os.FileInfo, error) {
	now, fi, err := readConfig(path)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(now, old) {
		return nil, changed(path)
	}
	return fi, nil
}

func changed(path string) error {
	return fmt.Errorf("%s: %w (the host may have rewritten it); nothing was written, run the command again", path, ErrChanged)
}

// writeBackup writes data to a new 0600 file beside path named after now,
// never over an existing file.
func writeBackup(path string, data []byte, now time.Time) (string, error) {
	f, err := newBackup(path, now)
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
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// newBackup creates an empty 0600 file for a backup of path made at now,
// numbered after every backup of that second: pruning leaves gaps, and one
// filled would sort older than backups made before it.
func newBackup(path string, now time.Time) (*os.File, error) {
	n := 1
	if names, err := filepath.Glob(backupName(path, now, 1) + "-*"); err == nil {
		stamp := len(backupName(path, now, 1) + "-")
		for _, name := range names {
			if i, err := strconv.Atoi(name[stamp:]); err == nil && i >= n {
				n = i + 1
			}
		}
	}
	for i := n; ; i++ {
		f, err := os.OpenFile(backupName(path, now, i), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) && i < n+100 {
			continue
		}
		return f, err
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
