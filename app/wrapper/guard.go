package wrapper

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/elicitray/elicitray/app/config"
	"github.com/fsnotify/fsnotify"
)

// A running wrapper follows the guard and the keep-alive of config.toml
// (issue 14): a user who adds `guard = ["deploy"]` in Settings or by hand
// gets it on the host's next tools/call of the wrapped server, without
// restarting the host.
//
// Why a watch on the file, and not a look at it per call or word from the
// hub: the wrapper reads config.toml itself at start (wrapperConfig), and
// a hand edit must apply even when no hub runs or the hub has not read the
// file again yet. A stat per tools/call would be a syscall on the relay's
// hot path (issue 12: the round trip may grow by 10 µs at most); with the
// watch, a call pays an atomic load (bridge's Relay.SetGuard, SetKeepAlive) and the file
// is read only when the operating system says it changed. The directory is
// watched, not the file: Settings and most editors replace the file by a
// rename, which a watch on the file itself would lose.

// guardWatch keeps one wrapper's guard and keep-alive as config.toml says.
type guardWatch struct {
	path, name string
	// dir is the file's directory; parentWatched says whether its parent
	// is watched too (its removal and return are followed), goneSaid
	// whether the log said it was removed while it could not be.
	dir                     string
	parentWatched, goneSaid bool
	relay                   LiveRelay
	stderr                  io.Writer
	// cur is the guard in force, keepAlive the interval; stamp the file's
	// version they were read from, or last found unusable (so that one
	// bad version is said once).
	cur       config.Server
	keepAlive time.Duration
	stamp     config.Stamp
	// unread counts the reads in a row that could not open or read the
	// file (reload).
	unread int
}

// A file that cannot be opened or read is read again after rereadAfter; if
// it still cannot be after rereads tries, the log says so once, and it is
// read again every rereadSlowly until it can be: on Windows a program that
// has the file open (an editor saving it, a virus scanner, a rename in
// flight) makes opening it fail, and letting go of it raises no event.
const (
	rereadAfter  = 100 * time.Millisecond
	rereads      = 20
	rereadSlowly = 2 * time.Second
)

// LiveRelay is what of a running relay follows config.toml
// (*bridge.Relay).
type LiveRelay interface {
	SetGuard(patterns []string, destructive bool)
	SetKeepAlive(every time.Duration)
}

// WatchGuard follows the guard and keep-alive of the server configured as
// name in the config file at path until ctx is done: when the file
// changes, its guard, guard_destructive and keep-alive for name are put in
// force in relay, and the host's log says what changed in a sentence. A
// file that no longer reads keeps them, said in one sentence; a file
// removed or empty keeps them silently (an editor may be replacing it or
// writing it in place). cur and keepAlive are what was read at start,
// from the file as stamp found it. When the file cannot be watched, they
// stay and the log says that a change applies at the next start. The
// channel returned is closed once the watch has ended and let go of the
// directory (Windows refuses to remove a directory still watched).
func WatchGuard(ctx context.Context, path, name string, cur config.Server, keepAlive time.Duration, stamp config.Stamp, relay LiveRelay, stderr io.Writer) <-chan struct{} {
	ended := make(chan struct{})
	g := &guardWatch{path: filepath.Clean(path), name: name, relay: relay, stderr: stderr, cur: cur, keepAlive: keepAlive, stamp: stamp}
	g.dir = filepath.Dir(g.path)
	w, err := fsnotify.NewWatcher()
	if err == nil {
		// Watching needs the directory; Settings would make it the same way.
		if err = os.MkdirAll(g.dir, 0o700); err == nil {
			err = w.Add(g.dir)
		}
		if err != nil {
			w.Close()
		}
	}
	if err != nil {
		g.logf("changes to the guard and keep-alive in %s apply when the host starts this wrapper again: the file cannot be watched (%v).", g.path, err)
		close(ended)
		return ended
	}
	// The directory's parent too, for the directory itself: removed and
	// made again (a reset, a dotfiles tool), it is watched again. Without
	// it, its removal is said, as later changes apply only at the next
	// start.
	g.parentWatched = w.Add(filepath.Dir(g.dir)) == nil
	// A change between the read at start and the watch is caught here.
	reread := rereadIn(g.reload())
	go func() {
		defer close(ended)
		defer w.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case <-reread:
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if !g.concerns(w, ev) {
					continue
				}
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
				// Events were lost (an overflow): the file may have changed.
			}
			// One save is several events (a write, a rename, a chmod):
			// read the file once for all that are there already.
			for drained := false; !drained; {
				select {
				case ev, ok := <-w.Events:
					drained = !ok
					if ok {
						g.concerns(w, ev) // the directory made again is watched
					}
				case _, ok := <-w.Errors:
					drained = !ok
				default:
					drained = true
				}
			}
			reread = rereadIn(g.reload())
		}
	}()
	return ended
}

