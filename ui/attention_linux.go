//go:build linux

package ui

import (
	"fmt"
	"os"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver"
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// A prompt window asks the window manager for the user's attention as it
// opens (issue 14, "a prompt you notice"), in both of X11's ways, for the
// window managers and taskbars that read either: the ICCCM's UrgencyHint in
// WM_HINTS, a property of the window itself, and the EWMH's
// _NET_WM_STATE_DEMANDS_ATTENTION, asked for by a message to the root
// window. A desktop that lets the window take the focus shows it in front;
// one that keeps new windows from taking it (focus-stealing prevention)
// still makes its taskbar entry blink, rather than leave it behind
// unseen. The keyboard is not the question here: the key guard (keyGuard,
// guarded) keeps keys typed for another window from answering, wherever
// the focus goes. The hint ends when the prompt's window closes or hides
// (ICCCM 4.1.2.4: the user ends the urgency by dealing with what made the
// window urgent); an EWMH window manager ends its own state as the user
// activates the window.
//
// The same connection sets ArmedProperty once a prompt takes input (its key
// guard over) and deletes it as a kept window hides, for the programs that
// type into prompts (tests, the benchmark) to wait on.
//
// Fyne has no call for it, and the GLFW window Fyne makes is its own: the
// window's X id comes from Fyne (driver.NativeWindow, an X11WindowContext),
// and the hints are set over a connection of this package's, on a
// goroutine of its own, one change after another in the order asked.

// urgencyHint is WM_HINTS' UrgencyHint flag (ICCCM 4.1.2.4).
const urgencyHint = 1 << 8

// wmHintsWords is the length of WM_HINTS in 32-bit words.
const wmHintsWords = 9

// The _NET_WM_STATE message's actions (EWMH, _NET_WM_STATE).
const (
	netWMStateRemove = 0
	netWMStateAdd    = 1
)

// attentionX is the process's connection for window hints, opened at the
// first prompt; when it cannot be opened, hints are not set and the hub's
// log says why once.
var attentionX struct {
	once  sync.Once
	conn  *xgb.Conn
	root  xproto.Window
	state xproto.Atom // _NET_WM_STATE
	asks  xproto.Atom // _NET_WM_STATE_DEMANDS_ATTENTION
	armed xproto.Atom // ArmedProperty
	queue serialWork
}

// serialWork runs funcs one at a time, in the order queued, off the caller's
// goroutine.
type serialWork struct {
	mu      sync.Mutex
	work    []func()
	running bool
}

func (q *serialWork) do(f func()) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.work = append(q.work, f)
	if !q.running {
		q.running = true
		go q.run()
	}
}

func (q *serialWork) run() {
	for {
		q.mu.Lock()
		if len(q.work) == 0 {
			q.running = false
			q.mu.Unlock()
			return
		}
		f := q.work[0]
		q.work = q.work[1:]
		q.mu.Unlock()
		f()
	}
}

// x11Window is win's X window id, or 0 (not made yet, closed, not X11). On
// the Fyne goroutine.
func x11Window(win fyne.Window) uint32 {
	nw, ok := win.(driver.NativeWindow)
	if !ok {
		return 0
	}
	var id uint32
	nw.RunNative(func(ctx any) {
		if x, ok := ctx.(driver.X11WindowContext); ok {
			id = uint32(x.WindowHandle)
		}
	})
	return id
}

// askAttention marks win, just shown, as wanting the user's attention, and
// returns its X window id (0 when it has none) for dropAttention. On the
// Fyne goroutine; the X requests go on attentionX's queue.
func askAttention(win fyne.Window) uint32 {
	id := x11Window(win)
	if id != 0 {
		attentionX.queue.do(func() { setAttention(xproto.Window(id), true) })
	}
	return id
}

// dropAttention ends what askAttention asked for window id.
func dropAttention(id uint32) {
	if id != 0 {
		attentionX.queue.do(func() { setAttention(xproto.Window(id), false) })
	}
}

// markArmed sets ArmedProperty on window id (0: none), whose prompt takes
// input from now on; on attentionX's queue, after the hints asked before.
func markArmed(id uint32) {
	if id != 0 {
		attentionX.queue.do(func() { setArmed(xproto.Window(id), true) })
	}
}

