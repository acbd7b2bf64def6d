//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPipelineCatchesChangedBytes: a relay that passes on every byte is
// timed; one that changes a byte, or drops the last line, is a failed row,
// not a fast one.
func TestPipelineCatchesChangedBytes(t *testing.T) {
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", dir+"/", "../gen", "../sink")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building gen and sink: %v\n%s", err, out)
	}
	b := bins{dir: dir, gen: filepath.Join(dir, "gen"), sink: filepath.Join(dir, "sink")}
	s := stream{kind: "notification", size: 1024}
	for _, tt := range []struct {
		name    string
		mid     []string
		wantErr string
	}{
		{"cat", []string{"cat"}, ""},
		{"a byte changed", []string{"tr", "q", "Q"}, "the bytes out are not the bytes in"},
		{"the last line dropped", []string{"head", "-n", "-1"}, "the bytes out are not the bytes in"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			took, cpu, err := pipeline(b, tt.mid, os.Environ(), s, 1<<20)
			if tt.wantErr == "" {
				if err != nil || took <= 0 || cpu <= 0 {
					t.Fatalf("pipeline through %v: took %v, CPU %v, error %v; want a time and no error", tt.mid, took, cpu, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("pipeline through %v: error %v, want one saying %q", tt.mid, err, tt.wantErr)
			}
		})
	}
}

// TestParseBench reads the history rows from go test -bench output as it
// prints them.
func TestParseBench(t *testing.T) {
	out := []byte(`goos: linux
goarch: amd64
pkg: github.com/elicitray/elicitray/history
cpu: AMD EPYC
BenchmarkFileSize-2          	       1	      1753 ns/op	    163527 bulk-records/s	       456.0 bytes/record	   1000000 records
BenchmarkFirstPage-2         	       1	   6215633 ns/op	         0.6049 ms/first	         0.5599 ms/query	       200.0 records
BenchmarkTextSearchNoMatch   	       1	1811541263 ns/op	       719.4 ms/first	       547.3 ms/query	         0 records
PASS
`)
	want := map[string]map[string]float64{
		"FileSize":          {"ns/op": 1753, "bulk-records/s": 163527, "bytes/record": 456, "records": 1e6},
		"FirstPage":         {"ns/op": 6215633, "ms/first": 0.6049, "ms/query": 0.5599, "records": 200},
		"TextSearchNoMatch": {"ns/op": 1811541263, "ms/first": 719.4, "ms/query": 547.3, "records": 0},
	}
	if diff := cmp.Diff(want, parseBench(out)); diff != "" {
		t.Errorf("parseBench mismatch (-want +got):\n%s", diff)
	}
}

// TestWriteReadme: the table replaces the last one between the markers and
// nothing else; a README without the markers is an error, left as it was.
func TestWriteReadme(t *testing.T) {
	path := filepath.Join(t.TempDir(), "README.md")
	before := "# Benchmarks\n\nprose\n\n" + tableStart + "\n| old |\n" + tableEnd + "\n\nafter\n"
	if err := os.WriteFile(path, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeReadme(path, "| new |\n"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := "# Benchmarks\n\nprose\n\n" + tableStart + "\n| new |\n" + tableEnd + "\n\nafter\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("README mismatch (-want +got):\n%s", diff)
	}

	plain := filepath.Join(t.TempDir(), "README.md")
	os.WriteFile(plain, []byte("no markers\n"), 0o644)
	if err := writeReadme(plain, "| new |\n"); err == nil || !strings.Contains(err.Error(), "markers") {
		t.Errorf("writeReadme into a file without markers: %v, want an error naming the markers", err)
	}
	if got, _ := os.ReadFile(plain); string(got) != "no markers\n" {
		t.Errorf("the file without markers became %q", got)
	}
}
