package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/jezek/xgb"
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

// openDisplay checks that this process can open windows: on Linux, that the
// X server in DISPLAY accepts a connection with this process's XAUTHORITY.
// Its error is a sentence for the user.
func openDisplay() error {
	if runtime.GOOS != "linux" {
		return nil
	}
	d := os.Getenv("DISPLAY")
	if d == "" {
		if w := os.Getenv("WAYLAND_DISPLAY"); w != "" {
			return fmt.Errorf("WAYLAND_DISPLAY is %s but DISPLAY is not set: elicitray's windows need X11 (XWayland), which this session does not offer", w)
		}
		return ErrNoDisplay
	}
	done := make(chan error, 1)
	go func() {
		c, err := xgb.NewConnDisplay(d)
		if err == nil {
			c.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			return displayError(d, err)
		}
		return nil
	case <-time.After(displayTimeout):
		return fmt.Errorf("the X server at DISPLAY=%s did not answer within %v", d, displayTimeout)
	}
}

// displayError says why display d did not open, from xgb's error.
func displayError(d string, err error) error {
	msg := err.Error()
	switch {
	case errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) ||
		strings.Contains(msg, "no such file") || strings.Contains(msg, "connection refused"):
		return fmt.Errorf("no X server is running at DISPLAY=%s (%v)", d, err)
	case strings.Contains(msg, "authoriz") || strings.Contains(msg, "authent") || strings.Contains(msg, "auth protocol"):
		xa := os.Getenv("XAUTHORITY")
		if xa == "" {
			xa = "~/.Xauthority"
		}
		return fmt.Errorf("the X server at DISPLAY=%s refused the connection: it wants an authorization that %s does not hold (%v)", d, xa, err)
	}
	return fmt.Errorf("cannot open the X display %s: %v", d, err)
}

// probeDisplay runs `exe probe-display` with env and reports whether a
// process started that way could open windows: it is how a wrapper checks a
// session it found before it starts a hub there (xgb reads XAUTHORITY from
// the process's own environment).
func probeDisplay(ctx context.Context, exe string, env []string) error {
	ctx, cancel := context.WithTimeout(ctx, displayTimeout+time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "probe-display")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err == nil {
		return nil
	}
	if msg := strings.TrimPrefix(strings.TrimSpace(string(out)), "elicitray: "); msg != "" {
		return errors.New(msg)
	}
	return err
}
