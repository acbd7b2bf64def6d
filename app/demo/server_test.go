package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// startServer runs Server on a pair of pipes, with an audit log in
// t.TempDir(), and returns the client's ends.
func startServer(t *testing.T, tee io.Writer) (toServer io.WriteCloser, fromServer io.ReadCloser) {
	t.Helper()
	return startServerWith(t, tee, &Options{AuditLog: filepath.Join(t.TempDir(), "audit.jsonl")})
}

// startServerWith runs Server with opts on a pair of pipes and returns the
// client's ends. Cleanup waits for Server to return and fails the test if it
// returned an error: demo-server must exit cleanly when its host hangs up.
func startServerWith(t *testing.T, tee io.Writer, opts *Options) (toServer io.WriteCloser, fromServer io.ReadCloser) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var out io.WriteCloser = outW
	if tee != nil {
		out = teeWriteCloser{outW, tee}
	}
	done := make(chan error, 1)
	// Not t.Context(): it is done before Cleanup runs, and Server must
	// stop because the client hung up, not because of its context.
	go func() { done <- Server(context.Background(), inR, out, opts) }()
	t.Cleanup(func() {
		inW.Close() // the host hangs up
		if err := <-done; err != nil {
			t.Errorf("Server returned %v after the client hung up, want nil", err)
		}
	})
	return inW, outR
}

type teeWriteCloser struct {
	io.WriteCloser
	tee io.Writer
}

func (w teeWriteCloser) Write(p []byte) (int, error) {
	w.tee.Write(p)
	return w.WriteCloser.Write(p)
}

// recorder is a scripted elicitation handler: it answers with result and
// keeps the requests it received.
type recorder struct {
	result *mcp.ElicitResult

	mu       sync.Mutex
	received []*mcp.ElicitParams
}

func (r *recorder) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.received = append(r.received, req.Params)
	return r.result, nil
}

func (r *recorder) requests() []*mcp.ElicitParams {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.received)
}

// connectGoSDK connects a go-sdk client to a fresh Server at protocolVersion
// ("" for the SDK's latest). A nil handler declares no elicitation. If wire
// is not nil, it receives a copy of what the server writes.
func connectGoSDK(t *testing.T, protocolVersion string, handler func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error), wire *syncBuffer) *mcp.ClientSession {
	t.Helper()
	var tee io.Writer
	if wire != nil {
		tee = wire
	}
	toServer, fromServer := startServer(t, tee)
	client := mcp.NewClient(&mcp.Implementation{Name: "test-host", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: handler})
	cs, err := client.Connect(t.Context(), &mcp.IOTransport{Reader: fromServer, Writer: toServer}, &mcp.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		t.Fatalf("connecting to the demo server: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// resultText returns the text of a tool result, prefixed "error: " when the
// tool reported an error.
func resultText(res *mcp.CallToolResult) string {
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	text := strings.Join(texts, "\n")
	if res.IsError {
		return "error: " + text
	}
	return text
}

// The two eras a go-sdk client can speak to the demo server (PROTOCOL.md §1).
var eras = []struct {
	name, protocolVersion string
}{
	{"legacy push 2025-11-25", "2025-11-25"},
	{"multi round-trip 2026-07-28", "2026-07-28"},
}

func TestToolsAnswerWithWhatTheUserChose(t *testing.T) {
	for _, era := range eras {
		for _, tt := range []struct {
			tool   string
			answer *mcp.ElicitResult
			want   string
		}{
			{
				tool:   "confirm_deploy",
				answer: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true, "environment": "production"}},
				want:   `accept: {"confirm":true,"environment":"production"}`,
			},
			{
				tool:   "confirm_deploy",
				answer: &mcp.ElicitResult{Action: "decline"},
				want:   "decline",
			},
			{
				tool:   "pick_environment",
				answer: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"environment": "dev", "region": "ap-southeast-2"}},
				want:   `accept: {"environment":"dev","region":"ap-southeast-2"}`,
			},
			{
				tool:   "pick_environment",
				answer: &mcp.ElicitResult{Action: "cancel"},
				want:   "cancel",
			},
			{
				tool: "profile_form",
				answer: &mcp.ElicitResult{Action: "accept", Content: map[string]any{
					"fullName": "Ada Lovelace",
					"greeting": "Dear reader,",
					"email":    "ada@example.org",
					"site":     "https://example.org/ada",
					"start":    "2026-01-05",
					"deadline": "2026-01-31T17:00:00Z",
					"copies":   3,
					"budget":   250.5,
					"agree":    true,
					"team":     "Data",
					"tier":     "tier-3",
					"format":   "txt",
					"channels": []any{"Chat", "Wiki"},
					"regions":  []any{"r-2", "r-3"},
				}},
				want: `accept: {"agree":true,"budget":250.5,"channels":["Chat","Wiki"],"copies":3,"deadline":"2026-01-31T17:00:00Z","email":"ada@example.org","format":"txt","fullName":"Ada Lovelace","greeting":"Dear reader,","regions":["r-2","r-3"],"site":"https://example.org/ada","start":"2026-01-05","team":"Data","tier":"tier-3"}`,
			},
			{
				// Only the required name: the fields left empty come back
				// with the form's defaults, typed (42 not "42").
				tool:   "profile_form",
				answer: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"fullName": "Ada"}},
				want:   `accept: {"budget":3.14,"channels":["Email"],"copies":42,"format":"pdf","fullName":"Ada","greeting":"Hello from the team.","regions":["r-1"],"team":"Platform","tier":"tier-1"}`,
			},
			{
				tool:   "choose_tags",
				answer: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"labels": []any{"bug", "docs"}, "audiences": []any{"ops", "users"}}},
				want:   `accept: {"audiences":["ops","users"],"labels":["bug","docs"]}`,
			},
			{
				tool:   "choose_tags",
				answer: &mcp.ElicitResult{Action: "decline"},
				want:   "decline",
			},
		} {
			t.Run(fmt.Sprintf("%s/%s/%s", era.name, tt.tool, tt.answer.Action), func(t *testing.T) {
				r := &recorder{result: tt.answer}
				var wire syncBuffer
				cs := connectGoSDK(t, era.protocolVersion, r.handle, &wire)
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tt.tool})
				if err != nil {
					t.Fatalf("calling %s: %v", tt.tool, err)
				}
				if diff := cmp.Diff(tt.want, resultText(res)); diff != "" {
					t.Errorf("tool result mismatch (-want +got):\n%s", diff)
				}
				if got := len(r.requests()); got != 1 {
					t.Errorf("the user was asked %d times, want once", got)
				}
				if got, want := eraOf(t, wire.Bytes()), era.protocolVersion >= "2026-07-28"; got != want {
					t.Errorf("server answered with input_required: %v, want %v", got, want)
				}
			})
		}
	}
}

