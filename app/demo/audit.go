package demo

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/elicitray/elicitray/app/platform"
)

// An outcome is how one request_change call ended. Every call that gets an
// answer ends in exactly one of them, and each is one line of the audit log.
type outcome string

const (
	// outcomeAborted: someone dismissed a round without choosing (cancel:
	// Escape, closed window, timeout, no desktop), or an answer could not be
	// used (then the line says why in "problem"). Nothing was decided.
	outcomeAborted outcome = "aborted"
	// outcomeDeclined: the user refused the change at round 1 or 2.
	outcomeDeclined outcome = "declined"
	// outcomeBlocked: the change targets prod and the user did not confirm
	// it at round 3 (answered no, or declined).
	outcomeBlocked outcome = "blocked"
	// outcomeExecuted: every round was approved; the change was made (in this
	// demo: only recorded).
	outcomeExecuted outcome = "executed"
)

// auditEntry is one line of the audit log: a JSON object on one line.
type auditEntry struct {
	// Time is when the outcome was reached, UTC, RFC 3339 with nanoseconds.
	Time time.Time `json:"time"`
	// Tool is the tool called: request_change.
	Tool string `json:"tool"`
	// Call identifies the tool call across its rounds: it is made at round 1
	// and carried in the requestState. Empty when the state was unusable.
	Call string `json:"call,omitempty"`
	// Protocol is the protocol version of the request that ended the call.
	Protocol string `json:"protocol,omitempty"`
	// Outcome is aborted, declined, blocked or executed.
	Outcome outcome `json:"outcome"`
	// Round is the round whose answer ended the call: 1, 2 or 3; 0 when the
	// retry named no round this server issued.
	Round int `json:"round"`
	// Step names Round: "approval", "change request", "production
	// confirmation".
	Step string `json:"step,omitempty"`
	// Answer is the ElicitResult action of that round: accept, decline or
	// cancel (PROTOCOL.md §5).
	Answer string `json:"answer,omitempty"`
	// Summary is the change summary the user was asked to approve.
	Summary string `json:"summary,omitempty"`
	// Change is the change request, once round 2 was answered.
	Change *changeRequest `json:"change,omitempty"`
	// Problem says why an answer could not be used (outcome aborted).
	Problem string `json:"problem,omitempty"`
}

// An auditLog appends entries to a JSON Lines file: one line per outcome,
// never rewritten. The zero path means no audit log.
type auditLog struct {
	path string

	mu sync.Mutex // one line at a time, in the order outcomes are reached
}

// errNoAuditLog is what request_change reports when the server was started
// without an audit log: the guard makes no change it cannot record.
var errNoAuditLog = errors.New("this server keeps no audit log, so request_change makes no change; run it as `elicitray demo-server`, which keeps one")

// append writes e as one line and syncs it to disk before returning, so that
// an outcome the tool result reports is on disk first (DESIGN.md: "a
// decision is durable before its answer leaves, or the user is told").
//
// The file is created 0600 with its directory (0700). It is opened with
// O_NOFOLLOW, so a link planted in its place is refused rather than written
// through, and with O_NONBLOCK, so a planted FIFO cannot hang the server; a
// file that is not a regular file of this user's is refused, and one that
// others can read is made private (the log holds the reasons users give).
func (a *auditLog) append(e auditEntry) error {
	if a == nil || a.path == "" {
		return errNoAuditLog
	}
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encoding the audit entry: %w", err)
	}
	line = append(line, '\n')

	a.mu.Lock()
	defer a.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(a.path), 0o700); err != nil {
		return fmt.Errorf("making the audit log's directory: %w", err)
	}
	f, err := platform.OpenFile(a.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|platform.ONonblock, 0o600)
	if errors.Is(err, platform.ErrSymlink) {
		return fmt.Errorf("opening the audit log %s: it is a symbolic link, which elicitray does not write through; remove it or choose another file with --audit", a.path)
	}
	if errors.Is(err, syscall.ENXIO) {
		// O_NONBLOCK's answer for a FIFO no one reads.
		return fmt.Errorf("opening the audit log %s: it is not a regular file; choose another file with --audit", a.path)
	}
	if err != nil {
		return fmt.Errorf("opening the audit log: %w", err)
	}
	defer f.Close()
	if err := checkPrivateFile(f); err != nil {
		return fmt.Errorf("the audit log %s: %w", a.path, err)
	}
	if _, err := f.Write(line); err != nil {
		return fmt.Errorf("writing the audit log %s: %w", a.path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("syncing the audit log %s: %w", a.path, err)
	}
	return f.Close()
}

// checkPrivateFile refuses f unless it is a regular file owned by this user,
// and takes read and write access away from everyone else.
func checkPrivateFile(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("is not a regular file (%s); choose another file with --audit", fi.Mode().Type())
	}
	if o, ok := platform.OwnerOf(f); !ok || !o.IsMe() {
		return errors.New("belongs to another user; choose another file with --audit")
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := f.Chmod(0o600); err != nil {
			return fmt.Errorf("making it private: %w", err)
		}
	}
	return nil
}
