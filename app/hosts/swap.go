package hosts

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"time"
)

// Swapping a new version of a config in without losing a host's write
// (issue 25). A host may write its config at any moment (Claude Code
// rewrites ~/.claude.json often), and renaming elicitray's version over the
// file deletes whatever the host wrote between the last look at it and the
// rename: 11 host versions in 763 wraps, with a write every 10 ms.
//
// On Linux the new version is swapped in with renameat2(RENAME_EXCHANGE):
// one step that puts it in the file's place and the file that was there
// under the temporary name, so what was replaced can be looked at after the
// fact. When that is the file elicitray read (the same file, holding the
// same bytes), nobody wrote in between, and it is removed. Otherwise the
// host wrote after the read: its version is swapped back in place and
// copied into a backup, and ErrChanged says nothing was written (EditFile
// then makes the edit again on the host's version).
//
// Between the exchange and the swap back (microseconds), the file holds the
// edit of the older version. A host that writes then, by rename or in
// place, writes over elicitray's version, not its own: the swap back takes
// that newer version out instead of elicitray's, sees so, and swaps again
// to put it in place. A host that reads then sees the older version;
// whatever it builds on that, the version it had written is also copied
// into a backup. So no version of the host's is ever deleted: it is in
// place, or in a backup beside the others (kept as they are, the newest
// backupsKept). Should the host write again within each of putBackRounds
// swaps back, the last version taken out stays in a backup, and the error
// names it.
//
// A host that writes in place truncates the file as it opens it (Node's
// fs.writeFile, every "w" mode): a write it began before the exchange left
// the file elicitray swapped out empty or different, so it is put back and
// the host's write lands in place. (A host that overwrote in place without
// truncating, after elicitray's last look, would go unseen.)
//
// Where there is no exchange (macOS, Windows, and Linux file systems that
// refuse it with EINVAL, such as some network ones), the file is looked at
// once more right before the rename: the same file, holding the same bytes.
// A host write between that look and the rename is lost there, as it was
// everywhere before. macOS's renamex_np(RENAME_SWAP) would do what
// RENAME_EXCHANGE does; it is not used yet.

// putBackRounds is how many times putBack swaps a host's newer version in
// before it gives up and keeps it in a backup.
const putBackRounds = 5

// editAttempts is how many times EditFile writes an edit before it gives up
// on a host that keeps rewriting the file.
const editAttempts = 10

// errNoExchange: the system or the file system cannot exchange two files.
var errNoExchange = errors.New("exchanging two files is not supported here")

// The moments tests write the file at as a host would: just before the new
// version is swapped in, and just after.
var (
	beforeSwap = func(target string) {}
	afterSwap  = func(target string) {}
)

// swap puts the file at tmp (ours: holding new) in target's place. target
// was read (the file read describes, holding old) for the edit. It returns
// ErrChanged, with the host's version in place and in a backup of path,
// when target was no longer that; any other error says what became of the
// host's version and of the edit. tmp is gone when it returns.
func swap(path, tmp, target string, read, ours os.FileInfo, old, new []byte, now time.Time) error {
	beforeSwap(target)
	err := exchange(tmp, target)
	if errors.Is(err, errNoExchange) {
		if !holds(target, read, old) {
			os.Remove(tmp)
			return changed(target)
		}
		if err = os.Rename(tmp, target); err == nil {
			return nil
		}
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("replacing %s: %w; nothing was changed", target, err)
	}
	afterSwap(target)
	if holds(tmp, read, old) {
		os.Remove(tmp)
		return nil
	}
	return putBack(path, tmp, target, ours, new, now)
}