// fieldKind names the kind of a requestedSchema property (PROTOCOL.md §4)
// and lists its choices ("value" or "const=title"), as a dialog renders it.
func fieldKind(p map[string]any) (kind, choices string) {
	list := func(opts any) string {
		var out []string
		for _, o := range opts.([]any) {
			if m, ok := o.(map[string]any); ok {
				out = append(out, fmt.Sprintf("%v=%v", m["const"], m["title"]))
			} else {
				out = append(out, fmt.Sprint(o))
			}
		}
		return strings.Join(out, ",")
	}
	switch p["type"] {
	case "string":
		switch {
		case p["oneOf"] != nil:
			return "oneOf", list(p["oneOf"])
		case p["enumNames"] != nil:
			var pairs []string
			names := p["enumNames"].([]any)
			for i, v := range p["enum"].([]any) {
				pairs = append(pairs, fmt.Sprintf("%v=%v", v, names[i]))
			}
			return "enumNames", strings.Join(pairs, ",")
		case p["enum"] != nil:
			return "enum", list(p["enum"])
		case p["format"] != nil:
			return fmt.Sprint(p["format"]), ""
		}
		return "string", ""
	case "array":
		items := p["items"].(map[string]any)
		if items["anyOf"] != nil {
			return "anyOf multi", list(items["anyOf"])
		}
		return "multi enum", list(items["enum"])
	}
	return fmt.Sprint(p["type"]), ""
}

// elicitation is what a user sees of an elicitation: its message, each
// field's kind, label and default, and which fields are required.
type elicitation struct {
	Message  string
	Fields   map[string]string // name → "kind | title | default"
	Required []any
}

func summarize(t *testing.T, p *mcp.ElicitParams) elicitation {
	t.Helper()
	schema, ok := p.RequestedSchema.(map[string]any)
	if !ok {
		t.Fatalf("requestedSchema is a %T, want a JSON object", p.RequestedSchema)
	}
	e := elicitation{Message: p.Message, Fields: map[string]string{}}
	if req, ok := schema["required"].([]any); ok {
		e.Required = req
	}
	for name, prop := range schema["properties"].(map[string]any) {
		prop := prop.(map[string]any)
		kind, choices := fieldKind(prop)
		s := kind
		if choices != "" {
			s += " " + choices
		}
		s += " | " + fmt.Sprint(prop["title"])
		if d, ok := prop["default"]; ok {
			b, _ := json.Marshal(d)
			s += " | default " + string(b)
		}
		e.Fields[name] = s
	}
	return e
}

