package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/elicitray/elicitray/ui/lang"
	"strings"
	"testing"
	"time"
)

// guardApprover hands each Request to the test, which answers it on the
// request's channel; the Approve's context cause comes back on ended.
type guardApprover struct {
	asked chan guardAsk
	ended chan error
}

type guardAsk struct {
	req    *Request
	answer chan *Result
}

func newGuardApprover() *guardApprover {
	return &guardApprover{asked: make(chan guardAsk, 4), ended: make(chan error, 4)}
}

func (a *guardApprover) Approve(ctx context.Context, req *Request) (*Result, error) {
	ask := guardAsk{req: req, answer: make(chan *Result, 1)}
	a.asked <- ask
	select {
	case res := <-ask.answer:
		return res, nil
	case <-ctx.Done():
		a.ended <- context.Cause(ctx)
		return nil, context.Cause(ctx)
	}
}

const guardTools = `{"jsonrpc":"2.0","id":1,"result":{"tools":[` +
	`{"name":"echo","title":"Echo Tool","description":"Echoes back the input","inputSchema":{"type":"object"}},` +
	`{"name":"wipe","description":"Deletes everything","inputSchema":{"type":"object"},"annotations":{"destructiveHint":true}},` +
	`{"name":"add","inputSchema":{"type":"object"},"annotations":{"destructiveHint":false}}]}}`

// listTools sends the host's tools/list and the server's result through
// the relay, which learns the tools from it.
func (p *peer) listTools() {
	p.t.Helper()
	p.hostSends(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	p.serverGets()
	p.serverSends(guardTools)
	if got := p.hostGets(); got != guardTools {
		p.t.Fatalf("tools/list result changed on its way: %q", got)
	}
}

// marker proves the relay moved on: a ping from the host reaches the
// server next, so nothing else was written to it before.
func (p *peer) serverNextIsPing(id int) {
	p.t.Helper()
	p.hostSends(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
	if got := p.serverGets(); !strings.Contains(got, `"method":"ping"`) {
		p.t.Fatalf("server got %q, want the ping: the guarded call reached it", got)
	}
}

func TestGuardApproveForwardsUntouched(t *testing.T) {
	a := newGuardApprover()
	p := startPeer(t, &Options{Server: "everything", Approver: a, Guard: []string{"ech*"}})
	p.initialize()
	p.listTools()
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello","api_key":"abc123"}}}`
	p.hostSends(call)
	ask := <-a.asked
	// Held: while the window is open, other messages flow, and the call
	// has not reached the server.
	p.serverNextIsPing(8)
	if ask.req.Mode != ModeToolCall || ask.req.Tool != "echo" || ask.req.Server != "everything" {
		t.Errorf("request = mode %q tool %q server %q, want a tool call of echo on everything", ask.req.Mode, ask.req.Tool, ask.req.Server)
	}
	for _, want := range []string{`"echo"`, "Echo Tool", "Echoes back the input", `message: "hello"`, "api_key: •••••• (hidden"} {
		if !strings.Contains(ask.req.Message, want) {
			t.Errorf("the window's text lacks %q:\n%s", want, ask.req.Message)
		}
	}
	if strings.Contains(ask.req.Message, "abc123") {
		t.Errorf("the window shows the secret argument:\n%s", ask.req.Message)
	}
	ask.answer <- &Result{Action: ActionAccept, DecidedBy: DecidedByUser}
	if got := p.serverGets(); got != call {
		t.Fatalf("server got %q, want the call as the host sent it", got)
	}
	reply := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"Echo: hello"}]}}`
	p.serverSends(reply)
	if got := p.hostGets(); got != reply {
		t.Fatalf("host got %q, want the server's reply", got)
	}
}

func TestGuardDenyNeverReachesServer(t *testing.T) {
	for _, tt := range []struct {
		name string
		res  *Result
		want string
	}{
		{"declined", &Result{Action: ActionDecline, DecidedBy: DecidedByUser}, `The user denied the call of the tool \"echo\" in elicitray; it did not run.`},
		{"dismissed", &Result{Action: ActionCancel, DecidedBy: DecidedByUser}, `The user denied the call of the tool \"echo\" in elicitray; it did not run.`},
		{"timeout", &Result{Action: ActionCancel, DecidedBy: DecidedByTimeout, Reason: "nobody answered within 2s"}, `Nobody approved the call of the tool \"echo\" in elicitray in time; it did not run.`},
		{"paused", &Result{Action: ActionCancel, DecidedBy: DecidedByPaused, Reason: "all prompts are paused"}, `elicitray did not run the tool \"echo\" without the user's approval: all prompts are paused.`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := newGuardApprover()
			p := startPeer(t, &Options{Approver: a, Guard: []string{"echo"}})
			p.initialize()
			p.hostSends(`{"jsonrpc":"2.0","id":"c-1","method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`)
			ask := <-a.asked
			ask.answer <- tt.res
			jsonEq(t, `{"jsonrpc":"2.0","id":"c-1","result":{"content":[{"type":"text","text":"`+tt.want+`"}],"isError":true}}`, p.hostGets())
			p.serverNextIsPing(2)
		})
	}
}

