//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app"
	"github.com/elicitray/elicitray/app/config"
	"github.com/elicitray/elicitray/app/internal/testkit"
)

// The official MCP conformance suite and the Node it needs (22 or newer),
// pinned in testdata/npm and installed by `make deps-npm`.
const (
	conformanceNode  = "../../testdata/npm/node_modules/.bin/node"
	conformanceSuite = "../../testdata/npm/node_modules/@modelcontextprotocol/conformance/dist/index.js"
)

// conformanceMustPass are the suite's client scenarios about elicitation,
// which elicitray exists for: `make test` runs them and they must pass.
var conformanceMustPass = []string{"elicitation-sep1034-client-defaults", "sep-2322-client-request-state"}

// conformanceRule is the config.toml of a conformance run: nobody watches
// the desktop, so the conformance server's prompts follow the rule for
// unattended runs.
const conformanceRule = "[servers." + app.ConformanceServerName + "]\nrule = \"" + config.RuleAcceptDefaultsOrCancel + "\"\n"

// TestConformance runs client scenarios of @modelcontextprotocol/conformance
// with elicitray as the client's elicitation layer: the suite starts
// `elicitray conformance-host URL`, a plain mcp-go host whose server is the
// real `elicitray wrap --url URL` in front of the scenario's server, and
// the real hub answers the elicitations by the conformance server's rule
// (accept-defaults-or-cancel). The host answers none itself, so a pass is
// elicitray's: the history must hold the rule's decisions and no one else's.
//
// By default it runs conformanceMustPass, which must pass. With
// ELICITRAY_CONFORMANCE=all (`make conformance`) it runs every client
// scenario the suite lists, or with a comma-separated list those, and
// still requires only those two; with ELICITRAY_CONFORMANCE_REPORT=FILE it
// writes the results as a Markdown table (docs/how-it-works.md's), and with
// ELICITRAY_CONFORMANCE_RESULTS=DIR it keeps each scenario's checks.json,
// the client's stdout and stderr, and the suite's output (suite.log) in
// DIR/SCENARIO.
func TestConformance(t *testing.T) {
	node, suite := conformanceTools(t)
	scenarios := conformanceMustPass
	all, versions := listClientScenarios(t, node, suite)
	switch want := os.Getenv("ELICITRAY_CONFORMANCE"); want {
	case "":
	case "all":
		scenarios = all
	default:
		scenarios = strings.Split(want, ",")
		for _, s := range scenarios {
			if !slices.Contains(all, s) {
				t.Fatalf("ELICITRAY_CONFORMANCE names %q, which is not one of the suite's client scenarios: %s", s, strings.Join(all, ", "))
			}
		}
	}
	d := newParallelDesktop(t)
	d.config(conformanceRule)
	out := os.Getenv("ELICITRAY_CONFORMANCE_RESULTS")
	if out == "" {
		out = t.TempDir()
	}

	var rows []conformanceRow
	for _, scenario := range scenarios {
		mustPass := slices.Contains(conformanceMustPass, scenario)
		before := len(d.history())
		dir := filepath.Join(out, strings.ReplaceAll(scenario, "/", "_"))
		if err := os.RemoveAll(dir); err != nil { // an earlier run's
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		log, suiteErr := runScenario(t, d.env, node, suite, scenario, dir)
		if err := os.WriteFile(filepath.Join(dir, "suite.log"), []byte(log), 0o644); err != nil {
			t.Fatal(err)
		}
		row := conformanceRow{Scenario: scenario, Version: versions[scenario]}
		checks, err := readChecks(dir)
		if err != nil {
			row.Note = fmt.Sprintf("no results: %v", err)
		} else {
			row.count(checks)
		}
		rows = append(rows, row)
		if !mustPass {
			continue
		}
		t.Run(scenario, func(t *testing.T) {
			if suiteErr != nil || err != nil || row.Failed > 0 || row.Warnings > 0 {
				t.Fatalf("conformance scenario %s: %s (%v)\n%s%s", scenario, row.result(), suiteErr, log, d.diagnostics())
			}
			// elicitray answered, by the rule: not the host, not a person.
			recs := d.history()
			mine := recs[:len(recs)-before]
			if len(mine) == 0 {
				t.Fatalf("the scenario passed, but elicitray recorded no decision: who answered?%s", d.diagnostics())
			}
			for _, r := range mine {
				if r.Server != app.ConformanceServerName || r.DecidedBy != "rule" {
					t.Errorf("decision %+v: want server %q decided by the rule", decisionOf(r), app.ConformanceServerName)
				}
			}
		})
	}
	if path := os.Getenv("ELICITRAY_CONFORMANCE_REPORT"); path != "" {
		if err := os.WriteFile(path, []byte(conformanceTable(rows)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// scenarioWait bounds one scenario's run: the suite's 30 s for the client,
// then its checks. The host ends itself before that (conformance-host
// --timeout); a run that still goes on is ended with everything it started.
const scenarioWait = 2 * time.Minute

// runScenario runs the suite's client scenario with conformance-host as
// the client, in env (which the suite passes on to the client), writing
// results under dir, and returns what it printed and its exit error. The suite runs in a process group of its own, which is
// killed if it outlives scenarioWait: the suite waits for the output of
// every process the client left, not just the client.
func runScenario(t *testing.T, env []string, node, suite, scenario, dir string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), scenarioWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, suite, "client",
		"--command", testkit.Binary(t)+" conformance-host",
		"--scenario", scenario, "-o", dir)
	cmd.Env = env
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if cmd.Process != nil {
		// What the client left behind (a wrapper, say) ends with the run.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if ctx.Err() != nil {
		err = fmt.Errorf("the scenario did not end within %v: %w", scenarioWait, err)
	}
	return log.String(), err
}

// conformanceTools returns the pinned Node and the suite's entry point;
// without them the test skips, except in CI, where a skip would hide a
// broken set-up.
func conformanceTools(t *testing.T) (node, suite string) {
	t.Helper()
	needDisplay(t)
	var paths []string
	for _, p := range []string{conformanceNode, conformanceSuite} {
		abs, err := filepath.Abs(p)
		if err == nil {
			_, err = os.Stat(abs)
		}
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("the conformance suite is not installed (%v): run make deps-npm", err)
			}
			t.Skipf("the conformance suite is not installed (%v): run make deps-npm", err)
		}
		paths = append(paths, abs)
	}
	return paths[0], paths[1]
}

// listClientScenarios asks the suite for its client scenarios, in its
// order, and the spec versions each applies to ("2025-11-25,2026-07-28",
// "extension").
func listClientScenarios(t *testing.T, node, suite string) ([]string, map[string]string) {
	t.Helper()
	out, err := exec.Command(node, suite, "list").Output()
	if err != nil {
		t.Fatalf("conformance list: %v", err)
	}
	var names []string
	versions := map[string]string{}
	in := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "Client scenarios"):
			in = true
		case !strings.HasPrefix(line, "  - "):
			in = in && strings.TrimSpace(line) == ""
		case in:
			name, v, _ := strings.Cut(strings.TrimPrefix(line, "  - "), " ")
			names = append(names, name)
			versions[name] = strings.Trim(v, "[]")
		}
	}
	if len(names) == 0 {
		t.Fatalf("conformance list named no client scenario:\n%s", out)
	}
	return names, versions
}

