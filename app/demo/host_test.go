package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/bridge"
)

// testServerEnv makes the test binary, started by Host as its command, act
// as a server: "1" runs Server itself; "wrapped" runs Server behind
// fakeWrapper.
const testServerEnv = "ELICITRAY_DEMO_TEST_SERVER"

// testAuditEnv is the audit log the test binary's Server keeps.
const testAuditEnv = "ELICITRAY_DEMO_TEST_AUDIT"

// testScriptEnv holds the answers fakeWrapper gives to request_change's
// rounds, in order, by protocol version: JSON {"VERSION": [Result…]}.
const testScriptEnv = "ELICITRAY_DEMO_TEST_SCRIPT"

// testSeenEnv names a file fakeWrapper appends each elicitation it was
// asked to, as one JSON line (a seenRequest).
const testSeenEnv = "ELICITRAY_DEMO_TEST_SEEN"

func TestMain(m *testing.M) {
	switch os.Getenv(testServerEnv) {
	case "1":
		if err := Server(context.Background(), os.Stdin, os.Stdout, &Options{AuditLog: os.Getenv(testAuditEnv)}); err != nil {
			fmt.Fprintln(os.Stderr, "demo server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	case "wrapped":
		if err := fakeWrapper(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "fake wrapper:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeAnswers are the ElicitResults the wrapper's stand-in for a person
// gives, by elicitation message.
var fakeAnswers = map[string]*bridge.Result{
	"Deploy build 1.4.2?":                                     {Action: "accept", Content: map[string]any{"confirm": true, "environment": "production"}},
	"Where should the next build run?":                        {Action: "decline"},
	"Fill in your profile so the report can be personalised.": {Action: "accept", Content: map[string]any{"fullName": "Ada"}},
	"Tag release 1.4.2":                                       {Action: "cancel"},
}

// seenRequest is what fakeWrapper notes of each elicitation it answers.
type seenRequest struct {
	Tool            string `json:"tool"`
	Message         string `json:"message"`
	ProtocolVersion string `json:"protocolVersion"`
}

// fakeWrapper is `elicitray wrap -- elicitray demo-server` without the hub:
// the real relay (package bridge) in front of this test binary as the demo
// server, with fakeAnswers and the script in testScriptEnv in place of the
// person at the desktop.
func fakeWrapper(host io.Reader, toHost io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	var script map[string][]*bridge.Result
	if s := os.Getenv(testScriptEnv); s != "" {
		if err := json.Unmarshal([]byte(s), &script); err != nil {
			return fmt.Errorf("reading %s: %w", testScriptEnv, err)
		}
	}
	var mu sync.Mutex
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), testServerEnv+"=1")
	relay := bridge.NewRelay(bridge.Command(cmd, 0), &bridge.Options{Server: "demo", Log: os.Stderr,
		Approver: bridge.ApproverFunc(func(_ context.Context, req *bridge.Request) (*bridge.Result, error) {
			mu.Lock()
			defer mu.Unlock()
			if err := noteSeen(req); err != nil {
				return nil, err
			}
			if res, ok := fakeAnswers[req.Message]; ok {
				return res, nil
			}
			if req.Tool == changeToolName && len(script[req.ProtocolVersion]) > 0 {
				res := script[req.ProtocolVersion][0]
				script[req.ProtocolVersion] = script[req.ProtocolVersion][1:]
				return res, nil
			}
			return &bridge.Result{Action: "cancel"}, nil
		})})
	_, err = relay.Run(context.Background(), host, toHost)
	return err
}

// noteSeen appends req to the file testSeenEnv names, if any.
func noteSeen(req *bridge.Request) error {
	path := os.Getenv(testSeenEnv)
	if path == "" {
		return nil
	}
	line, err := json.Marshal(seenRequest{req.Tool, req.Message, req.ProtocolVersion})
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.Write(append(line, '\n'))
	return err
}

// testServerCommand returns the command that runs this test binary as a
// server in the given mode.
func testServerCommand(t *testing.T, mode string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(testServerEnv, mode) // inherited by the child
	// Under -race a binary sleeps 1 s as it exits: the wrapper and its
	// server would outlast the host's 2 s grace before SIGTERM.
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	return []string{exe, "-test.run=^$"}
}

func TestHostThroughAWrapperPrintsEachAnswer(t *testing.T) {
	var out bytes.Buffer
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	t.Setenv(testAuditEnv, audit)
	if err := Host(t.Context(), testServerCommand(t, "wrapped"), &out, nil); err != nil {
		t.Fatalf("Host: %v", err)
	}
	entries := readAudit(t, audit)
	if len(entries) != 1 {
		t.Fatalf("the audit log holds %d lines, want 1", len(entries))
	}
	want := strings.Join([]string{
		"Protocol 2026-07-28: " + eraNotes["2026-07-28"] + ".",
		"→ choose_tags",
		"cancel",
		"→ confirm_deploy",
		`accept: {"confirm":true,"environment":"production"}`,
		"→ pick_environment",
		"decline",
		"→ profile_form",
		`accept: {"budget":3.14,"channels":["Email"],"copies":42,"format":"pdf","fullName":"Ada","greeting":"Hello from the team.","regions":["r-1"],"team":"Platform","tier":"tier-1"}`,
		"→ request_change",
		// No script: the wrapper's stand-in cancels round 1.
		"aborted at round 1 (approval): the approval was dismissed without an answer, so nothing was changed. Audit log: " + audit + " (call " + entries[0].Call + ").",
		"",
	}, "\n")
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("Host output mismatch (-want +got):\n%s", diff)
	}
}

// TestHostWithoutWrapperSaysWhy runs the demo server directly: the host
// declares no elicitation, so every tool explains why it cannot ask, Host
// goes through all of them instead of hanging, and reports the failure.
func TestHostWithoutWrapperSaysWhy(t *testing.T) {
	var out bytes.Buffer
	// At 2026-07-28 the server answers -32021 (PROTOCOL.md §3).
	if err := Host(t.Context(), testServerCommand(t, "1"), &out, nil); err == nil {
		t.Error("Host returned no error")
	}
	var want strings.Builder
	want.WriteString("Protocol 2026-07-28: " + eraNotes["2026-07-28"] + ".\n")
	for _, name := range []string{"choose_tags", "confirm_deploy", "pick_environment", "profile_form", "request_change"} {
		fmt.Fprintf(&want, "→ %s\nerror: %s\n", name, needsWrapper)
	}
	if diff := cmp.Diff(want.String(), out.String()); diff != "" {
		t.Errorf("Host output mismatch (-want +got):\n%s", diff)
	}
}

func TestHostReportsABadCommand(t *testing.T) {
	for _, tt := range []struct {
		name    string
		command []string
		check   func(error) bool
	}{
		{"no command", nil, func(err error) bool { return errors.Is(err, ErrNoCommand) }},
		{"missing program", []string{"/nonexistent/elicitray-demo-server"}, func(err error) bool {
			return err != nil && strings.Contains(err.Error(), `connecting to "/nonexistent/elicitray-demo-server"`)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := Host(t.Context(), tt.command, &out, nil)
			if !tt.check(err) {
				t.Errorf("Host returned %v", err)
			}
			if out.Len() != 0 {
				t.Errorf("Host printed %q before it had a server, want nothing", out.String())
			}
		})
	}
}

// setScript makes fakeWrapper answer request_change's rounds with answers,
// by protocol version, and returns the file where it notes what it was
// asked.
func setScript(t *testing.T, answers map[string][]*bridge.Result) (seen string) {
	t.Helper()
	b, err := json.Marshal(answers)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(testScriptEnv, string(b))
	seen = filepath.Join(t.TempDir(), "seen.jsonl")
	t.Setenv(testSeenEnv, seen)
	return seen
}

// readSeen returns what fakeWrapper was asked, as "tool@version: headline".
func readSeen(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading what the wrapper was asked: %v", err)
	}
	var out []string
	for line := range bytes.Lines(b) {
		var r seenRequest
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(r.Message, "\n")
		out = append(out, fmt.Sprintf("%s@%s: %s", r.Tool, r.ProtocolVersion, first))
	}
	return out
}

var (
	bridgeApprove = &bridge.Result{Action: "accept"}
	bridgeProd    = &bridge.Result{Action: "accept", Content: map[string]any{"service": "checkout", "reason": "pool exhaustion at peak", "environment": "prod"}}
	bridgeYes     = &bridge.Result{Action: "accept", Content: map[string]any{"confirm": true}}
	bridgeNo      = &bridge.Result{Action: "accept", Content: map[string]any{"confirm": false}}
	bridgeStaging = &bridge.Result{Action: "accept", Content: map[string]any{"service": "search", "reason": "new index", "environment": "staging"}}
)

// TestHostRunsTheApprovalFlowThroughAWrapper has the demo host call
// request_change through the real relay at each era: the wrapper answers
// the three rounds itself (a legacy push each, or an input_required loop),
// and the host sees one result naming the outcome and the audit log.
func TestHostRunsTheApprovalFlowThroughAWrapper(t *testing.T) {
	for _, version := range []string{LegacyProtocolVersion, HostProtocolVersion} {
		t.Run(version, func(t *testing.T) {
			seen := setScript(t, map[string][]*bridge.Result{version: {bridgeApprove, bridgeProd, bridgeYes}})
			audit := filepath.Join(t.TempDir(), "audit.jsonl")
			t.Setenv(testAuditEnv, audit)
			var out bytes.Buffer
			if err := Host(t.Context(), testServerCommand(t, "wrapped"), &out, &HostOptions{ProtocolVersion: version, Tools: []string{changeToolName}}); err != nil {
				t.Fatalf("Host: %v", err)
			}
			entries := readAudit(t, audit)
			if len(entries) != 1 {
				t.Fatalf("the audit log holds %d lines, want 1", len(entries))
			}
			checkOutcome(t, audit, version,
				auditEntry{Outcome: outcomeExecuted, Round: 3, Step: "production confirmation", Answer: "accept",
					Change: &changeRequest{Service: "checkout", Reason: "pool exhaustion at peak", Environment: "prod", RollbackOnFailure: true}},
				"executed at round 3 (production confirmation): checkout changed in prod, roll back on failure: yes (a demo: nothing really ran). Audit log: AUDIT (call CALL).",
				lastLine(out.String()))
			if !strings.HasPrefix(out.String(), "Protocol "+version+": "+eraNotes[version]+".\n→ request_change\n") {
				t.Errorf("Host output %q does not start with the era and the tool", out.String())
			}
			want := []string{
				"request_change@" + version + ": " + approvalHeadline,
				"request_change@" + version + ": " + changeHeadline,
				"request_change@" + version + ": " + productionHeadline,
			}
			if diff := cmp.Diff(want, readSeen(t, seen)); diff != "" {
				t.Errorf("what the wrapper asked mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// lastLine is the last line of s, without its newline.
func lastLine(s string) string {
	s = strings.TrimSuffix(s, "\n")
	return s[strings.LastIndex(s, "\n")+1:]
}

// TestTourShowsBothEras is `elicitray demo` without the hub: every tool at
// 2026-07-28, then the approval flow again at 2025-11-25, each run headed
// by its era, and both outcomes in the audit log, in order.
func TestTourShowsBothEras(t *testing.T) {
	seen := setScript(t, map[string][]*bridge.Result{
		HostProtocolVersion:   {bridgeApprove, bridgeStaging},
		LegacyProtocolVersion: {bridgeApprove, bridgeProd, bridgeNo},
	})
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	t.Setenv(testAuditEnv, audit)
	var out bytes.Buffer
	if err := Tour(t.Context(), testServerCommand(t, "wrapped"), &out, nil); err != nil {
		t.Fatalf("Tour: %v", err)
	}
	entries := readAudit(t, audit)
	if len(entries) != 2 {
		t.Fatalf("the audit log holds %d lines, want 2", len(entries))
	}
	var logged []string
	for _, e := range entries {
		logged = append(logged, fmt.Sprintf("%s: %s at round %d", e.Protocol, e.Outcome, e.Round))
	}
	if diff := cmp.Diff([]string{"2026-07-28: executed at round 2", "2025-11-25: blocked at round 3"}, logged); diff != "" {
		t.Errorf("audit log mismatch (-want +got):\n%s", diff)
	}
	want := strings.Join([]string{
		"Protocol 2026-07-28: " + eraNotes["2026-07-28"] + ".",
		"→ choose_tags",
		"cancel",
		"→ confirm_deploy",
		`accept: {"confirm":true,"environment":"production"}`,
		"→ pick_environment",
		"decline",
		"→ profile_form",
		`accept: {"budget":3.14,"channels":["Email"],"copies":42,"format":"pdf","fullName":"Ada","greeting":"Hello from the team.","regions":["r-1"],"team":"Platform","tier":"tier-1"}`,
		"→ request_change",
		"executed at round 2 (change request): search changed in staging, roll back on failure: yes (a demo: nothing really ran). Audit log: " + audit + " (call " + entries[0].Call + ").",
		"",
		"Protocol 2025-11-25: " + eraNotes["2025-11-25"] + ".",
		"→ request_change",
		"blocked at round 3 (production confirmation): production was not confirmed, so nothing was changed. Audit log: " + audit + " (call " + entries[1].Call + ").",
		"",
	}, "\n")
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("Tour output mismatch (-want +got):\n%s", diff)
	}
	var changeRounds []string
	for _, s := range readSeen(t, seen) {
		if strings.HasPrefix(s, changeToolName+"@") {
			changeRounds = append(changeRounds, s)
		}
	}
	wantRounds := []string{
		"request_change@2026-07-28: " + approvalHeadline,
		"request_change@2026-07-28: " + changeHeadline,
		"request_change@2025-11-25: " + approvalHeadline,
		"request_change@2025-11-25: " + changeHeadline,
		"request_change@2025-11-25: " + productionHeadline,
	}
	if diff := cmp.Diff(wantRounds, changeRounds); diff != "" {
		t.Errorf("rounds the wrapper asked mismatch (-want +got):\n%s", diff)
	}
}

func TestHostOptionsNameWhatIsAllowed(t *testing.T) {
	for _, tt := range []struct {
		opts HostOptions
		want string
	}{
		{HostOptions{ProtocolVersion: "2025-06-18"}, `the demo host speaks protocol 2026-07-28 or 2025-11-25, not "2025-06-18"`},
		{HostOptions{Tools: []string{"request_change", "deploy"}}, `the demo has no tool "deploy"; its tools are choose_tags, confirm_deploy, pick_environment, profile_form, request_change`},
	} {
		var out bytes.Buffer
		err := Host(t.Context(), []string{"/nonexistent/never-started"}, &out, &tt.opts)
		if !errors.Is(err, ErrBadHostOptions) || err.Error() != tt.want {
			t.Errorf("Host(%+v) returned %v, want %q", tt.opts, err, tt.want)
		}
		if out.Len() != 0 {
			t.Errorf("Host printed %q for bad options, want nothing", out.String())
		}
	}
}
