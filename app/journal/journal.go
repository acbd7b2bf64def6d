package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/elicitray/elicitray/app/platform"
	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/history"
	"github.com/elicitray/elicitray/ui/lang"
)

// Journal is where the hub keeps decisions: in history when the file takes
// them, else in the spool (spool.go), and only when neither can be written
// in memory, with the user told (DESIGN.md: "A decision is durable before
// its answer leaves, or the user is told"). While anything waits, it tries
// again every retryEvery, and after every decision it keeps, so that the
// spool lands in history once the lock is free or the disk has room; with
// nothing waiting it starts no timer (an idle hub sleeps).
type Journal struct {
	// path is history.db's; open opens it (nil: the store given is all).
	path string
	// spool takes what history cannot; nil keeps such records in memory.
	spool *Spool
	// Log says what happened, for people (hub.log).
	Log func(format string, args ...any)
	// Told, when set, is called when what waits or why changed: the tray
	// and a notification show it (hubgui.go). It must not block.
	Told func(st State)

	mu sync.Mutex // guards the fields below
	// store is the open history, nil while it cannot be opened.
	store *history.Store
	// why is the reason history cannot take records now; nil when it can.
	why error
	// spoolWhy is why the spool failed last, nil when it took the last
	// record it was given.
	spoolWhy error
	// spooled counts the records in the spool directory, as far as this
	// hub knows: what it found there and what it added since.
	spooled int
	// unsaved are records neither history nor the spool could take.
	unsaved []history.Record
	// held are the records this hub put in the spool that history has not
	// taken in yet: a spool that loses them (its directory removed, a file
	// deleted or replaced) gets them again (checkSpoolLocked).
	held []history.Record
	// lost counts the records the spool lost of which no copy was left
	// (another process's, or a hub's before this one): status, the tray
	// and history say so.
	lost int
	// retry is the pending retry, nil when none.
	retry *time.Timer
	// flushing is set while a flush runs.
	flushing bool
	// closed: the hub stopped; no more retries. closing: it is stopping,
	// and sets no spool reserve aside (its last flush).
	closed, closing bool
}

// retryEvery is how often a journal with records waiting tries history
// again.
var retryEvery = 5 * time.Second

// unsavedBatch is how many records kept in memory go to history in one
// transaction (journal.flush).
const unsavedBatch = 200

// journalState is what a journal has not put in history yet, and why.
type State struct {
	Spooled int    // records in the spool, on disk
	Unsaved int    // records only in memory: lost if the hub stops
	Lost    int    // records the spool lost with no copy left (checkSpoolLocked)
	Why     string // a sentence: why history takes nothing now; "" when it does
}

// Problem says what waits, for `elicitray status`, the tray and `history
// list`: "12 decisions not saved: the disk is full". "" when nothing does.
func (st State) Problem() string {
	s := st.waiting()
	if st.Lost > 0 {
		lost := lang.N("{{.Count}} decisions lost: the spool was removed or changed before they reached history", st.Lost, lang.Count(st.Lost))
		if s == "" {
			return lost
		}
		s = lost + lang.L("; ") + s
	}
	return s
}

// waiting says what waits to be saved, and why.
func (st State) waiting() string {
	var s string
	switch {
	case st.Unsaved > 0:
		s = lang.N("{{.Count}} decisions not saved", st.Unsaved, lang.Count(st.Unsaved))
		if st.Spooled > 0 {
			s += lang.N(" and {{.Count}} decisions waiting in the spool", st.Spooled, lang.Count(st.Spooled))
		}
	case st.Spooled > 0:
		s = lang.N("{{.Count}} decisions waiting in the spool, not yet in history", st.Spooled, lang.Count(st.Spooled))
	case st.Why != "":
		return lang.L("history cannot be written: {{.Why}}", map[string]any{"Why": st.Why})
	default:
		return ""
	}
	if st.Why != "" {
		s += lang.L(": ") + st.Why
	}
	return s
}

// openJournal opens the history file at path for a hub, taking in the spool
// at once. A history that cannot be opened (locked by another process, a
// full disk) does not stop the hub: the journal spools and tries again.
// Only a file elicitray cannot read (history.ErrCorrupt) is moved aside, as
// history.OpenOrRecover does; movedTo then says where.
func Open(path string, sp *Spool, log func(string, ...any)) (j *Journal, movedTo string) {
	j = &Journal{path: path, spool: sp, Log: log}
	movedTo = j.tryOpen()
	j.mu.Lock()
	j.countSpool()
	j.mu.Unlock()
	j.Flush()
	return j, movedTo
}

