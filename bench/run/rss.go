//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// peakRSS measures the wrapper's peak RSS while it relays one line of 64 MiB
// (and one of 16 MiB) from the host to cat and back, as /usr/bin/time -f %M
// reports it (the largest resident set of the wrapper or of a child it
// waited for: cat's is a few MB), against cat's alone. Issue 12's target is
// at most 1.5 times the 64 MiB line; the 16 MiB row shows how much of the
// peak is the process itself (about 19 MB idle), with no target.
func peakRSS(b bins) []row {
	var rows []row
	for _, size := range []int{64 << 20, 16 << 20} {
		measure := fmt.Sprintf("peak RSS relaying one %d MiB line", size>>20)
		r, err := peakRSSOf(b, size)
		if size != 64<<20 {
			r.target = "— (the target is the 64 MiB line's)"
		}
		if err != nil {
			rows = append(rows, failed(measure, err))
			continue
		}
		r.measure = measure
		rows = append(rows, r)
	}
	return rows
}

func peakRSSOf(b bins, size int) (row, error) {
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		return row{}, fmt.Errorf("/usr/bin/time is missing (Debian package time): %w", err)
	}
	home, err := os.MkdirTemp(b.dir, "home-")
	if err != nil {
		return row{}, err
	}
	s := stream{kind: "result", size: size}
	measure := func(name string, cmd ...string) (int64, error) {
		out := filepath.Join(home, name+".rss")
		mid := exec.Command("/usr/bin/time", append([]string{"-f", "%M", "-o", out}, cmd...)...)
		mid.Env = hostEnv(home)
		gen := exec.Command(b.gen, "-kind", s.kind, "-size", strconv.Itoa(size), "-bytes", strconv.Itoa(size))
		if _, err := runPipeline(gen, mid, exec.Command(b.sink)); err != nil {
			return 0, err
		}
		text, err := os.ReadFile(out)
		if err != nil {
			return 0, err
		}
		fields := strings.Fields(string(text))
		if len(fields) == 0 {
			return 0, fmt.Errorf("/usr/bin/time wrote %q", text)
		}
		kb, err := strconv.ParseInt(fields[len(fields)-1], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/usr/bin/time wrote %q", text)
		}
		return kb << 10, nil
	}
	plain, err := measure("cat", "cat")
	if err != nil {
		return row{}, fmt.Errorf("cat alone: %w", err)
	}
	wrapped, err := measure("wrap", b.elicitray, "wrap", "--name", "bench", "--", "cat")
	if err != nil {
		return row{}, fmt.Errorf("elicitray wrap -- cat: %w", err)
	}
	times := float64(wrapped) / float64(size)
	return row{
		baseline:  fmt.Sprintf("%.1f MB (cat)", float64(plain)/1e6),
		elicitray: fmt.Sprintf("%.0f MB", float64(wrapped)/1e6),
		ratio:     fmt.Sprintf("%.2f× the line", times),
		target:    "≤ 1.5× the line: " + yes(times <= 1.5),
	}, nil
}