// concerns reports whether ev may have changed the file: an event for the
// file, or the directory made again, which w then watches again (the file
// may be in it already). The directory's removal is said when it cannot be
// followed back.
func (g *guardWatch) concerns(w *fsnotify.Watcher, ev fsnotify.Event) bool {
	switch filepath.Clean(ev.Name) {
	case g.path:
		return true
	case g.dir:
	default:
		return false
	}
	switch {
	case ev.Has(fsnotify.Create):
		if err := w.Add(g.dir); err != nil {
			g.logf("changes to the guard and keep-alive in %s apply when the host starts this wrapper again: its directory was made again but cannot be watched (%v).", g.path, err)
			return false
		}
		return true
	case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
		if !g.parentWatched && !g.goneSaid {
			g.goneSaid = true
			g.logf("%s was removed: changes to the guard and keep-alive apply when the host starts this wrapper again, and until then it keeps the settings it had: %s.", g.dir, guardSentence(g.cur, "wait"))
		}
	}
	return false
}

// rereadIn is a channel that fires after d, or none for 0.
func rereadIn(d time.Duration) <-chan time.Time {
	if d == 0 {
		return nil
	}
	return time.After(d)
}

// reload reads the file when it is not the version last read, and puts its
// guard and keep-alive in force. It returns when to read the file again
// if it could not be opened or read (rereadAfter, then rereadSlowly), or 0.
func (g *guardWatch) reload() (again time.Duration) {
	stamp := config.StampOf(g.path)
	if stamp.Empty() || stamp.Same(g.stamp) {
		// Removed or empty: most likely an editor replacing the file, or
		// writing it in place (truncated first): its next event brings
		// the text. (A file emptied on purpose keeps the guard.)
		g.unread = 0
		return 0
	}
	c, err := config.Load(g.path)
	if pathErr := (*fs.PathError)(nil); errors.As(err, &pathErr) {
		// The version is not recorded as read: it is read again, on
		// any event and when the returned time is up.
		g.unread++
		if g.unread < rereads {
			return rereadAfter
		}
		if g.unread == rereads {
			g.logf("%s changed but cannot be read (%v), so this wrapper keeps the settings it had until it can: %s.", filepath.Base(g.path), pathErr.Err, guardSentence(g.cur, "wait"))
		}
		return rereadSlowly
	}
	g.unread = 0
	g.stamp = stamp
	if err != nil {
		g.logf("%s changed but cannot be used (%s), so this wrapper keeps the settings it had: %s.", filepath.Base(g.path), firstMistake(err), guardSentence(g.cur, "wait"))
		return 0
	}
	// Only what changed for this server is said: an edit of another
	// setting says nothing here.
	if sc := c.Servers[g.name]; !slices.Equal(sc.Guard, g.cur.Guard) || sc.GuardDestructive != g.cur.GuardDestructive {
		g.cur.Guard, g.cur.GuardDestructive = slices.Clone(sc.Guard), sc.GuardDestructive
		g.relay.SetGuard(g.cur.Guard, g.cur.GuardDestructive)
		g.logf("%s changed: %s.", filepath.Base(g.path), guardSentence(g.cur, "now wait"))
	}
	if ka := c.KeepAliveFor(g.name); ka != g.keepAlive {
		g.keepAlive = ka
		g.relay.SetKeepAlive(ka)
		if ka > 0 {
			g.logf("%s changed: while a prompt is open, the host now hears progress every %v.", filepath.Base(g.path), ka)
		} else {
			g.logf("%s changed: while a prompt is open, the host now hears no progress (keep_alive is 0s).", filepath.Base(g.path))
		}
	}
	return 0
}

func (g *guardWatch) logf(format string, args ...any) {
	fmt.Fprintf(g.stderr, "elicitray: %s: "+format+"\n", append([]any{g.name}, args...)...)
}

// guardSentence says which calls wait for approval under sc's guard: `calls
// of "echo" and of the tools the server marks destructive now wait for
// your approval`, with verb "now wait".
func guardSentence(sc config.Server, verb string) string {
	var quoted []string
	for _, p := range sc.Guard {
		quoted = append(quoted, strconv.Quote(p))
	}
	var what string
	switch {
	case len(quoted) > 0 && sc.GuardDestructive:
		what = "calls of " + strings.Join(quoted, ", ") + " and of the tools the server marks destructive"
	case len(quoted) > 0:
		what = "calls of " + strings.Join(quoted, ", ")
	case sc.GuardDestructive:
		what = "calls of the tools the server marks destructive"
	default:
		return "no tool call waits for your approval"
	}
	return what + " " + verb + " for your approval"
}

// firstMistake is the first mistake of a config that does not load, and
// how many more there are; the hub's log names them all.
func firstMistake(err error) string {
	var ce *config.Errors
	if !errors.As(err, &ce) || len(ce.Problems) == 0 {
		return err.Error()
	}
	s := ce.Problems[0].String()
	switch n := len(ce.Problems) - 1; n {
	case 0:
	case 1:
		s += "; and 1 more mistake"
	default:
		s += fmt.Sprintf("; and %d more mistakes", n)
	}
	return s
}
