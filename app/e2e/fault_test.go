//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/hubapi"
	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/elicitray/elicitray/app/journal"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/history"
)

// The fault suite (issue 10): real wrappers, a real hub, real servers, and
// real faults — kill -9, a locked history, a full disk, a planted link, a
// socket of another user. Each test asserts what every server received and
// that the history holds exactly one record per elicitation that matches it
// once the fault is gone (DESIGN.md: "A decision is durable before its
// answer leaves, or the user is told").

// faultServerEnv makes the test binary the fault server (see TestMain).
const faultServerEnv = "ELICITRAY_FAULT_SERVER"

// faultArgs are the arguments of the fault server's "ask" tool.
type faultArgs struct {
	N   int    `json:"n"`   // elicitations to send, one after another
	Tag string `json:"tag"` // their messages are "TAG #i"
}

// faultServe runs a go-sdk MCP server on stdin/stdout whose tool "ask"
// sends N elicitations one after another, reports progress after each, and
// returns what it received: one action per elicitation ("accept",
// "decline", "cancel", or "error: …"), as a JSON array.
func faultServe() int {
	s := mcp.NewServer(&mcp.Implementation{Name: "fault", Version: "1"}, nil)
	schema := map[string]any{"type": "object", "properties": map[string]any{"go": map[string]any{"type": "boolean", "default": true}}}
	mcp.AddTool(s, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, in faultArgs) (*mcp.CallToolResult, any, error) {
		got := make([]string, 0, in.N)
		for i := range in.N {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: fmt.Sprintf("%s #%d", in.Tag, i), RequestedSchema: schema})
			switch {
			case err != nil:
				got = append(got, "error: "+err.Error())
			default:
				got = append(got, res.Action)
			}
			if tok := req.Params.GetProgressToken(); tok != nil {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i + 1), Total: float64(in.N)})
			}
		}
		b, _ := json.Marshal(got)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// faultHost is one host session with `elicitray wrap --name NAME -- <the
// fault server>`, and the wrapper process behind it.
type faultHost struct {
	cs      *mcp.ClientSession
	wrapper *exec.Cmd
	// stdin is the wrapper's standard input: closing it is the host's EOF.
	stdin io.WriteCloser
	// answered counts the elicitations its server has had answered, from
	// the server's progress notifications.
	answered chan struct{}
}

// connectFault starts a host session with the fault server named name
// behind the real wrapper; env is the wrapper's environment (nil: the
// test's own).
func (d *testDesktop) connectFault(name string, env []string) *faultHost {
	return d.connectFaultCounting(name, env, make(chan struct{}, 100000))
}

// connectFaultCounting is connectFault with the progress of its server sent
// to answered.
func (d *testDesktop) connectFaultCounting(name string, env []string, answered chan struct{}) *faultHost {
	d.t.Helper()
	logPath := filepath.Join(d.t.TempDir(), "wrapper-"+name+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		d.t.Fatal(err)
	}
	d.logs = append(d.logs, logPath)
	cmd := exec.Command(testkit.Binary(d.t), "wrap", "--name", name, "--", os.Args[0])
	if env == nil {
		env = d.environ()
	}
	cmd.Env = append(slices.Clone(env), faultServerEnv+"=1")
	cmd.Stderr = logf
	fh := &faultHost{wrapper: cmd, answered: answered}
	host := mcp.NewClient(&mcp.Implementation{Name: "elicitray-fault-host", Version: "1.0.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			fh.answered <- struct{}{}
		},
	})
	// Pipes of the test's own rather than mcp.CommandTransport: the host's
	// EOF is closing stdin, and nothing else.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		d.t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		d.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		d.t.Fatal(err)
	}
	fh.stdin = stdin
	d.t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
		logf.Close()
	})
	cs, err := host.Connect(d.t.Context(), &mcp.IOTransport{Reader: stdout, Writer: stdin}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		d.t.Fatalf("connecting to elicitray wrap: %v%s", err, d.diagnostics())
	}
	fh.cs = cs
	return fh
}

