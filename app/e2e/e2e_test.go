//go:build linux

package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/hub"
	"github.com/elicitray/elicitray/app/hubapi"
	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/google/go-cmp/cmp"
)

// everythingBin is the reference server, installed by `make deps-npm`.
const everythingBin = "../../testdata/npm/node_modules/.bin/mcp-server-everything"

// TestEndToEndEverything answers server-everything's elicitation three ways
// from a real window, with the official Go SDK as the host: what the user
// types and the form's defaults reach the server as typed JSON, Alt+D
// declines, Escape cancels, and each decision is in the history.
func TestEndToEndEverything(t *testing.T) {
	server := everythingServer(t)
	d := newParallelDesktop(t)
	cs := d.connect("everything", server)
	serverInfo := cs.InitializeResult().ServerInfo.Name

	for i, tt := range []struct {
		name string
		// typing is typed into the focused first field (the name) first,
		// once the window takes input.
		typing string
		key    string
		// says is what server-everything writes for the action.
		says string
		want rawResult
	}{
		{
			name:   "Return submits the name and the defaults",
			typing: "Ada Lovelace",
			key:    "Return",
			says:   "User inputs:\n- Name: Ada Lovelace\n",
			want:   rawResult{Action: "accept", Content: everythingAccepted("Ada Lovelace")},
		},
		{
			name: "Alt+D declines",
			key:  "alt+d",
			says: "User declined to provide the requested information.",
			want: rawResult{Action: "decline"},
		},
		{
			name: "Escape cancels",
			key:  "Escape",
			says: "User cancelled the elicitation dialog.",
			want: rawResult{Action: "cancel"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := d.with(t)
			call := d.call(cs, "trigger-elicitation-request")
			win, _ := d.window()
			if got, want := d.title(win), "elicitray — everything asks"; got != want {
				t.Errorf("window title %q, want %q (the configured name)", got, want)
			}
			if tt.typing != "" {
				d.typeInto(win, tt.typing)
			}
			if i == 0 {
				d.screenshot("prompt.png")
			}
			d.answer(win, tt.key) // returns once the window closed

			text := d.result(call)
			if !strings.Contains(text, tt.says) {
				t.Errorf("tool result does not say %q:\n%s", tt.says, text)
			}
			if diff := cmp.Diff(tt.want, parseRawResult(t, text)); diff != "" {
				t.Errorf("ElicitResult the server received mismatch (-want +got):\n%s", diff)
			}

			recs := d.history()
			if len(recs) != i+1 {
				t.Fatalf("history holds %d decisions after %d answers, want one each", len(recs), i+1)
			}
			want := decision{
				Server:     "everything",
				ServerInfo: serverInfo,
				Tool:       "trigger-elicitation-request",
				Action:     tt.want.Action,
				DecidedBy:  "user",
				Content:    tt.want.Content,
			}
			if diff := cmp.Diff(want, decisionOf(recs[0])); diff != "" {
				t.Errorf("newest history record mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHubRestartsAfterCrash kills the hub while a window is open: the tool
// call ends cancel (nobody answered), and the next elicitation starts a new
// hub whose window the user answers; the history keeps both.
func TestHubRestartsAfterCrash(t *testing.T) {
	d := newParallelDesktop(t)
	cs := d.connect("demo", testkit.Binary(t), "demo-server")
	serverInfo := cs.InitializeResult().ServerInfo.Name

	first := d.call(cs, "confirm_deploy")
	win, crashed := d.window()
	if err := syscall.Kill(crashed, syscall.SIGKILL); err != nil {
		t.Fatalf("killing hub %d: %v", crashed, err)
	}
	if got := d.result(first); got != "cancel" {
		t.Errorf("with the hub killed, the server got %q, want cancel", got)
	}
	d.closed(win)

	second := d.call(cs, "confirm_deploy")
	win, restarted := d.window()
	if restarted == crashed {
		t.Fatalf("the window belongs to hub %d, the one killed", restarted)
	}
	d.answer(win, "Return")
	if got, want := d.result(second), `accept: {"confirm":false,"environment":"staging"}`; got != want {
		t.Errorf("after the restart, the server got %q, want %q", got, want)
	}

	var got []decision
	for _, r := range d.history() {
		got = append(got, decisionOf(r))
	}
	want := []decision{
		{
			Server: "demo", ServerInfo: serverInfo, Tool: "confirm_deploy",
			Action: "accept", DecidedBy: "user",
			Content: map[string]any{"confirm": false, "environment": "staging"},
		},
		{
			Server: "demo", ServerInfo: serverInfo, Tool: "confirm_deploy",
			Action: "cancel", DecidedBy: "error", Reason: hubapi.ErrHubGone.Error(),
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("history mismatch (-want +got):\n%s", diff)
	}
}

// TestOneHubWhenStartedTogether starts four hubs at once for one user:
// exactly one stays and answers on the socket; the others say a hub runs and
// exit 0 (DESIGN.md: "two racing starts must end with exactly one hub").
func TestOneHubWhenStartedTogether(t *testing.T) {
	d := newParallelDesktop(t)
	const n = 4
	type started struct {
		cmd    *exec.Cmd
		stderr bytes.Buffer
		err    error
	}
	hubs := make([]*started, n)
	exited := make(chan int, n)
	for i := range hubs {
		h := &started{cmd: exec.Command(testkit.Binary(t), "hub")}
		h.cmd.Env = d.env
		h.cmd.Stderr = &h.stderr
		if err := h.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		hubs[i] = h
		go func() {
			h.err = h.cmd.Wait()
			exited <- i
		}()
	}
	running := map[int]bool{0: true, 1: true, 2: true, 3: true}
	t.Cleanup(func() {
		for i := range running {
			_ = hubs[i].cmd.Process.Kill()
		}
		for len(running) > 0 {
			delete(running, <-exited)
		}
	})

	deadline := time.After(desktopWait)
	for len(running) > 1 {
		select {
		case i := <-exited:
			delete(running, i)
		case <-deadline:
			t.Fatalf("%d hubs still run %v after starting %d together, want one%s", len(running), desktopWait, n, d.diagnostics())
		}
	}
	for i, h := range hubs {
		if running[i] {
			continue
		}
		if h.err != nil {
			t.Errorf("a hub that found another running exited with %v, want 0; stderr:\n%s", h.err, h.stderr.String())
		}
		if !strings.Contains(h.stderr.String(), hub.ErrRunning.Error()) {
			t.Errorf("a hub that found another running said %q, want it to say %q", h.stderr.String(), hub.ErrRunning.Error())
		}
	}

	var survivor int
	for i := range running {
		survivor = i
	}
	for !hubAnswers(t.Context(), d.paths) {
		select {
		case i := <-exited:
			delete(running, i)
			t.Fatalf("the last hub exited too (%v); stderr:\n%s", hubs[i].err, hubs[i].stderr.String())
		case <-deadline:
			t.Fatalf("the hub's socket did not answer within %v", desktopWait)
		case <-time.After(pollEvery):
		}
	}
	if got, want := d.hubPID(), hubs[survivor].cmd.Process.Pid; got != want {
		t.Errorf("hub.lock names PID %d, want the running hub's %d", got, want)
	}
	list := exec.Command(testkit.Binary(t), "history", "list")
	list.Env = d.env
	if out, err := list.CombinedOutput(); err != nil {
		t.Errorf("elicitray history list with the hub running: %v\n%s", err, out)
	}
	select {
	case i := <-exited:
		delete(running, i)
		t.Errorf("the last hub exited after answering (%v); stderr:\n%s", hubs[i].err, hubs[i].stderr.String())
	default:
	}
}

// everythingAccepted is the content server-everything's form sends when
// the user types name into the first field and submits: the name and the
// form's defaults, each of the JSON type its schema says.
func everythingAccepted(name string) map[string]any {
	return map[string]any{
		"name":                       name,
		"check":                      false,
		"firstLine":                  "It was a dark and stormy night.",
		"integer":                    42.0, // a JSON number, as the schema says
		"number":                     3.14,
		"untitledSingleSelectEnum":   "Monica",
		"untitledMultipleSelectEnum": []any{"Guitar"},
		"titledSingleSelectEnum":     "hero-1",
		"titledMultipleSelectEnum":   []any{"fish-1"},
		"legacyTitledEnum":           "pet-1",
	}
}

// everythingServer is the path of the pinned server-everything, for tests
// that show windows: they skip without a display or without the npm
// package, except in CI, where a skip would hide a broken set-up.
func everythingServer(t *testing.T) string {
	t.Helper()
	needDisplay(t)
	server, err := filepath.Abs(everythingBin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(server); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("server-everything is not installed (%v): run make deps-npm", err)
		}
		t.Skipf("server-everything is not installed (%v): run make deps-npm", err)
	}
	return server
}

// TestHubRecoversUnreadableHistory (issue 5): a hub whose history file is
// not a history file moves it aside under a dated name, says where in its
// log, and keeps the decisions that follow in a new file.
func TestHubRecoversUnreadableHistory(t *testing.T) {
	d := newParallelDesktop(t)
	garbage := []byte("this is not a bbolt file, it was overwritten by something else\n")
	if err := os.MkdirAll(filepath.Dir(d.paths.History), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.paths.History, garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(t.TempDir(), "hub.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	hub := exec.Command(testkit.Binary(t), "hub")
	hub.Env = d.env
	hub.Stdout, hub.Stderr = logf, logf
	if err := hub.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- hub.Wait() }()
	d.awaitHub(d.diagnostics)
	moved, _ := filepath.Glob(d.paths.History + ".corrupt-*")
	if len(moved) != 1 {
		t.Fatalf("moved-aside files: %v, want one", moved)
	}
	if b, err := os.ReadFile(moved[0]); err != nil || !bytes.Equal(b, garbage) {
		t.Errorf("the old file's bytes were not kept in %s: %v", moved[0], err)
	}
	log, _ := os.ReadFile(logf.Name())
	if want := "could not be read; it was moved to " + moved[0]; !strings.Contains(string(log), want) {
		t.Errorf("the hub's log does not say %q:\n%s", want, log)
	}
	// The new history works.
	if out, errb, code := d.binary("history", "list", "--json"); code != 0 || len(out) != 0 {
		t.Errorf("history list: exit %d, %q, %s", code, out, errb)
	}
	if _, errb, code := d.binary("quit"); code != 0 {
		t.Errorf("quit: exit %d: %s", code, errb)
	}
	if err := <-exited; err != nil {
		t.Errorf("hub: %v", err)
	}
}
