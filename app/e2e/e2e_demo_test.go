//go:build linux

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/internal/testkit"
)

// startLogged starts cmd with its stderr, and its stdout unless set, in
// a log of its own that diagnostics show: a file, since a hub it starts
// may hold a pipe open. The test's end kills cmd if it still runs. The
// channel gets Wait's result.
func (d *testDesktop) startLogged(cmd *exec.Cmd, name string) <-chan error {
	d.t.Helper()
	logPath := filepath.Join(d.t.TempDir(), name)
	logf, err := os.Create(logPath)
	if err != nil {
		d.t.Fatal(err)
	}
	d.t.Cleanup(func() { logf.Close() })
	cmd.Stderr = logf
	if cmd.Stdout == nil {
		cmd.Stdout = logf
	}
	d.logs = append(d.logs, logPath)
	if err := cmd.Start(); err != nil {
		d.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	d.t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-done
		}
	})
	return done
}

// TestEndToEndDemoApprovalFlow runs `elicitray demo --tool request_change`
// as a user would and answers its windows: at 2026-07-28 the approval (no
// fields: Return submits it) and the change request (service and reason
// typed, dev and rolling back left as they are) execute the change in two
// rounds; at 2025-11-25 Escape on the approval aborts it. The demo prints
// each era and its outcome, naming the audit log, which holds both.
func TestEndToEndDemoApprovalFlow(t *testing.T) {
	d := newParallelDesktop(t)
	cmd := exec.Command(testkit.Binary(t), "demo", "--tool", "request_change")
	cmd.Env = d.env
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	done := d.startLogged(cmd, "demo.log")

	// 2026-07-28, round 1: the summary, approved.
	win, _ := d.window()
	if got, want := d.title(win), "elicitray — demo asks"; got != want {
		t.Errorf("window title %q, want %q", got, want)
	}
	d.answer(win, "Return")
	// Round 2: the change request; the service field has the focus.
	win, _ = d.window()
	d.typeInto(win, "checkout")
	d.xdo("key", "--window", win, "Tab")
	d.xdo("type", "--window", win, "pool exhaustion")
	d.answer(win, "Return")
	// 2025-11-25, round 1: dismissed.
	win, _ = d.window()
	d.answer(win, "Escape")

	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("elicitray demo: %v%s", err, d.diagnostics())
		}
	case <-time.After(desktopWait):
		t.Fatalf("elicitray demo still runs %v after its last window%s", desktopWait, d.diagnostics())
	}
	audit := filepath.Join(d.home, "demo-audit.jsonl")
	call := `\(call [0-9a-f]{16}\)\.`
	want := strings.Join([]string{
		`Protocol 2026-07-28: .*\.`,
		`→ request_change`,
		regexp.QuoteMeta("executed at round 2 (change request): checkout changed in dev, roll back on failure: yes (a demo: nothing really ran). Audit log: "+audit) + " " + call,
		``,
		`Protocol 2025-11-25: .*\.`,
		`→ request_change`,
		regexp.QuoteMeta("aborted at round 1 (approval): the approval was dismissed without an answer, so nothing was changed. Audit log: "+audit) + " " + call,
		``,
	}, `\n`)
	if !regexp.MustCompile(`^` + want + `$`).MatchString(stdout.String()) {
		t.Errorf("elicitray demo printed:\n%s\nwant it to match:\n%s", stdout.String(), want)
	}

	b, err := os.ReadFile(audit)
	if err != nil {
		t.Fatalf("reading the audit log: %v", err)
	}
	var got []string
	for line := range bytes.Lines(b) {
		var e struct {
			Protocol, Outcome string
			Change            json.RawMessage
		}
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("audit log line %q: %v", line, err)
		}
		got = append(got, fmt.Sprintf("%s %s %s", e.Protocol, e.Outcome, e.Change))
	}
	wantLog := []string{
		`2026-07-28 executed {"service":"checkout","reason":"pool exhaustion","environment":"dev","rollback_on_failure":true}`,
		`2025-11-25 aborted `,
	}
	if strings.Join(got, "\n") != strings.Join(wantLog, "\n") {
		t.Errorf("audit log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantLog, "\n"))
	}

	var decisions []string
	for _, r := range d.history() {
		decisions = append(decisions, r.Tool+" "+r.Action)
	}
	// Newest first.
	if got, want := strings.Join(decisions, ", "), "request_change cancel, request_change accept, request_change accept"; got != want {
		t.Errorf("history %q, want %q", got, want)
	}
}

