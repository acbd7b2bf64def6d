//go:build linux

// Command run is `make bench`: every measure of issue 12 in one run, through
// the built binary and its command line only, printed as one markdown table
// (baseline, elicitray, their ratio, the target and whether it is met) and
// written into bench/README.md with the machine it ran on. It runs on
// Linux only (procfs, pidfd, rusage, Xvfb): every file says so in its
// build constraint.
//
//	go run ./bench/run [-readme bench/README.md] [-only throughput,rss,remote,roundtrip,window,idle,history] [-elicitray BINARY]
//
// It builds elicitray and its helpers (bench/gen, bench/sink, bench/relay,
// bench/server, bench/fynewin) once into a temporary directory, then
// measures, in order: whole-process relay throughput (throughput.go), the
// wrapper's peak RSS relaying one big line (rss.go), the time and peak RSS
// of big SSE events from a remote server (remote.go), the added round trip
// (roundtrip.go), the time from a server's elicitation/create to the
// window's MapNotify, against a bare Fyne window's, and the idle hub and
// wrapper (window.go, idle.go), and the history benchmarks
// (history.go). A measure that fails says why in its row and the others
// still run. The window and idle measures need an X server: `make bench`
// runs this under Xvfb with a private session bus, like `make test`.
// ELICITRAY_BENCH_DEBUG=1 prints every X map event and prompt time on
// stderr.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// row is one line of the table. target says what issue 12 asks and whether
// this run meets it ("≥ 1.0×: no"); ratio is elicitray against baseline.
type row struct {
	measure, baseline, elicitray, ratio, target string
}

// failed is the row of a measure that could not be taken.
func failed(measure string, err error) row {
	return row{measure: measure, baseline: "—", elicitray: "failed: " + oneLine(err.Error()), ratio: "—", target: "—"}
}

// oneLine keeps a table cell on one line.
func oneLine(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\n", " / ")
	return strings.ReplaceAll(s, "|", "\\|")
}

// bins are the programs a run measures, built once.
type bins struct {
	dir                                 string
	elicitray, gen, sink, relay, server string
	fynewin                             string // the bare Fyne window (window.go)
}

// options are the knobs of a run.
type options struct {
	pairs      int           // interleaved plain/wrapped pairs per throughput kind
	minRun     time.Duration // the least a plain throughput run takes
	rtRounds   int           // round-trip rounds (each config, each method, per round)
	rtPerRound int           // requests per config, method and round
	windowRuns int           // cold/warm window runs
	idleFor    time.Duration // the idle window
	settle     time.Duration // wait after the last prompt before the idle window
	idleSettle time.Duration // wait after a prompt opens before watching it idle
}

