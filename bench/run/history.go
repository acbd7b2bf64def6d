//go:build linux

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// historyBench runs history's own benchmarks (`make bench-history`: a
// history of 1,000,000 records, or ELICITRAY_BENCH_RECORDS, built once in a
// temporary directory) that issue 12 holds to a target, and reads their
// metrics: the first page, the server filter, free-text search with no
// match, and bytes per record on disk.
//
// The first page and the server filter stay under 1 ms, free-text search
// with no match comes down to 100 ms, and bytes per record stay within
// 5 % of the 442 they took before records were sealed (issue 29; 16 of
// the bytes are the seal).
func historyBench(root string) []row {
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", "^Benchmark(FileSize|FirstPage|ServerFilter|TextSearchNoMatch)$",
		"-benchtime", "1x", "-timeout", "30m", "./history/")
	cmd.Dir = root
	cmd.Env = os.Environ()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	metrics := parseBench(out)
	records := "1,000,000"
	if n, err := strconv.Atoi(os.Getenv("ELICITRAY_BENCH_RECORDS")); err == nil && n > 0 {
		records = commas(n)
	}
	if err != nil && len(metrics) == 0 {
		return []row{failed("history at "+records+" records", fmt.Errorf("go test -bench ./history/: %w (%s)", err, tail(string(out)+stderr.String())))}
	}
	var rows []row
	for _, m := range []struct {
		bench, unit, label, target string
		limit                      float64
	}{
		{"FirstPage", "ms/query", "first page", "< 1 ms", 1},
		{"ServerFilter", "ms/query", "server filter", "< 1 ms", 1},
		{"TextSearchNoMatch", "ms/query", "free-text search, no match", "≤ 100 ms", 100},
		{"FileSize", "bytes/record", "bytes per record on disk", "≤ 5 % over 442 B", 442 * 1.05},
	} {
		measure := fmt.Sprintf("history at %s records: %s", records, m.label)
		v, ok := metrics[m.bench][m.unit]
		if !ok {
			rows = append(rows, failed(measure, fmt.Errorf("Benchmark%s reported no %s (%s)", m.bench, m.unit, tail(string(out)+stderr.String()))))
			continue
		}
		cell := fmt.Sprintf("%.3g %s", v, strings.TrimSuffix(m.unit, "/query"))
		if m.unit == "bytes/record" {
			cell = fmt.Sprintf("%.0f B/record", v)
		}
		var met bool
		switch m.bench {
		case "FirstPage", "ServerFilter":
			met = v < m.limit
		default:
			met = v <= m.limit
		}
		ratio := "—"
		if first, ok := metrics[m.bench]["ms/first"]; ok {
			ratio = fmt.Sprintf("median of runs; first %.3g ms", first)
		}
		rows = append(rows, row{measure: measure, baseline: "—", elicitray: cell, ratio: ratio, target: m.target + ": " + yes(met)})
	}
	return rows
}

// parseBench reads `go test -bench` output: benchmark name (without the
// Benchmark prefix and the -N suffix) → unit → value.
func parseBench(out []byte) map[string]map[string]float64 {
	m := map[string]map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := strings.TrimPrefix(f[0], "Benchmark")
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			name = name[:i]
		}
		m[name] = map[string]float64{}
		for i := 2; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				m[name][f[i+1]] = v
			}
		}
	}
	return m
}

// commas is n with thousands separated: 1,000,000.
func commas(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