// TestDemoSaysWhenPaused: with prompts paused (`elicitray pause`), `elicitray
// demo` shows no window, and each tool says its form was not shown because
// elicitray is paused, not that someone dismissed it; the history says
// paused too.
func TestDemoSaysWhenPaused(t *testing.T) {
	d := newParallelDesktop(t)
	startWinHub(d, "0s")
	if out, err := d.binCmd("pause").CombinedOutput(); err != nil {
		t.Fatalf("elicitray pause: %v\n%s", err, out)
	}
	cmd := d.binCmd("demo", "--tool", "confirm_deploy", "--tool", "request_change")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("elicitray demo: %v\n%s%s", err, stderr.String(), d.diagnostics())
	}
	out := stdout.String()
	const paused = "because elicitray is paused (`elicitray resume` shows prompts again)"
	for _, want := range []string{
		"→ confirm_deploy\ncancel: the form was not shown, " + paused + "\n",
		"→ request_change\naborted at round 1 (approval): the approval was not shown, " + paused + ", so nothing was changed. Audit log: ",
	} {
		if n := strings.Count(out, want); n != 2 {
			t.Errorf("elicitray demo says %q %d times, want once in each era:\n%s", want, n, out)
		}
	}
	if strings.Contains(out, "dismissed") {
		t.Errorf("elicitray demo says a prompt was dismissed, though none was shown:\n%s", out)
	}
	for _, r := range d.history() {
		if r.Action != "cancel" || r.DecidedBy != "paused" {
			t.Errorf("history holds %s %s decided by %s, want every prompt cancelled by the pause", r.Tool, r.Action, r.DecidedBy)
		}
	}
}

// TestDemoFormsReturn: what README's demo section says of Return holds.
// choose_tags, confirm_deploy and pick_environment open with their defaults
// in place and Return submits them at once; profile_form needs a full name,
// which typed, Return submits with the form's defaults. As fast as the
// windows come, seven in all: prompts answered as they come, past the rate
// limit's burst of five, and none is cut off (issue 27: the demo's seventh
// prompt was cancelled unseen).
func TestDemoFormsReturn(t *testing.T) {
	d := newParallelDesktop(t)
	cs := d.connect("demo", testkit.Binary(t), "demo-server")
	type step struct{ tool, typing, want string }
	steps := []step{
		{"choose_tags", "", `accept: {"labels":["feature"]}`},
		{"confirm_deploy", "", `accept: {"confirm":false,"environment":"staging"}`},
		{"pick_environment", "", `accept: {"environment":"staging"}`},
		{"profile_form", "Ada Lovelace", `"fullName":"Ada Lovelace"`},
	}
	// Seven: the first four, and the three that Return answers with their
	// defaults (a form filled in from the last answer waits for a person's
	// own keys: profile_form's name would).
	for _, tt := range append(steps, steps[:3]...) {
		t.Run(tt.tool, func(t *testing.T) {
			d := d.with(t)
			call := d.call(cs, tt.tool)
			win, _ := d.window()
			if tt.typing != "" {
				d.typeInto(win, tt.typing)
			}
			d.answer(win, "Return")
			if got := d.result(call); !strings.HasPrefix(got, "accept: ") || !strings.Contains(got, tt.want) {
				t.Errorf("Return on %s sent %q, want accept with %s", tt.tool, got, tt.want)
			}
		})
	}
}