// clearArmed deletes ArmedProperty from window id (0: none), a prompt
// window kept hidden for the next prompt, and returns once the X server
// has done it: the window is shown again later over GLFW's connection, and
// a program waiting for the property must not find the last prompt's
// there. It waits for the queue's earlier work (a round trip or two) on
// purpose: a markArmed still queued would set the property again.
func clearArmed(id uint32) {
	if id == 0 {
		return
	}
	done := make(chan struct{})
	attentionX.queue.do(func() {
		defer close(done)
		setArmed(xproto.Window(id), false)
	})
	<-done
}

// setArmed sets or deletes ArmedProperty on window id; on attentionX's
// queue. A window gone meanwhile is let be.
func setArmed(id xproto.Window, on bool) {
	c := attentionConn()
	x := &attentionX
	if c == nil || x.armed == 0 {
		return
	}
	if !on {
		_ = xproto.DeletePropertyChecked(c, id, x.armed).Check()
		return
	}
	one := make([]byte, 4)
	xgb.Put32(one, 1)
	_ = xproto.ChangePropertyChecked(c, xproto.PropModeReplace, id, x.armed, xproto.AtomCardinal, 32, 1, one).Check()
}

// attentionConn is attentionX's connection, opened at the first call; nil
// when it cannot be opened. On attentionX's queue.
func attentionConn() *xgb.Conn {
	x := &attentionX
	x.once.Do(func() {
		c, err := xgb.NewConn()
		if err != nil {
			fmt.Fprintf(os.Stderr, "elicitray ui: prompt windows cannot ask the window manager for attention: %v\n", err)
			return
		}
		x.root = xproto.Setup(c).DefaultScreen(c).Root
		x.state, x.asks = internAtom(c, "_NET_WM_STATE"), internAtom(c, "_NET_WM_STATE_DEMANDS_ATTENTION")
		x.armed = internAtom(c, ArmedProperty)
		x.conn = c
		// Nothing is asked of this connection's events, but the X server
		// sends some to every client (MappingNotify): read and drop them,
		// so that they never fill xgb's queue and hold up its replies.
		go func() {
			for {
				if ev, err := c.WaitForEvent(); ev == nil && err == nil {
					return // closed
				}
			}
		}()
	})
	return x.conn
}

// setAttention sets or clears both hints of window id; on attentionX's
// queue. A window gone meanwhile (an X error) is let be.
func setAttention(id xproto.Window, on bool) {
	x := &attentionX
	c := attentionConn()
	if c == nil {
		return
	}
	// WM_HINTS as GLFW set it (its state and input hints), the urgency
	// flag changed.
	hints := make([]byte, 4*wmHintsWords)
	if r, err := xproto.GetProperty(c, false, id, xproto.AtomWmHints, xproto.AtomWmHints, 0, wmHintsWords).Reply(); err != nil {
		return // the window is gone
	} else if r.Format == 32 {
		copy(hints, r.Value)
	}
	flags := xgb.Get32(hints)
	if on {
		flags |= urgencyHint
	} else {
		flags &^= urgencyHint
	}
	xgb.Put32(hints, flags)
	if xproto.ChangePropertyChecked(c, xproto.PropModeReplace, id, xproto.AtomWmHints, xproto.AtomWmHints, 32, wmHintsWords, hints).Check() != nil {
		return
	}
	if x.state == 0 || x.asks == 0 {
		return
	}
	action := uint32(netWMStateRemove)
	if on {
		action = netWMStateAdd
	}
	// Source indication 1: a normal application (EWMH, "Source indication
	// in requests").
	ev := xproto.ClientMessageEvent{Format: 32, Window: id, Type: x.state,
		Data: xproto.ClientMessageDataUnionData32New([]uint32{action, uint32(x.asks), 0, 1, 0})}
	_ = xproto.SendEventChecked(c, false, x.root,
		xproto.EventMaskSubstructureNotify|xproto.EventMaskSubstructureRedirect, string(ev.Bytes())).Check()
}

// internAtom is the atom named name, or 0 when the server did not answer.
func internAtom(c *xgb.Conn, name string) xproto.Atom {
	r, err := xproto.InternAtom(c, false, uint16(len(name)), name).Reply()
	if err != nil {
		return 0
	}
	return r.Atom
}
