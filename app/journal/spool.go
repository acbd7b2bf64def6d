package journal

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/app/platform"
	"github.com/elicitray/elicitray/history"
)

// The spool keeps decisions that history.db cannot take at the moment (the
// file is locked by another process, the disk is full, an I/O error), and
// the decisions of a wrapper whose hub is gone: DESIGN.md, "A decision is
// durable before its answer leaves, or the user is told". It is a
// directory of append-only files, one per process that wrote, each line one
// history.Record as JSON, each line on disk (fsync) before the answer it
// records leaves. A hub that can write to history takes every file in
// (takeSpool), exactly once: records carry the elicitation's Key, so a file
// taken twice after a crash adds nothing twice (history doc, "One record
// per elicitation").
//
// Writers and the taker agree by a lock on each file (flock; LockFileEx on
// Windows: platform.Lock): a writer holds it while
// it appends and syncs one line; the taker holds it while it reads the file,
// adds its records and unlinks it. A writer whose file was taken in (its
// link count is zero once it holds the lock), or is no longer where it was
// made (its directory moved away: inPlace), starts a new one, so no line is
// written to a file nobody will read.
//
// The directory is the user's own (0700, no symbolic link), and files are
// opened without following links (platform.OpenFile): a link planted in the directory is not written
// through or read (DESIGN.md, "Trust nothing on the path").

// spoolSuffix ends the name of every spool file.
const spoolSuffix = ".jsonl"

// maxSpoolFile bounds how much of one spool file is read: 300 records of a
// realistic size take 300 kB; a file far beyond this is not a spool.
const maxSpoolFile = 256 << 20

// spoolDirName names the spool directory in errors.
const spoolDirName = "the spool directory"

// SpoolDir returns the spool directory of p, beside the history file.
func SpoolDir(p paths.Paths) string { return filepath.Join(filepath.Dir(p.History), "spool") }

// Spool appends records to a file of its own in a spool directory.
type Spool struct {
	Dir  string
	Role string // "hub", "wrapper" or "cli" (a command): the start of the file's name
	// Reserve is how many bytes a new file sets aside on disk (fallocate,
	// keeping its size 0), so that records still land on a disk that
	// filled up since; 0 reserves nothing. The hub reserves hubReserve.
	Reserve int64

	mu     sync.Mutex // guards f, closed and the file's end
	f      *os.File   // nil until the first record, and after the file was taken in
	closed bool       // Close was called: a later record's file is closed after it
}

// Add appends rec to the spool and syncs it to disk. A write that fails
// part way (a full disk) is cut back, so the file never ends in half a line.
func (s *Spool) Add(rec history.Record) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("spooling a record: %w", err)
	}
	line = append(line, '\n')
	s.mu.Lock()
	defer s.mu.Unlock()
	// Twice at most: a file the hub took in while it was open is replaced
	// by a new one.
	for range 2 {
		if s.f == nil {
			f, err := s.create()
			if err != nil {
				return err
			}
			s.f = f
		}
		if err := platform.Lock(s.f); err != nil {
			return fmt.Errorf("locking the spool file: %w", err)
		}
		size, taken, err := fileState(s.f)
		if err != nil || taken || !inPlace(s.f) {
			_ = platform.Unlock(s.f)
			if err != nil {
				return fmt.Errorf("spool file: %w", err)
			}
			// Taken in by a hub: its lines are in history now. Or moved
			// away with its directory, or its directory replaced: no hub
			// reads it there, and the new file goes where one does.
			s.f.Close()
			s.f = nil
			continue
		}
		err = writeSynced(s.f, line, size)
		_ = platform.Unlock(s.f)
		if s.closed {
			// A record kept after Close (a delivery that began as its
			// wrapper stopped) leaves no file open behind it.
			s.f.Close()
			s.f = nil
		}
		return err
	}
	return errors.New("spooling a record: the spool file keeps being taken in")
}

// fileState returns the size of the open file f and whether it was taken
// in: unlinked by takeSpoolFile, its records in history.
func fileState(f *os.File) (size int64, taken bool, err error) {
	size, links, err := platform.Links(f)
	if err != nil {
		return 0, false, err
	}
	return size, links == 0, nil
}

// inPlace reports whether the open spool file f is still the file at the
// path it was made at: not when its directory was moved away (issue 25: the
// lines written to it were read by no hub) or replaced.
func inPlace(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	at, err := os.Lstat(f.Name())
	return err == nil && os.SameFile(fi, at)
}

