package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/app/platform"
)

// Opening the display. Fyne opens it when the hub makes its first window,
// and panics when it cannot; the hub opens it itself first, so that a bad
// DISPLAY is a sentence and not a stack trace. Fyne's default build on Linux
// draws through X11 (XWayland under a Wayland session), so DISPLAY is what
// must open.

func init() {
	// xgb logs its fallbacks ("Could not get authority info") on stderr,
	// which in a wrapper is the host's log: its errors are returned anyway.
	xgb.Logger = log.New(io.Discard, "", 0)
}

// displayTimeout bounds opening a display: an X server that accepts a
// connection and then says nothing must not hang a prompt.
const displayTimeout = 5 * time.Second

// OpenDisplay checks that this process can open windows: on Linux, that the
// X server in DISPLAY accepts a connection with this process's XAUTHORITY.
// Its error is a sentence for the user. The connection stays open until
// release is called: an X server with no other client resets when the last
// one leaves, and refuses connections meanwhile, so the hub holds this one
// for its life. lost is closed when that connection ends other than by
// release (an end of file or a read error: the X server ended, or dropped
// this client): the display is gone, and a hub on it can show nothing
// more. On other systems lost is nil (never closed).
func OpenDisplay() (release func(), lost <-chan struct{}, err error) {
	release = func() {}
	if runtime.GOOS != "linux" {
		return release, nil, nil
	}
	d := os.Getenv("DISPLAY")
	if d == "" {
		if w := os.Getenv("WAYLAND_DISPLAY"); w != "" {
			return release, nil, fmt.Errorf("WAYLAND_DISPLAY is %s but DISPLAY is not set: elicitray's windows need X11 (XWayland), which this session does not offer", w)
		}
		return release, nil, ErrNoDisplay
	}
	type opened struct {
		c   *xgb.Conn
		err error
	}
	done := make(chan opened, 1)
	go func() {
		var c *xgb.Conn
		var err error
		// A server resetting (see above) closes the connections that
		// arrive meanwhile: such an end of file is tried again.
		for wait := 25 * time.Millisecond; wait < displayTimeout; wait *= 2 {
			if c, err = xgb.NewConnDisplay(d); err == nil {
				break
			}
			if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				break
			}
			time.Sleep(wait)
		}
		done <- opened{c, err}
	}()
	select {
	case o := <-done:
		if o.err != nil {
			return release, nil, displayError(d, o.err)
		}
		if err := canDraw(o.c, d); err != nil {
			o.c.Close()
			return release, nil, err
		}
		var released atomic.Bool
		gone := make(chan struct{})
		go watchDisplay(o.c, &released, gone)
		return sync.OnceFunc(func() {
			released.Store(true)
			o.c.Close()
		}), gone, nil
	case <-time.After(displayTimeout + time.Second):
		return release, nil, fmt.Errorf("the X server at DISPLAY=%s did not answer within %v", d, displayTimeout)
	}
}

// watchDisplay reads c, a connection that asked for no events, until it
// ends, and closes gone then unless released says this process closed it.
// xgb's WaitForEvent returns nil and nil once the connection ended, on an
// end of file or a read error alike (its readResponses); X errors of
// requests nobody checked are skipped (the hub sends none after canDraw).
func watchDisplay(c *xgb.Conn, released *atomic.Bool, gone chan<- struct{}) {
	for {
		ev, xerr := c.WaitForEvent()
		if ev == nil && xerr == nil {
			break
		}
	}
	if !released.Load() {
		close(gone)
	}
}

// canDraw checks what Fyne needs of the X server at c beyond a connection:
// the screen DISPLAY names, and OpenGL through GLX (VNC servers, xrdp and
// ssh -X forwarding often lack it; Fyne would fail at its first window).
func canDraw(c *xgb.Conn, d string) error {
	if n := len(xproto.Setup(c).Roots); c.DefaultScreen >= n {
		return fmt.Errorf("DISPLAY=%s names screen %d, but that X server has %d", d, c.DefaultScreen, n)
	}
	glx, err := xproto.QueryExtension(c, uint16(len("GLX")), "GLX").Reply()
	if err != nil {
		return fmt.Errorf("the X server at DISPLAY=%s did not say whether it has OpenGL: %v", d, err)
	}
	if !glx.Present {
		return fmt.Errorf("the X server at DISPLAY=%s has no OpenGL (the GLX extension), which elicitray's windows need; VNC, xrdp and ssh -X servers often lack it", d)
	}
	return nil
}

// displayError says why display d did not open, from xgb's error.
func displayError(d string, err error) error {
	msg := strings.TrimSpace(err.Error())
	err = errors.New(msg) // the server's reason may end in a newline
	switch {
	case platform.IsNoListener(err) ||
		strings.Contains(msg, "no such file") || strings.Contains(msg, "connection refused"):
		return fmt.Errorf("no X server is running at DISPLAY=%s (%v)", d, err)
	case strings.Contains(msg, "authoriz") || strings.Contains(msg, "authent") || strings.Contains(msg, "auth protocol"):
		xa := os.Getenv("XAUTHORITY")
		if xa == "" {
			xa = filepath.Join(paths.HomeDir(os.Getenv), ".Xauthority")
		}
		if _, rerr := os.ReadFile(xa); rerr != nil {
			return fmt.Errorf("the X server at DISPLAY=%s refused the connection: it wants an authorization, and %s cannot be read (%v)", d, xa, rerr)
		}
		return fmt.Errorf("the X server at DISPLAY=%s refused the connection: it wants an authorization that %s does not hold (%v)", d, xa, err)
	}
	return fmt.Errorf("cannot open the X display %s: %v", d, err)
}

// probeDisplay runs `exe probe-display` with env and reports whether a
// process started that way could open windows: it is how doctor, and a hub
// started without DISPLAY, check a session they found (xgb reads XAUTHORITY
// from the process's own environment). A wrapper needs none: the hub it
// starts in a session checks the display first (hubExitNoDisplay).
func probeDisplay(ctx context.Context, exe string, env []string) error {
	ctx, cancel := context.WithTimeout(ctx, displayTimeout+2*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "probe-display")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err == nil {
		return nil
	}
	// Its sentence is its last "elicitray: " line; libraries may log too.
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if msg, ok := strings.CutPrefix(lines[i], "elicitray: "); ok {
			return errors.New(msg)
		}
	}
	return fmt.Errorf("the display check failed: %v", err)
}

// ErrNoDisplay is returned by the hub when the session has no display to
// show windows on.
var ErrNoDisplay = errors.New("no display: set DISPLAY (the hub shows desktop windows)")