// tryOpen opens history when it is not open; it reports where an unreadable
// file went.
func (j *Journal) tryOpen() (movedTo string) {
	j.mu.Lock()
	skip := j.store != nil || j.path == "" || j.closed
	j.mu.Unlock()
	if skip {
		return ""
	}
	if err := CheckHistoryPath(j.path); err != nil {
		j.mu.Lock()
		j.why = err
		j.mu.Unlock()
		return ""
	}
	// Not under j.mu: waiting for the lock must not hold up decisions.
	st, moved, err := history.OpenOrRecover(j.path, &history.Options{Timeout: 200 * time.Millisecond})
	j.mu.Lock()
	defer j.mu.Unlock()
	if err != nil {
		j.why = OpenError(j.path, err)
		return ""
	}
	if j.closed {
		st.Close()
		return ""
	}
	j.store, j.why = st, nil
	return moved
}

// countSpool counts the spool's records; j.mu is held.
func (j *Journal) countSpool() {
	if j.spool != nil {
		j.spooled = CountSpool(j.spool.Dir)
	}
}

// Store returns the open history, or an error saying why there is none.
func (j *Journal) Store() (*history.Store, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.store == nil {
		why := j.why
		if why == nil {
			why = errors.New("the hub has no history file")
		}
		return nil, fmt.Errorf("the history is not available: %w", why)
	}
	return j.store, nil
}

// State returns what waits and why.
func (j *Journal) State() State {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.stateLocked()
}

func (j *Journal) stateLocked() State {
	st := State{Spooled: j.spooled, Unsaved: DecisionsIn(j.unsaved), Lost: j.lost}
	if j.why != nil {
		st.Why = StorageSentence(j.why)
		// History and the spool failed for reasons of their own (history
		// locked, the spool a planted link): the user hears of both.
		if sw := StorageSentence(j.spoolWhy); len(j.unsaved) > 0 && sw != "" && sw != st.Why {
			st.Why += "; " + sw
		}
	}
	return st
}

// Keep puts rec in history, or in the spool when history fails, or in
// memory when both fail. It returns nil when rec is on disk (history or
// spool), and otherwise why it is not.
func (j *Journal) Keep(rec history.Record) error {
	j.mu.Lock()
	before := j.stateLocked()
	inHistory, err := j.keepLocked(rec)
	after := j.stateLocked()
	flushNow := inHistory && (j.spooled > 0 || len(j.unsaved) > 0) && !j.flushing
	if flushNow {
		// History takes records again while older ones wait: now.
		j.flushing = true
	} else {
		j.scheduleLocked()
	}
	j.mu.Unlock()
	if flushNow {
		go j.Flush()
	}
	j.report(before, after)
	return err
}

// scheduleLocked starts the retry timer when anything waits and none runs;
// j.mu is held.
func (j *Journal) scheduleLocked() {
	waiting := j.spooled > 0 || len(j.unsaved) > 0 || j.store == nil && j.path != ""
	if !waiting || j.retry != nil || j.closed {
		return
	}
	j.retry = time.AfterFunc(retryEvery, func() {
		j.mu.Lock()
		j.retry = nil
		j.mu.Unlock()
		j.Flush()
	})
}

// keepLocked is Keep's work; inHistory reports that rec went to history
// itself. The reason history failed stays while older records wait: a
// small record may fit where the spool's batch does not (a full disk
// leaves bbolt its free pages), and Flush says when all are in.
func (j *Journal) keepLocked(rec history.Record) (inHistory bool, err error) {
	// A word on a delivery waits behind the records that wait, as its
	// record may be one of them: history settles a record it has, and a
	// word that came first would settle nothing (a full disk left every
	// delivered answer "not confirmed delivered").
	wordWaits := rec.Source == history.SourceDelivery && (j.spooled > 0 || len(j.unsaved) > 0)
	if j.store != nil && !wordWaits {
		_, err := j.store.Add(rec)
		if err == nil {
			if j.spooled == 0 && len(j.unsaved) == 0 {
				j.why = nil
			}
			return true, nil
		}
		j.why = err
		j.Log("could not write a decision to history, keeping it in the spool: %v", err)
	}
	if j.spool != nil {
		err := j.spoolLocked(rec)
		if err == nil {
			return false, nil
		}
		j.Log("could not write a decision to the spool either, keeping it in memory: %v", err)
		if j.why == nil || j.store != nil {
			j.why = err
		}
	}
	// A wrapper hands back the copies of records it was given (hub.go,
	// item.unsaved): one copy in memory is enough.
	if rec.Key == "" || !slices.ContainsFunc(j.unsaved, func(u history.Record) bool { return u.Key == rec.Key && u.Source == rec.Source }) {
		j.unsaved = append(j.unsaved, rec)
	}
	return false, fmt.Errorf("not saved: %s", StorageSentence(j.why))
}