func TestGuardCancelWhileHeld(t *testing.T) {
	a := newGuardApprover()
	p := startPeer(t, &Options{Approver: a, Guard: []string{"echo"}})
	p.initialize()
	p.hostSends(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`)
	<-a.asked
	p.hostSends(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9,"reason":"user pressed stop"}}`)
	if err := <-a.ended; !errors.Is(err, ErrHostCancelled) {
		t.Fatalf("the window closed with %v, want ErrHostCancelled", err)
	}
	// Neither the call nor its cancel reached the server, and the host
	// got no reply (its next line is the ping's pong).
	p.serverNextIsPing(10)
	p.serverSends(`{"jsonrpc":"2.0","id":10,"result":{}}`)
	if got := p.hostGets(); got != `{"jsonrpc":"2.0","id":10,"result":{}}` {
		t.Fatalf("host got %q, want only the pong", got)
	}
}

func TestGuardWhichTools(t *testing.T) {
	for _, tt := range []struct {
		name        string
		patterns    []string
		destructive bool
		tool        string
		guarded     bool
	}{
		{"pattern", []string{"delete_*", "wipe"}, false, "wipe", true},
		{"other tool", []string{"delete_*"}, false, "echo", false},
		{"destructive hint", nil, true, "wipe", true},
		{"destructive false", nil, true, "add", false},
		{"unannotated", nil, true, "echo", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := newGuardApprover()
			p := startPeer(t, &Options{Approver: a, Guard: tt.patterns, GuardDestructive: tt.destructive})
			p.initialize()
			p.listTools()
			call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"` + tt.tool + `","arguments":{}}}`
			p.hostSends(call)
			if tt.guarded {
				ask := <-a.asked
				if tt.tool == "wipe" && !strings.Contains(ask.req.Message, "Deletes everything") {
					t.Errorf("the window lacks the tool's description:\n%s", ask.req.Message)
				}
				ask.answer <- &Result{Action: ActionAccept, DecidedBy: DecidedByUser}
			}
			if got := p.serverGets(); got != call {
				t.Fatalf("server got %q, want the call", got)
			}
		})
	}
}

func TestGuardNoDesktopDenies(t *testing.T) {
	var told []*Request
	p := startPeer(t, &Options{Guard: []string{"echo"},
		Approver: ApproverFunc(func(ctx context.Context, req *Request) (*Result, error) {
			return nil, fmt.Errorf("%w: no display", ErrNoDesktop)
		}),
		NoDesktop: func(req *Request, forwarded bool, err error) {
			if forwarded {
				t.Errorf("a guarded call was passed on without approval")
			}
			told = append(told, req)
		}})
	p.initialize()
	p.hostSends(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	var got struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(p.hostGets()), &got); err != nil {
		t.Fatal(err)
	}
	if !got.Result.IsError || len(got.Result.Content) != 1 || !strings.Contains(got.Result.Content[0].Text, "no desktop") {
		t.Errorf("host got %+v, want a tool error saying no desktop could ask", got.Result)
	}
	p.serverNextIsPing(5)
	if len(told) != 1 || told[0].Mode != ModeToolCall {
		t.Errorf("NoDesktop was told %v, want the one tool call (history keeps it)", told)
	}
}

func TestArgumentsText(t *testing.T) {
	for _, tt := range []struct {
		name, args string
		want       []string
		not        []string
	}{
		{"none", ``, []string{"No arguments."}, nil},
		{"nested", `{"target":{"host":"db1","password":"hunter2"},"ids":[1,2]}`,
			[]string{"target:\n", `host: "db1"`, "password: •••••• (hidden", "ids: (2 items)", "[1]: 2"}, []string{"hunter2"}},
		{"secret value", `{"note":"ghp_0123456789abcdefghij"}`, []string{"note: •••••• (hidden"}, []string{"ghp_0123"}},
		// The names of secrets are read as a form's field names are
		// (elicit.LooksSecret), both ways: counts of tokens are numbers a
		// person checks, not secrets (issue 27: token_count was hidden).
		{"secret names", `{"api_key":"k1","githubToken":"k2","client_secret":"k3","Authorization":"k4","db_password":"k5","session_cookie":"k6"}`,
			[]string{"api_key: ••••••", "githubToken: ••••••", "client_secret: ••••••", "Authorization: ••••••", "db_password: ••••••", "session_cookie: ••••••"},
			[]string{"k1", "k2", "k3", "k4", "k5", "k6"}},
		{"counts and kinds are no secrets", `{"token_count":5,"max_tokens":100,"tokenizer":"bpe","token_type":"bearer","secretary":"Ann","cookie_domain":"example.com"}`,
			[]string{"token_count: 5", "max_tokens: 100", `tokenizer: "bpe"`, `token_type: "bearer"`, `secretary: "Ann"`, `cookie_domain: "example.com"`}, []string{"••••••"}},
		// A bare "key" names what a key-value tool reads or writes, which
		// the person must see to approve the call; a key of a kind that
		// is a secret is hidden.
		{"keys of a store", `{"key":"user:42","keys":["a","b"],"private_key":"k1","apiKey":"k2"}`,
			[]string{`key: "user:42"`, "keys: (2 items)", "private_key: ••••••", "apiKey: ••••••"}, []string{"k1", "k2"}},
		// The break-it session's: switches, a model's counts, a secret's
		// size are no secrets; a pass is one.
		{"switches and sizes", `{"include_secrets":true,"show_token":true,"password_required":false,"input_tokens":512,"output_tokens":128,"tokens_used":9,"password_length":16}`,
			[]string{"include_secrets: true", "show_token: true", "password_required: false", "input_tokens: 512", "output_tokens: 128", "tokens_used: 9", "password_length: 16"}, []string{"••••••"}},
		// A URL's password and secret query values, not where it goes (a
		// break-it session found the password shown, and kept in history).
		{"urls", `{"target":"https://user:pa55w0rd@example.com/x?token=abcd&page=2","plain":"https://example.com/docs?page=2"}`,
			[]string{`target: "https://user:••••••@example.com/x?page=2&token=••••••"`, `plain: "https://example.com/docs?page=2"`}, []string{"pa55w0rd", "abcd"}},
		{"passes", `{"user":"bob","pass":"k1","dbPass":"k2","pwd":"k3","db_pass":"k4","bank_account":"k5","bypass":"cache"}`,
			[]string{`user: "bob"`, "pass: ••••••", "dbPass: ••••••", "pwd: ••••••", "db_pass: ••••••", "bank_account: ••••••", `bypass: "cache"`}, []string{"k1", "k2", "k3", "k4", "k5"}},
		{"long", `{"text":"` + strings.Repeat("x", 500) + `"}`, []string{"more characters)"}, []string{strings.Repeat("x", 250)}},
		// Cut between characters, never inside one: a skin tone, a vowel
		// sign, an accent are runes of their own (issue 24).
		{"long emoji", `{"text":"` + strings.Repeat("👍🏽", 300) + `"}`, []string{"👍🏽… (102 more characters)"}, []string{"👍…"}},
		{"long Devanagari", `{"text":"` + strings.Repeat("ते", 300) + `"}`, []string{"ते… (102 more characters)"}, []string{"त…"}},
		{"long accents", `{"text":"` + strings.Repeat("e\u0301", 300) + `"}`, []string{"e\u0301… (102 more characters)"}, []string{"e…"}},
		{"controls", `{"t":"a\u202eb\u0007"}`, []string{"t: \"a\ufffdb\\u0007\""}, []string{"\u202e", "\u0007"}},
		{"emoji ZWJ sequence", `{"t":"👩‍👩‍👧‍👦 and a\u200db"}`, []string{"t: \"👩‍👩‍👧‍👦 and a\ufffdb\""}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var c cleaner
			got := argumentsText(json.RawMessage(tt.args), &c)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %q:\n%s", w, got)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("shows %q:\n%s", n, got)
				}
			}
		})
	}
}

// TestGuardMessageSaysWhatItReplaced: characters that can disguise text,
// in the tool's title, description or arguments, show as U+FFFD and the
// window says how many there were; an emoji sequence is no such thing.
func TestGuardMessageSaysWhatItReplaced(t *testing.T) {
	got := callMessage("deploy", Guard{Title: "Deploy\u202e", Description: "Ships it.\u200b", Arguments: json.RawMessage(`{"target":"prod\u2066uction","team":"👨‍👩‍👧"}`)}, lang.English)
	for _, want := range []string{"(Deploy\ufffd)", "Ships it.\ufffd", "target: \"prod\ufffduction\"", `team: "👨‍👩‍👧"`,
		"In this call's text 3 invisible or control characters, which can disguise text, are shown as \ufffd."} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	clean := callMessage("deploy", Guard{Title: "Deploy 🚀", Arguments: json.RawMessage(`{"team":"👨‍👩‍👧 🏴󠁧󠁢󠁳󠁣󠁴󠁿"}`)}, lang.English)
	if strings.Contains(clean, "\ufffd") || strings.Contains(clean, "invisible") {
		t.Errorf("emoji sequences were taken for hidden characters:\n%s", clean)
	}
}

// TestGuardKeepAlive: while the approval window is open, a host whose
// call carries a progressToken hears progress (PROTOCOL.md §10), and after
// the approval the server's own progress for the token still comes higher
// than the last the host got.
func TestGuardKeepAlive(t *testing.T) {
	a := newGuardApprover()
	p := startPeer(t, &Options{Approver: a, Guard: []string{"echo"}, KeepAlive: time.Millisecond})
	p.initialize()
	call := `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"progressToken":"t-1"}}}`
	p.hostSends(call)
	ask := <-a.asked
	var last float64
	for range 3 {
		var n struct {
			Method string
			Params struct {
				ProgressToken string
				Progress      float64
			}
		}
		if err := json.Unmarshal([]byte(p.hostGets()), &n); err != nil || n.Method != "notifications/progress" || n.Params.ProgressToken != "t-1" {
			t.Fatalf("host got %+v (%v), want progress for t-1 while the window is open", n, err)
		}
		last = n.Params.Progress
	}
	ask.answer <- &Result{Action: ActionAccept, DecidedBy: DecidedByUser}
	if got := p.serverGets(); got != call {
		t.Fatalf("server got %q, want the call", got)
	}
	// Ticks already on their way may still arrive; the server's progress
	// comes after them, and above them all.
	p.serverSends(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t-1","progress":0}}`)
	for {
		var n struct {
			Params struct{ Progress float64 }
		}
		line := p.hostGets()
		if err := json.Unmarshal([]byte(line), &n); err != nil {
			t.Fatal(err)
		}
		if n.Params.Progress <= last {
			t.Fatalf("host got progress %v after %v: not increasing (%s)", n.Params.Progress, last, line)
		}
		last = n.Params.Progress
		if !strings.Contains(line, "waiting for your answer") {
			break // the server's own
		}
	}
}

