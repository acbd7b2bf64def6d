package platform

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"
)

func TestTrayAvailable(t *testing.T) {
	if runtime.GOOS != "linux" {
		if !TrayAvailable() {
			t.Error("TrayAvailable() = false off Linux")
		}
		return
	}
	t.Run("no session bus", func(t *testing.T) {
		t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
		if TrayAvailable() {
			t.Error("tray reported available without DBus: Fyne would crash on quit")
		}
	})
	t.Run("unreachable session bus", func(t *testing.T) {
		t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+filepath.Join(t.TempDir(), "none"))
		if TrayAvailable() {
			t.Error("tray reported available with a dead bus address")
		}
	})

	addr := startSessionBus(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	t.Run("bus without a StatusNotifier host", func(t *testing.T) {
		if TrayAvailable() {
			t.Error("tray reported available with nobody owning " + trayWatcher)
		}
	})
	t.Run("bus with a StatusNotifier host", func(t *testing.T) {
		conn, err := dbus.Connect(addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if r, err := conn.RequestName(trayWatcher, dbus.NameFlagDoNotQueue); err != nil || r != dbus.RequestNameReplyPrimaryOwner {
			t.Fatalf("owning %s: reply %v, %v", trayWatcher, r, err)
		}
		if !TrayAvailable() {
			t.Error("tray reported unavailable although " + trayWatcher + " has an owner")
		}
	})
}

// startSessionBus runs a private dbus-daemon for the test and returns its
// address; it skips the test when dbus-daemon is not installed.
func startSessionBus(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("dbus-daemon")
	if err != nil {
		t.Skip("dbus-daemon not installed")
	}
	sock := filepath.Join(t.TempDir(), "bus")
	cfg := filepath.Join(t.TempDir(), "session.conf")
	conf := `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path=` + sock + `</listen>
<auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>`
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config-file="+cfg, "--nofork", "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	// The address is printed once the bus listens.
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon printed no address: %v", err)
	}
	return strings.TrimSpace(line)
}
