//go:build linux

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// xwatch sees windows come and go on the X server in DISPLAY: it selects
// SubstructureNotify on the root window, so the server sends it a MapNotify
// when a top-level window is mapped and an UnmapNotify or DestroyNotify when
// one goes, each timed when it arrives. Under Xvfb there is no window manager
// to reparent windows: a prompt is a child of the root window.
type xwatch struct {
	c         *xgb.Conn
	events    chan xevent
	netWMName xproto.Atom
	utf8      xproto.Atom
	armed     xproto.Atom // armedProperty
}

// armedProperty is the X property a prompt window has once it takes input
// (ui.ArmedProperty; not imported, which would build Fyne into the bench).
const armedProperty = "_ELICITRAY_ARMED"

// xevent is what happened to a window, at a time.
type xevent struct {
	kind xkind
	win  xproto.Window
	at   time.Time
}

type xkind int

const (
	xMapped xkind = iota
	xGone         // unmapped or destroyed
	xArmed        // armedProperty changed (a window dismiss watches)
)

func watchX() (*xwatch, error) {
	if os.Getenv("DISPLAY") == "" {
		return nil, errors.New("no DISPLAY: make bench runs under Xvfb (xvfb-run), or run this on a desktop")
	}
	c, err := xgb.NewConn()
	if err != nil {
		return nil, fmt.Errorf("opening the X display %s: %w", os.Getenv("DISPLAY"), err)
	}
	root := xproto.Setup(c).DefaultScreen(c).Root
	if err := xproto.ChangeWindowAttributesChecked(c, root, xproto.CwEventMask,
		[]uint32{xproto.EventMaskSubstructureNotify}).Check(); err != nil {
		c.Close()
		return nil, fmt.Errorf("watching the root window: %w", err)
	}
	x := &xwatch{c: c, events: make(chan xevent, 1024)}
	x.netWMName = x.atom("_NET_WM_NAME")
	x.utf8 = x.atom("UTF8_STRING")
	x.armed = x.atom(armedProperty)
	go func() {
		for {
			ev, err := c.WaitForEvent()
			at := time.Now()
			if ev == nil && err == nil {
				close(x.events)
				return
			}
			switch e := ev.(type) {
			case xproto.MapNotifyEvent:
				x.events <- xevent{xMapped, e.Window, at}
			case xproto.UnmapNotifyEvent:
				x.events <- xevent{xGone, e.Window, at}
			case xproto.DestroyNotifyEvent:
				x.events <- xevent{xGone, e.Window, at}
			case xproto.PropertyNotifyEvent:
				if e.Atom == x.armed {
					x.events <- xevent{xArmed, e.Window, at}
				}
			}
		}
	}()
	return x, nil
}

func (x *xwatch) atom(name string) xproto.Atom {
	r, err := xproto.InternAtom(x.c, false, uint16(len(name)), name).Reply()
	if err != nil {
		return xproto.AtomNone
	}
	return r.Atom
}

// name is win's title: _NET_WM_NAME, else WM_NAME.
func (x *xwatch) name(win xproto.Window) string {
	for _, p := range []struct{ prop, typ xproto.Atom }{{x.netWMName, x.utf8}, {xproto.AtomWmName, xproto.GetPropertyTypeAny}} {
		r, err := xproto.GetProperty(x.c, false, win, p.prop, p.typ, 0, 256).Reply()
		if err == nil && r != nil && len(r.Value) > 0 {
			return string(r.Value)
		}
	}
	return ""
}

// drain forgets the events so far.
func (x *xwatch) drain() {
	for {
		select {
		case <-x.events:
		default:
			return
		}
	}
}

// prompt waits for a window titled "elicitray…" to be mapped, up to wait,
// or until ended is closed.
func (x *xwatch) prompt(wait time.Duration, ended <-chan struct{}) (xproto.Window, time.Time, error) {
	deadline := time.After(wait)
	for {
		select {
		case ev, ok := <-x.events:
			if !ok {
				return 0, time.Time{}, errors.New("the X connection closed")
			}
			if os.Getenv("ELICITRAY_BENCH_DEBUG") != "" {
				fmt.Fprintf(os.Stderr, "bench: X: %s kind=%d win=%d %q\n", ev.at.Format("15:04:05.000000"), ev.kind, ev.win, x.name(ev.win))
			}
			if ev.kind == xMapped && strings.HasPrefix(x.name(ev.win), "elicitray") {
				return ev.win, ev.at, nil
			}
		case <-ended:
			return 0, time.Time{}, errors.New("the call ended before a window was mapped")
		case <-deadline:
			return 0, time.Time{}, fmt.Errorf("no elicitray window was mapped within %v", wait)
		}
	}
}

// press is one run of xdotool: started at start, the key sent by end.
type press struct{ start, end time.Time }

// dismiss waits until win takes input (armedProperty: a prompt ignores
// keys until its key guard is over, DESIGN.md: "A key pressed just before
// a window appears must not answer it"), presses Escape in it (xdotool,
// sent to the window) and waits until the X server says it is gone.
func (x *xwatch) dismiss(win xproto.Window, wait time.Duration) (press, error) {
	deadline := time.After(wait)
	if err := x.waitArmed(win, deadline); err != nil {
		return press{}, err
	}
	p := press{start: time.Now()}
	// The window may go between the key's press and release: an error from
	// xdotool then is no failure; the UnmapNotify decides.
	_ = exec.Command("xdotool", "key", "--window", fmt.Sprint(uint32(win)), "Escape").Run()
	p.end = time.Now()
	for {
		select {
		case ev, ok := <-x.events:
			if !ok {
				return p, errors.New("the X connection closed")
			}
			if ev.kind == xGone && ev.win == win {
				return p, nil
			}
		case <-deadline:
			return p, fmt.Errorf("the window was still mapped %v after Escape", wait)
		}
	}
}

// waitArmed waits until the prompt win sets armedProperty (it takes
// input), or deadline.
func (x *xwatch) waitArmed(win xproto.Window, deadline <-chan time.Time) error {
	if err := xproto.ChangeWindowAttributesChecked(x.c, win, xproto.CwEventMask,
		[]uint32{xproto.EventMaskPropertyChange}).Check(); err != nil {
		return fmt.Errorf("watching the prompt window: %w", err)
	}
	// Read after the events were asked for: a change from now on comes as
	// an event.
	for {
		r, err := xproto.GetProperty(x.c, false, win, x.armed, xproto.AtomCardinal, 0, 1).Reply()
		if err != nil {
			return fmt.Errorf("reading the prompt window's %s: %w", armedProperty, err)
		}
		if r.ValueLen > 0 {
			return nil
		}
		select {
		case ev, ok := <-x.events:
			if !ok {
				return errors.New("the X connection closed")
			}
			if ev.kind == xGone && ev.win == win {
				return errors.New("the window went before it took input")
			}
		case <-deadline:
			return fmt.Errorf("the window did not take input (%s) in time", armedProperty)
		}
	}
}

func (x *xwatch) close() { x.c.Close() }