// conformanceCheck is one check of a scenario's checks.json.
type conformanceCheck struct {
	ID           string `json:"id"`
	Status       string `json:"status"` // SUCCESS, FAILURE, WARNING, INFO, SKIPPED
	ErrorMessage string `json:"errorMessage"`
}

// readChecks reads the checks.json the suite wrote under dir (in a folder
// named after the scenario and the time).
func readChecks(dir string) ([]conformanceCheck, error) {
	var found string
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err == nil && e.Name() == "checks.json" {
			found = path
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if found == "" {
		return nil, fmt.Errorf("the suite wrote no checks.json")
	}
	b, err := os.ReadFile(found)
	if err != nil {
		return nil, err
	}
	var checks []conformanceCheck
	return checks, json.Unmarshal(b, &checks)
}

// conformanceRow is one scenario's line of the results table.
type conformanceRow struct {
	Scenario, Version                 string
	Passed, Failed, Warnings, Skipped int
	// Note is the first failure's (or warning's, else skip's) check and
	// message, or why there are no results.
	Note       string
	noteStatus string
}

// count tallies checks as the suite does: a scenario passes when no check
// failed and none warned.
func (r *conformanceRow) count(checks []conformanceCheck) {
	for _, c := range checks {
		switch c.Status {
		case "SUCCESS":
			r.Passed++
		case "FAILURE":
			r.Failed++
		case "WARNING":
			r.Warnings++
		case "SKIPPED":
			r.Skipped++
		default:
			continue
		}
		if c.Status == "FAILURE" || c.Status == "WARNING" || c.Status == "SKIPPED" {
			r.note(c)
		}
	}
}

// note keeps c as the row's note, unless it has one of more weight: a
// failure or warning wins over a skip.
func (r *conformanceRow) note(c conformanceCheck) {
	if r.Note != "" && (c.Status == "SKIPPED" || r.noteStatus != "SKIPPED") {
		return
	}
	r.Note, r.noteStatus = c.ID, c.Status
	if c.ErrorMessage != "" {
		r.Note += ": " + c.ErrorMessage
	}
}

func (r conformanceRow) result() string {
	switch {
	case r.Passed+r.Failed+r.Warnings == 0 && r.Skipped > 0:
		return "skipped"
	case r.Passed+r.Failed+r.Warnings == 0:
		return "no result"
	case r.Failed > 0 || r.Warnings > 0:
		return "fail"
	}
	return "pass"
}

// conformanceTable is rows as docs/how-it-works.md's Markdown table.
func conformanceTable(rows []conformanceRow) string {
	var b strings.Builder
	b.WriteString("| scenario | spec | result | checks passed | failed | warnings | first failure (or skip) |\n|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		note := strings.Join(strings.Fields(r.Note), " ")
		if r.result() == "pass" {
			note = "" // a pass's skipped checks are of another era (initialize at 2026-07-28)
		}
		if r := []rune(note); len(r) > 160 {
			note = string(r[:157]) + "…"
		}
		note = strings.ReplaceAll(note, "|", "\\|")
		fmt.Fprintf(&b, "| `%s` | %s | %s | %d | %d | %d | %s |\n", r.Scenario, r.Version, r.result(), r.Passed, r.Failed, r.Warnings, note)
	}
	return b.String()
}
