//go:build linux

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/app/session"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostEnvVars are the only variables the TypeScript SDK's stdio transport
// passes to a server it starts, unless the host's config lists env
// (getDefaultEnvironment; DESIGN.md "Hosts strip the environment").
var hostEnvVars = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}

// strippedDesktop is a test's user session as a host that strips the
// environment sees it: the user's home is a temporary directory (HOME, not
// ELICITRAY_HOME, so the wrapper gets it), and the wrappers get only
// hostEnvVars. The desktop session is the test process's: it has DISPLAY
// (Xvfb) and its session bus; with ownDisplay, it is an X server and session
// bus of the test's own instead, which only the host programs the test runs
// are in (d.hostEnv). Nothing is set in the test process: the wrappers and
// the hubs read none of its environment but the session's variables, which
// hold no ELICITRAY_HOME, so a stripped wrapper sees none.
func strippedDesktop(t *testing.T, ownDisplay bool) *testDesktop {
	t.Helper()
	needDisplay(t)
	if rt := paths.UserRuntimeDir(os.Getuid()); rt != "" {
		// The run directory would be rt's, shared with this user's real hub.
		t.Skipf("%s exists: a wrapper with only HOME would reach your own hub there", rt)
	}
	home, err := os.MkdirTemp("", "eh-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	d := &testDesktop{t: t, home: home, mark: "HOME=" + home, display: os.Getenv("DISPLAY")}
	session := map[string]string{}
	for _, k := range sessionKeys {
		session[k] = os.Getenv(k)
	}
	if ownDisplay {
		d.display = startX(t, "").display
		session["DISPLAY"], session["DBUS_SESSION_BUS_ADDRESS"] = d.display, trayStartBus(t)
	}
	d.unmaps = newUnmapWatch(t, d.display)
	for _, k := range hostEnvVars {
		v := os.Getenv(k)
		if k == "HOME" {
			v = home
		}
		if v != "" {
			d.env = append(d.env, k+"="+v)
		}
	}
	// The host programs run in the desktop session.
	d.hostEnv = slices.Clone(d.env)
	for _, k := range sessionKeys {
		if v := session[k]; v != "" {
			d.hostEnv = append(d.hostEnv, k+"="+v)
		}
	}
	d.paths = paths.Layout(
		filepath.Join(home, ".config", "elicitray"),
		filepath.Join(home, ".local", "share", "elicitray"),
		filepath.Join(home, ".local", "state", "elicitray"),
		filepath.Join(home, ".local", "state", "elicitray", "run"),
	)
	t.Cleanup(d.stop)
	return d
}

// sessionKeys are the variables of the desktop session that sessionEnv adds.
var sessionKeys = []string{"DISPLAY", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "LANG"}

// sessionEnv is d's environment as the desktop session has it: the
// stripped one plus the display and the bus (strippedDesktop's session,
// kept in d.hostEnv); for newDesktop's d, the test process's.
func (d *testDesktop) sessionEnv() []string {
	env := append([]string{}, d.environ()...)
	for _, kv := range d.hostEnv {
		k, _, _ := strings.Cut(kv, "=")
		if slices.Contains(sessionKeys, k) {
			env = append(env, kv)
		}
	}
	return env
}

// startHub starts a hub in the desktop session, as the session's autostart
// would, and waits until it answers.
func (d *testDesktop) startHub() int {
	d.t.Helper()
	cmd := exec.Command(testkit.Binary(d.t), "hub")
	cmd.Env = d.sessionEnv()
	logf, err := os.Create(filepath.Join(d.t.TempDir(), "hub.out"))
	if err != nil {
		d.t.Fatal(err)
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		d.t.Fatal(err)
	}
	go cmd.Wait()
	d.awaitHub(logOf(logf.Name()))
	return cmd.Process.Pid
}

// sessionProcess starts a process that stands for the user's desktop
// session (as gnome-shell or plasmashell would): it runs as the user with
// the environment a desktop gives, naming the test's display and a desktop.
// It returns its pid; it ends with the test.
func (d *testDesktop) sessionProcess() int {
	d.t.Helper()
	cmd := exec.Command("sleep", "infinity")
	cmd.Env = append(d.sessionEnv(), "XDG_CURRENT_DESKTOP=elicitray-test", "XDG_SESSION_TYPE=x11")
	if err := cmd.Start(); err != nil {
		d.t.Fatal(err)
	}
	d.t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd.Process.Pid
}

// wrapperLog is everything the wrappers of d wrote on stderr.
func (d *testDesktop) wrapperLog() string {
	var b strings.Builder
	for _, p := range d.logs {
		out, _ := os.ReadFile(p)
		b.Write(out)
	}
	return b.String()
}

// TestStrippedEnvironment (issue 9): a wrapper started with only HOME,
// LOGNAME, PATH, SHELL, TERM and USER — what most hosts give — answers from a
// real window: it reaches the hub running in the desktop session, and with
// none running it finds the session and starts one there, also when the
// host itself has no display (a service, a terminal over ssh), and when the
// display in its own environment does not open (the hub started there says
// so, and the next session's is taken).
func TestStrippedEnvironment(t *testing.T) {
	// In parallel with other tests, but its cases one at a time: each shows
	// its window on the run's display (DISPLAY), which the wrapper must
	// find in the test process's environment, and the last finds the
	// desktop session among all of the user's processes.
	t.Parallel()
	server := everythingServer(t)
	// The process the wrapper names as where it found the display: this
	// test's binary (e2e.test).
	testBinary := filepath.Base(os.Args[0])
	for _, tt := range []struct {
		name string
		// hub: a hub runs in the desktop session before the host starts.
		hub bool
		// detached: the wrapper's parent chain has no DISPLAY (setsid -f
		// reparents it), as under a host run as a service.
		detached bool
		// display is the wrapper's own DISPLAY, one no X server serves.
		display string
		// says is what the wrapper tells the host's log.
		says string
	}{
		{name: "hub running", hub: true, says: "prompts go to your hub (pid %d) at "},
		{name: "no hub", says: "no hub was running; started one (pid %d) on display " + os.Getenv("DISPLAY") + ", found in the environment of " + testBinary},
		{name: "own display does not open", display: ":97", says: "no hub was running; started one (pid %d) on display " + os.Getenv("DISPLAY") + ", found in the environment of " + testBinary},
		{name: "host without a display", detached: true, says: "no hub was running; started one (pid %d) on display " + os.Getenv("DISPLAY") + ", found in the environment of "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := strippedDesktop(t, false)
			if tt.hub {
				d.startHub()
			}
			// A server's token, as a host config's env passes it: it is
			// the wrapper's, and a hub it starts must not get it.
			d.env = append(d.env, "GITHUB_TOKEN=ghp_not_for_the_hub")
			if tt.display != "" {
				d.env = append(d.env, "DISPLAY="+tt.display)
			}
			var cs *mcp.ClientSession
			if tt.detached {
				// The desktop session: a process of the user's with the
				// environment a desktop gives its programs.
				sessionPID := d.sessionProcess()
				tt.says = strings.Replace(tt.says, "found in the environment of ", "found in the environment of sleep (pid "+strconv.Itoa(sessionPID)+"), a process of yours", 1)
				cs = d.connectVia([]string{"setsid", "-f"}, "everything", server)
			} else {
				cs = d.connect("everything", server)
			}
			call := d.callWith(cs, "trigger-elicitation-request", map[string]any{})
			win, hubPID := d.window()
			d.typeInto(win, "Grace Hopper")
			d.answer(win, "Return")
			text := d.result(call)
			if got := parseRawResult(t, text); got.Action != "accept" || got.Content["name"] != "Grace Hopper" {
				t.Errorf("the server received %+v, want accept with the name typed", got)
			}
			recs := d.history()
			if len(recs) != 1 {
				t.Fatalf("history holds %d decisions, want 1%s", len(recs), d.diagnostics())
			}
			want := decision{Server: "everything", Tool: "trigger-elicitation-request", Action: "accept", DecidedBy: "user"}
			got := decisionOf(recs[0])
			got.ServerInfo, got.Content = "", nil
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("history record mismatch (-want +got):\n%s", diff)
			}
			if env, err := os.ReadFile("/proc/" + strconv.Itoa(hubPID) + "/environ"); err != nil || strings.Contains(string(env), "GITHUB_TOKEN") {
				t.Errorf("the hub's environment has the server's token (%v)", err)
			}
			says := strings.Replace(tt.says, "%d", strconv.Itoa(hubPID), 1)
			t.Logf("the wrapper said:\n%s", d.wrapperLog())
			if log := d.wrapperLog(); !strings.Contains(log, says) {
				t.Errorf("the wrapper's log does not say %q:\n%s", says, log)
			}
			if tt.display != "" {
				// The hub tried there first said why it could not start.
				hubLog, _ := os.ReadFile(d.paths.HubLog)
				if want := session.HubFailPrefix + "no X server is running at DISPLAY=" + tt.display; !strings.Contains(string(hubLog), want) {
					t.Errorf("the hub log does not say %q:\n%s", want, hubLog)
				}
			}
		})
	}
}
