//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// procStat is what /proc says of one process at one moment.
type procStat struct {
	pid      int
	switches int64 // voluntary + nonvoluntary context switches, over all its threads
	rssKB    int64 // VmRSS
	anonKB   int64 // RssAnon
	threads  int
	ticks    int64 // utime + stime, in clock ticks
}

// clockTicks is USER_HZ, which /proc/PID/stat counts CPU time in: 100 on
// every Linux architecture Go runs on.
const clockTicks = 100

func readProc(pid int) (procStat, error) {
	s := procStat{pid: pid}
	dir := fmt.Sprintf("/proc/%d", pid)
	status, err := os.ReadFile(dir + "/status")
	if err != nil {
		return s, err
	}
	s.rssKB = statusField(status, "VmRSS:")
	s.anonKB = statusField(status, "RssAnon:")
	s.threads = int(statusField(status, "Threads:"))
	tasks, _ := filepath.Glob(dir + "/task/*/status")
	for _, t := range tasks {
		ts, err := os.ReadFile(t)
		if err != nil {
			continue // the thread ended meanwhile
		}
		s.switches += statusField(ts, "voluntary_ctxt_switches:") + statusField(ts, "nonvoluntary_ctxt_switches:")
	}
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return s, err
	}
	// The fields after the command's closing parenthesis: state is the
	// first (field 3), utime and stime fields 14 and 15.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 {
		f := strings.Fields(string(stat[i+1:]))
		if len(f) > 12 {
			u, _ := strconv.ParseInt(f[11], 10, 64)
			st, _ := strconv.ParseInt(f[12], 10, 64)
			s.ticks = u + st
		}
	}
	return s, nil
}

// statusField is the number after key in a /proc status file.
func statusField(status []byte, key string) int64 {
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n
			}
		}
	}
	return 0
}

// parents maps every process's pid to its parent's.
func parents() map[int]int {
	m := map[int]int{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if i := bytes.LastIndexByte(b, ')'); i >= 0 {
			if f := strings.Fields(string(b[i+1:])); len(f) > 1 {
				m[pid], _ = strconv.Atoi(f[1])
			}
		}
	}
	return m
}

// tree is pid and its descendants.
func tree(pid int) []int {
	children := map[int][]int{}
	for p, pp := range parents() {
		children[pp] = append(children[pp], p)
	}
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// marked lists the processes whose environment holds entry (e.g.
// ELICITRAY_HOME=…): everything a run started in one home, however
// detached.
func marked(entry string) []int {
	var out []int
	envs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range envs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, e := range bytes.Split(b, []byte{0}) {
			if string(e) == entry {
				pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
				if pid != os.Getpid() {
					out = append(out, pid)
				}
				break
			}
		}
	}
	return out
}
