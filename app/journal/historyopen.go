package journal

import (
	"errors"
	"fmt"

	"github.com/elicitray/elicitray/history"
)

// historyOpenError says why the history file could not be opened, naming
// the process that holds it when it is locked.
func OpenError(path string, err error) error {
	if errors.Is(err, history.ErrLocked) {
		if pid, cmd := LockHolder(path); pid > 0 {
			return LockedError(fmt.Sprintf("the history file %s is in use by another process (pid %d: %s)", path, pid, cmd))
		}
		return LockedError(fmt.Sprintf("the history file %s is in use by another process", path))
	}
	return fmt.Errorf("the history file %s could not be opened: %w", path, err)
}

// LockedError is a sentence about a locked history that is
// history.ErrLocked to errors.Is.
type LockedError string

func (e LockedError) Error() string { return string(e) }
func (e LockedError) Unwrap() error { return history.ErrLocked }