// TestGuardCancelRacesApproval: a host's cancel that comes as the user
// approves never reaches the server ahead of the call it cancels: the
// server reads nothing of the call, or the call and then its cancel.
func TestGuardCancelRacesApproval(t *testing.T) {
	a := newGuardApprover()
	p := startPeer(t, &Options{Approver: a, Guard: []string{"echo"}})
	p.initialize()
	for i := 1; i <= 20; i++ {
		call := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{}}}`, i)
		p.hostSends(call)
		ask := <-a.asked
		ask.answer <- &Result{Action: ActionAccept, DecidedBy: DecidedByUser}
		p.hostSends(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`, i))
		p.hostSends(fmt.Sprintf(`{"jsonrpc":"2.0","id":"ping-%d","method":"ping"}`, i))
		got := p.serverGets()
		if got == call {
			if next := p.serverGets(); !strings.Contains(next, "notifications/cancelled") {
				t.Fatalf("round %d: after the call the server got %q, want its cancel", i, next)
			}
			got = p.serverGets()
		}
		if !strings.Contains(got, `"ping-`) {
			t.Fatalf("round %d: server got %q, want the call and its cancel, or neither, before the ping", i, got)
		}
		// Drain a cancelled prompt's end, if it was cancelled while open.
		select {
		case <-a.ended:
		default:
		}
	}
}