// asked is what an ask's server received, one action per elicitation, or
// why the call failed.
type asked struct {
	actions []string
	err     error
}

// ask calls the fault server's "ask" in the background.
func (fh *faultHost) ask(t *testing.T, n int, tag string) <-chan asked {
	ch := make(chan asked, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "ask", Arguments: faultArgs{N: n, Tag: tag}}
		p.SetProgressToken(tag)
		res, err := fh.cs.CallTool(t.Context(), p)
		if err != nil {
			ch <- asked{err: fmt.Errorf("tools/call ask %s: %w", tag, err)}
			return
		}
		var got []string
		if len(res.Content) != 1 || json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &got) != nil {
			err = fmt.Errorf("ask %s returned %+v", tag, res.Content)
		}
		ch <- asked{got, err}
	}()
	return ch
}

// received waits for what an ask's server received.
func (d *testDesktop) received(ch <-chan asked) []string {
	d.t.Helper()
	select {
	case got := <-ch:
		if got.err != nil {
			d.t.Fatalf("%v%s", got.err, d.diagnostics())
		}
		return got.actions
	case <-time.After(5 * desktopWait):
		d.t.Fatalf("no tools/call result within %v%s", 5*desktopWait, d.diagnostics())
	}
	return nil
}

// status is `elicitray status`, which also makes the hub try to save what
// waits.
func (d *testDesktop) status() string {
	d.t.Helper()
	cmd := exec.Command(testkit.Binary(d.t), "status")
	cmd.Env = d.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		d.t.Fatalf("elicitray status: %v\n%s%s", err, out, d.diagnostics())
	}
	return string(out)
}

// waitFor polls cond until it holds; what says what is awaited.
func (d *testDesktop) waitFor(what string, cond func() bool) {
	d.t.Helper()
	deadline := time.Now().Add(desktopWait)
	for !cond() {
		if time.Now().After(deadline) {
			d.t.Fatalf("%s: not within %v%s", what, desktopWait, d.diagnostics())
		}
		time.Sleep(pollEvery)
	}
}