// spoolLocked appends rec to the spool and counts it; j.mu is held and
// j.spool is set.
func (j *Journal) spoolLocked(rec history.Record) error {
	err := j.spool.Add(rec)
	j.spoolWhy = err
	if err == nil {
		if rec.Source != history.SourceDelivery {
			j.spooled++
		}
		j.held = append(j.held, rec)
	}
	return err
}

// DecisionsIn counts the records of recs that are decisions: not words on
// one's delivery (history.SourceDelivery).
func DecisionsIn(recs []history.Record) int {
	n := 0
	for _, rec := range recs {
		if rec.Source != history.SourceDelivery {
			n++
		}
	}
	return n
}

// checkSpoolLocked finds out whether the spool lost records since this
// hub last counted it — its directory removed, a file deleted or replaced
// — and writes those it holds (held) again; those it does not are counted
// lost, logged, and noted in history (issue 25: nothing is lost in
// silence). j.mu is held.
func (j *Journal) checkSpoolLocked() {
	if j.spool == nil || j.spooled == 0 {
		return
	}
	keys, onDisk := SpoolKeys(j.spool.Dir)
	var missing []history.Record
	for _, rec := range j.held {
		if rec.Key != "" && !keys[rec.Key] {
			missing = append(missing, rec)
		}
	}
	gone := j.spooled - onDisk
	if gone <= 0 && len(missing) == 0 {
		return
	}
	gone = max(gone, DecisionsIn(missing))
	j.held = slices.DeleteFunc(j.held, func(rec history.Record) bool { return rec.Key != "" && !keys[rec.Key] })
	j.spooled = onDisk
	for _, rec := range missing {
		if j.spoolLocked(rec) != nil {
			j.unsaved = append(j.unsaved, rec)
		}
	}
	lost := gone - DecisionsIn(missing)
	j.Log("the spool %s lost %s before history took them (its directory was removed, or a file deleted or replaced); %d were still in memory and were written again, %d are lost",
		j.spool.Dir, Decisions(gone), DecisionsIn(missing), lost)
	if lost == 0 {
		return
	}
	j.lost += lost
	// The note goes where records go; it is no decision of a server's.
	note := history.Record{Time: time.Now(), Server: "elicitray", Mode: "form", Action: ActionError, DecidedBy: bridge.DecidedByError,
		Message: fmt.Sprintf("%s lost: the spool %s was removed or changed before they reached history, and no copy was left", Decisions(lost), j.spool.Dir),
		Key:     fmt.Sprintf("elicitray-spool-lost-%d", time.Now().UnixNano())}
	if j.store != nil && j.why == nil {
		if _, err := j.store.Add(note); err == nil {
			return
		}
	}
	if j.spoolLocked(note) != nil {
		j.unsaved = append(j.unsaved, note)
	}
}

