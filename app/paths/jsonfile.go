package paths

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/elicitray/elicitray/app/platform"
)

// JSONFile is one small private JSON file of the user's that more than one
// process may change (the remembered answers, the pinned tools): read
// afresh on each call, changed under a lock file beside it, and written
// back in one rename. What names its contents in errors ("remembered
// answers").
type JSONFile struct {
	Path, Lock, What string
	// mu orders this process's changes; the lock file orders them with
	// other processes'.
	mu sync.Mutex
}

// Read decodes the file into v (numbers as json.Number); a missing file
// leaves v as it is. A link, a file of another user's or one others may
// read is refused (ErrUntrusted), never read through.
func (j *JSONFile) Read(v any) error {
	f, err := platform.OpenFile(j.Path, os.O_RDONLY|platform.ONonblock, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if errors.Is(err, platform.ErrSymlink) {
		return fmt.Errorf("%s is a symbolic link, which elicitray does not read through (remove it if you did not make it): %w", j.Path, ErrUntrusted)
	}
	if err != nil {
		return fmt.Errorf("opening the %s: %w", j.What, err)
	}
	defer f.Close()
	if o, ok := platform.OwnerOf(f); ok && !o.IsMe() {
		return fmt.Errorf("%s belongs to %s, not to you: %w", j.Path, o, ErrUntrusted)
	}
	if fi, err := f.Stat(); err == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file: %w", j.Path, ErrUntrusted)
		}
		if why := platform.FileOpenToOthers(j.Path, fi); why != "" {
			return fmt.Errorf("%s is open to other users (%s): %w", j.Path, why, ErrUntrusted)
		}
	}
	b, err := io.ReadAll(io.LimitReader(f, maxJSONFile+1))
	if err != nil {
		return fmt.Errorf("reading the %s: %w", j.What, err)
	}
	if len(b) > maxJSONFile {
		return fmt.Errorf("%s is larger than the %d MiB elicitray reads; move it away to start afresh", j.Path, maxJSONFile>>20)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // the digits as written
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s is not a file of %s (%v); move it away to start afresh", j.Path, j.What, err)
	}
	return nil
}

// maxJSONFile is the most a JSONFile holds: Read refuses more, and Edit
// never writes more, so that one oversized entry cannot leave a file no
// later Read takes.
const maxJSONFile = 16 << 20

// ErrTooLarge is what Edit returns when the file would grow past
// maxJSONFile; the file stays as it was.
var ErrTooLarge = errors.New("the file would grow past what elicitray reads")

// Unchanged is what an Edit's edit returns when it changed nothing: the
// file is not written, and Edit returns nil.
var Unchanged = errors.New("nothing changed")

// Edit reads the file into v under the lock, applies edit, and writes v
// back in one rename, unless edit returns an error (Unchanged: nil). The
// file's directory is made private first (MakePrivateDir).
func (j *JSONFile) Edit(v any, edit func() error) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	dir := filepath.Dir(j.Path)
	if err := MakePrivateDir("the data directory", dir); err != nil {
		return err
	}
	lock, err := platform.OpenFile(filepath.Join(dir, j.Lock), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("opening the %s' lock: %w", j.What, err)
	}
	defer lock.Close()
	if err := platform.Lock(lock); err != nil {
		return fmt.Errorf("locking the %s: %w", j.What, err)
	}
	defer platform.Unlock(lock)
	if err := j.Read(v); err != nil {
		return err
	}
	if err := edit(); errors.Is(err, Unchanged) {
		return nil
	} else if err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the %s: %w", j.What, err)
	}
	if len(b)+1 > maxJSONFile {
		return fmt.Errorf("not saving the %s: %w (%d MiB)", j.What, ErrTooLarge, maxJSONFile>>20)
	}
	// A new file of our own, renamed over the old: a link planted at the
	// path is replaced, never written through.
	if err := platform.ReplaceFile(j.Path, append(b, '\n')); err != nil {
		return fmt.Errorf("saving the %s: %w", j.What, err)
	}
	return nil
}