func main() {
	readme := flag.String("readme", "", "write the table and the machine into this markdown file, between its table markers")
	prebuilt := flag.String("elicitray", "", "measure this elicitray binary instead of building the checkout's (e.g. another branch's build)")
	only := flag.String("only", "", "comma-separated measures to run (throughput, rss, remote, roundtrip, window, idle, history); empty: all")
	var o options
	flag.IntVar(&o.pairs, "pairs", 9, "interleaved plain/wrapped pairs per throughput kind")
	flag.DurationVar(&o.minRun, "min-run", 1200*time.Millisecond, "the least a plain throughput run takes (more bytes otherwise)")
	flag.IntVar(&o.rtRounds, "rt-rounds", 40, "round-trip rounds, each with three fresh sessions, configs and methods interleaved")
	flag.IntVar(&o.rtPerRound, "rt-requests", 250, "round-trip requests per config, method and round (and a fifth as many to warm up)")
	flag.IntVar(&o.windowRuns, "window-runs", 5, "window latency runs (each: a cold prompt, then a warm one)")
	flag.DurationVar(&o.idleFor, "idle", 10*time.Second, "how long the idle hub and wrapper are watched")
	flag.DurationVar(&o.idleSettle, "open-settle", 2*time.Second, "how long an open prompt is left before it is watched idle")
	flag.DurationVar(&o.settle, "settle", 17*time.Second, "how long after its last prompt the hub is left before the idle window: past the window process's 10 s linger and the few seconds after it in which Go returns its memory")
	flag.Parse()

	want := map[string]bool{}
	for _, m := range strings.Split(*only, ",") {
		if m = strings.TrimSpace(m); m != "" {
			want[m] = true
		}
	}
	run := func(name string) bool { return len(want) == 0 || want[name] }

	root, err := repoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	started, loadBefore := time.Now(), loadAverage()
	b, err := build(root, *prebuilt)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(b.dir)

	var rows []row
	add := func(rs ...row) {
		for _, r := range rs {
			fmt.Fprintf(os.Stderr, "bench: %s: %s | %s | %s | %s\n", r.measure, r.baseline, r.elicitray, r.ratio, r.target)
		}
		rows = append(rows, rs...)
	}
	measure := func(name string, on bool, f func() []row) {
		if !on {
			return
		}
		// One measure's crash is its row, and the others still run.
		defer func() {
			if p := recover(); p != nil {
				add(failed(name, fmt.Errorf("the harness crashed: %v", p)))
			}
		}()
		add(f()...)
	}
	measure("throughput", run("throughput"), func() []row { return throughput(b, o) })
	measure("rss", run("rss"), func() []row { return peakRSS(b) })
	measure("remote", run("remote"), func() []row { return remoteEvents(b) })
	measure("roundtrip", run("roundtrip"), func() []row { return roundTrip(b, o) })
	measure("window and idle", run("window") || run("idle"), func() []row {
		return windowAndIdle(b, o, run("window"), run("idle"))
	})
	measure("history", run("history"), func() []row { return historyBench(root) })

	m := describeMachine(root)
	m.took = time.Since(started).Round(time.Second)
	m.loadBefore, m.loadAfter = loadBefore, loadAverage()
	if *prebuilt != "" {
		m.commit = "the harness at " + m.commit + "; elicitray given as " + b.elicitray + ", not built"
	}
	table := render(rows, m)
	fmt.Print(table)
	if *readme != "" {
		if err := writeReadme(*readme, table); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "bench: the table is in %s\n", *readme)
	}
}

// repoRoot is the module's directory: go env GOMOD's.
func repoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("finding the module: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run make bench (or go run ./bench/run) inside the elicitray repository")
	}
	return filepath.Dir(mod), nil
}

// build compiles elicitray (unless prebuilt names a binary to measure) and
// the helpers into a new temporary directory.
func build(root, prebuilt string) (bins, error) {
	dir, err := os.MkdirTemp("", "elicitray-bench-")
	if err != nil {
		return bins{}, err
	}
	b := bins{
		dir:       dir,
		elicitray: filepath.Join(dir, "elicitray"),
		gen:       filepath.Join(dir, "gen"),
		sink:      filepath.Join(dir, "sink"),
		relay:     filepath.Join(dir, "relay"),
		server:    filepath.Join(dir, "server"),
		fynewin:   filepath.Join(dir, "fynewin"),
	}
	builds := [][]string{{"build", "-o", dir + "/", "./bench/gen", "./bench/sink", "./bench/relay", "./bench/server", "./bench/fynewin"}}
	if prebuilt == "" {
		builds = append(builds, []string{"build", "-o", b.elicitray, "."})
	} else if b.elicitray, err = filepath.Abs(prebuilt); err != nil {
		os.RemoveAll(dir)
		return bins{}, err
	}
	for _, args := range builds {
		cmd := exec.Command("go", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			os.RemoveAll(dir)
			return bins{}, fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, out)
		}
	}
	return b, nil
}

// hostEnv is the environment hosts give a server they start (DESIGN.md,
// "Hosts strip the environment"): HOME, LOGNAME, PATH, SHELL, TERM and
// USER, plus ELICITRAY_HOME so that the run has a home of its own.
func hostEnv(home string) []string {
	env := []string{"ELICITRAY_HOME=" + home}
	for _, k := range []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}
