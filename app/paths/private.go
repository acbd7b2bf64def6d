package paths

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/elicitray/elicitray/app/platform"
)

// The wrapper talks only to a hub it has verified is the user's own, and the
// hub only to peers of its own user (DESIGN.md: "Nothing secret is sent
// before that check"). A hub's socket is trusted when its directory is a
// real directory (not a symbolic link) owned by this user with no access
// for anyone else, and the process listening on it runs as this user.

// ErrUntrusted marks a run directory or hub peer elicitray refuses to use:
// nothing is sent there, and no hub is started there.
var ErrUntrusted = errors.New("refusing to use it")

// CheckRunDir verifies dir as a place for the hub's socket: an existing
// directory, not a link, owned by this user, mode 0700 (no group or other
// bits). A missing directory is returned as is (fs.ErrNotExist): no hub ran
// yet.
func CheckRunDir(dir string) error { return CheckPrivateDir("the hub's directory", dir) }

// CheckPrivateDir verifies that dir, named what in errors, is a directory
// (not a link) of this user's that no one else may enter; else the error
// wraps ErrUntrusted.
func CheckPrivateDir(what, dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		target, _ := os.Readlink(dir)
		return fmt.Errorf("%s %s is a symbolic link (to %s), not a directory of your own: %w", what, dir, target, ErrUntrusted)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s %s is not a directory: %w", what, dir, ErrUntrusted)
	}
	if o, ok := platform.FileOwner(dir, fi); ok && !o.IsMe() {
		return fmt.Errorf("%s %s belongs to %s, not to you (%s): %w", what, dir, o, platform.Me(), ErrUntrusted)
	}
	if why := platform.DirOpenToOthers(dir, fi); why != "" {
		return fmt.Errorf("%s %s is open to other users (%s): %w", what, dir, why, ErrUntrusted)
	}
	return nil
}

// MakePrivateDir creates dir (0700) if it is missing, gives a directory of
// this user's mode 0700, and then verifies it (CheckPrivateDir; what names
// it in errors): a link or a directory of someone else's is refused, never
// changed.
func MakePrivateDir(what, dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("creating %s: %w", dir, err)
		}
		fi, err = os.Lstat(dir)
	}
	if err != nil {
		return err
	}
	if o, ok := platform.FileOwner(dir, fi); ok && fi.IsDir() && o.IsMe() && !platform.IsPrivateDir(dir, fi) {
		if err := platform.MakePrivate(dir); err != nil {
			return err
		}
	}
	return CheckPrivateDir(what, dir)
}
