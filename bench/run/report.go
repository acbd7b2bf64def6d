//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// machine is what a table was measured on.
type machine struct {
	cpu, kernel, goVersion, commit, date string
	cores                                int
	took                                 time.Duration
	loadBefore, loadAfter                string // /proc/loadavg's 1-minute average
}

func describeMachine(root string) machine {
	m := machine{cores: runtime.NumCPU(), date: time.Now().UTC().Format("2006-01-02 15:04 UTC"), cpu: "unknown", kernel: "unknown"}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "model name"); ok {
				m.cpu = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.kernel = "Linux " + strings.TrimSpace(string(b))
	}
	if out, err := exec.Command("go", "env", "GOVERSION").Output(); err == nil {
		m.goVersion = strings.TrimSpace(string(out))
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		out, _ := cmd.Output()
		return strings.TrimSpace(string(out))
	}
	m.commit = git("rev-parse", "--short=12", "HEAD")
	if m.commit == "" {
		m.commit = "commit unknown"
	} else {
		m.commit = "commit " + m.commit
		if br := git("rev-parse", "--abbrev-ref", "HEAD"); br != "" && br != "HEAD" {
			m.commit += " on " + br
		}
		if s := git("log", "-1", "--format=%s"); s != "" {
			m.commit += ", “" + s + "”"
		}
		if git("status", "--porcelain", "--untracked-files=no") != "" {
			m.commit += ", with uncommitted changes"
		}
	}
	return m
}

// loadAverage is the machine's load over the last minute: other work
// running meanwhile moves every number.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "unknown"
}

// render is the table in markdown, the machine under it.
func render(rows []row, m machine) string {
	var b bytes.Buffer
	b.WriteString("| measure | baseline | elicitray | ratio | target: met? |\n|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", oneLine(r.measure), oneLine(r.baseline), oneLine(r.elicitray), oneLine(r.ratio), oneLine(r.target))
	}
	fmt.Fprintf(&b, "\nMeasured %s on %s (%d cores), %s, %s; %s; the run took %v; load average %s at its start, %s at its end.\n",
		m.date, m.cpu, m.cores, m.kernel, m.goVersion, m.commit, m.took, m.loadBefore, m.loadAfter)
	return b.String()
}

// The markers in bench/README.md between which the last table goes.
const (
	tableStart = "<!-- make bench: table -->"
	tableEnd   = "<!-- make bench: end of table -->"
)

// writeReadme puts table between the markers of the markdown file path.
func writeReadme(path, table string) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	s := string(old)
	i, j := strings.Index(s, tableStart), strings.Index(s, tableEnd)
	if i < 0 || j < i {
		return fmt.Errorf("%s has no %q … %q markers to put the table between", path, tableStart, tableEnd)
	}
	s = s[:i+len(tableStart)] + "\n" + table + s[j:]
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