// writeSynced appends line to f, whose size is size, and syncs it; on an
// error it cuts f back to size.
func writeSynced(f *os.File, line []byte, size int64) error {
	_, err := f.Write(line)
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		_ = f.Truncate(size)
		return fmt.Errorf("writing the spool file %s: %w", f.Name(), err)
	}
	return nil
}

// create makes a new spool file of s's, in a directory it checked.
func (s *Spool) create() (*os.File, error) {
	if err := paths.MakePrivateDir(spoolDirName, s.Dir); err != nil {
		return nil, err
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := filepath.Join(s.Dir, fmt.Sprintf("%s-%d-%s%s", s.Role, os.Getpid(), hex.EncodeToString(b[:]), spoolSuffix))
	f, err := platform.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("creating a spool file: %w", err)
	}
	if s.Reserve > 0 {
		// Best effort: a file system without fallocate, or a full one,
		// simply reserves nothing.
		platform.Reserve(f, s.Reserve)
	}
	// The new name must survive a crash too.
	if d, err := os.Open(s.Dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return f, nil
}

// HubReserve is what the hub's spool sets aside on disk: about 500
// decisions of a realistic size.
const HubReserve = 256 << 10

// prepare makes the spool's file now, with its reserve, unless it has one
// that was not taken in: the hub calls it when the disk has room (at start,
// and after history took the spool in), for the day it has none.
func (s *Spool) prepare() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f != nil {
		if _, taken, err := fileState(s.f); err == nil && !taken && inPlace(s.f) {
			return
		}
		s.f.Close()
		s.f = nil
	}
	if f, err := s.create(); err == nil {
		s.f = f
	}
}

// Close closes the spool's file; its records stay for the next hub. A
// record added later is still kept, in a file closed after it.
func (s *Spool) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
}

// CheckHistoryPath refuses a history file that is someone else's, or a
// symbolic link someone else owns (bbolt would write through it), or a link
// to a file of someone else's: the user's decisions would be kept where
// another user reads them (an ELICITRAY_HOME in a shared directory). A link
// of the user's own to a file of their own (history kept on another disk) is
// theirs to make.
func CheckHistoryPath(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil
	}
	if who, theirs := othersFile(path, fi); theirs && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link owned by %s, not you; elicitray does not write through it: %w", path, who.ID(), paths.ErrUntrusted)
	} else if theirs {
		return fmt.Errorf("%s belongs to %s, not you; elicitray does not keep your decisions in another user's file: %w", path, who.ID(), paths.ErrUntrusted)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if ti, err := os.Stat(path); err == nil {
			if who, theirs := othersFile(path, ti); theirs {
				return fmt.Errorf("%s links to a file of %s, not yours; elicitray does not keep your decisions in another user's file: %w", path, who.ID(), paths.ErrUntrusted)
			}
		}
	}
	return nil
}

// othersFile returns the owner of the file at path that fi describes, and
// whether it is not this user.
func othersFile(path string, fi fs.FileInfo) (owner platform.User, theirs bool) {
	o, ok := platform.FileOwner(path, fi)
	if !ok {
		return platform.User{}, false
	}
	return o, !o.IsMe()
}

// spoolFiles returns the paths of the spool files in dir, none when dir is
// missing.
func spoolFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), spoolSuffix) {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	return files, nil
}

// SpoolTaken says what takeSpool did.
type SpoolTaken struct {
	Added   int // records added to history (or changed: see history.Store.Add)
	Records int // records read, replays included
	Bad     int // lines that were no record (a line cut short by a crash)
}

// TakeSpool adds the records of every spool file in dir to st and removes
// the files, exactly once (see the top of this file). A file whose records
// history refuses stays, and the error says why; the other files are taken.
func TakeSpool(dir string, st *history.Store) (SpoolTaken, error) {
	var got SpoolTaken
	if err := checkSpoolDir(dir); err != nil {
		return got, err
	}
	files, err := spoolFiles(dir)
	if err != nil {
		return got, err
	}
	var errs []error
	for _, path := range files {
		if emptyOfLiveProcess(path) {
			continue // a spool's reserve, for later
		}
		t, err := takeSpoolFile(path, st)
		got.Added += t.Added
		got.Records += t.Records
		got.Bad += t.Bad
		if err != nil {
			errs = append(errs, err)
		}
	}
	return got, errors.Join(errs...)
}

