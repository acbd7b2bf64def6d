package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/godbus/dbus/v5"
)

// notifier shows desktop notifications through the session bus's
// notification server (org.freedesktop.Notifications, the Desktop
// Notifications Specification). Fyne's own sender drops its errors into a
// log line per notification; this one says once in the hub's log why none
// can be shown, and `elicitray doctor` says the same.
type notifier struct {
	// addr is the session bus address; "" means there is none.
	addr string
	// log receives the one sentence saying notifications are off.
	log io.Writer
	// icon is the path of elicitray's icon, or "".
	icon string

	mu     sync.Mutex
	conn   *dbus.Conn
	failed bool // the sentence was said
}

// Notify shows title and body without blocking the caller.
func (n *notifier) Notify(title, body string) {
	go func() {
		if err := n.send(context.Background(), title, body); err != nil {
			n.mu.Lock()
			said := n.failed
			n.failed = true
			n.mu.Unlock()
			if !said && n.log != nil {
				fmt.Fprintf(n.log, "elicitray hub: desktop notifications cannot be shown: %v (windows still work)\n", err)
			}
		}
	}()
}

// send shows one notification, connecting to the bus the first time.
func (n *notifier) send(ctx context.Context, title, body string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.conn == nil {
		if n.addr == "" {
			return errNoSessionBus
		}
		conn, err := dbus.Connect(n.addr, dbus.WithContext(ctx))
		if err != nil {
			return fmt.Errorf("the session bus at %s: %w", n.addr, err)
		}
		n.conn = conn
	}
	ctx, cancel := context.WithTimeout(ctx, busTimeout)
	defer cancel()
	call := n.conn.Object("org.freedesktop.Notifications", "/org/freedesktop/Notifications").CallWithContext(ctx,
		"org.freedesktop.Notifications.Notify", 0,
		"elicitray", uint32(0), n.icon, title, body, []string{}, map[string]dbus.Variant{}, int32(-1))
	if call.Err != nil {
		if !n.conn.Connected() {
			n.conn.Close()
			n.conn = nil
		}
		return fmt.Errorf("no notification server answered on the session bus: %w", call.Err)
	}
	return nil
}

// close ends the bus connection.
func (n *notifier) close() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.conn != nil {
		n.conn.Close()
		n.conn = nil
	}
}

var errNoSessionBus = fmt.Errorf("this session has no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set and there is no bus socket in the runtime directory)")

// sessionBusAddress is the session bus of this process: the address in
// DBUS_SESSION_BUS_ADDRESS, else the bus socket in the user's runtime
// directory (where systemd and dbus-broker put it), else "". It never starts
// a bus: dbus-launch's would outlive the hub.
func sessionBusAddress() string {
	if a := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" {
		return a
	}
	if runtime.GOOS != "linux" {
		return ""
	}
	for _, dir := range []string{os.Getenv("XDG_RUNTIME_DIR"), userRuntimeDir(os.Getuid())} {
		if dir != "" && isSocket(filepath.Join(dir, "bus")) {
			return "unix:path=" + filepath.Join(dir, "bus")
		}
	}
	return ""
}
