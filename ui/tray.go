package ui

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"github.com/godbus/dbus/v5"

	"github.com/elicitray/elicitray/assets"
)

// trayWatcher is the DBus name of the StatusNotifier host's watcher; a tray
// icon is only visible on Linux when someone owns it.
const trayWatcher = "org.kde.StatusNotifierWatcher"

// trayProbeTimeout bounds how long TrayAvailable waits for the session bus.
const trayProbeTimeout = 2 * time.Second

// TrayAvailable reports whether a tray icon can be shown. On Linux that
// needs a session DBus (DBUS_SESSION_BUS_ADDRESS set and connectable) on
// which org.kde.StatusNotifierWatcher has an owner; other systems always
// have a tray. Call it before SetupTray: Fyne's tray crashes on quit when
// there is no DBus at all (DESIGN.md: without a tray host the hub runs
// without an icon). It may take up to two seconds on a stuck bus.
func TrayAvailable() bool {
	if runtime.GOOS != "linux" {
		return true
	}
	addr := os.Getenv("DBUS_SESSION_BUS_ADDRESS")
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

// Tray is the tray icon's menu.
type Tray struct {
	menu    *fyne.Menu
	pending *fyne.MenuItem
	refresh func()
}

// SetupTray shows the tray icon (the app icon) with a menu: the number of
// pending prompts, History…, Quit. onHistory and onQuit run on the Fyne
// goroutine. Call it only when TrayAvailable reports true, on the Fyne
// goroutine; it returns nil when a does not support a tray.
func SetupTray(a fyne.App, onHistory, onQuit func()) *Tray {
	da, ok := a.(desktop.App)
	if !ok {
		return nil
	}
	t := newTray(onHistory, onQuit)
	t.refresh = t.menu.Refresh
	da.SetSystemTrayIcon(fyne.NewStaticResource("elicitray.png", assets.Icon))
	da.SetSystemTrayMenu(t.menu)
	return t
}

func newTray(onHistory, onQuit func()) *Tray {
	t := &Tray{refresh: func() {}}
	t.pending = fyne.NewMenuItem(pendingText(0), nil)
	t.pending.Disabled = true
	quit := fyne.NewMenuItem("Quit", onQuit)
	// Marked so that Fyne does not add a second Quit of its own.
	quit.IsQuit = true
	t.menu = fyne.NewMenu("elicitray",
		t.pending,
		fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem("History…", onHistory),
		fyne.NewMenuItemSeparator(),
		quit,
	)
	return t
}

// SetPending shows n, the number of prompts waiting for an answer, in the
// menu. Call it on the Fyne goroutine. A nil Tray does nothing, so callers
// need not check whether a tray was set up.
func (t *Tray) SetPending(n int) {
	if t == nil {
		return
	}
	text := pendingText(n)
	if t.pending.Label == text {
		return
	}
	t.pending.Label = text
	t.refresh()
}

// pendingText is the menu line for n pending prompts.
func pendingText(n int) string {
	switch n {
	case 0:
		return "No prompts waiting"
	case 1:
		return "1 prompt waiting"
	}
	return strconv.Itoa(n) + " prompts waiting"
}