// TestGuardBadIDDenied: a guarded call under an id that is neither a
// string nor an integer is denied, not passed on unasked.
func TestGuardBadIDDenied(t *testing.T) {
	a := newGuardApprover()
	p := startPeer(t, &Options{Approver: a, Guard: []string{"echo"}})
	p.initialize()
	p.hostSends(`{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	jsonEq(t, `{"jsonrpc":"2.0","id":1.5,"result":{"content":[{"type":"text","text":"elicitray did not run the tool \"echo\": the request's id is not a string or an integer, so it cannot be held for approval."}],"isError":true}}`, p.hostGets())
	p.serverNextIsPing(2)
}

// TestGuardNotificationDropped: a tools/call of a guarded tool sent as a
// notification (no id, or id null) does not reach the server unasked; an
// unguarded one passes as the host wrote it.
func TestGuardNotificationDropped(t *testing.T) {
	p := startPeer(t, &Options{Guard: []string{"echo"}})
	p.initialize()
	p.hostSends(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	p.hostSends(`{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	unguarded := `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{}}}`
	p.hostSends(unguarded)
	if got := p.serverGets(); got != unguarded {
		t.Fatalf("server got %q, want only the unguarded line", got)
	}
	p.serverNextIsPing(3)
}

// TestGuardSetWhileRunning: a relay started with nothing guarded guards
// echo from the call after SetGuard, showing the title and description of
// the tools/list it passed before anything was guarded; a call held when
// the guard is taken away again stays held until the user decides, and
// the call after it runs at once; guard_destructive set later guards the
// tool the list marked destructive.
func TestGuardSetWhileRunning(t *testing.T) {
	a := newGuardApprover()
	p, r, _ := newPeer(t, func(**Relay) *Options { return &Options{Server: "everything", Approver: a} })
	p.initialize()
	p.listTools()
	first := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{}}}`
	p.hostSends(first)
	if got := p.serverGets(); got != first {
		t.Fatalf("server got %q, want the unguarded call", got)
	}

	r.SetGuard([]string{"ech?"}, false)
	p.hostSends(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	ask := <-a.asked
	if !strings.Contains(ask.req.Message, "Echo Tool") || !strings.Contains(ask.req.Message, "Echoes back the input") {
		t.Errorf("the window does not describe the tool listed before the guard was set:\n%s", ask.req.Message)
	}
	p.serverNextIsPing(5)

	r.SetGuard(nil, false)
	ask.answer <- &Result{Action: ActionDecline, DecidedBy: DecidedByUser}
	jsonEq(t, `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"The user denied the call of the tool \"echo\" in elicitray; it did not run."}],"isError":true}}`, p.hostGets())
	last := `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{}}}`
	p.hostSends(last)
	if got := p.serverGets(); got != last {
		t.Fatalf("server got %q, want the call made once nothing is guarded", got)
	}

	// guard_destructive set later knows the tools marked destructive in
	// the list the host got while nothing was guarded.
	r.SetGuard(nil, true)
	p.hostSends(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wipe","arguments":{}}}`)
	ask = <-a.asked
	if ask.req.Tool != "wipe" || !strings.Contains(ask.req.Message, "Deletes everything") {
		t.Errorf("asked about %q:\n%s\nwant the destructive wipe, described", ask.req.Tool, ask.req.Message)
	}
	ask.answer <- &Result{Action: ActionAccept, DecidedBy: DecidedByUser}
	p.serverGets()
}

