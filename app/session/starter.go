package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/elicitray/elicitray/app/journal"
	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/app/platform"
	"github.com/elicitray/elicitray/ui/lang"
)

// Starting a hub: when no hub runs, a wrapper (or a command that opens a
// window) starts `elicitray hub` in the user's desktop session and waits
// for its socket; a hub that cannot start says why as the last line of
// its log, which the starter reads back.

// StartWait bounds how long a started hub may take to open its socket (a
// first start on a slow machine loads OpenGL and fonts).
const StartWait = 20 * time.Second

// HubFailPrefix starts the hub's last line when it cannot start; the rest
// of the line is a sentence for the user (HubFailure).
const HubFailPrefix = "elicitray hub: cannot start: "

// HubExitNoDisplay is the exit status of a hub whose display did not open
// (the last line of its log says why): the wrapper that started it in a
// desktop session it found tries the next one (Finder.Each). The hub
// checks its display before anything else, as `elicitray probe-display`
// does, so that a wrapper needs no process of its own to check a session
// before it starts a hub there: one process less on a cold prompt's way to
// the screen (issue 12).
const HubExitNoDisplay = 3

// HubStartedLine is in the line a hub writes once it listens.
const HubStartedLine = "elicitray hub: listening on "

// errHubFailed marks a started hub that exited with an error.
var errHubFailed = errors.New("the hub exited")

// Starter starts a hub in the user's desktop session and dials it.
type Starter struct {
	Paths paths.Paths
	// Start starts a hub process in a desktop session.
	Start func(Desktop) (*os.Process, error)
	// Sessions offers the desktop sessions found to start a hub in, best
	// first, to try until one is taken (Finder.Each): a hub started in one
	// whose display does not open says so (HubExitNoDisplay), and the next
	// is tried.
	Sessions func(ctx context.Context, try func(Desktop) error) error
	// Dial connects to a verified hub socket (hubapi.Client.Dial): errors
	// wrapping paths.ErrUntrusted end the wait.
	Dial func(ctx context.Context) (net.Conn, int, error)
	// Wait bounds how long a started hub may take to open its socket;
	// zero is StartWait.
	Wait time.Duration
}

// Started says which hub a Starter reached: the one it started in Session
// (Ours), or one another wrapper started at the same time.
type Started struct {
	Ours    bool
	Session Desktop
}

// NewStarter is the Starter of the hub that is this very binary.
func NewStarter(p paths.Paths, dial func(ctx context.Context) (net.Conn, int, error)) (*Starter, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return &Starter{
		Paths: p,
		Start: func(s Desktop) (*os.Process, error) {
			return StartHub(Runnable(exe), p, s.Env(HubEnv(os.Environ())))
		},
		Sessions: NewFinder(exe).Each,
		Dial:     dial,
	}, nil
}

// StartAndDial starts a hub in the first desktop session whose display
// opens, as a host that stripped the environment gives none (session.go),
// and returns a verified connection to it and its pid.
func (s *Starter) StartAndDial(ctx context.Context) (conn net.Conn, pid int, st Started, err error) {
	err = s.Sessions(ctx, func(d Desktop) error {
		st.Session = d
		// A hub that fails to start is tried once more: a display can
		// refuse a connection for a moment.
		var err error
		conn, pid, st.Ours, err = s.startIn(ctx, d)
		if errors.Is(err, errHubFailed) {
			conn, pid, st.Ours, err = s.startIn(ctx, d)
		}
		return err
	})
	return conn, pid, st, err
}

// startIn starts a hub in sess and waits for a verified socket: the hub it
// started (ours), or one that beat it to the lock.
func (s *Starter) startIn(ctx context.Context, sess Desktop) (_ net.Conn, pid int, ours bool, _ error) {
	wait := s.Wait
	if wait == 0 {
		wait = StartWait
	}
	logStart := fileSize(s.Paths.HubLog)
	proc, err := s.Start(sess)
	if err != nil {
		return nil, 0, false, err
	}
	exited := make(chan *os.ProcessState, 1)
	go func() {
		st, _ := proc.Wait()
		exited <- st
	}()
	// Wait for a socket: the hub we started, or the one that beat it to
	// the lock (two wrappers starting at once end with one hub).
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	// Asked often: a cold prompt waits for this socket, and what a tick
	// costs (a dial that finds no socket) is far less than the wait it
	// saves; it lasts only while a hub starts (issue 12: 25 ms ticks cost
	// a cold window 12 ms on average).
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		conn, pid, err := s.Dial(ctx)
		if err == nil {
			return conn, pid, pid == proc.Pid, nil
		}
		if errors.Is(err, paths.ErrUntrusted) {
			return nil, 0, false, err
		}
		select {
		case <-ctx.Done():
			return nil, 0, false, ctx.Err()
		case <-deadline.C:
			return nil, 0, false, fmt.Errorf("the hub did not open its socket within %v (see %s)", wait, s.Paths.HubLog)
		case st := <-exited:
			if st != nil && st.ExitCode() == HubExitNoDisplay {
				why := HubFailure(s.Paths.HubLog, logStart)
				if why == "" {
					why = fmt.Sprintf("the hub exited (%v)%s", st, silentFailure(s.Paths.HubLog))
				}
				return nil, 0, false, DisplayFailed{Err: errors.New(why)}
			}
			if st == nil || !st.Success() {
				if why := HubFailure(s.Paths.HubLog, logStart); why != "" {
					return nil, 0, false, fmt.Errorf("the hub could not start: %s", why)
				}
				return nil, 0, false, fmt.Errorf("%w (%v)%s", errHubFailed, st, silentFailure(s.Paths.HubLog))
			}
			// It lost the race to another hub: that one is opening its socket.
			exited = nil
		case <-tick.C:
		}
	}
}

