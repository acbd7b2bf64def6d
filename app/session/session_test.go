package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/prop"
	"github.com/google/go-cmp/cmp"
)

// exportProps serves the read-only properties props of iface at path on
// conn, and owns name.
func exportProps(t *testing.T, conn *dbus.Conn, name string, path dbus.ObjectPath, iface string, props map[string]any) {
	t.Helper()
	m := map[string]*prop.Prop{}
	for k, v := range props {
		m[k] = &prop.Prop{Value: v, Emit: prop.EmitFalse}
	}
	if _, err := prop.Export(conn, path, prop.Map{iface: m}); err != nil {
		t.Fatal(err)
	}
	if name == "" {
		return
	}
	if reply, err := conn.RequestName(name, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("owning %s: %v %v", name, reply, err)
	}
}

// fakeLogind answers org.freedesktop.login1.Manager.ListSessions.
type fakeLogind struct{ sessions []LogindSession }

func (f *fakeLogind) ListSessions() ([]LogindSession, *dbus.Error) { return f.sessions, nil }

// TestSessionFromBuses: with nothing in its own environment and no process
// to read, the finder takes the session from the systemd user manager's
// environment, then from logind's sessions of this user (active ones
// first), each served on a real dbus-daemon of the test's; a probe that
// refuses a display moves on to the next, and the error says why each
// failed.
func TestSessionFromBuses(t *testing.T) {
	t.Parallel()
	userBus := testkit.SessionBus(t, t.TempDir())
	systemBus := testkit.SessionBus(t, t.TempDir())
	uid := os.Getuid()

	u, err := dbus.Connect(userBus)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	exportProps(t, u, "org.freedesktop.systemd1", "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", map[string]any{
		"Environment": []string{"PATH=/usr/bin", "DISPLAY=:5", "XAUTHORITY=/home/u/.Xauthority", "XDG_CURRENT_DESKTOP=GNOME"},
	})

	s, err := dbus.Connect(systemBus)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	logind := &fakeLogind{sessions: []LogindSession{
		{ID: "3", UID: uint32(uid), User: "u", Path: "/org/freedesktop/login1/session/_33"},
		{ID: "7", UID: uint32(uid) + 1, User: "someone", Path: "/org/freedesktop/login1/session/_37"},
		{ID: "2", UID: uint32(uid), User: "u", Seat: "seat0", Path: "/org/freedesktop/login1/session/_32"},
	}}
	if err := s.Export(logind, "/org/freedesktop/login1", "org.freedesktop.login1.Manager"); err != nil {
		t.Fatal(err)
	}
	for _, ss := range []struct {
		path    dbus.ObjectPath
		display string
		active  bool
	}{
		{"/org/freedesktop/login1/session/_33", ":8", false},
		{"/org/freedesktop/login1/session/_37", ":9", true}, // another user's
		{"/org/freedesktop/login1/session/_32", ":7", true},
	} {
		exportProps(t, s, "", ss.path, "org.freedesktop.login1.Session", map[string]any{
			"Display": ss.display, "Type": "x11", "Active": ss.active, "Leader": uint32(0),
		})
	}
	if reply, err := s.RequestName("org.freedesktop.login1", dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("owning org.freedesktop.login1: %v %v", reply, err)
	}

	f := &Finder{Uid: uid, Pid: 1, Getenv: func(string) string { return "" },
		UserBus: userBus, SystemBus: systemBus, Proc: "/nonexistent"}
	type found struct{ Display, From string }
	var got []found
	for _, c := range f.Candidates(t.Context()) {
		got = append(got, found{c.Display(), c.From})
	}
	want := []found{
		{":5", "the systemd user manager's environment"},
		{":7", "logind session 2 (x11)"},
		{":8", "logind session 3 (x11)"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("sessions found mismatch (-want +got):\n%s", diff)
	}

	// The first display does not open: the next one is taken.
	refused := map[string]bool{":5": true}
	f.Probe = func(_ context.Context, s Desktop) error {
		if refused[s.Display()] {
			return fmt.Errorf("no X server is running at DISPLAY=%s", s.Display())
		}
		return nil
	}
	sess, err := f.Find(t.Context())
	if err != nil || sess.Display() != ":7" {
		t.Fatalf("find: %v, %v; want display :7", sess, err)
	}
	// None opens: the error names each.
	refused[":7"], refused[":8"] = true, true
	_, err = f.Find(t.Context())
	if !errors.Is(err, ErrNoSession) {
		t.Fatalf("find: %v, want ErrNoSession", err)
	}
	for _, want := range []string{
		"display :5 (from the systemd user manager's environment) did not open: no X server is running at DISPLAY=:5",
		"display :7 (from logind session 2 (x11)) did not open",
		"display :8 (from logind session 3 (x11)) did not open",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("find: %v\nwant it to say %q", err, want)
		}
	}
}

// TestSessionEnv: a hub started in a session found gets the session's
// variables in place of the wrapper's, and keeps the rest of the wrapper's.
func TestSessionEnv(t *testing.T) {
	t.Parallel()
	s := Desktop{Vars: map[string]string{"DISPLAY": ":0", "XAUTHORITY": "/run/user/1000/gdm/Xauthority"}}
	got := s.Env([]string{"HOME=/home/u", "DISPLAY=", "PATH=/usr/bin", "ELICITRAY_HOME=/tmp/e"})
	want := []string{"HOME=/home/u", "PATH=/usr/bin", "ELICITRAY_HOME=/tmp/e", "DISPLAY=:0", "XAUTHORITY=/run/user/1000/gdm/Xauthority"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("environment mismatch (-want +got):\n%s", diff)
	}
}

// TestSessionOfTheLogin: on macOS and Windows, where windows open wherever
// the user is logged in, the wrapper's own session is the one a hub starts
// in, with no DISPLAY to find: a wrapper there starts a hub instead of
// saying no desktop session was found.
func TestSessionOfTheLogin(t *testing.T) {
	t.Parallel()
	env := map[string]string{"LANG": "de_DE.UTF-8", "XDG_CONFIG_HOME": "/Users/u/.config", "PATH": "/usr/bin"}
	f := &Finder{Uid: os.Getuid(), Pid: 1, Getenv: func(k string) string { return env[k] }, LoginIsDesktop: true}
	var tried []Desktop
	err := f.Each(t.Context(), func(s Desktop) error {
		tried = append(tried, s)
		return nil
	})
	if err != nil {
		t.Fatalf("each: %v, want the login session taken", err)
	}
	want := []Desktop{{Vars: map[string]string{"LANG": "de_DE.UTF-8", "XDG_CONFIG_HOME": "/Users/u/.config"}, From: "this login session"}}
	if diff := cmp.Diff(want, tried); diff != "" {
		t.Errorf("sessions tried mismatch (-want +got):\n%s", diff)
	}
}