// Flush moves what waits into history when it can: it opens the file if
// needed, takes in the spool and adds the records kept in memory. While
// anything still waits it schedules another try.
func (j *Journal) Flush() {
	j.tryOpen()
	j.mu.Lock()
	j.flushing = true
	before := j.stateLocked()
	// Before the spool is taken in: what it lost since is told, and what
	// this hub holds of it written again.
	j.checkSpoolLocked()
	if j.store != nil && j.spool != nil {
		// Always a look: a wrapper that could not reach this hub spools
		// on its own (a directory read when there is nothing).
		got, err := TakeSpool(j.spool.Dir, j.store)
		if got.Added > 0 || got.Bad > 0 {
			j.Log("took %s from the spool into history (%d lines unreadable)", Decisions(got.Added), got.Bad)
		}
		if err != nil {
			j.why = err
		} else {
			j.held = nil // in history now
		}
		j.countSpool()
	}
	if j.store != nil && len(j.unsaved) > 0 {
		// In batches: a disk with room for some of them takes those (one
		// transaction of thousands failed whole on a disk with room for a
		// thousand, and its pages took the room the spool needed).
		saved := 0
		var err error
		for len(j.unsaved) > 0 {
			n := min(len(j.unsaved), unsavedBatch)
			if _, err = j.store.AddAll(j.unsaved[:n]); err != nil {
				break
			}
			saved += n
			j.unsaved = j.unsaved[n:]
		}
		if saved > 0 {
			j.Log("saved what was kept in memory: %s", Decisions(saved))
		}
		if len(j.unsaved) == 0 {
			j.unsaved = nil
		}
		if err != nil {
			j.why = err
			// History still fails: the spool may take them now.
			if j.spool != nil {
				j.unsaved = slices.DeleteFunc(j.unsaved, func(rec history.Record) bool { return j.spoolLocked(rec) == nil })
			}
		}
	}
	if j.store != nil && j.spooled == 0 && len(j.unsaved) == 0 {
		j.why = nil
	}
	if j.store != nil && j.spool != nil && j.why == nil && !j.closing {
		// The disk has room now: set the spool's reserve aside for the day
		// it has none. Not as the hub stops: a home removed meanwhile (a
		// test's, once its hub said it stopped) would be made again for it.
		j.spool.prepare()
	}
	after := j.stateLocked()
	j.flushing = false
	j.scheduleLocked()
	j.mu.Unlock()
	j.report(before, after)
}

// report tells j.told when what waits changed.
func (j *Journal) report(before, after State) {
	if before != after && j.Told != nil {
		j.Told(after)
	}
}

// Close stops retrying and closes history. What is only in memory is lost,
// and the log says so.
func (j *Journal) Close() {
	j.mu.Lock()
	j.closing = true
	j.mu.Unlock()
	j.Flush()
	j.mu.Lock()
	defer j.mu.Unlock()
	j.closed = true
	if j.retry != nil {
		j.retry.Stop()
		j.retry = nil
	}
	if n := len(j.unsaved); n > 0 {
		// Lost with the hub: the log keeps them, so that a person can see
		// what was decided.
		j.Log("stopping with %s that could not be saved: %s", Decisions(n), StorageSentence(j.why))
		for _, rec := range j.unsaved {
			if b, err := json.Marshal(rec); err == nil {
				j.Log("not saved: %s", b)
			}
		}
	}
	if j.spool != nil {
		j.spool.Close()
	}
	if j.store != nil && j.path != "" {
		j.store.Close()
	}
	j.store = nil
}

// Decisions is n decisions, in words: "1 decision", "1,234 decisions".
func Decisions(n int) string { return lang.CountText(n, "decision", "decisions") }

// StorageSentence says in a few words why a write failed: "the disk is
// full", or the error itself.
func StorageSentence(err error) string {
	switch {
	case err == nil:
		return ""
	case platform.IsNoSpace(err):
		return "the disk is full"
	case platform.IsReadOnly(err):
		return "the file system is read-only"
	case platform.IsIOError(err):
		return "the disk reported an I/O error"
	}
	return err.Error()
}

// Over is a journal over an open history st, with no spool: what a hub
// given its Store keeps decisions in.
func Over(st *history.Store, log func(string, ...any)) *Journal {
	return &Journal{store: st, Log: log}
}

// Notice is the notification for what waits to be saved: a problem
// and what elicitray does about it, or that history is whole again.
func (st State) Notice() string {
	switch {
	case st.Lost > 0:
		return lang.L("Decisions were lost: {{.Problem}}. History has a note of it, and hub.log says more.", map[string]any{"Problem": st.Problem()})
	case st.Unsaved > 0:
		return lang.L("Decisions cannot be saved: {{.Problem}}. Prompts still work; elicitray keeps trying.", map[string]any{"Problem": st.Problem()})
	case st.Problem() != "":
		return lang.L("History cannot be written now: {{.Problem}}. Prompts still work; the decisions land in history as soon as it can take them.",
			map[string]any{"Problem": st.Problem()})
	}
	return lang.L("History is saving again: every decision is in it.")
}