// StartHub starts `elicitray hub` detached from the wrapper, with env: its
// own session, so the host stopping the wrapper does not stop the hub, and
// its output in the hub log, never on the wrapper's stdout. Every hub
// started so is started to show a window (a prompt, a command's window),
// and says so (--for-window): that window then comes before anything the
// hub would show of its own accord (the first-run offer).
func StartHub(exe string, p paths.Paths, env []string) (*os.Process, error) {
	dir := filepath.Dir(p.HubLog)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("could not make elicitray's directory %s (HOME is %q): %w", dir, os.Getenv("HOME"), err)
	}
	logf, err := openHubLog(p.HubLog)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command(exe, "hub", "--for-window")
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := platform.StartDetached(cmd); err != nil {
		return nil, fmt.Errorf("starting %s hub: %w", exe, err)
	}
	return cmd.Process, nil
}

// openHubLog opens the hub log for appending, not through a link, and only
// a file of the user's own: in a shared ELICITRAY_HOME another user could
// plant one to read what the hub logs. Such a file is removed and made
// anew when the directory allows; else the hub starts with no log.
func openHubLog(path string) (*os.File, error) {
	for range 2 {
		f, err := platform.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, err
		}
		if o, ok := platform.OwnerOf(f); !ok || o.IsMe() {
			return f, nil
		}
		f.Close()
		if os.Remove(path) != nil {
			break
		}
	}
	return os.OpenFile(os.DevNull, os.O_WRONLY, 0)
}

// hubLogTail is what the hub log holds of the last hub: its lines after
// byte offset from and after the last "listening on" line, read from the
// end of the log (its last 64 KiB: the log only grows).
func hubLogTail(logPath string, from int64) []string {
	f, err := os.Open(logPath)
	if err != nil {
		return nil
	}
	defer f.Close()
	const tailSize = 64 << 10
	if fi, err := f.Stat(); err == nil {
		from = max(from, fi.Size()-tailSize)
	}
	if _, err := f.Seek(max(from, 0), io.SeekStart); err != nil {
		return nil
	}
	b, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], HubStartedLine) {
			return lines[i+1:]
		}
	}
	return lines
}

// HubFailure is the sentence the last hub that could not start wrote to its
// log after byte offset from, or "" (also when a hub started after it).
func HubFailure(logPath string, from int64) string {
	lines := hubLogTail(logPath, from)
	for i := len(lines) - 1; i >= 0; i-- {
		if _, rest, ok := strings.Cut(lines[i], HubFailPrefix); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// HubCrash is what the hub log says of why the last hub stopped: a panic,
// a fatal error or a Fyne error written after it last started, with the
// line that gives its cause; "" when it says nothing (a hub killed).
func HubCrash(logPath string) string {
	lines := hubLogTail(logPath, 0)
	for i := len(lines) - 1; i >= 0; i-- {
		for _, mark := range []string{"panic: ", "fatal error: ", "unexpected signal", "Fyne error: "} {
			j := strings.Index(lines[i], mark)
			if j < 0 {
				continue
			}
			why := strings.Join(strings.Fields(lines[i][j:]), " ")
			if i+1 < len(lines) {
				if _, cause, ok := strings.Cut(lines[i+1], "Cause:"); ok {
					why += " (" + strings.TrimSpace(cause) + ")"
				}
			}
			return why
		}
	}
	return ""
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// silentFailure says what is known of a hub that exited without its
// sentence: the last line of its log, or, when it wrote none, that its log
// could not be written — a full disk, most often.
func silentFailure(hubLog string) string {
	if lines := hubLogTail(hubLog, 0); len(lines) > 0 {
		if l := strings.TrimSpace(lines[len(lines)-1]); l != "" && l != "." {
			return ": " + l
		}
	}
	msg := fmt.Sprintf(" and wrote nothing in its log %s", hubLog)
	if free, ok := journal.FreeSpace(hubLog); ok && free < journal.MinFree {
		msg += fmt.Sprintf("; the disk it is on is full (%s free)", lang.Bytes(free))
	}
	return msg
}
