package platform

import (
	"context"
	"os"
	"runtime"
	"time"

	"github.com/godbus/dbus/v5"
)

// trayWatcher is the DBus name of the StatusNotifier host's watcher; a tray
// icon is only visible on Linux when someone owns it.
const trayWatcher = "org.kde.StatusNotifierWatcher"

// trayProbeTimeout bounds how long TrayAvailable waits for the session bus.
const trayProbeTimeout = 2 * time.Second

// TrayAvailable reports whether a tray icon can be shown. On Linux that
// needs a session DBus (DBUS_SESSION_BUS_ADDRESS set and connectable) on
// which org.kde.StatusNotifierWatcher has an owner; other systems always
// have a tray. Call it before ui.SetupTray: Fyne's tray crashes on quit when
// there is no DBus at all (DESIGN.md: without a tray host the hub runs
// without an icon). It may take up to two seconds on a stuck bus.
func TrayAvailable() bool {
	if runtime.GOOS != "linux" {
		return true
	}
	return TrayHostOn(os.Getenv("DBUS_SESSION_BUS_ADDRESS"))
}

// TrayHostOn reports whether a tray host (org.kde.StatusNotifierWatcher)
// runs on the session bus at addr, waiting at most two seconds.
func TrayHostOn(addr string) bool {
	if addr == "" {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), trayProbeTimeout)
	defer cancel()
	found := make(chan bool, 1)
	// Connecting and authenticating take no context: run them aside and
	// give up on a bus that does not answer.
	go func() { found <- hasBusOwner(ctx, addr, trayWatcher) }()
	select {
	case ok := <-found:
		return ok
	case <-ctx.Done():
		return false
	}
}

// hasBusOwner reports whether name has an owner on the bus at addr.
func hasBusOwner(ctx context.Context, addr, name string) bool {
	conn, err := dbus.Connect(addr, dbus.WithContext(ctx))
	if err != nil {
		return false
	}
	defer conn.Close()
	var has bool
	err = conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, name).Store(&has)
	return err == nil && has
}
