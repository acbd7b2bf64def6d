//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A stream is one throughput kind: gen's arguments and the target ratio.
type stream struct {
	label  string
	kind   string
	size   int
	first  int64   // bytes of the first (calibrating) run
	target float64 // the least wrapped/plain throughput issue 12 asks
}

var streams = []stream{
	{"1 kB results", "result", 1024, 512 << 20, 1.0},
	{"1 kB notifications", "notification", 1024, 512 << 20, 1.0},
	{"16 MiB lines", "result", 16 << 20, 512 << 20, 0.8},
	{"64 MiB lines", "result", 64 << 20, 512 << 20, 0.8},
}

// throughput measures `gen | elicitray wrap -- cat | sink` against
// `gen | cat | sink`: separate processes on OS pipes, the wrapper in a
// host's stripped environment. The first plain run of each kind sets the
// bytes per run so that a plain run takes at least o.minRun; then plain and
// wrapped runs alternate, and the row is the median of the pairs' ratios
// and their spread. sink's bytes and CRC must be gen's.
func throughput(b bins, o options) []row {
	var rows []row
	for _, s := range streams {
		measure := "throughput, " + s.label + ", wrap -- cat vs cat"
		r, err := throughputOf(b, o, s)
		if err != nil {
			rows = append(rows, failed(measure, err))
			continue
		}
		r.measure = measure
		rows = append(rows, r)
	}
	return rows
}

func throughputOf(b bins, o options, s stream) (row, error) {
	home, err := os.MkdirTemp(b.dir, "home-")
	if err != nil {
		return row{}, err
	}
	plain := []string{"cat"}
	wrapped := []string{b.elicitray, "wrap", "--name", "bench", "--", "cat"}
	env := hostEnv(home)

	// The faster of two plain runs sets the size: one slowed by another
	// process's burst would make every run short.
	total := s.first
	var took time.Duration
	for range 2 {
		t, _, err := pipeline(b, plain, env, s, total)
		if err != nil {
			return row{}, fmt.Errorf("cat alone: %w", err)
		}
		if took == 0 || t < took {
			took = t
		}
	}
	if took < o.minRun {
		lines := int64(float64(total)*o.minRun.Seconds()/took.Seconds())/int64(s.size) + 1
		total = lines * int64(s.size)
	}
	var ratios, cpus, plainMBs, wrapMBs []float64
	for range o.pairs {
		tp, cp, err := pipeline(b, plain, env, s, total)
		if err != nil {
			return row{}, fmt.Errorf("cat alone: %w", err)
		}
		tw, cw, err := pipeline(b, wrapped, env, s, total)
		if err != nil {
			return row{}, fmt.Errorf("elicitray wrap -- cat: %w", err)
		}
		ratios = append(ratios, tp.Seconds()/tw.Seconds())
		cpus = append(cpus, cw.Seconds()/cp.Seconds())
		plainMBs = append(plainMBs, float64(total)/tp.Seconds()/1e6)
		wrapMBs = append(wrapMBs, float64(total)/tw.Seconds()/1e6)
	}
	ratio := median(ratios)
	return row{
		baseline:  fmt.Sprintf("%.0f MB/s", median(plainMBs)),
		elicitray: fmt.Sprintf("%.0f MB/s", median(wrapMBs)),
		ratio: fmt.Sprintf("%.2f× (%.2f–%.2f over %d pairs, %s a run); CPU %.1f× cat's",
			ratio, slices.Min(ratios), slices.Max(ratios), len(ratios), sizeOf(total), median(cpus)),
		target: fmt.Sprintf("≥ %.1f×: %s", s.target, yes(ratio >= s.target)),
	}, nil
}

// pipeline runs gen | mid | sink once, with OS pipes between the three
// processes, and returns the time from sink's first byte to its end and the
// CPU time mid used (user and system, its waited-for children's included:
// the wrapper's cat). The bytes and CRC sink read must be those gen wrote.
func pipeline(b bins, mid, env []string, s stream, total int64) (time.Duration, time.Duration, error) {
	genCmd := exec.Command(b.gen, "-kind", s.kind, "-size", strconv.Itoa(s.size), "-bytes", strconv.FormatInt(total, 10))
	midCmd := exec.Command(mid[0], mid[1:]...)
	midCmd.Env = env
	sinkCmd := exec.Command(b.sink)
	took, err := runPipeline(genCmd, midCmd, sinkCmd)
	if err != nil {
		return 0, 0, err
	}
	var cpu time.Duration
	if ru, ok := midCmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		cpu = time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
	}
	return took, max(cpu, time.Microsecond), nil
}

// runPipeline starts gen | mid | sink on OS pipes and waits for all three;
// it checks sink's count and CRC against gen's and returns sink's time.
func runPipeline(gen, mid, sink *exec.Cmd) (time.Duration, error) {
	r1, w1, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	r2, w2, err := os.Pipe()
	if err != nil {
		r1.Close()
		w1.Close()
		return 0, err
	}
	var genErr, midErr, sinkOut, sinkErr bytes.Buffer
	gen.Stdout, gen.Stderr = w1, &genErr
	mid.Stdin, mid.Stdout, mid.Stderr = r1, w2, &midErr
	sink.Stdin, sink.Stdout, sink.Stderr = r2, &sinkOut, &sinkErr
	var started []*exec.Cmd
	for _, c := range []*exec.Cmd{sink, mid, gen} {
		if err := c.Start(); err != nil {
			break
		}
		started = append(started, c)
	}
	for _, f := range []*os.File{r1, w1, r2, w2} {
		f.Close()
	}
	var errs []string
	if len(started) < 3 {
		errs = append(errs, "a process did not start")
	}
	for _, c := range started {
		if err := c.Wait(); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", c.Args[0], err))
		}
	}
	if len(errs) > 0 {
		return 0, fmt.Errorf("%s (gen: %s; relay: %s; sink: %s)", strings.Join(errs, "; "),
			tail(genErr.String()), tail(midErr.String()), tail(sinkErr.String()))
	}
	gf := strings.Fields(genErr.String())
	sf := strings.Fields(sinkOut.String())
	if len(gf) < 2 || len(sf) < 3 {
		return 0, fmt.Errorf("gen said %q, sink said %q", genErr.String(), sinkOut.String())
	}
	if gf[0] != sf[0] || gf[1] != sf[1] {
		return 0, fmt.Errorf("the bytes out are not the bytes in: gen wrote %s bytes (CRC-32C %s), sink read %s (%s)", gf[0], gf[1], sf[0], sf[1])
	}
	ns, err := strconv.ParseInt(sf[2], 10, 64)
	if err != nil || ns <= 0 {
		return 0, fmt.Errorf("sink's time %q", sf[2])
	}
	return time.Duration(ns), nil
}

// tail is the end of a process's stderr, for an error.
func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 300 {
		s = "…" + s[len(s)-300:]
	}
	if s == "" {
		return "nothing"
	}
	return s
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

// sizeOf is n bytes for people: 1.2 GiB, 64 MiB.
func sizeOf(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	default:
		return fmt.Sprintf("%d kB", n/1000)
	}
}