// TestGuardDestructiveReadEitherWay: a tool whose annotations a Go host
// reads from "ANNOTATIONS" (any case) as destructive is guarded by
// guard_destructive, though JSON.parse reads the other member.
func TestGuardDestructiveReadEitherWay(t *testing.T) {
	a := newGuardApprover()
	p := startPeer(t, &Options{Approver: a, GuardDestructive: true})
	p.initialize()
	p.listReply(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"purge","annotations":{"destructiveHint":false},"ANNOTATIONS":{"destructiveHint":true}}]}}`)
	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"purge","arguments":{}}}`
	p.hostSends(call)
	ask := <-a.asked
	if ask.req.Mode != ModeToolCall || ask.req.Tool != "purge" {
		t.Fatalf("asked %q of %q, want the call held", ask.req.Mode, ask.req.Tool)
	}
	ask.answer <- &Result{Action: ActionAccept, DecidedBy: DecidedByUser}
	if got := p.serverGets(); got != call {
		t.Fatalf("server got %q, want the approved call", got)
	}
}

// TestGuardDestructiveKnownFromEarlierRuns (a new user's finding): a host
// that calls a tool without listing the tools first (it listed them in an
// earlier session) gets its call of a tool the user has seen marked
// destructive held all the same, its window showing what the tool said;
// a tool never seen goes on as before. Before, guard_destructive let it
// through without a word.
func TestGuardDestructiveKnownFromEarlierRuns(t *testing.T) {
	a := newGuardApprover()
	pins := newMemPins()
	pins.known = []ToolDef{
		{Name: "delete_bookings", Description: "Deletes a customer's bookings", Annotations: []byte(`{"destructiveHint":true}`)},
		{Name: "lookup", Annotations: []byte(`{"destructiveHint":false}`)},
	}
	p := startPeer(t, &Options{Server: "bookings", Approver: a, Pins: pins, GuardDestructive: true})
	p.initialize()
	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"delete_bookings","arguments":{"customer":"วัชระ"}}}`
	p.hostSends(call)
	ask := <-a.asked
	if ask.req.Mode != ModeToolCall || ask.req.Tool != "delete_bookings" || !strings.Contains(ask.req.Message, "Deletes a customer's bookings") {
		t.Fatalf("asked %q of %q:\n%s\nwant the call held, the tool described", ask.req.Mode, ask.req.Tool, ask.req.Message)
	}
	ask.answer <- &Result{Action: ActionAccept, DecidedBy: DecidedByUser}
	if got := p.serverGets(); got != call {
		t.Fatalf("server got %q, want the approved call", got)
	}
	lookup := `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"lookup","arguments":{}}}`
	p.hostSends(lookup)
	if got := p.serverGets(); got != lookup {
		t.Fatalf("server got %q, want the call of a tool not destructive, not held", got)
	}
}