// waiting is how many prompts the running hub has queued.
func (d *testDesktop) waiting() int {
	cmd := exec.Command(testkit.Binary(d.t), "status")
	cmd.Env = d.env
	out, err := cmd.Output()
	if err != nil {
		return -1
	}
	for l := range strings.SplitSeq(string(out), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "Waiting" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return -1
}

// config writes the user's config.toml.
func (d *testDesktop) config(toml string) {
	d.t.Helper()
	if err := os.WriteFile(d.paths.Config, []byte(toml), 0o600); err != nil {
		d.t.Fatal(err)
	}
}

// matchHistory checks that history holds exactly one record per
// elicitation the servers received, with the action each received. got
// maps a message ("TAG #i") to the action its server received.
func (d *testDesktop) matchHistory(got map[string]string) []history.Record {
	d.t.Helper()
	recs := d.history("--limit", "1000000")
	kept := map[string]string{}
	var twice []string
	for _, r := range recs {
		if _, dup := kept[r.Message]; dup {
			twice = append(twice, r.Message)
		}
		kept[r.Message] = r.Action
	}
	if len(twice) > 0 {
		d.t.Errorf("%d elicitations recorded more than once, e.g. %q", len(twice), twice[0])
	}
	var missing, wrong []string
	for msg, action := range got {
		switch k, ok := kept[msg]; {
		case !ok:
			missing = append(missing, msg)
		case k != action:
			wrong = append(wrong, fmt.Sprintf("%s: server got %s, history says %s", msg, action, k))
		}
	}
	slices.Sort(missing)
	slices.Sort(wrong)
	if len(missing) > 0 || len(wrong) > 0 || len(recs) != len(got) {
		d.t.Errorf("history has %d records for %d elicitations; %d missing (e.g. %v); %d do not match what the server got (e.g. %v)",
			len(recs), len(got), len(missing), first(missing), len(wrong), first(wrong))
	}
	return recs
}

func first(s []string) []string { return s[:min(len(s), 3)] }

// TestFaultHubKilledWithPromptsWaiting: ten servers wait on prompts when the
// hub is killed (kill -9). Every server gets cancel, and history, once a
// hub runs again, holds ten records that say so — the wrappers spooled
// them, since no hub was left to tell.
func TestFaultHubKilledWithPromptsWaiting(t *testing.T) {
	d := newParallelDesktop(t)
	const n = 10
	var asks []<-chan asked
	for i := range n {
		fh := d.connectFault(fmt.Sprintf("srv%d", i), nil)
		asks = append(asks, fh.ask(t, 1, fmt.Sprintf("srv%d", i)))
	}
	d.waitFor("ten prompts queued in the hub", func() bool { return d.waiting() == n })
	_, pid := d.window()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for i, ch := range asks {
		actions := d.received(ch)
		if len(actions) != 1 || actions[0] != "cancel" {
			t.Errorf("server srv%d got %v after the hub was killed, want [cancel]", i, actions)
		}
		got[fmt.Sprintf("srv%d #0", i)] = "cancel"
	}
	// No hub runs: `history list` takes the spool in itself.
	recs := d.matchHistory(got)
	for _, r := range recs {
		if r.DecidedBy != "error" || !strings.Contains(r.Reason, hubapi.ErrHubGone.Error()) || r.Source != history.SourceWrapper {
			t.Errorf("record %q: decided by %s (%s), source %q; want error, the hub stopped, by the wrapper", r.Message, r.DecidedBy, r.Reason, r.Source)
		}
	}
	if n := journal.CountSpool(journal.SpoolDir(d.paths)); n != 0 {
		t.Errorf("%d records left in the spool after history took them", n)
	}
	// Taken twice, the spool adds nothing twice.
	d.matchHistory(got)
}

// TestFaultPeerGone: the server is killed (kill -9), or the host goes away,
// while a window is open. The window closes, and history keeps one cancel.
func TestFaultPeerGone(t *testing.T) {
	d := newParallelDesktop(t)
	for _, tt := range []struct {
		name  string
		fault func(fh *faultHost)
	}{
		{"server killed", func(fh *faultHost) {
			server := childOf(t, fh.wrapper.Process.Pid)
			if err := syscall.Kill(server, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		}},
		{"host EOF", func(fh *faultHost) { fh.stdin.Close() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := d.with(t)
			fh := d.connectFault(tt.name, nil)
			fh.ask(t, 1, tt.name)
			win, _ := d.window()
			tt.fault(fh)
			d.closed(win)
			var recs []history.Record
			d.waitFor("the decision recorded", func() bool {
				recs = nil
				for _, r := range d.history() {
					if r.Server == tt.name {
						recs = append(recs, r)
					}
				}
				return len(recs) > 0
			})
			if len(recs) != 1 || recs[0].Action != "cancel" {
				t.Errorf("history for %s: %+v, want one cancel", tt.name, recs)
			}
		})
	}
}

// childOf is the one child process of pid.
func childOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	if len(f) != 1 {
		t.Fatalf("process %d has children %v, want one (the server)", pid, f)
	}
	child, _ := strconv.Atoi(f[0])
	return child
}

// TestFaultHistoryLocked: another process holds history.db (a long `history
// export` without a hub, or any flock) when a server asks. The hub starts
// all the same, shows the prompt, and says why decisions wait; once the
// lock is gone they land in history, exactly once.
func TestFaultHistoryLocked(t *testing.T) {
	d := newParallelDesktop(t)
	_, release := testkit.HoldLock(t, d.paths.History)
	fh := d.connectFault("locked", nil)
	ask := fh.ask(t, 2, "locked")
	for range 2 {
		win, _ := d.window()
		d.answer(win, "Return") // accept the default
		d.closed(win)
	}
	if got := d.received(ask); !slices.Equal(got, []string{"accept", "accept"}) {
		t.Fatalf("with history locked, the server got %v, want two accepts", got)
	}
	if st := d.status(); !strings.Contains(st, "2 decisions waiting in the spool, not yet in history: the history file "+d.paths.History+" is in use by another process (pid ") {
		t.Errorf("status while the history is locked:\n%s", st)
	}
	// The lock goes mid-run; the next decision goes to history directly.
	release()
	d.status() // the hub tries again now
	ask = fh.ask(t, 1, "after")
	win, _ := d.window()
	d.answer(win, "Escape")
	if got := d.received(ask); !slices.Equal(got, []string{"cancel"}) {
		t.Fatalf("after the lock, the server got %v, want [cancel]", got)
	}
	if st := d.status(); strings.Contains(st, "History") {
		t.Errorf("status after the lock went still names a problem:\n%s", st)
	}
	d.matchHistory(map[string]string{"locked #0": "accept", "locked #1": "accept", "after #0": "cancel", "Deploy?": "accept"})
}

// newDesktopOnSmallDisk is a parallel desktop (newParallelDesktop) whose
// ELICITRAY_HOME is a 1 MiB tmpfs of its own: everything of elicitray's on
// it (run directory, history, spool, the hub's log). The file system is
// mounted first, so that it is unmounted after the desktop's processes are
// gone (cleanups run last first). Needs root.
func newDesktopOnSmallDisk(t *testing.T) (*testDesktop, string) {
	t.Helper()
	full := smallFileSystem(t)
	d := newParallelDesktop(t)
	d.home, d.mark = full, "ELICITRAY_HOME="+full
	d.env = append(slices.Clone(d.env), d.mark)
	d.hostEnv = d.env
	d.paths = paths.Under(full)
	return d, full
}

// TestFaultDiskFull: the disk holding history fills up before the hub
// starts, and again while it runs with 300 prompts answered by a rule.
// Prompts keep working, the user is told how many decisions are not saved,
// and once space is freed every one lands in history, exactly once. Needs
// root for a small tmpfs; skipped (and says so) otherwise.
func TestFaultDiskFull(t *testing.T) {
	d, full := newDesktopOnSmallDisk(t)
	d.config("[servers.rule]\nrule = \"decline\"\n")

	fill(t, full)
	fh := d.connectFault("ask", nil)
	ask := fh.ask(t, 1, "full-before")
	win, _ := d.window()
	d.answer(win, "Return")
	if got := d.received(ask); !slices.Equal(got, []string{"accept"}) {
		t.Fatalf("with the disk full before the hub started, the server got %v, want [accept]", got)
	}
	if st := d.status(); !strings.Contains(st, "1 decision not saved: the disk is full") {
		t.Errorf("status with the disk full:\n%s", st)
	}

	rule := d.connectFault("rule", nil)
	ask = rule.ask(t, 300, "full-during")
	got := d.received(ask)
	if len(got) != 300 || slices.ContainsFunc(got, func(a string) bool { return a != "decline" }) {
		t.Fatalf("with the disk full, the rule's server got %d answers, not 300 declines: %v", len(got), first(got))
	}
	if st := d.status(); !strings.Contains(st, "301 decisions not saved: the disk is full") {
		t.Errorf("status with the disk full:\n%s", st)
	}
	if _, stderr, _ := testkit.RunBinary(t, d.env, nil, nil, "history", "list"); !strings.Contains(stderr, "elicitray: 301 decisions not saved: the disk is full") {
		t.Errorf("history list with the disk full does not say so on stderr: %q", stderr)
	}

	if err := os.Remove(filepath.Join(full, "filler")); err != nil {
		t.Fatal(err)
	}
	if st := d.status(); strings.Contains(st, "History") {
		t.Errorf("status once space is freed still names a problem:\n%s", st)
	}
	want := map[string]string{"full-before #0": "accept"}
	for i := range 300 {
		want[fmt.Sprintf("full-during #%d", i)] = "decline"
	}
	d.matchHistory(want)
}

// TestFaultDiskFillsWhileRunning: the disk fills up while a hub runs and a
// rule answers 300 prompts. The hub set room aside for its spool when it
// started, so not one decision waits in memory only: they wait in the
// spool, and land in history once space is freed, each delivered. Needs
// root.
func TestFaultDiskFillsWhileRunning(t *testing.T) {
	d, full := newDesktopOnSmallDisk(t)
	d.config("[servers.rule]\nrule = \"decline\"\nburst = 100000\n")
	fh := d.connectFault("ask", nil)
	ask := fh.ask(t, 1, "room")
	win, _ := d.window()
	d.answer(win, "Return")
	d.received(ask)
	if st := d.status(); strings.Contains(st, "History") {
		t.Fatalf("status with room on the disk names a problem:\n%s", st)
	}

	fill(t, full)
	rule := d.connectFault("rule", nil)
	got := d.received(rule.ask(t, 300, "filled"))
	if len(got) != 300 || slices.ContainsFunc(got, func(a string) bool { return a != "decline" }) {
		t.Fatalf("the rule's server got %d answers, not 300 declines: %v", len(got), first(got))
	}
	st := d.status()
	if strings.Contains(st, "not saved") || !strings.Contains(st, "waiting in the spool, not yet in history: the disk is full") {
		t.Errorf("status with the disk full since the hub started (every decision should be in the spool):\n%s", st)
	}
	if err := os.Remove(filepath.Join(full, "filler")); err != nil {
		t.Fatal(err)
	}
	if st := d.status(); strings.Contains(st, "History") {
		t.Errorf("status once space is freed still names a problem:\n%s", st)
	}
	want := map[string]string{"room #0": "accept"}
	for i := range 300 {
		want[fmt.Sprintf("filled #%d", i)] = "decline"
	}
	d.matchHistory(want)
	// Every answer reached its server, and history says so: the words on
	// their delivery waited in the spool behind the decisions (before,
	// history took them first, settled nothing, and all 300 read "not
	// confirmed delivered" for good).
	pending := 0
	for _, r := range d.history("--limit", "1000") {
		if r.Delivery != "" {
			pending++
		}
	}
	if pending > 0 {
		t.Errorf("history says %d of the 301 answers were not confirmed delivered; every one was", pending)
	}
}

// TestFaultDiskFullQuit: with the disk full, the hub is told to quit while
// a decision is only in its memory. It is lost, and the one who quits is
// told so, not only the log. Needs root for a small tmpfs.
func TestFaultDiskFullQuit(t *testing.T) {
	d, full := newDesktopOnSmallDisk(t)
	fill(t, full)
	fh := d.connectFault("ask", nil)
	ask := fh.ask(t, 1, "full-quit")
	win, _ := d.window()
	d.answer(win, "Return")
	d.received(ask)
	_, stderr, code := testkit.RunBinary(t, d.env, nil, nil, "quit")
	if code != 1 || !strings.Contains(stderr, "1 decision could not be saved before the hub stopped (1 decision not saved: the disk is full); the wrappers that asked keep copies") {
		t.Errorf("quit with a decision not saved: exit %d, %q", code, stderr)
	}
}

// TestFaultDiskFullHubKilled: with the disk full the hub keeps its
// decisions in memory, and is killed (kill -9) before the disk has room:
// the wrappers, still running, hold a copy of each (the hub handed it over
// with the decision) and spool them when they stop, once the disk has
// room. Before, all 50 decisions were lost without a trace.
func TestFaultDiskFullHubKilled(t *testing.T) {
	d, full := newDesktopOnSmallDisk(t)
	d.config("[servers.rule]\nrule = \"decline\"\nburst = 1000\n")

	fill(t, full)
	rule := d.connectFault("rule", nil)
	got := d.received(rule.ask(t, 50, "kept"))
	if len(got) != 50 || slices.ContainsFunc(got, func(a string) bool { return a != "decline" }) {
		t.Fatalf("with the disk full, the rule's server got %d answers, not 50 declines: %v", len(got), first(got))
	}
	if st := d.status(); !strings.Contains(st, "50 decisions not saved: the disk is full") {
		t.Errorf("status with the disk full:\n%s", st)
	}
	if err := syscall.Kill(d.hubPID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(full, "filler")); err != nil {
		t.Fatal(err)
	}
	// The host goes away: the wrapper stops, with no hub to hand its
	// copies to, and spools them.
	rule.stdin.Close()
	_ = rule.wrapper.Wait()
	want := map[string]string{}
	for i := range 50 {
		want[fmt.Sprintf("kept #%d", i)] = "decline"
	}
	d.matchHistory(want)
}

// TestFaultHubCrashUnderLoad: ten servers ask 300 times each, answered by a
// rule, and the hub is killed (kill -9) half way. The wrappers start a new
// hub for the next prompt; every server's answers and the history agree,
// one record per elicitation, whatever the crash cut short.
func TestFaultHubCrashUnderLoad(t *testing.T) {
	d := newParallelDesktop(t)
	const servers, each = 10, 300
	var toml strings.Builder
	for i := range servers {
		fmt.Fprintf(&toml, "[servers.load%d]\nrule = \"decline\"\nburst = 100000\n", i)
	}
	d.config(toml.String())
	answered := make(chan struct{}, servers*each)
	start := time.Now()
	var asks []<-chan asked
	for i := range servers {
		fh := d.connectFaultCounting(fmt.Sprintf("load%d", i), nil, answered)
		asks = append(asks, fh.ask(t, each, fmt.Sprintf("load%d", i)))
	}
	// Half way: kill the hub that answers.
	for range servers * each / 2 {
		select {
		case <-answered:
		case <-time.After(desktopWait):
			t.Fatalf("the servers stopped being answered%s", d.diagnostics())
		}
	}
	crashed := d.hubPID()
	if err := syscall.Kill(crashed, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	cancels := 0
	for i, ch := range asks {
		actions := d.received(ch)
		if len(actions) != each {
			t.Fatalf("server load%d got %d answers, want %d", i, len(actions), each)
		}
		for j, a := range actions {
			got[fmt.Sprintf("load%d #%d", i, j)] = a
			if a == "cancel" {
				cancels++
			}
		}
	}
	if d.hubPID() == crashed {
		t.Errorf("no new hub started after the crash")
	}
	t.Logf("%d elicitations in %v through the real wrappers and hubs, %d answered cancel by the crash", len(got), time.Since(start).Round(time.Millisecond), cancels)
	d.matchHistory(got)
}

// TestFaultPlantedLinks: links planted in elicitray's directories are not
// followed. A run directory that is a link to a directory where something
// listens gets nothing from the wrapper: the server is answered cancel (no
// hub of the user's own can be reached or started there) and history says
// why, once. A hub.lock that is a link is not written through, and neither
// is a spool directory that is one.
func TestFaultPlantedLinks(t *testing.T) {
	t.Parallel()
	t.Run("run directory", func(t *testing.T) {
		d := newParallelDesktop(t)
		elsewhere := t.TempDir()
		os.Chmod(elsewhere, 0o700)
		u := listenUntrusted(t, filepath.Join(elsewhere, paths.SocketName))
		if err := os.Symlink(elsewhere, d.paths.RunDir); err != nil {
			t.Fatal(err)
		}
		fh := d.connectFault("linked", nil)
		if got := d.received(fh.ask(t, 1, "linked")); !slices.Equal(got, []string{"cancel"}) {
			t.Errorf("the server got %v, want [cancel]", got)
		}
		u.noneReached(t)
		recs := d.matchHistory(map[string]string{"linked #0": "cancel"})
		if len(recs) == 1 && (recs[0].DecidedBy != "no-display" || !strings.Contains(recs[0].Reason, "is a symbolic link")) {
			t.Errorf("the record says %s: %s; want no-display, naming the link", recs[0].DecidedBy, recs[0].Reason)
		}
	})
	t.Run("hub.lock", func(t *testing.T) {
		d := newParallelDesktop(t)
		victim := filepath.Join(t.TempDir(), "precious")
		if err := os.WriteFile(victim, []byte("keep me\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(d.paths.RunDir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(victim, d.paths.Lock); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := testkit.RunBinary(t, d.env, nil, nil, "hub")
		if code != 1 || !strings.Contains(stderr, "is a symbolic link, which elicitray does not write through") {
			t.Errorf("hub with a planted lock: exit %d, %s", code, stderr)
		}
		if b, _ := os.ReadFile(victim); string(b) != "keep me\n" {
			t.Errorf("the link's target now holds %q", b)
		}
	})
	t.Run("history.db of another user's", func(t *testing.T) {
		if os.Getuid() != 0 {
			t.Skip("a link owned by another user needs root to make: skipped")
		}
		d := newParallelDesktop(t)
		victim := filepath.Join(t.TempDir(), "precious")
		if err := os.WriteFile(victim, []byte("keep me\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(d.paths.History), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(victim, d.paths.History); err != nil {
			t.Fatal(err)
		}
		if err := os.Lchown(d.paths.History, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		fh := d.connectFault("histlink", nil)
		ask := fh.ask(t, 1, "histlink")
		win, _ := d.window()
		d.answer(win, "Escape")
		if got := d.received(ask); !slices.Equal(got, []string{"cancel"}) {
			t.Errorf("the server got %v, want [cancel]", got)
		}
		if st := d.status(); !strings.Contains(st, "1 decision waiting in the spool, not yet in history: "+d.paths.History+" is a symbolic link owned by uid 65534, not you") {
			t.Errorf("status:\n%s", st)
		}
		if b, _ := os.ReadFile(victim); string(b) != "keep me\n" {
			t.Errorf("the link's target now holds %q", b)
		}
	})
	t.Run("hub.log of another user's", func(t *testing.T) {
		if os.Getuid() != 0 {
			t.Skip("a file owned by another user needs root to make: skipped")
		}
		d := newParallelDesktop(t)
		if err := os.MkdirAll(filepath.Dir(d.paths.HubLog), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(d.paths.HubLog, nil, 0o666); err != nil {
			t.Fatal(err)
		}
		os.Chmod(d.paths.HubLog, 0o666)
		if err := os.Chown(d.paths.HubLog, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		// A second name for the planted file: what it holds afterwards is
		// what that user would read (and its inode is not reused).
		planted := filepath.Join(t.TempDir(), "planted")
		if err := os.Link(d.paths.HubLog, planted); err != nil {
			t.Fatal(err)
		}
		fh := d.connectFault("hublog", nil)
		ask := fh.ask(t, 1, "hublog")
		win, _ := d.window()
		d.answer(win, "Escape")
		d.received(ask)
		if b, _ := os.ReadFile(planted); len(b) != 0 {
			t.Errorf("the hub logged into the file another user planted:\n%s", b)
		}
		fi, err := os.Stat(d.paths.HubLog)
		if err != nil || fi.Sys().(*syscall.Stat_t).Uid != 0 || fi.Mode().Perm() != 0o600 {
			t.Errorf("the hub has no log of its own: %v %v", err, fi)
		}
	})
	t.Run("spool directory", func(t *testing.T) {
		// history.db is locked, so the hub would spool; the spool is a link.
		d := newParallelDesktop(t)
		testkit.HoldLock(t, d.paths.History)
		elsewhere := t.TempDir()
		if err := os.Symlink(elsewhere, journal.SpoolDir(d.paths)); err != nil {
			t.Fatal(err)
		}
		fh := d.connectFault("spool", nil)
		ask := fh.ask(t, 1, "spool")
		win, _ := d.window()
		d.answer(win, "Escape")
		if got := d.received(ask); !slices.Equal(got, []string{"cancel"}) {
			t.Errorf("the server got %v, want [cancel]", got)
		}
		if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
			t.Errorf("the hub wrote %d files through the planted spool link", len(entries))
		}
		if st := d.status(); !strings.Contains(st, "1 decision not saved") || !strings.Contains(st, "; the spool directory "+journal.SpoolDir(d.paths)+" is a symbolic link") {
			t.Errorf("status does not say the decision is not saved:\n%s", st)
		}
	})
}
