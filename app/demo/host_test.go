package demo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// fakeAnswers are the ElicitResults fakeWrapper sends, by elicitation
// message.
var fakeAnswers = map[string]string{
	"Deploy build 1.4.2?":                                     `{"action":"accept","content":{"confirm":true,"environment":"production"}}`,
	"Where should the next build run?":                        `{"action":"decline"}`,
	"Fill in your profile so the report can be personalised.": `{"action":"accept","content":{"fullName":"Ada"}}`,
	"Tag release 1.4.2":                                       `{"action":"cancel"}`,
}

// fakeWrapper stands in for `elicitray wrap -- elicitray demo-server`: it
// runs Server in-process, adds form elicitation to the host's initialize
// (PROTOCOL.md §3), answers the server's elicitation/create requests itself
// from fakeAnswers, and relays everything else line by line.
func fakeWrapper(host io.Reader, toHost io.Writer) error {
	serverIn, toServer := io.Pipe()
	fromServer, serverOut := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Server(context.Background(), serverIn, serverOut) }()

	go func() {
		r := bufio.NewReader(host)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				var msg map[string]any
				if json.Unmarshal(line, &msg) == nil && msg["method"] == "initialize" {
					params := msg["params"].(map[string]any)
					params["capabilities"].(map[string]any)["elicitation"] = map[string]any{"form": map[string]any{}}
					line, _ = json.Marshal(msg)
					line = append(line, '\n')
				}
				toServer.Write(line)
			}
			if err != nil {
				toServer.Close()
				return
			}
		}
	}()

	r := bufio.NewReader(fromServer)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			var msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Message string `json:"message"`
				} `json:"params"`
			}
			if json.Unmarshal(line, &msg) == nil && msg.Method == "elicitation/create" {
				answer, ok := fakeAnswers[msg.Params.Message]
				if !ok {
					answer = `{"action":"cancel"}`
				}
				fmt.Fprintf(toServer, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n", msg.ID, answer)
			} else if _, werr := toHost.Write(line); werr != nil {
				return werr
			}
		}
		if err != nil {
			return <-done
		}
	}
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
	err := Host(t.Context(), testServerCommand(t, "1"), &out)
	if !errors.Is(err, ErrToolFailed) {
		t.Errorf("Host returned %v, want an error wrapping ErrToolFailed", err)
	}
	var want strings.Builder
	for _, name := range []string{"choose_tags", "confirm_deploy", "pick_environment", "profile_form"} {
		fmt.Fprintf(&want, "→ %s\nerror: This host did not declare form elicitation, so %s cannot show its form. Run the server through `elicitray wrap`, which declares it.\n", name, name)
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
