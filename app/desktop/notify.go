package desktop

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/elicitray/elicitray/app/session"

	"github.com/elicitray/elicitray/app/paths"
	"github.com/godbus/dbus/v5"
)

// Notifier shows desktop notifications through the session bus's
// notification server (org.freedesktop.Notifications, the Desktop
// Notifications Specification). Fyne's own sender drops its errors into a
// log line per notification; this one says once in the hub's log why none
// can be shown, and `elicitray doctor` says the same.
type Notifier struct {
	// Addr is the session bus address; "" means there is none.
	Addr string
	// log receives the one sentence saying notifications are off.
	log io.Writer
	// icon is the path of elicitray's icon, or "".
	icon string

	mu     sync.Mutex
	conn   *dbus.Conn
	failed bool // the sentence was said
}

// Notify shows title and body without blocking the caller.
func (n *Notifier) Notify(title, body string) {
	go func() {
		if _, err := n.send(context.Background(), Note{Title: title, Body: body}); err != nil {
			n.failedOnce(err)
		}
	}()
}

// Note is one notification as the Desktop Notifications Specification's
// Notify takes it.
type Note struct {
	Title, Body string
	// replaces is the id of a notification of ours this one takes the
	// place of (the server updates it in place); 0 for a new one.
	replaces uint32
	// Sound asks the notification server to play the desktop's sound for
	// a new message with it (the "sound-name" hint, a name of the
	// freedesktop Sound Naming Specification): no audio code here, and a
	// server without sounds shows the notification all the same.
	Sound bool
}

// promptSound is the sound theme's name for the sound a notification
// plays when the user turned sounds on: an incoming message that wants an
// answer.
const promptSound = "message-new-instant"

// desktopEntryID is the name, without ".desktop", of the launcher entry
// `make install` puts in place (packaging/linux), which is also Fyne's app
// id (newFyneApp).
const desktopEntryID = "io.github.elicitray"

// failedOnce says in the log, the first time only, why notifications
// cannot be shown.
func (n *Notifier) failedOnce(err error) {
	n.mu.Lock()
	said := n.failed
	n.failed = true
	n.mu.Unlock()
	if !said && n.log != nil {
		fmt.Fprintf(n.log, "elicitray hub: desktop notifications cannot be shown: %v (windows still work)\n", err)
	}
}

// send shows one notification, connecting to the bus the first time, and
// returns the id the notification server gave it.
func (n *Notifier) send(ctx context.Context, m Note) (uint32, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.connectLocked(ctx); err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, session.BusTimeout)
	defer cancel()
	// The launcher entry's id: the desktop shows and groups the
	// notification as elicitray's, with its icon and name.
	hints := map[string]dbus.Variant{"desktop-entry": dbus.MakeVariant(desktopEntryID)}
	if m.Sound {
		hints["sound-name"] = dbus.MakeVariant(promptSound)
	}
	var id uint32
	err := n.conn.Object("org.freedesktop.Notifications", "/org/freedesktop/Notifications").CallWithContext(ctx,
		"org.freedesktop.Notifications.Notify", 0,
		"elicitray", m.replaces, n.icon, m.Title, m.Body, []string{}, hints, int32(-1)).Store(&id)
	if err != nil {
		n.dropLocked()
		return 0, fmt.Errorf("no notification server answered on the session bus: %w", err)
	}
	return id, nil
}

// withdraw takes notification id off the screen (CloseNotification): the
// prompt it told of was answered. A server that already closed it, or
// cannot, answers with an error that changes nothing for the user.
func (n *Notifier) withdraw(ctx context.Context, id uint32) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.connectLocked(ctx); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, session.BusTimeout)
	defer cancel()
	call := n.conn.Object("org.freedesktop.Notifications", "/org/freedesktop/Notifications").CallWithContext(ctx,
		"org.freedesktop.Notifications.CloseNotification", 0, id)
	if call.Err != nil {
		n.dropLocked()
		return fmt.Errorf("closing notification %d: %w", id, call.Err)
	}
	return nil
}

// connectLocked connects to the session bus unless connected; n.mu is held.
func (n *Notifier) connectLocked(ctx context.Context) error {
	if n.conn != nil {
		return nil
	}
	if n.Addr == "" {
		return errNoSessionBus
	}
	conn, err := dbus.Connect(n.Addr, dbus.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("the session bus at %s: %w", n.Addr, err)
	}
	n.conn = conn
	return nil
}

// dropLocked forgets a connection the bus ended, so that the next
// notification connects anew; n.mu is held.
func (n *Notifier) dropLocked() {
	if n.conn != nil && !n.conn.Connected() {
		n.conn.Close()
		n.conn = nil
	}
}

// Close ends the bus connection.
func (n *Notifier) Close() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.conn != nil {
		n.conn.Close()
		n.conn = nil
	}
}

var errNoSessionBus = fmt.Errorf("this session has no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set and there is no bus socket in the runtime directory)")

// SessionBusAddress is the session bus of this process: the address in
// DBUS_SESSION_BUS_ADDRESS, else the bus socket in the user's runtime
// directory (where systemd and dbus-broker put it), else "". It never starts
// a bus: dbus-launch's would outlive the hub.
func SessionBusAddress() string {
	if a := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" {
		return a
	}
	if runtime.GOOS != "linux" {
		return ""
	}
	for _, dir := range []string{os.Getenv("XDG_RUNTIME_DIR"), paths.UserRuntimeDir(os.Getuid())} {
		if dir != "" && session.IsSocket(filepath.Join(dir, "bus")) {
			return "unix:path=" + filepath.Join(dir, "bus")
		}
	}
	return ""
}