// putBack swaps the version at tmp, which the host wrote after elicitray
// read target, back into target's place. What comes out should be want
// (ours, at first); when it is not, the host wrote target after the last
// exchange, and what came out is newer than what went in: it goes in
// instead, the same way. Each version that went in is also copied into a
// backup, once the exchanges are done: the host may have read the edit of
// an older version in place meanwhile, and built its next version on it.
func putBack(path, tmp, target string, want os.FileInfo, wantData []byte, now time.Time) error {
	var theirs [][]byte
	defer func() {
		for _, data := range theirs {
			writeBackup(path, data, now) // it is in place, or was: a backup too few loses nothing yet
		}
	}()
	for range putBackRounds {
		data, fi, err := readConfig(tmp)
		if err == nil {
			err = exchange(tmp, target)
		}
		if err != nil {
			return fmt.Errorf("%s: the host rewrote it while elicitray was replacing it, and putting its version back failed (%v): elicitray's edit is in place, and the host's version is in %s", target, err, keepAside(path, tmp, now))
		}
		theirs = append(theirs, data)
		if holds(tmp, want, wantData) {
			os.Remove(tmp) // ours, or a version of the host's older than one it wrote since (and in a backup)
			return changed(target)
		}
		want, wantData = fi, data
	}
	return fmt.Errorf("%s: the host rewrote it %d times while elicitray was putting its version back in place; the version in place may be older than the one in %s, which it wrote last: compare them, and put the right one in place", target, putBackRounds, keepAside(path, tmp, now))
}

// holds reports whether the file at name is the one fi describes and holds
// data.
func holds(name string, fi os.FileInfo, data []byte) bool {
	now, nowFi, err := readConfig(name)
	return err == nil && os.SameFile(fi, nowFi) && bytes.Equal(now, data)
}

// keepAside renames the file at tmp, a version of the host's that is not
// put in place, to a new backup name of path (mode 0600, like every
// backup) and returns where it is.
func keepAside(path, tmp string, now time.Time) string {
	f, err := newBackup(path, now)
	if err != nil {
		return tmp
	}
	f.Close()
	if err := os.Rename(tmp, f.Name()); err != nil {
		os.Remove(f.Name())
		return tmp
	}
	os.Chmod(f.Name(), 0o600)
	return f.Name()
}

// EditFile is WriteFile for an edit that can be made again: new is
// redo(old), made already. When the host rewrote the file since it was read
// (ErrChanged), the edit is made again on the host's version, read anew
// once it has settled, up to editAttempts times in all; then the error
// says the host keeps rewriting the file and nothing was changed. tries is
// how many times it wrote; the backup is "" when the edit, made again,
// changes nothing.
func EditFile(path string, old, new []byte, redo func([]byte) ([]byte, error), now time.Time) (backup string, tries int, err error) {
	for tries = 1; ; tries++ {
		backup, err = WriteFile(path, old, new, now)
		if !errors.Is(err, ErrChanged) {
			return backup, tries, err
		}
		if tries == editAttempts {
			return "", tries, keepsRewriting(path, tries)
		}
		if old, err = settled(path); err != nil {
			return "", tries, err
		}
		if new, err = redo(old); err != nil || bytes.Equal(new, old) {
			return "", tries, err
		}
	}
}

func keepsRewriting(path string, times int) error {
	return fmt.Errorf("%s: %w, %d times in a row: the host keeps rewriting it; nothing was changed (run the command again, or quit the host first)", path, ErrChanged, times)
}

// settleWait is how long the host's new version must stay the same before
// EditFile edits it.
const settleWait = 100 * time.Millisecond

// The moment a test writes the file at as a host would: each time
// settled is about to wait.
var settling = func(path string) {}

// ReadForEdit is ReadConfig for a config about to be edited. A file that
// reads empty is read again once it has stayed so for settleWait: a host
// that writes in place empties the file first, and an empty config holds
// no servers, so that `hosts unwrap --all`, say, would find nothing to do
// and leave the host's version of a moment later still wrapped.
func ReadForEdit(path string) ([]byte, error) {
	data, err := ReadConfig(path)
	if err != nil || len(bytes.TrimSpace(data)) > 0 {
		return data, err
	}
	return settled(path)
}

// settled returns the host's new version of path once it has stayed the
// same for settleWait. A host that writes in place may be midway (the file
// empty, which reads as no servers, or half written, which is no JSON),
// and an edit of that would fail, or change nothing and be taken for done
// (wrap --all). A file that reads otherwise at each of editAttempts looks
// is ErrChanged.
func settled(path string) ([]byte, error) {
	old, err := ReadConfig(path)
	for range editAttempts {
		if err != nil {
			return nil, err
		}
		settling(path)
		time.Sleep(settleWait)
		var now []byte
		if now, err = ReadConfig(path); err == nil && bytes.Equal(now, old) {
			return now, nil
		}
		old = now
	}
	return nil, keepsRewriting(path, editAttempts)
}
