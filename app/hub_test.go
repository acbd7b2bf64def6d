//go:build linux

package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/hubapi"
	"github.com/elicitray/elicitray/app/internal/hubkit"
	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/elicitray/elicitray/app/journal"
	"github.com/elicitray/elicitray/app/session"
	"github.com/elicitray/elicitray/app/wrapper"

	"github.com/elicitray/elicitray/app/hub"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/history"
)

// runTestHub is hubkit.RunHub in a home of the test's own, set in the
// test process (testkit.Home).
func runTestHub(t *testing.T, timeout time.Duration) (*hub.Hub, *hubkit.ScriptedPrompter, *wrapper.Approver) {
	t.Helper()
	return hubkit.RunHub(t, testkit.Home(t), timeout)
}

// serveTestHub is hubkit.ServeHub in a home of the test's own, set in the
// test process (testkit.Home).
func serveTestHub(t *testing.T, wrap func(net.Listener) net.Listener) (*hub.Hub, *hubkit.ScriptedPrompter) {
	t.Helper()
	return hubkit.ServeHub(t, paths.Under(testkit.Home(t)), wrap)
}

// TestHubQueue: prompts show one at a time in arrival order; each answer
// reaches its own wrapper call and lands in history with who decided.
func TestHubQueue(t *testing.T) {
	h, sp, c := runTestHub(t, time.Hour)
	first := hubkit.ApproveAsync(c, context.Background(), hubkit.FormRequest("github", "first"))
	shown1 := <-sp.Shown
	second := hubkit.ApproveAsync(c, context.Background(), hubkit.FormRequest("jira", "second"))
	hubkit.WaitQueued(t, h, 2) // so that "third" arrives after "second"
	third := hubkit.ApproveAsync(c, context.Background(), hubkit.FormRequest("github", "third"))
	hubkit.WaitQueued(t, h, 3)
	// Nothing else is shown while the first is open: the next Show comes
	// only after the first answer.
	shown1.Answer(bridge.Result{Action: bridge.ActionAccept, Content: map[string]any{"n": float64(3)}})
	if got := <-first; got.Err != nil || got.Res.Action != "accept" || got.Res.DecidedBy != "user" {
		t.Fatalf("first: %+v %v", got.Res, got.Err)
	}
	shown2 := <-sp.Shown
	if shown2.Prompt.Request.Message != "second" {
		t.Fatalf("second window shows %q, want the second prompt", shown2.Prompt.Request.Message)
	}
	if len(shown2.Prompt.Form.Fields) != 1 || shown2.Prompt.Form.Fields[0].Name != "n" {
		t.Errorf("the window's form was not built from the schema: %+v", shown2.Prompt.Form)
	}
	shown2.Answer(bridge.Result{Action: bridge.ActionDecline})
	shown3 := <-sp.Shown
	shown3.Answer(bridge.Result{Action: bridge.ActionCancel})
	if got := <-second; got.Res.Action != "decline" {
		t.Errorf("second: %+v", got.Res)
	}
	if got := <-third; got.Res.Action != "cancel" {
		t.Errorf("third: %+v", got.Res)
	}
	recs, err := h.Store.List(history.Query{})
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ Server, Message, Action, DecidedBy string }
	var got []row
	for _, r := range recs {
		got = append(got, row{r.Server, r.Message, r.Action, r.DecidedBy})
	}
	want := []row{{"github", "third", "cancel", "user"}, {"jira", "second", "decline", "user"}, {"github", "first", "accept", "user"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("history mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"n": json.Number("3")}, recs[2].Content); diff != "" {
		t.Errorf("content mismatch (-want +got):\n%s", diff)
	}
}

// TestHubToolAcceptedElsewhere: a change accepted in Settings answers the
// windows telling of it, open or waiting behind another, and closes them
// (the hub closes a window the user answered elsewhere); history keeps the
// one acceptance, once however often it comes, with the serverInfo the
// windows had. With no such window, it is kept as it comes. Another tool's
// window stays, and is the next on screen.
func TestHubToolAcceptedElsewhere(t *testing.T) {
	h, sp, c := runTestHub(t, time.Hour)
	told := func(server, tool string) <-chan hubkit.Approval {
		return hubkit.ApproveAsync(c, context.Background(), &bridge.Request{Server: server, Tool: tool, Mode: bridge.ModeToolChange,
			Message: bridge.ChangeMessage(tool, "Description (- pinned, + listed now):\n-Deploys.\n+يحذف كل شيء 🗑️"), ServerInfo: bridge.ServerInfo{Name: "srv"}})
	}
	open := told("部署", "deploy")
	shown := <-sp.Shown
	waiting := told("部署", "deploy")
	other := told("部署", "search")
	hubkit.WaitQueued(t, h, 3)
	accepted := journal.ToolAccepted("部署", "deploy", "", bridge.DecidedByUser, "accepted in Settings")
	if err := h.ToolAccepted(accepted); err != nil {
		t.Fatal(err)
	}
	for _, ch := range []<-chan hubkit.Approval{open, waiting} {
		if got := <-ch; got.Err != nil || got.Res.Action != bridge.ActionAccept || got.Res.DecidedBy != bridge.DecidedByUser || got.Res.Reason != "accepted in Settings" {
			t.Errorf("the window of the accepted change was answered %+v (%v)", got.Res, got.Err)
		}
	}
	select {
	case <-shown.Dismissed:
	case <-time.After(time.Minute): // a hang, not a measurement
		t.Fatal("the window of the change accepted in Settings stays open")
	}
	next := <-sp.Shown
	if next.Prompt.Request.Tool != "search" {
		t.Fatalf("next on screen: %+v, want the other tool's window", next.Prompt.Request)
	}
	// The same acceptance again (a command that gave up on a busy hub
	// spooled it too): nothing more.
	if err := h.Keep(accepted); err != nil {
		t.Fatal(err)
	}
	// No window of it: kept as it is.
	if err := h.ToolAccepted(journal.ToolAccepted("部署", "lookup", "", bridge.DecidedByCommandLine, "accepted with `elicitray tools accept`")); err != nil {
		t.Fatal(err)
	}
	next.Answer(bridge.Result{Action: bridge.ActionDecline})
	<-other
	recs, err := h.Store.List(history.Query{})
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ Tool, Action, DecidedBy, Reason, ServerInfo string }
	var got []row
	for _, r := range recs {
		got = append(got, row{r.Tool, r.Action, r.DecidedBy, r.Reason, r.ServerInfo.Name})
	}
	want := []row{{"search", "decline", "user", "", "srv"}, {"lookup", "accept", "command-line", "accepted with `elicitray tools accept`", ""},
		{"deploy", "accept", "user", "accepted in Settings", "srv"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	// It is of the change accepted, which need not be the one the windows
	// told: the server may have changed the tool again since.
	if len(recs) == 3 && recs[2].Message != accepted.Message {
		t.Errorf("the acceptance is kept with the windows' message:\n%s", recs[2].Message)
	}
}

// TestHubQueueArrivalOrder: prompts show in the order their wrappers took
// them from the server (Request.Time), though they reach the hub in
// another: a wrapper decides each elicitation on a goroutine of its own
// (issue 27: three pushes came up 1, 3, 2). The one on screen stays.
func TestHubQueueArrivalOrder(t *testing.T) {
	h, sp, c := runTestHub(t, time.Hour)
	t0 := time.Now().Add(-time.Minute) // taken from the server before they reach the hub
	ask := func(msg string, at time.Duration) <-chan hubkit.Approval {
		req := hubkit.FormRequest("github", msg)
		req.Time = t0.Add(at)
		return hubkit.ApproveAsync(c, context.Background(), req)
	}
	answers := []<-chan hubkit.Approval{ask("on screen", 4*time.Millisecond)}
	first := <-sp.Shown
	// Each reaches the hub before the next is sent, latest first.
	for i, msg := range []string{"push 3", "push 2", "push 1"} {
		answers = append(answers, ask(msg, time.Duration(3-i)*time.Millisecond))
		hubkit.WaitQueued(t, h, i+2)
	}
	first.Answer(bridge.Result{Action: bridge.ActionCancel})
	var order []string
	for range 3 {
		s := <-sp.Shown
		order = append(order, s.Prompt.Request.Message)
		s.Answer(bridge.Result{Action: bridge.ActionCancel})
	}
	if diff := cmp.Diff([]string{"push 1", "push 2", "push 3"}, order); diff != "" {
		t.Errorf("prompts shown out of arrival order (-want +got):\n%s", diff)
	}
	for _, a := range answers {
		if got := <-a; got.Err != nil || got.Res.Action != "cancel" {
			t.Errorf("answer %+v, %v", got.Res, got.Err)
		}
	}
	// A wrapper whose clock is ahead says its prompt came later than it
	// reached the hub: it goes by its arrival, not behind everything else.
	screen := ask("on screen again", 0)
	shown := <-sp.Shown
	ahead := ask("ahead", 24*time.Hour)
	hubkit.WaitQueued(t, h, 2)
	req := hubkit.FormRequest("jira", "later")
	req.Time = time.Now() // after "ahead" reached the hub, before its stamp
	later := hubkit.ApproveAsync(c, context.Background(), req)
	hubkit.WaitQueued(t, h, 3)
	shown.Answer(bridge.Result{Action: bridge.ActionCancel})
	order = nil
	for range 2 {
		s := <-sp.Shown
		order = append(order, s.Prompt.Request.Message)
		s.Answer(bridge.Result{Action: bridge.ActionCancel})
	}
	if diff := cmp.Diff([]string{"ahead", "later"}, order); diff != "" {
		t.Errorf("a prompt stamped ahead of the hub's clock (-want +got):\n%s", diff)
	}
	for _, a := range []<-chan hubkit.Approval{screen, ahead, later} {
		<-a
	}
}

// TestHubTimeout: a prompt nobody answers is cancel, decided by timeout,
// its window closes, and history says so.
func TestHubTimeout(t *testing.T) {
	h, sp, c := runTestHub(t, 20*time.Millisecond)
	got := hubkit.ApproveAsync(c, context.Background(), hubkit.FormRequest("github", "deploy?"))
	shown := <-sp.Shown
	a := <-got
	if a.Err != nil || a.Res.Action != "cancel" || a.Res.DecidedBy != "timeout" {
		t.Fatalf("got %+v, %v; want cancel by timeout", a.Res, a.Err)
	}
	<-shown.Dismissed // the window was closed
	recs, _ := h.Store.List(history.Query{})
	if len(recs) != 1 || recs[0].DecidedBy != "timeout" || recs[0].Reason == "" {
		t.Errorf("history: %+v", recs)
	}
}

// TestHubServerCancel: when the server cancels its request, the wrapper's
// context ends, the hub closes the window and records server-cancelled.
func TestHubServerCancel(t *testing.T) {
	h, sp, c := runTestHub(t, time.Hour)
	ctx, cancel := context.WithCancelCause(context.Background())
	got := hubkit.ApproveAsync(c, ctx, hubkit.FormRequest("github", "pick"))
	shown := <-sp.Shown
	cancel(bridge.ErrServerCancelled)
	if a := <-got; !errors.Is(a.Err, context.Canceled) {
		t.Fatalf("got %+v, %v; want context.Canceled", a.Res, a.Err)
	}
	<-shown.Dismissed
	// A later answer from the closed window changes nothing.
	shown.Answer(bridge.Result{Action: bridge.ActionAccept})
	// The next prompt still works (and its decision follows the cancel).
	next := hubkit.ApproveAsync(c, context.Background(), hubkit.FormRequest("github", "again"))
	(<-sp.Shown).Answer(bridge.Result{Action: bridge.ActionDecline})
	if a := <-next; a.Res.Action != "decline" {
		t.Fatalf("next: %+v", a.Res)
	}
	recs, _ := h.Store.List(history.Query{})
	var decided []string
	for _, r := range recs {
		decided = append(decided, r.Action+"/"+r.DecidedBy)
	}
	if diff := cmp.Diff([]string{"decline/user", "cancel/server-cancelled"}, decided); diff != "" {
		t.Errorf("history mismatch (-want +got):\n%s", diff)
	}
}

// TestHubRecordsRejections: an elicitation the wrapper refused is kept in
// history with its reason; the hub answers history queries and lookups.
func TestHubRecordsRejections(t *testing.T) {
	_, _, c := runTestHub(t, time.Hour)
	req := hubkit.FormRequest("shop", "Shipping details")
	c.Reject(req, errors.New(`property "address": nested objects are not supported`))
	src := historySource{paths: c.Paths}
	recs, err := src.list(context.Background(), history.Query{})
	if err != nil {
		t.Fatal(err)
	}
	want := []history.Record{{ID: 1, Server: "shop", ServerInfo: history.ServerInfo{Name: "srv", Version: "1"}, Mode: "form",
		Message: "Shipping details", RequestedSchema: req.RequestedSchema, Action: "error", DecidedBy: "error",
		Reason: `property "address": nested objects are not supported`, Source: history.SourceWrapper}}
	if diff := cmp.Diff(want, recs, cmpopts.IgnoreFields(history.Record{}, "Time")); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	one, err := src.get(context.Background(), 1)
	if err != nil || one.Message != "Shipping details" {
		t.Errorf("get 1: %+v, %v", one, err)
	}
	if _, err := src.get(context.Background(), 99); !errors.Is(err, history.ErrNotFound) {
		t.Errorf("get 99: %v, want ErrNotFound", err)
	}
}

// TestHubRejectsBadSchemaAndURL: a schema the hub cannot show, and a link
// that is not https or http, are errors for the wrapper — which answers
// cancel — and history keeps them; no window opens.
func TestHubRejectsBadSchemaAndURL(t *testing.T) {
	h, sp, c := runTestHub(t, time.Hour)
	bad := hubkit.FormRequest("shop", "nested")
	bad.RequestedSchema = []byte(`{"type":"object","properties":{"a":{"type":"object"}}}`)
	if _, err := c.Approve(context.Background(), bad); err == nil {
		t.Error("a nested schema was accepted")
	}
	url := &bridge.Request{Server: "auth", Mode: "url", URL: "javascript:alert(1)", Message: "Connect"}
	if _, err := c.Approve(context.Background(), url); err == nil {
		t.Error("a javascript: link was offered")
	}
	select {
	case s := <-sp.Shown:
		t.Errorf("a window opened for %q", s.Prompt.Request.Message)
	default:
	}
	if n, _ := h.Store.Count(); n != 2 {
		t.Errorf("history has %d records, want 2", n)
	}
}

// TestHubSecondListenRefused: a second hub for the same user cannot start.
func TestHubSecondListenRefused(t *testing.T) {
	runTestHub(t, time.Hour)
	if _, _, err := hub.Listen(paths.FromEnv(os.Getenv)); !errors.Is(err, hub.ErrRunning) {
		t.Fatalf("second Listen: %v, want ErrHubRunning", err)
	}
	fi, err := os.Stat(paths.FromEnv(os.Getenv).Socket)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket: %v mode %v, want 0600", err, fi.Mode().Perm())
	}
}

// TestHubCancelReasons: history says who ended a prompt nobody answered —
// the host cancelling its call, or the wrapper stopping — never "user".
func TestHubCancelReasons(t *testing.T) {
	h, sp, c := runTestHub(t, time.Hour)
	for _, cause := range []error{bridge.ErrHostCancelled, bridge.ErrRelayStopped} {
		ctx, cancel := context.WithCancelCause(context.Background())
		got := hubkit.ApproveAsync(c, ctx, hubkit.FormRequest("github", cause.Error()))
		shown := <-sp.Shown
		cancel(cause)
		<-got
		<-shown.Dismissed
	}
	recs, _ := h.Store.List(history.Query{})
	type row struct{ Action, DecidedBy, Reason string }
	var rows []row
	for _, r := range recs {
		rows = append(rows, row{r.Action, r.DecidedBy, r.Reason})
	}
	want := []row{
		{"cancel", "error", bridge.ErrRelayStopped.Error()},
		{"cancel", "host-cancelled", bridge.ErrHostCancelled.Error()},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("history mismatch (-want +got):\n%s", diff)
	}
}

// TestNoHubStillRecorded: when no hub can start (no desktop session), Approve says
// there is no desktop (the relay then answers cancel, or passes the
// elicitation to the host) and the history file keeps what happened.
func TestNoHubStillRecorded(t *testing.T) {
	testkit.Home(t)
	c := &wrapper.Approver{Paths: paths.FromEnv(os.Getenv), StartWait: time.Second,
		Start: func(session.Desktop) (*os.Process, error) {
			t.Error("a hub was started with no desktop session")
			return nil, session.ErrNoDisplay
		},
		Sessions: func(context.Context, func(session.Desktop) error) error {
			return fmt.Errorf("%w: DISPLAY is not set here", session.ErrNoSession)
		}}
	_, err := c.Approve(context.Background(), hubkit.FormRequest("github", "deploy?"))
	if !errors.Is(err, bridge.ErrNoDesktop) || !errors.Is(err, hubapi.ErrNoHub) {
		t.Fatalf("Approve: %v, want ErrNoDesktop and ErrNoHub", err)
	}
	c.NoDesktop(hubkit.FormRequest("github", "deploy?"), false, err)
	c.NoDesktop(hubkit.FormRequest("github", "tag?"), true, err)
	recs, err := historySource{paths: c.Paths}.list(context.Background(), history.Query{})
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ Message, Action, DecidedBy string }
	var got []row
	for _, r := range recs {
		got = append(got, row{r.Message, r.Action, r.DecidedBy})
		if !strings.Contains(r.Reason, "no desktop session") {
			t.Errorf("reason %q does not say why", r.Reason)
		}
	}
	want := []row{{"tag?", "forwarded", "no-display"}, {"deploy?", "cancel", "no-display"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("history mismatch (-want +got):\n%s", diff)
	}
}

// TestHubURLMode: a URL elicitation is queued like a form, with what the
// consent window shows about its link; accept carries no content.
func TestHubURLMode(t *testing.T) {
	h, sp, c := runTestHub(t, time.Hour)
	req := &bridge.Request{Server: "auth", Mode: "url", URL: "http://192.168.0.1/connect", ElicitationID: "e1", Message: "Connect"}
	got := hubkit.ApproveAsync(c, context.Background(), req)
	shown := <-sp.Shown
	if shown.Prompt.URL == nil || shown.Prompt.Form != nil || len(shown.Prompt.URL.Warnings) < 2 {
		t.Fatalf("the window gets %+v, want the link's check with its warnings", shown.Prompt.URL)
	}
	shown.Answer(bridge.Result{Action: bridge.ActionAccept})
	if a := <-got; a.Err != nil || a.Res.Action != "accept" {
		t.Fatalf("%+v %v", a.Res, a.Err)
	}
	recs, _ := h.Store.List(history.Query{})
	if len(recs) != 1 || recs[0].URL != req.URL || recs[0].Mode != "url" || recs[0].Action != "accept" {
		t.Errorf("history: %+v", recs)
	}
}

// TestHubTimeoutNeverShown (a break-it session's finding): a prompt whose
// server's timeout ends while it waits behind another window is answered
// cancel, and history says the person never saw it; the one on screen,
// when its own ends, says only that nobody answered.
func TestHubTimeoutNeverShown(t *testing.T) {
	h, sp, c := runTestHub(t, time.Hour)
	cfg, _ := configOf(t, "[servers.jira]\ntimeout = \"1ms\"\n")
	h.SetConfig(cfg)
	first := hubkit.ApproveAsync(c, context.Background(), hubkit.FormRequest("github", "first"))
	shown := <-sp.Shown
	second := hubkit.ApproveAsync(c, context.Background(), hubkit.FormRequest("jira", "second"))
	if got := <-second; got.Err != nil || got.Res.Action != bridge.ActionCancel || got.Res.DecidedBy != bridge.DecidedByTimeout ||
		got.Res.Reason != "nobody answered within 1ms: it waited behind other prompts and was never shown" {
		t.Errorf("the prompt behind the window was answered %+v (%v)", got.Res, got.Err)
	}
	shown.Answer(bridge.Result{Action: bridge.ActionDecline})
	<-first
	recs, err := h.Store.List(history.Query{Server: "jira"})
	if err != nil || len(recs) != 1 || !strings.Contains(recs[0].Reason, "never shown") {
		t.Errorf("history of jira: %+v, %v; want the timeout saying it was never shown", recs, err)
	}
}
