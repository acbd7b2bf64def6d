package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/bridge"
)

// testServerEnv makes the test binary, started by Host as its command, act
// as a server: "1" runs Server itself; "wrapped" runs Server behind
// fakeWrapper.
const testServerEnv = "ELICITRAY_DEMO_TEST_SERVER"

func TestMain(m *testing.M) {
	switch os.Getenv(testServerEnv) {
	case "1":
		if err := Server(context.Background(), os.Stdin, os.Stdout); err != nil {
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

// fakeWrapper is `elicitray wrap -- elicitray demo-server` without the hub:
// the real relay (package bridge) in front of this test binary as the demo
// server, with fakeAnswers in place of the person at the desktop.
func fakeWrapper(host io.Reader, toHost io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), testServerEnv+"=1")
	relay := bridge.NewRelay(bridge.Command(cmd, 0), &bridge.Options{Server: "demo", Log: os.Stderr,
		Approver: bridge.ApproverFunc(func(_ context.Context, req *bridge.Request) (*bridge.Result, error) {
			if res, ok := fakeAnswers[req.Message]; ok {
				return res, nil
			}
			return &bridge.Result{Action: "cancel"}, nil
		})})
	_, err = relay.Run(context.Background(), host, toHost)
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
	return []string{exe, "-test.run=^$"}
}

func TestHostThroughAWrapperPrintsEachAnswer(t *testing.T) {
	var out bytes.Buffer
	if err := Host(t.Context(), testServerCommand(t, "wrapped"), &out); err != nil {
		t.Fatalf("Host: %v", err)
	}
	want := strings.Join([]string{
		"→ choose_tags",
		"cancel",
		"→ confirm_deploy",
		`accept: {"confirm":true,"environment":"production"}`,
		"→ pick_environment",
		"decline",
		"→ profile_form",
		`accept: {"budget":3.14,"channels":["Email"],"copies":42,"format":"pdf","fullName":"Ada","greeting":"Hello from the team.","regions":["r-1"],"team":"Platform","tier":"tier-1"}`,
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
	if err := Host(t.Context(), testServerCommand(t, "1"), &out); err == nil {
		t.Error("Host returned no error")
	}
	var want strings.Builder
	for _, name := range []string{"choose_tags", "confirm_deploy", "pick_environment", "profile_form"} {
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
			err := Host(t.Context(), tt.command, &out)
			if !tt.check(err) {
				t.Errorf("Host returned %v", err)
			}
			if out.Len() != 0 {
				t.Errorf("Host printed %q before it had a server, want nothing", out.String())
			}
		})
	}
}