// emptyOfLiveProcess reports whether the spool file at path holds no
// record and was made by a process still running (its name is
// ROLE-PID-RANDOM.jsonl): a reserve set aside for later. The empty file of
// a process gone is taken (removed) like any other.
func emptyOfLiveProcess(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil || fi.Size() != 0 {
		return false
	}
	parts := strings.Split(strings.TrimSuffix(filepath.Base(path), spoolSuffix), "-")
	if len(parts) != 3 {
		return false
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 {
		return false
	}
	return platform.Alive(pid)
}

// checkSpoolDir refuses a spool directory that is a link or someone else's;
// a missing one is empty.
func checkSpoolDir(dir string) error {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return paths.MakePrivateDir(spoolDirName, dir)
}

// takeSpoolFile adds the records of one spool file to st and unlinks it,
// holding its lock throughout.
func takeSpoolFile(path string, st *history.Store) (SpoolTaken, error) {
	var got SpoolTaken
	f, err := platform.OpenFile(path, os.O_RDONLY|platform.ONonblock, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return got, nil // taken by another hub a moment ago
	}
	if err != nil {
		return got, fmt.Errorf("opening the spool file %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return got, err
	}
	if _, theirs := othersFile(path, fi); !fi.Mode().IsRegular() || theirs {
		return got, fmt.Errorf("%s is not a spool file of yours; it is left alone", path)
	}
	if err := platform.Lock(f); err != nil {
		return got, fmt.Errorf("locking the spool file %s: %w", path, err)
	}
	if _, taken, err := fileState(f); err == nil && taken {
		return got, nil // taken while we waited for the lock
	}
	recs, bad, err := readSpool(io.LimitReader(f, maxSpoolFile))
	if err != nil {
		return got, fmt.Errorf("reading the spool file %s: %w", path, err)
	}
	got.Records, got.Bad = len(recs), bad
	if len(recs) > 0 {
		if got.Added, err = st.AddAll(recs); err != nil {
			return SpoolTaken{}, err
		}
	}
	if err := os.Remove(path); err != nil {
		return got, fmt.Errorf("removing the spool file %s: %w", path, err)
	}
	return got, nil
}

// readSpool returns the records of a spool file and how many lines were no
// record. Numbers in Content keep every digit (json.Number).
func readSpool(r io.Reader) (recs []history.Record, bad int, err error) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if line = bytes.TrimSpace(line); len(line) > 0 {
			var rec history.Record
			dec := json.NewDecoder(bytes.NewReader(line))
			dec.UseNumber()
			if dec.Decode(&rec) != nil {
				bad++
			} else {
				recs = append(recs, RedactRecord(rec, nil)) // an older elicitray's spool too
			}
		}
		if errors.Is(err, io.EOF) {
			return recs, bad, nil
		}
		if err != nil {
			return recs, bad, err
		}
	}
}

// SpoolKeys returns the Keys of the records in the spool directory dir, and
// how many decisions (and lines that are none) its files hold, as
// countSpool counts them.
func SpoolKeys(dir string) (keys map[string]bool, n int) {
	keys = map[string]bool{}
	files, _ := spoolFiles(dir)
	for _, path := range files {
		f, err := platform.OpenFile(path, os.O_RDONLY|platform.ONonblock, 0)
		if err != nil {
			continue
		}
		recs, bad, _ := readSpool(io.LimitReader(f, maxSpoolFile))
		f.Close()
		n += bad
		for _, rec := range recs {
			keys[rec.Key] = true
			if rec.Source != history.SourceDelivery {
				n++
			}
		}
	}
	return keys, n
}

// CountSpool returns how many decisions wait in the spool directory dir:
// the lines of its files, counted without decoding them (each record is
// one line; a line cut short by a crash counts too, and takeSpool says
// so), but for the words on a decision's delivery (isWordLine), which are
// no decision of their own.
func CountSpool(dir string) int {
	files, _ := spoolFiles(dir)
	n := 0
	for _, path := range files {
		f, err := platform.OpenFile(path, os.O_RDONLY|platform.ONonblock, 0)
		if err != nil {
			continue
		}
		br := bufio.NewReaderSize(io.LimitReader(f, maxSpoolFile), 32<<10)
		for {
			line, err := br.ReadSlice('\n')
			long := false
			for errors.Is(err, bufio.ErrBufferFull) {
				// A word is short: a line this long is a decision.
				long = true
				_, err = br.ReadSlice('\n')
			}
			if long || len(bytes.TrimSpace(line)) > 0 && !isWordLine(line) {
				n++
			}
			if err != nil {
				break
			}
		}
		f.Close()
	}
	return n
}

// isWordLine reports whether a spool line is a word on a decision's
// delivery (history.SourceDelivery). A server's text holds its quotes
// escaped, so only the field itself matches.
func isWordLine(line []byte) bool {
	return bytes.Contains(line, []byte(`"source":"`+history.SourceDelivery+`"`))
}