func TestElicitationsShowEachForm(t *testing.T) {
	for _, tt := range []struct {
		tool string
		want elicitation
	}{
		{
			tool: "confirm_deploy",
			want: elicitation{
				Message: "Deploy build 1.4.2?",
				Fields: map[string]string{
					"confirm":     `boolean | Deploy it now, to the environment below? | default false`,
					"environment": `oneOf staging=Staging,production=Production | Environment | default "staging"`,
				},
				Required: []any{"confirm", "environment"},
			},
		},
		{
			tool: "pick_environment",
			want: elicitation{
				Message: "Where should the next build run?",
				Fields: map[string]string{
					"environment": `enum dev,staging,production | Environment | default "staging"`,
					"region":      `enumNames eu-west-1=Europe (Ireland),us-east-1=US East (Virginia),ap-southeast-2=Asia Pacific (Sydney) | Region`,
				},
				Required: []any{"environment"},
			},
		},
		{
			tool: "profile_form",
			want: elicitation{
				Message: "Fill in your profile so the report can be personalised.",
				Fields: map[string]string{
					"fullName": `string | Full name`,
					"greeting": `string | Greeting | default "Hello from the team."`,
					"email":    `email | Email`,
					"site":     `uri | Website`,
					"start":    `date | Start date`,
					"deadline": `date-time | Deadline`,
					"copies":   `integer | Copies | default 42`,
					"budget":   `number | Budget (EUR) | default 3.14`,
					"agree":    `boolean | I accept the terms`,
					"team":     `enum Platform,Data,Mobile,Web,Security,Support | Team | default "Platform"`,
					"tier":     `oneOf tier-1=Gold,tier-2=Silver,tier-3=Bronze | Tier | default "tier-1"`,
					"format":   `enumNames pdf=PDF,docx=Word,txt=Plain text | File format | default "pdf"`,
					"channels": `multi enum Email,Chat,Wiki,Pager,SMS | Channels | default ["Email"]`,
					"regions":  `anyOf multi r-1=Europe,r-2=Americas,r-3=Asia-Pacific | Regions | default ["r-1"]`,
				},
				Required: []any{"fullName"},
			},
		},
		{
			tool: "choose_tags",
			want: elicitation{
				Message: "Tag release 1.4.2",
				Fields: map[string]string{
					"labels":    `multi enum bug,feature,docs,security | Labels | default ["feature"]`,
					"audiences": `anyOf multi dev=Developers,ops=Operators,users=End users | Audiences`,
				},
				Required: []any{"labels"},
			},
		},
	} {
		for _, era := range eras {
			t.Run(era.name+"/"+tt.tool, func(t *testing.T) {
				r := &recorder{result: &mcp.ElicitResult{Action: "cancel"}}
				cs := connectGoSDK(t, era.protocolVersion, r.handle, nil)
				if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tt.tool}); err != nil {
					t.Fatalf("calling %s: %v", tt.tool, err)
				}
				reqs := r.requests()
				if len(reqs) != 1 {
					t.Fatalf("the user was asked %d times, want once", len(reqs))
				}
				if diff := cmp.Diff(tt.want, summarize(t, reqs[0])); diff != "" {
					t.Errorf("elicitation mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestDemoElicitsEveryKindOfField(t *testing.T) {
	r := &recorder{result: &mcp.ElicitResult{Action: "cancel"}}
	cs := connectGoSDK(t, "2025-11-25", r.handle, nil)
	var names []string
	for tool, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
		if tool.Description == "" || !strings.HasSuffix(tool.Description, ".") {
			t.Errorf("tool %s has description %q, want a sentence", tool.Name, tool.Description)
		}
	}
	slices.Sort(names)
	if diff := cmp.Diff([]string{"choose_tags", "confirm_deploy", "pick_environment", "profile_form", "request_change"}, names); diff != "" {
		t.Errorf("tools mismatch (-want +got):\n%s", diff)
	}
	for _, name := range names {
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name}); err != nil {
			t.Fatalf("calling %s: %v", name, err)
		}
	}
	kinds := map[string]bool{}
	for _, p := range r.requests() {
		for _, prop := range p.RequestedSchema.(map[string]any)["properties"].(map[string]any) {
			kind, _ := fieldKind(prop.(map[string]any))
			kinds[kind] = true
		}
	}
	want := []string{"anyOf multi", "boolean", "date", "date-time", "email", "enum", "enumNames", "integer", "multi enum", "number", "oneOf", "string", "uri"}
	if diff := cmp.Diff(want, slices.Sorted(maps.Keys(kinds))); diff != "" {
		t.Errorf("field kinds elicited across the demo mismatch (-want +got):\n%s", diff)
	}
}

// TestFieldsAreSentInFormOrder reads the elicitation/create line the server
// writes: a dialog lays fields out in wire order, so the name comes first and
// the selects after the free-text fields.
func TestFieldsAreSentInFormOrder(t *testing.T) {
	var wire syncBuffer
	r := &recorder{result: &mcp.ElicitResult{Action: "cancel"}}
	cs := connectGoSDK(t, "2025-11-25", r.handle, &wire)
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "profile_form"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for line := range bytes.Lines(wire.Bytes()) {
		var msg struct {
			Method string `json:"method"`
			Params struct {
				RequestedSchema struct {
					Properties json.RawMessage `json:"properties"`
				} `json:"requestedSchema"`
			} `json:"params"`
		}
		if err := json.Unmarshal(line, &msg); err != nil {
			t.Fatalf("server wrote a line that is not JSON: %q", line)
		}
		if msg.Method == "elicitation/create" {
			got = objectKeys(t, msg.Params.RequestedSchema.Properties)
		}
	}
	want := []string{"fullName", "greeting", "email", "site", "start", "deadline", "copies", "budget", "agree", "team", "tier", "format", "channels", "regions"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("field order on the wire mismatch (-want +got):\n%s", diff)
	}
}

// eraOf reports whether the server, in the lines it wrote, elicited the
// modern way (an input_required result) rather than by a legacy
// elicitation/create push (PROTOCOL.md §1). It fails the test if the server
// did both or neither.
func eraOf(t *testing.T, wire []byte) (modern bool) {
	t.Helper()
	var push, inputRequired bool
	for line := range bytes.Lines(wire) {
		var msg struct {
			Method string `json:"method"`
			Result struct {
				ResultType string `json:"resultType"`
			} `json:"result"`
		}
		if err := json.Unmarshal(line, &msg); err != nil {
			t.Fatalf("server wrote a line that is not JSON: %q", line)
		}
		push = push || msg.Method == "elicitation/create"
		inputRequired = inputRequired || msg.Result.ResultType == "input_required"
	}
	if push == inputRequired {
		t.Fatalf("server sent a legacy push: %v, an input_required result: %v; want exactly one", push, inputRequired)
	}
	return inputRequired
}

// objectKeys returns the keys of a JSON object in the order they appear.
func objectKeys(t *testing.T, obj json.RawMessage) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil { // {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// syncBuffer is a bytes.Buffer that the server goroutine writes and the test
// reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.buf.Bytes())
}

func TestServerTellsAHostWithoutElicitationWhy(t *testing.T) {
	t.Run("legacy 2025-11-25: tool result with isError", func(t *testing.T) {
		cs := connectGoSDK(t, "2025-11-25", nil, nil)
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "confirm_deploy"})
		if err != nil {
			t.Fatalf("calling confirm_deploy: %v", err)
		}
		want := "error: This host did not declare form elicitation, so confirm_deploy cannot show its form. Run the server through `elicitray wrap`, which declares it."
		if diff := cmp.Diff(want, resultText(res)); diff != "" {
			t.Errorf("tool result mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("2026-07-28: -32021 naming form elicitation", func(t *testing.T) {
		cs := connectGoSDK(t, "2026-07-28", nil, nil)
		_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "confirm_deploy"})
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) {
			t.Fatalf("calling confirm_deploy: got error %v, want a JSON-RPC error", err)
		}
		got := struct {
			Code int64
			Data string
		}{werr.Code, string(werr.Data)}
		want := struct {
			Code int64
			Data string
		}{mcp.CodeMissingRequiredClientCapabilities, `{"requiredCapabilities":{"elicitation":{"form":{}}}}`}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("error mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestServerStopsWhenContextIsDone(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- Server(ctx, inR, io.Discard, nil) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Server returned %v after its context was cancelled, want context.Canceled", err)
	}
}
